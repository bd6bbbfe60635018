"""The MCP server through the real MCP client over stdio (hostile report T2 and the low findings):
a prompt file that is a directory or a link out of the workspace is one clear reason in the tool,
the resource and the prompt, with no traceback on stderr; an unknown prompt argument and an unknown
version kind are named. (A client of a root of scopes never seeing the server's paths is in
tests/test_mcp_scopes.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (reverie[mcp]) is not installed")

from mcp import Client  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from support.mcp_servers import stdio_server  # noqa: E402

import reverie  # noqa: E402


def _broken(ws: Path, how: str) -> None:
    (ws / "USER.md").unlink()
    if how == "a directory":
        (ws / "USER.md").mkdir()
    else:
        outside = ws.parent / "outside.md"
        outside.write_text("- not this user's memory\n")
        (ws / "USER.md").symlink_to(outside)


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("a directory", "is a folder, not a regular file"),
        ("a link out", "resolves outside the workspace"),
    ],
)
def test_a_broken_prompt_file_is_one_reason_everywhere(
    tmp_path: Path, how: str, reason: str
) -> None:
    ws = tmp_path / "ws"
    reverie.open(ws).init()
    _broken(ws, how)
    errlog = tmp_path / "stderr.txt"

    async def go() -> None:
        params = stdio_server(["-w", str(ws)])
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as c:
                r = await c.call_tool("read_memory_file", {"path": "USER.md"})
                assert r.is_error and reason in r.content[0].text, r.content  # type: ignore[union-attr]
                with pytest.raises(MCPError) as caught:
                    await c.read_resource("reverie://workspace/USER.md")
                assert reason in caught.value.error.message
                with pytest.raises(MCPError) as caught:
                    await c.get_prompt("memory_context")
                assert caught.value.error.message.startswith("memory_context cannot be built: ")
                assert reason in caught.value.error.message
                ok = await c.call_tool("remember", {"text": "User: the server is still up"})
                assert not ok.is_error

    asyncio.run(asyncio.wait_for(go(), 120))
    assert "Traceback" not in errlog.read_text()


def test_an_unknown_prompt_argument_and_version_kind_are_named(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    reverie.open(ws).init()

    async def go() -> None:
        async with Client(stdio_server(["-w", str(ws)])) as c:
            with pytest.raises(MCPError) as caught:
                await c.get_prompt("memory_context", {"x": "y"})
            assert caught.value.error.message == "prompt memory_context takes no arguments, not x"
            prompt = await c.get_prompt("memory_context")
            assert prompt.messages
            r = await c.call_tool("list_versions", {"kind": "bogus"})
            assert r.is_error and "'bogus' is not a kind of version" in r.content[0].text  # type: ignore[union-attr]
            r = await c.call_tool("list_versions", {"kind": "init"})
            assert not r.is_error and r.structured_content["versions"]

    asyncio.run(asyncio.wait_for(go(), 120))
