"""A Pydantic AI agent with Reverie as its memory: the memory block in its instructions,
search_memory and remember as tools, every run's turns kept in the workspace.

    pip install "reverie[pydantic-ai]"
    python examples/pydantic_ai_agent.py [WORKSPACE]

With REVERIE_EXAMPLE_MODEL set (a Pydantic AI model name such as "openai:gpt-5.2", with that
provider's key), that model runs; without it, a FunctionModel stands in, calling the tool the prompt
asks for, so the example runs offline. Then Dream turns what was remembered into memory, as a commit
the example lists and undoes.
"""

from __future__ import annotations

import os
import sys
import tempfile

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import reverie
from reverie.integrations.pydantic_ai import ReverieCapability


def stand_in(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Offline: remember or search with the user's words, then say what the tool answered."""
    returned = [
        p for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)
    ]
    if returned:
        return ModelResponse(
            parts=[TextPart(f"({returned[-1].tool_name}) {returned[-1].model_response_str()}")]
        )
    prompt = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
    if prompt.startswith("Remember: "):
        return ModelResponse(
            parts=[ToolCallPart("remember", {"text": prompt.removeprefix("Remember: ")})]
        )
    return ModelResponse(parts=[ToolCallPart("search_memory", {"query": prompt})])


def run(workspace: str) -> None:
    model = os.environ.get("REVERIE_EXAMPLE_MODEL") or FunctionModel(stand_in)
    with reverie.open(workspace) as memory:
        memory.init()
        agent = Agent(
            model, capabilities=[ReverieCapability(memory, session_key="example:pydantic-ai")]
        )
        print(agent.run_sync("Remember: The user's favourite editor is Helix.").output)
        print(agent.run_sync("favourite editor").output[:200])

        result = memory.dream(all=True)
        print(f"\nDream: {result.status}, commit {result.commit and result.commit[:8]}")
        print(
            "USER.md now says:", [ln for ln in memory.read("USER.md").splitlines() if "Helix" in ln]
        )
        if result.commit:
            memory.restore(result.commit)
            print(
                f"restored to before {result.commit[:8]}: Helix in USER.md: "
                f"{'Helix' in memory.read('USER.md')}"
            )


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="reverie-pydantic-ai-"))
