"""The drivers of Dream's one scheduling policy agree where they used to differ: ``serve --root``
(reverie.schedule.root) and the fleet (reverie.fleet) on a real redis-server, jobs run in process
on the real Runtime with a scripted model. Each test names what one driver did before."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

import pytest
from support.cli import invoke
from support.fleet import RedisServer, fleet_env, wait_for
from support.fleet_fixtures import needs_redis

from bench.serve_root import dream_responder
from reverie.dream.lock import RunLock
from reverie.dream.records import Attempts
from reverie.llm.scripted import ScriptedModel
from reverie.schedule.policy import retry_delay
from reverie.storage.config import load_config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")


@pytest.fixture
def fake(fake: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    fake.responder = dream_responder
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", fake.model)
    monkeypatch.setenv("REVERIE_MEMORY__HISTORY__FSYNC", "false")
    monkeypatch.setenv("REVERIE_LLM__MAX_RETRIES", "0")
    return fake


def _fleet(root: Path, server: RedisServer, monkeypatch: pytest.MonkeyPatch, **fleet: object):
    from reverie.fleet import Fleet

    for key, value in fleet_env(root, server).items():
        if key.startswith("REVERIE_") and key not in os.environ:  # the fake's model stays
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("REVERIE_FLEET__DEBOUNCE_SECONDS", "0")
    monkeypatch.setenv("REVERIE_FLEET__JITTER_SECONDS", "0")
    for key, value in fleet.items():
        monkeypatch.setenv(f"REVERIE_FLEET__{key.upper()}", str(value))
    return Fleet(load_config())


def _fill(root: Path, users: list[str]) -> ScopeRoot:
    scopes = ScopeRoot(root)
    for user in users:
        WorkspaceStore(scopes.ensure(Scope(user))).append_history(f"- [durable] {user} fact")
    return scopes


def _pending(scopes: ScopeRoot, user: str) -> int:
    return WorkspaceStore(scopes.workspace(Scope(user))).pending_count()


def test_a_workspace_another_scheduler_is_dreaming_stays_due_in_the_fleet(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, fake: ScriptedModel
) -> None:
    """The same workspace due in two schedulers: ``reverie serve`` (or ``serve --root``, or a
    ``reverie dream``) holds its Dream lock when the fleet's job comes. ``serve --root`` tries such
    a scope again after ``retryBackoffSeconds``; the fleet's job released its claim and left the
    workspace out of the due index (dreamed again only after a new append, or a full listing of
    the markers). Now it is due again after ``retryBackoffSeconds``, with no failure counted."""
    root = tmp_path / "root"
    scopes = _fill(root, ["ann"])
    fleet = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=0.5)
    ws = Scope("ann").name
    lock = RunLock(scopes.workspace(Scope("ann")).state_dir)
    assert lock.try_acquire()  # the other scheduler's run
    try:
        sent: list[str] = []
        fleet.dispatch_once(sent.append)
        assert sent == [ws]
        before = time.time()
        outcome = fleet.run_job(ws)
        assert outcome.status == "already-running"
        due = fleet.coord.due()
        assert ws in due and before + 0.5 <= due[ws] <= time.time() + 0.5, due
        assert fleet.coord.r.hget("reverie:failures", ws) is None
        assert fleet.dispatch_once(sent.append) == []  # not before its retry time
    finally:
        lock.release()
    time.sleep(0.6)
    assert fleet.dispatch_once(lambda w: None) == [ws]
    assert fleet.run_job(ws).status == "ok" and _pending(scopes, "ann") == 0


def test_a_provider_outage_pauses_every_fleet_dispatch_and_costs_no_failure(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, fake: ScriptedModel
) -> None:
    """``serve --root`` pauses every run while the model is unavailable; the fleet kept sending a
    job per due workspace, each failing alike and counted as that workspace's failure (its back-off
    growing for the provider's fault). Now the first run that finds the model down pauses every
    dispatch for ``outageBackoffSeconds`` (doubling while it stays down), and no failure or
    attempt is counted."""
    from reverie.fleet.metrics import backlog_of

    users = ["a", "b", "c"]
    root = tmp_path / "root"
    scopes = _fill(root, users)
    fleet = _fleet(root, redis_server, monkeypatch, outage_backoff_seconds=0.6, max_inflight=1)
    down = {"calls": 0}

    def respond(prompt):
        if down["calls"] < 1:
            down["calls"] += 1
            return TimeoutError("the provider did not answer")
        return dream_responder(prompt)

    fake.responder = respond
    first = fleet.dispatch_once(lambda w: None)
    outcome = fleet.run_job(first[0])
    assert outcome.status == "failed" and outcome.reason.startswith("model unavailable")
    paused = fleet.coord.paused_until()
    assert paused > time.time() and outcome.next_due == paused
    assert fleet.admission() == (0, 0.0)
    assert fleet.dispatch_once(lambda w: None) == []  # the others wait with it
    assert backlog_of(fleet.status()).paused
    shown = invoke("fleet", "status", env=dict(os.environ))
    assert "paused: model unavailable" in shown.stdout and "no job is sent for" in shown.stdout
    assert fleet.coord.r.hgetall("reverie:failures") == {}
    wait_for(lambda: time.time() >= paused, 5, "the pause to end")
    while any(_pending(scopes, u) for u in users):
        for ws in fleet.dispatch_once(lambda w: None):
            assert fleet.run_job(ws).status == "ok"
        time.sleep(0.05)
    for user in users:
        assert Attempts.load(scopes.workspace(Scope(user)).state_dir).count == 0
    assert fleet.coord.r.get("reverie:outages") is None  # a run reached the model: reset


def test_a_workspace_failing_repeatedly_backs_off_by_the_same_rule_in_both_drivers(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, fake: ScriptedModel
) -> None:
    """A workspace whose runs keep failing (a memory file that is not UTF-8): the fleet waits
    ``retry_delay(n)`` after the n-th failure in a row — the rule ``serve --root`` logs by
    (test_schedule_root.py::test_a_broken_scope_backs_off_and_says_so) — and with a cap set below
    the first delay it waits the first delay (the fleet cut it to the cap)."""
    root = tmp_path / "root"
    scopes = _fill(root, ["broken"])
    ws_dir = scopes.workspace(Scope("broken")).root
    (ws_dir / "USER.md").write_bytes(b"\xff\xfe not UTF-8\n")
    fleet = _fleet(
        root, redis_server, monkeypatch, retry_backoff_seconds=0.2, retry_backoff_max_seconds=0.1
    )
    ws = Scope("broken").name
    waits = []
    for _ in range(3):
        claimed = wait_for(lambda: fleet.dispatch_once(lambda w: None), 5, "the retry")
        assert claimed == [ws]
        outcome = fleet.run_job(ws)
        assert outcome.status in ("failed", "error"), outcome
        waits.append(round(fleet.coord.due()[ws] - time.time(), 1))
    assert waits == [retry_delay(n, 0.2, 0.1) for n in (1, 2, 3)] == [0.2, 0.2, 0.2]
    assert int(fleet.coord.r.hget("reverie:failures", ws)) == 3


def test_the_fleet_reserves_tokens_when_it_dispatches(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve --root`` takes a run's estimated tokens from its bucket when the run starts and
    settles the difference when it ends; the fleet debited only when a job ended, so every tick
    until then admitted the same runs again (only ``maxInflight`` held). Now each claim reserves
    the estimate, and the job's end settles it with its real use."""
    root = tmp_path / "root"
    _fill(root, [f"u{i}" for i in range(8)])
    fleet = _fleet(root, redis_server, monkeypatch, tokens_per_minute=10_000, tokens_per_run=4_000)
    first = fleet.dispatch_once(lambda w: None)
    assert len(first) == 2  # a full bucket: two runs of 4,000
    assert fleet.dispatch_once(lambda w: None) == []  # was: two more each tick
    level = fleet.coord.tokens(10_000)
    assert level < 4_000
    fleet.coord.record_run(first[0], "ok", 1_000, 10_000)  # used 1,000 of the 4,000 it reserved
    assert fleet.coord.tokens(10_000) >= level + 3_000
    assert fleet.coord.tokens_per_run(4_000) == 1_000.0  # the first real run is the estimate
    # a job that ends without a run (another process holds the workspace) gives its 4,000 back
    scopes = ScopeRoot(root)
    other = next(s for s, _ in scopes.scopes() if s.name == first[1])
    lock = RunLock(scopes.workspace(other).state_dir)
    assert lock.try_acquire()
    try:
        level = fleet.coord.tokens(10_000)
        assert fleet.run_job(first[1]).status == "already-running"
        assert fleet.coord.tokens(10_000) >= level + 4_000
        assert fleet.coord.r.hgetall("reverie:reserved") == {}
    finally:
        lock.release()


def test_the_dispatcher_waits_by_the_shared_backoff_while_redis_is_down_and_resumes(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    """Redis down and back: the dispatcher's waits are ``reconnect_delay``'s (its own doubling
    formula before), one line each, and it sends the due workspaces once Redis answers again."""
    root = tmp_path / "root"
    _fill(root, ["ann"])
    fleet = _fleet(root, redis_server, monkeypatch, dispatch_every_seconds=0.1, claim_seconds=1.6)
    fleet.coord.r.ping()
    redis_server.kill()
    stop = threading.Event()
    sent: list[str] = []

    def tick(ids: list[str]) -> None:
        sent.extend(ids)
        if ids:
            stop.set()

    caplog.set_level(logging.WARNING, logger="reverie.fleet.fleet")
    thread = threading.Thread(target=fleet.serve_dispatch, args=(lambda w: None, stop, tick))
    thread.start()
    try:
        wait_for(lambda: caplog.text.count("trying again in") >= 3, 60, "three failed ticks")
        redis_server.start()
        thread.join(60)
    finally:
        stop.set()
        thread.join(10)
    waits = [
        float(r.getMessage().rsplit("trying again in ", 1)[1].rstrip("s"))
        for r in caplog.records
        if "trying again in" in r.getMessage()
    ]
    assert waits[:3] == [0.1, 0.2, 0.4], waits  # tick period, doubling, cap a quarter claim: 0.4
    assert all(w == 0.4 for w in waits[3:])
    assert sent == [Scope("ann").name]


def test_jobs_that_find_the_model_down_at_once_start_one_pause(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight workers' jobs failing together on one outage: one pause of the first length, not
    eight doublings (``serve --root`` escalates once per pause, in one loop)."""
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    from reverie.fleet.coord import Coordinator

    now = time.time()
    ends: list[float] = []
    barrier = threading.Barrier(8)

    def fail() -> None:
        coord = Coordinator.connect(redis_server.url)
        barrier.wait()
        ends.append(coord.pause(now, 30, 900))

    threads = [threading.Thread(target=fail) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert ends == [now + 30] * 8
    assert fleet.coord.r.get("reverie:outages") == "1"
    assert fleet.coord.pause(now + 31, 30, 900) == now + 31 + 60  # still down after it: doubled


def test_damaged_policy_keys_in_redis_do_not_stop_the_dispatcher(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys written over by someone else (or a bad restore): read as none, never a traceback."""
    root = tmp_path / "root"
    _fill(root, ["ann"])
    fleet = _fleet(root, redis_server, monkeypatch, tokens_per_minute=10_000)
    ws = Scope("ann").name
    fleet.coord.r.set("reverie:paused-until", "soon")
    fleet.coord.r.set("reverie:estimate", "nan")
    fleet.coord.r.set("reverie:outages", "many")
    assert fleet.dispatch_once(lambda w: None) == [ws]
    fleet.coord.r.hset("reverie:reserved", ws, "\xff")
    fleet.coord.record_run(ws, "ok", 500, 10_000)
    assert fleet.coord.tokens_per_run(20_000) == 500.0
    assert fleet.coord.pause(time.time(), 30, 900) > time.time()


def test_a_workspace_whose_run_raises_an_unexpected_error_backs_off_in_the_fleet(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, fake: ScriptedModel
) -> None:
    """A bug that raises out of one workspace's run: ``serve --root`` backs the scope off like a
    failure; the fleet's job let it out (a traceback in the worker) and the workspace came back
    every ``claimSeconds``, unslowed. Now it is an ``error`` with one line and the back-off."""
    from reverie.fleet.job import run_dream_job
    from reverie.memory.runtime import Runtime

    root = tmp_path / "root"
    _fill(root, ["bug"])
    fleet = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=30)
    ws = Scope("bug").name

    def buggy(path: Path) -> Runtime:
        rt = Runtime(path)

        async def run(**_: object) -> None:
            raise KeyError("a bug")

        rt.dream.run = run  # type: ignore[method-assign]
        return rt

    assert fleet.dispatch_once(lambda w: None) == [ws]
    outcome = run_dream_job(fleet.coord, fleet.cfg, fleet.root, ws, "scopes", runtime=buggy)
    assert outcome.status == "error" and outcome.reason == "unexpected error: KeyError: 'a bug'"
    assert 25 < fleet.coord.due()[ws] - time.time() <= 30
    assert fleet.coord.inflight() == 0 and int(fleet.coord.r.hget("reverie:failures", ws)) == 1
