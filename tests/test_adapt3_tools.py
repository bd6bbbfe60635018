"""The two tools every framework adapter offers (``search_memory``, ``remember``) given arguments a
model gets wrong: an answer saying what to send, never a traceback (hostile report T1). Through
the frameworks' own tool objects where they take the arguments from the model."""

from __future__ import annotations

import asyncio
import json
import math
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
