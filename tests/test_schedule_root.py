"""``reverie serve --root`` (reverie.schedule.root): Dream for every due scope under a root,
in one process, with the scripted model reached by name (real workspaces, real Dream runs, real
commits)."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.serve_root import all_served, serve_until

from bench.serve_root import dream_responder
from reverie.dream.records import StatusRecord
from reverie.llm.scripted import Reply, ScriptedModel
from reverie.llm.types import Usage
from reverie.memory.runtime import Runtime
from reverie.schedule.policy import TokenBucket
from reverie.schedule.root import RootScheduler
from reverie.storage.config import load_config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore
from reverie.storage.workspace import Workspace


def open_dream(ws: Workspace):
    """What ``reverie serve --root`` hands the scheduler: the scope's Dream, wired by its
    runtime."""
    return Runtime(ws).dream


ROOT_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake(fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    """The shared scripted model (conftest), answering Dream's tasks, with a fast serve config."""
    model = fake
    model.responder = dream_responder
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", model.model)
    monkeypatch.setenv("REVERIE_MEMORY__HISTORY__FSYNC", "false")
    monkeypatch.setenv("REVERIE_LLM__MAX_RETRIES", "0")
    monkeypatch.setenv("REVERIE_SERVE__JITTER_SECONDS", "0")
    monkeypatch.setenv("REVERIE_SERVE__POLL_SECONDS", "0.05")
    return model


def _fill(root: ScopeRoot, users: list[str], entries: int = 1) -> None:
    for user in users:
        store = WorkspaceStore(root.ensure(Scope(user)))
        for i in range(entries):
            store.append_history(f"- [durable] {user} fact {i}", "cli:test")


def _drained(root: ScopeRoot, users: list[str]) -> bool:
    return (
        all(WorkspaceStore(root.workspace(Scope(u))).pending_count() == 0 for u in users)
        and not root.due_names()
    )


def test_every_due_scope_is_dreamed_within_the_concurrency_bound(
    tmp_path: Path, fake: ScriptedModel
) -> None:
    fake.latency = 0.05
    root = ScopeRoot(tmp_path / "root")
    users = [f"u{i}" for i in range(8)]
    _fill(root, users, entries=2)
    root.ensure(Scope("idle"))  # written once, never appended: not due, never touched
    sched = RootScheduler(root, open_dream, max_inflight=3)
    asyncio.run(serve_until(sched, lambda: _drained(root, users)))
    assert sched.stats.finished == {"ok": 8} and sched.stats.started == 8
    assert sched.stats.peak == 3
    for u in users:
        ws = root.workspace(Scope(u))
        assert f"{u} fact" in (ws.root / "USER.md").read_text()
        assert WorkspaceStore(ws).dream_cursor() == 2
    assert not (root.workspace(Scope("idle")).state_dir / "dream-status.json").exists()


def test_a_backlog_drains_batch_by_batch_and_an_append_meanwhile_is_not_lost(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MAX_BATCH_SIZE", "2")
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["a"], entries=5)
    store = WorkspaceStore(root.workspace(Scope("a")))
    appended = []

    def respond(prompt):  # an append lands while the first run is in flight
        if not appended:
            appended.append(store.append_history("- [durable] late fact", "cli:test"))
        return dream_responder(prompt)

    fake.responder = respond
    sched = RootScheduler(root, open_dream, max_inflight=4)
    asyncio.run(serve_until(sched, lambda: _drained(root, ["a"])))
    assert store.dream_cursor() == 6 and sched.stats.finished["ok"] == 3  # batches 1-2, 3-4, 5-6
    assert appended == [
        6
    ]  # the late entry was consumed by the drain, not left behind without a marker


def test_a_scope_dreamed_recently_waits_for_its_interval_plus_its_jitter(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVERIE_SERVE__JITTER_SECONDS", "600")
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["fresh", "recent"])
    ws = root.workspace(Scope("recent"))
    StatusRecord.load(ws.state_dir).record_run("ok", 1, 1, None, None)  # completed just now
    now = time.time()
    sched = RootScheduler(root, open_dream, clock=lambda: now)
    sched.poll()
    due = sched._due  # noqa: SLF001 - the schedule itself is what is under test
    fresh, recent = Scope("fresh").name, Scope("recent").name
    assert due[fresh] == pytest.approx(now + sched.jitter(fresh))
    assert due[recent] == pytest.approx(now + 2 * 3600 + sched.jitter(recent), abs=5)
    assert 0 <= sched.jitter(fresh) < 600 and sched.jitter(fresh) == RootScheduler(
        root, open_dream
    ).jitter(fresh)
    jitters = {sched.jitter(Scope(f"user{i}").name) for i in range(200)}
    assert max(jitters) - min(jitters) > 500  # spread over the window, not bunched


def test_a_scope_whose_last_run_is_recorded_in_the_future_is_due_from_now(
    tmp_path: Path, fake: ScriptedModel, caplog: pytest.LogCaptureFixture
) -> None:
    """A clock that was wrong: read as now (one interval from now, with a warning naming the
    file), not a wait until that date nor a crash."""
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["zoe"])
    status = root.workspace(Scope("zoe")).state_dir / "dream-status.json"
    status.parent.mkdir(parents=True, exist_ok=True)
    status.write_text('{"last_completed": "9999-12-31T23:00:00+00:00"}')
    now = time.time()
    sched = RootScheduler(root, open_dream, clock=lambda: now)
    sched.poll()
    assert sched._due[Scope("zoe").name] == pytest.approx(now + 2 * 3600)  # noqa: SLF001
    (warned,) = [r for r in caplog.records if r.levelname == "WARNING"]
    assert warned.getMessage().startswith(f"{status}: ")


def test_a_provider_outage_pauses_every_run_and_costs_no_attempt(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVERIE_SERVE__BACKOFF_SECONDS", "0.3")
    root = ScopeRoot(tmp_path / "root")
    users = ["a", "b", "c", "d"]
    _fill(root, users)
    failed: list[float] = []
    answered: list[float] = []

    def respond(
        prompt,
    ):  # the provider is down for its first two calls (a timeout past the retry budget)
        if len(failed) < 2:
            failed.append(time.monotonic())
            return TimeoutError("the provider did not answer")
        answered.append(time.monotonic())
        return dream_responder(prompt)

    fake.responder = respond
    sched = RootScheduler(root, open_dream, max_inflight=2)
    asyncio.run(serve_until(sched, lambda: _drained(root, users)))
    assert sched.stats.finished.get("ok") == 4
    assert sched.stats.finished.get("failed") == 2 and 1 <= sched.stats.pauses <= 2
    assert (
        sched.stats.started == 6
    )  # the two failed scopes came back after the pause; nothing else was lost
    assert min(answered) - max(failed) >= 0.25  # no call reached the provider during the pause
    for u in users:
        attempts = root.workspace(Scope(u)).state_dir / "dream-attempts.json"
        assert (
            not attempts.exists() or '"count": 0' in attempts.read_text()
        )  # an outage costs no attempt


def test_the_token_budget_bounds_admission(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVERIE_SERVE__TOKENS_PER_MINUTE", "6000")  # 100 tokens a second
    root = ScopeRoot(tmp_path / "root")
    users = [f"u{i}" for i in range(10)]
    _fill(root, users)

    def respond(prompt):
        reply = dream_responder(prompt)
        return (
            Reply(reply, usage=Usage(1000, 0)) if isinstance(reply, str) else reply
        )  # heavy analysis calls

    fake.responder = respond
    sched = RootScheduler(root, open_dream, max_inflight=10)
    stop = asyncio.Event()

    async def main() -> None:
        task = asyncio.ensure_future(sched.run(stop))
        await asyncio.sleep(2)
        stop.set()
        await task

    asyncio.run(main())
    # a run costs ~3,200 tokens: the first is a probe, then runs start only as the 6,000 + 100/s
    # bucket allows
    per_run = sched.stats.tokens / max(1, sched.stats.done)
    assert per_run > 3000 and 1 <= sched.stats.started <= 3, sched.stats
    assert sched.stats.tokens <= 6000 + 2 * 100 + per_run


def test_token_bucket_refills_and_may_go_negative() -> None:
    now = [0.0]
    bucket = TokenBucket(600, clock=lambda: now[0])
    assert bucket.wait_for(600) == 0
    bucket.take(900)  # a run used more than reserved
    assert bucket.wait_for(100) == pytest.approx(40)  # -300 → +100 at 10 a second
    now[0] = 40
    assert bucket.wait_for(100) == pytest.approx(0)
    assert TokenBucket(None).wait_for(10**9) == 0


def test_stopping_abandons_runs_in_flight_before_they_write(
    tmp_path: Path, fake: ScriptedModel
) -> None:
    fake.latency = 5
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["a", "b"])
    sched = RootScheduler(root, open_dream, max_inflight=2)
    asyncio.run(serve_until(sched, lambda: sched.running == 2))
    for u in ("a", "b"):
        ws = root.workspace(Scope(u))
        assert WorkspaceStore(ws).dream_cursor() == 0
        assert (
            "fact" not in (ws.root / "USER.md").read_text()
            if (ws.root / "USER.md").exists()
            else True
        )
    assert sorted(root.due_names()) == sorted(
        [Scope("a").name, Scope("b").name]
    )  # still due after a restart


def test_a_scope_whose_dream_lock_is_held_elsewhere_is_retried(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reverie.dream.lock import RunLock

    monkeypatch.setenv("REVERIE_SERVE__BUSY_RETRY_SECONDS", "0.2")
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["a"])
    lock = RunLock(root.workspace(Scope("a")).state_dir)
    assert lock.try_acquire()
    sched = RootScheduler(root, open_dream)

    async def main() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(sched.run(stop))
        while sched.stats.finished.get("already-running", 0) < 1:
            await asyncio.sleep(0.02)
        lock.release()
        while not _drained(root, ["a"]):
            await asyncio.sleep(0.02)
        stop.set()
        await task

    asyncio.run(asyncio.wait_for(main(), 20))
    assert sched.stats.finished["ok"] == 1


def test_serve_root_cli_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    """A real process: started on a root, SIGTERM while idle → exit 0 with the stop line. (It is
    given ``--concurrency``, the old name of ``--max-inflight``, still taken.)"""
    root = ScopeRoot(tmp_path / "root")
    root.root.mkdir()  # an empty root (a missing one is refused: see below)
    env = {**os.environ, "PYTHONPATH": str(ROOT_DIR)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", "--root", str(root.root), "serve", "--concurrency", "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT_DIR),
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert "serve" in first and str(root.root) in first
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == -signal.SIGTERM, err  # ended by it, cleanly: $? 143 (harden2)
    assert "stopped" in out


def test_sigterm_abandons_runs_in_flight_in_the_real_process(tmp_path: Path) -> None:
    """``reverie --root DIR serve`` in its own process with a model that takes 60 s: SIGTERM while
    both runs hold their Dream locks (so both are mid-run, in worker threads) → exit 0 at once,
    nothing written, markers kept."""
    from reverie.dream.lock import RunLock

    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["a", "b"])
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT_DIR),
        "REVERIE_MODEL": "scripted/pty",
        "SCRIPTED_SLOW": "60",
        "SCRIPTED_SLOW_TASKS": "dream-analyze",
        "REVERIE_SERVE__JITTER_SECONDS": "0",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT_DIR / "tests/support/scripted_cli.py"),
            "--root",
            str(root.root),
            "serve",
            "--max-inflight",
            "4",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT_DIR),
    )
    try:
        locks = [RunLock(root.workspace(Scope(u)).state_dir) for u in ("a", "b")]
        deadline = time.monotonic() + 60
        while True:  # a run in flight holds its scope's Dream lock
            held = [not lock.try_acquire() for lock in locks]
            for lock, busy in zip(locks, held, strict=True):
                if not busy:
                    lock.release()
            if all(held):
                break
            assert time.monotonic() < deadline and proc.poll() is None, (
                proc.stderr.read() if proc.stderr else ""
            )
            time.sleep(0.05)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err  # main(argv) returns it (harden2); `reverie` ends by it
    assert time.monotonic() - started < 20 and "stopped (0 runs" in out
    for u in ("a", "b"):
        ws = root.workspace(Scope(u))
        assert WorkspaceStore(ws).dream_cursor() == 0
        assert not (ws.state_dir / "dream-status.json").exists()
    assert sorted(root.due_names()) == sorted([Scope("a").name, Scope("b").name])


def test_rescan_rebuilds_lost_markers(tmp_path: Path, fake: ScriptedModel) -> None:
    from reverie.cli import main

    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["a", "b"])
    for name in root.due_names():
        root.unmark_due(name)
    assert load_config().serve.jitter_seconds == 0
    assert main(["--root", str(root.root), "serve", "--rescan"]) == 0
    assert sorted(root.due_names()) == sorted([Scope("a").name, Scope("b").name])


# -- issue 35: what an operator sees ---------------------------------------------------------------


def test_serve_root_metrics_scraped_with_the_prometheus_parser(
    tmp_path: Path, fake: ScriptedModel
) -> None:
    pytest.importorskip("prometheus_client", reason="the `fleet` extra is not installed")
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    from reverie.fleet.metrics import BacklogCollector, serve_metrics

    root = ScopeRoot(tmp_path / "root")
    users = [f"u{i}" for i in range(4)]
    _fill(root, users)
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=2)
    host, port = serve_metrics(BacklogCollector(lambda: sched.snapshot), 0, "127.0.0.1")
    asyncio.run(serve_until(sched, lambda: _drained(root, users)))
    sched.snapshot = sched.backlog()
    text = urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10).read().decode()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
    }
    assert samples[("reverie_runs_total", (("status", "ok"),))] == 4
    assert samples[("reverie_run_failures_total", ())] == 0
    assert samples[("reverie_model_tokens_total", ())] == sched.stats.tokens > 0
    assert samples[("reverie_due_workspaces", ())] == 0
    assert samples[("reverie_in_flight_runs", ())] == 0
    assert samples[("reverie_oldest_due_age_seconds", ())] == 0
    assert sched.snapshot.runs_per_minute > 0


def test_a_broken_scope_backs_off_and_says_so(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    """Issue 35: a broken scope logged a line every retryBackoffSeconds forever. Now each failure in
    a row doubles the wait (up to retryBackoffMaxSeconds), and the line says how many and for how
    long."""
    monkeypatch.setenv("REVERIE_SERVE__RETRY_BACKOFF_SECONDS", "0.05")
    monkeypatch.setenv("REVERIE_SERVE__RETRY_BACKOFF_MAX_SECONDS", "0.8")
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["broken"])
    ws = root.workspace(Scope("broken"))
    (ws.root / "USER.md").write_bytes(b"\xff\xfe not UTF-8\n")  # cannot be read: the run fails
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)
    started = time.monotonic()
    asyncio.run(serve_until(sched, lambda: time.monotonic() - started > 2.5))
    lines = [r.getMessage() for r in caplog.records if "failure(s) in a row" in r.getMessage()]
    waits = [float(line.rsplit("next try in ", 1)[1].rstrip("s)")) for line in lines]
    assert 4 <= len(lines) <= 8, lines  # a fixed 0.05 s retry would have logged ~50
    assert waits[:5] == [0.05, 0.1, 0.2, 0.4, 0.8], waits
    assert all(w == 0.8 for w in waits[5:])
    assert sched.snapshot.failures_per_minute > 0


def test_serve_root_json_lines_and_a_live_line_on_a_terminal(tmp_path: Path) -> None:
    """A real process: --json prints one backlog object a line; on a terminal a live line is
    rewritten in place."""
    import json

    pexpect = pytest.importorskip("pexpect")
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["a", "b"])
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT_DIR),
        "REVERIE_SERVE__JITTER_SECONDS": "0",
        "REVERIE_SERVE__PROGRESS_SECONDS": "0.2",
        "REVERIE_MEMORY__HISTORY__FSYNC": "false",
    }
    argv = [sys.executable, "-m", "reverie", "--root", str(root.root), "serve"]
    proc = subprocess.Popen(
        [*argv, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        seen.append(json.loads(proc.stdout.readline()))
        if seen[-1]["runs"].get("ok", 0) + seen[-1]["runs"].get("no-change", 0) >= 2:
            break
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == -signal.SIGTERM, err  # ended by it, cleanly: $? 143 (harden2)
    last = seen[-1]
    assert {"due", "waiting", "in_flight", "runs_per_minute", "oldest_due_seconds"} <= set(last)
    assert last["runs_per_minute"] > 0 and last["due"] == 0
    child = pexpect.spawn(argv[0], argv[1:], env=env, encoding="utf-8", timeout=20)
    try:
        child.expect(r"\r\x1b\[2Kdue \d+ · waiting \d+ · in flight \d+ · [\d.]+ runs/min")
        child.expect(r"\r\x1b\[2Kdue")  # rewritten in place, a second later
    finally:
        child.kill(signal.SIGTERM)
        child.wait()


def test_serve_rates_are_never_extrapolated_and_errors_are_runs(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35's attack: two failures in the first second read "119.0 failed/min", and an error
    counted in runs/min but not in the runs total. Now a rate is the last minute's count."""
    from reverie.schedule import root as serve_root

    monkeypatch.setenv("REVERIE_SERVE__BUSY_RETRY_SECONDS", "0.05")
    monkeypatch.setenv("REVERIE_SERVE__BACKOFF_MAX_SECONDS", "0.1")
    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["full"])

    def disk_full(*args: object) -> None:  # the disk's fault: an error, not a run's failure
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(serve_root, "_run_in_thread", disk_full)
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)
    asyncio.run(serve_until(sched, lambda: sched.stats.errors >= 3))
    b = sched.backlog()
    assert b.failures_per_minute == b.runs_per_minute == sched.stats.errors  # was: ×60/elapsed
    assert sum(b.runs.values()) == sched.stats.errors and b.failures == sched.stats.errors


def test_a_run_refused_because_its_user_was_forgotten_is_no_failure(
    tmp_path: Path, fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reverie.errors import FencedError
    from reverie.operations.forget import forget_user
    from reverie.schedule import root as serve_root

    root = ScopeRoot(tmp_path / "root")
    _fill(root, ["gone"])

    def forgotten_mid_run(*args: object) -> None:  # forget-user ran while the run was in flight
        forget_user(root, "gone")
        raise FencedError("the workspace was replaced while the run was in flight")

    monkeypatch.setattr(serve_root, "_run_in_thread", forgotten_mid_run)
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)
    asyncio.run(serve_until(sched, lambda: not root.exists(Scope("gone")) and not sched._running))
    b = sched.backlog()
    assert sched.stats.errors == 0 and b.failures == 0 and b.failures_per_minute == 0
    assert root.due_names() == []


# -- scopes with nothing to dream, scopes that go away, roots that are not ------------------------


def _files(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")}


@pytest.mark.parametrize("history", ["empty", "blank lines"])
def test_a_scope_whose_history_never_held_an_entry_is_left_as_it_was(
    tmp_path: Path, fake: ScriptedModel, history: str
) -> None:
    """A scope made by ``ScopeRoot.ensure`` whose ``history.jsonl`` exists but never held an entry,
    with a due marker, is left as it was (no repository, no init commit, no lock or state file) and
    its marker removed."""
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("real"))).append_history("- [durable] real fact", "cli:t")
    empty = root.ensure(Scope("empty"))
    empty.history_path.parent.mkdir(parents=True, exist_ok=True)
    empty.history_path.write_text("" if history == "empty" else "\n\n", "utf-8")
    root.mark_due(Scope("empty"))
    before = _files(empty.root)
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)
    asyncio.run(serve_until(sched, all_served(root, sched), timeout=60))
    assert _files(empty.root) == before
    assert not (empty.root / ".git").exists()
    assert WorkspaceStore(root.workspace(Scope("real"))).pending_count() == 0  # served all the same


@pytest.mark.parametrize("when", ["at-open", "mid-run"])
@pytest.mark.parametrize("how", ["removed", "moved"])
def test_a_scope_that_goes_away_mid_run_is_one_line_and_skipped(
    tmp_path: Path,
    fake: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    how: str,
    when: str,
) -> None:
    """A scope removed or moved while its run is in flight is one line saying it went away, not an
    "unexpected error" retried with back-off."""
    monkeypatch.setenv("REVERIE_SERVE__RETRY_BACKOFF_SECONDS", "0.05")
    root = ScopeRoot(tmp_path / "root")
    for user in ("gone", "kept"):
        store = WorkspaceStore(root.ensure(Scope(user)))
        store.append_history(f"- [durable] {user} lives in Oslo", "cli:test")
    gone = root.workspace(Scope("gone")).root.parent
    went: list[bool] = []

    def go() -> None:
        went.append(True)
        if how == "removed":
            shutil.rmtree(gone)
        else:
            gone.rename(tmp_path / "elsewhere")

    def the_folder_goes_mid_run(prompt):  # while the model answers the scope's batch
        if when == "mid-run" and "gone lives in Oslo" in str(prompt.user) and not went:
            go()
        return dream_responder(prompt)

    def open_going(ws):  # after the scheduler found the scope, as the run opens it
        if when == "at-open" and ws.root.parent == gone:
            go()
        return open_dream(ws)

    fake.responder = the_folder_goes_mid_run
    sched = RootScheduler(root, open_going, config=load_config(), max_inflight=1)
    caplog.set_level(logging.INFO)

    # a retry would come within the 0.3 s after
    asyncio.run(serve_until(sched, all_served(root, sched), settle=0.3))
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("serve:")]
    said = [line for line in lines if "went away while it ran" in line]
    assert len(said) == 1, (lines, gone.exists(), sched.stats)
    assert not [line for line in lines if "unexpected error" in line or "in a row" in line], lines
    assert sched.stats.errors == 0
    assert WorkspaceStore(root.workspace(Scope("kept"))).pending_count() == 0
    assert went and not gone.exists()  # nothing re-created it


def test_a_due_marker_for_a_scope_with_no_history_writes_nothing_into_it(
    tmp_path: Path, fake: ScriptedModel
) -> None:
    """An empty scope folder with a due marker (a stray marker, a half-made scope): serve removes
    the marker and never makes the folder a workspace (no repository, no init commit)."""
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("real"))).append_history("- [durable] real fact", "cli:t")
    digest = "0123456789abcdef0123456789abcdef"
    empty = tmp_path / "root" / "users" / digest[:2] / digest[2:4] / digest / "workspace"
    empty.mkdir(parents=True)
    (tmp_path / "root" / "due" / digest[:2]).mkdir(parents=True, exist_ok=True)
    (tmp_path / "root" / "due" / digest[:2] / digest).touch()
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)
    asyncio.run(serve_until(sched, all_served(root, sched)))
    assert list(empty.iterdir()) == []
    assert WorkspaceStore(root.workspace(Scope("real"))).pending_count() == 0


def _serve_cmd(root: Path) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "REVERIE_HOME": str(root.parent / "home")}
    return [sys.executable, "-m", "reverie", "--root", str(root), "serve"], env


def test_serve_root_on_a_workspace_is_refused_in_one_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    env = {**os.environ, "REVERIE_HOME": str(tmp_path / "home")}
    subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "init"],
        env=env,
        check=True,
        capture_output=True,
    )
    before = sorted(p.name for p in ws.iterdir())
    cmd, env = _serve_cmd(ws)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode != 0
    assert f"{ws} is a workspace, not a root of scopes" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in ws.iterdir()) == before


def test_serve_root_on_a_missing_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    # a mistyped root would be served, empty, for ever: refused, and nothing is created
    for extra in ([], ["--rescan"]):
        cmd, env = _serve_cmd(tmp_path / "nothere")
        done = subprocess.run(cmd + extra, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1, done.stderr
        assert done.stderr.splitlines() == [
            f"reverie: error: {tmp_path / 'nothere'} does not exist: --root names a root of "
            "scopes (the first scope written there creates it: `reverie --root DIR --user ID init`)"
        ]
        assert not (tmp_path / "nothere").exists()
