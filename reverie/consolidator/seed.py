"""The seed API: nanobot's older ``MemoryStore.consolidate(session, provider, model, …) -> bool``.

One model call with the ``save_memory`` tool forced (``history_entry``: what to append to history;
``memory_update``: the whole new MEMORY.md). Kept for agents written against that interface; new
code uses the ``Consolidator``. Contract, as documented by nanobot:

- messages to consolidate: all of them with ``archive_all`` (nanobot's name), else
  ``messages[last_consolidated : len − memory_window//2]`` (nothing to consolidate → True, nothing
  touched);
- on success: MEMORY.md rewritten only when it changed (secrets redacted, as in every history
  entry), the entry appended to history.jsonl with the session key (unless it is ``(nothing)``),
  then ``session.last_consolidated`` set (0 with ``archive_all``, else ``len(messages) −
  memory_window//2``). The caller saves the session, as with nanobot (``SessionStore.save_offset``
  for Reverie sessions);
- arguments as nanobot takes them: a JSON object, or a list whose first element is one; a dict- or
  list-valued ``history_entry`` or ``memory_update`` is JSON-encoded (kept, not refused);
- on any failure (model error, no tool call, malformed or missing arguments, a write error): False,
  with the session and the files as they were.

Order: MEMORY.md (atomic write) → history append → offset. If the append fails, MEMORY.md is put
back.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import orjson

from ..errors import HistoryError, LockTimeoutError, ModelError, WorkspaceError
from ..llm import protocol
from ..llm.client import ModelClient
from ..llm.output import said_something
from ..llm.prompts import load_prompt
from ..llm.replylog import keep_reply
from ..llm.tools import function_schema
from ..llm.transcript import render_transcript, speaker, transcript_text
from ..llm.types import ToolCall
from ..security.secrets import redact
from ..storage.history import format_timestamp
from ..storage.store import WorkspaceStore
from ..storage.workspace import MEMORY

log = logging.getLogger(__name__)

__all__ = ["consolidate", "SAVE_MEMORY_TOOL"]


def save_memory(history_entry: str, memory_update: str) -> None:
    """Save what this conversation taught you into long-term memory.

    Args:
        history_entry: What happened, for the searchable history log: fact lines '- [mark] fact', or
            a short paragraph starting with [YYYY-MM-DD HH:MM].
        memory_update: The complete new memory/MEMORY.md: every existing fact that still holds plus
            the new ones. Return it unchanged when nothing new was learned.
    """


SAVE_MEMORY_TOOL: dict[str, Any] = function_schema(save_memory)
_FORCE = {"type": "function", "function": {"name": "save_memory"}}
_INSTRUCTION = (
    "\n\nAnswer by calling the save_memory tool exactly once: "
    "`history_entry` holds your fact lines, "
    '`memory_update` the complete updated content of the section "memory/MEMORY.md".'
)


def _arguments(call: ToolCall) -> dict[str, Any] | None:
    """The call's arguments object. Providers send it parsed or as JSON text, and some wrap it in a
    list (its first element is taken when it is an object); anything else is None."""
    value: Any = call.arguments
    if value is None or isinstance(value, str):
        text = value if isinstance(value, str) else call.raw_arguments
        try:
            value = orjson.loads(text) if text and text.strip() else None
        except orjson.JSONDecodeError:
            return None
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, dict) else None


def _as_text(value: Any) -> Any:
    """A structured value the model sent where text was asked for, as JSON text (nanobot keeps it
    that way)."""
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return value


def _offset(session: Any) -> int:
    value = getattr(session, "last_consolidated", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


async def consolidate(
    store: WorkspaceStore,
    session: Any,
    provider: ModelClient | str,
    model: str | None = None,
    *,
    archive_all: bool = False,
    memory_window: int = 50,
) -> bool:
    """Consolidate old messages of ``session`` with one forced ``save_memory`` call; False on any
    failure."""
    picked = _old_messages(session, archive_all, memory_window)
    if picked is None:
        return True
    old, new_offset = picked
    key = getattr(session, "key", None)
    key = key if isinstance(key, str) else None
    model_name: str | None
    if isinstance(provider, str):
        client, model_name = ModelClient(store.config), model or provider
    else:
        client, model_name = provider, model
    current = store.read_long_term()
    request = _request(store, current, old)
    try:
        reply = await client.complete(
            request, model=model_name, tools=[SAVE_MEMORY_TOOL], tool_choice=_FORCE
        )
    except ModelError as exc:
        log.warning("consolidate: model call failed: %s", exc)
        return False
    try:
        entry, update = _saved(reply.tool_calls, old)
    except _Refused as refused:
        # Log, keep the reply (``reverie.llm.replylog``) and fail: nothing moves.
        log.warning("consolidate: %s", refused.why)
        keep_reply(
            store.workspace.state_dir,
            task=protocol.TASK_ARCHIVE,
            model=model_name or store.config.model,
            verdict="refused",
            reason=refused.why,
            messages=request,
            response=reply,
            ref={"session": key} if key else {},
        )
        return False
    if not _write(store, entry, update, current, key):
        return False
    session.last_consolidated = new_offset
    return True


def _old_messages(
    session: Any, archive_all: bool, memory_window: int
) -> tuple[list[Any], int] | None:
    """The messages to consolidate and the session's offset after them; None when there are none."""
    messages = list(getattr(session, "messages", None) or [])
    if archive_all:
        old, new_offset = messages, 0
    else:
        keep = max(0, memory_window // 2)
        if len(messages) <= keep:
            return None
        new_offset = len(messages) - keep
        old = messages[min(_offset(session), new_offset) : new_offset]
    return (old, new_offset) if old else None


def _request(store: WorkspaceStore, current: str, old: list[Any]) -> list[dict[str, Any]]:
    """The one request: the summary prompt (task ``archive``) with its instruction, then MEMORY.md
    and the transcript."""
    body = protocol.render_sections(
        [
            (MEMORY, current),
            (protocol.SECTION_ARCHIVE, render_transcript(old, fallback_stamp=format_timestamp())),
        ]
    )
    return [
        {
            "role": "system",
            "content": load_prompt(protocol.TASK_ARCHIVE, store.workspace) + _INSTRUCTION,
        },
        {"role": "user", "content": body},
    ]


class _Refused(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _saved(calls: Sequence[ToolCall], old: list[Any]) -> tuple[str, str | None]:
    """The history entry and MEMORY.md update of the reply's ``save_memory`` call (the update
    redacted), or ``_Refused`` with why they cannot be taken."""
    call = next((c for c in calls if c.name == "save_memory"), None)
    args = _arguments(call) if call is not None else None
    if args is None:
        raise _Refused("the model did not call save_memory with JSON arguments")
    entry, update = _as_text(args.get("history_entry")), _as_text(args.get("memory_update"))
    if not isinstance(entry, str) or not entry.strip():
        raise _Refused("save_memory without a history_entry string")
    if update is not None and not isinstance(update, str):
        raise _Refused("save_memory's memory_update is not a string")
    said = [
        sentence
        for m in old
        if isinstance(m, dict) and speaker(m) == "USER"
        for sentence in said_something(transcript_text(m))
    ]
    if entry.strip() == protocol.NOTHING and said:
        # "Nothing to keep" of a conversation that says something: not believed, nothing moves.
        raise _Refused(f"save_memory answered (nothing) for {said[0][:60]!r}; not consolidated")
    if isinstance(update, str):
        # a credential quoted in the conversation never lands in MEMORY.md (or git)
        update = redact(update)
    return entry, update


def _write(
    store: WorkspaceStore, entry: str, update: str | None, current: str, key: str | None
) -> bool:
    """MEMORY.md (atomic replace, only when it changed), then the history entry; MEMORY.md put back
    when the append fails. False (logged) on a write error."""
    new = update if isinstance(update, str) and update.strip() != "" and update != current else None
    try:
        if new is not None:
            store.write_long_term(new)  # atomic replace
        try:
            # nothing worth keeping: no history line, the offset still moves
            if entry.strip() != protocol.NOTHING:
                store.append_history(entry.strip(), key)
        except (HistoryError, LockTimeoutError, OSError):
            if new is not None:
                # put MEMORY.md back: a failed call leaves the files untouched
                store.write_long_term(current)
            raise
    except (HistoryError, LockTimeoutError, WorkspaceError, OSError) as exc:
        log.warning("consolidate: could not write memory: %s", exc)
        return False
    return True
