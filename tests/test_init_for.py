"""``reverie init --for CLIENT``: stdout is the client's MCP configuration alone, in the shape that
client's documentation asks for, and the server it names starts and serves this workspace when
launched exactly as written (here by the official SDK's stdio client)."""

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

#: Each client's documented shape: the top-level key, whether a stdio server names its type, the
#: file named on stderr, and the start of its one-line command (None: it has none).
DOCUMENTED = {
    "claude-code": ("mcpServers", True, ".mcp.json", "claude mcp add --transport stdio"),
    "claude-desktop": ("mcpServers", False, "claude_desktop_config.json", None),
    "cursor": ("mcpServers", False, "~/.cursor/mcp.json", None),
    "vscode": ("servers", True, ".vscode/mcp.json", "code --add-mcp "),
    "windsurf": ("mcpServers", False, "~/.codeium/windsurf/mcp_config.json", None),
}


def test_every_client_offered_is_documented_here() -> None:
    from reverie.cli.cmd_init import CLIENTS

    assert sorted(CLIENTS) == sorted(DOCUMENTED)


@pytest.mark.parametrize("client", sorted(DOCUMENTED))
def test_the_printed_config_is_the_clients_own_shape(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    client: str,
) -> None:
    key, typed, where, command = DOCUMENTED[client]
    ws = tmp_path / "ws"
    # Wide enough that no line wraps, however long the temporary directory's path (rich wraps stderr
    # at 80 columns when it is not a terminal).
    run = invoke("-w", str(ws), "init", "--for", client, env={"COLUMNS": "1000"})
    assert run.returncode == 0, run.stderr
    out, err = run.stdout, run.stderr
    config = json.loads(out)  # stdout is the JSON alone: `> .cursor/mcp.json` works
    assert list(config) == [key]
    server = config[key]["reverie"]
    assert server["args"][-3:] == ["-w", str(ws), "mcp"]
    assert Path(server["command"]).is_absolute()  # desktop clients do not read the shell's PATH
    assert set(server) == ({"type", "command", "args"} if typed else {"command", "args"})
    assert server.get("type", "stdio") == "stdio"
    assert (ws / "USER.md").is_file() and f"workspace {ws}" in err
    assert where in err
    lines = [x.strip() for x in err.splitlines()]
    if command is None:
        assert not any(x.startswith(("claude mcp", "code --add-mcp")) for x in lines)
    else:
        line = next(x for x in lines if x.startswith(command))
        argv = shlex.split(line)
        if client == "claude-code":
            assert argv[-3:] == ["-w", str(ws), "mcp"] and "--scope user reverie --" in line
            assert argv[argv.index("--") + 1 :] == [server["command"], *server["args"]]
        else:
            entry = json.loads(argv[-1])
            assert entry == {"name": "reverie", **server}
    assert main(["-w", str(ws), "--json", "init", "--for", client]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["client"] == client and report["mcp_config"] == config
    assert (report["command"] is None) == (command is None)
    if command is not None:
        assert report["command"].startswith(command)
    assert where in report["where"]


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
