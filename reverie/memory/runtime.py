"""``Runtime``: one workspace's services, wired once and built on first use.

``reverie.Memory`` (the verbs every front end calls), the chat agent and the demo all need the same
objects — the store, the memory repo, the model client, sessions, the Consolidator, Dream — wired
the same way. They get them here, so the wiring is written once, and each is built only when
touched: ``reverie log`` opens the repo but neither the store nor the model client (and with it
litellm). A front-end that shows what it waits for passes a ``ModelActivity``: the one client every
service shares then records its calls there.

Threads: a ``Runtime`` is shared by every thread of a ``Memory``. Each service is built once
(threads that race for it wait for the first to build it, ``_service``) and is itself safe to share:
the search index hands each thread a connection of its own, the memory repo handle is used by one
thread at a time (others open their own), and the files' writers take the workspace's locks.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ..storage.repostate import read_repo_id
from ..storage.workspace import REPO_DIRS, Workspace

_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ..consolidator import Consolidator, SessionStore
    from ..dream import Dream
    from ..gitstore import GitStore
    from ..llm.activity import ModelActivity
    from ..llm.client import ModelClient
    from ..recall import Recall
    from ..storage.config import Config
    from ..storage.scopes import Scope, ScopeRoot
    from ..storage.store import WorkspaceStore

__all__ = ["Runtime", "Identity"]

S = TypeVar("S")


def _stamp(path: str) -> tuple[int, int] | None:
    """The folder's device and inode (None when nothing is there to stat)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


class Identity:
    """Which workspace a ``Runtime`` opened: its folder's device and inode, and its memory repo's
    (which of ``REPO_DIRS``, its device and inode), each recorded when first seen (at open, or
    after the write that created it). ``check`` compares them with what the path holds now, with a
    stat or two and no write: a folder deleted, renamed or replaced (another workspace moved
    there, another memory repo in it) is ``WorkspaceMovedError``, so a verb never splits the
    memory in two places by creating a fresh workspace at the old path."""

    __slots__ = ("root", "folder", "repo", "token")

    def __init__(self, root: str) -> None:
        self.root = root
        self.folder: tuple[int, int] | None = None
        self.repo: tuple[str, tuple[int, int]] | None = None
        #: the repo's identity token (``storage.repostate.REPO_ID``; None until it has one): a
        #: workspace made anew at the path can reuse both inode numbers, never the token
        self.token: str | None = None
        self.check()

    def check(self, *, during: bool = False) -> None:
        now = _stamp(self.root)
        if self.folder is None:  # not there yet (or never seen): it is the one found first
            if now is not None:
                self.folder = now
                self._find_repo()
            return
        if now != self.folder:
            self._moved(during=during)
        if self.repo is None:
            self._find_repo()
            return
        git_dir = os.path.join(self.root, self.repo[0])
        if _stamp(git_dir) != self.repo[1]:
            self._moved("its memory repo", during=during)
        try:
            token = read_repo_id(git_dir)
        except OSError:
            return  # unreadable right now: the stamps above are all there is to compare
        if self.token is None:
            self.token = token  # a repo older than its token gets one at its first write
        elif token != self.token:
            self._moved("its memory repo", during=during)

    def settle(self) -> None:
        """After a verb: record the folder or memory repo it created, when none was recorded, and
        check again that the workspace is the one it opened. One moved or replaced while the verb
        ran is ``WorkspaceMovedError`` too, though the verb returned: what it wrote after the move
        went to the old path (a folder its writers made anew there), not to the workspace."""
        self.check(during=True)

    def _find_repo(self) -> None:
        for name in REPO_DIRS:
            found = _stamp(os.path.join(self.root, name))
            if found is not None:
                self.repo = (name, found)
                try:
                    self.token = read_repo_id(os.path.join(self.root, name))
                except OSError:
                    self.token = None  # taken at the next check that can read it
                return

    def _moved(self, what: str = "it", *, during: bool = False) -> None:
        from ..errors import WorkspaceMovedError

        how = "moved or deleted" if what == "it" else f"replaced ({what} is another one)"
        if during:
            raise WorkspaceMovedError(
                f"the workspace at {self.root} was {how} while a verb ran on it: what the verb "
                "wrote after that is not in the workspace (it may be in a folder made anew at "
                "that path); open it again"
            )
        raise WorkspaceMovedError(
            f"the workspace at {self.root} was {how} after it was opened; open it again"
        )


class _service(Generic[S]):  # noqa: N801 (a decorator, named like the cached_property it replaces)
    """``functools.cached_property`` whose first build happens once across threads: a thread that
    finds the service unbuilt builds it under the runtime's lock, and the others wait for it
    (``cached_property`` has no lock from Python 3.12 on, and two search indexes or repo handles
    for one ``Runtime`` would leave one never closed). Once built, a read is a plain attribute
    lookup."""

    def __init__(self, build: Callable[[Any], S]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, runtime: None, owner: type | None = None) -> _service[S]: ...
    @overload
    def __get__(self, runtime: Runtime, owner: type | None = None) -> S: ...
    def __get__(self, runtime: Runtime | None, owner: type | None = None) -> S | _service[S]:
        if runtime is None:
            return self
        built = runtime.__dict__
        if self.name in built:
            value: S = built[self.name]
            return value
        with runtime._building:  # re-entrant: building one service may build another
            if self.name not in built:
                built[self.name] = self.build(runtime)
            value = built[self.name]
        return value


class Runtime:
    """The services of one workspace. Cheap to create; each property builds its service on first
    access."""

    def __init__(
        self,
        workspace: Workspace | str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        activity: ModelActivity | None = None,
        scope: tuple[ScopeRoot, Scope] | None = None,
        identity: Identity | None = None,
    ) -> None:
        """``scope``: the root and scope this workspace belongs to (``reverie.open(root=…,
        user=…)``), so the front door creates it on its first write and reads it as empty before.
        ``identity``: which workspace it is (``Identity``; default: the one at its path now)."""
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.identity = identity if identity is not None else Identity(str(self.workspace.root))
        self._config = config
        self.activity = activity
        self.scope = scope
        self._building = threading.RLock()

    def fresh(self) -> Runtime:
        """A new runtime over the same workspace, config and observer, with services of its own (for
        a thread)."""
        return Runtime(
            self.workspace,
            config=self._config,
            activity=self.activity,
            scope=self.scope,
            identity=self.identity,
        )

    @_service
    def config(self) -> Config:
        """Loaded without opening the store: `reverie log` needs only its git section."""
        if self._config is not None:
            return self._config
        from ..storage.config import load_config

        # a file where the workspace should be: the store's clear error, not a config one
        self.workspace.check()
        return load_config(self.workspace.root)

    @_service
    def store(self) -> WorkspaceStore:
        from ..storage.store import WorkspaceStore

        # the config itself when it was given or is loaded, else this runtime's on first use:
        # `reverie status` reads the models' defaults as data when no key is set, and never loads it
        # (see `WorkspaceStore.settings`)
        loaded = self._config if self._config is not None else self.__dict__.get("config")
        return WorkspaceStore(
            self.workspace, config=loaded if loaded is not None else (lambda: self.config)
        )

    def query_store(self) -> WorkspaceStore:
        """The store for a query that must write nothing (``status``): this runtime's when built,
        else one that leaves a legacy ``HISTORY.md`` unmigrated (not kept: the first write's store
        migrates it)."""
        if "store" in self.__dict__ or not self.workspace.legacy_history_path.is_file():
            return self.store
        from ..storage.store import WorkspaceStore

        loaded = self._config if self._config is not None else self.__dict__.get("config")
        return WorkspaceStore(
            self.workspace,
            config=loaded if loaded is not None else (lambda: self.config),
            migrate=False,
        )

    @_service
    def git(self) -> GitStore:
        """The memory repo. Nothing is written here: queries read the repo as it is (or find none);
        the first write creates, adopts or recovers it (``GitStore.ensure``)."""
        from ..gitstore import GitStore

        return GitStore(self.workspace, self.config.git)

    @_service
    def client(self) -> ModelClient:
        """The one model client every service of this runtime shares (observed when ``activity`` is
        given)."""
        from ..llm.client import ModelClient

        client = ModelClient(self.config)
        if self.activity is None:
            return client
        from ..llm.activity import ObservedClient

        return ObservedClient(client, self.activity)

    @_service
    def sessions(self) -> SessionStore:
        from ..consolidator import SessionStore

        return SessionStore(self.workspace)

    @_service
    def consolidator(self) -> Consolidator:
        from ..consolidator import Consolidator
        from ..operations.memfiles import consolidator_hooks

        # Recall's pre-compaction flush and session-end memory file ride on the consolidator's
        # hooks.
        def commit(message: str, files: dict[str, str], base: dict[str, str]) -> str | None:
            return self.git.commit(message, kind="recall", files=files, base=base)

        hooks = consolidator_hooks(self.workspace, self.client, self.config, commit=commit)
        return Consolidator(self.store, self.client, self.config, sessions=self.sessions, **hooks)

    @_service
    def dream(self) -> Dream:
        from ..dream import Dream

        dream = Dream(self.store, self.git, self.client, self.config)
        dream.after_commit = self.sync_index
        return dream

    def sync_index(self, *, rebuild: bool = False) -> None:
        """After a write: bring the search index file up to date with the files, so queries read it
        as it is (queries never write it: a stale one costs them a private copy, see
        ``reverie.recall.index``); ``rebuild``: drop it and build it again from the files (no
        embedding: that is ``Memory.reindex``'s). Best effort: a failure is logged, and loses
        nothing."""
        import sqlite3

        from ..errors import ReverieError
        from ..recall import Recall

        if not self.workspace.memory_dir.is_dir():
            return  # the verb failed before any memory existed (a file, a root of workspaces)
        recall = self.__dict__.get("recall")
        own = recall is None
        try:
            if recall is None:
                recall = Recall.for_store(self.store)
            if rebuild:
                recall.rebuild()
            else:
                recall.sync()
        except (ReverieError, OSError, sqlite3.Error) as exc:
            _log.warning("the search index was not updated (%s); queries read the files", exc)
        finally:
            if own and recall is not None:
                recall.close()

    @_service
    def recall(self) -> Recall:
        """Search over this workspace (the index opens on first query; no model import without
        embeddings)."""
        from ..recall import Recall

        return Recall.for_store(self.store)
