"""``DreamScheduler``: Dream every ``intervalH`` hours (or a legacy ``cron``) for ``reverie serve`` (skeleton)."""

from __future__ import annotations

import asyncio

from .runner import Dream

__all__ = ["DreamScheduler", "serve"]


class DreamScheduler:
    """APScheduler 3 ``AsyncIOScheduler`` running ``Dream.run(drain=True)``, one at a time, missed runs coalesced."""

    def __init__(self, dream: Dream) -> None:
        self.dream = dream

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError


async def serve(dream: Dream, *, stop: asyncio.Event | None = None, handle_signals: bool = True) -> None:
    """Run the scheduler until ``stop`` is set or SIGTERM/SIGINT arrives; a run in flight is abandoned unwritten."""
    raise NotImplementedError
