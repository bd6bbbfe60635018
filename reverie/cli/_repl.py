"""The ``reverie chat`` loop: stdin lines in, Markdown replies out (imported only when chat runs)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading

from ..errors import ReverieError
from ._common import console, err_console, workspace_of
from ._render import markdown

__all__ = ["repl"]


def _stdin_lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str]:
    """Lines from stdin on a daemon thread, so Ctrl-C never waits for a blocked read; "" marks the end."""
    queue: asyncio.Queue[str] = asyncio.Queue()

    def pump() -> None:
        for line in iter(sys.stdin.readline, ""):
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, "")

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return queue


async def repl(args: argparse.Namespace) -> int:
    from ..chat import OFFLINE_NOTICE, ChatAgent
    from ..runtime import Runtime

    async def show(text: str) -> None:
        console.print(markdown(text), soft_wrap=False)

    agent = ChatAgent(Runtime(workspace_of(args)), session_key=args.session, notify=show)
    agent.runtime.workspace.init()  # a first chat starts from the starter memory files
    console.print(f"[dim]reverie chat · {agent.runtime.workspace.root} · /help for commands, /exit or Ctrl-D to leave[/]")
    if agent.offline:
        console.print(f"[yellow]{OFFLINE_NOTICE}[/]")
    if not args.no_schedule:
        await agent.start_schedule()
    lines, interactive = _stdin_lines(asyncio.get_running_loop()), sys.stdin.isatty()
    try:
        while True:
            if interactive:
                console.print("[bold]> [/]", end="")
            line = await lines.get()
            if not line or line.strip() in ("/exit", "/quit"):
                break
            if line.strip():
                try:
                    await show(await agent.respond(line.strip()))
                except ReverieError as exc:  # a failed model call ends the turn, not the conversation
                    err_console.print(f"[red]error:[/] {exc}")
    finally:
        await agent.close()
    return 0
