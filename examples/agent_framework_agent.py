"""A Microsoft Agent Framework agent with Reverie as its memory (a context provider): the memory
block in its instructions, search_memory and remember as tools, every run's messages kept in the
workspace.

    pip install "reverie[agent-framework]"
    python examples/agent_framework_agent.py [WORKSPACE]

Give ``Agent(client=...)`` any chat client (OpenAI, Azure, Foundry, …); without one configured here,
a stand-in client (the framework's BaseChatClient with its function-invocation layer) calls the tool
the prompt asks for, so the example runs offline. Then Dream turns what was remembered into memory,
as a commit the example undoes.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
)

import reverie
from reverie.integrations.agent_framework import ReverieContextProvider


class StandIn(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Offline: "Remember: X" calls remember(X), anything else search_memory; then says what the
    tool returned."""

    async def _reply(self, messages: Sequence[Message]) -> ChatResponse:
        results = [c for m in messages for c in m.contents if c.type == "function_result"]
        if results:
            return ChatResponse(
                messages=[Message(role="assistant", contents=[str(results[-1].result)[:160]])]
            )
        prompt = [m.text for m in messages if str(m.role) == "user"][-1]
        tool, args = (
            ("remember", {"text": prompt.removeprefix("Remember: ")})
            if prompt.startswith("Remember: ")
            else ("search_memory", {"query": prompt})
        )
        call = Content.from_function_call(call_id="call_1", name=tool, arguments=args)
        return ChatResponse(messages=[Message(role="assistant", contents=[call])])

    def _inner_get_response(
        self,
        *,
        messages: Sequence[Message],
        stream: bool,
        options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Any:
        return self._reply(messages)


async def run(workspace: str) -> None:
    with reverie.open(workspace) as memory:
        memory.init()
        agent = Agent(
            client=StandIn(),
            instructions="You are a helpful assistant.",
            context_providers=[
                ReverieContextProvider(memory, session_key="example:agent-framework")
            ],
        )
        print((await agent.run("Remember: I prefer Helix over Vim.")).text)
        print((await agent.run("Which editor do I prefer?")).text)

        result = await memory.adream(all=True)
        print(
            f"\nDream: {result.status}; USER.md: "
            f"{[ln for ln in memory.read('USER.md').splitlines() if 'Helix' in ln]}"
        )
        if result.commit:
            await memory.arestore(result.commit)
            print(
                f"restored to before {result.commit[:8]}: Helix in USER.md: "
                f"{'Helix' in memory.read('USER.md')}"
            )


if __name__ == "__main__":
    asyncio.run(
        run(
            sys.argv[1]
            if len(sys.argv) > 1
            else tempfile.mkdtemp(prefix="reverie-agent-framework-")
        )
    )
