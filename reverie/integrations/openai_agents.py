"""An OpenAI Agents SDK ``Session`` kept in a Reverie workspace: ``ReverieSession``.

The SDK hands a session the run's items (Responses-format dicts) and reads them back as the next
run's history. Here they live in ``sessions/<key>.jsonl`` in Reverie's (and nanobot's) session
format, one chat message per item with the item itself kept beside it (``"item"``), so the
Consolidator, Recall and ``reverie consolidate`` read them like any conversation:

- ``add_items`` appends each item durably, then the Consolidator consolidates the oldest turns into
  history when the prompt is over its token budget (``Memory.record``); ``get_items`` returns what
  is not in history yet, so the model's input stays inside its context window while history (and,
  after Dream, the memory files) keeps the rest.
- ``pop_item`` takes the newest item out (never one already in history: history is append-only).
- ``clear_session`` consolidates everything first, then clears (``/new``): nothing is cleared
  before it is in history.

``memory_instructions(memory)`` gives an ``Agent`` the memory block for its instructions (SOUL.md,
USER.md, MEMORY.md, the topic files by name and recent history), read afresh at every run;
``memory_tools(memory, session_key=...)`` gives it two tools, ``search_memory`` (clean memory, never
the conversation in progress nor the assistant's own replies) and ``remember`` (a fact into
history). The key may be a function of the run's context (``RunContextWrapper``), so one agent
serves many conversations.

    with reverie.open("~/agent/workspace") as memory:
        session = ReverieSession("chat:alice", memory)
        agent = Agent(
            name="assistant",
            instructions=memory_instructions(memory),
            tools=memory_tools(memory, session_key=session.session_id),
        )
        await Runner.run(agent, "I moved to Lisbon.", session=session)
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    default_tool_error_function,
    function_tool,
)
from agents.exceptions import ModelBehaviorError, UserError
from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from pydantic import ValidationError

from ..memory import Memory
from ..text.safety import unstorable, unusable_key
from . import _tools

__all__ = ["ReverieSession", "memory_instructions", "memory_tools", "to_message", "ITEM_KEY"]

#: The key under which a stored message keeps the SDK's item as it was given.
ITEM_KEY = "item"
_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}


def _text(content: Any) -> str | None:
    """The text of an item's content: a string, or the text of its parts (input_text, output_text,
    refusal)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(p.get("text") or p.get("refusal") or "") for p in content if isinstance(p, dict)
        ]
        return "\n".join(t for t in texts if t) or None
    return str(content)


def to_message(item: TResponseInputItem) -> dict[str, Any]:
    """The chat message a Responses item is stored as (role, content, tool calls), the item kept
    under ``item``."""
    data: dict[str, Any] = dict(item)
    kind = data.get("type", "message")
    if kind == "function_call":
        call = {
            "id": data.get("call_id"),
            "type": "function",
            "function": {"name": data.get("name"), "arguments": data.get("arguments", "")},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call], ITEM_KEY: data}
    if kind == "function_call_output":
        output = data.get("output")
        return {
            "role": "tool",
            "content": output if isinstance(output, str) else _text(output),
            "tool_call_id": data.get("call_id"),
            ITEM_KEY: data,
        }
    role = _ROLES.get(str(data.get("role")), "assistant")
    # Reasoning and other output items carry no conversation text of their own: kept, not
    # summarised.
    content = _text(data.get("content")) if kind == "message" or "role" in data else None
    return {"role": role, "content": content, ITEM_KEY: data}


def _unplain(value: Any, where: str) -> str | None:
    """Why ``value`` would not come back from the session file as it went in, or None."""
    if isinstance(value, str):
        why = unstorable(value, controls=False)  # what was said is kept as it was, controls too
        return None if why is None else f"{where} {why}"
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if -(2**63) <= value < 2**64 else f"{where} is a number past 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is {value!r}, not a JSON number"
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str):
                return f"{where} has a key {key!r} that is not a string"
            why = _unplain(inner, f"{where}[{key!r}]")
            if why is not None:
                return why
        return None
    if isinstance(value, list | tuple):
        for k, inner in enumerate(value):
            why = _unplain(inner, f"{where}[{k}]")
            if why is not None:
                return why
        return None
    return f"{where} is a {type(value).__name__}, not JSON"


def _to_item(message: dict[str, Any]) -> TResponseInputItem:
    item = message.get(ITEM_KEY)
    if isinstance(item, dict):
        return item  # type: ignore[return-value]  # stored as the SDK gave it
    # A message another writer added (reverie chat, nanobot): given to the model as plain chat text.
    role = message.get("role")
    content = message.get("content")
    text = content if isinstance(content, str) else "" if content is None else str(content)
    return {"role": role if role in ("user", "assistant", "system") else "user", "content": text}


class ReverieSession:
    """The SDK's ``Session`` protocol over ``Memory``'s conversation verbs (see the module doc)."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        memory: Memory,
        *,
        settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        # Refused here, with the SDK's own error for a misuse (``UserError``), rather than from
        # the run's first ``get_items`` as a Reverie error the SDK's caller does not expect.
        why = unusable_key(session_id)
        if why is not None:
            raise UserError(f"session_id {why}")
        self.session_id = session_id
        self.memory = memory
        # a dict is taken as the SDK's own sessions take one (``SessionSettings(**settings)``)
        self.session_settings = (
            SessionSettings(**settings) if isinstance(settings, dict) else settings
        )

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The items not in history yet, oldest first (the newest ``limit``, or the settings')."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise UserError(f"limit must be a whole number or None, not {limit!r}")
        messages = await self.memory.amessages(self.session_id)
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if limit is not None:
            messages = messages[-limit:] if limit > 0 else []
        return [_to_item(m) for m in messages]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append the run's items durably, then consolidate if the prompt is over its budget.
        Items that are not plain JSON (a NaN, a datetime, a number past 64 bits) or hold a lone
        surrogate are refused (``UserError``, naming the item and the value) before any is stored:
        stored, they would come back as something else."""
        if not isinstance(items, list | tuple):
            raise UserError(f"items must be a list of items, not {type(items).__name__}")
        for n, item in enumerate(items):
            why = (
                _unplain(item, f"items[{n}]")
                if isinstance(item, dict)
                else f"items[{n}] is a {type(item).__name__}, not an item (a dict)"
            )
            if why is not None:
                raise UserError(f"not stored: {why}")
        if items:
            await self.memory.arecord(self.session_id, [to_message(item) for item in items])

    async def pop_item(self) -> TResponseInputItem | None:
        """Take the newest item out (None when empty, or when it is in history already)."""
        message = await self.memory.apop_message(self.session_id)
        return None if message is None else _to_item(message)

    async def clear_session(self) -> None:
        """Consolidate what history does not hold yet, then clear the conversation."""
        await self.memory.aclear(self.session_id)


def memory_instructions(
    memory: Memory,
    preamble: str = "",
) -> Callable[[RunContextWrapper[Any], Agent[Any]], Awaitable[str]]:
    """An ``Agent(instructions=...)`` callable: ``preamble`` then the memory block
    (``Memory.context``), read at the start of every run so Dream's latest edits are in it."""

    async def instructions(_: RunContextWrapper[Any], __: Agent[Any]) -> str:
        context = await memory.acontext()
        return f"{preamble}\n\n{context}" if preamble else context

    return instructions


#: What each tool takes, as a refusal of its arguments says it.
_ARGUMENTS = {
    "search_memory": "query: a string, what to look for; limit: a whole number from 1 to 20",
    "remember": "text: one short factual sentence, a string",
}


def _tool_error(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model is told when a tool fails (the SDK's ``failure_error_function``): arguments
    that do not fit the tool are named with what it takes, in one line, so the model can call
    again (the SDK keeps the validation's details out of what it passes on, as they may hold the
    tool's data); any other failure keeps the SDK's answer, which shows no internals."""
    if isinstance(error, ModelBehaviorError):
        name = str(getattr(ctx, "tool_name", ""))
        cause = error.__cause__
        wrong = (
            "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in cause.errors())
            if isinstance(cause, ValidationError)
            else "not valid"
        )
        takes = _ARGUMENTS.get(name, "a JSON object of its parameters")
        return (
            f"Error: the arguments of {name or 'the tool'} do not fit it ({wrong}); it takes "
            f"{takes}. Call it again with them fixed"
        )
    return default_tool_error_function(ctx, error)


def memory_tools(
    memory: Memory,
    *,
    session_key: str | Callable[[RunContextWrapper[Any]], str] = "openai-agents",
) -> list[FunctionTool]:
    """``search_memory`` and ``remember`` as the SDK's function tools, for ``Agent(tools=...)``.
    ``session_key`` is the conversation the tools serve (the ``ReverieSession``'s id, or a
    function of the run's ``RunContextWrapper``): ``remember`` records under it, and
    ``search_memory`` leaves out its messages the model has in its input already."""

    def key(ctx: RunContextWrapper[Any]) -> str:
        found = session_key(ctx) if callable(session_key) else session_key
        if not isinstance(found, str) or not found:
            raise TypeError(f"session_key gave {found!r}, not a non-empty string")
        return found

    @function_tool(failure_error_function=_tool_error)
    async def search_memory(
        ctx: RunContextWrapper[Any], query: str, limit: int = 8
    ) -> dict[str, Any]:
        """Search the user's long-term memory (memory files, archive, history, past
        conversations) before answering anything about the user or earlier work. Returns the
        memories found, best first, with where each came from.

        Args:
            query: what to look for, in a few words.
            limit: how many memories, at most 20.
        """
        return await _tools.search(memory, query, limit, key(ctx))

    @function_tool(failure_error_function=_tool_error)
    async def remember(ctx: RunContextWrapper[Any], text: str) -> str:
        """Record something worth remembering about the user or the work, as a short factual
        statement. It is kept in history at once (search finds it) and distilled into memory
        later.

        Args:
            text: the fact, e.g. "Ada's favourite editor is Helix."
        """
        return await _tools.remember(memory, text, key(ctx))

    return [search_memory, remember]
