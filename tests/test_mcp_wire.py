"""What the MCP server answers on the wire.

- Over stdio, a line whose bytes are not UTF-8 gets JSON-RPC's parse error (-32700) — under the
  request's id when the rest of the line names one — and nothing of it is served or stored (the
  SDK's reader would read the byte as U+FFFD and serve the request); the server keeps serving.
- Over stdio, a line the SDK refuses is answered as JSON-RPC 2.0 says: a request whose id MCP
  does not allow (``1.5``, ``null``, ``true``) and a line that is not a request under id null, a
  line that is not JSON as a parse error — while a response is never answered.
- Over HTTP, a request whose id MCP does not allow gets JSON-RPC's invalid-request error (-32600)
  instead of the SDK's 202 and no reply, so does a body that is JSON but no message (the SDK says
  -32602, invalid params), for one workspace and for a root of scopes alike, and the real SDK
  client goes on being served after them.
- When the client closes stdin with calls in flight, every call already received finishes and is
  answered; a write is never reported failed."""

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
from support.mcp_servers import mcp_http_server  # noqa: E402

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


def _piped(ws: Path, lines: list[bytes]) -> tuple[subprocess.CompletedProcess[bytes], list[Any]]:
    """``reverie -w WS mcp`` given ``lines`` on stdin, then its end: the run (exit 0) and the
    replies it wrote."""
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "mcp"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        env=cli_env(),
        cwd=str(ROOT),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done, [json.loads(line) for line in done.stdout.decode().splitlines()]


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
    done, replies = _piped(ws, lines)
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
    with mcp_http_server(["-w", str(ws)]) as url:
        answers, cursor = _wire_and_sdk(url, None)
    _check(answers)
    assert cursor == 1


def test_http_a_root_of_scopes_answers_them_alike(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    token, _ = TokenFile(root).issue(Scope("alice"))
    with mcp_http_server(["--root", str(root.root)]) as url:
        answers, cursor = _wire_and_sdk(url, token)
    _check(answers)
    assert cursor == 1


# -- stdio lines the SDK refuses -------------------------------------------------------------------


def test_stdio_lines_the_sdk_refuses_are_answered_as_json_rpc_says(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    reverie.open(ws).init()
    ping = {"jsonrpc": "2.0", "method": "ping"}
    lines = [
        json.dumps(_INIT),
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
    done, replies = _piped(ws, [line.encode() for line in lines])
    assert [r["id"] for r in replies] == [0] + [None] * 7 + [2], replies
    errors = [r["error"] for r in replies[1:-1]]
    assert [e["code"] for e in errors] == [-32600] * 4 + [-32700, -32600, -32600], errors
    assert "request id 1.5 is not a string or an integer" in errors[0]["message"]
    assert "request id null" in errors[1]["message"]
    assert replies[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert b"Traceback" not in done.stderr
    assert done.stderr.decode().count("(not answered)") == 1, done.stderr.decode()


# -- stdin closed with calls in flight -------------------------------------------------------------


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
