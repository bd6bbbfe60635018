"""The attack on issue 35, the fleet's side (real redis-server, real `reverie fleet worker` and
dispatcher processes): a worker that exits on a broker fault is started again and drains, a job's
bookkeeping error on disk ends in one line and never parks, a stray due marker is removed,
forget-user
finds the fleet's Redis whatever the spelling of the root and says whether it searched it, Redis
passwords are never printed, forget's order against a heartbeat, and the operator's flags. Each test
failed on main before the fix it names. Without Redis: test_scopes_upgrade.py."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sys
import time
import types
from pathlib import Path

import pytest
from support.cli import invoke
from support.fleet import (
    Proc,
    RedisServer,
    fleet_env,
    start_dispatcher,
    wait_for,
)
from support.fleet_fixtures import needs_redis

from reverie.storage.config import Config, load_config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
celery = pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")

PASSWORD_URL = "redis://:S3cretPassw0rd@127.0.0.1:1/0"  # nothing listens on port 1


def _env(root: Path, server: RedisServer, monkeypatch: pytest.MonkeyPatch, **fleet: object) -> None:
    for key, value in fleet_env(root, server).items():
        if key.startswith("REVERIE_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", "reverie/offline")
    for key, value in fleet.items():
        monkeypatch.setenv(f"REVERIE_FLEET__{key.upper()}", str(value))


def _fleet(root: Path, server: RedisServer, monkeypatch: pytest.MonkeyPatch, **fleet: object):
    from reverie.fleet import Fleet

    _env(root, server, monkeypatch, **fleet)
    return Fleet(load_config())


def _append(root: Path, user: str, text: str) -> WorkspaceStore:
    config = Config()
    config.memory.history.fsync = False
    store = WorkspaceStore(ScopeRoot(root).ensure(Scope(user)), config=config)
    store.append_history(text, "cli:test")
    return store


# -- H4: a worker that exits by itself is started again, and drains --------------------------------


def _pending(stores: list[WorkspaceStore]) -> int:
    return sum(s.pending_count() for s in stores)


def test_a_supervised_worker_survives_redis_down_and_its_celery_dying(tmp_path, redis_server):
    """`reverie fleet worker` runs Celery as a child and starts it again when it exits by itself (a
    kombu race can end it with "Unrecoverable error" when Redis dies mid-job). Here: Redis killed
    with a job in flight and left down for seconds, then the Celery process SIGKILLed (an exit the
    supervisor did not ask for); the restarted worker drains everything appended meanwhile."""
    root = tmp_path / "root"
    stores = [
        _append(root, f"u{i}", f"- [durable] Project p{i} uses database db{i}") for i in range(6)
    ]
    env = fleet_env(
        root,
        redis_server,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        TMPDIR=str(tmp_path),
    )
    worker = Proc(
        [sys.executable, "-m", "reverie", "fleet", "worker", "-c", "2", "--name", "sup"],
        env,
        tmp_path / "worker.log",
    )
    dispatcher = start_dispatcher(env, tmp_path)
    pids = lambda: [
        int(p) for p in re.findall(r"Celery worker started \(pid (\d+)\)", worker.text())
    ]  # noqa: E731
    wait_for(lambda: _pending(stores) < 6, 60, "the first jobs to run")
    redis_server.kill()  # mid-drain: jobs in flight lose their broker
    time.sleep(6)  # down for seconds: Celery's reconnect loop, not a blip
    redis_server.start()
    wait_for(lambda: _pending(stores) == 0, 90, "the worker to drain after Redis came back")
    assert worker.alive(), worker.text()[-3000:]
    first = pids()[-1]
    os.kill(first, signal.SIGKILL)  # the Celery worker dies on its own
    wait_for(lambda: len(pids()) >= 2, 30, "the supervisor to start Celery again")
    assert "exited by itself" in worker.text()
    later = [
        _append(root, f"v{i}", f"- [durable] Project q{i} uses database dq{i}") for i in range(3)
    ]
    wait_for(lambda: _pending(later) == 0, 90, "the restarted worker to drain")
    worker.stop(signal.SIGTERM)
    dispatcher.stop(signal.SIGTERM)
    assert "Traceback" not in worker.text().split("exited by itself")[0] or len(pids()) >= 2


# -- M3: a job's bookkeeping error on disk: one line, no false park --------------------------------


def test_a_marker_that_cannot_be_removed_ends_the_job_in_one_line_and_never_parks(
    tmp_path, redis_server, monkeypatch, caplog
):
    root = tmp_path / "root"
    fleet = _fleet(root, redis_server, monkeypatch, crash_park_after=2)
    ws = Scope("ann").name
    scopes = ScopeRoot(root)
    for n in range(3):
        _append(root, "ann", f"- [durable] Project p{n} uses database db{n}")
        marker = scopes.due_path(ws)
        if not marker.is_dir():
            marker.unlink()
            marker.mkdir()
            (marker / "junk").touch()  # a directory with content: rmdir cannot take it
        outcome = fleet.run_job(ws)
        assert outcome.status == "error" and "remove it by hand" in outcome.reason
        assert "\n" not in outcome.reason
    assert fleet.status().parked == {}  # was: "3 jobs died mid-run (killed, …)" after 2
    assert "Traceback" not in caplog.text


# -- M4: a stray marker is removed by its gone job -------------------------------------------------


def test_a_stray_due_marker_is_removed_and_stops_the_false_alert(
    tmp_path, redis_server, monkeypatch, capsys
):
    from reverie.cli import main

    root = tmp_path / "root"
    fleet = _fleet(root, redis_server, monkeypatch)
    _append(root, "ann", "- [durable] Project p1 uses database db1")
    stray = "ab" * 16
    ScopeRoot(root).mark_due(stray)  # no such workspace
    sent = fleet.dispatch_once(lambda ws: None)
    assert stray in sent
    outcome = fleet.run_job(stray)
    assert outcome.status == "gone"
    assert stray not in ScopeRoot(root).due_names()  # was: left, a gone job every claimSeconds
    fleet.run_job(Scope("ann").name)
    state = fleet.status()
    assert state.markers_missing == 0 and stray not in fleet.coord.known()
    capsys.readouterr()
    assert main(["fleet", "status"]) == 0
    assert "disagree" not in capsys.readouterr().out  # was: "Redis lost data", for ever


# -- M5: forget-user finds the fleet's Redis by the root's real path, and says so ------------------


@pytest.mark.parametrize("spelling", ["dotdot", "symlinked-parent"])
def test_forget_user_cleans_redis_whatever_the_spelling_of_the_root(
    tmp_path, redis_server, monkeypatch, spelling
):
    root = tmp_path / "f1"
    fleet = _fleet(root, redis_server, monkeypatch)
    _append(root, "zed", "zed secret")
    ws = Scope("zed").name
    fleet.dispatch_once(lambda ws: None)
    fleet.coord.park(ws, "test")
    assert ws in fleet.coord.known()
    if spelling == "dotdot":
        (tmp_path / "logs").mkdir()
        given = f"{tmp_path}/logs/../f1"
    else:
        (tmp_path / "alias").symlink_to(tmp_path)
        given = f"{tmp_path}/alias/f1"
    env = {k: v for k, v in os.environ.items() if k.startswith("REVERIE_")}
    result = invoke("--root", given, "forget-user", "zed", "--yes", env=env)
    assert result.returncode == 0, result.stderr
    assert "fleet entries in Redis: searched" in result.stdout
    assert ws not in fleet.coord.known() and fleet.coord.parked() == {}  # was: skipped, exit 0


def test_forget_user_says_when_it_did_not_search_redis(tmp_path, monkeypatch):
    monkeypatch.delenv("REVERIE_FLEET__ROOT", raising=False)
    root = tmp_path / "f1"
    _append(root, "zed", "zed secret")
    result = invoke("--root", str(root), "forget-user", "zed", "--yes")
    assert result.returncode == 0, result.stderr
    assert "fleet entries in Redis: not searched" in result.stdout


# -- M8: a Redis password is never printed ---------------------------------------------------------


def test_a_redis_password_is_masked_everywhere_it_could_be_printed(tmp_path, monkeypatch, caplog):
    import threading

    from reverie.fleet import Fleet

    root = tmp_path / "root"
    _append(root, "zed", "zed secret")
    env = {"REVERIE_FLEET__ROOT": str(root), "REVERIE_FLEET__BROKER_URL": PASSWORD_URL}
    status = invoke("fleet", "status", env=env)
    forget = invoke("--root", str(root), "forget-user", "zed", "--yes", env=env)
    for result in (status, forget):
        assert result.returncode != 0
        assert "S3cret" not in result.stdout + result.stderr
        assert "redis://:**@127.0.0.1:1/0" in result.stderr, result.stderr
    nobody = invoke("--root", str(root), "forget-user", "nobody", "--yes", env=env)
    assert nobody.returncode == 1 and "has no memory" in nobody.stdout
    assert "deleted" not in nobody.stdout + nobody.stderr  # was: "the files of user … are deleted"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    fleet = Fleet(load_config())
    stop = threading.Event()
    fleet.serve_dispatch(lambda ws: None, stop, on_tick=lambda sent: stop.set())
    assert "Redis at redis://:**@127.0.0.1:1/0 failed" in caplog.text
    assert "S3cret" not in caplog.text


# -- low: forget removes the lease before the claim a heartbeat could renew ------------------------


def test_forget_leaves_no_claim_a_heartbeat_could_put_back(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    coord = fleet.coord
    ws = Scope("zed").name
    assert coord.acquire(ws, "tok", 30, 30)
    zscan = coord.r.zscan_iter

    def heartbeat_between(key, **kw):  # a job's renewal lands while forget runs (forced)
        coord.renew(ws, "tok", 30, 30)
        return zscan(key, **kw)

    monkeypatch.setattr(coord.r, "zscan_iter", heartbeat_between)
    coord.forget(Scope("zed").user_digest)
    monkeypatch.setattr(coord.r, "zscan_iter", zscan)
    assert coord.holder(ws) is None
    assert coord.r.zscore("reverie:claims", ws) is None  # was: the renewal put the claim back


# -- low: the worker's metrics flag and exporter ---------------------------------------------------


def test_worker_metrics_port_out_of_range_is_one_line(tmp_path, redis_server):
    env = fleet_env(tmp_path / "root", redis_server)
    result = invoke("fleet", "worker", "--metrics-port", "70000", env=env)
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "is not a port" in result.stderr


def test_a_worker_whose_metrics_port_is_taken_says_so_and_runs(tmp_path, redis_server):
    root = tmp_path / "root"
    store = _append(root, "ann", "- [durable] Project p1 uses database db1")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    env = fleet_env(
        root,
        redis_server,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        TMPDIR=str(tmp_path),
    )
    try:
        worker = Proc(
            [sys.executable, "-m", "reverie", "fleet", "worker", "--metrics-port", str(port)],
            env,
            tmp_path / "worker.log",
        )
        dispatcher = start_dispatcher(env, tmp_path)
        wait_for(lambda: store.pending_count() == 0, 60, "the job to run without metrics")
        assert "cannot serve metrics" in worker.text()  # was: no exporter and no message
        worker.stop(signal.SIGTERM)
        dispatcher.stop(signal.SIGTERM)
    finally:
        taken.close()
    assert not list(tmp_path.glob("reverie-worker-metrics-*"))


def test_a_worker_leaves_no_metrics_directory_behind(tmp_path, redis_server):
    root = tmp_path / "root"
    store = _append(root, "ann", "- [durable] Project p1 uses database db1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = fleet_env(
        root,
        redis_server,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        TMPDIR=str(tmp_path),
    )
    worker = Proc(
        [sys.executable, "-m", "reverie", "fleet", "worker", "--metrics-port", str(port)],
        env,
        tmp_path / "worker.log",
    )
    dispatcher = start_dispatcher(env, tmp_path)
    wait_for(lambda: store.pending_count() == 0, 60, "the job to run")
    wait_for(lambda: list(tmp_path.glob("reverie-worker-metrics-*")), 10, "the metrics directory")
    worker.stop(signal.SIGTERM)
    dispatcher.stop(signal.SIGTERM)
    assert not list(tmp_path.glob("reverie-worker-metrics-*"))  # was: one left per worker


# -- low: fleet status --watch ---------------------------------------------------------------------


@pytest.mark.parametrize("every", ["0", "-1", "nan", "inf"])
def test_status_watch_refuses_a_period_that_would_busy_loop_or_never_print(tmp_path, every):
    result = invoke("fleet", "--root", str(tmp_path), "status", "--watch", "--every", every)
    assert result.returncode == 2 and "--every" in result.stderr
    assert "Traceback" not in result.stderr


def test_status_watch_off_a_terminal_prints_its_first_line_at_once(tmp_path, redis_server):
    import subprocess

    env = fleet_env(tmp_path / "root", redis_server)
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", "fleet", "status", "--watch", "--json", "--every", "600"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        import selectors

        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=30), "no line within 30s"  # was: only after --every (600s)
        line = proc.stdout.readline()
        assert "in_flight" in json.loads(line)
    finally:
        proc.kill()
        proc.wait()


def test_a_worker_keeps_reconnecting_for_as_long_as_redis_is_down():
    from reverie.fleet.app import make_app

    assert make_app(Config()).conf.broker_connection_max_retries is None  # was: 100 (~46 min)


# -- low: a drain whose budget ran out says so, not that a model call ran past the run's cap -------


def test_a_model_call_cut_off_by_the_drain_budget_says_the_drain_ran_out():
    import asyncio

    from reverie.dream.budget import Budget, BudgetExceeded, budgeted_call

    class Hangs:
        settings = types.SimpleNamespace(timeout=30.0)

        async def complete(self, messages, **kw):  # a model still answering when time runs out
            await asyncio.sleep(5)

    drain = Budget(10, 10, 10_000, 0.05)
    run = Budget(10, 10, 10_000, 300, overall=drain)
    with pytest.raises(BudgetExceeded) as info:
        asyncio.run(budgeted_call(Hangs(), run, [], model="m"))  # type: ignore[arg-type]
    assert info.value.overall and "the drain's wall time of 0.05s" in str(info.value)
    assert "300s" not in str(info.value)  # was: "ran past the 300s wall-time cap"


def test_the_rebuild_line_counts_the_markers_it_found(tmp_path, redis_server, monkeypatch, caplog):
    root = tmp_path / "root"
    fleet = _fleet(root, redis_server, monkeypatch)
    for user in ("ann", "bob", "cy"):
        _append(root, user, f"- [durable] Project of {user} uses database db1")
    fleet.ingest_markers(full=True)
    fleet.coord.r.flushall()  # Redis lost everything: the dispatcher rebuilds from the markers
    assert fleet.heal()
    line = next(r.getMessage() for r in caplog.records if "due index built" in r.getMessage())
    assert "3 due marker(s)" in line and "3 newly due" in line  # was: "0 workspace(s) due"


def test_celery_reconnect_messages_are_one_line_each():
    import logging

    from celery.worker.consumer.consumer import CONNECTION_ERROR, CONNECTION_RETRY_STEP

    from reverie.fleet.app import _FILTER

    step = CONNECTION_RETRY_STEP.format(when="in 2.00 seconds", retries=1, max_retries="∞")
    record = logging.LogRecord(
        "celery.worker.consumer.consumer",
        logging.ERROR,
        __file__,
        1,
        CONNECTION_ERROR,
        ("redis://:**@127.0.0.1:1/0", "Error 111 connecting", step),
        None,
    )
    assert _FILTER.filter(record)
    text = record.getMessage()
    assert "\n" not in text and "Cannot connect" in text and "Trying again" in text  # was: 3 lines
