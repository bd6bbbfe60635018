"""What a client of a root of scopes reads when an error names its workspace: the server's path is
said as "the workspace" (``reverie.mcp.server._public``), and the sentence stays a sentence — never
"the workspace at the workspace" or "workspace the workspace does not exist"."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

from mcp import Client  # noqa: E402

import reverie  # noqa: E402
from reverie.mcp.server import _public, build_server  # noqa: E402

DOUBLED = re.compile(r"workspace (at |in )?the workspace")


def test_a_moved_scope_workspace_is_said_in_one_plain_sentence(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with reverie.open(root=root, user="eve") as memory:
        memory.remember("User: eve lives in Porto")
    eve = reverie.open(root=root, user="eve")
    eve.recall("Porto")
    ws = eve.workspace.root
    ws.rename(ws.with_name("workspace.old"))

    async def go() -> list[str]:
        async with Client(build_server(eve)) as c:
            out = []
            for tool, args in (
                ("search_memory", {"query": "Porto"}),
                ("remember", {"text": "User: eve wrote this"}),
            ):
                r = await c.call_tool(tool, args)
                assert r.is_error, r.content
                out.append(r.content[0].text)  # type: ignore[union-attr]
            return out

    try:
        said = asyncio.run(asyncio.wait_for(go(), 60))
    finally:
        eve.close()
    for text in said:
        assert "the workspace was moved or deleted after it was opened" in text, text
        assert not DOUBLED.search(text) and str(tmp_path) not in text, text


@pytest.mark.parametrize(
    ("template", "said"),
    [
        ("the workspace at {root} was moved or deleted", "the workspace was moved or deleted"),
        ("workspace {root} does not exist (removed?)", "the workspace does not exist (removed?)"),
        ("workspace {root} exists and is not a directory", "the workspace exists and is not a"),
        ("cannot create the workspace at {root}: Busy", "cannot create the workspace: Busy"),
        ("no workspace at {root} (create one with", "no workspace (create one with"),
        ("{root}/memory/x.md: not found", "the workspace/memory/x.md: not found"),
    ],
)
def test_every_message_naming_the_workspace_reads_as_a_sentence(
    tmp_path: Path, template: str, said: str
) -> None:
    """The messages the library raises with the workspace's path in them (grep 'workspace {'),
    as a scope's client reads them."""
    with reverie.open(root=tmp_path / "root", user="eve") as eve:
        text = _public(eve, template.format(root=eve.workspace.root))
    assert said in text and not DOUBLED.search(text), text
