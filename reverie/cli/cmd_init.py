"""``reverie init [--for CLIENT]``: create the workspace layout and starter memory files; with
``--for``, also print the MCP configuration that makes the workspace that client's memory."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from ._common import add_json_flag, console, emit_json, err_console, open_memory

#: Where each client reads its MCP servers from (said on stderr; stdout is the configuration alone).
CLIENTS = {
    "claude-code": "save as .mcp.json at your project's root (every session there gets it), or run:\n  {command}",
    "cursor": "save as ~/.cursor/mcp.json (every project) or .cursor/mcp.json in one project (merge the "
    '"mcpServers" entry into an existing file)',
    "claude-desktop": "merge into claude_desktop_config.json — macOS: ~/Library/Application Support/Claude/, "
    "Windows: %APPDATA%\\Claude\\, Linux: ~/.config/Claude/ — then restart Claude Desktop",
}


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--for",
        dest="client",
        choices=sorted(CLIENTS),
        help="also print the MCP configuration for this client (stdout: the JSON alone, so it can be "
        "redirected into the client's file; where it goes is said on stderr)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        ws = memory.workspace
        created = memory.init()
    snippet = mcp_config(ws.root) if args.client else None
    if args.json:
        out: dict[str, Any] = {"workspace": str(ws.root), "created": created}
        if snippet is not None:
            out.update(
                {"client": args.client, "mcp_config": snippet, "command": add_command(ws.root)}
            )
        emit_json(out)
        return 0
    report = err_console if snippet is not None else console  # stdout stays the bare configuration
    report.print(f"workspace [bold]{ws.root}[/]")
    for rel in created:
        report.print(f"  created {rel}")
    if not created:
        report.print("  already initialised")
    if snippet is not None:
        import orjson

        sys.stdout.write(orjson.dumps(snippet, option=orjson.OPT_INDENT_2).decode() + "\n")
        sys.stdout.flush()
        err_console.print(
            CLIENTS[args.client].format(command=add_command(ws.root)), markup=False, soft_wrap=True
        )
    return 0


def server_command(workspace: Path) -> list[str]:
    """The command a client launches: this installation's ``reverie`` by full path (desktop clients
    do not read the shell's PATH), or this interpreter with ``-m reverie`` when no script is
    installed beside it."""
    script = Path(sys.executable).with_name("reverie")
    found = str(script) if script.is_file() else shutil.which("reverie")
    head = [found] if found else [sys.executable, "-m", "reverie"]
    return [*head, "-w", str(workspace), "mcp"]


def mcp_config(workspace: Path) -> dict[str, Any]:
    """The ``mcpServers`` entry every one of these clients reads (stdio transport)."""
    command, *rest = server_command(workspace)
    return {"mcpServers": {"reverie": {"command": command, "args": rest}}}


def add_command(workspace: Path) -> str:
    """Claude Code's one-line alternative (user scope: every project)."""
    import shlex

    return "claude mcp add --scope user reverie -- " + shlex.join(server_command(workspace))
