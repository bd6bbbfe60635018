"""Reverie as a Pydantic AI capability: ``ReverieCapability``.

One object given to ``Agent(capabilities=[...])`` does three things:

- **instructions**: the memory block (``Memory.context``: SOUL.md, USER.md, MEMORY.md and the
  history Dream has not consolidated yet), read afresh for every run, so Dream's latest edits are in
  it;
- **tools**: ``search_memory(query)`` (Recall over memory files, archive, history and past
  conversations) and ``remember(text)`` (an entry in history, redacted; Dream distils it later);
- **recording**: after each run, its turns (the user's prompt, the model's text, tool calls and
  results) are appended to ``sessions/<session_key>.jsonl`` and consolidated under token pressure
  (``Memory.record``), as ``reverie chat`` does with its own turns.

    with reverie.open("~/agent/workspace") as memory:
        agent = Agent("openai:gpt-5.2", capabilities=[ReverieCapability(memory, session_key="chat:ada")])
        agent.run_sync("I moved to Lisbon.")
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.run import AgentRunResult
from pydantic_ai.toolsets import FunctionToolset

from ..memory import Memory
from . import _tools

__all__ = ["ReverieCapability", "to_messages"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):
        return "\n".join(c for c in content if isinstance(c, str))
    return orjson.dumps(content, default=str).decode()


def to_messages(history: list[ModelMessage]) -> list[dict[str, Any]]:
    """A run's new messages as chat messages in Reverie's session format (system prompts left out:
    they are the agent's own, and the memory block would otherwise be stored back into the
    conversation)."""
    out: list[dict[str, Any]] = []
    for message in history:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    out.append({"role": "user", "content": _text(part.content)})
                elif isinstance(part, ToolReturnPart):
                    out.append(
                        {
                            "role": "tool",
                            "content": part.model_response_str(),
                            "name": part.tool_name,
                            "tool_call_id": part.tool_call_id,
                        }
                    )
        elif isinstance(message, ModelResponse):
            texts = [p.content for p in message.parts if isinstance(p, TextPart) and p.content]
            calls = [
                {
                    "id": p.tool_call_id,
                    "type": "function",
                    "function": {"name": p.tool_name, "arguments": p.args_as_json_str()},
                }
                for p in message.parts
                if isinstance(p, ToolCallPart)
            ]
            if texts or calls:
                reply: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
                if calls:
                    reply["tool_calls"] = calls
                out.append(reply)
    return out


class ReverieCapability(AbstractCapability[Any]):
    """Memory for a Pydantic AI agent (see the module doc). ``tools=False`` keeps the instructions
    and the recording but offers no tools; ``record=False`` keeps the conversation out of the
    workspace."""

    def __init__(
        self,
        memory: Memory,
        *,
        session_key: str = "pydantic-ai",
        tools: bool = True,
        record: bool = True,
    ) -> None:
        self.memory = memory
        self.session_key = session_key
        self.record = record
        self._toolset: FunctionToolset[Any] | None = self._tools() if tools else None

    def get_instructions(self) -> Any:
        memory = self.memory

        async def memory_context() -> str:
            return await memory.acontext()

        return memory_context

    def get_toolset(self) -> Any:
        return self._toolset

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        if self.record:
            turns = to_messages(result.new_messages())
            if turns:
                await self.memory.arecord(self.session_key, turns)
        return result

    def _tools(self) -> FunctionToolset[Any]:
        memory, key = self.memory, self.session_key

        async def search_memory(query: str, limit: int = 8) -> dict[str, Any]:
            """Search the user's long-term memory (memory files, archive, history, past
            conversations) before answering anything about the user or earlier work. Returns ranked
            snippets with their source.

            Args:
                query: what to look for, in a few words.
                limit: how many snippets, at most 20.
            """
            return await _tools.search(memory, query, limit)

        async def remember(text: str) -> str:
            """Record something worth remembering about the user or the work, as a short factual
            statement. It is kept in history at once (search finds it) and distilled into memory
            later.

            Args:
                text: the fact, e.g. "Ada's favourite editor is Helix."
            """
            return await _tools.remember(memory, text, key)

        return FunctionToolset([search_memory, remember])
