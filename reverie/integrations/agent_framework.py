"""Reverie as a Microsoft Agent Framework context provider: ``ReverieContextProvider``.

Given to ``Agent(context_providers=[...])``, before every run it adds the memory block
(``Memory.context``: SOUL.md, USER.md, MEMORY.md and history Dream has not read yet) to the
agent's instructions and offers two tools, ``search_memory`` and ``remember``; after every run it
appends the run's messages (the input, the replies, tool calls and results) to
``sessions/<key>.jsonl`` and consolidates under token pressure (``Memory.record``). The key is
``session_key`` when given, else ``maf:<the AgentSession's id>``; one that cannot name a
conversation is the framework's ``IntegrationInvalidRequestException``, raised before the model is
asked.

    with reverie.open("~/agent/workspace") as memory:
        agent = Agent(client=..., instructions="Be brief.",
        context_providers=[ReverieContextProvider(memory)]) await agent.run("I moved to Lisbon.")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from agent_framework import ContextProvider, Message
from agent_framework.exceptions import IntegrationInvalidRequestException

from ..memory import Memory
from ..text.safety import unusable_key
from . import _tools

__all__ = ["ReverieContextProvider", "to_messages"]


def to_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Agent Framework messages as chat messages in Reverie's session format (system messages left
    out)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = str(message.role)
        if role == "system":
            continue
        calls = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": orjson.dumps(c.arguments or {}).decode()
                    if not isinstance(c.arguments, str)
                    else c.arguments,
                },
            }
            for c in message.contents
            if c.type == "function_call"
        ]
        results = [c for c in message.contents if c.type == "function_result"]
        if results:
            for r in results:
                value = (
                    r.result
                    if isinstance(r.result, str)
                    else orjson.dumps(r.result, default=str).decode()
                )
                out.append({"role": "tool", "content": value, "tool_call_id": r.call_id})
            continue
        entry: dict[str, Any] = {
            "role": role if role in ("user", "assistant") else "assistant",
            "content": message.text or None,
        }
        if calls:
            entry["tool_calls"] = calls
        if entry["content"] is not None or calls:
            out.append(entry)
    return out


def _check_key(key: object) -> str:
    """``key`` if it can name a conversation, else the framework's error for a request an
    integration cannot take (``IntegrationInvalidRequestException``) saying why."""
    why = unusable_key(key)
    if why is not None:
        raise IntegrationInvalidRequestException(f"Reverie: the session key {key!r} {why}")
    assert isinstance(key, str)
    return key


class ReverieContextProvider(ContextProvider):
    """Memory for an Agent Framework agent (see the module doc). ``tools=False`` offers no tools;
    ``record=False`` keeps the conversation out of the workspace."""

    def __init__(
        self,
        memory: Memory,
        *,
        session_key: str | None = None,
        tools: bool = True,
        record: bool = True,
        source_id: str = "reverie",
    ) -> None:
        super().__init__(source_id)
        if session_key is not None:
            _check_key(session_key)
        self.memory = memory
        self.session_key = session_key
        self.tools = tools
        self.record = record

    def key(self, session: Any) -> str:
        """The conversation's session key: ``session_key``, else ``maf:<the AgentSession's id>``;
        the framework's ``IntegrationInvalidRequestException`` for an id that cannot name a
        conversation (a control character or a line break, not UTF-8)."""
        session_id = getattr(session, "session_id", None)
        return _check_key(self.session_key or f"maf:{session_id or 'default'}")

    async def before_run(
        self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]
    ) -> None:
        """Add the memory block to the run's instructions, and the two tools; a session whose id
        cannot be stored is refused here, before the model is asked anything."""
        key = self.key(session) if self.tools or self.record else ""
        context.extend_instructions(self.source_id, await self.memory.acontext())
        if self.tools:
            context.extend_tools(self.source_id, self._tools(key))

    async def after_run(
        self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]
    ) -> None:
        """Record the run's messages in the session and consolidate under token pressure."""
        if not self.record or context.response is None:
            return
        turns = to_messages([*context.input_messages, *context.response.messages])
        if turns:
            await self.memory.arecord(self.key(session), turns)

    def _tools(self, key: str) -> list[Any]:
        memory = self.memory

        async def search_memory(query: str, limit: int = 8) -> str:
            """Search the user's long-term memory (memory files, archive, history, past
            conversations) before answering anything about the user or earlier work. Returns ranked
            snippets with their source."""
            return orjson.dumps(await _tools.search(memory, query, limit, key)).decode()

        async def remember(text: str) -> str:
            """Record something worth remembering about the user or the work, as a short factual
            statement; it is kept in history at once (search finds it) and distilled into memory
            later."""
            return await _tools.remember(memory, text, key)

        return [search_memory, remember]
