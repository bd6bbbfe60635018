"""The ``reverie chat`` loop (imported only when chat runs).

At a terminal (stdin and stdout both ttys) the prompt is prompt_toolkit's: line editing, the Up/Down
arrows over an input history persisted per workspace (``_chat_history``), Ctrl-C at the prompt
clears the line, Ctrl-D on an empty line leaves. A turn runs as its own task and Ctrl-C (SIGINT: the
terminal is not in raw mode during a turn) cancels it: the user's message stays in the session
(``ChatAgent`` writes it first), nothing is left half-done. While a model call runs past half a
second a status line names the model and the time waited; notices from background work (a scheduled
Dream run's report) are printed above the prompt.

Otherwise (piped or redirected stdin, as scripts and tests use it) stdin is read line by line and
each reply is printed, exactly as before: no prompt_toolkit, no status line when stdout is not a
terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from rich.markup import escape

from ..errors import ReverieError
from ..llm.client import warned_since
from ..text.utf8 import undecodable
from ._common import console, err_console, workspace_of
from ._render import markdown
from ._signals import terminated
from ._status import StatusLine, wait_text

if TYPE_CHECKING:
    from ..chat.agent import ChatAgent
    from ..llm.activity import ModelActivity

__all__ = ["repl"]

T = TypeVar("T")


def _stdin_lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str]:
    """Lines from stdin on a daemon thread, so Ctrl-C never waits for a blocked read; "" marks the
    end."""
    queue: asyncio.Queue[str] = asyncio.Queue()

    def pump() -> None:
        # Bytes, decoded here: stdin's own decoder either raises on a byte that is not UTF-8
        # (killing this thread: the chat would hang) or escapes it, depending on the locale; a
        # line is escaped the same way always, and `_turn` refuses it.
        stream = getattr(sys.stdin, "buffer", None)
        lines = (
            iter(sys.stdin.readline, "")
            if stream is None
            else (raw.decode("utf-8", "surrogateescape") for raw in iter(stream.readline, b""))
        )
        for line in lines:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, "")

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return queue


async def show(text: str) -> None:
    console.print(markdown(text), soft_wrap=False)


async def repl(args: argparse.Namespace) -> int:
    from ..chat.agent import OFFLINE_NOTICE, ChatAgent
    from ..llm.activity import ModelActivity
    from ..memory.runtime import Runtime

    activity = ModelActivity()
    agent = ChatAgent(
        Runtime(workspace_of(args), activity=activity), session_key=args.session, notify=show
    )
    agent.runtime.workspace.init()  # a first chat starts from the starter memory files
    console.print(
        f"[dim]reverie chat · {escape(str(agent.runtime.workspace.root))} "
        f"· model [bold]{escape(agent.model_line())}[/bold] · /help for "
        "commands, /exit or Ctrl-D to leave[/]"
    )
    if agent.offline:
        console.print(f"[yellow]{OFFLINE_NOTICE}[/]")
    if not args.no_schedule:
        await agent.start_schedule()
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    with StatusLine(activity, hint="Ctrl-C cancels" if terminal else "") as status:
        try:
            if terminal:
                await _terminal_loop(agent, activity, status)
            else:
                await _line_loop(agent, status)
        finally:
            # Ctrl-C stops waiting for a /dream still running (it is abandoned before it writes)
            if terminal:
                await _foreground(agent.close(), on_cancel=lambda: None)
            else:
                await agent.close()
    return 0


async def _line_loop(agent: ChatAgent, status: StatusLine) -> None:
    """Piped stdin: one message per line, replies printed; a "> " prompt only when stdin is a
    terminal."""
    lines, interactive = _stdin_lines(asyncio.get_running_loop()), sys.stdin.isatty()
    while True:
        if interactive:
            console.print("[bold]> [/]", end="")
        line = await lines.get()
        if not line or line.strip() in ("/exit", "/quit"):
            break
        if line.strip():
            await _turn(agent, line.strip(), status, cancellable=False)


async def _terminal_loop(agent: ChatAgent, activity: ModelActivity, status: StatusLine) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.formatted_text import FormattedText
    from prompt_toolkit.patch_stdout import patch_stdout

    from ._chat_history import ChatInputHistory, history_path

    def background() -> FormattedText:
        # While the prompt waits for the user, a model call still running belongs to background work
        # (Dream).
        waiting = wait_text(activity)
        return FormattedText([("class:rprompt", waiting)] if waiting else [])

    session: PromptSession[str] = PromptSession(
        history=ChatInputHistory(history_path(agent.runtime.workspace.state_dir)),
        rprompt=background,
        refresh_interval=0.5,
    )
    while True:
        with status.paused(), patch_stdout(raw=True):
            try:
                text = await session.prompt_async(FormattedText([("bold", "> ")]))
            except KeyboardInterrupt:  # Ctrl-C at the prompt: a fresh line, as in a shell
                continue
            except EOFError:  # Ctrl-D on an empty line
                break
        text = text.strip()
        if text in ("/exit", "/quit"):
            break
        if text:
            await _turn(agent, text, status, cancellable=True)


async def _turn(agent: ChatAgent, text: str, status: StatusLine, *, cancellable: bool) -> None:
    """One message and its reply; at a terminal Ctrl-C cancels it (the message is kept when it is
    conversation)."""
    why = undecodable(text)  # bytes that are not UTF-8, escaped by the decoder: never recorded
    if why is not None:
        with status.paused():
            err_console.print(f"[red]error:[/] {escape(why)}: the line was not recorded")
        return
    command = agent.router.is_command(text)

    cancelled = False
    started = time.monotonic()

    def on_cancel() -> None:
        nonlocal cancelled
        cancelled = True

    try:
        if cancellable:
            with _typeahead_unechoed():
                reply = await _foreground(agent.respond(text), on_cancel=on_cancel)
        else:
            reply = await agent.respond(text)
    except ReverieError as exc:  # a failed model call ends the turn, not the conversation
        # the same outage met earlier in the turn (the flush, the archive) was shown already
        with status.paused():
            said = (
                "no reply: the model failed for the reason above"
                if warned_since(exc, started)
                else str(exc)
            )
            err_console.print(f"[red]error:[/] {escape(said)}")
        return
    # the reply replaces the status line rather than printing above a stale one
    with status.paused():
        if cancelled:
            kept = "" if command else " (your message is kept in the session)"
            console.print(f"[yellow]cancelled[/]{kept}")
        elif reply is not None:
            await show(reply)


@contextlib.contextmanager
def _typeahead_unechoed() -> Iterator[None]:
    """During a turn, keys typed ahead are not echoed over the status line; they wait for the next
    prompt, which shows them. Ctrl-C still signals (only ECHO is turned off)."""
    import termios

    try:
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~termios.ECHO  # the local modes
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


async def _foreground(work: Awaitable[T], *, on_cancel: Callable[[], None]) -> T | None:
    """Await ``work`` as a task that Ctrl-C (SIGINT) cancels; None and ``on_cancel()`` when it
    was."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    try:
        loop.add_signal_handler(signal.SIGINT, task.cancel)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):
        # no signal support here (not the main thread)
        installed = False
    try:
        return await task
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # this loop itself is being cancelled, not only the turn
        on_cancel()
        if terminated():  # SIGTERM, raised as SIGINT (reverie.cli._signals): end the chat
            raise KeyboardInterrupt from None
        return None
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
