"""What the MCP server answers on the wire (adapt5 item 2). Over stdio, a line whose bytes are not
UTF-8 gets JSON-RPC's parse error (-32700) — under the request's id when the rest of the line
names one — and nothing of it is served or stored (the SDK's reader would read the byte as U+FFFD
and serve the request); the server keeps serving. Over HTTP, a request whose id MCP does not allow
(``1.5``, ``null``, ``true``) gets JSON-RPC's invalid-request error (-32600) instead of the SDK's
202 and no reply, so does a body that is JSON but no message (the SDK says -32602, invalid
params), for one workspace and for a root of scopes alike, and the real SDK client goes on being
served after them."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (reverie[mcp]) is not installed")

import httpx2  # noqa: E402  (installed with mcp)
from conftest import ROOT  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from support.cli import cli_env  # noqa: E402
from support.mcp_http import free_port, start_mcp_http  # noqa: E402

import reverie  # noqa: E402
from reverie.storage.access import TokenFile  # noqa: E402
from reverie.storage.scopes import Scope, ScopeRoot  # noqa: E402

_INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "wire", "version": "1"},
    },
}


def test_stdio_a_line_that_is_not_utf8_is_a_parse_error_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    reverie.open(ws).init()
    remember = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": '
    remember += b'"remember", "arguments": {"text": "I live in M\xfcnchen"}}}'
    lines = [
        json.dumps(_INIT).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
        remember,  # Latin-1: read as U+FFFD, "M\ufffdnchen" would be remembered
        b'{"jsonrpc": "2.0", "id": "\xff", "method": "ping"}',  # the id itself is not UTF-8
        b"\xff\xfe{}",
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"}).encode(),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "mcp"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        env=cli_env(),
        cwd=str(ROOT),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["id"] for r in replies] == [0, 3, None, None, 4], replies
    errors = [r["error"] for r in replies[1:4]]
    assert [e["code"] for e in errors] == [-32700] * 3, errors
    assert "not UTF-8 (byte 0xfc at offset" in errors[0]["message"]
    assert replies[-1] == {"jsonrpc": "2.0", "id": 4, "result": {}}
    history = ws / "memory" / "history.jsonl"
    assert not history.exists() or "nchen" not in history.read_text(encoding="utf-8")
    assert b"Traceback" not in done.stderr


def _wire_and_sdk(url: str, token: str | None) -> tuple[list[tuple[int, Any]], int]:
    """POST the bodies the SDK would leave unanswered or answer wrongly, on an initialized session;
    then the real SDK client's ``remember`` on the same server. Returns each body's (status, JSON)
    and the cursor ``remember`` got."""
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **auth,
    }
    answers = []
    with httpx2.Client(timeout=30) as http:
        first = http.post(url, headers=headers, json=_INIT)
        assert first.status_code == 200, first.text
        session = first.headers.get("mcp-session-id")
        headers = {**headers, "mcp-protocol-version": "2025-06-18"}
        if session:
            headers["mcp-session-id"] = session
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(url, headers=headers, json=note).status_code == 202
        for body in (
            b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}',
            b'{"jsonrpc": "2.0", "id": null, "method": "ping"}',
            b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
            b"[1, 2]",
            b'{"jsonrpc": "2.0", "id": 9, "method": 5}',
            b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}',
        ):
            r = http.post(url, headers=headers, content=body)
            answers.append((r.status_code, r.json() if r.content else None))

    async def sdk() -> int:
        async with httpx2.AsyncClient(headers=auth, timeout=60) as client:
            async with Client(streamable_http_client(url, http_client=client)) as c:
                r = await c.call_tool("remember", {"text": "User: I live in Lisbon"})
                assert not r.is_error, r.content
                return int(r.structured_content["cursor"])

    return answers, asyncio.run(asyncio.wait_for(sdk(), 120))


def _check(answers: list[tuple[int, Any]]) -> None:
    *refused, notification = answers
    assert [status for status, _ in refused] == [400] * 5, answers
    assert [body["error"]["code"] for _, body in refused] == [-32600] * 5, answers
    assert [body["id"] for _, body in refused] == [None, None, None, None, 9], answers
    said = refused[0][1]["error"]["message"]
    assert "request id 1.5 is not a string or an integer" in said, said
    assert notification == (202, None)  # a notification is still only accepted


def test_http_requests_the_sdk_leaves_unanswered_get_invalid_request(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    reverie.open(ws).init()
    port = free_port()
    proc = start_mcp_http(["-w", str(ws)], port)
    try:
        answers, cursor = _wire_and_sdk(f"http://127.0.0.1:{port}/mcp", None)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    _check(answers)
    assert cursor == 1


def test_http_a_root_of_scopes_answers_them_alike(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    token, _ = TokenFile(root).issue(Scope("alice"))
    port = free_port()
    proc = start_mcp_http(["--root", str(root.root)], port)
    try:
        answers, cursor = _wire_and_sdk(f"http://127.0.0.1:{port}/mcp", token)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    _check(answers)
    assert cursor == 1
