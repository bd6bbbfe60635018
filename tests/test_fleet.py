"""The fleet on real components: redis-server on a unix socket, Celery workers and the dispatcher as
processes, scope workspaces on disk. Faults are real signals (SIGKILL, SIGSTOP/SIGCONT) and a real
Redis restart; the oracles are the workspaces themselves (history, git via the git CLI)."""

from __future__ import annotations

import json
import random
import re
import signal
import threading
import time
from pathlib import Path

import pytest
from support.cli import Result, invoke
from support.fleet import (
    REDIS_SERVER,
    RedisServer,
    batches_committed,
    fleet_env,
    git,
    start_dispatcher,
    start_worker,
    stop_together,
    wait_for,
)
from support.fleet_fixtures import fleet_for, needs_redis

from reverie.dream.fence import read_epoch
from reverie.dream.records import Attempts, StatusRecord
from reverie.storage.config import Config, load_config
from reverie.storage.scopes import Scope, ScopeRoot, write_root_kind
from reverie.storage.store import WorkspaceStore

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
celery = pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")


def _fleet(root: Path, server: RedisServer, monkeypatch, **fleet):
    # fleet_env's 4 s drain makes the Celery workers' backlogs yield; a job run here must finish
    # its batch. At load 14 a job's work before its edit turn took 3.1 s, so a busier moment spent
    # the drain first and the job came back "paused", not "ok" (how
    # test_markers_ingested_claimed_and_cleared failed under load).
    return fleet_for(root, server, monkeypatch, drain_seconds=600, **fleet)


class Appender:
    """Appends uniquely numbered facts to scope workspaces (each append marks its scope due on disk)
    and remembers every acknowledged one."""

    def __init__(self, root: Path, users: list[str]) -> None:
        self.scopes = ScopeRoot(root)
        self.config = Config()
        self.config.memory.history.fsync = False
        self.stores = {
            u: WorkspaceStore(self.scopes.ensure(Scope(u)), config=self.config) for u in users
        }
        self.acked: dict[str, list[str]] = {u: [] for u in users}
        self.n = 0

    def append(self, user: str) -> None:
        self.n += 1
        text = (
            f"- [durable] Project p{self.n} uses database db{self.n}"
            if self.n % 3
            else f"[USER] prefers tea number {self.n}"
        )  # one in three the offline engine finds no fact in
        self.stores[user].append_history(text, "cli:test")
        self.acked[user].append(text)

    def path(self, user: str) -> Path:
        return self.scopes.path(Scope(user))

    def name(self, user: str) -> str:
        return Scope(user).name


def _check_workspaces(app: Appender) -> None:
    """The oracles: nothing lost, nothing committed twice, git intact, nothing pending."""
    for user, texts in app.acked.items():
        ws = app.path(user)
        store = WorkspaceStore(app.scopes.workspace(Scope(user)), config=app.config)
        contents = [e.content for e in store.history.read_since(0, limit=100_000)]
        assert contents == texts, f"{user}: history differs from the acknowledged appends"
        batches = batches_committed(ws)
        assert len(batches) == len(set(batches)), f"{user}: a batch was committed twice: {batches}"
        covered = [c for first, last in batches for c in range(first, last + 1)]
        assert len(covered) == len(set(covered)), f"{user}: overlapping batches {batches}"
        fsck = git(ws, "fsck", "--full", "--strict")
        assert fsck.returncode == 0, f"{user}: git fsck: {fsck.stdout}{fsck.stderr}"
        assert git(ws, "status", "--porcelain").stdout.strip() == "", (
            f"{user}: memory files differ from HEAD"
        )
        assert store.pending_count() == 0, f"{user}: {store.pending_count()} entries left pending"
        # no misleading status after a fenced job: nothing failed here, nothing is counted
        last = StatusRecord.load(store.workspace.state_dir).last_run
        assert last is None or last["status"] not in ("failed", "rejected"), f"{user}: {last}"
        assert Attempts.load(store.workspace.state_dir).count == 0, f"{user}: attempts counted"


def _redis_knows_every_pending(r, app: Appender) -> bool:
    """Every workspace with history pending is due, claimed or leased in Redis."""
    import redis as redis_py

    try:
        known = set(r.zrange("reverie:due", 0, -1)) | set(r.zrange("reverie:claims", 0, -1))
        known |= {k.removeprefix("reverie:lease:") for k in r.scan_iter("reverie:lease:*")}
    except redis_py.RedisError:
        return False
    pending = {
        app.name(u)
        for u in app.acked
        if WorkspaceStore(app.scopes.workspace(Scope(u)), config=app.config).pending_count()
    }
    return pending <= known


def _drained(app: Appender) -> bool:
    return all(
        WorkspaceStore(app.scopes.workspace(Scope(u)), config=app.config).pending_count() == 0
        for u in app.acked
    )


# -- the library against a real Redis, without Celery ----------------------------------------------


def test_duplicate_job_finds_the_lease_and_does_nothing(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann"])
    app.append("ann")
    ws = app.name("ann")
    assert fleet.coord.acquire(ws, "someone-else", 30, 30)
    outcome = fleet.run_job(ws)
    assert outcome.status == "leased"
    assert (
        WorkspaceStore(app.scopes.workspace(Scope("ann")), config=app.config).pending_count() == 1
    )


def test_markers_ingested_claimed_and_cleared(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann", "bob"])
    app.append("ann")
    app.append("bob")
    sent: list[str] = []
    assert sorted(fleet.dispatch_once(sent.append)) == sorted([app.name("ann"), app.name("bob")])
    assert fleet.dispatch_once(sent.append) == []  # claimed: not sent twice
    assert fleet.coord.inflight() == 2
    for ws in sent:
        monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", "reverie/offline")
        assert fleet.run_job(ws).status in ("ok", "no-change")
    assert fleet.coord.due() == {} and fleet.scopes.due_names() == []
    assert fleet.coord.inflight() == 0


def test_admission_respects_max_inflight_and_token_budget(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(
        tmp_path / "root",
        redis_server,
        monkeypatch,
        max_inflight=3,
        tokens_per_minute=10_000,
        tokens_per_run=4_000,
    )
    for i in range(6):
        fleet.coord.make_due({f"w{i}": 0})
    assert fleet.admission() == (2, 4_000)  # the bucket holds 10k tokens: two runs of 4k
    fleet.cfg.tokens_per_minute = None
    assert len(fleet.coord.claim(fleet.admission()[0], 10)) == 3
    assert fleet.admission()[0] == 0  # three claims in flight = maxInflight


def test_workspace_ids_are_validated(tmp_path, redis_server, monkeypatch):
    from reverie.errors import WorkspaceError

    fleet = _fleet(tmp_path / "plain", redis_server, monkeypatch)
    (tmp_path / "plain").mkdir()
    write_root_kind(tmp_path / "plain", "plain")
    for bad in ["../x", "/etc", "a/../../b", "a\\b", "", "a//b", "./a", "a\0b"]:
        with pytest.raises(WorkspaceError):
            fleet.mark_dirty(bad)
    (tmp_path / "outside").mkdir()
    (tmp_path / "plain" / "link").symlink_to(tmp_path / "outside")
    with pytest.raises(WorkspaceError, match="link is a symbolic link"):
        fleet.mark_dirty("link/ws")


def test_job_that_keeps_dying_is_parked(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch, crash_park_after=2)
    app = Appender(tmp_path / "root", ["ann"])
    app.append("ann")
    ws = app.name("ann")
    for _ in range(2):  # two starts that never finished (what a SIGKILLed job leaves)
        fleet.coord.started(ws)
    assert fleet.run_job(ws).status == "parked"
    state = fleet.status()
    assert ws in state.parked and "2 jobs died" in state.parked[ws]
    assert fleet.mark_dirty(ws) is False  # stays parked
    assert fleet.unpark(ws) and ws in fleet.coord.due()


def test_status_lists_the_held_leases_with_their_time_left(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    assert fleet.coord.acquire("w1", "t1", 30, 30) and fleet.coord.acquire("w2", "t2", 5, 5)
    fleet.coord.r.set("reverie:lease-like", "x")  # not a lease: the scan's pattern leaves it out
    running = fleet.status().running
    assert set(running) == {"w1", "w2"}
    assert 25 < running["w1"] <= 30 and 0 < running["w2"] <= 5
    fleet.coord.release("w1", "t1")
    assert set(fleet.status().running) == {"w2"}


def test_rebuild_due_after_redis_lost_everything(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann", "bob", "cy"])
    app.append("ann")
    app.append("cy")
    for name in app.scopes.due_names():  # markers lost too (a restore from backup)
        app.scopes.unmark_due(name)
    fleet.coord.r.flushall()
    report = fleet.rebuild_due()
    assert (report.scanned, report.pending) == (3, 2)
    assert set(fleet.coord.due()) == {app.name("ann"), app.name("cy")}
    assert sorted(app.scopes.due_names()) == sorted([app.name("ann"), app.name("cy")])


def test_plain_root_rebuild_and_job(tmp_path, redis_server, monkeypatch):
    from reverie.storage.workspace import Workspace

    root = tmp_path / "plain"
    ws = Workspace(root / "team" / "alpha")
    ws.init()
    config = Config()
    WorkspaceStore(ws, config=config).append_history("- [durable] User works at Acme", "cli:test")
    fleet = _fleet(root, redis_server, monkeypatch)
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", "reverie/offline")
    assert fleet.rebuild_due().pending == 1 and list(fleet.coord.due()) == ["team/alpha"]
    assert fleet.run_job("team/alpha").status == "ok"
    assert fleet.coord.due() == {} and WorkspaceStore(ws, config=config).pending_count() == 0


def test_cli_status_and_broker_down(tmp_path, redis_server, monkeypatch, capsys):
    from reverie.cli import main

    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    fleet.coord.park("w1", "3 jobs died mid-run")
    assert main(["fleet", "status"]) == 0
    assert "parked  w1  3 jobs died mid-run" in capsys.readouterr().out
    monkeypatch.setenv("REVERIE_FLEET__BROKER_URL", "redis+socket:///nonexistent/r.sock")
    assert main(["fleet", "status"]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("reverie: error: fleet: Redis at redis+socket:///nonexistent/r.sock failed")
        and "Traceback" not in err
    )


# -- real Celery workers ---------------------------------------------------------------------------


def test_workers_drain_every_workspace(tmp_path, redis_server):
    root = tmp_path / "root"
    app = Appender(root, [f"u{i}" for i in range(6)])
    for _ in range(4):
        for user in app.acked:
            app.append(user)
    env = fleet_env(root, redis_server)
    procs = [
        start_worker("w1", env, tmp_path),
        start_worker("w2", env, tmp_path),
        start_dispatcher(env, tmp_path),
    ]
    try:
        wait_for(lambda: _drained(app), 60, "every workspace drained")
    finally:
        stop_together(procs, signal.SIGTERM)
    _check_workspaces(app)
    assert (
        sum(bool(batches_committed(app.path(u))) for u in app.acked) >= 3
    )  # users fed only [SKIP]-able lines have none


def _holder(r, ws: str) -> int | None:
    """The pid of the worker process holding ``ws``'s lease (tokens are host:pid:uuid)."""
    token = r.get(f"reverie:lease:{ws}")
    return int(token.split(":")[1]) if token else None


def test_faults_lose_nothing_and_commit_no_batch_twice(tmp_path, redis_server, monkeypatch):
    """SIGKILL of a worker mid-commit and mid-Dream, SIGSTOP of a job past its lease then SIGCONT,
    duplicate deliveries, a Redis restart (AOF) and a Redis loss (no data, then rebuild-due), all
    while appends go on."""
    import os

    import redis as redis_py

    from reverie.fleet.app import TASK, make_app

    root = tmp_path / "root"
    users = [f"u{i}" for i in range(8)]
    app = Appender(root, users)
    kill_file = tmp_path / "kill-at-commit"
    kill_file.touch()
    env = fleet_env(root, redis_server)
    crash_env = {
        **env,
        "REVERIE_TEST_KILL_AT": "committed",
        "REVERIE_TEST_KILL_FILE": str(kill_file),
    }
    rng = random.Random(28)
    stop = threading.Event()

    def appender() -> None:
        while not stop.is_set():
            app.append(rng.choice(users))
            stop.wait(0.1)

    for user in users:
        app.append(user)
    workers = [start_worker("w1", crash_env, tmp_path), start_worker("w2", env, tmp_path)]
    dispatcher = start_dispatcher(env, tmp_path)
    r = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)

    def running() -> list[tuple[str, int]]:
        try:
            out = [
                (k.removeprefix("reverie:lease:"), _holder(r, k.removeprefix("reverie:lease:")))
                for k in r.scan_iter("reverie:lease:*")
            ]
        except redis_py.RedisError:
            return []
        return [
            (ws, pid)
            for ws, pid in out
            if pid is not None and pid not in killed and worker_of(pid) is not None
        ]

    killed: set[int] = set()  # pool processes killed alone: their leases linger until they expire

    def worker_of(pid: int):
        """The live worker whose pool ``pid`` is in (a dead worker's lease lingers until it
        expires)."""
        try:
            group = os.getpgid(pid)
        except ProcessLookupError:
            return None
        return next((w for w in workers if w.alive() and group == w.p.pid), None)

    thread = threading.Thread(target=appender, daemon=True)
    thread.start()
    try:
        # 1. SIGKILL mid-commit: w1 kills its own process group between the ref update and the
        # cursor write.
        wait_for(
            lambda: Path(str(kill_file) + ".taken").exists() and not workers[0].alive(),
            30,
            "a worker killed at its commit",
        )
        workers.append(start_worker("w3", env, tmp_path))

        # 2. SIGKILL mid-Dream: the worker holding a lease, with its pool, while the job waits for
        # the model.
        ws, pid = wait_for(running, 20, "a running job")[0]
        victim = worker_of(pid)
        victim.stop(signal.SIGKILL)
        workers.append(start_worker("w4", env, tmp_path))

        # 2b. SIGKILL of a pool process only: its worker survives and requeues the message (reject
        # on worker lost).
        ws, pid = wait_for(running, 20, "a running job")[0]
        os.kill(pid, signal.SIGKILL)
        killed.add(pid)

        # 3. SIGSTOP the job holding a lease until another job took its workspace (the epoch moved),
        # then SIGCONT.
        workers.append(
            start_worker("w5", env, tmp_path)
        )  # free to take over while the other one is busy
        ws, pid = wait_for(running, 20, "a running job")[0]
        state_dir = app.scopes.workspace_of_due(ws).root / "memory" / ".reverie"
        os.kill(pid, signal.SIGSTOP)
        epoch0 = read_epoch(state_dir)
        try:
            wait_for(
                lambda: read_epoch(state_dir) > epoch0,
                30,
                "another job to take the paused workspace",
            )
        finally:
            os.kill(pid, signal.SIGCONT)

        # 3b. SIGKILL of the dispatcher, and a new one: claims live in Redis, nothing is lost.
        dispatcher.stop(signal.SIGKILL)
        dispatcher = start_dispatcher(env, tmp_path, name="dispatch2")

        # 4. Duplicate deliveries: every workspace sent three more times straight to the queue.
        cfg = load_config(env={k: v for k, v in env.items() if k.startswith("REVERIE_")})
        celery_app = make_app(cfg)
        for _ in range(3):
            for user in users:
                celery_app.send_task(TASK, args=[app.name(user)], queue=cfg.fleet.queue)

        # 5. Redis restarts with its AOF; then it loses everything and the due index is rebuilt from
        # the disk.
        redis_server.kill()
        redis_server.start()
        wait_for(running, 20, "jobs running again after the restart")
        # Then it loses everything, and nobody runs rebuild-due: the dispatcher notices (the due
        # index's generation is gone) and rebuilds from the markers within one claim period.
        redis_server.kill(lose_data=True)
        redis_server.start(aof=False)
        healed_at = time.monotonic()
        wait_for(lambda: _redis_knows_every_pending(r, app), 4.0, "the fleet to heal by itself")
        healed = time.monotonic() - healed_at
        assert healed <= cfg.fleet.claim_seconds, healed
    finally:
        stop.set()
        thread.join()
    try:
        wait_for(lambda: _drained(app), 90, "every workspace drained after the faults", poll=0.2)
    finally:
        stop_together([*workers, dispatcher], signal.SIGTERM)
    _check_workspaces(app)
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("*.log"))
    assert "lease-lost" in logs or "fenced" in logs, (
        "the paused job was not stopped by its lease or fence"
    )
    for record in re.split(r"\n(?=\[\d{4}-)", logs):  # one log record each: no Redis traceback
        raised = (
            re.findall(r"^([\w.]+(?:Error|Exception)):", record, re.M)
            if "Traceback" in record
            else []
        )
        assert not [e for e in raised if e.startswith(("redis.", "kombu."))], record[:3000]
    assert "CPendingDeprecationWarning" not in logs


def test_config_refuses_a_lease_its_heartbeat_cannot_keep():
    from reverie.errors import ConfigError

    with pytest.raises(ConfigError, match="heartbeatSeconds .* under half of fleet.leaseSeconds"):
        load_config(
            env={"REVERIE_FLEET__LEASE_SECONDS": "10", "REVERIE_FLEET__HEARTBEAT_SECONDS": "6"}
        )
    with pytest.raises(ConfigError, match="fenceMarginSeconds"):
        load_config(
            env={"REVERIE_FLEET__LEASE_SECONDS": "10", "REVERIE_FLEET__FENCE_MARGIN_SECONDS": "10"}
        )


def test_fleet_without_its_extra_says_which_to_install(monkeypatch, capsys):
    from reverie.cli import main

    monkeypatch.setitem(
        __import__("sys").modules, "celery", None
    )  # as if the `fleet` extra were not installed
    assert main(["fleet", "status"]) == 1
    assert "needs the `fleet` extra" in capsys.readouterr().err


def test_cli_worker_dispatch_mark_on_a_plain_root(tmp_path, redis_server):
    """The commands an operator runs: `reverie fleet mark`, `dispatch --once`, `worker`, `status
    --json`."""
    import json
    import sys

    from support.fleet import Proc

    from reverie.storage.workspace import Workspace

    root = tmp_path / "plain"
    ws = Workspace(root / "team" / "alpha")
    ws.init()
    config = Config()
    WorkspaceStore(ws, config=config).append_history(
        "- [durable] Project p1 uses database db1", "cli:test"
    )
    env = fleet_env(
        root,
        redis_server,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        # the one job must finish its batch: with fleet_env's 4 s drain a loaded machine paused it,
        # and without a dispatcher running nothing sent it again ("timed out ... the job to run")
        REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS="600",
    )

    def cli(*args: str) -> Result:
        return invoke("fleet", *args, env=env)

    assert "team/alpha: due" in cli("mark", "team/alpha").stdout
    again = json.loads(cli("mark", "team/alpha", "--json").stdout)
    assert again == {"due": [], "already": ["team/alpha"]}
    unpark = cli("unpark", "team/alpha", "--json")
    assert unpark.returncode == 1
    assert json.loads(unpark.stdout) == {"unparked": [], "not_parked": ["team/alpha"]}
    assert cli("mark", "../etc").returncode == 1
    assert json.loads(cli("dispatch", "--once", "--json").stdout) == {"sent": ["team/alpha"]}
    port = _free_port()
    worker = Proc(
        [sys.executable, "-m", "reverie", "fleet", "worker", "-c", "2", "--name", "cli"]
        + ["--metrics-port", str(port)],
        env,
        tmp_path / "cli-worker.log",
    )
    try:
        wait_for(
            lambda: WorkspaceStore(ws, config=config).pending_count() == 0, 60, "the job to run"
        )
        # the job ran in a pool process; the worker's main process exports what it counted
        metrics = wait_for(lambda: _worker_jobs(port), 20, "the worker's metrics")
        assert metrics[("reverie_worker_jobs_total", (("status", "ok"),))] == 1
        assert metrics[("reverie_worker_job_seconds_count", ())] == 1
        assert metrics[("reverie_worker_model_tokens_total", ())] >= 0
    finally:
        worker.stop(signal.SIGTERM)
    status = json.loads(cli("status", "--json").stdout)
    assert status["due_now"] == 0 and status["running"] == {} and status["parked"] == {}
    assert batches_committed(ws.root) == [(1, 1)]


# -- issue 35: scripts that check ownership, one meaning per score, Redis loss, the root's
# kind ---------------------------------------------------------------------------------------------


def test_only_the_holder_renews_or_releases_its_lease_and_claim(
    tmp_path, redis_server, monkeypatch
):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    c = fleet.coord
    assert c.acquire("w1", "mine", 30, 60)
    claim = c.r.zscore("reverie:claims", "w1")
    assert not c.release("w1", "someone-else")  # the old _RELEASE dropped the claim here
    assert c.holder("w1") == "mine" and c.r.zscore("reverie:claims", "w1") == claim
    assert not c.renew("w1", "someone-else", 30, 60)
    assert c.r.zscore("reverie:claims", "w1") == claim
    assert c.renew("w1", "mine", 30, 90) and c.r.zscore("reverie:claims", "w1") > claim
    assert c.release("w1", "mine")
    assert c.holder("w1") is None and c.r.zscore("reverie:claims", "w1") is None


def test_runs_ending_at_once_all_count_in_the_estimate_and_settle_once(
    tmp_path, redis_server, monkeypatch
):
    """Runs that end at the same moment on many workers each fold their tokens into the average
    run's (none lost between a read and a write), and a claim's reservation is given back once
    however many settlements race for it."""
    import threading

    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    c = fleet.coord
    c.r.set("reverie:estimate", "1000")
    runs, per_thread = 30, 5
    start = threading.Barrier(runs // per_thread)

    def finish() -> None:
        start.wait()
        for _ in range(per_thread):
            c.record_run("w-end", "ok", 2000, None)

    threads = [threading.Thread(target=finish) for _ in range(runs // per_thread)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each run moves the average a fifth of the way to 2,000: after n runs 2000 - 1000 * 0.8**n
    assert float(c.r.get("reverie:estimate")) == pytest.approx(2000 - 1000 * 0.8**runs, abs=1e-6)
    assert int(c.r.hget("reverie:stats", "runs")) == runs

    per_minute = 60_000  # refills 1,000 a second: the test's few milliseconds cost a few tokens
    c.tokens(per_minute, debit=50_000)  # a bucket far from full, so a second give-back shows
    c.reserve(["w-claim"], 3000, per_minute)
    before = c.tokens(per_minute)
    start = threading.Barrier(8)

    def settle() -> None:
        start.wait()
        c.settle("w-claim", 0, per_minute)

    settlers = [threading.Thread(target=settle) for _ in range(8)]
    for t in settlers:
        t.start()
    for t in settlers:
        t.join()
    assert c.tokens(per_minute) - before == pytest.approx(3000, abs=500)  # given back once


def test_due_holds_due_times_and_claims_hold_claim_ends(tmp_path, redis_server, monkeypatch):
    """One meaning per score: a claim moves a workspace out of ``due`` into ``claims``; made due
    again during its job, it waits in ``due`` (not sent twice) until the job releases it; a claim
    nobody renews lapses back into ``due``; ``make_due`` never moves an entry nor a parked one."""
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    c = fleet.coord
    assert c.make_due({"w1": 100.0, "w2": 100.0}) == 2
    assert c.make_due({"w1": 50.0}) == 0 and c.due()["w1"] == 100.0  # the first due time stands
    assert sorted(c.claim(10, 30, now=200.0)) == ["w1", "w2"]
    assert c.due() == {} and c.r.zscore("reverie:claims", "w1") == 230.0
    assert c.make_due({"w1": 210.0}) == 1  # appended during its job
    assert c.claim(10, 30, now=220.0) == []  # still claimed: not sent again
    assert c.due() == {"w1": 210.0}
    c.r.zadd("reverie:claims", {"w1": 300.0})  # w1's job renews its claim; w2's died
    assert c.claim(10, 30, now=231.0) == ["w2"]  # w2's claim lapsed: due again, sent again
    assert c.due() == {"w1": 210.0} and c.r.zscore("reverie:claims", "w2") == 261.0
    c.park("w3", "test")
    assert c.make_due({"w3": 0.0}) == 0 and "w3" not in c.due()


def test_the_dispatcher_heals_a_redis_that_lost_its_data(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann", "bob", "cy"])
    for user in app.acked:
        app.append(user)
    sent: list[str] = []
    fleet.dispatch_once(sent.append)
    assert len(sent) == 3 and fleet.coord.generation() is not None
    fleet.coord.r.flushall()  # a restart without persistence
    fleet.dispatch_once(sent.append)
    assert fleet.rebuilds == 1 and fleet.coord.generation() is not None
    assert len(sent) == 6  # every marked workspace sent again, without a human
    fleet.dispatch_once(sent.append)
    assert fleet.rebuilds == 1 and len(sent) == 6  # healed once


def test_status_says_when_redis_and_the_markers_disagree(
    tmp_path, redis_server, monkeypatch, capsys
):
    from reverie.cli import main

    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann", "bob"])
    for user in app.acked:
        app.append(user)
    fleet.dispatch_once(lambda ws: None)
    assert main(["fleet", "status"]) == 0
    assert "disagree" not in capsys.readouterr().out
    fleet.coord.r.flushall()
    assert main(["fleet", "status"]) == 0
    out = capsys.readouterr().out
    assert "Redis holds no due index generation" in out
    assert "Redis and the disk disagree: 2 of 2 workspace(s) marked due on disk" in out
    assert main(["fleet", "status", "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["markers"] == 2 and state["markers_missing"] == 2 and state["generation"] is None


def test_a_plain_root_holding_a_users_folder_is_dreamed(
    tmp_path, redis_server, monkeypatch, capsys
):
    """Issue 35: a plain root with a `users/` folder was taken for a root of scopes (rebuild-due
    scanned 0 workspaces, due plain workspaces ended `gone`). Its kind is now recorded."""
    from reverie.cli import main
    from reverie.storage.workspace import Workspace

    root = tmp_path / "plain"
    ws = Workspace(root / "users" / "alice")
    ws.init()
    WorkspaceStore(ws, config=Config()).append_history("- [durable] User works at Acme", "t")
    fleet = _fleet(root, redis_server, monkeypatch)
    assert main(["fleet", "init", "--kind", "plain"]) == 0
    assert "now a plain root" in capsys.readouterr().out
    assert main(["fleet", "init", "--kind", "plain", "--json"]) == 0
    assert '"changed": false' in capsys.readouterr().out
    assert main(["fleet", "init", "--kind", "scopes"]) == 1  # recorded: not replaced silently
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", "reverie/offline")
    report = fleet.rebuild_due()
    assert (report.scanned, report.pending) == (1, 1)
    assert fleet.run_job("users/alice").status == "ok"


def test_a_job_whose_redis_fails_ends_in_one_line(tmp_path, redis_server, monkeypatch, caplog):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann"])
    app.append("ann")
    redis_server.kill()
    outcome = fleet.run_job(app.name("ann"))
    assert outcome.status == "redis-error"
    assert "sent again once its claim lapses" in outcome.reason and "\n" not in outcome.reason
    assert "Traceback" not in caplog.text


def _scrape(host: str, port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a metrics endpoint, parsed by prometheus-client's own text parser."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    text = urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10).read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_dispatcher_metrics_scraped_with_the_prometheus_parser(tmp_path, redis_server, monkeypatch):
    from reverie.fleet.metrics import FleetCollector, serve_metrics

    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann", "bob", "cy"])
    for user in app.acked:
        app.append(user)
    fleet.dispatch_once(lambda ws: None)
    fleet.coord.park("w-parked", "3 jobs died mid-run")
    fleet.coord.set_aside("w-aside", 2)
    for status, tokens in (("ok", 100), ("ok", 80), ("failed", 10)):
        fleet.coord.record_run("w-run", status, tokens, None)
    host, port = serve_metrics(FleetCollector(fleet), 0, "127.0.0.1")
    m = _scrape(host, port)
    assert m[("reverie_redis_up", ())] == 1
    assert m[("reverie_in_flight_runs", ())] == 3 and m[("reverie_due_workspaces", ())] == 0
    assert m[("reverie_parked_workspaces", ())] == 1
    assert m[("reverie_set_aside_batches", ())] == 2
    assert m[("reverie_runs_total", (("status", "ok"),))] == 2
    assert m[("reverie_runs_total", (("status", "failed"),))] == 1
    assert m[("reverie_run_failures_total", ())] == 1
    assert m[("reverie_model_tokens_total", ())] == 190
    assert m[("reverie_due_markers", ())] == 3 and m[("reverie_due_markers_missing", ())] == 0
    fleet.coord.r.flushall()
    m = _scrape(host, port)
    assert m[("reverie_due_markers_missing", ())] == 3
    redis_server.kill()
    assert _scrape(host, port)[("reverie_redis_up", ())] == 0


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _worker_jobs(port: int):
    """The worker's samples once its job is counted (None before: not up yet, or not counted)."""
    try:
        m = _scrape("127.0.0.1", port)
    except OSError:
        return None
    return m if m.get(("reverie_worker_jobs_total", (("status", "ok"),))) else None


def test_redis_with_auth_and_tls(tmp_path, monkeypatch):
    """docs/scale.md's secured Redis: a password and TLS (a certificate from a CA the fleet is
    given), for the due index, leases and the Celery broker alike, in the URL forms it documents."""
    import shutil
    import subprocess

    from reverie.fleet import Fleet
    from reverie.fleet.app import TASK, make_app

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path / "tls"
    d.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=test-ca")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1")  # fmt: skip
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2",
            "-extfile", "ext.cnf")  # fmt: skip
    port = _free_port()
    server = subprocess.Popen(
        [REDIS_SERVER, "--port", "0", "--tls-port", str(port), "--tls-cert-file", "server.pem",
         "--tls-key-file", "server.key", "--tls-ca-cert-file", "ca.pem", "--tls-auth-clients",
         "no", "--requirepass", "s3cret", "--save", "", "--appendonly", "no", "--dir", str(d)],
        cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"rediss://:s3cret@127.0.0.1:{port}/0?ssl_cert_reqs=required&ssl_ca_certs={d}/ca.pem"
    try:
        app = Appender(tmp_path / "root", ["ann"])
        app.append("ann")
        monkeypatch.setenv("REVERIE_FLEET__ROOT", str(tmp_path / "root"))
        monkeypatch.setenv("REVERIE_FLEET__BROKER_URL", url)
        monkeypatch.setenv("REVERIE_FLEET__DEBOUNCE_SECONDS", "0")
        monkeypatch.setenv("REVERIE_FLEET__JITTER_SECONDS", "0")
        fleet = Fleet(load_config())
        wait_for(lambda: _answers(fleet), 10, "redis-server with TLS")
        celery_app = make_app(load_config())
        sent = fleet.dispatch_once(
            lambda ws: celery_app.send_task(TASK, args=[ws], queue=fleet.cfg.queue)
        )
        assert sent == [app.name("ann")] and fleet.status().inflight == 1
        wrong = url.replace("s3cret", "wrong")
        monkeypatch.setenv("REVERIE_FLEET__BROKER_URL", wrong)
        result = invoke("fleet", "status")
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
    finally:
        server.kill()
        server.wait()


def _answers(fleet) -> bool:
    import redis as redis_py

    try:
        return bool(fleet.coord.r.ping())
    except redis_py.RedisError:
        return False


def test_status_watch_prints_the_backlog_as_json_lines(tmp_path, redis_server, monkeypatch):
    """`reverie fleet status --watch --json` off a terminal: one backlog object a line, until
    interrupted."""
    import subprocess
    import sys

    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch, claim_seconds=600)
    app = Appender(tmp_path / "root", ["ann", "bob"])
    for user in app.acked:
        app.append(user)
    fleet.dispatch_once(lambda ws: None)  # two claims, alive for the test's length on any machine
    env = fleet_env(tmp_path / "root", redis_server, REVERIE_FLEET__CLAIM_SECONDS="600")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", "fleet", "status", "--watch", "--json", "--every", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        lines = [json.loads(proc.stdout.readline()) for _ in range(2)]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    assert proc.returncode == -signal.SIGINT  # ended by it, cleanly: $? 130 (harden2)
    assert lines[-1]["in_flight"] == 2 and "runs_per_minute" in lines[-1]


def test_a_parked_workspace_is_reported_by_the_dispatcher(
    tmp_path, redis_server, monkeypatch, caplog
):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann"])
    app.append("ann")
    fleet.dispatch_once(lambda ws: None)
    fleet.coord.park("w-broken", "3 jobs died mid-run")
    fleet.dispatch_once(lambda ws: None)
    fleet.dispatch_once(lambda ws: None)
    parked = [r for r in caplog.records if "parked" in r.getMessage()]
    assert len(parked) == 1 and parked[0].levelname == "ERROR"  # once, at ERROR, where ops look
    assert (
        "w-broken parked: 3 jobs died mid-run (reverie fleet unpark w-broken)"
        in parked[0].getMessage()
    )


def test_a_job_never_follows_a_link_to_another_scope(tmp_path, redis_server, monkeypatch):
    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    app = Appender(tmp_path / "root", ["ann", "bob"])
    app.append("ann")
    bob = app.path("bob")
    bob.rename(bob.with_name("moved"))
    bob.symlink_to(app.path("ann"))  # bob's workspace made a link to ann's
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", "reverie/offline")
    outcome = fleet.run_job(app.name("bob"))
    assert outcome.status == "gone" and "symbolic link" in outcome.reason
    assert batches_committed(app.path("ann")) == []  # nothing dreamed through the link
    assert (
        WorkspaceStore(app.scopes.workspace(Scope("ann")), config=app.config).pending_count() == 1
    )
