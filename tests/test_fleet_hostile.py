"""A hostile operator against the fleet (real redis-server on a unix socket, real workspaces on
disk): a workspace that refuses every job (a link out of the root, a state directory that is a
file), and a Redis that evicts the fleet's keys under ``maxmemory``. What must hold: nothing is
written outside the root, a workspace with history pending is never dropped from the due index (it
waits out a back-off that doubles, it is not sent again in a hot loop), a Redis that lost part of
its data is noticed and the due index rebuilt, and each fault is one line in the log. Each test
failed on main before the fix it names."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import pytest
from support.fleet import RedisServer, fleet_env
from support.fleet_fixtures import fleet_for, needs_redis, plain_root

from reverie.storage.config import Config, load_config
from reverie.storage.scopes import write_root_kind
from reverie.storage.store import WorkspaceStore
from reverie.storage.workspace import Workspace

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
celery = pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")


def _fleet(root: Path, server: RedisServer, monkeypatch: pytest.MonkeyPatch, **fleet: object):
    return fleet_for(root, server, monkeypatch, model="reverie/offline", **fleet)


# -- a workspace that refuses every job: kept due, backing off -------------------------------------


def _break(ws: Path, how: str, outside: Path) -> None:
    state = ws / "memory" / ".reverie"
    shutil.rmtree(state, ignore_errors=True)
    if how == "state-is-a-file":
        state.write_text("not a directory\n")
    elif how == "state-links-out":
        outside.mkdir()
        state.symlink_to(outside)
    elif how == "history-links-out":
        outside.mkdir()
        history = ws / "memory" / "history.jsonl"
        shutil.copy(history, outside / "history.jsonl")
        history.unlink()
        history.symlink_to(outside / "history.jsonl")


@pytest.mark.parametrize("how", ["state-is-a-file", "state-links-out", "history-links-out"])
def test_a_workspace_that_fails_every_job_backs_off_and_is_never_dropped(
    tmp_path, redis_server, monkeypatch, caplog, how
):
    """Was: the job ended "error" with its claim released and no due entry, so a plain root's
    workspace with history pending was never dreamed again (until ``rebuild-due``), with no failure
    counted; a root of scopes sent it again every claim period without a back-off. Now it is due
    again after the failure back-off, which doubles, and the other workspaces are served."""
    root = tmp_path / "plain"
    plain_root(root, "bad", "good")
    outside = tmp_path / "outside"
    _break(root / "bad", how, outside)
    before = sorted(p.name for p in outside.rglob("*")) if outside.exists() else []
    fleet = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=30)
    for name in ("bad", "good"):
        fleet.mark_dirty(name, now=0)
    sent: list[str] = []
    assert sorted(fleet.dispatch_once(sent.append)) == ["bad", "good"]
    caplog.set_level(logging.WARNING)
    assert fleet.run_job("good").status == "ok"
    delays = []
    for _ in range(3):
        outcome = fleet.run_job("bad")
        assert outcome.status == "error" and "\n" not in (outcome.reason or "")
        due = fleet.coord.due()
        assert "bad" in due, f"{how}: a failing workspace with history pending left the due index"
        delays.append(due["bad"] - time.time())
        fleet.coord.unmark("bad")  # as a claim would take it out again
    assert 20 < delays[0] < 40 and 50 < delays[1] < 70 and 110 < delays[2] < 130, delays
    assert fleet.coord.r.hget("reverie:failures", "bad") == "3"
    assert "good" not in fleet.coord.due()
    after = sorted(p.name for p in outside.rglob("*")) if outside.exists() else []
    assert after == before, "a job wrote outside the fleet root"
    assert "Traceback" not in caplog.text
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("reverie.fleet")]
    assert lines and all("\n" not in line for line in lines)
    assert any("tried again in" in line for line in lines), lines


def test_a_bug_in_one_workspaces_job_is_one_line_and_backs_off(
    tmp_path, redis_server, monkeypatch, caplog
):
    """Was: an exception other than Reverie's, an OSError or Redis's raised outside Dream's run (a
    bug in the job's bookkeeping, here in building the workspace's services) escaped the job: a
    traceback in the worker, and the workspace out of the due index with its history pending.
    Now it ends the job in one line, and the workspace backs off like any failure."""
    from reverie.fleet.job import run_dream_job

    root = tmp_path / "plain"
    plain_root(root, "a")
    fleet = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=30)
    fleet.mark_dirty("a", now=0)
    assert fleet.dispatch_once(lambda ws: None) == ["a"]

    def broken(path: Path):
        raise TypeError("unsupported operand type(s) for +: 'int' and 'NoneType'")

    caplog.set_level(logging.WARNING)
    outcome = run_dream_job(fleet.coord, fleet.cfg, root, "a", "plain", runtime=broken)
    assert outcome.status == "error" and "unexpected error: TypeError" in (outcome.reason or "")
    assert 20 < fleet.coord.due()["a"] - fleet.coord.now() < 40
    assert fleet.coord.holder("a") is None and fleet.coord.inflight() == 0
    assert "Traceback" not in caplog.text and "tried again in" in caplog.text


@pytest.mark.parametrize("how", ["unmounted", "another-kind"])
def test_a_worker_without_the_shared_root_removes_nothing(
    tmp_path, redis_server, monkeypatch, caplog, how
):
    """Was: a worker whose fleet root was not the shared one — the file system not mounted there
    (an empty mount point), or another root mounted in its place — found no workspace, took the
    workspace for gone and removed its due entry: a plain root's pending history was never dreamed
    again. Now the job checks the root first: one line, nothing removed, the workspace due again
    after the back-off, and dreamed once the root is back."""
    root = tmp_path / "plain"
    plain_root(root, "a")
    fleet = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=30)
    fleet.mark_dirty("a", now=0)
    assert fleet.dispatch_once(lambda ws: None) == ["a"]
    assert fleet.kind == "plain"  # the worker process has read the root's kind already
    aside = tmp_path / "mounted"
    root.rename(aside)  # unmounted: an empty mount point is left
    root.mkdir()
    if how == "another-kind":
        write_root_kind(root, "scopes")
    caplog.set_level(logging.WARNING)
    outcome = fleet.run_job("a")
    assert outcome.status == "error" and "not mounted" in (outcome.reason or ""), outcome
    assert 20 < fleet.coord.due()["a"] - fleet.coord.now() < 40, "the workspace left the due index"
    assert fleet.coord.holder("a") is None
    assert "gone" not in caplog.text and "Traceback" not in caplog.text
    shutil.rmtree(root)
    aside.rename(root)  # mounted again
    fleet.coord.unmark("a")
    fleet.coord.make_due({"a": 0})
    assert fleet.dispatch_once(lambda ws: None) == ["a"]
    assert fleet.run_job("a").status == "ok"


def test_a_parked_workspace_is_not_run_by_a_message_sent_before_or_again(
    tmp_path, redis_server, monkeypatch, caplog
):
    """Was: parking only stopped the dispatcher; a job message already queued, or requeued by
    Celery after the job killed its worker (``reject_on_worker_lost``), still ran the parked
    workspace — measured with a model that SIGKILLs its worker: 2 workspaces parked after 2
    crashes each went on to 12 crashes in all before the redeliveries ran out. Now such a job says
    it is parked, in one line, and runs nothing."""
    from reverie.dream.fence import read_epoch

    root = tmp_path / "plain"
    plain_root(root, "a")
    fleet = _fleet(root, redis_server, monkeypatch)
    fleet.coord.park("a", "2 jobs died mid-run (killed, or past the hard time limit)")
    caplog.set_level(logging.WARNING)
    state = root / "a" / "memory" / ".reverie"
    epoch = read_epoch(state)
    outcome = fleet.run_job("a")  # the message Celery sends again
    assert outcome.status == "parked" and "reverie fleet unpark a" in (outcome.reason or "")
    assert "2 jobs died" in (outcome.reason or "")
    store = WorkspaceStore(Workspace(root / "a"), config=Config())
    assert store.pending_count() == 1 and read_epoch(state) == epoch  # nothing ran
    assert fleet.coord.r.hget("reverie:crashes", "a") is None  # no start counted
    assert fleet.coord.holder("a") is None and "a" in fleet.coord.parked()
    assert "not run: parked" in caplog.text and "Traceback" not in caplog.text
    assert fleet.unpark("a") and fleet.run_job("a").status == "ok"


# -- a Redis that evicts the fleet's keys under maxmemory ------------------------------------------


def _evict_due(r) -> None:
    """Fill Redis past a small ``maxmemory`` until it evicts the due index, the generation staying:
    policy allkeys-lfu with every access counted (``lfu-log-factor 0``), the generation read as
    often as a dispatcher reads it (every tick) and each filler key read more than the due index
    was, so the due index is the least used key. Then the filler is deleted."""
    r.config_set("lfu-log-factor", 0)
    r.config_set("maxmemory-policy", "allkeys-lfu")
    pipe = r.pipeline(transaction=False)
    for _ in range(300):
        pipe.get("reverie:generation")
    pipe.execute()
    r.config_set("maxmemory", int(r.info("memory")["used_memory"]) + 2_000_000)
    n = 0
    while r.exists("reverie:due") and n < 400:
        pipe.set(f"junk:{n}", "x" * 50_000)
        for _ in range(50):
            pipe.get(f"junk:{n}")
        pipe.execute()
        n += 1
    assert not r.exists("reverie:due"), "Redis never evicted the due index"
    assert r.exists("reverie:generation"), "the generation was evicted: not the case under test"
    assert int(r.info("stats")["evicted_keys"]) > 0
    r.delete(*(f"junk:{i}" for i in range(n)))  # room again, the limit and the policy kept


@pytest.mark.parametrize("kind", ["plain", "scopes"])
def test_a_redis_that_evicts_the_due_index_is_healed_at_the_next_tick(
    tmp_path, redis_server, monkeypatch, caplog, kind
):
    """Was: the dispatcher healed a Redis that lost every key (no generation) but not one that
    evicted some under ``maxmemory``: the generation, read every tick, is the last key an LRU
    evicts, so the due index went and nothing noticed — a plain root's pending workspaces were
    never dreamed again until someone ran ``rebuild-due`` (a root of scopes waited for its next
    full listing of the markers). Now an eviction is a rebuild, and a Redis that may evict says so
    once."""
    from reverie.storage.scopes import Scope, ScopeRoot

    root = tmp_path / kind
    names = ["a", "b", "c"]
    if kind == "plain":
        plain_root(root, *names)
        ids = names
    else:
        scopes = ScopeRoot(root)
        config = Config()
        config.memory.history.fsync = False
        for name in names:
            WorkspaceStore(scopes.ensure(Scope(name)), config=config).append_history(
                f"- [durable] {name} works at Acme", "cli:test"
            )
        ids = [Scope(n).name for n in names]
    fleet = _fleet(root, redis_server, monkeypatch, claim_seconds=3600)
    caplog.set_level(logging.WARNING)
    assert fleet.heal()  # the dispatcher's first tick builds the due index
    assert sorted(fleet.coord.due()) == sorted(ids)
    _evict_due(fleet.coord.r)
    assert fleet.coord.due() == {}
    sent: list[str] = []
    assert sorted(fleet.dispatch_once(sent.append)) == sorted(ids), "the eviction went unnoticed"
    assert fleet.rebuilds == 1
    text = caplog.text
    assert "Redis evicted" in text and "rebuilding the due index" in text
    assert text.count("maxmemory-policy allkeys-lfu") == 1  # warned once, by the first tick after
    assert fleet.dispatch_once(sent.append) == []  # claimed: the next tick sends nothing again
    assert "Traceback" not in text


# -- a worker whose clock is a day ahead -----------------------------------------------------------

DAY = 86_400.0


def test_a_worker_whose_clock_is_a_day_ahead_writes_times_on_the_fleets_clock(
    tmp_path, redis_server, monkeypatch
):
    """Was: every claim end and due time was this host's ``time.time()``. A worker a day ahead
    renewed its claim to end a day from now by the dispatcher's clock, so when it died its
    workspace was not sent again for a day; a failure's back-off it wrote was a day long too. Now
    they are on the fleet's clock, Redis's ``TIME`` (`Coordinator.now`), whatever the host's."""
    root = tmp_path / "plain"
    plain_root(root, "a", "bad")
    _break(root / "bad", "state-is-a-file", tmp_path / "outside")
    dispatcher = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=30)
    for name in ("a", "bad"):
        dispatcher.mark_dirty(name, now=0)
    assert sorted(dispatcher.dispatch_once(lambda ws: None)) == ["a", "bad"]
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + DAY)  # the worker's host, from here on
    worker = _fleet(root, redis_server, monkeypatch, retry_backoff_seconds=30)
    # a job takes "a" (its lease renews the claim) and its worker dies: no release
    assert worker.coord.acquire("a", "dead-worker", 3, 4)
    assert worker.run_job("bad").status == "error"  # backs off 30 s
    monkeypatch.setattr(time, "time", real)
    seconds, micros = dispatcher.coord.r.time()  # the fleet's clock: Redis's
    now = seconds + micros / 1e6
    assert abs(now - real()) < 5  # one machine: Redis's clock is this one
    due = dispatcher.coord.due()
    assert 20 < due["bad"] - now < 40, f"a back-off of {due['bad'] - now:.0f} s"
    claims = dict(dispatcher.coord.r.zrange("reverie:claims", 0, -1, withscores=True))
    assert claims["a"] - now < 10, f"the dead worker's claim ends in {claims['a'] - now:.0f} s"
    # ten seconds later by the fleet's clock the claim has lapsed: "a" is sent again
    assert dispatcher.coord.claim(10, 4, now=now + 10) == ["a"]


# -- a message on the queue that no dispatcher sent ------------------------------------------------


def test_a_job_whose_arguments_are_not_a_workspace_id_is_one_line_and_dropped(
    tmp_path, redis_server
):
    """Was: ``reverie.fleet.dream`` sent with a number, no argument or two (by hand, or by another
    program on the queue) raised in the worker — a TypeError traceback each time. Now it is one
    line, the message is acked and dropped, and the worker goes on serving the workspaces."""
    from support.fleet import start_worker, wait_for

    from reverie.fleet.app import TASK, make_app

    root = tmp_path / "plain"
    plain_root(root, "a")
    env = fleet_env(
        root,
        redis_server,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS="600",
    )
    worker = start_worker("w", env, tmp_path)
    cfg = load_config(env={k: v for k, v in env.items() if k.startswith("REVERIE_")})
    app = make_app(cfg)
    bad: list[tuple[list[object], dict[str, object]]] = [
        ([123], {}),
        ([], {}),
        (["a", "b"], {}),
        ([None], {}),
        (["a"], {"force": True}),
    ]
    for args, kwargs in bad:
        app.send_task(TASK, args=args, kwargs=kwargs, queue=cfg.fleet.queue)
    app.send_task(TASK, args=["a"], queue=cfg.fleet.queue)
    store = WorkspaceStore(Workspace(root / "a"), config=Config())
    wait_for(lambda: store.pending_count() == 0, 60, "the good job to run after the bad ones")
    wait_for(lambda: "fleet: a ok" in worker.text(), 20, "the good job's line")
    worker.stop()
    log = worker.text()
    assert log.count("not one workspace id dropped") == len(bad), log[-3000:]
    assert "Traceback" not in log and "TypeError" not in log, log[-3000:]


# -- a write marked while Redis is down ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["plain", "scopes"])
def test_a_write_marked_while_redis_is_down_is_dreamed_when_it_is_back(
    tmp_path, redis_server, monkeypatch, caplog, kind
):
    """Was: `Fleet.mark_dirty` raised redis's ConnectionError to the application whose history
    append had succeeded, and in a plain root nothing marked the workspace again: Redis came back
    with its data (its generation kept, so no rebuild) and the write was never dreamed until a
    later write marked it. Now the caller gets one warning line, the mark waits on the disk, and
    the dispatcher's next tick with Redis back makes the workspace due."""
    from reverie.fleet.job import pending, workspace_path
    from reverie.storage.scopes import Scope, ScopeRoot

    root = tmp_path / kind
    config = Config()
    config.memory.history.fsync = False
    if kind == "plain":
        plain_root(root, "a")
        ws_id = "a"
    else:
        store = WorkspaceStore(ScopeRoot(root).ensure(Scope("a")), config=config)
        store.append_history("- [durable] a works at Acme", "cli:test")
        ws_id = Scope("a").name
    fleet = _fleet(root, redis_server, monkeypatch, debounce_seconds=0, jitter_seconds=0)
    sent: list[str] = []
    assert fleet.dispatch_once(sent.append) == [ws_id]
    fleet.run_job(ws_id)
    path = workspace_path(root, ws_id, kind)
    assert pending(path) == 0
    assert fleet.dispatch_once(sent.append) == []

    redis_server.kill()
    WorkspaceStore(Workspace(path), config=config).append_history(
        "- [durable] a moved to Globex", "cli:test"
    )
    caplog.clear()
    caplog.set_level(logging.WARNING)
    assert fleet.mark_dirty(ws_id) is False  # no error for a write that succeeded
    records = [r for r in caplog.records if r.name.startswith("reverie")]
    assert len(records) == 1 and "\n" not in records[0].getMessage(), caplog.text
    assert "Redis" in records[0].getMessage() and ws_id in records[0].getMessage()
    redis_server.start()  # with its data: the generation is kept, no rebuild

    assert fleet.dispatch_once(sent.append) == [ws_id], "the write made while Redis was down"
    assert fleet.run_job(ws_id).status == "ok"
    assert pending(path) == 0
    assert fleet.rebuilds == 0
    assert fleet.dispatch_once(sent.append) == []  # the mark on disk was taken once
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize("kind", ["plain", "scopes"])
def test_a_due_index_deleted_by_hand_is_back_within_a_claim_period(
    tmp_path, redis_server, monkeypatch, kind
):
    """An operator's ``DEL reverie:due`` on its own: no eviction, the generation kept, so the
    dispatcher does not rebuild. Every due bucket is listed each claim period and the workspace is
    due again. Was (a plain root): nothing on the disk to list, its markers gone once Redis had
    them; now a plain root's marker stays until its history is dreamed, as a scope's does."""
    from reverie.storage.scopes import Scope, ScopeRoot

    root = tmp_path / kind
    if kind == "plain":
        plain_root(root, "a")
        ws_id = "a"
    else:
        config = Config()
        config.memory.history.fsync = False
        WorkspaceStore(ScopeRoot(root).ensure(Scope("a")), config=config).append_history(
            "- [durable] a works at Acme", "cli:test"
        )
        ws_id = Scope("a").name
    # due an hour from now: the ticks below build and heal the index, never claim
    fleet = _fleet(
        root, redis_server, monkeypatch, debounce_seconds=3600, jitter_seconds=3600, claim_seconds=1
    )
    fleet.dispatch_once(lambda ws: None)
    assert list(fleet.coord.due()) == [ws_id]
    fleet.coord.r.delete("reverie:due")
    end = time.monotonic() + 2  # ticks past one claim period: one of them lists every bucket
    while time.monotonic() < end:
        fleet.dispatch_once(lambda ws: None)
        time.sleep(0.1)
    assert fleet.rebuilds == 0
    assert list(fleet.coord.due()) == [ws_id], "the deleted due index went unnoticed"


def test_a_dispatcher_on_a_root_with_no_recorded_kind_says_why_once_without_redis(
    tmp_path, monkeypatch, caplog
):
    """Was: ``reverie fleet dispatch`` on a root nothing was written to (a mistyped
    ``fleet.root``, a share not mounted) said "sent 0 job(s)" every tick and nothing else. Now the
    first tick says once why nothing is dispatched and how to make the root; Redis is not asked
    (here there is none), and a workspace written later is dispatched."""
    root = tmp_path / "empty"
    root.mkdir()
    monkeypatch.setenv("REVERIE_FLEET__ROOT", str(root))
    monkeypatch.setenv("REVERIE_FLEET__BROKER_URL", f"redis+socket://{tmp_path / 'none.sock'}")
    from reverie.fleet import Fleet

    fleet = Fleet(load_config())
    caplog.set_level(logging.WARNING)
    assert fleet.dispatch_once(lambda ws: None) == []
    assert fleet.dispatch_once(lambda ws: None) == []
    said = [r.getMessage() for r in caplog.records if r.name.startswith("reverie")]
    assert len(said) == 1, said
    assert str(root) in said[0] and "not a fleet root" in said[0] and "init" in said[0]
    plain_root(root, "a")
    assert fleet.kind == "plain"  # read again: the root is one now
