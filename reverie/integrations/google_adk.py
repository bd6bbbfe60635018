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
  stored is skipped: ADK may add a session many times), then the whole conversation is consolidated
  into history (the Consolidator: fact lines, or the raw turns if the model fails), where Recall
  finds it and Dream distils it into the memory files.
- ``add_memory(...)``: each entry's text is remembered (a history entry).
- ``search_memory(app_name, user_id, query)``: Recall over that scope's memory files, archive,
  history and conversations, made clean for a model (``Memory.search_memory``: no internal marks,
  never the assistant's own replies); each a ``MemoryEntry`` whose ``id`` is the memory's id and
  whose ``custom_metadata`` says where it came from and its score (the share of the query's words it
  holds, 0 to 1).
- ``delete_memory(app_name, user_id, memory_id)`` / ``delete_memories(..., memory_ids)``: the
  memory a search returned is **purged**, as ADK's own services delete it: its text is removed from
  everywhere that scope keeps it — the memory files, history, conversations, the search index and
  every version in git (``Memory.purge``; the purge is recorded as a commit that says what kind of
  string went, never the string). A conversation's message stays in its file, its text replaced, so
  adding the session again does not bring it back. An id that names nothing is a no-op, as in ADK's
  in-memory service; a text under four characters cannot be purged (``ValueError``).

    service = ReverieMemoryService("~/agents/memory")
    runner = Runner(agent=agent, app_name="support", session_service=..., memory_service=service)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.session import Session
from google.genai import types

from .. import memory as _front_door
from ..memory import Memory

__all__ = ["ReverieMemoryService", "EVENT_KEY", "SEARCH_LIMIT"]

_PURGE_MIN = 4  # reverie.operations.purge.MIN_LENGTH: a shorter text would match everywhere

#: The key under which a stored message keeps the id of the ADK event it came from.
EVENT_KEY = "adk_event"
#: Most memories one search returns.
SEARCH_LIMIT = 10
_ID = re.compile(r"^[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,127}$")


def _check_id(kind: str, value: str) -> str:
    if not isinstance(value, str) or not _ID.match(value) or value in (".", ".."):
        raise ValueError(
            f"{kind} {value!r} is not a usable id (letters, digits, '._-@', at most 128 characters)"
        )
    return value


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
        async with await self._writing(app_name, user_id) as memory:
            for entry in memories:
                text = "\n".join(p.text for p in entry.content.parts or [] if p.text).strip()
                if text:
                    await memory.aremember(text, session_key=f"adk:{app_name}")

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The scope's memories for ``query``, clean for a model, best first (see the module
        doc)."""
        async with self.open(app_name, user_id) as memory:
            if not memory.workspace.root.is_dir():
                return SearchMemoryResponse()
            found = await memory.asearch_memory(query, limit=SEARCH_LIMIT)
        entries = [
            MemoryEntry(
                content=types.Content(role="user", parts=[types.Part(text=item.memory)]),
                id=item.id,
                author=f"reverie:{item.state}",
                timestamp=item.updated_at,
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
        """Purge each of ``memory_ids`` from the scope; returns how many named something."""
        if isinstance(memory_ids, str):
            raise TypeError("memory_ids must be a list of ids, not one string")
        async with self.open(app_name, user_id) as memory:
            if not memory.workspace.root.is_dir():
                return 0
            texts: list[str] = []
            for memory_id in memory_ids:
                item = await memory.aget(memory_id)
                if item is None:
                    continue
                lines = [line.strip() for line in item.memory.split("\n") if line.strip()]
                short = [line for line in lines if len(line) < _PURGE_MIN]
                if short:
                    raise ValueError(
                        f"memory {memory_id} is too short to purge ({short[0]!r}: at least "
                        f"{_PURGE_MIN} characters)"
                    )
                texts.append(memory_id)
                for line in lines:
                    await memory.apurge(line)
            return len(texts)

    async def _add(
        self, app_name: str, user_id: str, session_id: str, events: Sequence[Event]
    ) -> None:
        key = f"adk:{session_id}"
        async with await self._writing(app_name, user_id) as memory:
            known = {m.get(EVENT_KEY) for m in await memory.amessages(key, archived=True)}
            new: list[dict[str, Any]] = []
            for event in events:
                text = _event_text(event)
                if not text or (event.id and event.id in known):
                    continue
                role = "user" if event.author == "user" else "assistant"
                new.append(
                    {"role": role, "content": text, "author": event.author, EVENT_KEY: event.id}
                )
            if new:
                await memory.arecord(key, new)
                # the conversation into history, where search and Dream find it
                await memory.aconsolidate(key)
