"""``Dream``: one library call that runs the two-phase memory edit over the next batch (skeleton)."""

from __future__ import annotations

from collections.abc import Callable

from ..config import Config
from ..store import MemoryStore
from .result import DreamResult, Progress

__all__ = ["Dream", "ProgressCallback"]

ProgressCallback = Callable[[Progress], None]


class Dream:
    """Dream over one workspace: ``run()`` is what ``reverie dream``, ``/dream`` and the scheduler all call."""

    def __init__(self, store: MemoryStore, git: object, client: object, config: Config | None = None) -> None:
        self.store = store
        self.git = git
        self.client = client
        self.config = config if config is not None else store.config

    async def run(
        self,
        *,
        drain: bool = False,
        wait: bool = False,
        dry_run: bool = False,
        on_progress: ProgressCallback | None = None,
    ) -> DreamResult:
        """Process the next batch (every pending batch with ``drain``) under the run lock."""
        raise NotImplementedError

    def reconcile(self) -> int:
        """Advance ``.dream_cursor`` to HEAD's dream ``Reverie-Cursor`` when that is ahead; returns the cursor."""
        raise NotImplementedError
