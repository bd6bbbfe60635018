"""The one bounded executor that keeps the async verbs of every ``Memory`` off the caller's event
loop.

An ``a…`` verb's work is files, SQLite, git and the offline engine's CPU: done on the loop, it holds
every other task of an async server for as long (0.3 s for a first search of a 3,000-entry workspace
before this module). Here it runs in a worker thread instead, so the loop only waits on a future:

- ``run(fn)``: a synchronous verb in a worker thread.
- ``run_async(factory)``: a pipeline verb (Dream, the Consolidator: model calls interleaved with file
  and git work) as a coroutine on the worker thread's own event loop. Cancelling the caller's await
  cancels it there, and the caller's await ends once it has unwound (so Dream's lock is released
  when the cancellation reaches the caller).

One executor for the process, shared by every ``Memory``, created on first use and bounded
(``MAX_WORKERS`` threads): a burst of calls queues instead of starting a thread each, and few
threads also keep the loop's share of the GIL (a thread asking for the GIL waits up to the switch
interval, 5 ms by default, per thread ahead of it). A program may hand in its own with
``use_executor``. After a ``fork`` the child starts a new one (the parent's threads do not exist
there).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["run", "run_async", "executor", "use_executor", "MAX_WORKERS"]

T = TypeVar("T")

#: Worker threads of the shared executor. Measured in bench/embedded.py: with more, each thread
#: waiting for the GIL delays the loop's turn (BENCHMARKS.md, "embedded").
MAX_WORKERS = 4

_lock = threading.Lock()
_executor: Executor | None = None
_owned = False  # the executor is this module's (shut down on replacement), not a program's
_local = threading.local()  # .loop: a worker thread's own event loop, kept for its life


def executor() -> Executor:
    """The shared executor, created on first use."""
    global _executor, _owned
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(MAX_WORKERS, thread_name_prefix="reverie")
            _owned = True
        return _executor


def use_executor(replacement: Executor | None) -> Executor | None:
    """Run the async verbs on ``replacement`` (a program's own bounded pool), or on a new shared one
    (None). Returns the executor used before; the module's own is shut down (its queued calls still
    run)."""
    global _executor, _owned
    with _lock:
        previous, owned = _executor, _owned
        _executor, _owned = replacement, False
    if previous is not None and owned:
        previous.shutdown(wait=False)
    return previous


def _after_fork_in_child() -> None:
    global _executor, _owned, _lock
    _executor, _owned, _lock = None, False, threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


async def run(fn: Callable[[], T]) -> T:
    """``fn()`` in a worker thread; the caller's loop stays free meanwhile."""
    return await asyncio.get_running_loop().run_in_executor(executor(), fn)


class _Handle:
    """Where the caller finds the worker's task to cancel it (set by the worker once it runs)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[Any] | None = None
        self.cancelled = False

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            if self.loop is not None and self.task is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self.task.cancel)


def _thread_loop() -> asyncio.AbstractEventLoop:
    """This worker thread's event loop: one for the thread's life, so what a pipeline verb binds to
    its loop (an asyncio lock, a model client's connection pool) is reused by the next call."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = _local.loop = asyncio.new_event_loop()
    return loop


async def run_async(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """The coroutine ``factory()`` makes, run to completion on a worker thread's event loop."""
    handle = _Handle()

    async def main() -> T:
        with handle.lock:
            handle.loop, handle.task = asyncio.get_running_loop(), asyncio.current_task()
            if handle.cancelled:
                raise asyncio.CancelledError
        return await factory()

    def work() -> T:
        return _thread_loop().run_until_complete(main())

    future = asyncio.get_running_loop().run_in_executor(executor(), work)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        handle.cancel()
        try:
            await future  # until the worker has unwound (a second cancel stops waiting)
        except BaseException:  # noqa: BLE001 - its outcome is the cancellation's, raised below
            pass
        raise
