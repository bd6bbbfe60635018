"""``Runtime``: one workspace's services, wired once and built on first use.

``reverie.Memory`` (the verbs every front end calls), the chat agent and the demo all need the same
objects — the store, the memory repo, the model client, sessions, the Consolidator, Dream — wired
the same way. They get them here, so the wiring is written once, and each is built only when
touched: ``reverie log`` opens the repo but neither the store nor the model client (and with it
litellm). A front-end that shows what it waits for passes a ``ModelActivity``: the one client every
service shares then records its calls there.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import TYPE_CHECKING

from .workspace import Workspace

if TYPE_CHECKING:
    from .activity import ModelActivity
    from .config import Config
    from .consolidator import Consolidator, SessionStore
    from .dream import Dream
    from .gitstore import GitStore
    from .llm.client import ModelClient
    from .recall import Recall
    from .scopes import Scope, ScopeRoot
    from .store import WorkspaceStore

__all__ = ["Runtime"]


class Runtime:
    """The services of one workspace. Cheap to create; each property builds its service on first access."""

    def __init__(
        self,
        workspace: Workspace | str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        activity: ModelActivity | None = None,
        scope: tuple[ScopeRoot, Scope] | None = None,
    ) -> None:
        """``scope``: the root and scope this workspace belongs to (``reverie.open(root=…,
        user=…)``), so the front door creates it on its first write and reads it as empty before."""
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self._config = config
        self.activity = activity
        self.scope = scope

    def fresh(self) -> Runtime:
        """A new runtime over the same workspace, config and observer, with services of its own (for a thread)."""
        return Runtime(
            self.workspace, config=self._config, activity=self.activity, scope=self.scope
        )

    @cached_property
    def config(self) -> Config:
        """Loaded without opening the store: `reverie log` needs only its git section."""
        if self._config is not None:
            return self._config
        from .config import load_config

        self.workspace.check()  # a file where the workspace should be: the store's clear error, not a config one
        return load_config(self.workspace.root)

    @cached_property
    def store(self) -> WorkspaceStore:
        from .store import WorkspaceStore

        # the config itself when it was given or is loaded, else this runtime's on first use:
        # `reverie status` reads the models' defaults as data when no key is set, and never loads it
        # (see `WorkspaceStore.settings`)
        loaded = self._config if self._config is not None else self.__dict__.get("config")
        return WorkspaceStore(
            self.workspace, config=loaded if loaded is not None else (lambda: self.config)
        )

    @cached_property
    def git(self) -> GitStore:
        """The memory repo. Nothing is written here: queries read the repo as it is (or find none);
        the first write creates, adopts or recovers it (``GitStore.ensure``)."""
        from .gitstore import GitStore

        return GitStore(self.workspace, self.config.git)

    @cached_property
    def client(self) -> ModelClient:
        """The one model client every service of this runtime shares (observed when ``activity`` is given)."""
        from .llm.client import ModelClient

        client = ModelClient(self.config)
        if self.activity is None:
            return client
        from .activity import ObservedClient

        return ObservedClient(client, self.activity)

    @cached_property
    def sessions(self) -> SessionStore:
        from .consolidator import SessionStore

        return SessionStore(self.workspace)

    @cached_property
    def consolidator(self) -> Consolidator:
        from .consolidator import Consolidator
        from .recall.memfiles import consolidator_hooks

        # Recall's pre-compaction flush and session-end memory file ride on the consolidator's
        # hooks.
        def commit(message: str, files: dict[str, str], base: dict[str, str]) -> str | None:
            return self.git.commit(message, kind="recall", files=files, base=base)

        hooks = consolidator_hooks(self.workspace, self.client, self.config, commit=commit)
        return Consolidator(self.store, self.client, self.config, sessions=self.sessions, **hooks)

    @cached_property
    def dream(self) -> Dream:
        from .dream import Dream

        return Dream(self.store, self.git, self.client, self.config)

    @cached_property
    def recall(self) -> Recall:
        """Search over this workspace (the index opens on first query; no model import without embeddings)."""
        from .recall import Recall

        return Recall.for_store(self.store)
