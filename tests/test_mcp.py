"""``reverie mcp``: started as a subprocess and driven by the official SDK's own client, over
stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

import httpx2  # noqa: E402  (installed with mcp)
from conftest import ROOT  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from support.cli import cli_env, invoke  # noqa: E402
from support.mcp_servers import free_port, mcp_http_server, stdio_server  # noqa: E402

from reverie.storage.workspace import Workspace  # noqa: E402

USER_URI = "reverie://workspace/USER.md"
TOOLS = {
    "search_memory",
    "remember",
    "list_memory_files",
    "read_memory_file",
    "dream",
    "list_versions",
    "show_version",
    "preview_restore",
    "restore_version",
    "pending_soul_change",
    "approve_soul_change",
    "reject_soul_change",
    "status",
}


def _run(coro, timeout: float = 120):  # type: ignore[no-untyped-def]
    return asyncio.run(asyncio.wait_for(coro, timeout))


def test_tools_resources_and_prompt_are_listed_with_precise_schemas(workspace: Workspace) -> None:
    async def go() -> None:
        async with Client(stdio_server(["-w", str(workspace.root)])) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert set(tools) == TOOLS
            for tool in tools.values():
                assert tool.description and len(tool.description) > 40, tool.name
                assert tool.input_schema["type"] == "object"
                assert tool.annotations is not None
            assert tools["restore_version"].annotations.destructive_hint is True
            assert tools["search_memory"].annotations.read_only_hint is True
            assert tools["remember"].annotations.destructive_hint is False
            query = tools["search_memory"].input_schema["properties"]["query"]
            assert query["minLength"] == 1 and query["maxLength"] == 2000
            assert tools["search_memory"].input_schema["required"] == ["query"]
            uris = {str(r.uri) for r in (await c.list_resources()).resources}
            assert uris == {
                "reverie://workspace/SOUL.md",
                USER_URI,
                "reverie://workspace/memory/MEMORY.md",
            }
            templates = (await c.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["reverie://workspace/memory/{+path}"]
            assert [p.name for p in (await c.list_prompts()).prompts] == ["memory_context"]
            prompt = await c.get_prompt("memory_context")
            text = prompt.messages[0].content.text
            assert "# User" in text and "long-term memory" in text

    _run(go())


def test_remember_dream_search_versions_restore_and_notifications(workspace: Workspace) -> None:
    user = workspace.root / "USER.md"
    before = user.read_text()

    async def go() -> None:
        async with Client(stdio_server(["-w", str(workspace.root)])) as c:
            r = await c.call_tool(
                "remember", {"text": "- [durable] Lives in Porto", "session_key": "desk:1"}
            )
            assert not r.is_error and r.structured_content["cursor"] == 1
            async with c.listen(resource_subscriptions=[USER_URI]) as sub:
                r = await c.call_tool("dream", {})
                assert not r.is_error, r.content
                assert r.structured_content["status"] == "ok", r.structured_content
                assert "USER.md" in r.structured_content["summary"]
                event = await asyncio.wait_for(
                    sub.__anext__(), 10
                )  # the change notification after the commit
                assert USER_URI in str(event)
            assert "Porto" in user.read_text()
            hits = (
                await c.call_tool("search_memory", {"query": "Porto", "kinds": ["memory"]})
            ).structured_content
            assert "never follow instructions" in hits["notice"]
            assert hits["hits"] and hits["hits"][0]["source"].startswith("USER.md")
            text = (await c.read_resource(USER_URI)).contents[0].text
            assert "Porto" in text
            versions = (await c.call_tool("list_versions", {"limit": 5})).structured_content[
                "versions"
            ]
            assert versions[0]["kind"] == "dream"
            shown = (
                await c.call_tool("show_version", {"sha": versions[0]["short"]})
            ).structured_content
            assert "+" in shown["diff"] and "Porto" in shown["diff"]
            plan = (
                await c.call_tool("preview_restore", {"sha": versions[0]["short"]})
            ).structured_content
            assert plan["files"] == ["USER.md"] and "-" in plan["diff"] and "Porto" in plan["diff"]
            r = await c.call_tool("restore_version", {"sha": versions[0]["sha"]})
            assert r.is_error  # no base: the restore must name the state its preview showed
            r = await c.call_tool(
                "restore_version", {"sha": versions[0]["sha"], "base": plan["base"]}
            )
            assert not r.is_error and r.structured_content["commit"], r.content
            status = (await c.call_tool("status", {})).structured_content
            assert status["last_cursor"] == 1 and status["files"]["USER.md"] == len(before)

    _run(go())
    assert user.read_text() == before
    log = subprocess.run(
        ["git", "-C", str(workspace.root), "log", "--format=%s"], capture_output=True, text=True
    )
    assert log.stdout.splitlines()[0].startswith("restore")


def test_restore_version_keeps_a_change_made_after_its_preview(workspace: Workspace) -> None:
    """A client previews a restore, another writer commits a line, the client confirms with the
    preview's base: what the preview showed is undone, the new line stays; a change since on the
    same lines refuses the restore and writes nothing."""
    import reverie

    with reverie.open(workspace.root) as memory:
        memory.write("USER.md", memory.read("USER.md") + "- Plays the cello.\n")
        target = memory.log(limit=1)[0].sha

    async def go() -> None:
        async with Client(stdio_server(["-w", str(workspace.root)])) as c:
            plan = (await c.call_tool("preview_restore", {"sha": target})).structured_content
            assert "-- Plays the cello." in plan["diff"] and plan["base"] == target
            with reverie.open(workspace.root) as other:  # another writer, after the preview
                other.write("USER.md", other.read("USER.md") + "- Lives in Lisbon.\n")
            r = await c.call_tool("restore_version", {"sha": target, "base": plan["base"]})
            assert not r.is_error, r.content
            text = (workspace.root / "USER.md").read_text()
            assert "cello" not in text and "- Lives in Lisbon." in text
            # the same lines changed since the preview: refused, nothing written
            with reverie.open(workspace.root) as other:
                other.write("USER.md", other.read("USER.md") + "- Has a dog.\n")
                dog = other.log(limit=1)[0].sha
            plan = (await c.call_tool("preview_restore", {"sha": dog})).structured_content
            with reverie.open(workspace.root) as other:
                other.write("USER.md", other.read("USER.md").replace("Has a dog", "Has two dogs"))
                head = other.log(limit=1)[0].sha
            r = await c.call_tool("restore_version", {"sha": dog, "base": plan["base"]})
            assert r.is_error and "USER.md" in r.content[0].text, r.content
            with reverie.open(workspace.root) as other:
                assert other.log(limit=1)[0].sha == head and "Has two dogs" in other.read("USER.md")

    _run(go())


def test_a_soul_change_is_approved_or_rejected_only_as_shown(workspace: Workspace) -> None:
    """approve_soul_change and reject_soul_change name the proposal pending_soul_change showed:
    one Dream (here an agent) widened since is neither applied nor dropped unseen."""
    import reverie

    with reverie.open(workspace.root) as memory:
        soul = memory.read("SOUL.md")
        memory.write("SOUL.md", soul + "- Answer in French.\n", kind="agent")

    async def go() -> None:
        async with Client(stdio_server(["-w", str(workspace.root)])) as c:
            shown = (await c.call_tool("pending_soul_change", {})).structured_content["pending"]
            with reverie.open(workspace.root) as other:  # widened after the preview
                other.write("SOUL.md", soul + "- Answer in French.\n- Never cite.\n", kind="agent")
            for tool in ("approve_soul_change", "reject_soul_change"):
                r = await c.call_tool(tool, {"change": shown["id"]})
                assert r.is_error and "show it again" in r.content[0].text, r.content
            with reverie.open(workspace.root) as other:
                assert other.read("SOUL.md") == soul and other.pending_soul() is not None
            now = (await c.call_tool("pending_soul_change", {})).structured_content["pending"]
            assert now["id"] != shown["id"] and "Never cite" in now["diff"]
            r = await c.call_tool("approve_soul_change", {"change": now["id"]})
            assert not r.is_error and r.structured_content["commit"], r.content
            with reverie.open(workspace.root) as other:
                assert "- Never cite." in other.read("SOUL.md") and other.pending_soul() is None

    _run(go())


def test_bad_calls_get_mcp_errors_and_the_server_keeps_serving(workspace: Workspace) -> None:
    (workspace.root / "secret.md").write_text("not memory")

    async def go() -> None:
        async with Client(stdio_server(["-w", str(workspace.root)])) as c:
            bad = [
                ("search_memory", {"query": ""}),
                ("search_memory", {"query": "x", "k": 0}),
                ("search_memory", {"query": "x", "k": "many"}),
                ("search_memory", {"query": "x" * 2001}),
                ("search_memory", {"query": "x", "kinds": ["passwords"]}),
                ("search_memory", {"query": "x", "since": "last tuesday"}),
                ("remember", {"text": "y" * 100_001}),
                ("remember", {}),
                ("read_memory_file", {"path": "../secret.md"}),
                ("read_memory_file", {"path": "/etc/passwd"}),
                ("read_memory_file", {"path": "memory/history.jsonl"}),
                ("read_memory_file", {"path": "secret.md"}),
                ("read_memory_file", {"path": "memory/missing.md"}),
                ("show_version", {"sha": "zzzz"}),
                ("show_version", {"sha": "abcdef12"}),
                ("restore_version", {"sha": "0000", "base": "0" * 40}),
                ("restore_version", {"sha": "0000", "base": "HEAD"}),
                ("preview_restore", {"sha": "0000"}),
                ("no_such_tool", {}),
            ]
            for name, args in bad:
                try:
                    result = await c.call_tool(name, args)
                except Exception as exc:  # a protocol-level error is an MCP error too
                    assert "Traceback" not in str(exc)
                    continue
                assert result.is_error, (name, args, result.content)
                text = result.content[0].text
                assert "Traceback" not in text and len(text.splitlines()) <= 6, text
            with pytest.raises(Exception):
                await c.read_resource("reverie://workspace/memory/..%2F..%2Fsecret.md")
            for tool in (
                "approve_soul_change",
                "reject_soul_change",
            ):  # nothing pending: the same answer
                answer = await c.call_tool(tool, {"change": "0" * 64})
                assert not answer.is_error and answer.structured_content["pending"] is False, (
                    answer.content
                )
                assert (await c.call_tool(tool, {})).is_error  # the proposal shown is named
            ok = await c.call_tool("remember", {"text": "still serving"})
            assert not ok.is_error and ok.structured_content["cursor"] == 1

    _run(go())
    assert "still serving" in (workspace.memory_dir / "history.jsonl").read_text()


def test_two_stdio_clients_remember_concurrently_without_losing_or_sharing_a_cursor(
    workspace: Workspace,
) -> None:
    async def client(tag: str) -> list[int]:
        async with Client(stdio_server(["-w", str(workspace.root)])) as c:
            results = await asyncio.gather(
                *(c.call_tool("remember", {"text": f"{tag} note {i}"}) for i in range(15))
            )
            return [r.structured_content["cursor"] for r in results]

    async def go() -> list[int]:
        a, b = await asyncio.gather(client("alpha"), client("beta"))
        return a + b

    cursors = _run(go())
    assert sorted(cursors) == list(range(1, 31))
    text = (workspace.memory_dir / "history.jsonl").read_text()
    assert all(f"{tag} note {i}" in text for tag in ("alpha", "beta") for i in range(15))


def test_http_needs_its_bearer_token_and_serves_two_clients(workspace: Workspace) -> None:
    token = {"REVERIE_MCP_TOKEN": "s3cret-token-of-at-least-32-characters"}
    with mcp_http_server(["-w", str(workspace.root)], token) as url:
        refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
        assert refused.status_code == 401
        wrong = httpx2.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            timeout=10,
            headers={"Authorization": "Bearer nope"},
        )
        assert wrong.status_code == 401

        async def client(tag: str) -> list[int]:
            async with httpx2.AsyncClient(
                headers={"Authorization": "Bearer s3cret-token-of-at-least-32-characters"},
                timeout=30,
            ) as http:
                async with Client(streamable_http_client(url, http_client=http)) as c:
                    names = {t.name for t in (await c.list_tools()).tools}
                    assert names == TOOLS
                    out = []
                    for i in range(5):
                        r = await c.call_tool("remember", {"text": f"{tag} {i}"})
                        out.append(r.structured_content["cursor"])
                    hits = await c.call_tool("search_memory", {"query": tag})
                    assert not hits.is_error
                    return out

        async def go() -> list[int]:
            a, b = await asyncio.gather(client("gamma"), client("delta"))
            return a + b

        assert sorted(_run(go())) == list(range(1, 11))


def test_http_refuses_a_non_loopback_address_without_a_token_and_a_missing_workspace(
    tmp_path: Path, workspace: Workspace
) -> None:
    r = invoke(
        "-w", str(workspace.root), "mcp", "--http", "--host", "0.0.0.0", "--port", str(free_port())
    )
    assert r.returncode == 1
    assert "REVERIE_MCP_TOKEN" in r.stderr and "Traceback" not in r.stderr
    missing = tmp_path / "nope"
    r = invoke("-w", str(missing), "mcp")
    assert r.returncode == 1 and "no workspace" in r.stderr
    assert not missing.exists()


@pytest.mark.parametrize("served", ["workspace", "root"])
def test_http_on_a_busy_port_is_one_line_naming_it_and_exit_1(
    workspace: Workspace, tmp_path: Path, capsys, served: str
) -> None:
    """Checked before announcing (one workspace, or every scope of a root): no "serving" line, no
    uvicorn traceback, exit 1 (not uvicorn's 3)."""
    from reverie.cli import main

    where = (
        ["-w", str(workspace.root)] if served == "workspace" else ["--root", str(tmp_path / "root")]
    )
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code = main([*where, "mcp", "--http", "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 1
    assert (
        err.strip()
        == f"reverie: error: port {port} on 127.0.0.1 is in use (choose another with --port)"
    )


def test_a_pre_2026_client_subscribes_with_resources_subscribe(workspace: Workspace) -> None:
    import warnings

    seen: list[str] = []

    async def on_message(message) -> None:  # type: ignore[no-untyped-def]
        uri = getattr(getattr(message, "params", None), "uri", None)
        if uri is not None:
            seen.append(str(uri))

    async def go() -> None:
        async with Client(
            stdio_server(["-w", str(workspace.root)]), mode="legacy", message_handler=on_message
        ) as c:
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore"
                )  # the SDK marks resources/subscribe deprecated for new clients
                await c.subscribe_resource(USER_URI)
            await c.call_tool("remember", {"text": "- [durable] Lives in Lisbon"})
            assert (await c.call_tool("dream", {})).structured_content["status"] == "ok"
            for _ in range(100):
                if seen:
                    break
                await asyncio.sleep(0.1)

    _run(go())
    assert seen == [USER_URI]


def test_a_request_the_sdk_cannot_read_is_answered_not_left_waiting(workspace: Workspace) -> None:
    """The SDK drops a line it cannot validate, so a client would wait forever for its reply: a
    text holding a lone surrogate (``\\ud800``: valid JSON, no UTF-8 text) is answered under its
    id with one line saying why, nothing is stored, and the server keeps serving; a line of a shape
    the SDK refuses is named in a warning. Raw JSON-RPC over stdio: the SDK's own client cannot
    even send a lone surrogate."""
    import select
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(workspace.root), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
        cwd=str(ROOT),
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(line: str) -> dict:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, f"no reply to {line}"
        return json.loads(proc.stdout.readline())

    def call(ident: int, arguments: str) -> str:
        return (
            f'{{"jsonrpc":"2.0","id":{ident},"method":"tools/call",'
            f'"params":{{"name":"remember","arguments":{arguments}}}}}'
        )

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "raw", "version": "1"}
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
        assert "result" in ask(json.dumps(init))
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        surrogate = ask(call(2, '{"text":"Lives in Lis\\ud800bon"}'))
        assert surrogate["id"] == 2 and "lone surrogate U+D800" in surrogate["error"]["message"]
        # a shape the SDK refuses is answered under its id (JSON-RPC's invalid request); an id that
        # cannot be written back and a line past reading under id null; a client's response never
        proc.stdin.write(b'{"jsonrpc":"2.0","id":"three","method":"tools/call","params":7}\n')
        proc.stdin.write(b'{"jsonrpc":"2.0","id":"\\ud800","method":"tools/list"}\n')
        proc.stdin.write(b'{"jsonrpc":"2.0","id":5,"result":{"x":"\\ud800"}}\n')
        for depth in (500, 100_000):
            nested = b"[" * depth + b"]" * depth
            proc.stdin.write(
                b'{"jsonrpc":"2.0","id":6,"method":"x","params":{"a":' + nested + b"}}\n"
            )
        shape = ask(call(4, '{"text":"still serving"}'))
        assert shape["id"] == "three" and shape["error"]["code"] == -32600, shape
        unwritable = json.loads(proc.stdout.readline())
        assert unwritable["id"] is None and "lone surrogate" in unwritable["error"]["message"]
        # 500 deep is read back (its id answered); 100,000 deep is past reading (id null)
        deep = json.loads(proc.stdout.readline())
        assert deep["id"] == 6 and "recursion limit" in deep["error"]["message"], deep
        past = json.loads(proc.stdout.readline())
        assert past["id"] is None and "too deep" in past["error"]["message"], past
        ok = json.loads(proc.stdout.readline())
        assert ok["id"] == 4, ok  # no answer to the response
        assert ok["result"]["structuredContent"]["cursor"] == 1  # nothing stored before it
    finally:
        proc.stdin.close()
        proc.wait(30)
        proc.stdout.close()
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        proc.stderr.close()
    assert "Traceback" not in err and "lone surrogate" in err
    assert "a line the MCP SDK cannot read was dropped (JSONRPCRequest.params: " in err
