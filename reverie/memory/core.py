"""``reverie.open(path) -> Memory``: the one object a program needs to use a workspace's memory.

Every front end — the CLI, the chat commands, the MCP server, the adapters — calls these verbs, so
each has one implementation; ``Memory`` itself only wires the existing library calls (``Dream.run``,
the ``Consolidator``, ``Recall``, ``GitStore``, ``reverie.operations``) over one ``Runtime`` and
returns their typed results.

Threads: one ``Memory`` may be used by any number of threads at once; every verb is safe to call
from any of them (the ``Runtime``'s services are built once and are themselves safe to share; the
workspace's locks order the writes, between threads and processes alike). ``sibling`` gives a
``Memory`` with services of its own, for isolation, never needed for safety.

Each verb is synchronous and has an ``a``-prefixed async twin that does all its work (files,
SQLite, git, CPU) off the caller's event loop, in ``reverie.memory.offload``'s one bounded executor:
the pipeline verbs (``adream``, ``aconsolidate``, ``arecord``, ``aclear``, ``anew_session``) as a
coroutine on a worker's own loop, the others as the synchronous verb; in a worker thread, or in
process mode in a worker process holding a ``Memory`` of the same workspace (``_call``, by name).
The synchronous ``dream``, ``consolidate``, ``record``, ``clear`` and ``new_session`` refuse to run
inside an event loop (await the twin).

No blind writes: a write that replaces content names the state it was made from (``write(…,
base=content_id(text_read))``; ``restore(…, base=plan.base)`` with the ``RestorePlan`` a
confirmation showed). What changed since is merged three-way when the changes touch different lines,
else ``EditConflictError`` carries both sides and nothing is written.

Front ends get their ``Memory`` from ``reverie.open`` or ``wrap`` (one built over an existing
``Runtime``), both of which build the class registered with ``use_memory_class``: a program or a
test can substitute a subclass (one that records or adds verbs) and every front end then uses it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, ParamSpec, TypeVar, overload

from ..errors import (
    CommandError,
    NothingPendingError,
    WorkspaceError,
    WorkspaceMovedError,
)
from ..operations import edit
from ..operations.context import agent_preamble, context
from ..operations.edit import EditKind, RemoveResult, WriteResult, memory_files, memory_path
from ..storage.workspace import (
    ARCHIVE_DIR,
    Workspace,
    content_id,
)
from ..text.safety import unstorable
from .checks import check_day, check_key, check_kinds, check_limit, check_stored, check_text
from .portable import models_portable, rebuilder
from .runtime import Runtime
from .twins import pipeline, run_sync, twin, twin_docs, whole
from .verbs import MemoryVerbs

if TYPE_CHECKING:
    from types import TracebackType

    from ..consolidator import ConsolidationResult
    from ..dream import DreamResult
    from ..dream.deadletter import DeadLetter
    from ..dream.pins import PinResult
    from ..dream.proposal import SoulProposal
    from ..dream.result import Progress
    from ..gitstore.types import CommitDetail, CommitInfo, OperationResult, Provenance
    from ..llm.replylog import KeptReply
    from ..operations.approve import ApproveResult, RejectResult
    from ..operations.faults import Fault
    from ..operations.items import MemoryEvent
    from ..operations.purge import PurgePlan, PurgeResult
    from ..recall import Hit
    from ..recall.index import SyncStats
    from ..storage.config import Config
    from ..storage.history import HistoryEntry
    from ..storage.sessions import Session
    from ..storage.sessions_view import SessionView
    from .status import StatusReport

__all__ = [
    "Memory",
    "open",
    "wrap",
    "use_memory_class",
    "Remembered",
    "WriteResult",
    "RemoveResult",
    "IndexResult",
    "RestorePlan",
    "content_id",
    "EditKind",
    "memory_files",
    "agent_preamble",
]

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class Remembered:
    """What ``remember`` recorded: the history entry's cursor (Dream distils it later; search finds
    it now)."""

    cursor: int
    session_key: str | None


@dataclass(frozen=True)
class IndexResult:
    """What ``reindex`` did: the sync's changes, how many chunks were newly embedded, how many the
    index holds."""

    stats: SyncStats
    embedded: int
    chunks: int


@dataclass(frozen=True)
class RestorePlan:
    """What ``restore(sha, only=only)`` would do now (``plan_restore``), for a confirmation to show:
    the ``diff`` to the memory files and the ``files`` it touches. ``base`` is the commit the plan
    was made at: the confirmation passes it back (``restore(sha, only=only, base=plan.base)``) and
    the restore then does what the diff shows and nothing else (changes made since are kept)."""

    sha: str
    only: bool
    base: str | None
    diff: str
    files: tuple[str, ...]


# -- the factory hook ------------------------------------------------------------------------------

_memory_class: type[Memory] | None = None


def use_memory_class(cls: type[Memory] | None) -> type[Memory] | None:
    """Make ``open`` and ``wrap`` (and so every front end) build ``cls``, a ``Memory`` subclass
    whose constructor takes a ``Runtime`` as ``Memory``'s does; ``None`` restores ``Memory``.
    Returns the class registered before."""
    global _memory_class
    if cls is not None and not (isinstance(cls, type) and issubclass(cls, Memory)):
        raise TypeError(f"{cls!r} is not a Memory subclass")
    previous, _memory_class = _memory_class, cls
    return previous


def wrap(runtime: Runtime) -> Memory:
    """A ``Memory`` (of the registered class) over an existing ``Runtime``: what front ends that
    already hold one (a chat agent's, or one observed by a status line) use."""
    return (_memory_class or Memory)(runtime)


def open(  # noqa: A001 (``reverie.open``, as ``io.open``: the verb a reader expects)
    path: str | os.PathLike[str] | Workspace | None = None,
    *,
    config: Config | None = None,
    root: str | os.PathLike[str] | None = None,
    user: str | None = None,
    agent: str | None = None,
) -> Memory:
    """Open the memory of the workspace at ``path`` (default: ``$REVERIE_WORKSPACE`` or
    ``~/.reverie/workspace``), or, with ``root`` and ``user`` (and optionally ``agent``), of that
    scope under a root of scoped workspaces (``reverie.storage.scopes``: ids are validated,
    ``InvalidScopeError`` otherwise).

    Opening writes nothing (a workspace that does not exist yet is created by the first write; a
    scope never written reads as empty); ``config`` replaces the configuration loaded for the
    workspace. Close the result, or use it as a context manager.
    """
    if root is None:
        if user is not None or agent is not None:
            raise CommandError("user and agent name a scope under a root: pass root= too")
        return wrap(Runtime(_expand(path), config=config))
    from ..storage.scopes import Scope, ScopeRoot

    if path is not None:
        raise CommandError("open() takes a path or a root with a user, not both")
    if user is None:
        raise CommandError("a scope needs a user id: open(root=..., user=...)")
    scopes, scope = ScopeRoot(root), Scope(user, agent)
    return wrap(Runtime(scopes.workspace(scope), config=config, scope=(scopes, scope)))


def _expand(path: str | os.PathLike[str] | Workspace | None) -> Workspace | Path | None:
    if path is None or isinstance(path, Workspace):
        return path
    return Path(path).expanduser()


# -- the same workspace, at every verb -------------------------------------------------------------

#: Not verbs on the workspace: closing (after a delete too), a sibling, argument checks.
_UNGUARDED = frozenset({"close", "aclose", "sibling", "check_user"})
#: The pipeline's steps an async twin runs on a worker (``_call_async``, ``_call``): checked there.
_STEPS = frozenset(
    {"_dream", "_consolidate", "_append", "_consolidate_turns", "_record", "_clear", "_new_session"}
)


def _guard(verb: Callable[..., Any]) -> Callable[..., Any]:
    """``verb`` checking first that its ``Memory``'s workspace is the one it opened
    (``Identity.check``: a stat or two; ``WorkspaceMovedError`` when it was deleted, moved or
    replaced), then, returned or raised, recording the folder or memory repo the verb created and
    checking again (``Identity.settle``): a workspace moved while the verb ran is
    ``WorkspaceMovedError`` too, never a success whose write went to a folder made anew at the old
    path, nor the ``OSError`` the move caused."""
    import functools
    import inspect

    if inspect.iscoroutinefunction(verb):

        @functools.wraps(verb)
        async def step(self: Memory, /, *args: Any, **kwargs: Any) -> Any:
            identity = self.runtime.identity
            identity.check()
            try:
                result = await verb(self, *args, **kwargs)
            except WorkspaceMovedError:
                raise
            except BaseException:
                identity.settle()  # the move, when there was one, is what the caller hears
                raise
            identity.settle()
            return result

        step.__guarded__ = True  # type: ignore[attr-defined]
        return step

    @functools.wraps(verb)
    def checked(self: Memory, /, *args: Any, **kwargs: Any) -> Any:
        identity = self.runtime.identity
        identity.check()
        try:
            result = verb(self, *args, **kwargs)
        except WorkspaceMovedError:
            raise
        except BaseException:
            identity.settle()  # the move, when there was one, is what the caller hears
            raise
        identity.settle()
        return result

    checked.__guarded__ = True  # type: ignore[attr-defined]
    return checked


def _guarded(cls: type[T]) -> type[T]:
    """Every verb of ``cls`` (its public methods, its own and inherited, and the pipeline's steps)
    through ``_guard``; the ``a``-twins reach the workspace through these, in the worker that runs
    them, so nothing on the caller's event loop stats a file."""
    import inspect
    import types

    for name in dir(cls):
        if name in _UNGUARDED or (name.startswith("_") and name not in _STEPS):
            continue
        member = inspect.getattr_static(cls, name)
        if not isinstance(member, types.FunctionType) or getattr(member, "__guarded__", False):
            continue
        if inspect.iscoroutinefunction(member) and name not in _STEPS:
            continue  # an a-twin: the verb or step it runs is guarded
        setattr(cls, name, _guard(member))
    return cls


# -- which files the file verbs reach --------------------------------------------------------------


@_guarded
@twin_docs
class Memory(MemoryVerbs):
    """One workspace's memory and every verb on it. Cheap to create: each service is built on first
    use."""

    #: The longest query a search surface passes on (MCP, the adapters' tools): a query is a few
    #: words, and Recall's work grows with its length (a megabyte takes seconds).
    MAX_QUERY_CHARS: ClassVar[int] = 2_000

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's own verbs (``use_memory_class``) check the workspace as ``Memory``'s do."""
        super().__init_subclass__(**kwargs)
        _guarded(cls)

    # -- lifetime ----------------------------------------------------------------------------------
    @property
    def workspace(self) -> Workspace:
        """The workspace this memory is kept in."""
        return self.runtime.workspace

    @property
    def config(self) -> Config:
        """The workspace's configuration (``reverie.json`` over ``~/.reverie/config.json``)."""
        return self.runtime.config

    def close(self) -> None:
        """Close what was opened (the search index, the memory repo); the object may be used again
        after."""
        built = self.runtime.__dict__
        if built.pop("wrote", False):
            self.runtime.sync_index()  # a writer keeps the index in step (queries never write it)
        recall = built.pop("recall", None)
        if recall is not None:
            recall.close()
        git = built.pop("git", None)
        if git is not None:
            git.close()
        offload = sys.modules.get("reverie.memory.offload")  # only if an async verb ever ran
        if offload is not None:
            offload.release(self)

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """``close`` off the event loop: closing waits for a thread still using the repo handle,
        and SQLite's close may checkpoint its log (what ``async with`` calls on the way out)."""
        await self._offload(lambda m: m.close())

    def sibling(self) -> Memory:
        """A new ``Memory`` (same class, workspace, config and model observer) with services of its
        own: for isolation (its own repo handle, search connections and model client), never
        needed for thread safety."""
        return type(self)(self.runtime.fresh())

    async def _offload(self, verb: Callable[[Memory], T]) -> T:
        """``verb(self)`` in the shared executor's worker thread, off the caller's event loop (a
        verb whose work cannot leave this process; the others use ``_call``)."""
        from . import offload

        return await offload.run(lambda: verb(self), user=self)

    async def _offload_async(self, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """A pipeline verb's coroutine on a worker thread's own event loop
        (``offload.run_async``)."""
        from . import offload

        return await offload.run_async(work, user=self)

    async def _call(
        self, verb: Callable[Concatenate[Memory, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``verb`` (a ``Memory`` method, sent by name: a subclass's override is the one run) off
        the caller's event loop, in ``reverie.memory.offload``'s executor: a worker thread, or in
        process mode a worker process with its own ``Memory`` of this workspace (``_portable``)."""
        from . import offload

        result: T = await offload.call(self, verb.__name__, args, kwargs)
        return result

    async def _call_async(
        self,
        verb: Callable[Concatenate[Memory, P], Coroutine[Any, Any, T]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """A pipeline coroutine, as ``_call`` (on the worker's own event loop)."""
        from . import offload

        result: T = await offload.call_async(self, verb.__name__, args, kwargs)
        return result

    def _portable(self) -> bytes | None:
        """This ``Memory`` as a worker process rebuilds it (its class, workspace, config and
        scope), pickled; None when it cannot leave this process: it has a model observer, its
        class or config does not pickle (or lives in ``__main__``), or one of its models was
        registered by this program (``reverie.llm.registry``: a fresh interpreter lacks it)."""
        spec: bytes | None = self.__dict__.get("_spec", b"")
        if spec == b"":
            spec = self.__dict__["_spec"] = rebuilder(type(self), self.runtime)
        if spec is None or not models_portable(self.config):
            return None
        return spec

    @property
    def written(self) -> bool:
        """False for a scope never written (nothing of it exists yet); True for every other
        workspace."""
        scope = self.runtime.scope
        return scope is None or scope[0].exists(scope[1])

    def _create(self) -> None:
        """Before a verb that writes: create a scope's workspace on its first write
        (``ScopeRoot.ensure``)."""
        self.runtime.__dict__["wrote"] = True  # close() brings the search index up to date
        scope = self.runtime.scope
        if scope is not None:
            scope[0].ensure(scope[1])  # one stat once it is made

    def init(self) -> list[str]:
        """Create the workspace layout, the starter memory files and the memory repo's first commit
        (so every later change is versioned from the start). Returns the files created; existing
        ones are left alone."""
        self._create()
        created = self.workspace.init()
        self.runtime.git.ensure()
        return created

    ainit = twin(init)

    # -- history and search ------------------------------------------------------------------------
    def remember(self, text: str, *, session_key: str | None = None) -> Remembered:
        """Append ``text`` to history (secrets redacted first): Dream distils it later, ``recall``
        finds it now. A text longer than one history entry holds (``memory.history.maxEntryChars``)
        is refused (``CommandError``) rather than kept in part while the caller hears it was."""
        text = check_stored("text", text)
        most = self.config.memory.history.max_entry_chars
        if len(text) > most:
            raise CommandError(
                f"the text is {len(text):,} characters, more than one memory holds ({most:,}): "
                "remember the facts one at a time"
            )
        if session_key is not None:
            check_key("session_key", session_key)
        self._create()
        cursor = self.runtime.store.append_history(text, session_key=session_key)
        return Remembered(cursor, session_key)

    aremember = twin(remember)

    def recall(
        self,
        query: str,
        *,
        limit: int = 10,
        kinds: Sequence[str] | str | None = None,
        session: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> list[Hit]:
        """Search the memory files, dated notes and archive, topic files, history and sessions;
        ranked hits, best first. ``kinds`` (memory, dated, history, session: one, or a list),
        ``session``, ``since``/``until`` (ISO dates) narrow it. Each hit's ``score`` ranks it
        (relative: the best lexical match scores about 1); its ``match`` is absolute (the share of
        the query's words it holds)."""
        filters = _filters(query, limit, kinds, session, since, until)
        if not self.written:
            return []
        return self.runtime.recall.search(query, limit, filters)

    arecall = twin(recall)

    def reindex(self, *, rebuild: bool = False) -> IndexResult:
        """Bring the search index up to date with the files (``rebuild``: drop it and rebuild it
        from them), then embed new chunks when an embedding model is configured. Writers keep the
        index in step and a query reads a stale one through a private copy; this is for upkeep."""
        recall = self.runtime.recall
        stats = recall.rebuild() if rebuild else recall.sync()
        return IndexResult(stats, recall.embed_missing_sync(), recall.index.count())

    areindex = twin(reindex)

    def context(self) -> str:
        """The memory block for a system prompt: the preamble, SOUL.md, USER.md, memory/MEMORY.md
        and the recent history Dream has not read yet (what ``reverie chat`` sends)."""
        return context(self.runtime)

    acontext = twin(context)

    # -- the pipeline ------------------------------------------------------------------------------
    # Each pipeline verb is one coroutine (``_dream``) with the verb's signature: ``pipeline`` makes
    # the verb (``dream``, run here) and its twin (``adream``, off the caller's loop) from it.
    async def _dream(
        self,
        *,
        all: bool = False,
        dry_run: bool = False,
        wait: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> DreamResult:
        """Run Dream: distil pending history into the memory files and commit (``all``: every
        pending batch within the run budget; ``dry_run``: compute the diff, write nothing; ``wait``:
        wait for a run in progress instead of returning ``already-running``). ``on_progress`` is
        called in the caller's thread (``adream``: on the caller's event loop)."""
        if not self.written:  # a scope never written: nothing to dream, and no repo to create
            from ..dream import DreamResult

            return DreamResult("nothing-to-do", model=self.config.dream_model)
        return await self.runtime.dream.run(
            drain=all, wait=wait, dry_run=dry_run, on_progress=on_progress
        )

    dream, adream = pipeline(_dream, callbacks=("on_progress",))

    async def _consolidate(self, session_key: str | None = None) -> list[ConsolidationResult]:
        """Consolidate a session into history: all of ``session_key``'s messages (the session is
        kept), or, with no key, every session whose prompt is over its token budget."""
        rt = self.runtime
        if session_key is not None:
            session = rt.sessions.load(rt.sessions.path_for(session_key))
            if session is None:
                raise CommandError(f"no session {session_key!r} in {rt.workspace.sessions_dir}")
            return [await rt.consolidator.consolidate_all(session)]
        sessions = [rt.sessions.load(info.path) for info in rt.sessions.list()]
        return [await rt.consolidator.maybe_consolidate(s) for s in sessions if s is not None]

    consolidate, aconsolidate = pipeline(_consolidate)

    # -- conversations (sessions/<key>.jsonl) ------------------------------------------------------
    def messages(self, session_key: str, *, archived: bool = False) -> list[dict[str, Any]]:
        """The conversation's messages the agent's prompt still carries (not in history yet), oldest
        first, as stored in ``sessions/<key>.jsonl`` (role, content, timestamp and any keys the
        writer added); ``archived`` (its first name, kept): every message the file holds, those
        consolidated into history included."""
        session = self.runtime.sessions.load(self.runtime.sessions.path_for(session_key))
        if session is None:
            return []
        return list(session.messages if archived else session.unconsolidated)

    amessages = twin(messages)

    async def arecord(
        self, session_key: str, messages: Sequence[dict[str, Any]], *, consolidate: bool = True
    ) -> ConsolidationResult:
        """Append ``messages`` to the conversation, each durably as it comes, then let the
        Consolidator consolidate its oldest turns into history if the prompt is over its token
        budget (what ``reverie chat`` and the framework adapters do after a message). Each message
        needs a string ``role``; other keys are kept. ``consolidate=False``: only append (the chat
        agent's reply: its next message's record consolidates before the prompt is built).

        A cancellation never loses a message: the messages are appended whenever it comes (the
        await ends once they are), and it stops only the consolidation."""
        done = await whole(self._call(Memory._append, session_key, messages, consolidate))
        if done is not None:
            return done
        return await self._call_async(Memory._consolidate_turns, session_key)

    def _append(
        self, session_key: str, messages: Sequence[dict[str, Any]], consolidate: bool
    ) -> ConsolidationResult | None:
        """``arecord``'s first step: the messages appended; its result when that is all it does."""
        from ..operations import conversation

        rt = self.runtime
        session = rt.sessions.get_or_create(session_key)
        conversation.append(rt.consolidator, session, messages)
        return None if consolidate else conversation.unconsolidated(rt.consolidator, session)

    async def _consolidate_turns(self, session_key: str) -> ConsolidationResult:
        rt = self.runtime
        return await rt.consolidator.maybe_consolidate(rt.sessions.get_or_create(session_key))

    async def _record(
        self, session_key: str, messages: Sequence[dict[str, Any]], consolidate: bool
    ) -> ConsolidationResult:
        from ..operations.conversation import record

        rt = self.runtime
        session = rt.sessions.get_or_create(session_key)
        return await record(rt.consolidator, session, messages, consolidate=consolidate)

    def record(
        self, session_key: str, messages: Sequence[dict[str, Any]], *, consolidate: bool = True
    ) -> ConsolidationResult:
        check_key("session_key", session_key)
        return run_sync(self._record(session_key, messages, consolidate), "arecord")

    def pop_message(self, session_key: str) -> dict[str, Any] | None:
        """Take the conversation's newest message out and return it (None when empty, or when that
        message is already consolidated into history: history is append-only, so it stays)."""
        sessions = self.runtime.sessions
        session = sessions.load(sessions.path_for(session_key))
        return None if session is None else sessions.pop(session)

    apop_message = twin(pop_message)

    async def _clear(self, session_key: str) -> ConsolidationResult | None:
        """Consolidate what the conversation holds that history does not, then clear it (``/new``);
        None when there is no such conversation. Nothing is cleared before it is in history."""
        rt = self.runtime
        session = rt.sessions.load(rt.sessions.path_for(session_key))
        if session is None:
            return None
        return await rt.consolidator.new_session(session)

    clear, aclear = pipeline(_clear)

    async def _new_session(self, session: Session) -> ConsolidationResult:
        """Consolidate all of ``session`` into history and clear it (``/new``)."""
        self._create()
        return await self.runtime.consolidator.new_session(session)

    # here: it clears the caller's own Session object
    new_session, anew_session = pipeline(_new_session, here=True)

    def set_aside(self) -> list[DeadLetter]:
        """The batches Dream set aside: after repeated failures, or with findings no edit wrote."""
        return self.runtime.dream.set_aside()

    aset_aside = twin(set_aside)

    def queued(self) -> list[DeadLetter]:
        """Set-aside batches already requeued (they run with the next Dream)."""
        return self.runtime.dream.queued()

    aqueued = twin(queued)

    def requeue(self, firsts: Sequence[int] | None = None) -> list[DeadLetter]:
        """Put set-aside batches (by first history cursor; None: all) back in front of Dream's
        queue."""
        return self.runtime.dream.requeue(None if firsts is None else list(firsts))

    arequeue = twin(requeue)

    def pending(self) -> int:
        """How many history entries Dream has not consumed yet."""
        return self.runtime.store.pending_count()

    apending = twin(pending)

    # -- versions ----------------------------------------------------------------------------------
    def log(
        self,
        *,
        limit: int = 20,
        kind: str | None = None,
        path: str | None = None,
        start: str | None = None,
        text: str | None = None,
        since: date | str | None = None,
        until: date | str | None = None,
    ) -> list[CommitInfo]:
        """Memory's versions, newest first (``kind``: only that commit kind; ``path``: only commits
        touching it; ``text``: only commits whose subject or a line they added or removed holds it,
        any case; ``since`` / ``until``: commit dates (a ``date`` or ``YYYY-MM-DD``), inclusive;
        ``start``: from that commit back instead of from the newest, for reading a long log page
        by page). A wrong argument is a ``CommandError`` naming it."""
        return self.runtime.git.log(
            limit=check_limit("limit", limit, zero=True),
            kind=None if kind is None else check_text("kind", kind),
            path=path,
            start=start,
            text=None if text is None else check_text("text", text, empty=True),
            since=check_day("since", since),
            until=check_day("until", until),
        )

    alog = twin(log)

    def last_dream_commit(self) -> CommitInfo | None:
        """The newest Dream run's commit (an archive file's repair, a commit of its own but not a
        run, aside), or None before the first run: what ``/dream-log`` and the Review page show,
        and what ``restore()`` undoes when nothing undid it since."""
        for info in self.runtime.git.log(limit=_UNDO_WINDOW, kind="dream"):
            if not _is_repair(info):
                return info
        return None

    alast_dream_commit = twin(last_dream_commit)

    def show(self, sha: str) -> CommitDetail:
        """One version: its commit (what changed and why) and its diff."""
        return self.runtime.git.show(sha)

    ashow = twin(show)

    def why(self, text: str) -> list[Provenance]:
        """For each memory line containing ``text`` (archive entries included): the commit that
        wrote it and the history entries behind it."""
        found = self.runtime.git.why(check_text("text", text))
        # An archive entry's heading repeats its line: the entry itself is the answer.
        archived = ARCHIVE_DIR + "/"
        return [p for p in found if not (p.path.startswith(archived) and p.line.startswith("#"))]

    awhy = twin(why)

    def kept_replies(
        self, text: str | None = None, *, reply_id: str | None = None
    ) -> list[KeptReply]:
        """The model replies kept as evidence (refused, repaired or taken leniently; see
        docs/models.md): all of them, those behind ``text`` (in the reply or its request, or about a
        history entry holding it), or the one with ``reply_id``. A query."""
        from ..llm.replylog import find_reply, read_replies, replies_about

        state = self.runtime.workspace.state_dir
        if reply_id is not None:
            found = find_reply(state, reply_id)
            return [] if found is None else [found]
        if text is None:
            return read_replies(state)
        history = self.runtime.store.history

        def holding(needle: str) -> set[int]:
            return {e.cursor for e in history.read_since(0) if needle in e.content}

        return replies_about(state, text, holding)

    akept_replies = twin(kept_replies)

    def restore(
        self,
        sha: str | None = None,
        *,
        only: bool = False,
        replay: bool = False,
        base: str | None = None,
    ) -> OperationResult:
        """Restore memory to before ``sha`` (default: the newest Dream commit not undone since,
        with the state it was chosen at as ``base``; ``NothingPendingError`` when there is none), or
        with ``only`` undo just that commit; ``replay`` also rewinds Dream's cursor so the batch is
        dreamed again. The undo is a commit. ``base``: the commit the confirmation's preview was
        made at (``plan_restore(...).base``): the restore then does what that preview showed and
        nothing else; changes made since are kept (merged three-way), or, where they touch the same
        lines, ``EditConflictError`` and nothing is written."""
        from ..operations.restore import restore_memory

        rt = self.runtime
        if sha is None and base is None:
            # "the newest Dream commit" is chosen at one state: bind the restore to it, so a run or
            # an edit committed between the choice and the restore (another thread's, another
            # process's) is kept, and two such restores at once undo that commit once
            head = rt.git.head()
            return restore_memory(
                rt.store,
                rt.git,
                self._restore_target(None, head),
                only=only,
                replay=replay,
                base=head,
            )
        return restore_memory(
            rt.store, rt.git, self._restore_target(sha), only=only, replay=replay, base=base
        )

    def _restore_target(self, sha: str | None, head: str | None = None) -> str:
        """``sha``, or the newest Dream commit (at ``head`` when given, else at HEAD now)."""
        if sha is not None:
            return sha
        from ..gitstore import trailers

        undone: dict[str, str] = {}  # a commit an undo since names -> that undo
        for info in self.runtime.git.log(limit=_UNDO_WINDOW, start=head):
            if _is_repair(info):
                continue  # an archive file's repair, not a run
            if info.kind == "dream":
                if undone:  # a restore to before it (or older), or a revert of it, came since
                    by = undone.get(info.sha) or next(iter(undone.values()))
                    raise NothingPendingError(
                        f"the newest Dream commit {info.sha[:8]} is undone already (by {by[:8]}):"
                        " name the commit to restore"
                    )
                return info.sha
            if undone.pop(info.sha, None) is not None:
                continue  # undone itself (what it undid is back), or newer than Dream's commit
            for key in (trailers.RESTORE_OF, trailers.REVERT_OF):
                if info.trailers.get(key):
                    undone[info.trailers[key]] = info.sha
        raise NothingPendingError("Dream has not committed anything to restore")

    arestore = twin(restore)

    def plan_restore(self, sha: str | None = None, *, only: bool = False) -> RestorePlan:
        """What ``restore(sha, only=only)`` would change now, writing nothing: what a confirmation
        shows, with the ``base`` it passes back so the restore does exactly that (a revert that
        would conflict raises here as it would there)."""
        target = self._restore_target(sha)
        base, diff, files = self.runtime.git.plan(target, only=only)
        return RestorePlan(self.runtime.git.resolve(target), only, base, diff, tuple(files))

    aplan_restore = twin(plan_restore)

    def preview_restore(self, sha: str, *, only: bool = False) -> str:
        """The diff ``restore(sha, only=only)`` would make to the memory files now
        (``plan_restore``'s diff; a confirmation that will confirm should use ``plan_restore`` for
        its ``base``)."""
        return self.plan_restore(sha, only=only).diff

    apreview_restore = twin(preview_restore)

    def next_dream(self) -> datetime:
        """When Dream's schedule (``reverie serve``, ``reverie chat``) runs it next: one interval
        after the last completed run, now when it is overdue or has never run."""
        from ..schedule.workspace import DreamScheduler

        return DreamScheduler(self.runtime.dream).next_run_time()

    anext_dream = twin(next_dream)

    # -- SOUL.md approval --------------------------------------------------------------------------
    def pending_soul(self) -> SoulProposal | None:
        """The SOUL.md change waiting for approval (None when none is; an applied one is reported as
        such)."""
        from ..dream.proposal import load_proposal

        return load_proposal(self.runtime.store)

    apending_soul = twin(pending_soul)

    def approve(self, *, change: str | None = None) -> ApproveResult:
        """Apply the staged SOUL.md change (``NothingPendingError`` when none is). ``change``: the
        ``pending_soul().id`` a confirmation showed; when Dream widened the proposal since,
        ``PendingChangedError`` and nothing is applied."""
        from ..operations.approve import approve

        return approve(self.runtime.store, self.runtime.git, change=change)

    aapprove = twin(approve)

    def reject(self, *, change: str | None = None) -> RejectResult | None:
        """Drop the staged SOUL.md change, keeping it and recording the rejection as a commit that
        can be undone like any other (None when nothing was pending). ``change``: as for
        ``approve`` (``PendingChangedError``: nothing rejected)."""
        from ..operations.approve import reject

        return reject(self.runtime.store, self.runtime.git, change=change)

    areject = twin(reject)

    # -- lines and files ---------------------------------------------------------------------------
    def pin(self, text: str, *, unpin: bool = False) -> PinResult:
        """Pin (``unpin``: unpin) the one memory line containing ``text``: a pinned line is never
        archived."""
        from ..dream.pins import pin

        return pin(self.runtime.workspace, self.runtime.git, text, pinned=not unpin)

    apin = twin(pin)

    def files(self) -> list[str]:
        """The memory files ``read`` serves (see ``memory_files``)."""
        return memory_files(self.workspace)

    afiles = twin(files)

    def read(self, path: str, *, exact: bool = False) -> str:
        """A memory file's text: SOUL.md, USER.md, memory/MEMORY.md, or a dated note or archive file
        under memory/. Anything else (history, cursors, state, a path out) is refused with
        ``UnsafePathError``. A byte that is not UTF-8 reads as U+FFFD (as the agent reads it), or,
        with ``exact``, as the lone surrogate ``surrogateescape`` makes of it (U+DC80–U+DCFF), so
        the text is the file byte for byte (``content_id`` of it is the file's) and ``write``
        refuses it back rather than storing other bytes: what an editor that must never write back
        what it could not read (the web UI) reads."""
        rel = memory_path(check_text("path", path))
        if rel not in memory_files(self.workspace):
            raise WorkspaceError(f"{rel} does not exist")
        if exact:
            return self.workspace.read_bytes(rel).decode("utf-8", "surrogateescape")
        return self.workspace.read(rel)

    aread = twin(read)

    def write(
        self,
        path: str,
        text: str,
        *,
        kind: EditKind = "manual",
        message: str | None = None,
        base: str | None = None,
    ) -> WriteResult:
        """Replace a memory file's text as a person's (``manual``) or an agent's (``agent``) edit:
        secrets are redacted, Dream's gate judges it (``GateError`` says why not), lines it takes
        out of a prompt file go to the archive (``why`` finds them), and it is committed with that
        kind. An agent's SOUL.md change is staged for approval (``approve``), never applied; an
        agent does not rewrite the archive (``reverie.operations.edit``: the edit policy).

        ``base``: the content id (``content_id``) of the text the edit was made from. When the file
        changed since, the edit is merged three-way over it (a line added meanwhile stays) if the
        changes touch different lines, else ``EditConflictError`` carries both sides and nothing is
        written. Every front end that shows a file and takes its new text back passes it; without
        it the text replaces whatever the file holds."""
        rel = memory_path(check_text("path", path))
        check_text("text", text, empty=True)
        why = unstorable(text)  # as every verb that stores text: no NUL, no lone surrogate
        if why is not None:
            raise CommandError(f"text {why}")
        return edit.write(
            self.runtime, rel, text, kind=kind, message=message, base=base, create=self._create
        )

    awrite = twin(write)

    def remove(
        self, path: str, line: str, *, reason: str, kind: EditKind = "manual"
    ) -> RemoveResult:
        """Take one line out of a prompt file (USER.md, memory/MEMORY.md; SOUL.md only by hand) and
        archive it under memory/archive/ with ``reason``, in one commit: ``why`` finds it there."""
        rel = memory_path(check_text("path", path))
        check_text("line", line)
        edit.check_kind(kind)
        check_text("reason", reason, empty=True)
        return edit.remove(self.runtime, rel, line, reason=reason, kind=kind)

    aremove = twin(remove)

    # -- upkeep ------------------------------------------------------------------------------
    def plan_purge(self, text: str) -> PurgePlan:
        """Where ``text`` is in memory (files, history, sessions, every git version); nothing is
        written."""
        from ..operations.purge import plan_purge

        return plan_purge(self.runtime.store, self.runtime.git, text)

    aplan_purge = twin(plan_purge)

    def purge(self, text: str, *, check: Callable[[PurgePlan], None] | None = None) -> PurgeResult:
        """Remove ``text`` from memory everywhere ``plan_purge`` finds it, rewriting the memory
        repo's history. ``check`` is called with the plan while the files to rewrite are held
        against their writers; raising from it purges nothing (``operations.purge.purge``)."""
        from ..operations.purge import purge

        result = purge(self.runtime.store, self.runtime.git, text, check=check)
        # the index was deleted with the string, or (found nowhere else) may keep it in the bytes
        # of rows it deleted: rebuilt from the files either way
        self.runtime.sync_index(rebuild=not result.plan.found)
        return result

    apurge = twin(purge)

    def gc(self) -> None:
        """Pack the memory repo's loose objects."""
        self.runtime.git.gc()

    agc = twin(gc)

    @overload
    def history(self, *, since: int = 0, limit: int | None = None) -> list[HistoryEntry]: ...

    @overload
    def history(self, memory_id: str) -> list[MemoryEvent]: ...

    def history(
        self, memory_id: str | None = None, *, since: int = 0, limit: int | None = None
    ) -> list[HistoryEntry] | list[MemoryEvent]:
        """History entries with a cursor greater than ``since`` (at most ``limit``), oldest first;
        with a ``memory_id`` (mem0's ``history(memory_id)``), that memory's changes instead
        (``history_of``)."""
        if memory_id is not None:
            return self.history_of(memory_id)
        check_limit("since", since, zero=True)
        if limit is not None:
            check_limit("limit", limit, zero=True)
        return self.runtime.store.history.read_since(since, limit)

    @overload
    async def ahistory(self, *, since: int = 0, limit: int | None = None) -> list[HistoryEntry]: ...

    @overload
    async def ahistory(self, memory_id: str) -> list[MemoryEvent]: ...

    async def ahistory(
        self, memory_id: str | None = None, *, since: int = 0, limit: int | None = None
    ) -> list[HistoryEntry] | list[MemoryEvent]:
        if memory_id is not None:
            return await self.ahistory_of(memory_id)
        return await self._call(Memory.history, since=since, limit=limit)

    def session(self, session_key: str) -> Session | None:
        """A conversation as stored (its messages, oldest first), or None when there is none by that
        key: where a search hit from a session leads."""
        sessions = self.runtime.sessions
        return sessions.load(sessions.path_for(session_key))

    asession = twin(session)

    def session_view(self, session_key: str) -> SessionView | None:
        """A conversation read a page at a time, in bounded memory whatever its size (its
        ``messages`` a read-only sequence read on demand; ``close()`` them when done), or None when
        there is none by that key: what the web UI's conversation page reads."""
        from ..storage.sessions_view import open_view

        return open_view(self.runtime.sessions.path_for(session_key))

    asession_view = twin(session_view)

    # -- state -------------------------------------------------------------------------------
    def faults(self) -> list[Fault]:
        """What is damaged in the workspace (a file a person or a tool broke), each with what to do;
        reads only. What ``reverie ui`` shows on every page (``reverie.operations.faults``)."""
        from ..gitstore.types import RepoProblem
        from ..operations.faults import find_faults

        def repo() -> list[tuple[str, str, str]]:
            found: list[RepoProblem] = self.runtime.git.problems()
            return [(p.path, p.problem, p.remedy) for p in found]

        return find_faults(self.workspace, repo)

    afaults = twin(faults)

    def committed(self, path: str) -> str | None:
        """A memory file as the last commit holds it (None: not committed yet, or no repository):
        what tells a hand edit not yet committed from the rest."""
        rel = memory_path(path)
        git = self.runtime.git
        if not git.exists or git.head() is None:
            return None
        return git.file_at("HEAD", rel)

    acommitted = twin(committed)

    def status(self) -> StatusReport:
        """Cursors, pending entries, file sizes, the model, the last Dream run, set-aside batches, a
        SOUL.md proposal and any problem found."""
        from .status import collect_status

        return collect_status(self.runtime.query_store())

    astatus = twin(status)


_UNDO_WINDOW = 200  # commits ``restore()`` reads back for the newest Dream commit and its undos


def _filters(
    query: object,
    limit: object,
    kinds: Sequence[str] | str | None,
    session: str | None,
    since: str | None,
    until: str | None,
) -> Any:
    """The search's filters, every argument checked (each named when it is wrong)."""
    from ..recall import SearchFilters

    check_text("query", query)
    check_limit("limit", limit)
    for name, value in (("session", session), ("since", since), ("until", until)):
        if value is not None:
            check_text(name, value)
    given = {
        "kinds": check_kinds(kinds) or None,
        "session": session,
        "since": since,
        "until": until,
    }
    return SearchFilters.from_mapping({k: v for k, v in given.items() if v is not None})


def _is_repair(info: CommitInfo) -> bool:
    """Whether ``info`` is an archive file's repair (``dream.archive_files``), a ``dream`` commit
    that is not a run."""
    from ..dream.archive_files import REPAIR_MODEL
    from ..gitstore import trailers

    return info.kind == "dream" and info.trailers.get(trailers.MODEL) == REPAIR_MODEL
