"""``/dream``: run Dream in the background and report what it changed when it ends.

While a run of this process is in flight — one ``/dream`` started, or a scheduled run the agent
registered with ``router.adopt(task, name="dream")`` — ``/dream`` waits for that run and replies
with its result (so a ``/dream-log`` right after shows it), and the run's own background notice is
skipped: one report, not two.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ...errors import CommandError, ReverieError
from .render import dream_result
from .router import Command, Invocation

if TYPE_CHECKING:
    from ...dream import DreamResult

log = logging.getLogger(__name__)

__all__ = ["commands", "QUICK_REPLY_SECONDS", "TASK_NAME"]

#: A run that ends within this long (nothing to do, another run holds the lock, a fast offline run)
#: is reported in the reply itself; a longer one is reported through ``context.notify`` when it
#: ends.
QUICK_REPLY_SECONDS = 0.5
#: The router task name of a Dream run in flight (``router.task(TASK_NAME)``).
TASK_NAME = "dream"


async def dream(inv: Invocation) -> str:
    router, memory = inv.router, inv.memory
    inflight = router.task(TASK_NAME)
    if inflight is not None:
        return await _wait_for(inv, inflight)
    pending = memory.pending()
    if pending == 0 and not memory.queued():
        return "Nothing to process: no history entries are waiting for Dream."
    task = router.spawn(memory.adream(), name=TASK_NAME)
    done, _ = await asyncio.wait({task}, timeout=QUICK_REPLY_SECONDS)
    if done:
        return _report(inv, task.result())
    notify = inv.context.notify

    def report(t: asyncio.Task[DreamResult]) -> None:
        if router.claimed(t):  # a later /dream waited for this run and replied with its result
            return
        if t.cancelled():
            text = "Dream was cancelled; nothing was written."
        elif t.exception() is not None:
            text = f"Dream could not run: {t.exception()}"
        else:
            text = _report(inv, t.result())
        if notify is None:
            log.info("%s", text)
        else:
            router.spawn(notify(text), name="dream-report")

    task.add_done_callback(report)
    noun = "entry" if pending == 1 else "entries"
    return f"Dreaming over {pending} pending {noun} in the background; I will report when it ends."


async def _wait_for(inv: Invocation, run: asyncio.Task[DreamResult]) -> str:
    """The result of the run in flight, once it ends. Cancelling this wait (Ctrl-C) leaves the run
    going; it then reports through its own notice as usual."""
    inv.router.claim(run)
    try:
        result = await asyncio.shield(run)
    except asyncio.CancelledError:
        if run.cancelled():
            return "Dream was cancelled; nothing was written."
        inv.router.claim(run, False)
        raise
    except ReverieError as exc:
        return f"Dream could not run: {exc}"
    return "A Dream run was already in progress; it has ended.\n" + _report(inv, result)


def _report(inv: Invocation, result: DreamResult) -> str:
    text = dream_result(result)
    left = inv.memory.pending()
    if left and result.status in ("ok", "no-change", "dead-lettered"):
        are = "entry is" if left == 1 else "entries are"
        text += f"\n{left} more {are} pending: send `/dream` again."
    return text


async def requeue(inv: Invocation) -> str:
    """``/requeue``: list set-aside batches; ``/requeue all`` or ``/requeue FIRST …`` puts them back
    in the queue."""
    memory = inv.memory
    if not inv.args:
        aside, waiting = memory.set_aside(), memory.queued()
        if not aside and not waiting:
            return "No batch is set aside."
        lines = [f"- history {d.first}–{d.last}, set aside {d.time}: {d.reason}" for d in aside]
        lines += [
            f"- history {d.first}–{d.last}: requeued, runs with the next `/dream`" for d in waiting
        ]
        hint = "\nRequeue with `/requeue all` or `/requeue FIRST`." if aside else ""
        return "**Set-aside batches**\n" + "\n".join(lines) + hint
    if inv.args == ["all"]:
        firsts = None
    else:
        try:
            firsts = [int(a) for a in inv.args]
        except ValueError:
            raise CommandError("give `all` or the first history cursor of each batch") from None
    done = memory.requeue(firsts)
    if not done:
        return "No set-aside batch matched; `/requeue` lists them."
    shown = ", ".join(f"{d.first}–{d.last}" for d in done)
    them = "it" if len(done) == 1 else "them"
    return f"Requeued history {shown}: the next `/dream` runs {them} again."


async def pin_cmd(inv: Invocation) -> str:
    """``/pin TEXT`` (``/unpin TEXT``): keep the memory line containing TEXT in the prompt files."""
    if not inv.raw_args.strip():
        raise CommandError("give some words of the line to pin")
    unpin = inv.name == "unpin"
    result = inv.memory.pin(inv.raw_args, unpin=unpin)
    state = "Unpinned" if unpin else "Pinned"
    tail = f" (`{result.commit[:8]}`)" if result.commit else " (no change)"
    return f"{state} in {result.path}{tail}: {result.line}"


def commands() -> list[Command]:
    return [
        Command("dream", dream, "turn pending history into memory now (runs in the background)"),
        Command(
            "pin",
            pin_cmd,
            "keep a memory line in the prompt files (never archived)",
            "/pin TEXT",
            takes_args=True,
        ),
        Command("unpin", pin_cmd, "take a pin off a memory line", "/unpin TEXT", takes_args=True),
        Command(
            "requeue",
            requeue,
            "list batches Dream set aside, or requeue them",
            "/requeue [all|FIRST …]",
            takes_args=True,
        ),
    ]
