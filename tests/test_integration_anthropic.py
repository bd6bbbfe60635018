"""Anthropic's memory tool over a workspace, driven by the ``anthropic`` SDK's own tool runner (the
model's replies come from a local transport, no network), held to the tool's documented contract:
any path under /memories works (files Claude names are topic files: versioned, searchable, listed
in the prompt by name); all six commands and clear_all_memory, each a commit that a restore undoes;
results and errors in the documentation's words, never Reverie's internals; SOUL.md staged; paths
out, history and cursors refused."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import reverie
from reverie.cli import main

# The SDK (4 s of CPU to import) is imported when this file's tests run (``load_sdk``), not when
# the suite is collected: under pytest-xdist every worker collects every file, and only one runs
# this one.
anthropic: Any = None
httpx2: Any = None  # anthropic's HTTP client
ToolError: Any = None
ReverieMemoryTool: Any = None


def load_sdk() -> None:
    """This module's names for the SDK, imported (the tests skip where it is not installed)."""
    global anthropic, httpx2, ToolError, ReverieMemoryTool
    anthropic = pytest.importorskip(
        "anthropic", reason="the anthropic SDK (reverie[anthropic]) is not installed"
    )
    import httpx2 as client
    from anthropic.lib.tools import ToolError as tool_error

    from reverie.integrations.anthropic import ReverieMemoryTool as tool

    httpx2, ToolError, ReverieMemoryTool = client, tool_error, tool


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    load_sdk()


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
    """One agent run through ``client.beta.messages.tool_runner``; returns every request's
    messages."""
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
        memory.write(
            "memory/MEMORY.md",
            "# Memory\n- Launch is on Friday.\n- The repo uses uv.\n- CI runs on Linux.\n",
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


#: The memory tool's documented errors (platform.claude.com, "Memory tool", each command's "Error
#: handling"), and Reverie's own refusals, which say what to do instead.
REFUSALS = [
    (
        {"command": "view", "path": "/etc/passwd"},
        "Error: The path /etc/passwd is outside /memories",
    ),
    ({"command": "view", "path": "/memories/../reverie.json"}, "a memory path has no '..'"),
    ({"command": "view", "path": "/memories/%2e%2e/x"}, "no encoded characters"),
    ({"command": "view", "path": "/memories/.dream_cursor"}, "no hidden (dot) parts"),
    (
        {"command": "view", "path": "/memories/projects"},
        "The path /memories/projects does not exist. Please provide a valid path.",
    ),
    (
        {"command": "view", "path": "/memories/history.jsonl"},
        "The path /memories/history.jsonl does not exist. Please provide a valid path.",
    ),
    (
        {"command": "str_replace", "path": "/memories/none.md", "old_str": "a", "new_str": "b"},
        "Error: The path /memories/none.md does not exist. Please provide a valid path.",
    ),
    (
        {"command": "insert", "path": "/memories/none.md", "insert_line": 0, "insert_text": "x"},
        "Error: The path /memories/none.md does not exist",
    ),
    (
        {"command": "delete", "path": "/memories/none.md"},
        "Error: The path /memories/none.md does not exist",
    ),
    (
        {"command": "rename", "old_path": "/memories/none.md", "new_path": "/memories/b.md"},
        "Error: The path /memories/none.md does not exist",
    ),
    (
        {"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/todo.md"},
        "Error: The destination /memories/todo.md already exists",
    ),
    (
        {"command": "delete", "path": "/memories"},
        "Error: The /memories directory itself cannot be deleted",
    ),
    ({"command": "create", "path": "/memories/archive/USER.md", "file_text": "x"}, "is read only"),
    (
        {"command": "delete", "path": "/memories/USER.md"},
        "cannot be deleted: it is loaded into every conversation",
    ),
    (
        {"command": "rename", "old_path": "/memories/USER.md", "new_path": "/memories/ME.md"},
        "cannot be renamed: it is loaded into every conversation",
    ),
    (
        {
            "command": "str_replace",
            "path": "/memories/USER.md",
            "old_str": "- Name: Ada.\n- Lives in Lisbon.\n- Likes chess.\n",
            "new_str": "",
        },
        (
            "/memories/USER.md was not changed: /memories/USER.md would lose more than half its"
            " content ("
        ),
    ),
    (
        {"command": "create", "path": "/memories/USER.md", "file_text": "# User\n"},
        "Error: File /memories/USER.md already exists: view it and change its lines",
    ),
    (
        {"command": "create", "path": "/memories/notes.md", "file_text": "- three\n"},
        "Error: File /memories/notes.md already exists",
    ),
    (
        {"command": "create", "path": "/memories/big.md", "file_text": "- x\n" * 5000},
        "a topic file holds at most 16,000: keep what matters, or split it",
    ),
    (
        {
            "command": "str_replace",
            "path": "/memories/USER.md",
            "old_str": "no such text",
            "new_str": "x",
        },
        (
            "No replacement was performed, old_str `no such text` did not appear verbatim in"
            " /memories/USER.md."
        ),
    ),
    (
        {"command": "str_replace", "path": "/memories/notes.md", "old_str": "- ", "new_str": "* "},
        "No replacement was performed. Multiple occurrences of old_str `- ` in lines: 1, 2.",
    ),
    (
        {"command": "insert", "path": "/memories/USER.md", "insert_line": 999, "insert_text": "x"},
        (
            "Error: Invalid `insert_line` parameter: 999. It should be within the range of lines of"
            " the file: [0, 4]"
        ),
    ),
]
#: Reverie's own words, which a model cannot act on: never in a tool result or error.
INTERNALS = (
    "[FILE-REMOVE]",
    "finding",
    "Error:",
    "memory/topics",
    "workspace",
    "refused:",
    "Traceback",
)


@pytest.mark.parametrize("command, message", REFUSALS)
def test_errors_are_the_documented_ones_in_the_tools_words(
    tmp_path: Path, command: dict[str, Any], message: str
) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write("USER.md", "# User\n- Name: Ada.\n- Lives in Lisbon.\n- Likes chess.\n")
        memory.write("memory/topics/notes.md", "- one\n- two\n")
        memory.write("memory/topics/todo.md", "- call Bob\n")
        memory.remember("Ada's history entry.")  # history.jsonl and the cursor exist: out of reach
        before = len(memory.log(limit=100))
        with pytest.raises(ToolError) as caught:
            ReverieMemoryTool(memory).call(command)
        text = str(caught.value)
        assert message in text and "\n" not in text
        assert not any(word in text.replace("Error: ", "", 1) for word in INTERNALS), text
        assert len(memory.log(limit=100)) == before  # nothing written


def test_claude_names_its_own_files_and_they_are_memory(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        for path, text in (
            ("/memories/user_preferences.md", "# Preferences\n- Prefers tabs over spaces.\n"),
            ("/memories/progress.md", "# Progress\n- Feature A is done; B is next.\n"),
            (
                "/memories/projects/acme/guidelines.xml",
                "<guidelines>Reply within a day</guidelines>\n",
            ),
        ):
            assert (
                tool.call({"command": "create", "path": path, "file_text": text})
                == f"File created successfully at: {path}"
            )
        listing = str(tool.call({"command": "view", "path": "/memories"}))
        assert listing.startswith(
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
            "items and node_modules:\n"
        )
        for shown in (
            "/memories/progress.md",
            "/memories/USER.md",
            "/memories/projects/",
            "/memories/projects/acme/",
        ):
            assert f"\t{shown}\n" in listing + "\n", shown
        assert "guidelines.xml" not in listing  # three levels down
        assert "guidelines.xml" in str(tool.call({"command": "view", "path": "/memories/projects"}))
        assert [c.subject for c in memory.log(limit=3, kind="agent")][
            0
        ] == "agent: memory tool create /memories/projects/acme/guidelines.xml"
        context = memory.context()
        assert "memory/topics/progress.md" in context  # listed by name ...
        assert "Feature A is done" not in context  # ... never loaded whole
        assert memory.search_memory("feature done")[0].memory == "Feature A is done; B is next."
        assert "Reply within a day" in str(
            tool.call({"command": "view", "path": "/memories/projects/acme/guidelines.xml"})
        )


def test_delete_rename_and_clear_are_commits_a_restore_undoes(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        tool.call(
            {
                "command": "create",
                "path": "/memories/old/plan.md",
                "file_text": "- Ship v2 in May.\n",
            }
        )
        assert (
            tool.call(
                {"command": "rename", "old_path": "/memories/old", "new_path": "/memories/plans"}
            )
            == "Successfully renamed /memories/old to /memories/plans"
        )
        assert "Ship v2" in str(tool.call({"command": "view", "path": "/memories/plans/plan.md"}))
        assert (
            tool.call({"command": "delete", "path": "/memories/plans/plan.md"})
            == "Successfully deleted /memories/plans/plan.md"
        )
        archived = str(tool.call({"command": "view", "path": "/memories/archive/files.md"}))
        assert "Ship v2 in May." in archived and "from memory/topics/plans/plan.md" in archived
        assert memory.why("Ship v2 in May")
        deleted = memory.log(limit=1, kind="agent")[0]
        memory.restore(deleted.sha, only=True)
        assert "Ship v2" in str(tool.call({"command": "view", "path": "/memories/plans/plan.md"}))

        memory.write("USER.md", memory.read("USER.md") + "\n- Lives in Lisbon.\n")
        assert tool.clear_all_memory() == "All memory cleared"
        cleared = memory.log(limit=1)[0]
        assert "Lisbon" not in memory.read("USER.md")
        with pytest.raises(ToolError, match="does not exist"):
            tool.call({"command": "view", "path": "/memories/plans"})
        memory.restore(cleared.sha, only=True)
        assert "Lisbon" in memory.read("USER.md")
        assert "Ship v2" in str(tool.call({"command": "view", "path": "/memories/plans/plan.md"}))


def test_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    """The archive before anything was archived is a folder that does not exist yet: the
    documented answer, not a refusal."""
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        with pytest.raises(ToolError) as caught:
            ReverieMemoryTool(memory).call({"command": "view", "path": "/memories/archive"})
        assert (
            str(caught.value)
            == "The path /memories/archive does not exist. Please provide a valid path."
        )
        listing = str(ReverieMemoryTool(memory).call({"command": "view", "path": "/memories"}))
        assert listing.splitlines()[1].endswith("\t/memories")  # an empty store lists itself


def test_a_long_file_is_viewed_a_range_at_a_time(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write(
            "memory/topics/log.md",
            "".join(f"- entry {n:04d} of the build log\n" for n in range(1, 451)),
        )
        tool = ReverieMemoryTool(memory)
        first = str(tool.call({"command": "view", "path": "/memories/log.md"}))
        assert (
            len(first) < 16_500
            and "(the file continues: it has 450 lines; view the rest with view_range [" in first
        )
        tail = str(
            tool.call({"command": "view", "path": "/memories/log.md", "view_range": [449, -1]})
        )
        assert tail.splitlines()[1:] == [
            "   449\t- entry 0449 of the build log",
            "   450\t- entry 0450 of the build log",
        ]


def test_a_dated_note_is_created_and_committed(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        out = tool.call(
            {
                "command": "create",
                "path": "/memories/2026-11-25-trip.md",
                "file_text": (
                    "# Trip\n- Flight on the 3rd. key"
                    " sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n"
                ),
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
            with pytest.raises(ToolError, match="is outside /memories"):
                await AsyncReverieMemoryTool(memory).call({"command": "view", "path": "/tmp"})
            assert "moved to Thursday" in memory.read("memory/2026-11-25-standup.md")
            assert (
                memory.log(kind="agent")[0].subject
                == "agent: memory tool create /memories/2026-11-25-standup.md"
            )

    asyncio.run(go())
    assert "created successfully" in _text(results[-1])


def test_hostile_names_and_shapes_are_tool_errors_never_tracebacks(tmp_path: Path) -> None:
    """What a model (or an injection) can send: a name no file system takes, a file where a folder
    goes, a folder where a file goes, a link out, bytes that are not UTF-8 on disk."""
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        tool.call({"command": "create", "path": "/memories/a", "file_text": "- a file\n"})
        tool.call({"command": "create", "path": "/memories/dir/x.md", "file_text": "- x\n"})
        for command, message in (
            (
                {"command": "create", "path": "/memories/" + "n" * 300, "file_text": "x"},
                "longer than 255 bytes",
            ),
            (
                {"command": "create", "path": "/memories/a/b.md", "file_text": "x"},
                "/memories/a is a file",
            ),
            ({"command": "create", "path": "/memories/dir", "file_text": "x"}, "is a directory"),
            (
                {
                    "command": "rename",
                    "old_path": "/memories/dir/x.md",
                    "new_path": "/memories/a/x.md",
                },
                "/memories/a is a file",
            ),
            (
                {"command": "str_replace", "path": "/memories/dir", "old_str": "x", "new_str": "y"},
                "does not exist",
            ),
        ):
            with pytest.raises(ToolError) as caught:
                tool.call(command)
            assert message in str(caught.value), (command, str(caught.value))
        outside = tmp_path / "secret.md"
        outside.write_text("- not memory\n")
        (memory.workspace.root / "memory/topics/link.md").symlink_to(outside)
        (memory.workspace.root / "memory/topics/latin1.md").write_bytes(b"- M\xfcnchen\n")
        listing = str(tool.call({"command": "view", "path": "/memories"}))
        assert "link.md" not in listing and "latin1.md" in listing
        with pytest.raises(ToolError, match="does not exist"):
            tool.call({"command": "view", "path": "/memories/link.md"})
        assert "M\ufffdnchen" in str(tool.call({"command": "view", "path": "/memories/latin1.md"}))
