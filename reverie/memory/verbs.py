"""The verbs ``Memory`` has beyond its core, written in one place it inherits from: the ones a mem0
user reaches for (``add``, ``get_all``, ``get``, ``update``, ``delete``, ``history(memory_id)``),
what a model is handed (``search_memory``), and whole memory files leaving or moving
(``delete_file``, ``rename_file``, ``clear_files``). Their arguments are checked by
``reverie.memory.checks``, and their ``a``-twins made by ``reverie.memory.twins``.

Each verb is a thin call of ``reverie.operations`` (``items``: ids, lifecycle, the clean view;
``files``: whole files) over the ``Memory``'s ``Runtime``, with an ``a``-prefixed async twin, as
every ``Memory`` verb has. The ids, how they are kept through Dream's edits and restores, and the
scores are specified in ``reverie.operations.items``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from .._lazy import lazy_exports
from ..errors import CommandError
from .checks import (
    check_chat,
    check_filters,
    check_key,
    check_limit,
    check_metadata,
    check_size,
    check_stored,
    check_text,
    holds,
)
from .twins import twin

if TYPE_CHECKING:
    from ..operations.files import FilesResult
    from ..operations.items import MemoryEvent, MemoryItem, Results
    from ..recall import Hit
    from .runtime import Runtime

# The result types live with the operations that make them; loaded on first use, so `reverie
# status` and `log`, which build a Memory, import none of the pipeline.
__getattr__ = lazy_exports(
    "reverie",
    {
        "MemoryItem": "operations.items",
        "MemoryEvent": "operations.items",
        "Results": "operations.items",
        "FilesResult": "operations.files",
    },
    globals(),
)

__all__ = [
    "MemoryVerbs",
    "MemoryItem",
    "MemoryEvent",
    "Results",
    "FilesResult",
    "record_user",
]

T = TypeVar("T")
P = ParamSpec("P")
log = logging.getLogger(__name__)
#: A plain workspace's user (``check_user``), under its state directory.
_USER_FILE = "user"


class MemoryVerbs:
    """The verbs (see the module doc) ``Memory`` inherits; ``runtime`` and the core verbs they use
    are ``Memory``'s."""

    runtime: Runtime

    if TYPE_CHECKING:

        async def _offload(self, verb: Callable[[Any], T]) -> T: ...

        async def _call(
            self, verb: Callable[Concatenate[Any, P], T], /, *args: P.args, **kwargs: P.kwargs
        ) -> T: ...

        def _create(self) -> None: ...

        def remove(self, path: str, line: str, *, reason: str, kind: Any = ...) -> Any: ...

        def remember(self, text: str, *, session_key: str | None = None) -> Any: ...

        def record(self, session_key: str, messages: Sequence[dict[str, Any]]) -> Any: ...

        def consolidate(self, session_key: str | None = None) -> Any: ...

        async def arecord(self, session_key: str, messages: Sequence[dict[str, Any]]) -> Any: ...

        async def aconsolidate(self, session_key: str | None = None) -> Any: ...

        def dream(self, *, all: bool = ..., wait: bool = ...) -> Any: ...

        def recall(
            self,
            query: str,
            *,
            limit: int = 10,
            kinds: Sequence[str] | str | None = None,
            session: str | None = None,
            since: str | None = None,
            until: str | None = None,
        ) -> list[Hit]: ...

    # -- who the memory is -------------------------------------------------------------------------
    def check_user(self, user_id: str | None, agent_id: str | None = None) -> None:
        """Refuse a ``user_id`` (or ``agent_id``) that is not this memory's: a scope's memory is one
        user's (``reverie.open(root=..., user=...)`` opens another's); a plain workspace is the
        user's its first ``add`` with a ``user_id`` named (``memory/.reverie/user``), so another
        user's call never reads, nor deletes, nor adds to it."""
        for name, value in (("user_id", user_id), ("agent_id", agent_id)):
            if value is not None:
                check_text(name, value)
        scope = self.runtime.scope
        if scope is None:
            owner = self._workspace_user()
            if user_id is not None and owner is not None and user_id != owner:
                raise CommandError(
                    f"user_id {user_id!r} is not this workspace's user ({owner!r}, named by its "
                    "first add): a workspace is one user's memory; open one per user with "
                    f"reverie.open(root=DIR, user={user_id!r})"
                )
            return
        mine = scope[1]
        if user_id is not None and user_id != mine.user:
            raise CommandError(
                f"user_id {user_id!r} is not this memory's user ({mine.user!r}): open its own with "
                f"reverie.open(root=..., user={user_id!r})"
            )
        if agent_id is not None and agent_id != mine.agent:
            raise CommandError(
                f"agent_id {agent_id!r} is not this memory's agent ({mine.agent!r}): open its own "
                f"with reverie.open(root=..., user=..., agent={agent_id!r})"
            )

    def _workspace_user(self) -> str | None:
        """The user a plain workspace's first ``add(..., user_id=...)`` named, or None."""
        try:
            raw = (self.runtime.workspace.state_dir / _USER_FILE).read_bytes()
        except OSError:
            return None
        return raw.decode("utf-8", "replace").strip() or None  # empty: a first add was cut short

    def _record_user(self, user_id: str | None) -> None:
        """Record ``user_id`` as this plain workspace's user, when it has none yet (the first
        ``add`` naming one does, and a mem0 import of one user's memories); ``CommandError`` when
        it is another user's already (``check_user``)."""
        if user_id is None or self.runtime.scope is not None or self._workspace_user() is not None:
            return
        import os
        import tempfile

        state = self.runtime.workspace.state_dir
        state.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=state, prefix=".user.")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(user_id.encode("utf-8", "surrogateescape") + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            try:  # a link never replaces: of two first adds at once, one names the user
                os.link(tmp, state / _USER_FILE)
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        self.check_user(user_id)  # the other one's add is refused here

    # -- what a model is handed --------------------------------------------------------------------
    def search_memory(
        self,
        query: str,
        *,
        limit: int = 8,
        session_key: str | None = None,
        threshold: float | None = None,
        kinds: Sequence[str] | str | None = None,
        session: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> list[MemoryItem]:
        """Search memory as a model should be handed it: Recall's hits made clean (no internal
        marks, no raw dumps), never the assistant's own replies, the conversation in progress
        (``session_key``'s messages still in its session file), never hiding a stored memory that
        says exactly what the query says; each a
        ``MemoryItem`` with its id and an absolute ``score`` (the share of the query's words it
        holds, 0 to 1, a word naming a category of fact held by a line of it:
        ``reverie.recall.categories``; ``threshold`` keeps those at or above it). ``kinds``,
        ``session``, ``since`` and ``until`` narrow the search as ``recall``'s do. What every
        adapter's and the MCP server's ``search_memory`` tool returns."""
        return self._search_items(
            query,
            limit=limit,
            session_key=session_key,
            threshold=threshold,
            kinds=kinds,
            session=session,
            since=since,
            until=until,
        )

    asearch_memory = twin(search_memory, here=True)

    def _search_items(
        self,
        query: str,
        *,
        limit: int,
        session_key: str | None = None,
        threshold: float | None = None,
        kinds: Sequence[str] | str | None = None,
        session: str | None = None,
        since: str | None = None,
        until: str | None = None,
        archived: bool = True,
    ) -> list[MemoryItem]:
        """``search_memory``'s items; ``archived=False`` leaves out the lines the archive keeps
        before counting ``limit`` (mem0's ``search``)."""
        from ..operations import items as _items

        check_text("query", query)
        check_limit("limit", limit)
        if session_key is not None:
            check_key("session_key", session_key)
        if threshold is not None and (
            isinstance(threshold, bool)
            or not isinstance(threshold, int | float)
            or not 0 <= threshold <= 1
        ):
            raise CommandError(f"threshold must be a number from 0 to 1, not {threshold!r}")
        from ..recall.categories import with_categories

        # full: Recall's window was full and held an archived line (one left out, maybe more)
        window, full = max(limit * 3, 20), [False]

        def hits_for(q: str) -> list[Hit]:
            found = self.recall(
                q, limit=window, kinds=kinds, session=session, since=since, until=until
            )
            archive = any("/archive/" in f"/{h.source.path}" for h in found)
            full[0] = full[0] or (len(found) >= window and archive)
            return found

        while True:
            items = _items.search_memory(
                self.runtime,
                with_categories(hits_for, query),
                query,
                limit=limit,
                session_key=session_key,
                threshold=threshold,
                archived=archived,
            )
            # archived lines left out may have filled Recall's window: widen it while they may have
            if archived or len(items) >= limit or not full[0] or window >= _WIDEST_WINDOW:
                return items
            window, full[0] = window * 4, False

    # -- mem0's verbs ------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        limit: int = 10,
        top_k: int | None = None,
        threshold: float | None = None,
        kinds: Sequence[str] | str | None = None,
        session: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> Results:
        """mem0's ``search``: the memories that answer ``query``, best first, as ``search_memory``
        hands them to a model (clean, each with its id and an absolute ``score``: the share of the
        query's words it holds, 0 to 1; ``threshold`` keeps those at or above it). A query that
        names a category of fact ("dietary restrictions", "what do you know about me?") also
        finds the lines of that category (``reverie.recall.categories``). ``user_id`` / ``agent_id``
        (as arguments or in ``filters``, mem0's two spellings) must be this memory's; ``run_id`` and
        any other key of ``filters`` keep the items whose ``add`` carried that value (in its ids or
        ``metadata``). ``top_k`` is ``limit``'s other name. A line the archive keeps (deleted,
        superseded) is no memory any more, as a deleted one is none in mem0: it is left out (``get``
        still reads it by id; ``search_memory`` hands it to a model marked ``archived``). Recall's
        raw hits (marks, transcripts, scores that rank) are ``recall``'s."""
        wanted = self._scope(filters, user_id, agent_id, run_id)
        size = check_size(limit, top_k)
        items = self._search_items(
            query,
            archived=False,
            limit=size if not wanted else max(size * 5, 50),
            threshold=threshold,
            kinds=kinds,
            session=session,
            since=since,
            until=until,
        )
        return _results(self._kept(items, wanted)[:size])

    asearch = twin(search, here=True)

    def _scope(
        self,
        filters: Mapping[str, Any] | None,
        user_id: str | None,
        agent_id: str | None,
        run_id: str | None,
    ) -> dict[str, Any]:
        """mem0's ids and filters, checked: ``user_id`` / ``agent_id`` (given either way) must be
        this memory's; what is left (``run_id``, metadata keys) is returned to keep items by."""
        wanted = check_filters(filters)
        for name, value in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id)):
            if value is None:
                continue
            check_text(name, value)
            if name in wanted and wanted[name] != value:
                raise CommandError(f"{name} {value!r} and filters' {wanted[name]!r} disagree")
            wanted[name] = value
        self.check_user(wanted.pop("user_id", None), wanted.pop("agent_id", None))
        return wanted

    def _kept(self, items: Sequence[MemoryItem], wanted: Mapping[str, Any]) -> list[MemoryItem]:
        """``items`` whose ``add`` carried every value of ``wanted`` (a memory line: what every
        history entry it was learnt from carried, ``reverie.operations.items.carried``)."""
        if not wanted:
            return list(items)
        from ..operations import items as _items

        out = []
        for item in items:
            carried = _items.carried(self.runtime, item)
            carried.update(carried.pop("metadata", None) or {})
            if all(holds(carried.get(k), v) for k, v in wanted.items()):
                out.append(item)
        return out

    def add(
        self,
        messages: str | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
    ) -> Results:
        """mem0's ``add``: a text (or one chat message) becomes a history entry, redacted, with
        ``metadata`` and the ids kept beside it; a list of chat messages is recorded as a
        conversation (``sessions/mem0_<user>.jsonl``, each message carrying ``metadata``) and
        consolidated at once, so its facts reach history. ``user_id`` must be this memory's.

        ``infer=True`` (mem0's default) then learns at once: a Dream run (``dream(all=True,
        wait=True)``: under its lock, within its budget, through its gate; it waits for a
        scheduled run in progress) distils every pending entry — these and any others waiting —
        and ``add`` returns what that did to memory, mem0's way: each line written (``ADD``),
        rewritten (``UPDATE``, the old text in ``metadata["previous_memory"]``) or archived
        (``DELETE``), with its stable id. Precision first: what the engine is unsure of is not
        written; when nothing was, the entries are returned with ``event="NONE"`` (kept in
        history, found by search; when the run failed — a model down — with why under
        ``metadata["not_learned"]``, and a warning logged). With a remote model each such ``add`` is
        a Dream run (model calls); ``infer=False`` only records (ids ``h<cursor>``, state
        ``pending``) and leaves the distilling to the next ``dream()`` or schedule, one run for many
        adds."""
        from ..operations import items as _items

        if not isinstance(infer, bool):
            raise CommandError(f"infer must be True or False, not {infer!r}")
        if infer:
            _no_running_loop()  # refused before anything is recorded, never halfway

        self.check_user(user_id, agent_id)
        self._record_user(user_id)
        if run_id is not None:
            check_text("run_id", run_id)
        extra = {
            k: v for k, v in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id)) if v
        }
        meta = check_metadata(metadata)
        key = "mem0" + (f":{user_id}" if user_id else "")
        store = self.runtime.store
        before = store.last_cursor() if self.runtime.workspace.history_path.exists() else 0
        if isinstance(messages, str) or isinstance(messages, Mapping):
            from ..storage.sessions import (
                content_text,  # (here: ``reverie log`` imports this module)
            )

            text = messages if isinstance(messages, str) else content_text(messages.get("content"))
            text = check_stored("messages", text)
            self._create()
            store.history.append(text, key, extra={**extra, **({"metadata": meta} if meta else {})})
        else:
            turns = check_chat(messages)
            self.record(
                key, [{**t, **({"metadata": meta} if meta else {}), **extra} for t in turns]
            )
            self.consolidate(key)
        found = [
            _items.entry_item(entry, "\n".join(said), "pending")
            for entry in store.history.read_since(before)
            if (said := _items.clean_entry(entry.content, speech=False))
        ]
        if not infer:
            return _results(found)
        active = _items.active_items(self.runtime)
        run = self.dream(all=True, wait=True)
        made = _items.changes(self.runtime, active)
        if made:
            return _results(made)
        why = None
        if run.status not in ("ok", "no-change", "nothing-to-do"):  # the model down, a refusal
            why = f"Dream {run.status}" + (f": {run.reason}" if run.reason else "")
            log.warning("add: kept in history, not learned (%s)", why)
        kept = (_items.get(self.runtime, item.id) or item for item in found)
        return _results(
            replace(
                item,
                event="NONE",
                metadata={**item.metadata, **({"not_learned": why} if why else {})},
            )
            for item in kept
        )

        # The whole verb in the executor (its conversation's consolidation and Dream run included):
        # one thread's work from the entry's append to reading memory back, none on the caller's
        # loop.

    aadd = twin(add, here=True)

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        limit: int = 100,
        top_k: int | None = None,
    ) -> Results:
        """mem0's ``get_all``: every memory, each with its stable id — the lines of USER.md and
        memory/MEMORY.md (``active``), then the history entries Dream has not read yet that state
        something (``pending``); at most ``limit`` (``top_k``). ``user_id`` / ``agent_id`` (as
        arguments or in ``filters``) must be this memory's. With ``run_id`` or another key of
        ``filters``: the lines of memory learnt from what ``add`` recorded carrying that value
        (every history entry behind the line carried it), then those history entries (read or
        not) and its conversation's messages."""
        from ..operations import items as _items

        wanted = self._scope(filters, user_id, agent_id, run_id)
        size = check_size(limit, top_k)
        if not wanted:
            return _results(_items.get_all(self.runtime, limit=size))
        user = self.runtime.scope[1].user if self.runtime.scope else self._workspace_user()
        keys = ["mem0", *([f"mem0:{user}"] if user else [])]  # add's keys, without a user and with
        chosen = [*_items.active_items(self.runtime).values(), *_items.added(self.runtime, keys)]
        return _results(self._kept(chosen, wanted)[:size])

    aget_all = twin(get_all, here=True)

    def get(self, memory_id: str) -> MemoryItem | None:
        """mem0's ``get``: the memory ``memory_id`` names, in whatever state it is now (``active``,
        ``archived`` with the archive's note, ``pending`` or ``dreamed``, a conversation's message,
        a file's line), or None. An id survives Dream's edits and restores
        (``reverie.operations.items``)."""
        from ..operations import items as _items

        return _items.get(self.runtime, check_text("memory_id", memory_id))

    aget = twin(get, here=True)

    def update(self, memory_id: str, data: str) -> MemoryItem:
        """mem0's ``update``: the memory's line now says ``data`` (redacted); the old text goes to
        the archive as superseded by it, so the id stays; one commit judged by Dream's gate,
        undone by ``restore``. ``WorkspaceError`` when no active memory has that id, saying what
        the id is instead (a pending history entry: run ``dream()`` first; an archived line: restore
        it)."""
        from ..operations import items as _items

        check_text("memory_id", memory_id)
        data = check_stored("data", data)
        self._create()
        return _items.update(self.runtime, memory_id, data)

    aupdate = twin(update, here=True)

    def delete(self, memory_id: str) -> MemoryItem:
        """mem0's ``delete``: the memory leaves its file for the archive (why: deleted by id),
        one commit undone by ``restore``; ``get`` then reports it ``archived``. Unlike mem0's,
        nothing is destroyed: ``purge`` removes a text everywhere, every version included.
        ``WorkspaceError`` when no active memory has that id."""
        from ..operations import items as _items

        check_text("memory_id", memory_id)
        found = _items.locate(self.runtime, memory_id)
        if found is None:
            raise _items.not_active(self.runtime, memory_id, "delete")
        self.remove(found[0], found[1], reason=f"deleted by id {memory_id}")
        item = self.get(memory_id)
        assert item is not None  # the archive holds it now
        return item

    adelete = twin(delete, here=True)

    def history_of(self, memory_id: str) -> list[MemoryEvent]:
        """mem0's ``history(memory_id)`` (also reachable as ``history(memory_id)``): each ADD,
        UPDATE and DELETE of the memory, oldest first, with the commit, its kind and its time,
        read from the newest 200 commits of USER.md and memory/MEMORY.md."""
        from ..operations import items as _items

        return _items.history_of(self.runtime, check_text("memory_id", memory_id))

    ahistory_of = twin(history_of, here=True)

    def delete_all(self, *, user_id: str | None = None, agent_id: str | None = None) -> FilesResult:
        """mem0's ``delete_all``: every memory of this workspace leaves for the archive in one
        commit (``clear_files``: topic files and notes too; SOUL.md kept), undone by one
        ``restore``. ``user_id`` must be this memory's."""
        self.check_user(user_id, agent_id)
        return self.clear_files(kind="manual", reason="delete_all")

    adelete_all = twin(delete_all, here=True)

    def reset(self) -> FilesResult:
        """mem0's ``reset``: memory emptied, as ``delete_all`` (one commit, every line archived,
        one ``restore`` brings it back). Unlike mem0's, history and conversations stay: ``purge``
        and ``reverie forget-user`` erase those."""
        return self.clear_files(kind="manual", reason="reset")

    areset = twin(reset, here=True)

    # -- whole files -------------------------------------------------------------------------------
    def delete_file(self, path: str, *, kind: str = "manual", reason: str = "") -> FilesResult:
        """Delete a topic file or dated note (or a folder of topic files): every line it held goes
        to the archive (``memory/archive/files.md``) with ``reason``, one commit that ``restore``
        undoes. The prompt files and the archive are never deleted; ``FileNotFoundError`` when
        ``path`` names nothing (``reverie.operations.files``)."""
        from ..operations.files import delete_file

        check_text("path", path)
        check_text("reason", reason, empty=True)
        self._create()
        return delete_file(self.runtime.workspace, self.runtime.git, path, kind=kind, reason=reason)

    adelete_file = twin(delete_file, here=True)

    def rename_file(self, old: str, new: str, *, kind: str = "manual") -> FilesResult:
        """Move a topic file or dated note (or a folder of topic files) to ``new``, its text
        unchanged, in one commit; ``FileExistsError`` when ``new`` exists, ``FileNotFoundError``
        when ``old`` names nothing."""
        from ..operations.files import rename_file

        check_text("old", old)
        check_text("new", new)
        self._create()
        return rename_file(self.runtime.workspace, self.runtime.git, old, new, kind=kind)

    arename_file = twin(rename_file, here=True)

    def clear_files(self, *, kind: str = "manual", reason: str = "") -> FilesResult:
        """Empty memory in one commit that one ``restore`` undoes: every topic file and dated note
        deleted, USER.md and memory/MEMORY.md back to their starter text, every line they held
        archived with ``reason``. SOUL.md is kept; history and conversations are not memory files
        and stay (``purge`` and ``reverie forget-user`` erase those)."""
        from ..operations.files import clear_files

        check_text("reason", reason, empty=True)
        self._create()
        return clear_files(self.runtime.workspace, self.runtime.git, kind=kind, reason=reason)

    aclear_files = twin(clear_files, here=True)


#: The widest window of Recall's hits mem0's ``search`` reads when archived lines fill the narrower
#: ones (each widening is four times the last, from three times the limit).
_WIDEST_WINDOW = 5_000


def record_user(memory: MemoryVerbs, user_id: str) -> None:
    """Make ``user_id`` a plain workspace's user (what its first ``add`` naming one does): what a
    mem0 import of one user's memories records; ``CommandError`` when it is another user's."""
    memory.check_user(user_id)
    memory._record_user(user_id)


def _no_running_loop() -> None:
    """``add(infer=True)`` runs Dream, which cannot block a running event loop."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise CommandError(
        "add(infer=True) called from a running event loop: await Memory.aadd(...) instead "
        "(or pass infer=False to only record)"
    )


def _results(items: Iterable[MemoryItem]) -> Results:
    from ..operations.items import Results

    return Results(items)
