"""``reverie serve --root``'s scheduler (``reverie.schedule.root.RootScheduler``) run in a test's
event loop until what the test waits for has happened, then stopped as ``serve`` stops it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from reverie.schedule.root import RootScheduler
from reverie.storage.scopes import ScopeRoot


async def serve_until(
    scheduler: RootScheduler, done: Callable[[], bool], timeout: float = 30, settle: float = 0
) -> None:
    """Run ``scheduler`` until ``done()`` holds (within ``timeout`` seconds, the scheduler still
    running), ``settle`` seconds more (for what must not happen after: a retry), then stop it."""
    stop = asyncio.Event()
    task = asyncio.ensure_future(scheduler.run(stop))
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not done: {scheduler.stats}"
        assert not task.done(), task.exception()
        await asyncio.sleep(0.02)
    await asyncio.sleep(settle)
    stop.set()
    await task


def all_served(root: ScopeRoot, scheduler: RootScheduler) -> Callable[[], bool]:
    """What `serve_until` waits for when every scope is served: no marker left, no run in
    flight."""
    return lambda: not root.due_names() and not scheduler.running
