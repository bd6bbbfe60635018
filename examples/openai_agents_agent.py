"""An OpenAI Agents SDK agent whose conversation and memory live in a Reverie workspace.

    pip install "reverie[openai-agents]"
    python examples/openai_agents_agent.py [WORKSPACE]

The session (``ReverieSession``) keeps the turns in sessions/<key>.jsonl and gives them back next
run; the instructions carry the memory block. With OPENAI_API_KEY set the SDK's default model
answers; without it, a stand-in model (the SDK's ``Model`` interface, echoing what it was told)
does, so the example runs offline. Clearing the session archives it into history, Dream makes memory
of it, and the example undoes that commit.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from typing import Any

from agents import Agent, Model, ModelResponse, Runner, Usage, set_tracing_disabled
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

import reverie
from reverie.integrations.openai_agents import ReverieSession, memory_instructions


class StandIn(Model):
    """Offline: says how many user turns it was given and repeats the last."""

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        said = [i["content"] for i in items if isinstance(i, dict) and i.get("role") == "user"]
        text = f"(turn {len(said)}) you said: {said[-1]}"
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
        agent = Agent(
            name="assistant",
            instructions=memory_instructions(memory, "You are a helpful assistant."),
            **({} if online else {"model": StandIn()}),
        )
        session = ReverieSession("example:openai", memory)
        for prompt in ("My name is Ada and I live in Lisbon.", "What did I just tell you?"):
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
                f"restored to before {dreamed.commit[:8]}: Lisbon in USER.md: {'Lisbon' in memory.read('USER.md')}"
            )


if __name__ == "__main__":
    asyncio.run(
        run(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="reverie-openai-agents-"))
    )
