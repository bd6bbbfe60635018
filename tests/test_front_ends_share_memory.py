"""The CLI, the MCP server and the chat commands reach memory through the same ``Memory`` verbs: one
implementation of each. A recording ``Memory`` subclass is registered through the documented hook
(``use_memory_class``), and each front end — the CLI's entry point in process, the MCP server
through the SDK's in-process client, and a ``CommandRouter`` — is asked for the same thing; each
must have called that verb."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import reverie
from reverie.chat.commands import CommandRouter
from reverie.cli import main
from reverie.memory import Memory, use_memory_class

CALLS: list[str] = []


def _verb_name(name: str) -> str:
    """An async twin counts as its verb (``arecall`` is ``recall``)."""
    return name[1:] if name.startswith("a") and callable(getattr(Memory, name[1:], None)) else name


def _recording(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def record(self: Memory, *args: Any, **kwargs: Any) -> Any:
        CALLS.append(_verb_name(name))
        return method(self, *args, **kwargs)

    return record


class Recording(Memory):
    """``Memory`` with every public verb recorded (sync and async twins alike) before it runs."""


for _name, _value in list(vars(Memory).items()):
    if not _name.startswith("_") and callable(_value) and _name not in ("sibling", "close", "init"):
        setattr(Recording, _name, _recording(_name, _value))


@pytest.fixture
def ws(tmp_path) -> Iterator[str]:
    root = str(tmp_path / "ws")
    previous = use_memory_class(Recording)
    try:
        with reverie.open(root) as memory:
            memory.init()
            memory.remember("User: I live in Porto.")
            assert memory.dream().status == "ok"
        yield root
    finally:
        use_memory_class(previous)


def _cli(ws: str, *argv: str) -> None:
    main(["-w", ws, *argv])


def _mcp(ws: str, tool: str, arguments: dict[str, Any]) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK (reverie's mcp extra) is not installed")
    from mcp import Client

    from reverie.mcp import build_server

    async def go() -> None:
        server = build_server(ws)
        try:
            async with Client(server) as client:
                await client.call_tool(tool, arguments)
        finally:
            server.reverie_memory.close()

    asyncio.run(asyncio.wait_for(go(), 60))


def _chat(ws: str, text: str) -> None:
    async def go() -> None:
        router = CommandRouter(reverie.open(ws))
        assert await router.handle(text) is not None
        await router.wait_idle(30)

    asyncio.run(go())


#: verb -> how each front end asks for it (None: that front end has no such command).
CASES: dict[str, tuple[tuple[str, ...] | None, tuple[str, dict[str, Any]] | None, str | None]] = {
    "remember": (("history", "append", "Likes tea"), ("remember", {"text": "Likes tea"}), None),
    "recall": (("search", "Porto"), ("search_memory", {"query": "Porto"}), "/recall Porto"),
    "dream": (("dream",), ("dream", {}), "/dream"),
    "log": (("log",), ("list_versions", {}), "/dream-restore"),
    "show": (("show", "HEAD"), ("show_version", {"sha": "HEAD"}), "/dream-log HEAD"),
    "restore": (
        ("restore", "HEAD"),
        ("restore_version", {"sha": "HEAD", "base": "HEAD"}),  # the base its preview named
        "/dream-restore HEAD",
    ),
    "approve": (("approve",), ("approve_soul_change", {"change": "0" * 64}), "/dream-approve"),
    "reject": (("reject",), ("reject_soul_change", {"change": "0" * 64}), "/dream-reject"),
    "pin": (("pin", "Porto"), None, "/pin Porto"),
    "set_aside": (("requeue",), None, "/requeue"),
    "status": (("status",), ("status", {}), None),
    "why": (("why", "Porto"), None, None),
    "history": (("history", "show"), None, None),
    "gc": (("gc",), None, None),
    "reindex": (("index",), None, None),
    "plan_purge": (("purge", "Porto", "--json"), None, None),
}


def _fill(value: Any, sha: str) -> Any:
    if isinstance(value, str):
        return value.replace("HEAD", sha)
    if isinstance(value, tuple):
        return tuple(_fill(v, sha) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, sha) for k, v in value.items()}
    return value


@pytest.mark.parametrize("verb", list(CASES))
def test_each_front_end_calls_the_same_memory_verb(
    ws: str, verb: str, capfd: pytest.CaptureFixture[str]
) -> None:
    cli, mcp, chat = CASES[verb]
    for front_end, ask in (("cli", cli), ("mcp", mcp), ("chat", chat)):
        if ask is None:
            continue
        with reverie.open(
            ws
        ) as memory:  # what the verb needs: a pending entry for dream, a sha to show
            if verb == "dream":
                memory.remember(f"User: my {front_end} colleague is called Ana.")
            sha = memory.log(limit=1, kind="dream")[0].sha
        CALLS.clear()
        if front_end == "cli":
            _cli(ws, *_fill(ask, sha))
        elif front_end == "mcp":
            tool, arguments = ask
            _mcp(ws, tool, _fill(arguments, sha))
        else:
            _chat(ws, _fill(ask, sha))
        assert verb in CALLS, f"{front_end} did not call Memory.{verb} (it called {CALLS})"
    capfd.readouterr()


def test_the_mcp_prompt_is_memory_context(ws: str) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK (reverie's mcp extra) is not installed")
    from mcp import Client

    from reverie.mcp import build_server

    async def go() -> str:
        server = build_server(ws)
        try:
            async with Client(server) as client:
                prompt = await client.get_prompt("memory_context")
                return str(prompt.messages[0].content.text)
        finally:
            server.reverie_memory.close()

    CALLS.clear()
    text = asyncio.run(asyncio.wait_for(go(), 60))
    assert CALLS == ["context"] and "Porto" in text and text == reverie.open(ws).context()
