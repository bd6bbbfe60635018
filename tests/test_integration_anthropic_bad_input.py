"""Anthropic's memory tool given the inputs a model can send wrong, through the SDK's own tool
runner (replies from a local transport): every one is an ``is_error`` tool result whose text says
what to send instead, nothing is changed and no traceback is logged (hostile report F7, T1, F8)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

import reverie

# The SDK is imported when this file's tests run, not when the suite is collected (every xdist
# worker collects every file; one runs this one).
anthropic: Any = None
httpx2: Any = None  # anthropic's HTTP client
AsyncReverieMemoryTool: Any = None
ReverieMemoryTool: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    global anthropic, httpx2, AsyncReverieMemoryTool, ReverieMemoryTool
    anthropic = pytest.importorskip(
        "anthropic", reason="the anthropic SDK (reverie[anthropic]) is not installed"
    )
    import httpx2 as client

    from reverie.integrations import anthropic as adapter

    httpx2 = client
    AsyncReverieMemoryTool, ReverieMemoryTool = (
        adapter.AsyncReverieMemoryTool,
        adapter.ReverieMemoryTool,
    )


START = "# Notes\n- fact one\n- fact two\n"
#: (input, words the error must hold)
BAD: list[tuple[Any, str]] = [
    (
        {"command": "str_replace", "path": "/memories/notes.md", "old_str": "fact one"},
        "needs new_str",
    ),
    (
        {
            "command": "str_replace",
            "path": "/memories/notes.md",
            "old_str": "fact one",
            "new_str": 5,
        },
        "new_str must be a string",
    ),
    ({"command": "str_replace", "path": "/memories/notes.md", "new_str": "x"}, "needs old_str"),
    ({"command": "create", "path": "/memories/b.md"}, "needs file_text"),
    ({"command": "create", "path": "/memories/b.md", "file_text": None}, "needs file_text"),
    ({"command": "create", "path": 123, "file_text": "x"}, "path must be a string"),
    ({"command": "create", "path": "/memories/c.md", "file_text": "- a\x00b"}, "U+0000, NUL"),
    ({"command": "create", "path": "/memories/c.md", "file_text": "- a\ud800b"}, "not UTF-8"),
    ({"command": "view"}, "view needs path"),
    ({"command": "view", "path": "/memories/notes.md", "view_range": [1, None]}, "view_range"),
    ({"command": "view", "path": "/memories/notes.md", "view_range": "1-2"}, "view_range"),
    (
        {"command": "insert", "path": "/memories/notes.md", "insert_line": "1", "insert_text": "x"},
        "insert_line must be a whole number",
    ),
    ({"command": "insert", "path": "/memories/notes.md", "insert_line": 1}, "needs insert_text"),
    ({"command": "delete"}, "delete needs path"),
    ({"command": "rename", "old_path": "/memories/notes.md"}, "needs new_path"),
    ({"command": "bogus"}, "Unknown command 'bogus'"),
    ({}, "Unknown command None"),
]


def _reply(n: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    tool = any(b["type"] == "tool_use" for b in blocks)
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(blocks),
        "stop_reason": "tool_use" if tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _response(reply: dict[str, Any]) -> httpx2.Response:
    """The reply as the API sends it: JSON with a lone surrogate written as its escape."""
    body = json.dumps(reply).encode()
    return httpx2.Response(200, content=body, headers={"content-type": "application/json"})


def _script() -> list[dict[str, Any]]:
    uses = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": given}
        for n, (given, _) in enumerate(BAD)
    ]
    return [_reply(1, *uses), _reply(2, {"type": "text", "text": "done"})]


def _results(seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        b
        for m in seen[-1]["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def _check(results: list[dict[str, Any]], memory: reverie.Memory, before: int) -> None:
    assert len(results) == len(BAD)
    for result, (given, words) in zip(results, BAD, strict=True):
        content = result["content"]
        text = content if isinstance(content, str) else "".join(c["text"] for c in content)
        assert result.get("is_error") is True, (given, text)
        assert words in text and text.startswith("Error: "), (given, text)
        assert "Traceback" not in text and "Exception" not in text, text
    assert memory.read("memory/topics/notes.md") == START  # F7: nothing deleted
    assert len(memory.log()) == before and "memory/topics/c.md" not in memory.files()


def test_wrong_inputs_are_tool_errors_through_the_sdk_runner(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[dict[str, Any]] = []
    script = _script()

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return _response(script[len(seen) - 1])

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write("memory/topics/notes.md", START)
        before = len(memory.log())
        client = anthropic.Anthropic(
            api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(handle))
        )
        with caplog.at_level(logging.ERROR):
            client.beta.messages.tool_runner(
                model="claude-test",
                max_tokens=64,
                tools=[ReverieMemoryTool(memory)],
                messages=[{"role": "user", "content": "edit my notes"}],
            ).until_done()
        assert not [r for r in caplog.records if r.exc_info], "the runner logged a traceback"
        _check(_results(seen), memory, before)


def test_the_async_tool_refuses_the_same_and_non_objects(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    script = _script()

    async def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return _response(script[len(seen) - 1])

    async def go(memory: reverie.Memory) -> None:
        client = anthropic.AsyncAnthropic(
            api_key="test", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle))
        )
        tool = AsyncReverieMemoryTool(memory)
        await client.beta.messages.tool_runner(
            model="claude-test",
            max_tokens=64,
            tools=[tool],
            messages=[{"role": "user", "content": "edit my notes"}],
        ).until_done()
        for given in ("not an object", None, ["view"]):
            with pytest.raises(anthropic.lib.tools.ToolError, match="must be an object"):
                await tool.call(given)

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write("memory/topics/notes.md", START)
        before = len(memory.log())
        asyncio.run(go(memory))
        _check(_results(seen), memory, before)


def test_an_empty_new_str_still_deletes_the_text_on_purpose(tmp_path: Path) -> None:
    """``new_str: ""`` is how a model deletes text: given explicitly, it works (and the line is
    archived when it leaves a prompt file)."""
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write("memory/topics/notes.md", START)
        tool = ReverieMemoryTool(memory)
        done = tool.call(
            {
                "command": "str_replace",
                "path": "/memories/notes.md",
                "old_str": "- fact one\n",
                "new_str": "",
            }
        )
        assert "edited" in str(done)
        assert memory.read("memory/topics/notes.md") == "# Notes\n- fact two\n"
