"""Capped exponential backoff, the one formula every retry in Reverie waits by.

The model client's retries (``reverie.llm.client``), a Dream scheduler's delay after a workspace's
runs failed in a row, while the model is down or while Redis is (``reverie.schedule.policy``), the
fleet's restart of a dead worker (``reverie.fleet.supervise``), and the polls for a held file lock
(``reverie.storage.locking``) or a busy search index (``reverie.recall.index``) all wait
``first · 2ⁿ⁻¹`` before the n-th retry, capped at ``cap``. tenacity computes it
(``wait_exponential``, which also turns an overflowing power into the cap, so a workspace failing
for months never raises ``OverflowError``); the model client also runs its retry loop on
tenacity's ``AsyncRetrying``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from tenacity import RetryCallState

__all__ = ["capped_backoff", "jittered_backoff"]


class _Attempt:
    """The one field of tenacity's ``RetryCallState`` its wait strategies read."""

    __slots__ = ("attempt_number",)

    def __init__(self, attempt_number: int) -> None:
        self.attempt_number = attempt_number


def capped_backoff(n: int, first: float, cap: float) -> float:
    """The wait before retry ``n`` (1 for the first): ``first``, doubling with each retry, never
    over ``cap`` (nor under 0)."""
    # Imported on first use: the file lock's poll loop imports this module on every fast path.
    from tenacity import wait_exponential

    # 2.0, not 2: a float power overflows into the cap at once; an int one first builds an n-bit
    # number (capped_backoff(10**9, ...) took ~30 s of CPU and 125 MB). Same values for every n.
    wait = wait_exponential(multiplier=first, max=cap, exp_base=2.0)
    return float(wait(cast("RetryCallState", _Attempt(max(n, 1)))))


def jittered_backoff(n: int, first: float, cap: float) -> float:
    """`capped_backoff` times a random factor in [0.5, 1): clients that failed together spread out
    instead of retrying in step."""
    return capped_backoff(n, first, cap) * random.uniform(0.5, 1.0)
