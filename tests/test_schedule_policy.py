"""Dream's one scheduling policy (reverie.schedule.policy), as its three drivers use it: ``serve``'s
next run, ``serve --root``'s and the fleet's back-off after failures, the fleet's admission."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reverie.backoff import capped_backoff, jittered_backoff
from reverie.schedule.policy import (
    TokenBucket,
    admissible,
    completed_at,
    next_due,
    next_estimate,
    reconnect_delay,
    retry_delay,
    verdict,
)
from reverie.schedule.workspace import next_run_time
from reverie.storage.config import DreamConfig


def test_next_due_is_one_interval_after_the_last_run_never_in_the_past() -> None:
    assert next_due(None, 3600, 1000.0) == 1000.0
    assert next_due(500.0, 3600, 1000.0) == 4100.0
    assert next_due(-10_000.0, 3600, 1000.0) == 1000.0  # overdue: now, once


def test_a_last_run_in_the_future_is_read_as_now_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A clock that was wrong when the time was written must not stop Dream until that date.
    assert next_due(1e6, 3600, 1000.0) == 4600.0
    assert completed_at(500.0, 1000.0, "status.json") == 500.0 and not caplog.records
    assert completed_at(None, 1000.0, "status.json") is None
    assert completed_at(253402297200.0, 1000.0, "/w/dream-status.json") == 1000.0
    (warned,) = caplog.records
    assert warned.levelname == "WARNING"
    assert warned.getMessage().startswith("/w/dream-status.json: ")
    assert "9999-12-31T23:00:00+00:00, in the future" in warned.getMessage()
    assert completed_at(1e300, 1000.0, "x") == 1000.0  # past what a datetime holds: no crash


def test_the_workspace_scheduler_follows_the_same_due_rule() -> None:
    now = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    cfg = DreamConfig(interval_h=2)
    assert next_run_time(cfg, now - timedelta(minutes=30), now) == now + timedelta(minutes=90)
    assert next_run_time(cfg, now - timedelta(hours=5), now) == now
    assert next_run_time(cfg, None, now) == now
    far = datetime(9999, 12, 31, 23, 0, tzinfo=UTC)  # once: year 10000 is out of range
    assert next_run_time(cfg, far, now) == now + timedelta(hours=2)
    cron = DreamConfig(cron="0 3 * * *")
    assert next_run_time(cron, far, now) == datetime(2026, 11, 29, 3, 0, tzinfo=UTC)


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
    assert admissible(5, None, 1, None) == 5
    assert admissible(5, 25_000, 10_000, 60_000) == 2
    assert admissible(5, -3_000, 10_000, 60_000) == 0  # a bucket in debt admits none
    assert admissible(-2, None, 1, None) == 0  # more claims alive than maxInflight (it was lowered)


def test_a_run_costing_more_than_a_minutes_tokens_is_admitted_when_the_bucket_is_full() -> None:
    """serve --root's bucket asks for at most a minute's worth; the fleet's admission asked for the
    whole estimate and, with ``tokensPerRun`` over ``tokensPerMinute``, admitted nothing, ever."""
    assert admissible(4, 10_000, 20_000, 10_000) == 1
    assert TokenBucket(10_000).wait_for(20_000) == 0.0


def test_a_cap_below_the_first_delay_never_shortens_it() -> None:
    """serve --root raised the cap to the first delay; the fleet let the cap cut it (a 600 s
    retry with a 300 s cap waited 300 s)."""
    assert retry_delay(1, 600, 300) == 600 and retry_delay(5, 600, 300) == 600


def test_the_dispatchers_wait_while_redis_is_down_is_the_shared_backoff() -> None:
    every, claim = 5.0, 180.0
    assert [reconnect_delay(n, every, claim) for n in range(1, 6)] == [5, 10, 20, 40, 45]
    assert reconnect_delay(1, 90.0, claim) == 90.0  # never under the tick period


def test_a_run_s_end_means_the_same_to_every_driver() -> None:
    assert verdict("ok", None) == "completed" and verdict("nothing-to-do", None) == "completed"
    assert verdict("failed", "model unavailable: connection refused") == "unavailable"
    assert verdict("failed", "the gate refused the edit") == "failed"
    assert verdict("failed", "budget", progressed=True) == "completed"
    assert verdict("error", "disk full") == "failed"
    assert verdict("already-running", "another Dream run holds the lock") == "busy"


def test_the_estimate_follows_recent_runs_and_ignores_runs_that_used_nothing() -> None:
    assert next_estimate(0, 1_000) == 1_000
    assert next_estimate(1_000, 0) == 1_000
    assert next_estimate(1_000, 2_000) == 1_200
