"""The CLI's live status line: what a command is waiting for, on a terminal only.

``StatusLine`` watches a ``ModelActivity`` (``reverie.llm.activity``) from a small thread and shows
a rich spinner line while a model call has been in flight for more than ``delay`` seconds: the
model, Reverie's task for the call (``archive``, ``dream-analyze``, …) and the elapsed time. A
thread, not the event loop, so the line also appears while the loop is blocked (litellm's first
import takes seconds). A command with phases of its own (Dream) sets ``phase`` and the line shows
from then on, with the model wait appended. Nothing is shown when stdout is not a terminal: scripts
and tests see clean output. The line is transient: it is erased when it hides.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.text import Text

from ._common import console

if TYPE_CHECKING:
    from rich.status import Status

    from ..llm.activity import ModelActivity

__all__ = ["StatusLine", "elapsed_text", "wait_text"]

#: Seconds a model call runs before the line appears (a quick call shows nothing).
DELAY = 0.5
_TICK = 0.1


def elapsed_text(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def wait_text(
    activity: ModelActivity, delay: float = DELAY, now: float | None = None
) -> str | None:
    """ "waiting for MODEL (task) · 3.2 s" for the longest call in flight past ``delay``, else
    None."""
    call = activity.current()
    if call is None:
        return None
    elapsed = call.elapsed(now)
    if elapsed < delay:
        return None
    task = f" ({call.task})" if call.task else ""
    more = activity.in_flight() - 1
    extra = f" +{more} more" if more > 0 else ""
    return f"waiting for {call.model}{task}{extra} · {elapsed_text(elapsed)}"


class StatusLine:
    """A live one-line status for the duration of a ``with`` block (see the module docstring).

    ``hint`` is appended to a model wait (chat: "Ctrl-C cancels"). ``paused()`` hides the line and
    keeps it hidden while something else owns the terminal (the chat prompt).
    """

    def __init__(
        self,
        activity: ModelActivity | None,
        *,
        enabled: bool = True,
        hint: str = "",
        delay: float = DELAY,
    ) -> None:
        self.activity = activity
        self.enabled = enabled and console.is_terminal
        self.hint = hint
        self.delay = delay
        self.phase: str | None = None
        self._paused = 0
        self._lock = threading.RLock()
        self._status: Status | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def text(self) -> str | None:
        """What the line says now, or None when it is hidden."""
        waiting = wait_text(self.activity, self.delay) if self.activity is not None else None
        if waiting and self.hint:
            waiting += f" · {self.hint}"
        parts = [p for p in (self.phase, waiting) if p]
        return " · ".join(parts) or None

    def __enter__(self) -> StatusLine:
        if self.enabled:
            self._stop.clear()
            self._thread = threading.Thread(target=self._watch, name="status-line", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._hide()

    def update(self, phase: str | None) -> None:
        """Set (or clear) the command's own phase text; shown at the next tick."""
        self.phase = phase

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the line now and keep it hidden inside the block."""
        with self._lock:
            self._paused += 1
            self._hide()
        try:
            yield
        finally:
            with self._lock:
                self._paused -= 1

    def _watch(self) -> None:
        while not self._stop.wait(_TICK):
            self.refresh()

    def refresh(self) -> None:
        """Show, update or hide the line to match ``text()`` (the watcher thread calls this every
        tick)."""
        with self._lock:
            text = None if self._paused or self._stop.is_set() else self.text()
            if text is None:
                self._hide()
                return
            line = Text(text, no_wrap=True, overflow="ellipsis")
            if self._status is None:
                self._status = console.status(line)
                self._status.start()
            else:
                self._status.update(line)

    def _hide(self) -> None:
        with self._lock:
            if self._status is not None:
                self._status.stop()
                self._status = None
