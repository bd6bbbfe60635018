"""A Redis that answers but refuses writes, with all its data (real redis-server on a unix socket, a
real Celery worker and dispatcher): ``maxmemory`` reached under ``noeviction`` (OOM errors), and
``min-replicas-to-write`` unmet (NOREPLICAS, as a primary cut off from its replicas answers). What
must hold: no process ends, no job runs a batch twice, no lease is left, and once Redis takes writes
again every due workspace is dreamed. Each test failed on main before the fix it names."""

from __future__ import annotations

import signal

import pytest
from support.fleet import (
    RedisServer,
    batches_committed,
    fleet_env,
    start_dispatcher,
    start_worker,
    wait_for,
)
from support.fleet_fixtures import needs_redis, plain_root

from reverie.fleet.job import pending

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
celery = pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")

#: How each refusal is turned on and off with ``CONFIG SET``, and what its error says.
_REFUSALS = {
    "oom": ({"maxmemory-policy": "noeviction", "maxmemory": 1}, {"maxmemory": 0}, "maxmemory"),
    "noreplicas": ({"min-replicas-to-write": 1}, {"min-replicas-to-write": 0}, "NOREPLICAS"),
}


@pytest.mark.parametrize("refusal", sorted(_REFUSALS))
def test_a_worker_outlives_a_redis_that_refuses_writes_and_everything_due_is_dreamed(
    tmp_path, redis_server: RedisServer, refusal
):
    """Was: the Celery worker's next acknowledgement (or its start) met the refusal, a channel
    error to kombu, and Celery ended the worker ("Unrecoverable error: ... OutOfMemoryError"): once
    Redis took writes again the dispatcher sent every due workspace to a queue nobody drained (and
    a supervised worker was started again only after its back-off, up to a minute). Now the worker
    retries as after a lost connection and drains the queue when Redis is back."""
    import redis as redis_py

    root = tmp_path / "plain"
    names = ["a", "b", "c", "d"]
    plain_root(root, *names)
    env = fleet_env(root, redis_server, REVERIE_TEST_LATENCY="1.0")
    env["TMPDIR"] = str(tmp_path)
    client = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    worker = start_worker("worker", env, tmp_path, 2)
    dispatcher = start_dispatcher(env, tmp_path)
    wait_for(lambda: list(client.scan_iter("reverie:lease:*")), 60, "a job to hold its lease")
    refuse, allow, code = _REFUSALS[refusal]
    for key, value in refuse.items():
        client.config_set(key, value)
    wait_for(lambda: code in worker.text(), 60, f"the worker to meet Redis's {code} refusal")
    wait_for(lambda: code in dispatcher.text(), 60, f"the dispatcher to meet {code}")
    for key, value in allow.items():
        client.config_set(key, value)

    wait_for(lambda: all(pending(root / n) == 0 for n in names), 90, "every workspace dreamed")
    wait_for(lambda: not list(client.scan_iter("reverie:lease:*")), 30, "every lease released")
    assert worker.alive() and dispatcher.alive()
    for proc in (dispatcher, worker):
        proc.stop(signal.SIGTERM)
    for name in names:
        covered = [n for a, b in batches_committed(root / name) for n in range(a, b + 1)]
        assert covered == [1], (name, covered)  # each batch once
    for text in (worker.text(), dispatcher.text()):
        assert "Unrecoverable error" not in text, text[-3000:]
        assert "Traceback" not in text, text[-3000:]


def test_a_worker_started_while_redis_refuses_writes_waits_for_it(
    tmp_path, redis_server: RedisServer
):
    """Was: a worker started (or started again by ``reverie fleet worker``'s supervisor) while
    Redis was full declared its queue, met OOM, and exited ("Unrecoverable error"): the supervisor's
    back-off grew to a minute, and a worker started by hand stayed down. Now it waits, and drains
    the queue once Redis takes writes."""
    import redis as redis_py

    root = tmp_path / "plain"
    plain_root(root, "a", "b")
    env = fleet_env(root, redis_server)
    env["TMPDIR"] = str(tmp_path)
    client = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    refuse, allow, said = _REFUSALS["oom"]
    for key, value in refuse.items():
        client.config_set(key, value)
    worker = start_worker("worker", env, tmp_path, 1)
    dispatcher = start_dispatcher(env, tmp_path)
    wait_for(lambda: said in worker.text(), 60, "the worker to meet Redis's refusal")
    wait_for(lambda: said in dispatcher.text(), 60, "the dispatcher to meet it")
    for key, value in allow.items():
        client.config_set(key, value)
    wait_for(lambda: all(pending(root / n) == 0 for n in "ab"), 90, "every workspace dreamed")
    assert worker.alive() and dispatcher.alive()
    for proc in (dispatcher, worker):
        proc.stop(signal.SIGTERM)
    assert "Unrecoverable error" not in worker.text() and "Traceback" not in worker.text()


def test_a_job_refused_by_a_full_redis_says_so_not_retries(tmp_path, redis_server, monkeypatch):
    """Was: "Redis failed (command not allowed when used memory > 'maxmemory') after 3 retries":
    an answer refusing a write is not retried (redis-py retries a lost connection or a timeout
    only). Now the line says Redis refused, and what happens next."""
    import redis as redis_py
    from support.fleet_fixtures import fleet_for

    root = tmp_path / "plain"
    plain_root(root, "a")
    fleet = fleet_for(root, redis_server, monkeypatch, model="reverie/offline")
    assert fleet.dispatch_once(lambda ws: None) == ["a"]
    client = redis_py.Redis(unix_socket_path=str(redis_server.sock))
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", 1)
    outcome = fleet.run_job("a")
    assert outcome.status == "redis-error", outcome
    reason = outcome.reason or ""
    assert reason.startswith("Redis refused (") and "retries" not in reason, reason
    assert "claim lapses" in reason and "\n" not in reason
    client.config_set("maxmemory", 0)
    assert pending(root / "a") == 1  # nothing of the run was done
