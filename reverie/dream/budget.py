"""Dream's hard budget: model turns, tool calls, tokens, wall time, and repeated-failure (loop)
detection.

A weak model once looped for 23 minutes and 10M tokens in nanobot; every cap here ends the run
instead.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ModelUnavailableError
from ..llm.types import ModelResponse, Usage

if TYPE_CHECKING:
    from ..llm.client import ModelClient
    from ..storage.config import DreamConfig

__all__ = ["Budget", "BudgetExceeded", "REPEAT_LIMIT", "budgeted_call", "call_reserve"]

#: The same failing tool call (name + arguments) this many times ends the run.
REPEAT_LIMIT = 3


class BudgetExceeded(Exception):
    """A cap was reached. ``cap`` names it (iterations, tool-calls, tokens, time, loop); ``overall``
    is True when the drain's overall budget, not this batch's own, was the binding limit (then no
    attempt is counted)."""

    def __init__(self, cap: str, detail: str, *, overall: bool = False) -> None:
        super().__init__(f"budget exhausted ({cap}): {detail}")
        self.cap = cap
        self.overall = overall


@dataclass
class Budget:
    """Per-run caps and counters. ``clock`` is injectable so tests can move time."""

    max_iterations: int
    max_tool_calls: int
    max_tokens: int
    max_seconds: float
    overall: Budget | None = None  # a drain's shared budget, charged alongside this one
    clock: Callable[[], float] = time.monotonic
    iterations: int = 0
    tool_calls: int = 0
    tokens: int = 0
    started: float = field(default=0.0)
    # what the run's model calls reported, cost included
    usage: Usage = field(default_factory=Usage)
    _failures: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.started = self.clock()

    @classmethod
    def from_config(cls, cfg: DreamConfig, *, overall: Budget | None = None) -> Budget:
        return cls(
            cfg.max_iterations,
            cfg.max_tool_calls,
            cfg.token_budget,
            cfg.max_seconds,
            overall=overall,
        )

    # -- queries -----------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return self.clock() - self.started

    def remaining_seconds(self) -> float:
        own = self.max_seconds - self.elapsed()
        return min(own, self.overall.remaining_seconds()) if self.overall else own

    def check_time(self) -> None:
        if self.overall is not None and self.overall.remaining_seconds() <= 0:
            raise BudgetExceeded(
                "time", f"drain wall time of {self.overall.max_seconds:g}s used", overall=True
            )
        if self.elapsed() >= self.max_seconds:
            raise BudgetExceeded("time", f"wall time of {self.max_seconds:g}s used")

    # -- charges -----------------------------------------------------------------------------------
    def start_turn(self) -> None:
        """Before a phase-2 model turn: refuse turn ``max_iterations + 1`` and any turn past the
        time cap."""
        self.check_time()
        if self.iterations >= self.max_iterations:
            raise BudgetExceeded(
                "iterations", f"{self.max_iterations} model turns used without finishing"
            )
        self.iterations += 1

    def charge_tokens(self, n: int) -> None:
        self.tokens += max(0, n)
        if self.overall is not None:
            self.overall.tokens += max(0, n)
            if self.overall.tokens > self.overall.max_tokens:
                raise BudgetExceeded(
                    "tokens",
                    f"drain total {self.overall.tokens} > {self.overall.max_tokens}",
                    overall=True,
                )
        if self.tokens > self.max_tokens:
            raise BudgetExceeded("tokens", f"{self.tokens} tokens > cap {self.max_tokens}")

    def charge_tool_call(self) -> None:
        self.tool_calls += 1
        if self.overall is not None:
            self.overall.tool_calls += 1
        if self.tool_calls > self.max_tool_calls:
            raise BudgetExceeded("tool-calls", f"more than {self.max_tool_calls} tool calls")

    def record_failure(self, signature: str) -> None:
        """A tool call failed; the same failing call ``REPEAT_LIMIT`` times is a loop and ends the
        run."""
        self._failures[signature] += 1
        if self._failures[signature] >= REPEAT_LIMIT:
            raise BudgetExceeded(
                "loop", f"the same failing call {REPEAT_LIMIT} times: {signature[:160]}"
            )


def call_reserve(budget: Budget, timeout: float) -> float:
    """The least run time a model call is begun with: ``llm.timeout``, at most a quarter of the run
    (of a drain's overall time, when that is shorter) and a minute. A call begun with less would be
    cut by the run rather than end on its own timeout, and a provider that is merely slow could not
    be told from one that is silent."""
    seconds = budget.max_seconds
    if budget.overall is not None:
        seconds = min(seconds, budget.overall.max_seconds)
    return min(timeout, seconds / 4, 60.0)


async def budgeted_call(
    client: ModelClient, budget: Budget, messages: list[dict[str, Any]], *, model: str, **kw: Any
) -> ModelResponse:
    """One model call inside the budget: refused past the time cap (or with less time left than a
    call may need, ``call_reserve``), given the run's remaining time as its deadline, and its tokens
    charged (which raises ``BudgetExceeded`` when the token cap is crossed). ``ModelError`` passes
    through.

    The client's own per-attempt timeout (``llm.timeout``) and retry budget bind inside that
    deadline, so a provider that does not answer ends the call on its own timeout, as a
    ``ModelUnavailableError`` of kind ``not-answering`` (an outage: Dream counts no attempt), before
    the run's limit can fire. Should the call still outlive the run's time, it is the same
    outage."""
    budget.check_time()
    remaining = max(0.001, budget.remaining_seconds())
    reserve = call_reserve(budget, client.settings.timeout)
    if remaining < reserve:
        overall = budget.overall is not None and budget.overall.remaining_seconds() < reserve
        cap = budget.overall.max_seconds if overall and budget.overall else budget.max_seconds
        which = "the drain's wall time of" if overall else "the wall-time cap of"
        raise BudgetExceeded(
            "time",
            f"{remaining:.0f}s left of {which} {cap:g}s, less than a model call may need "
            f"({reserve:.0f}s)",
            overall=overall,
        )
    # The client must give up a little before the run does (its own wait adds a second).
    margin = min(remaining / 4, max(2.0, remaining * 0.02))
    deadline = time.monotonic() + remaining - margin
    try:
        response = await asyncio.wait_for(
            client.complete(messages, model=model, deadline=deadline, **kw), remaining
        )
    except TimeoutError:
        if budget.overall is not None and budget.overall.remaining_seconds() <= 0:
            # the drain's shared time ran out under the call: the drain's limit, not an outage
            raise BudgetExceeded(
                "time",
                f"a model call was still running when the drain's wall time of "
                f"{budget.overall.max_seconds:g}s ran out",
                overall=True,
            ) from None
        raise ModelUnavailableError(
            f"{model}: no reply within the run's remaining {remaining:.0f}s",
            kind="not-answering",
            model=model,
        ) from None
    budget.usage = budget.usage + response.usage
    budget.charge_tokens(response.usage.total_tokens)
    return response
