"""``deferred_signals``: a block that SIGINT and SIGTERM do not cut in the middle.

Python runs a signal's handler in the main thread between two bytecodes, and the usual handlers
raise there (``KeyboardInterrupt``, or a command line's own handler that does): a write made of
several steps — GitStore's commit moves the branch, then writes the files, then git's index — cut
between two of them leaves what a killed process leaves, for recovery to finish on the next run.
Within this block the two signals are noted instead; when it ends, the handlers that were in place
are put back and each noted signal is raised again, so it is handled as if it had arrived just
after the block (by ``reverie.cli``, ``asyncio.run``, an application's own handler, or the default
action). In any thread but the main one the block changes nothing (only the main thread runs signal
handlers). SIGKILL cannot be deferred: every such write also has its recovery.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["deferred_signals", "DEFERRED"]

#: The signals a block defers.
DEFERRED = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def deferred_signals() -> Iterator[None]:
    """Within, SIGINT and SIGTERM are noted, not handled; after, each noted one is raised again
    under the handler in place before (see the module docstring). Blocks nest."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum: int, _frame: FrameType | None) -> None:
        noted.append(signum)

    previous: dict[signal.Signals, Any] = {}
    try:
        for deferred in DEFERRED:
            if signal.getsignal(deferred) not in (signal.SIG_IGN, None):
                previous[deferred] = signal.signal(deferred, note)
        yield
    finally:
        for restored, handler in previous.items():
            signal.signal(restored, handler)
        for signum in noted:
            signal.raise_signal(signum)
