"""Dream's one scheduling policy (reverie.dream.policy), as its three drivers use it: ``serve``'s
next run, ``serve --root``'s and the fleet's back-off after failures, the fleet's admission."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reverie.backoff import capped_backoff, jittered_backoff
from reverie.dream.policy import admissible, next_due, retry_delay
from reverie.dream.scheduler import next_run_time
from reverie.storage.config import DreamConfig


def test_next_due_is_one_interval_after_the_last_run_never_in_the_past() -> None:
    assert next_due(None, 3600, 1000.0) == 1000.0
    assert next_due(500.0, 3600, 1000.0) == 4100.0
    assert next_due(-10_000.0, 3600, 1000.0) == 1000.0  # overdue: now, once


def test_the_workspace_scheduler_follows_the_same_due_rule() -> None:
    now = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    cfg = DreamConfig(interval_h=2)
    assert next_run_time(cfg, now - timedelta(minutes=30), now) == now + timedelta(minutes=90)
    assert next_run_time(cfg, now - timedelta(hours=5), now) == now
    assert next_run_time(cfg, None, now) == now


def test_retry_delay_doubles_from_the_first_wait_up_to_the_cap() -> None:
    assert [retry_delay(n, 60, 3600) for n in range(1, 9)] == [
        60,
        120,
        240,
        480,
        960,
        1920,
        3600,
        3600,
    ]


def test_a_workspace_failing_for_months_waits_the_cap_instead_of_overflowing() -> None:
    """``60 · 2.0 ** (n - 1)`` raises OverflowError past about 1,000 failures in a row (a fleet
    workspace failing every hour for six weeks); the cap holds at any count."""
    with pytest.raises(OverflowError):
        60 * 2.0 ** (5_000 - 1)
    assert retry_delay(5_000, 60, 3600) == 3600
    assert capped_backoff(10**9, 0.5, 30) == 30


def test_jitter_spreads_the_wait_below_the_capped_backoff() -> None:
    waits = {jittered_backoff(3, 1.0, 30) for _ in range(50)}
    assert all(2.0 <= w < 4.0 for w in waits) and len(waits) > 1


def test_admission_is_the_free_slots_and_no_more_than_the_tokens_cover() -> None:
    assert admissible(5, None, 1) == 5
    assert admissible(5, 25_000, 10_000) == 2
    assert admissible(5, -3_000, 10_000) == 0  # a bucket in debt admits none
    assert admissible(-2, None, 1) == 0  # more claims alive than maxInflight (it was lowered)
