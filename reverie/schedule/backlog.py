"""``Backlog``: what a Dream scheduler is doing now, in one shape for ``serve --root``
(``reverie.schedule.root``) and the fleet (``reverie fleet status``): the live line, the JSON lines
and the Prometheus metrics (``reverie.fleet.metrics``) read it."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Backlog"]


@dataclass(frozen=True)
class Backlog:
    """What a Dream scheduler is doing now, as ``serve --root`` and ``reverie fleet status`` show it
    (a live line, JSON) and export it (Prometheus): workspaces ``due`` now and ``waiting`` (due
    later), runs ``in_flight``, ``parked`` workspaces, batches ``set_aside``, how long the
    longest-waiting due workspace has been due, runs, failures and model tokens per minute over the
    last minute, and the totals since start (``runs`` by status)."""

    due: int
    waiting: int
    in_flight: int
    parked: int
    set_aside: int
    oldest_due_seconds: float
    runs_per_minute: float
    failures_per_minute: float
    tokens_per_minute: float
    runs: dict[str, int] = field(default_factory=dict)
    failures: int = 0
    tokens: int = 0
    paused: bool = False

    @property
    def minutes_to_clear(self) -> float | None:
        """At the current rate, minutes until every workspace due now has run (None: no rate)."""
        return self.due / self.runs_per_minute if self.runs_per_minute > 0 else None
