"""The MCP server serves memory files and nothing else: a resource read that would leave them (a
symlink out of the workspace, a hidden folder, history) is refused by Reverie's own check, reached
here through the SDK's in-process client (the SDK's URI template already refuses ``..``, so these
are the reads only Reverie's rule stops)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

from mcp import Client  # noqa: E402

from reverie.mcp import build_server  # noqa: E402
from reverie.storage.workspace import Workspace  # noqa: E402

PREFIX = "reverie://workspace/"
SECRET = "TOP-SECRET-OUTSIDE-MEMORY"


async def _read(ws: Workspace, rel: str) -> str:
    server = build_server(ws.root)
    try:
        async with Client(server) as client:
            result = await client.read_resource(PREFIX + rel)
            return "".join(getattr(c, "text", "") for c in result.contents)
    finally:
        server.reverie_memory.close()


@pytest.fixture
def served(workspace: Workspace, tmp_path: Path) -> Workspace:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET + "\n")
    (workspace.root / "secret.md").write_text(SECRET + "\n")
    memory = workspace.memory_dir
    (memory / "2026-01-02.md").write_text("- a dated note\n")
    os.symlink(
        outside / "secret.md", memory / "link.md"
    )  # a file symlink pointing out of the workspace
    os.symlink(
        workspace.root / "secret.md", memory / "inner.md"
    )  # one pointing out of memory, not the workspace
    os.symlink(outside, memory / "out")  # a folder symlink pointing out
    os.symlink(
        workspace.root, memory / "up"
    )  # a folder symlink staying in the workspace: only memory's rule stops it
    (memory / ".reverie").mkdir(exist_ok=True)
    (memory / ".reverie" / "hidden.md").write_text(SECRET + "\n")
    return workspace


def test_a_memory_file_is_served(served: Workspace) -> None:
    """The control: the same path shape, inside memory, is read (so the refusals below are the
    rule, not a typo)."""
    assert asyncio.run(_read(served, "memory/2026-01-02.md")) == "- a dated note\n"


@pytest.mark.parametrize(
    "rel",
    [
        "memory/link.md",
        "memory/inner.md",
        "memory/out/secret.md",
        "memory/up/secret.md",
        "memory/.reverie/hidden.md",
        "memory/history.jsonl",
    ],
)
def test_a_read_leaving_memory_is_refused(served: Workspace, rel: str) -> None:
    with pytest.raises(Exception) as caught:
        asyncio.run(_read(served, rel))
    message = str(caught.value)
    assert SECRET not in message
    assert "Unknown resource" not in message, (
        "refused by the SDK's template, so Reverie's own check went untested"
    )


def test_the_file_list_names_memory_files_and_no_link_or_hidden_file(served: Workspace) -> None:
    """``list_memory_files`` (what a client reads next) shows the dated note, never a symlink or
    a hidden file."""

    async def listed() -> str:
        server = build_server(served.root)
        try:
            async with Client(server) as client:
                result = await client.call_tool("list_memory_files", {})
                return "".join(getattr(c, "text", "") for c in result.content)
        finally:
            server.reverie_memory.close()

    text = asyncio.run(listed())
    assert "memory/2026-01-02.md" in text
    for name in ("link.md", "inner.md", "out/", "up/", "hidden.md"):
        assert name not in text, (name, text)
