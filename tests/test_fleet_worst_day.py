"""An operator's worst day against the fleet (one real redis-server for the file, on a unix socket;
real workspaces on disk; real Celery workers where a process is what fails): a broker URL that is
no Redis URL, two dispatchers ticking at once or both finding Redis empty, a crash that left a
marker's temporary file, a pool process killed under its job, a worker Celery cannot keep going,
a root of scopes reached through a link. Each test failed on main before the change it names
(the URL forms the docs show: a guard that the check refuses none of them)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fleet import RedisServer, fleet_env
from support.fleet_fixtures import fleet_for, needs_redis, plain_root

from reverie.storage.config import Config
from reverie.storage.scopes import write_root_kind
from reverie.storage.store import WorkspaceStore

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
celery = pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")


@pytest.fixture(scope="module")
def server() -> Iterator[RedisServer]:
    """One redis-server for the whole file (the fleet tests share 2 cores), emptied before each
    test."""
    redis = RedisServer()
    redis.start()
    yield redis
    redis.close()


@pytest.fixture
def redis_server(server: RedisServer) -> RedisServer:
    import redis as redis_py

    client = redis_py.Redis(unix_socket_path=str(server.sock))
    client.flushall()
    client.close()
    return server


def _fleet(root: Path, server: RedisServer, monkeypatch: pytest.MonkeyPatch, **fleet: object):
    return fleet_for(root, server, monkeypatch, model="reverie/offline", drain_seconds=600, **fleet)


def _reverie(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reverie", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# -- a broker URL that is no Redis URL -------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:6379/0", "scheme"),
        ("redis.internal:6379", "scheme"),
        ("redis://127.0.0.1:6379/db1", "database"),
        ("redis://127.0.0.1:99999/0", "port"),
        ("redis+socket:///run/redis.sock?db=x", "database"),
    ],
)
def test_a_broker_url_that_is_no_redis_url_is_one_line_and_exit_1(tmp_path, server, url, said):
    """Was: a URL of another scheme (or none) was "internal error: ValueError" and exit 2 from
    every fleet command, the worker included; a database that is no number (``/db1``) was taken by
    redis-py as database 0 without a word (another fleet's keys, "one database per root") while
    Celery's worker refused it. Now every command says once which key is wrong and what a Redis
    URL looks like, before it starts anything, and exits 1."""
    from support.cli import invoke

    root = tmp_path / "plain"
    root.mkdir()
    write_root_kind(root, "plain")
    env = {"REVERIE_FLEET__ROOT": str(root), "REVERIE_FLEET__BROKER_URL": url}
    runs = [
        invoke(*args, env=env)
        for args in (("fleet", "status"), ("fleet", "dispatch", "--once"), ("fleet", "mark", "a"))
    ]
    if said == "scheme":  # the worker as an operator starts it: a process, supervised
        worker_env = fleet_env(root, server, REVERIE_FLEET__BROKER_URL=url)
        runs.append(_reverie(worker_env, "fleet", "worker", "-c", "1"))
    for done in runs:
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1, (done.returncode, done.stderr)
        assert len(lines) == 1 and "fleet.brokerUrl" in lines[0] and said in lines[0], lines
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
        assert "Celery worker started" not in done.stdout + done.stderr


def test_every_redis_url_the_docs_show_is_taken():
    """The check refuses no URL docs/scale.md gives: a password, an ACL user, TLS with its
    parameters, a unix socket with a password or a database."""
    from reverie.fleet.coord import check_broker_url

    for url in (
        "redis://redis.internal:6379/0",
        "redis://:PASSWORD@redis.internal:6379/2",
        "redis://USER:PASSWORD@redis.internal:6379/0",
        "redis+socket://:PASSWORD@/run/redis/redis.sock",
        "redis+socket:///run/redis/redis.sock?db=3",
        "rediss://:PASSWORD@redis.internal:6380/0?ssl_cert_reqs=required&ssl_ca_certs=/etc/ca.pem",
        "redis://localhost",
    ):
        check_broker_url(url)


# -- two dispatchers -------------------------------------------------------------------------------


def test_two_dispatchers_ticking_at_once_never_take_the_fleet_past_max_inflight(
    tmp_path, redis_server, monkeypatch
):
    """Two dispatchers ("more are harmless", docs/scale.md) each read how many claims are alive,
    then claim. Was: both read it before either claimed, and each claimed up to ``maxInflight``:
    twice the fleet's cap in flight (four jobs with ``maxInflight`` 2 here). Now the claim counts
    the live claims in the same script that takes new ones."""
    root = tmp_path / "plain"
    names = [f"w{i}" for i in range(6)]
    plain_root(root, *names)
    first = _fleet(root, redis_server, monkeypatch, max_inflight=2)
    second = _fleet(root, redis_server, monkeypatch, max_inflight=2)
    assert first.coord is not second.coord
    for name in names:
        first.mark_dirty(name, now=0)
    sent: list[str] = []
    admission = first.admission

    def interleaved(now: float | None = None) -> tuple[int, float]:
        allowed = admission(now)  # the first has read the live claims (none) ...
        sent.extend(second.dispatch_once(lambda ws: None))  # ... when the second ticks
        return allowed

    monkeypatch.setattr(first, "admission", interleaved)
    sent.extend(first.dispatch_once(lambda ws: None))
    assert len(sent) == len(set(sent)) == 2, sent
    assert first.coord.inflight() == 2
    monkeypatch.setattr(first, "admission", admission)
    assert first.dispatch_once(lambda ws: None) == []  # full until a job ends
    assert second.run_job(sent[0]).status == "ok"
    assert len(first.dispatch_once(lambda ws: None)) == 1


def test_two_dispatchers_ticking_at_once_spend_one_reading_of_the_token_bucket_once(
    tmp_path, redis_server, monkeypatch
):
    """The token budget (``tokensPerMinute``) with two dispatchers. Was: both read the bucket
    before either reserved, and each admitted the runs it held: a bucket of two runs' tokens sent
    four, and the provider's quota was overspent by a tick's admission per dispatcher. Now a
    dispatcher admits (reads, claims, reserves) while no other one does; the other admits at its
    next tick, from what is left."""
    root = tmp_path / "plain"
    names = [f"w{i}" for i in range(6)]
    plain_root(root, *names)
    budget = {"tokens_per_minute": 10_000, "tokens_per_run": 4_000, "max_inflight": 10}
    first = _fleet(root, redis_server, monkeypatch, **budget)
    second = _fleet(root, redis_server, monkeypatch, **budget)
    for name in names:
        first.mark_dirty(name, now=0)
    sent: list[str] = []
    admission = first.admission

    def interleaved(now: float | None = None) -> tuple[int, float]:
        allowed = admission(now)  # the first has read the bucket (two runs' worth) ...
        sent.extend(second.dispatch_once(lambda ws: None))  # ... when the second ticks
        return allowed

    monkeypatch.setattr(first, "admission", interleaved)
    sent.extend(first.dispatch_once(lambda ws: None))
    assert len(sent) == len(set(sent)) == 2, sent
    assert second.dispatch_once(lambda ws: None) == []  # its next tick: the bucket is spent
    assert first.coord.tokens(10_000) < 4_000


# -- a crash between a marker's temporary file and its rename --------------------------------------


def test_a_markers_temporary_file_a_crash_left_is_removed_once_old(
    tmp_path, redis_server, monkeypatch, caplog
):
    """A plain root's marker is written whole (a temporary file, then a rename). Was: a writer
    killed between the two left ``.<digest>.tmp-<pid>-<hex>`` in the bucket forever (and one in
    fleet6's ``.due`` kept that directory from ever going). Now the dispatcher's full listing
    removes those older than ten minutes, with a warning; a young one (a writer at work) stays."""
    import hashlib

    root = tmp_path / "plain"
    plain_root(root, "a")
    fleet = _fleet(root, redis_server, monkeypatch)
    fleet.mark_dirty("a", now=0)
    digest = hashlib.blake2b(b"a", digest_size=16).hexdigest()
    bucket = root / ".reverie-due" / digest[:2]
    stale, young = bucket / f".{digest}.tmp-4242-0badcafe", bucket / f".{digest}.tmp-4243-00c0ffee"
    old_dir = root / ".due"
    old_dir.mkdir()
    old_stale = old_dir / f".{digest}.tmp-4244-deadbeef"
    for path in (stale, young, old_stale):
        path.write_text("a")
    hour_ago = time.time() - 3600
    for path in (stale, old_stale):
        os.utime(path, (hour_ago, hour_ago))
    caplog.set_level(logging.WARNING)
    assert fleet.ingest_markers(full=True) == 0  # "a" is due already
    assert not stale.exists() and young.exists()
    assert not old_dir.exists(), "fleet6's .due kept by a crashed writer's temporary file"
    assert sorted(p.name for p in bucket.iterdir()) == sorted([digest, young.name])
    assert "temporary file" in caplog.text and "Traceback" not in caplog.text
    assert fleet.status().markers_missing == 0


# -- a worker's pool process killed, a worker that cannot go on ------------------------------------


def test_a_pool_process_killed_under_its_job_is_one_line_and_the_job_is_dreamed(
    tmp_path, redis_server
):
    """A real Celery worker's pool process SIGKILLed while its job runs Dream (the OOM killer, an
    operator's kill -9). Was: Celery logged its ``WorkerLostError`` with two nested tracebacks
    (billiard's wrapper, then the error) that say nothing more than the first line. Now it is one
    line saying what happens next; the workspace is dreamed after all, each batch once, and the
    workspace's locks are free for the next Dream."""
    import signal

    import redis as redis_py
    from support.fleet import batches_committed, git, start_dispatcher, start_worker, wait_for

    from reverie.storage.scopes import Scope, ScopeRoot

    root = tmp_path / "root"
    config = Config()
    config.memory.history.fsync = False
    store = WorkspaceStore(ScopeRoot(root).ensure(Scope("u")), config=config)
    for i in range(6):
        store.append_history(f"- [durable] Project p{i} uses database d{i}", "cli:test")
    env = fleet_env(root, redis_server, REVERIE_TEST_LATENCY="1.0")
    env["TMPDIR"] = str(tmp_path)
    worker = start_worker("worker", env, tmp_path, 1)
    dispatcher = start_dispatcher(env, tmp_path)
    client = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    wait_for(lambda: list(client.scan_iter("reverie:lease:*")), 60, "a job to hold the lease")

    def pool() -> list[int]:
        found = subprocess.run(["pgrep", "-P", str(worker.p.pid)], capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]

    killed = wait_for(pool, 20, "the worker's pool process")
    os.kill(killed[0], signal.SIGKILL)  # mid-Dream: its model calls take a second each
    wait_for(lambda: "WorkerLostError" in worker.text(), 30, "Celery to see its process die")
    wait_for(lambda: store.pending_count() == 0, 90, "the workspace dreamed after all")
    for proc in (dispatcher, worker):
        proc.stop(signal.SIGTERM)
    ws = store.workspace.root
    covered = [n for a, b in batches_committed(ws) for n in range(a, b + 1)]
    assert len(covered) == len(set(covered)), f"a batch committed twice: {covered}"
    assert git(ws, "fsck", "--strict").returncode == 0
    text = worker.text()
    lost = [line for line in text.splitlines() if "WorkerLostError" in line]
    assert lost and all("requeued" in line for line in lost), lost
    assert "Traceback" not in text and "ExceptionWithTraceback" not in text, text[-3000:]


def test_a_worker_ended_by_an_unrecoverable_error_exits_1(tmp_path, server):
    """Celery ends a worker on an error it cannot recover from ("Unrecoverable error", e.g. its
    pool processes dying as they start) with its exit code 1. Was: ``reverie fleet worker
    --no-supervise`` ran it through ``worker_main``, which drops that code, and exited 0 — systemd's
    ``Restart=on-failure`` (or a pod's ``OnFailure``) left the dead worker dead, and the supervisor
    said "exit code 0". Now the code is the worker's. The error is a boot step that raises, the way
    any unrecoverable error reaches Celery."""
    root = tmp_path / "root"
    root.mkdir()
    write_root_kind(root, "scopes")
    script = (
        "import sys\n"
        "from celery import bootsteps\n"
        "from reverie.cli.cmd_fleet import _run_celery\n"
        "from reverie.fleet.app import make_app\n"
        "class Broken(bootsteps.StartStopStep):\n"
        "    def start(self, worker):\n"
        "        raise RuntimeError('the pool cannot start')\n"
        "app = make_app()\n"
        "app.steps['worker'].add(Broken)\n"
        "sys.exit(_run_celery(app, ['worker', '--pool', 'solo', '-Q', 'reverie-dream',\n"
        "                           '--without-mingle', '--without-gossip']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=fleet_env(root, server),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Unrecoverable error: RuntimeError('the pool cannot start')" in done.stderr, done.stderr
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])


# -- a root of scopes reached through a link -------------------------------------------------------


def test_a_root_of_scopes_reached_through_a_link_loses_no_due_workspace(
    tmp_path, redis_server, monkeypatch, caplog
):
    """``fleet.root`` naming a symbolic link to a root of scopes (a mount point linked into place on
    one worker), which Reverie never follows. Was: each job took the refusal for a scope that was
    gone, removed its due entry and logged "gone": its pending history waited for a rebuild. Now
    the job says the root refused, removes nothing and backs off; ``reverie fleet worker`` on such
    a root says so in one line at start."""
    from reverie.storage.scopes import Scope, ScopeRoot

    real = tmp_path / "real"
    config = Config()
    config.memory.history.fsync = False
    store = WorkspaceStore(ScopeRoot(real).ensure(Scope("u")), config=config)
    store.append_history("- [durable] u works at Acme", "cli:test")
    link = tmp_path / "mnt"
    link.symlink_to(real)
    ws = Scope("u").name
    fleet = _fleet(link, redis_server, monkeypatch, retry_backoff_seconds=30)
    fleet.coord.make_due({ws: 0})
    assert fleet.coord.claim(10, 60) == [ws]
    caplog.set_level(logging.WARNING)
    outcome = fleet.run_job(ws)
    assert outcome.status == "error" and "symbolic link" in (outcome.reason or ""), outcome
    assert 20 < fleet.coord.due()[ws] - fleet.coord.now() < 40, "the due workspace was dropped"
    assert (real / "due" / ws[:2] / ws).exists() and store.pending_count() == 1
    assert "gone" not in caplog.text and "Traceback" not in caplog.text
    done = _reverie(fleet_env(link, redis_server), "fleet", "worker", "-c", "1", timeout=30)
    assert done.returncode == 1 and "symbolic link" in done.stderr, done
    assert len(done.stderr.strip().splitlines()) == 1


# -- two dispatchers when Redis lost its data ------------------------------------------------------


def test_two_dispatchers_rebuild_a_lost_redis_once_and_the_other_keeps_dispatching(
    tmp_path, redis_server, monkeypatch, caplog
):
    """Redis flushed under two dispatchers of a plain root. Was: both noticed, both logged the loss
    and both scanned every workspace of the root (at about 7-25 ms a workspace here: minutes for a
    large root, during which neither sent a job). Now one rebuilds; the other, finding it at work,
    sends what the markers say meanwhile, then takes the index it built."""
    import redis as redis_py

    root = tmp_path / "plain"
    plain_root(root, "a")
    first = _fleet(root, redis_server, monkeypatch)
    second = _fleet(root, redis_server, monkeypatch)
    for fleet in (first, second):
        fleet.dispatch_once(lambda ws: None)  # each has built on the generation
    plain_root(root, "b")  # appended by a node that never marks: only a scan finds it
    redis_py.Redis(unix_socket_path=str(redis_server.sock)).flushall()
    scans: list[str] = []
    rebuild = first.rebuild_due
    sent_meanwhile: list[str] = []

    def slow_rebuild(now: float | None = None, *, scan: bool = True):
        scans.append("first")
        sent_meanwhile.extend(second.dispatch_once(lambda ws: None))  # mid-scan, the other ticks
        return rebuild(now, scan=scan)

    monkeypatch.setattr(first, "rebuild_due", slow_rebuild)
    monkeypatch.setattr(
        second,
        "rebuild_due",
        lambda *a, **k: scans.append("second") or pytest.fail("scanned twice"),
    )
    caplog.set_level(logging.WARNING)
    assert first.heal() is True
    assert scans == ["first"], scans
    assert sent_meanwhile == ["a"], "the other dispatcher did not send what the marker said"
    assert (first.rebuilds, second.rebuilds) == (1, 0)
    assert caplog.text.count("Redis lost its data") == 1
    assert first.coord.generation() is not None and second.heal() is False
    assert sorted(first.dispatch_once(lambda ws: None)) == ["b"]  # the scan found b


def test_a_dispatcher_whose_admission_reply_is_lost_still_admits(redis_server):
    """The right to admit is taken by a script: when its reply is lost and redis-py sends it again
    (a network blip), the holder finds its own token and has it. A plain ``SET NX`` resent found
    the key its first try had set and answered "held by another": the dispatcher skipped its ticks
    until the key expired."""
    import redis as redis_py
    from support.redis_proxy import CuttingProxy

    from reverie.fleet.coord import Coordinator

    proxy = CuttingProxy(redis_server)
    try:
        direct = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
        c = Coordinator.connect(proxy.url)
        direct.script_load(c._take.script)  # loaded first: the cut reply is the take's
        before = proxy.connections
        proxy.arm(b"reverie:admitting")
        assert c.take("admitting", "mine", 10.0) is True, "a resent take answered 'held'"
        assert proxy.cuts == 1 and proxy.connections > before
        assert direct.get("reverie:admitting") == "mine"
        assert c.take("admitting", "another", 10.0) is False
        c.give_back("admitting", "another")  # not its to give back
        assert direct.get("reverie:admitting") == "mine"
        c.give_back("admitting", "mine")
        assert direct.get("reverie:admitting") is None
    finally:
        proxy.close()
