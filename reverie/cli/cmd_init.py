"""``reverie init [--for CLIENT]``: create the workspace layout and starter memory files; with
``--for``, also print the MCP configuration that makes the workspace that client's memory.

Each client's entry is what its own documentation asks for (checked against each client's docs,
2026-11): the file it reads, the top-level key (VS Code's is ``servers``; the others' is
``mcpServers``), the fields of a stdio server, and the one-line command of the clients that have
one (Claude Code's ``claude mcp add``, VS Code's ``code --add-mcp``). Nothing here writes a client's
file: stdout is the JSON alone, so it can be redirected there; where it goes is said on stderr.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._common import add_json_flag, console, emit_json, err_console, open_memory

#: The server's name in every client's configuration.
NAME = "reverie"


@dataclass(frozen=True)
class Client:
    """One MCP client: where it reads servers from, its configuration's shape, its command."""

    #: Where the configuration goes, as the client's docs say (on stderr).
    where: str
    #: The top-level key that maps server names to servers.
    key: str = "mcpServers"
    #: Whether a stdio server names its transport (``"type": "stdio"``).
    typed: bool = False
    #: The client's one-line alternative to editing the file, given the server's argv.
    command: Callable[[list[str]], str] | None = None

    def config(self, argv: list[str]) -> dict[str, Any]:
        command, *args = argv
        server: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        server.update(command=command, args=args)
        return {self.key: {NAME: server}}


def _claude_mcp_add(argv: list[str]) -> str:
    return f"claude mcp add --transport stdio --scope user {NAME} -- " + shlex.join(argv)


def _code_add_mcp(argv: list[str]) -> str:
    import orjson

    command, *args = argv
    entry = {"name": NAME, "type": "stdio", "command": command, "args": args}
    return "code --add-mcp " + shlex.quote(orjson.dumps(entry).decode())


CLIENTS: dict[str, Client] = {
    "claude-code": Client(
        "save as .mcp.json at your project's root (project scope: every session there gets it; "
        "merge the entry into an existing file), or run, for every project (user scope):\n"
        "  {command}",
        typed=True,
        command=_claude_mcp_add,
    ),
    "claude-desktop": Client(
        "merge into claude_desktop_config.json (Settings > Developer > Edit Config) — macOS: "
        "~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\ — then restart "
        "Claude Desktop"
    ),
    "cursor": Client(
        "save as ~/.cursor/mcp.json (every project) or .cursor/mcp.json in one project (merge "
        'the "mcpServers" entry into an existing file)'
    ),
    "vscode": Client(
        'save as .vscode/mcp.json in your workspace (merge the "servers" entry into an existing '
        "file), or add it to your user profile (every workspace) with:\n  {command}",
        key="servers",
        typed=True,
        command=_code_add_mcp,
    ),
    "windsurf": Client(
        "merge into ~/.codeium/windsurf/mcp_config.json (Windows: "
        "%USERPROFILE%\\.codeium\\windsurf\\mcp_config.json; Windsurf Settings > Cascade > MCP "
        "servers opens it), then refresh the MCP servers"
    ),
}


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--for",
        dest="client",
        choices=sorted(CLIENTS),
        help="also print the MCP configuration for this client (stdout: the JSON alone, so "
        "it can be redirected into the client's file; where it goes is said on stderr)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        ws = memory.workspace
        created = memory.init()
    client = CLIENTS[args.client] if args.client else None
    argv = server_command(ws.root)
    if args.json:
        out: dict[str, Any] = {"workspace": str(ws.root), "created": created}
        if client is not None:
            command = client.command(argv) if client.command else None
            out.update(client=args.client, mcp_config=client.config(argv), command=command)
            out["where"] = client.where.format(command=command)
        emit_json(out)
        return 0
    report = err_console if client is not None else console  # stdout stays the bare configuration
    report.print(f"workspace [bold]{ws.root}[/]")
    for rel in created:
        report.print(f"  created {rel}")
    if not created:
        report.print("  already initialised")
    if client is not None:
        import orjson

        sys.stdout.write(orjson.dumps(client.config(argv), option=orjson.OPT_INDENT_2).decode())
        sys.stdout.write("\n")
        sys.stdout.flush()
        command = client.command(argv) if client.command else ""
        err_console.print(client.where.format(command=command), markup=False, soft_wrap=True)
    return 0


def server_command(workspace: Path) -> list[str]:
    """The command a client launches: this installation's ``reverie`` by full path (desktop clients
    do not read the shell's PATH), or this interpreter with ``-m reverie`` when no script is
    installed beside it."""
    script = Path(sys.executable).with_name("reverie")
    found = str(script) if script.is_file() else shutil.which("reverie")
    head = [found] if found else [sys.executable, "-m", "reverie"]
    return [*head, "-w", str(workspace), "mcp"]


def mcp_config(workspace: Path, client: str = "claude-desktop") -> dict[str, Any]:
    """The configuration ``client`` reads (stdio transport), as ``init --for`` prints it."""
    return CLIENTS[client].config(server_command(workspace))
