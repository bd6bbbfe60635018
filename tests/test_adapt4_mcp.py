"""The MCP server's answers (hostile report, adapt4 item 5): a client of a root of scopes never
sees a server path in a tool's *result* (``status`` named the workspace's absolute path), and a
stdio line the SDK refuses is answered as JSON-RPC 2.0 says — a request whose id MCP does not
allow (``1.5``, ``null``, ``true``) and a line that is not a request under id null, a line that is
not JSON as a parse error — while a response is never answered."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (reverie[mcp]) is not installed")

from conftest import ROOT  # noqa: E402
from mcp import Client  # noqa: E402
from support.cli import cli_env  # noqa: E402

import reverie  # noqa: E402


def test_a_scope_clients_tool_results_hold_no_server_path(tmp_path: Path) -> None:
    """``status`` (and every other tool's result) over a root of scopes says "the workspace" where
    the server's path would be; the same workspace served plainly keeps its path (its client runs
    beside it)."""
    from reverie.mcp.server import build_server

    root = tmp_path / "root"
    with reverie.open(root=root, user="bob") as memory:
        memory.remember("User: bob lives in Bergen")
        plain_root = memory.workspace.root
    bob = reverie.open(root=root, user="bob")

    async def go(server_memory: reverie.Memory) -> list[str]:
        async with Client(build_server(server_memory)) as c:
            said = []
            for tool, args in (
                ("status", {}),
                ("list_memory_files", {}),
                ("search_memory", {"query": "Bergen"}),
            ):
                r = await c.call_tool(tool, args)
                assert not r.is_error, r.content
                said.append(json.dumps(r.structured_content))
            return said

    try:
        scoped = asyncio.run(asyncio.wait_for(go(bob), 60))
    finally:
        bob.close()
    for text in scoped:
        assert str(tmp_path) not in text, text
    assert '"workspace": "the workspace"' in scoped[0]
    plain = asyncio.run(asyncio.wait_for(go(reverie.open(plain_root)), 60))
    assert str(plain_root) in plain[0]


def test_stdio_lines_the_sdk_refuses_are_answered_as_json_rpc_says(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    reverie.open(ws).init()
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "pipe", "version": "1"},
        },
    }
    ping = {"jsonrpc": "2.0", "method": "ping"}
    lines = [
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({**ping, "id": 1.5}),
        json.dumps({**ping, "id": None}),
        json.dumps({**ping, "id": True}),
        '{"jsonrpc": "2.0", "method": "ping", "\\u0069d": {"a": 1}}',  # "id", escaped
        '{"jsonrpc": "2.0", "id": 7, "method": ',  # not JSON
        json.dumps([1, 2]),
        json.dumps({"jsonrpc": "2.0", "method": 5}),  # JSON-RPC: an invalid request
        json.dumps({"jsonrpc": "2.0", "id": 9, "result": 5, "error": 1}),  # a broken response
        json.dumps({**ping, "id": 2}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "mcp"],
        input="\n".join(lines).encode() + b"\n",
        capture_output=True,
        env=cli_env(),
        cwd=str(ROOT),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["id"] for r in replies] == [0] + [None] * 7 + [2], replies
    errors = [r["error"] for r in replies[1:-1]]
    assert [e["code"] for e in errors] == [-32600] * 4 + [-32700, -32600, -32600], errors
    assert "request id 1.5 is not a string or an integer" in errors[0]["message"]
    assert "request id null" in errors[1]["message"]
    assert replies[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert b"Traceback" not in done.stderr
    assert done.stderr.decode().count("(not answered)") == 1, done.stderr.decode()
