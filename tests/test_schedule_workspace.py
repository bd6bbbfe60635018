"""DreamScheduler: next-run computation from the repo (across restarts), serve and clean stops."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import subprocess
import sys
import time
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.dream_helpers import edit, make_env

from reverie.dream import Dream
from reverie.dream.lock import RunLock
from reverie.dream.records import StatusRecord
from reverie.errors import ConfigError
from reverie.llm.client import ModelClient
from reverie.schedule.workspace import DreamScheduler, make_trigger, next_run_time, serve
from reverie.storage.config import DreamConfig

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_next_run_counts_from_the_last_completed_run():
    cfg = DreamConfig(interval_h=2)
    assert next_run_time(cfg, None, NOW) == NOW
    assert next_run_time(cfg, NOW - timedelta(hours=1), NOW) == NOW + timedelta(hours=1)
    assert next_run_time(cfg, NOW - timedelta(hours=5), NOW) == NOW  # overdue: now, once


def test_next_run_with_a_legacy_cron():
    cfg = DreamConfig(cron="0 3 * * *")
    last = datetime(2026, 11, 22, 3, 0, tzinfo=UTC)
    assert next_run_time(cfg, last, NOW) == datetime(2026, 11, 23, 3, 0, tzinfo=UTC)
    assert next_run_time(cfg, last - timedelta(days=2), NOW) == NOW
    with pytest.raises(ConfigError):
        make_trigger(DreamConfig(cron="every tuesday"))


def test_restart_does_not_postpone_dream(tmp_path):
    env = make_env(tmp_path / "ws", interval_h=4)
    env.add("- [durable] x")
    env.fake.enqueue("[MEMORY] x", [edit("memory/MEMORY.md", "", "- x\n")], "done")
    assert asyncio.run(env.dream().run()).status == "ok"
    committed = env.git.log(limit=1, kind="dream")[0].time.astimezone(UTC)
    later = committed + timedelta(hours=1)
    first = DreamScheduler(env.dream()).next_run_time(later)
    again = DreamScheduler(make_env(tmp_path / "ws", interval_h=4).dream()).next_run_time(
        later
    )  # a restarted service
    assert first == again  # a restart computes the same due time: it does not postpone Dream
    # Due one interval after the run completed (the commit, or the status record written just after
    # it).
    assert committed + timedelta(hours=4) <= first <= committed + timedelta(hours=4, minutes=1)
    # A later run that changed nothing is recorded in the state dir and counts too.
    StatusRecord.load(env.ws.state_dir).record_run("no-change", 2, 2, None, None)
    assert DreamScheduler(env.dream()).next_run_time(
        later + timedelta(hours=5)
    ) > committed + timedelta(hours=4)


def test_a_last_completed_run_in_the_future_is_read_as_now(tmp_path, caplog):
    """A status record or dream commit written under a wrong clock: one warning naming it, the
    next run one interval from now, never a crash (year 10000) nor a wait until that date."""
    env = make_env(tmp_path / "ws", interval_h=2)
    status = env.ws.state_dir / "dream-status.json"
    status.parent.mkdir(parents=True, exist_ok=True)
    for when in ("9999-12-31T23:00:00+00:00", "2027-06-01T00:00:00+00:00"):
        caplog.clear()
        status.write_text(f'{{"last_completed": "{when}"}}')
        assert DreamScheduler(env.dream()).next_run_time(NOW) == NOW + timedelta(hours=2)
        (warned,) = [r for r in caplog.records if r.levelname == "WARNING"]
        assert warned.getMessage().startswith(f"{status}: ") and when in warned.getMessage()


def test_serve_runs_when_due_and_stops_on_request(tmp_path):
    env = make_env(tmp_path / "ws")
    env.add("- [skip] chit-chat")
    env.fake.enqueue("[SKIP]")

    async def main():
        stop = asyncio.Event()
        results = []

        def seen(result):
            results.append(result)
            stop.set()

        await asyncio.wait_for(
            serve(env.dream(), stop=stop, handle_signals=False, on_result=seen), 30
        )
        return results

    (result,) = asyncio.run(main())
    assert result.status == "no-change" and env.store.dream_cursor() == 1


class HangingClient(ModelClient):
    """A model that never answers: the run stays in flight until cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.called = asyncio.Event()

    async def complete(self, messages, **kw):
        self.called.set()
        await asyncio.Event().wait()


def test_stop_abandons_a_run_in_flight_without_writing(tmp_path, caplog):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] x")
    before = {p: env.read(p) for p in ("USER.md", "memory/MEMORY.md")}

    async def main():
        client = HangingClient()
        stop = asyncio.Event()
        task = asyncio.create_task(
            serve(Dream(env.store, env.git, client, env.config), stop=stop, handle_signals=False)
        )
        await asyncio.wait_for(client.called.wait(), 30)
        stop.set()
        await asyncio.wait_for(task, 10)

    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        asyncio.run(main())
        gc.collect()
    assert {p: env.read(p) for p in before} == before
    assert env.store.dream_cursor() == 0
    # The documented clean stop: one line, no APScheduler traceback, no coroutine left unawaited.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        "dream scheduler: stopped; the run in flight was abandoned, its batch stays pending"
    ]
    assert not [w for w in warned if "never awaited" in str(w.message)]
    assert not (env.ws.state_dir / "dream-attempts.json").exists()
    lock = RunLock(env.ws.state_dir)
    assert lock.try_acquire()
    lock.release()


def test_a_stop_as_a_run_is_being_submitted_is_quiet(tmp_path, caplog):
    """Stopped while the first tick (due at once) is submitted or just starting: never an
    APScheduler "raised an exception" / "Error running job" traceback."""
    env = make_env(tmp_path / "ws")
    env.add("- [durable] x")

    async def main(yields: int):
        scheduler = DreamScheduler(Dream(env.store, env.git, HangingClient(), env.config))
        await scheduler.start()
        for _ in range(yields):
            await asyncio.sleep(0)
        await scheduler.stop()

    for yields in range(6):
        asyncio.run(main(yields))
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert env.store.dream_cursor() == 0


def test_sigterm_stops_serve_cleanly(tmp_path):
    root = tmp_path / "ws"
    make_env(root)
    code = (
        "import asyncio, sys\n"
        "from support.dream_helpers import make_env\n"
        "from reverie.schedule.workspace import serve\n"
        f"env = make_env({str(root)!r})\n"
        "async def main():\n"
        "    t = asyncio.create_task(serve(env.dream()))\n"
        "    await asyncio.sleep(0.5)\n"
        "    print('ready', flush=True)\n"
        "    await t\n"
        "    print('stopped', flush=True)\n"
        "asyncio.run(main())\n"
    )
    env = dict(os.environ)
    here = Path(__file__).parent
    env["PYTHONPATH"] = os.pathsep.join([str(here), str(here.parent), env.get("PYTHONPATH", "")])
    p = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert p.stdout.readline().strip() == "ready"
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err[-2000:]
    assert out.strip() == "stopped"


def _serve_until(env, count: int, timeout: float = 30, then=lambda result: None) -> list:
    """Run ``serve`` on ``env`` until ``count`` runs have reported (each handed to ``then``);
    their results."""

    async def main():
        stop = asyncio.Event()
        results = []

        def seen(result):
            results.append(result)
            then(result)
            if len(results) >= count:
                stop.set()

        await asyncio.wait_for(
            serve(env.dream(), stop=stop, handle_signals=False, on_result=seen), timeout
        )
        return results

    return asyncio.run(main())


def test_a_run_that_finds_the_model_down_is_tried_again_before_the_next_interval(tmp_path):
    """``serve --root`` and the fleet try a workspace again after ``outageBackoffSeconds`` when its
    run found the model unavailable; ``reverie serve`` waited for its next run, a whole
    ``intervalH`` (two hours by default)."""
    env = make_env(tmp_path / "ws")
    env.config.serve.outage_backoff_seconds = 0.3
    env.add("- [skip] chit-chat")
    calls: list[float] = []

    def respond(prompt):
        calls.append(time.monotonic())
        return TimeoutError("the provider did not answer") if len(calls) == 1 else "[SKIP]"

    env.fake.responder = respond
    first, second = _serve_until(env, 2)
    assert first.status == "failed" and first.reason.startswith("model unavailable")
    assert second.status == "no-change" and env.store.dream_cursor() == 1
    assert 0.25 <= calls[1] - calls[0] < 10


def test_a_workspace_another_process_is_dreaming_is_tried_again_after_the_retry_delay(tmp_path):
    """The same workspace due in two schedulers (``serve`` here, ``serve --root`` or a fleet job
    holding its Dream lock): tried again after ``serve.retryBackoffSeconds``, as the other two
    drivers do, instead of at the next interval."""
    env = make_env(tmp_path / "ws")
    env.config.serve.retry_backoff_seconds = 0.3
    env.add("- [skip] chit-chat")
    env.fake.responder = lambda prompt: "[SKIP]"
    lock = RunLock(env.ws.state_dir)
    assert lock.try_acquire()
    busy, done = _serve_until(env, 2, then=lambda result: lock.release())
    assert busy.status == "already-running" and done.status == "no-change"
    assert env.store.dream_cursor() == 1


def test_a_workspace_failing_repeatedly_is_retried_with_the_shared_back_off(tmp_path):
    """A memory file that cannot be read fails every run: retried after ``retryBackoffSeconds``,
    doubling (``reverie.schedule.policy.retry_delay``), as ``serve --root`` and the fleet retry."""
    env = make_env(tmp_path / "ws")
    env.config.serve.retry_backoff_seconds = 0.1
    env.config.serve.retry_backoff_max_seconds = 0.4
    env.add("- [durable] x")
    (env.ws.root / "USER.md").write_bytes(b"\xff\xfe not UTF-8\n")
    env.fake.responder = lambda prompt: "[SKIP]"
    seen: list[float] = []
    results = _serve_until(env, 4, then=lambda result: seen.append(time.monotonic()))
    assert all(r.status in ("failed", "error", "rejected") for r in results), results
    gaps = [b - a for a, b in zip(seen, seen[1:], strict=False)]
    assert [g >= w * 0.9 for g, w in zip(gaps, (0.1, 0.2, 0.4), strict=True)] == [True] * 3, gaps


def test_a_run_that_cannot_start_is_one_line_and_retried(tmp_path, caplog):
    """A Dream cursor that cannot be read (no record to restore it from): each try is one line, no
    traceback, and it is retried by the back-off, not at the next interval."""
    env = make_env(tmp_path / "ws")
    env.config.serve.retry_backoff_seconds = 0.1
    env.add("- [durable] x")
    env.ws.dream_cursor_path.write_text("not a number\n")

    async def main():
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(1.5, stop.set)
        await serve(env.dream(), stop=stop, handle_signals=False)

    asyncio.run(main())
    tries = [r for r in caplog.records if "run failed to start" in r.getMessage()]
    assert len(tries) >= 3, [r.getMessage() for r in caplog.records]
    assert all(r.exc_info is None for r in caplog.records)
