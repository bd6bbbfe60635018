"""``reverie mcp --http --root``: every bearer token bound to one scope (reverie.storage.access),
requests routed by token (reverie.mcp.routing), and no request reaching another scope's memory. A
real server process on 127.0.0.1 and the MCP SDK's own client. A client of a scope never sees the
server's paths, in an error or in a tool's result (the SDK's in-process client)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

import httpx2  # noqa: E402  (installed with mcp)
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from support.mcp_servers import free_port, mcp_http_server, stdio_server  # noqa: E402

import reverie  # noqa: E402
from reverie.cli import main  # noqa: E402
from reverie.errors import ConfigError  # noqa: E402
from reverie.operations.forget import forget_user  # noqa: E402
from reverie.storage.access import MIN_TOKEN_CHARS, TokenFile  # noqa: E402
from reverie.storage.scopes import Scope, ScopeRoot  # noqa: E402


def test_tokens_are_bound_to_one_scope_and_stored_hashed(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    tokens = TokenFile(root)
    alice, record = tokens.issue(Scope("alice", "bot"), label="support bot")
    bob, _ = tokens.issue(Scope("bob"))
    assert len(alice) >= MIN_TOKEN_CHARS and alice != bob
    assert tokens.lookup(alice) == Scope("alice", "bot") and tokens.lookup(bob) == Scope("bob")
    assert tokens.lookup(alice[:-1] + ("x" if alice[-1] != "x" else "y")) is None
    assert tokens.lookup("") is None and tokens.lookup("short") is None
    stored = tokens.path.read_text()
    assert alice not in stored and bob not in stored and record.sha256 in stored
    assert oct(tokens.path.stat().st_mode & 0o777) == "0o600"
    assert [r.id for r in tokens.revoke(record.id)] == [record.id]
    assert tokens.lookup(alice) is None and tokens.lookup(bob) == Scope("bob")
    assert tokens.revoke("nope") == []


@pytest.mark.parametrize("bad", ["x" * (MIN_TOKEN_CHARS - 1), "a" * 31 + " b", "é" * 40, ""])
def test_a_short_or_odd_token_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError):
        TokenFile(tmp_path).issue(Scope("alice"), token=bad)


def test_forget_user_revokes_the_users_tokens(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    tokens = TokenFile(root)
    alice, _ = tokens.issue(Scope("alice"))
    bob, _ = tokens.issue(Scope("bob"))
    assert forget_user(root, "alice").tokens == 1
    assert tokens.lookup(alice) is None and tokens.lookup(bob) == Scope("bob")


def test_token_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--root", str(tmp_path / "root")]
    assert (
        main([*base, "--user", "alice", "mcp", "token", "issue", "--label", "phone", "--json"]) == 0
    )
    issued = json.loads(capsys.readouterr().out)
    assert len(issued["token"]) >= MIN_TOKEN_CHARS and issued["user"] == "alice"
    assert not ScopeRoot(tmp_path / "root").exists(Scope("alice"))  # a token creates no workspace
    assert main([*base, "mcp", "token", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(t["id"], t["label"]) for t in listed] == [(issued["id"], "phone")]
    assert issued["token"] not in json.dumps(listed)
    assert main([*base, "mcp", "token", "issue"]) == 1
    assert "--user" in capsys.readouterr().err
    assert main([*base, "mcp", "token", "revoke", issued["id"]]) == 0
    assert main([*base, "mcp", "token", "revoke", issued["id"]]) == 1
    assert main(["-w", str(tmp_path / "ws"), "mcp", "token", "list"]) == 1


def test_each_token_reaches_only_its_own_scope(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    tokens = TokenFile(root)
    alice, _ = tokens.issue(Scope("alice"))
    bob, _ = tokens.issue(Scope("bob", "helper"))
    revoked, revoked_record = tokens.issue(Scope("carol"))

    async def session(token: str, calls: list[tuple[str, dict]]) -> list[dict]:
        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=60
        ) as http:
            async with Client(streamable_http_client(url, http_client=http)) as c:
                out = []
                for name, arguments in calls:
                    result = await c.call_tool(name, arguments)
                    assert not result.is_error, result
                    out.append(result.structured_content)
                return out

    with mcp_http_server(["--root", str(root.root)]) as url:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx2.post(url, json=ping, timeout=10).status_code == 401
        for wrong in ("nope", alice[:-2], alice + "x", f"{alice} {bob}"):
            assert (
                httpx2.post(
                    url, json=ping, timeout=10, headers={"Authorization": f"Bearer {wrong}"}
                ).status_code
                == 401
            )

        async def go() -> None:
            before = await session(bob, [("search_memory", {"query": "Lisbon"})])
            assert before[0]["hits"] == []  # a scope never written reads empty
            assert not root.exists(Scope("bob", "helper"))
            await asyncio.gather(
                session(
                    alice, [("remember", {"text": "Alice moved to Lisbon, alice-only secret"})]
                ),
                session(bob, [("remember", {"text": "Bob keeps bees in Ghent"})]),
            )
            seen_by_bob = await session(
                bob,
                [
                    ("search_memory", {"query": "Lisbon secret"}),
                    ("search_memory", {"query": "bees"}),
                ],
            )
            assert seen_by_bob[0]["hits"] == [] and seen_by_bob[1]["hits"]
            seen_by_alice = await session(
                alice,
                [
                    ("search_memory", {"query": "bees Ghent"}),
                    ("search_memory", {"query": "Lisbon"}),
                ],
            )
            assert seen_by_alice[0]["hits"] == [] and seen_by_alice[1]["hits"]
            await session(revoked, [("status", {})])  # valid until revoked ...
            tokens.revoke(revoked_record.id)
            with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK wraps the 401 in its own error
                await session(revoked, [("status", {})])

        asyncio.run(asyncio.wait_for(go(), 120))
    alice_files = b"".join(
        p.read_bytes() for p in root.path(Scope("alice")).rglob("*") if p.is_file()
    )
    bob_files = b"".join(
        p.read_bytes() for p in root.path(Scope("bob", "helper")).rglob("*") if p.is_file()
    )
    assert b"alice-only secret" in alice_files and b"alice-only secret" not in bob_files
    assert b"bees" in bob_files and b"bees" not in alice_files


def test_a_short_single_workspace_token_is_refused(tmp_path: Path) -> None:
    from support.cli import invoke

    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    r = invoke(
        "-w",
        str(ws),
        "mcp",
        "--http",
        "--port",
        str(free_port()),
        env={"REVERIE_MCP_TOKEN": "s3cret"},
    )
    assert r.returncode == 1 and f"at least {MIN_TOKEN_CHARS} characters" in r.stderr
    r = invoke("--root", str(tmp_path / "root"), "mcp")
    assert r.returncode == 1 and "--http" in r.stderr


def test_a_scope_over_stdio_is_created_by_its_first_remember(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    params = stdio_server(["--root", str(root.root), "--user", "dana"])

    async def go() -> None:
        async with Client(params) as c:
            empty = await c.call_tool("search_memory", {"query": "violin"})
            assert not empty.is_error and empty.structured_content["hits"] == []
            assert not root.path(Scope("dana")).exists()
            assert not (await c.call_tool("remember", {"text": "Dana plays the violin"})).is_error
            found = await c.call_tool("search_memory", {"query": "violin"})
            assert found.structured_content["hits"]

    asyncio.run(asyncio.wait_for(go(), 120))
    assert root.exists(Scope("dana")) and root.due_names() == [Scope("dana").name]


# -- a client of a scope never sees the server's paths ---------------------------------------------


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


def test_a_scope_client_never_sees_the_servers_paths(tmp_path: Path) -> None:
    """Serving a root of scopes (as ``mcp --http --root`` does, one server per token's scope), an
    error names "the workspace", never the absolute path or another user's digest."""
    from reverie.mcp.server import build_server

    root = tmp_path / "root"
    for user in ("bob", "eve"):
        with reverie.open(root=root, user=user) as memory:
            memory.remember(f"User: {user} lives in Town{user}")
    with reverie.open(root=root, user="bob") as bob:
        bob_ws = bob.workspace.root
    eve = reverie.open(root=root, user="eve")
    eve_ws = eve.workspace.root
    eve_ws.rename(eve_ws.with_name("workspace.old"))
    eve_ws.symlink_to(bob_ws)

    async def go() -> list[str]:
        async with Client(build_server(eve)) as c:
            out = []
            for tool, args in (
                ("search_memory", {"query": "lives Town"}),
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
    # swapped for a link after it was opened: every verb says so (opened again, the scope's
    # workspace is refused as a symbolic link: test_scopes_links)
    assert all("was moved or deleted after it was opened" in text for text in said), said
    for text in said:
        assert str(tmp_path) not in text and "/users/" not in text, text
