"""``ModelActivity``: which model calls are in flight and since when, so a front-end can say what it
waits for.

A remote model can take seconds (or, when it is down, the whole retry budget) to answer; a terminal
that shows nothing meanwhile looks hung. ``Runtime(workspace, activity=ModelActivity())`` wraps its
model client in an ``ObservedClient`` that records each ``complete`` call here — model name, Reverie
task (from the prompt's task line: ``archive``, ``dream-analyze``, …; ``None`` for a chat turn) and
start time — for every service built on that runtime (the chat agent, the Consolidator and its
flush, Dream). The CLI renders it as a live status line. Nothing here prints, and nothing changes
what the calls do: errors and cancellation pass through unchanged.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .client import ModelClient
from .protocol import task_of

if TYPE_CHECKING:
    from .types import ModelResponse

__all__ = ["ModelActivity", "ModelCall", "ObservedClient"]


@dataclass(frozen=True)
class ModelCall:
    """One model call in flight."""

    model: str
    task: str | None  # None: not one of Reverie's own tasks (a chat turn)
    started: float  # time.monotonic()

    def elapsed(self, now: float | None = None) -> float:
        return (time.monotonic() if now is None else now) - self.started


class ModelActivity:
    """The model calls in flight. Thread-safe: a status line reads it from its own thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, ModelCall] = {}
        self._ids = itertools.count()

    @contextlib.contextmanager
    def call(self, model: str, task: str | None = None) -> Iterator[ModelCall]:
        """Record a call for the duration of the ``with`` block."""
        record = ModelCall(model, task, time.monotonic())
        with self._lock:
            key = next(self._ids)
            self._calls[key] = record
        try:
            yield record
        finally:
            with self._lock:
                del self._calls[key]

    def current(self) -> ModelCall | None:
        """The longest-waiting call in flight, or None."""
        with self._lock:
            return min(self._calls.values(), key=lambda c: c.started, default=None)

    def in_flight(self) -> int:
        with self._lock:
            return len(self._calls)


def _task(messages: list[dict[str, Any]]) -> str | None:
    first = messages[0] if messages else None
    if (
        isinstance(first, dict)
        and first.get("role") == "system"
        and isinstance(first.get("content"), str)
    ):
        return task_of(first["content"])
    return None


class ObservedClient(ModelClient):
    """A ``ModelClient`` whose ``complete`` calls are recorded in a ``ModelActivity``: each call is
    the wrapped client's own, unchanged; everything else reads the same config. A subclass, so it
    goes wherever a ``ModelClient`` is expected."""

    def __init__(self, client: ModelClient, activity: ModelActivity) -> None:
        super().__init__(client.config)
        self._client = client
        self.activity = activity

    @property
    def wrapped(self) -> ModelClient:
        return self._client

    def unavailable_within(self, model: str | None, seconds: float) -> bool:
        return self._client.unavailable_within(model, seconds)  # the calls are the wrapped one's

    async def complete(
        self, messages: list[dict[str, Any]], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        model = kwargs.get("model") or self._client.config.model
        with self.activity.call(model, _task(messages)):
            return await self._client.complete(messages, *args, **kwargs)
