"""The two tools every framework adapter offers (``search_memory``, ``remember``) given arguments a
model gets wrong: an answer saying what to send, never a traceback (hostile report T1). Through
the frameworks' own tool objects where they take the arguments from the model.

The memory tools' bad arguments through each framework's own tool-calling machinery (adapt4
item 3): a model that sends a missing, ill-typed or unparsable argument gets the framework's own
answer to it — Pydantic AI's validation retry naming the argument (a ``FunctionModel``, the test
model it ships), Agent Framework's "Argument parsing failed" (with the detail when the client asks
for detailed errors) — never a traceback, and nothing reaches history; a well-typed text that states
nothing is the tool's own one-line refusal."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reverie
from reverie.integrations import _tools


@pytest.mark.parametrize("limit", ["abc", None, math.nan, 2.5, True])
def test_search_answers_a_bad_limit_with_an_error(tmp_path: Path, limit: Any) -> None:
    async def go() -> dict[str, Any]:
        with reverie.open(tmp_path) as memory:
            await memory.aremember("Ada's favourite editor is Helix.")
            return await _tools.search(memory, "editor", limit)

    found = asyncio.run(go())
    assert found["memories"] == [] and "limit must be a whole number" in found["error"]
    assert found["notice"] == _tools.DATA_NOTICE


def test_openai_agents_tools_refuse_wrong_arguments_in_the_sdks_words(tmp_path: Path) -> None:
    """The SDK validates a tool's JSON arguments against its schema; what passes reaches the same
    checks. Nothing raises out of ``on_invoke_tool``."""
    pytest.importorskip("agents", reason="openai-agents is not installed")
    from agents import RunContextWrapper
    from agents.tool_context import ToolContext

    from reverie.integrations.openai_agents import memory_tools

    async def go() -> list[str]:
        with reverie.open(tmp_path) as memory:
            await memory.aremember("Ada's favourite editor is Helix.")
            search, remember = memory_tools(memory, session_key="chat:ada")
            out = []
            for tool, args in (
                (search, {"query": "editor", "limit": "abc"}),
                (search, {"query": "", "limit": 3}),
                (remember, {"text": 5}),
                (remember, {"text": "a"}),
                (remember, {"text": "Ada rows \x00 daily"}),
            ):
                ctx = ToolContext(
                    context=None,
                    tool_name=tool.name,
                    tool_call_id="call_1",
                    tool_arguments=json.dumps(args),
                )
                assert isinstance(ctx, RunContextWrapper)
                out.append(str(await tool.on_invoke_tool(ctx, json.dumps(args))))
            return out

    answers = asyncio.run(go())
    assert answers[0].startswith("Error: the arguments of search_memory do not fit it")
    assert "limit: a whole number from 1 to 20" in answers[0]
    assert "query is empty" in answers[1]
    assert answers[2].startswith("Error: the arguments of remember do not fit it")
    assert "Nothing remembered" in answers[3]
    assert "control character" in answers[4]


# -- through the frameworks' own tool-calling machinery --------------------------------------------


#: (tool, arguments as the model sends them, the argument named in the framework's answer)
BAD = [
    ("search_memory", {}, "query"),
    ("search_memory", {"query": "tea", "limit": "many"}, "limit"),
    ("search_memory", {"query": 5}, "query"),
    ("remember", {"text": None}, "text"),
    ("remember", {}, "text"),
    ("remember", '{"text": "unterminated', None),
]


NOTHING = "Nothing remembered: 'a' does not state anything"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[reverie.Memory]:
    opened = reverie.open(tmp_path / "ws")
    opened.init()
    yield opened
    opened.close()


def test_pydantic_ai_retries_a_bad_argument_naming_it(memory: reverie.Memory) -> None:
    pytest.importorskip("pydantic_ai", reason="Pydantic AI (reverie[pydantic-ai]) is not installed")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from reverie.integrations.pydantic_ai import ReverieCapability

    def sees(tool: str, args: Any) -> Any:
        seen: list[Any] = []

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            if len(messages) == 1:
                return ModelResponse(parts=[ToolCallPart(tool, args, tool_call_id="c1")])
            seen.extend(messages[-1].parts)
            return ModelResponse(parts=[TextPart("done")])

        agent = Agent(FunctionModel(model), capabilities=[ReverieCapability(memory, record=False)])
        assert agent.run_sync("hi").output == "done"
        (part,) = seen
        return part

    for tool, args, named in BAD:
        part = sees(tool, args)
        assert part.tool_name == tool and part.outcome == "retried", part
        assert part.retry.cause == "validation_error", part
        said = part.model_response_str()  # what the model reads
        assert said.startswith('{"error":[') and "Traceback" not in said, said
        if named is not None:
            assert [e["loc"] for e in part.content] == [[named]], part.content
        else:
            assert part.content[0]["type"] == "json_invalid", part.content
    assert NOTHING in sees("remember", {"text": "a"}).model_response_str()
    assert memory.history() == []


def test_agent_framework_answers_a_bad_argument_in_its_own_words(memory: reverie.Memory) -> None:
    pytest.importorskip(
        "agent_framework", reason="Agent Framework (reverie[agent-framework]) is not installed"
    )
    from agent_framework import Agent
    from test_integration_agent_framework import ToolThenText

    from reverie.integrations.agent_framework import ReverieContextProvider

    async def sees(tool: str, args: Any, detailed: bool = False) -> str:
        client = ToolThenText(tool, args)
        client.function_invocation_configuration["include_detailed_errors"] = detailed
        provider = ReverieContextProvider(memory, record=False)
        agent = Agent(client=client, instructions="Be brief.", context_providers=[provider])
        return (await agent.run("hi")).text

    async def go() -> None:
        for tool, args, named in BAD:
            said = await sees(tool, args)
            assert said == "tool said: Error: Argument parsing failed.", said
            detail = await sees(tool, args, detailed=True)
            assert "Argument parsing failed" in detail and "Traceback" not in detail, detail
            if named is not None:
                assert named in detail, detail
        assert NOTHING in await sees("remember", {"text": "a"})

    asyncio.run(go())
    assert memory.history() == []
