"""Anthropic's memory tool over a workspace, driven by the ``anthropic`` SDK's own tool runner (the
model's replies come from a local transport, no network): remembered in one run, seen in the next,
in ``reverie log`` as an ``agent`` commit and undone by ``reverie restore``; SOUL.md staged; paths
out, history and cursors refused."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

anthropic = pytest.importorskip(
    "anthropic", reason="the anthropic SDK (reverie[anthropic]) is not installed"
)

import httpx2  # noqa: E402  (anthropic's HTTP client)
from anthropic.lib.tools import ToolError  # noqa: E402

import reverie  # noqa: E402
from reverie.cli import main  # noqa: E402
from reverie.integrations.anthropic import ReverieMemoryTool  # noqa: E402

Script = Callable[[list[dict[str, Any]]], dict[str, Any]]


def _reply(*blocks: dict[str, Any]) -> dict[str, Any]:
    tool = any(b["type"] == "tool_use" for b in blocks)
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(blocks),
        "stop_reason": "tool_use" if tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _use(n: int, **command: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": command}


def _results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool results the runner sent back, oldest first."""
    return [
        block
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]


def _text(result: dict[str, Any]) -> str:
    content = result["content"]
    return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)


def _run(tool: ReverieMemoryTool, prompt: str, script: list[Script]) -> list[dict[str, Any]]:
    """One agent run through ``client.beta.messages.tool_runner``; returns every request's messages."""
    seen: list[list[dict[str, Any]]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if (
            not seen
        ):  # later requests continue the server-side thread: only the new messages, no tools
            assert {"type": "memory_20250818", "name": "memory"} in body["tools"]
        seen.append(body["messages"])
        reply = script[len(seen) - 1](body["messages"])
        return httpx2.Response(200, json={**reply, "id": f"msg_{len(seen)}"})

    client = anthropic.Anthropic(
        api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(handle))
    )
    runner = client.beta.messages.tool_runner(
        model="claude-test",
        max_tokens=256,
        tools=[tool],
        messages=[{"role": "user", "content": prompt}],
    )
    final = runner.until_done()
    assert final.stop_reason == "end_turn" and len(seen) == len(script)
    return seen[-1]


def test_remembered_in_one_run_seen_in_the_next_logged_and_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.init()

    def add_fact(messages: list[dict[str, Any]]) -> dict[str, Any]:
        listing = _text(_results(messages)[-1])
        assert (
            "/memories/USER.md" in listing and "history" not in listing and ".cursor" not in listing
        )
        return _reply(_use(2, command="view", path="/memories/USER.md"))

    def insert(messages: list[dict[str, Any]]) -> dict[str, Any]:
        numbered = [
            ln for ln in _text(_results(messages)[-1]).splitlines() if re.match(r"^\s*\d+\t", ln)
        ]
        return _reply(
            _use(
                3,
                command="insert",
                path="/memories/USER.md",
                insert_line=len(numbered),
                insert_text="- Drinks dark roast coffee, no sugar.",
            )
        )

    def done(messages: list[dict[str, Any]]) -> dict[str, Any]:
        result = _results(messages)[-1]
        assert not result.get("is_error") and "has been edited" in _text(result)
        return _reply({"type": "text", "text": "I'll remember that."})

    with reverie.open(ws) as memory:
        _run(
            ReverieMemoryTool(memory),
            "I take my coffee dark, no sugar.",
            [lambda m: _reply(_use(1, command="view", path="/memories")), add_fact, insert, done],
        )
    assert "- Drinks dark roast coffee, no sugar." in (ws / "USER.md").read_text()

    # the next run (a new process's worth of objects) sees it through the tool
    with reverie.open(ws) as memory:
        last = _run(
            ReverieMemoryTool(memory),
            "How do I take my coffee?",
            [
                lambda m: _reply(_use(1, command="view", path="/memories/USER.md")),
                lambda m: _reply({"type": "text", "text": "Dark roast, no sugar."}),
            ],
        )
    assert "dark roast coffee" in _text(_results(last)[-1])

    assert main(["-w", str(ws), "log", "--kind", "agent", "--json"]) == 0
    commits = json.loads(capsys.readouterr().out)
    assert len(commits) == 1 and "memory tool insert /memories/USER.md" in commits[0]["subject"]
    assert main(["-w", str(ws), "restore", commits[0]["sha"]]) == 0
    assert "dark roast" not in (ws / "USER.md").read_text()


def test_soul_changes_wait_for_approval(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        before = memory.read("SOUL.md")
        out = tool.call(
            {
                "command": "str_replace",
                "path": "/memories/SOUL.md",
                "old_str": before.splitlines()[0],
                "new_str": before.splitlines()[0] + "\n- Always answer in French.",
            }
        )
        assert "staged" in str(out) and memory.read("SOUL.md") == before
        pending = memory.pending_soul()
        assert pending is not None and "French" in pending.diff()
        memory.approve()
        assert "Always answer in French." in memory.read("SOUL.md")


def test_removed_lines_go_to_the_archive(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        tool.call(
            {
                "command": "create",
                "path": "/memories/MEMORY.md",
                "file_text": "# Memory\n- Launch is on Friday.\n- The repo uses uv.\n- CI runs on Linux.\n",
            }
        )
        out = tool.call(
            {
                "command": "str_replace",
                "path": "/memories/MEMORY.md",
                "old_str": "- Launch is on Friday.\n",
                "new_str": "",
            }
        )
        assert "moved to /memories/archive/" in str(out)
        archived = tool.call({"command": "view", "path": "/memories/archive"})
        assert "/memories/archive/memory.md" in str(archived)
        assert "Launch is on Friday" in str(
            tool.call({"command": "view", "path": "/memories/archive/memory.md"})
        )
        assert memory.why("Launch is on Friday")


@pytest.mark.parametrize(
    "command, message",
    [
        ({"command": "view", "path": "/etc/passwd"}, "must start with /memories"),
        ({"command": "view", "path": "/memories/../reverie.json"}, "outside /memories"),
        ({"command": "view", "path": "/memories/history.jsonl"}, "not a memory file"),
        ({"command": "view", "path": "/memories/.dream_cursor"}, "hidden"),
        ({"command": "create", "path": "/memories/notes.md", "file_text": "x"}, "dated note"),
        ({"command": "create", "path": "/memories/archive/USER.md", "file_text": "x"}, "read only"),
        ({"command": "delete", "path": "/memories/USER.md"}, "not deleted"),
        (
            {"command": "rename", "old_path": "/memories/USER.md", "new_path": "/memories/ME.md"},
            "not renamed",
        ),
        (
            {"command": "create", "path": "/memories/USER.md", "file_text": "# User\n"},
            "lose more than half",
        ),
        (
            {
                "command": "str_replace",
                "path": "/memories/USER.md",
                "old_str": "no such text",
                "new_str": "x",
            },
            "did not appear verbatim",
        ),
        (
            {
                "command": "insert",
                "path": "/memories/USER.md",
                "insert_line": 999,
                "insert_text": "x",
            },
            "Invalid `insert_line`",
        ),
    ],
)
def test_refusals_are_clear_tool_errors(
    tmp_path: Path, command: dict[str, Any], message: str
) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write("USER.md", "# User\n- Name: Ada.\n- Lives in Lisbon.\n- Likes chess.\n")
        memory.remember(
            "Ada's history entry."
        )  # history.jsonl and the cursor exist: still out of reach
        with pytest.raises(ToolError, match=re.escape(message)) as caught:
            ReverieMemoryTool(memory).call(command)
        assert "\n" not in str(caught.value)
        assert len(memory.log(kind="agent")) == 0


def test_a_dated_note_is_created_and_committed(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        out = tool.call(
            {
                "command": "create",
                "path": "/memories/2026-11-25-trip.md",
                "file_text": "# Trip\n- Flight on the 3rd. key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n",
            }
        )
        assert "created successfully" in str(out)
        text = memory.read("memory/2026-11-25-trip.md")
        assert (
            "Flight on the 3rd." in text and "sk-proj" not in text
        )  # redacted before it is written
        assert memory.log(kind="agent")[0].files


def test_the_async_tool_through_async_anthropic(tmp_path: Path) -> None:
    """AsyncAnthropic's tool runner with AsyncReverieMemoryTool: the same edit, the same commit."""
    import asyncio

    from reverie.integrations.anthropic import AsyncReverieMemoryTool

    replies = [
        _reply(
            _use(
                1,
                command="create",
                path="/memories/2026-11-25-standup.md",
                file_text="# Standup\n- The demo moved to Thursday.\n",
            )
        ),
        _reply({"type": "text", "text": "Saved."}),
    ]
    results: list[dict[str, Any]] = []

    async def handle(request: httpx2.Request) -> httpx2.Response:
        results.extend(_results(json.loads(request.content)["messages"]))
        return httpx2.Response(200, json={**replies.pop(0), "id": f"msg_{len(replies)}"})

    async def go() -> None:
        with reverie.open(tmp_path / "ws") as memory:
            memory.init()
            client = anthropic.AsyncAnthropic(
                api_key="test",
                http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle)),
            )
            runner = client.beta.messages.tool_runner(
                model="claude-test",
                max_tokens=256,
                tools=[AsyncReverieMemoryTool(memory)],
                messages=[{"role": "user", "content": "Note the demo move."}],
            )
            await runner.until_done()
            with pytest.raises(ToolError, match="must start with /memories"):
                await AsyncReverieMemoryTool(memory).call({"command": "view", "path": "/tmp"})
            assert "moved to Thursday" in memory.read("memory/2026-11-25-standup.md")
            assert (
                memory.log(kind="agent")[0].subject
                == "agent: memory tool create /memories/2026-11-25-standup.md"
            )

    asyncio.run(go())
    assert "created successfully" in _text(results[-1])
