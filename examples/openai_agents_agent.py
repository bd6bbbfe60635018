"""An OpenAI Agents SDK agent whose conversation and memory live in a Reverie workspace.

    pip install "reverie[openai-agents]"
    python examples/openai_agents_agent.py [WORKSPACE]

The session (``ReverieSession``) keeps the turns in sessions/<key>.jsonl and gives them back next
run; the instructions carry the memory block; ``memory_tools`` gives the agent search_memory and
remember. With OPENAI_API_KEY set the SDK's default model answers; without it, a stand-in model (the
SDK's ``Model`` interface: "Remember: X" calls remember, anything else is echoed) does, so the
example runs offline. Clearing the session archives it into history, Dream makes memory of it, and
the example undoes that commit.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from typing import Any

from agents import Agent, Model, ModelResponse, Runner, Usage, set_tracing_disabled
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

import reverie
from reverie.integrations.openai_agents import ReverieSession, memory_instructions, memory_tools


class StandIn(Model):
    """Offline: "Remember: X" calls remember(X) and says what it returned; anything else gets how
    many user turns it was given and the last repeated."""

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        said = [i["content"] for i in items if isinstance(i, dict) and i.get("role") == "user"]
        done = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
        if said[-1].startswith("Remember: ") and not done:
            call = ResponseFunctionToolCall(
                id="fc_1",
                call_id="call_1",
                type="function_call",
                name="remember",
                arguments=json.dumps({"text": said[-1].removeprefix("Remember: ")}),
                status="completed",
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = f"(turn {len(said)}) you said: {said[-1]}"
        if done and said[-1].startswith("Remember: "):
            text = f"(remember) {done[-1]['output']}"
        reply = ResponseOutputMessage(
            id="msg",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )
        return ModelResponse(output=[reply], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the stand-in does not stream")


async def run(workspace: str) -> None:
    online = bool(os.environ.get("OPENAI_API_KEY"))
    if not online:
        set_tracing_disabled(True)
    with reverie.open(workspace) as memory:
        memory.init()
        session = ReverieSession("example:openai", memory)
        agent = Agent(
            name="assistant",
            instructions=memory_instructions(memory, "You are a helpful assistant."),
            tools=memory_tools(memory, session_key=session.session_id),
            **({} if online else {"model": StandIn()}),
        )
        for prompt in (
            "My name is Ada and I live in Lisbon.",
            "What did I just tell you?",
            "Remember: Ada prefers green tea.",
        ):
            result = await Runner.run(agent, prompt, session=session)
            print(f"> {prompt}\n{result.final_output}")

        await session.clear_session()  # archived into history first, then cleared
        dreamed = await memory.adream(all=True)
        print(
            f"\nDream: {dreamed.status}; USER.md: "
            f"{[ln for ln in memory.read('USER.md').splitlines() if ln.startswith('- ')]}"
        )
        if dreamed.commit:
            await memory.arestore(dreamed.commit)
            print(
                f"restored to before {dreamed.commit[:8]}: Lisbon in USER.md: "
                f"{'Lisbon' in memory.read('USER.md')}"
            )


if __name__ == "__main__":
    asyncio.run(
        run(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="reverie-openai-agents-"))
    )
