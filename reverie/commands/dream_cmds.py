"""``/dream``: run Dream in the background and report what it changed when it ends.

While a run of this process is in flight — one ``/dream`` started, or a scheduled run the agent registered with
``router.adopt(task, name="dream")`` — ``/dream`` waits for that run and replies with its result (so a
``/dream-log`` right after shows it), and the run's own background notice is skipped: one report, not two.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..errors import ReverieError
from .render import dream_result
from .router import Command, Invocation

if TYPE_CHECKING:
    from ..dream import DreamResult

log = logging.getLogger(__name__)

__all__ = ["commands", "QUICK_REPLY_SECONDS", "TASK_NAME"]

#: A run that ends within this long (nothing to do, another run holds the lock, a fast offline run) is reported
#: in the reply itself; a longer one is reported through ``context.notify`` when it ends.
QUICK_REPLY_SECONDS = 0.5
#: The router task name of a Dream run in flight (``router.task(TASK_NAME)``).
TASK_NAME = "dream"


async def dream(inv: Invocation) -> str:
    router, rt = inv.router, inv.runtime
    inflight = router.task(TASK_NAME)
    if inflight is not None:
        return await _wait_for(inv, inflight)
    pending = rt.store.pending_count()
    if pending == 0:
        return "Nothing to process: no history entries are waiting for Dream."
    task = router.spawn(rt.dream.run(), name=TASK_NAME)
    done, _ = await asyncio.wait({task}, timeout=QUICK_REPLY_SECONDS)
    if done:
        return _report(inv, task.result())
    notify = inv.context.notify

    def report(t: asyncio.Task) -> None:  # type: ignore[type-arg]
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


async def _wait_for(inv: Invocation, run: asyncio.Task) -> str:  # type: ignore[type-arg]
    """The result of the run in flight, once it ends. Cancelling this wait (Ctrl-C) leaves the run going; it
    then reports through its own notice as usual."""
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
    left = inv.runtime.store.pending_count()
    if left and result.status in ("ok", "no-change", "dead-lettered"):
        text += f"\n{left} more {'entry is' if left == 1 else 'entries are'} pending: send `/dream` again."
    return text


def commands() -> list[Command]:
    return [Command("dream", dream, "consolidate pending history into memory now (runs in the background)")]
