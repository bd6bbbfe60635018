"""Reverie as a Google ADK memory service: ``ReverieMemoryService`` (a ``BaseMemoryService``).

ADK scopes memory by application and user; so does this service: each ``(app_name, user_id)`` has a
workspace of its own under one root directory, and nothing one user said reaches another's search.

- With Reverie's scoped workspaces (``reverie.storage.scopes``), the scope is
  ``reverie.open(root=..., user=user_id, agent=app_name)``.
- Without them, the workspace is ``<root>/<app_name>/<user_id>``; ids are letters, digits, ``._-``
  and ``@`` (at most 128, not starting with a dot), anything else is refused with ``ValueError``.

What each call does:

- ``add_session_to_memory(session)`` / ``add_events_to_memory(...)``: the events with text (the
  user's and the agents') are appended to ``sessions/adk_<session id>.jsonl`` (an event already
  stored is skipped: ADK may add a session many times, from several tasks or threads at once; in
  one process the check and the append are one step), then the whole conversation is consolidated
  into history (the Consolidator: fact lines, or the raw turns if the model fails), where Recall
  finds it and Dream distils it into the memory files.
- ``add_memory(...)``: each entry's text is remembered (a history entry); one that cannot be
  stored (``Memory.remember`` refuses a NUL or another control character; one longer than a
  history entry holds would be cut) does not keep the others out: they are stored, then
  ``ValueError`` names each one refused and why.
- ``search_memory(app_name, user_id, query)``: an empty query finds nothing (as ADK's own services
  answer); else its first 2,000 characters (``Memory.MAX_QUERY_CHARS``), by Recall over that
  scope's memory files, archive, history and conversations, made clean for a model
  (``Memory.search_memory``: no internal marks, never the assistant's own replies); each a
  ``MemoryEntry`` whose ``id`` is the memory's id, whose ``timestamp`` is ISO 8601 (as ADK's own
  services give it) and whose ``custom_metadata`` says where it came from and its score (the share
  of the query's words it holds, 0 to 1).
- ``delete_memory(app_name, user_id, memory_id)`` / ``delete_memories(..., memory_ids)``: exactly
  the memory a search returned goes, never another memory's text. A memory line (an id starting
  with ``m``) leaves its file for the archive, as ``Memory.delete`` (mem0's ``delete``) does, where
  ``reverie why`` finds it. A history entry or a conversation's message (what ADK added) is erased
  for good, as ADK's own services delete it (``Memory.purge``: history, the conversation, the
  search index and every git version; a message keeps its place with its text replaced, so adding
  the session again does not bring it back) — only when each of its lines occurs nowhere but in
  copies of itself (the conversation it came from, the history made of it). When a line is also
  part of another memory, nothing is deleted and ``ValueError`` says why (``reverie purge`` erases
  a text everywhere; what Dream made of it is deleted by its own id). That check is made again while
  the purge holds every file it rewrites against its writers (``Memory.purge``'s ``check``), so a
  copy of the text another thread or process makes part of another memory meanwhile stops the
  delete (``ValueError``) rather than being erased with it. An id that names nothing, or
  an archived line, is a no-op, as in ADK's in-memory service; a text under four characters
  cannot be erased (``ValueError``). Every id is checked before anything is deleted.

    service = ReverieMemoryService("~/agents/memory")
    runner = Runner(agent=agent, app_name="support", session_service=..., memory_service=service)
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import partial
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.session import Session
from google.genai import types

from .. import memory as _front_door
from ..errors import ReverieError
from ..memory import Memory, offload
from ..text.memline import line_key

__all__ = ["ReverieMemoryService", "EVENT_KEY", "SEARCH_LIMIT"]

_PURGE_MIN = 4  # reverie.operations.purge.MIN_LENGTH: a shorter text would match everywhere

#: The key under which a stored message keeps the id of the ADK event it came from.
EVENT_KEY = "adk_event"
#: Most memories one search returns.
SEARCH_LIMIT = 10
_ID = re.compile(r"[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,127}")
#: A raw transcript's line as the Consolidator writes it (``[time] USER: text``): its text is the
#: memory, the prefix is not.
_SPEAKER = re.compile(r"^(?:\[[^\]]*\]\s*)?[A-Z]+(?:\([^)]*\))?:\s*")
#: A list item's mark and a history fact line's (``- [durable] text``).
_MARKS = re.compile(r"^(?:[-*]\s+)?(?:\[[a-z]+\]\s*)?")


def _check_id(kind: str, value: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value) or value in (".", ".."):
        raise ValueError(
            f"{kind} {value!r} is not a usable id (letters, digits, '._-@', at most 128 characters)"
        )
    return value


def _iso(when: str | None) -> str | None:
    """``when`` in ISO 8601, the form ``MemoryEntry.timestamp`` asks for and ADK's own services
    give (a history entry's ``2026-11-25 14:05`` is ``2026-11-25T14:05:00``, local time as
    history keeps it); as it is when it is not a date."""
    if not when:
        return when
    try:
        return datetime.fromisoformat(when).isoformat()
    except ValueError:
        return when


def _event_text(event: Event) -> str:
    parts = event.content.parts if event.content is not None and event.content.parts else []
    return "\n".join(p.text for p in parts if p.text and not p.thought).strip()


class ReverieMemoryService(BaseMemoryService):
    """ADK memory kept in Reverie workspaces under ``root``, one per ``(app_name, user_id)`` (see
    the module doc)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser()
        self._scoped = find_spec("reverie.storage.scopes") is not None

    def open(self, app_name: str, user_id: str) -> Memory:
        """The memory of one application's user (close it, or use it as a context manager)."""
        app, user = _check_id("app_name", app_name), _check_id("user_id", user_id)
        if self._scoped:
            opened: Memory = _front_door.open(  # type: ignore[call-arg,unused-ignore]
                root=self.root, user=user, agent=app
            )
            return opened
        return _front_door.open(self.root / app / user)

    async def _writing(self, app_name: str, user_id: str) -> Memory:
        """``open``, with the workspace created on the first write (starter files and the first
        commit, as ``reverie init`` makes them), so every later change is versioned."""
        memory = self.open(app_name, user_id)
        if not memory.workspace.root.is_dir():
            await memory.ainit()
        return memory

    async def add_session_to_memory(self, session: Session) -> None:
        await self._add(session.app_name, session.user_id, session.id, session.events)

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        await self._add(app_name, user_id, session_id or "events", events)

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        refused: list[str] = []
        async with await self._writing(app_name, user_id) as memory:
            for n, entry in enumerate(memories, start=1):
                text = "\n".join(p.text for p in entry.content.parts or [] if p.text).strip()
                if not text:
                    continue
                try:
                    await memory.aremember(text, session_key=f"adk:{app_name}")
                except ReverieError as exc:  # this entry's own fault: the others are stored
                    refused.append(f"memory {n}: {exc}")
        if refused:
            raise ValueError(
                f"{len(refused)} of {len(memories)} memories not stored ({'; '.join(refused)}); "
                "the others were"
            )

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The scope's memories for ``query``, clean for a model, best first (see the module
        doc)."""
        if not isinstance(query, str) or not query.strip():
            return SearchMemoryResponse()  # as ADK's own services: no words, no memories
        async with self.open(app_name, user_id) as memory:
            if not memory.workspace.root.is_dir():
                return SearchMemoryResponse()
            # ADK's preload_memory searches with the user's whole message: its start is searched
            # (Recall's work grows with a query's length), as the memory tools bound a query
            found = await memory.asearch_memory(query[: Memory.MAX_QUERY_CHARS], limit=SEARCH_LIMIT)
        entries = [
            MemoryEntry(
                content=types.Content(role="user", parts=[types.Part(text=item.memory)]),
                id=item.id,
                author=f"reverie:{item.state}",
                timestamp=_iso(item.updated_at),
                custom_metadata={"source": item.source, "score": item.score, "path": item.path},
            )
            for item in found
        ]
        return SearchMemoryResponse(memories=entries)

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Purge the memory ``memory_id`` (an id ``search_memory`` returned) from the scope (see
        the module doc)."""
        if memory_id:
            await self.delete_memories(app_name=app_name, user_id=user_id, memory_ids=[memory_id])

    async def delete_memories(
        self, *, app_name: str, user_id: str, memory_ids: Sequence[str]
    ) -> int:
        """Delete each of ``memory_ids`` from the scope (see the module doc); returns how many
        named something. Every id is checked before anything is deleted: one that cannot be
        deleted exactly (``ValueError``, with why) leaves them all in place."""
        if isinstance(memory_ids, str) or not isinstance(memory_ids, Sequence):
            raise TypeError("memory_ids must be a list of ids, not one string")
        for memory_id in memory_ids:
            if not isinstance(memory_id, str) or not memory_id.strip():
                raise ValueError(f"memory id {memory_id!r} is not an id search_memory returned")
        async with self.open(app_name, user_id) as memory:
            if not memory.workspace.root.is_dir():
                return 0
            return await offload.run(lambda: _delete(memory, list(memory_ids)))

    async def _add(
        self, app_name: str, user_id: str, session_id: str, events: Sequence[Event]
    ) -> None:
        key = f"adk:{session_id}"
        async with await self._writing(app_name, user_id) as memory:
            if await offload.run(partial(_append_new, memory, key, list(events))):
                # the conversation into history, where search and Dream find it
                await memory.aconsolidate(key)


#: ADK may add a session from several tasks or threads at once: the events already stored are read
#: and the new ones appended as one step, under the lock of the conversation's stripe (a fixed set,
#: so a server adding many sessions holds no lock per session).
_ADDING = [threading.Lock() for _ in range(64)]


def _append_new(memory: Memory, key: str, events: list[Event]) -> int:
    """``_add``'s work, on a worker thread: append the events with text that the conversation
    ``key`` does not hold yet (by event id), under its lock in this process; how many were
    appended."""
    with _ADDING[hash((memory.workspace.root, key)) % len(_ADDING)]:
        known = {m.get(EVENT_KEY) for m in memory.messages(key, archived=True)}
        new: list[dict[str, Any]] = []
        for event in events:
            text = _event_text(event)
            if not text or (event.id and event.id in known):
                continue
            known.add(event.id)
            role = "user" if event.author == "user" else "assistant"
            new.append({"role": role, "content": text, "author": event.author, EVENT_KEY: event.id})
        if new:
            memory.record(key, new, consolidate=False)
    return len(new)


def _delete(memory: Memory, memory_ids: list[str]) -> int:
    """``delete_memories``' work, on a worker thread: plan every id, then act (see the module
    doc)."""
    plans: list[tuple[str, Any, list[str]]] = []
    for memory_id in memory_ids:
        item = memory.get(memory_id)
        if item is None or item.state == "archived":
            continue  # names nothing, or is out of memory already: a no-op, as in ADK
        if item.state == "active":
            plans.append((memory_id, item, []))
        elif item.state in ("pending", "dreamed", "said"):
            lines = _lines_of(memory_id, item.memory)
            for line in lines:  # every id checked before anything is deleted
                _only_copies(memory, memory_id, line, _plan(memory, memory_id, line))
            plans.append((memory_id, item, lines))
        else:
            raise ValueError(
                f"memory {memory_id} is a line of {item.path}, not a memory ADK added: edit that "
                "file (reverie edit) to take it out"
            )
    for memory_id, item, lines in plans:
        if item.state == "active":
            memory.delete(memory_id)  # archived with why: ``reverie why`` finds it
        for line in lines:
            # checked again while the purge holds every file it rewrites against its writers: a
            # copy of the line another thread or process made part of another memory since the
            # check above stops the delete, never loses that memory's text
            memory.purge(line, check=partial(_only_copies, memory, memory_id, line))
    return len(plans)


def _lines_of(memory_id: str, text: str) -> list[str]:
    """The lines of a history entry's or message's ``text`` to purge; ``ValueError`` for one too
    short to purge (it would match everywhere)."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    short = [line for line in lines if len(line) < _PURGE_MIN]
    if short:
        raise ValueError(
            f"memory {memory_id} is too short to delete ({short[0]!r}: at least {_PURGE_MIN} "
            "characters)"
        )
    return lines


def _plan(memory: Memory, memory_id: str, line: str) -> Any:
    try:
        return memory.plan_purge(line)
    except ReverieError as exc:
        raise ValueError(f"memory {memory_id} cannot be deleted: {exc}") from None


def _only_copies(memory: Memory, memory_id: str, line: str, plan: Any) -> None:
    """Refuse (``ValueError``) to purge ``line`` where it is also part of another memory's text:
    every place ``plan`` (``Memory.plan_purge``'s) found it (the conversation it came from, the
    history entries made of it) and the memory files must hold it only as copies of this
    memory."""
    places = [
        (hit.path, _texts_in(memory, hit.path)) for hit in plan.files if hit.action == "redact"
    ]
    places += [(rel, [memory.read(rel)]) for rel in memory.files()]
    for rel, texts in places:
        for held in texts:
            if line in held and not _copies(held, line):
                raise ValueError(
                    f"memory {memory_id} was not deleted: its text is also part of another "
                    f"memory (in {rel}), which a delete must leave as it is. `reverie purge` "
                    "removes a text everywhere; a memory Dream made of it is deleted by its "
                    "own id"
                )


def _texts_in(memory: Memory, rel: str) -> list[str]:
    """The text values of a JSON-lines file (history, a conversation), or the file's text."""
    path = memory.workspace.root / rel
    try:
        data = path.read_bytes()
    except OSError:
        return []
    if not rel.endswith(".jsonl"):
        return [data.decode("utf-8", "replace")]
    import orjson

    out: list[str] = []
    for raw in data.splitlines():
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            out += [v for v in record.values() if isinstance(v, str)]
    return out


def _copies(held: str, line: str) -> bool:
    """Whether every line of ``held`` holding ``line`` is ``line`` itself (after a list mark, a
    fact's mark or a transcript's speaker)."""
    key = line_key(line)
    for raw in held.split("\n"):
        if line not in raw:
            continue
        bare = raw.strip()
        said = _SPEAKER.sub("", bare)
        forms = {bare, said, _MARKS.sub("", bare), _MARKS.sub("", said)}
        if not any(line_key(form) == key for form in forms):
            return False
    return True
