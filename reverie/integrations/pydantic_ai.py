"""Reverie as a Pydantic AI capability: ``ReverieCapability``.

One object given to ``Agent(capabilities=[...])`` does three things:

- **instructions**: the memory block (``Memory.context``: SOUL.md, USER.md, MEMORY.md, the topic
  files by name and the history Dream has not read yet), read afresh for every run, so
  Dream's latest edits are in it;
- **tools**: ``search_memory(query)`` (Recall over memory files, archive, history and past
  conversations; never the conversation in progress nor the assistant's own replies) and
  ``remember(text)`` (an entry in history, redacted; Dream distils it later);
- **recording**: after each run, its turns (the user's prompt, the model's text, tool calls and
  results) are appended to ``sessions/<key>.jsonl`` and consolidated under token pressure
  (``Memory.record``), as ``reverie chat`` does with its own turns.

Both the memory and the session key are taken per run from Pydantic AI's own ``RunContext``: the
key is ``pydantic-ai:<conversation_id>`` by default (Pydantic AI gives runs that share a message
history one conversation id), or what ``session_key`` says (a string, or a function of the run's
context); ``memory`` may be a function of the context too, so one agent serves many users::

    capability = ReverieCapability(
        lambda ctx: reverie.open(root="/srv/memory", user=ctx.deps.user_id),
        session_key=lambda ctx: f"chat:{ctx.deps.user_id}",
    )
    agent = Agent("openai:gpt-5.2", deps_type=Deps, capabilities=[capability])

A memory a function gives is closed when the run ends, however it ends (``wrap_run``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability, WrapRunHandler
from pydantic_ai.exceptions import UserError
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
from ..text.safety import unusable_key
from . import _tools

__all__ = ["ReverieCapability", "to_messages", "MemorySource", "KeySource"]


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


def _check_key(key: object) -> str:
    """``key`` if it can name a conversation, else Pydantic AI's error for a misuse (``UserError``)
    saying why."""
    why = unusable_key(key)
    if why is not None:
        raise UserError(f"the session key {key!r} {why}")
    assert isinstance(key, str)
    return key


#: What ``memory`` and ``session_key`` may be: a value, or a function of the run's context.
MemorySource = Memory | Callable[[RunContext[Any]], Memory]
KeySource = str | Callable[[RunContext[Any]], str] | None


class ReverieCapability(AbstractCapability[Any]):
    """Memory for a Pydantic AI agent (see the module doc). ``tools=False`` keeps the instructions
    and the recording but offers no tools; ``record=False`` keeps the conversation out of the
    workspace."""

    def __init__(
        self,
        memory: MemorySource,
        *,
        session_key: KeySource = None,
        tools: bool = True,
        record: bool = True,
    ) -> None:
        if not isinstance(memory, Memory) and not callable(memory):
            raise TypeError(
                f"memory must be a Memory or a function of the run's context, not "
                f"{type(memory).__name__}"
            )
        if (
            session_key is not None
            and not isinstance(session_key, str)
            and not callable(session_key)
        ):
            raise TypeError(
                f"session_key must be a string or a function of the run's context, not "
                f"{type(session_key).__name__}"
            )
        if isinstance(session_key, str):
            _check_key(session_key)
        self.memory = memory
        self.session_key = session_key
        self.record = record
        self._toolset: FunctionToolset[Any] | None = self._tools() if tools else None
        self._opened: dict[str, Memory] = {}  # run id -> the memory a function gave for it

    def key(self, ctx: RunContext[Any]) -> str:
        """The run's session key (see the module doc); Pydantic AI's ``UserError`` for one that
        cannot name a conversation (not a string, blank, a control character, not UTF-8)."""
        if isinstance(self.session_key, str):
            return self.session_key
        if self.session_key is not None:
            return _check_key(self.session_key(ctx))
        return _check_key(f"pydantic-ai:{ctx.conversation_id or 'default'}")

    async def before_run(self, ctx: RunContext[Any]) -> None:
        """Refuse a run whose session key cannot be stored before the model is asked anything."""
        if self.record or self._toolset is not None:
            self.key(ctx)

    def memory_for(self, ctx: RunContext[Any]) -> Memory:
        """The run's memory: ``memory`` itself, or what the function gave for this run (made once
        per run, closed when it ends)."""
        if isinstance(self.memory, Memory):
            return self.memory
        run = ctx.run_id or "default"
        found = self._opened.get(run)
        if found is None:
            found = self.memory(ctx)
            if not isinstance(found, Memory):
                raise TypeError(f"memory gave a {type(found).__name__}, not a Memory")
            self._opened[run] = found
        return found

    def get_instructions(self) -> Any:
        async def memory_context(ctx: RunContext[Any]) -> str:
            return await self.memory_for(ctx).acontext()

        return memory_context

    def get_toolset(self) -> Any:
        return self._toolset

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        """The run, then the memory a function gave for it closed, however the run ends (failed,
        cancelled): Pydantic AI releases a run's resources here, since ``after_run`` is not called
        for a run that fails."""
        try:
            return await handler()
        finally:
            opened = self._opened.pop(ctx.run_id or "default", None)
            if opened is not None:  # closed off the loop (it waits for a thread using the repo)
                await asyncio.shield(opened.aclose())

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        if self.record:
            turns = to_messages(result.new_messages())
            if turns:
                await self.memory_for(ctx).arecord(self.key(ctx), turns)
        return result

    def _tools(self) -> FunctionToolset[Any]:
        async def search_memory(ctx: RunContext[Any], query: str, limit: int = 8) -> dict[str, Any]:
            """Search the user's long-term memory (memory files, archive, history, past
            conversations) before answering anything about the user or earlier work. Returns ranked
            snippets with their source.

            Args:
                query: what to look for, in a few words.
                limit: how many snippets, at most 20.
            """
            return await _tools.search(self.memory_for(ctx), query, limit, self.key(ctx))

        async def remember(ctx: RunContext[Any], text: str) -> str:
            """Record something worth remembering about the user or the work, as a short factual
            statement. It is kept in history at once (search finds it) and distilled into memory
            later.

            Args:
                text: the fact, e.g. "Ada's favourite editor is Helix."
            """
            return await _tools.remember(self.memory_for(ctx), text, self.key(ctx))

        return FunctionToolset([search_memory, remember])
