"""The MCP server over stdio when the client closes stdin with calls in flight (hostile report F6):
every call already received finishes and is answered; a write is never reported failed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (reverie[mcp]) is not installed")

from conftest import ROOT  # noqa: E402
from support.cli import cli_env  # noqa: E402

import reverie  # noqa: E402


def _line(ident: int | None, method: str, params: dict[str, object]) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return json.dumps(message).encode() + b"\n"


def test_stdin_closed_with_calls_in_flight_finishes_and_answers_them(tmp_path: Path) -> None:
    """A client writes its calls and closes stdin at once (``printf ... | reverie mcp``): every
    remember is stored once and answered with its cursor; none is dropped or said to fail."""
    ws = tmp_path / "ws"
    reverie.open(ws).init()
    calls = 12
    lines = [
        _line(
            0,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "pipe", "version": "1"},
            },
        ),
        _line(None, "notifications/initialized", {}),
    ]
    lines += [
        _line(
            n,
            "tools/call",
            {"name": "remember", "arguments": {"text": f"User: fact number {n} about Bergen"}},
        )
        for n in range(1, calls + 1)
    ]
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "mcp"],
        input=b"".join(lines),
        capture_output=True,
        env=cli_env(),
        cwd=str(ROOT),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = {m["id"]: m for m in map(json.loads, done.stdout.decode().splitlines())}
    assert sorted(replies) == list(range(calls + 1)), replies
    for n in range(1, calls + 1):
        assert "error" not in replies[n] and not replies[n]["result"]["isError"], replies[n]
    with reverie.open(ws) as memory:
        texts = [e.content for e in memory.history()]
    assert sorted(texts) == sorted(f"User: fact number {n} about Bergen" for n in range(1, 13))
    assert b"Traceback" not in done.stderr
