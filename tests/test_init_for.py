"""``reverie init --for CLIENT``: stdout is the client's MCP configuration alone, and the server it
names starts and serves this workspace when launched exactly as written (here by the official SDK's
stdio client)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
from pathlib import Path

import pytest
from support.cli import invoke

from reverie.cli import main

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

from mcp import Client, StdioServerParameters  # noqa: E402


@pytest.mark.parametrize("client", ["claude-code", "cursor", "claude-desktop"])
def test_the_printed_config_is_json_naming_this_workspace(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    client: str,
) -> None:
    ws = tmp_path / "ws"
    # Wide enough that no line wraps, however long the temporary directory's path (rich wraps stderr
    # at 80 columns when it is not a terminal).
    run = invoke("-w", str(ws), "init", "--for", client, env={"COLUMNS": "1000"})
    assert run.returncode == 0, run.stderr
    out, err = run.stdout, run.stderr
    server = json.loads(out)["mcpServers"][
        "reverie"
    ]  # stdout is the JSON alone: `> .cursor/mcp.json` works
    assert server["args"][-3:] == ["-w", str(ws), "mcp"]
    assert Path(server["command"]).is_absolute()  # desktop clients do not read the shell's PATH
    assert (ws / "USER.md").is_file() and f"workspace {ws}" in err
    if client == "claude-code":
        line = next(x.strip() for x in err.splitlines() if x.strip().startswith("claude mcp add"))
        assert (
            shlex.split(line)[-3:] == ["-w", str(ws), "mcp"] and "--scope user reverie --" in line
        )
    assert main(["-w", str(ws), "--json", "init", "--for", client]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["client"] == client and report["mcp_config"]["mcpServers"]["reverie"] == server


def test_the_configured_server_starts_and_serves_the_workspace(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = tmp_path / "ws"
    assert main(["-w", str(ws), "init", "--for", "claude-desktop"]) == 0
    server = json.loads(capsys.readouterr().out)["mcpServers"]["reverie"]
    params = StdioServerParameters(
        command=server["command"], args=server["args"], env=dict(os.environ)
    )

    async def go() -> tuple[set[str], str]:
        async with Client(params) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            read = await c.call_tool("read_memory_file", {"path": "USER.md"})
            return tools, read.structured_content["content"]

    tools, user = asyncio.run(asyncio.wait_for(go(), 120))
    assert {"search_memory", "remember", "dream"} <= tools
    assert user == (ws / "USER.md").read_text()
