"""A tool call whose arguments break the tool's schema (a ``k`` over its bound, an empty query, a
missing argument) gets one line naming the argument and the rule, through the SDK's in-process
client (issue 40: it got pydantic's four-line report ending in a URL)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

from mcp import Client  # noqa: E402

from reverie.mcp import build_server  # noqa: E402
from reverie.storage.workspace import Workspace  # noqa: E402


async def _call(ws: Workspace, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    server = build_server(ws.root)
    try:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
            return bool(result.is_error), "".join(getattr(c, "text", "") for c in result.content)
    finally:
        server.reverie_memory.close()


@pytest.mark.parametrize(
    ("tool", "arguments", "line"),
    [
        (
            "search_memory",
            {"query": "x", "k": 1000},
            "search_memory: k: Input should be less than or equal to 50 (got 1000)",
        ),
        (
            "search_memory",
            {"query": ""},
            "search_memory: query: String should have at least 1 character (got '')",
        ),
        ("search_memory", {}, "search_memory: query: Field required"),
        (
            "list_versions",
            {"limit": 0},
            "list_versions: limit: Input should be greater than or equal to 1 (got 0)",
        ),
        (
            "search_memory",
            {"query": "", "k": 0},
            "search_memory: query: String should have at least 1 character (got ''); and 1 more",
        ),
    ],
)
def test_arguments_outside_the_schema_are_one_line(workspace, tool, arguments, line):
    is_error, text = asyncio.run(_call(workspace, tool, arguments))
    assert is_error and text == line


def test_an_error_of_the_verb_itself_keeps_its_own_line(workspace):
    """The control: a call inside the schema that the verb refuses still says what the verb said."""
    is_error, text = asyncio.run(_call(workspace, "show_version", {"sha": "0000000"}))
    assert is_error and "\n" not in text
    assert text.startswith("Error executing tool show_version: no memory repo")
