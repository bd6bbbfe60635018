"""Redis going away under a running fleet, as an operator would see it: `reverie fleet worker`,
`fleet dispatch` and `fleet status --watch` as processes, a real redis-server killed mid-drain and
started again, then flushed (Redis losing its data) while jobs run. Each program says what is down
in one line and goes on; nothing is lost, no batch is committed twice, no log holds a traceback."""

from __future__ import annotations

import re
import signal
import sys
import time

import pytest
from support.fleet import (
    Proc,
    batches_committed,
    fleet_env,
    git,
    start_dispatcher,
    wait_for,
)
from support.fleet_fixtures import needs_redis

from reverie.storage.config import Config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")


def test_redis_killed_then_flushed_under_running_jobs(tmp_path, redis_server):
    import redis as redis_py

    root = tmp_path / "root"
    config = Config()
    config.memory.history.fsync = False
    stores, texts = [], []
    for u in range(4):
        store = WorkspaceStore(ScopeRoot(root).ensure(Scope(f"u{u}")), config=config)
        lines = [f"- [durable] Project p{u}x{i} uses database d{u}x{i}" for i in range(9)]
        for line in lines:
            store.append_history(line, "cli:test")
        stores.append(store)
        texts.append(lines)
    env = fleet_env(
        root, redis_server, REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline"
    )
    env["TMPDIR"] = str(tmp_path)
    worker = Proc(
        [sys.executable, "-m", "reverie", "fleet", "worker", "-c", "2", "--name", "out"],
        env,
        tmp_path / "worker.log",
    )
    dispatcher = start_dispatcher(env, tmp_path)
    watch = Proc(
        [sys.executable, "-m", "reverie", "fleet", "status", "--watch", "--every", "0.2"],
        env,
        tmp_path / "watch.log",
    )
    total = lambda: sum(s.pending_count() for s in stores)  # noqa: E731
    wait_for(lambda: total() < 36, 60, "the first batches")
    redis_server.kill()  # mid-drain: jobs lose their leases, the worker its broker
    time.sleep(3)
    redis_server.start()  # with its AOF
    left = total()
    wait_for(lambda: total() < left or total() == 0, 60, "progress after the restart")
    redis_py.Redis(unix_socket_path=str(redis_server.sock)).flushall()  # Redis loses its data
    wait_for(lambda: total() == 0, 90, "every workspace drained", poll=0.2)
    for p in (watch, dispatcher, worker):  # as an operator stops them: the process it started
        p.p.send_signal(signal.SIGTERM)
        p.p.wait(timeout=30)
        p.stop()

    for store, lines in zip(stores, texts, strict=True):
        ws = store.workspace.root
        assert [e.content for e in store.history.read_since(0, limit=1000)] == lines
        batches = batches_committed(ws)
        covered = [c for a, b in batches for c in range(a, b + 1)]
        assert len(covered) == len(set(covered)), f"a batch committed twice: {batches}"
        assert git(ws, "fsck", "--strict").returncode == 0
        assert git(ws, "status", "--porcelain").stdout.strip() == ""
    logs = {p.name: p.read_text(errors="replace") for p in tmp_path.glob("*.log")}
    for name, text in logs.items():
        assert "Traceback" not in text, f"{name}:\n{text[-4000:]}"
    # each record about Redis is one line: a timestamped record, or the watch's own line
    worker_lines = logs["worker.log"].splitlines()
    for i, line in enumerate(worker_lines[:-1]):
        if re.search(r"Redis|broker|connect", line) and line.startswith("["):
            follower = worker_lines[i + 1]
            assert follower.startswith(("[", "reverie fleet worker:")) or not follower.strip(), (
                f"a record on two lines:\n{line}\n{follower}"
            )
    assert "reverie fleet status: Redis at" in logs["watch.log"]
    assert logs["watch.log"].rstrip().endswith("reverie fleet status: stopped (terminated)")


def test_an_error_raised_while_the_broker_was_down_is_one_line(tmp_path):
    """Celery's consumer, restarting its steps after Redis went away, logged "Error on restarting
    Gossip: AttributeError(…'connection_errors')" with three chained tracebacks (kombu's channel
    already torn down; seen in 1 of 4 runs of the test above). An error raised while handling a
    broker error is the broker's: one line, naming it."""
    import logging

    import redis as redis_py

    from reverie.fleet.app import _FILTER

    client = redis_py.Redis(unix_socket_path=str(tmp_path / "no-redis.sock"))
    try:
        try:
            client.ping()
        except redis_py.ConnectionError:
            None.connection_errors  # type: ignore[attr-defined]  # noqa: B018 - kombu's fault
    except AttributeError:
        record = logging.LogRecord(
            "celery.worker.consumer.consumer",
            logging.ERROR,
            __file__,
            1,
            "Error on restarting %s: %r",
            ("Gossip", AttributeError("'NoneType' object has no attribute 'connection_errors'")),
            sys.exc_info(),
        )
    assert _FILTER.filter(record) and record.exc_info is None
    text = logging.Formatter().format(record)
    assert "\n" not in text and "Traceback" not in text
    assert text.startswith("Error on restarting Gossip") and "ConnectionError: Error" in text
