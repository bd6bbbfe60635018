"""Anthropic's memory tool contract on ``create`` (adapt6), through the SDK's own tool runner (the
model's replies from a local transport): the SDK's reference tool (``BetaLocalFilesystemMemoryTool``
of the pinned ``anthropic``) creates a new file and refuses an existing one ("File … already
exists"), so a model that means a new file never replaces one it has not read. A file another
writer creates between the check and the write is never replaced either."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import test_integration_anthropic
from test_integration_anthropic import _reply, _results, _run, _text, _use

import reverie

# The SDK is imported when this file's tests run, not when the suite is collected (every xdist
# worker collects every file; one runs this one).
anthropic: Any = None
ToolError: Any = None
BetaLocalFilesystemMemoryTool: Any = None
AsyncReverieMemoryTool: Any = None
ReverieMemoryTool: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    global anthropic, ToolError, BetaLocalFilesystemMemoryTool
    global AsyncReverieMemoryTool, ReverieMemoryTool
    anthropic = pytest.importorskip(
        "anthropic", reason="anthropic (reverie[anthropic]) is not installed"
    )
    test_integration_anthropic.load_sdk()  # for _run
    from anthropic.lib.tools import ToolError as tool_error
    from anthropic.tools.memory import BetaLocalFilesystemMemoryTool as reference

    from reverie.integrations import anthropic as adapter

    ToolError, BetaLocalFilesystemMemoryTool = tool_error, reference
    AsyncReverieMemoryTool, ReverieMemoryTool = (
        adapter.AsyncReverieMemoryTool,
        adapter.ReverieMemoryTool,
    )


OLD = "# Progress\n- Ada ships the parser on Friday.\n- The CI runs on Linux.\n"
NEW = "# Progress\n- Started the lexer.\n"


def test_the_reference_tool_refuses_an_existing_file(tmp_path: Path) -> None:
    """What the contract is, from the SDK itself."""
    reference = BetaLocalFilesystemMemoryTool(str(tmp_path / "ref"))
    reference.call({"command": "create", "path": "/memories/progress.md", "file_text": OLD})
    with pytest.raises(ToolError, match="File /memories/progress.md already exists"):
        reference.call({"command": "create", "path": "/memories/progress.md", "file_text": NEW})


def test_create_on_an_existing_file_is_an_error_result_and_changes_nothing(
    tmp_path: Path,
) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write("memory/topics/progress.md", OLD)
        commits = len(memory.log(limit=100))

        def view_after_refusal(messages: list[dict[str, Any]]) -> dict[str, Any]:
            refused = _results(messages)[-1]
            assert refused.get("is_error") is True
            assert _text(refused).startswith("Error: File /memories/progress.md already exists")
            return _reply(_use(2, command="view", path="/memories/progress.md"))

        last = _run(
            ReverieMemoryTool(memory),
            "Note that I started the lexer.",
            [
                lambda m: _reply(
                    _use(1, command="create", path="/memories/progress.md", file_text=NEW)
                ),
                view_after_refusal,
                lambda m: _reply({"type": "text", "text": "It is already noted."}),
            ],
        )
        assert "Ada ships the parser on Friday." in _text(_results(last)[-1])
        assert memory.read("memory/topics/progress.md") == OLD
        assert len(memory.log(limit=100)) == commits
        for path in ("/memories/USER.md", "/memories/MEMORY.md"):  # the prompt files exist
            with pytest.raises(ToolError, match=f"File {path} already exists") as caught:
                ReverieMemoryTool(memory).call(
                    {"command": "create", "path": path, "file_text": "# Mine\n"}
                )
            assert "delete" not in str(caught.value)  # a prompt file keeps its name
        assert len(memory.log(limit=100)) == commits


def test_the_async_tool_refuses_the_same(tmp_path: Path) -> None:
    async def go() -> None:
        with reverie.open(tmp_path / "ws") as memory:
            memory.init()
            await memory.awrite("memory/topics/progress.md", OLD)
            tool = AsyncReverieMemoryTool(memory)
            with pytest.raises(ToolError, match="File /memories/progress.md already exists"):
                await tool.call(
                    {"command": "create", "path": "/memories/progress.md", "file_text": NEW}
                )
            assert memory.read("memory/topics/progress.md") == OLD

    asyncio.run(go())


def test_a_file_another_writer_creates_meanwhile_is_never_replaced(tmp_path: Path) -> None:
    """The other writer (a person's edit through another Memory) creates the file right after the
    tool looked for it: the create is refused, the other writer's text stays."""
    ws = tmp_path / "ws"
    reverie.open(ws).init()

    class Racing(reverie.Memory):
        armed = True

        def files(self, *args: Any, **kwargs: Any) -> Any:
            listed = super().files(*args, **kwargs)
            if self.armed:
                self.armed = False
                with reverie.open(ws) as other:
                    other.write("memory/topics/progress.md", OLD)
            return listed

    with Racing(reverie.open(ws).runtime) as memory:
        with pytest.raises(ToolError) as caught:
            ReverieMemoryTool(memory).call(
                {"command": "create", "path": "/memories/progress.md", "file_text": NEW}
            )
        assert "nothing was written" in str(caught.value)
        assert memory.read("memory/topics/progress.md") == OLD


def test_creates_of_one_file_at_once_keep_exactly_one(tmp_path: Path) -> None:
    """``AsyncAnthropic``'s runner may run several tool calls at once: of four creates of the same
    new file, one writes it and the others are told it exists (or changed meanwhile); the file is
    the one that was reported created."""

    async def go() -> list[str]:
        with reverie.open(tmp_path / "ws") as memory:
            memory.init()
            tool = AsyncReverieMemoryTool(memory)

            async def create(n: int) -> str:
                command = {
                    "command": "create",
                    "path": "/memories/plan.md",
                    "file_text": f"- Plan {n}: ship in May.\n",
                }
                try:
                    return str(await tool.call(command))
                except ToolError as exc:
                    return f"refused {n}: {exc}"

            said = await asyncio.gather(*(create(n) for n in range(4)))
            kept = memory.read("memory/topics/plan.md")
            return [*said, kept]

    *said, kept = asyncio.run(go())
    created = [s for s in said if s == "File created successfully at: /memories/plan.md"]
    assert len(created) == 1, said
    refused = [s for s in said if s.startswith("refused")]
    assert len(refused) == 3 and all("Error:" in s for s in refused), refused
    assert kept.startswith("- Plan ") and kept.count("Plan") == 1
    assert not any(f"refused {kept[7]}:" in s for s in refused)  # the one reported created


def test_a_prompt_file_not_written_yet_is_created(tmp_path: Path) -> None:
    """Before the first write the prompt files are listed empty (``view /memories``): creating one
    replaces nothing, so it is made; once it holds text, a create is refused."""
    with reverie.open(tmp_path / "new") as memory:
        tool = ReverieMemoryTool(memory)
        assert "0B\t/memories/USER.md" in str(tool.call({"command": "view", "path": "/memories"}))
        made = {"command": "create", "path": "/memories/USER.md", "file_text": "# User\n- Ada.\n"}
        assert tool.call(made) == "File created successfully at: /memories/USER.md"
        assert memory.read("USER.md") == "# User\n- Ada.\n"
        with pytest.raises(ToolError, match="already exists"):
            tool.call(made)
