"""Nothing counted twice, no reservation lost, when a reply is lost: a proxy on 127.0.0.1 in front
of a real redis-server forwards a chosen write, waits for the server's reply (the server ran it) and
then drops the connection instead of passing the reply on. redis-py sends the write again on a new
connection, as it does in production after a network blip; each write must find it was done.

``reverie fleet unpark`` answers what it did even when its reply is lost: the resent unpark must
find the first one's answer ("it was parked", and the workspace due) instead of "not parked"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.fleet import RedisServer
from support.fleet_fixtures import needs_redis
from support.redis_proxy import CuttingProxy

pytestmark = [needs_redis]
pytest.importorskip("redis", reason="the `fleet` extra (celery, redis) is not installed")


@pytest.fixture
def proxy(redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[CuttingProxy]:
    from reverie.fleet import job

    monkeypatch.setattr(job, "_unheard", set())  # a job's end this test's Redis missed stays here
    p = CuttingProxy(redis_server)
    yield p
    p.close()


def _coords(proxy: CuttingProxy, redis_server: RedisServer):
    """The coordinator under test, through the proxy, and a direct client to check with."""
    import redis

    from reverie.fleet.coord import Coordinator

    direct = redis.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    c = Coordinator.connect(proxy.url)
    for script in vars(c).values():  # loaded first: a cut reply is a write's, not a NOSCRIPT
        if isinstance(script, redis.commands.core.Script):
            direct.script_load(script.script)
    return c, direct


def _cut(proxy: CuttingProxy, trigger: bytes, write) -> object:
    """Run ``write`` with the proxy armed on ``trigger``; check the reply was really lost once and
    the write sent again on a new connection."""
    before = proxy.connections
    proxy.arm(trigger)
    result = write()
    assert proxy.cuts == 1, "the proxy did not cut the reply"
    assert proxy.connections > before, "redis-py did not send the write again"
    proxy.cuts = 0
    return result


def test_a_run_is_counted_and_settled_once_when_its_reply_is_lost(proxy, redis_server):
    c, direct = _coords(proxy, redis_server)
    per_minute = 6_000  # 100 tokens a second: the test's moments cost little
    direct.set("reverie:estimate", "2000")
    c.tokens(per_minute, debit=50_000)  # far from full, so a second give-back would show
    c.reserve(["w1"], 3000, per_minute)
    before = c.tokens(per_minute)
    _cut(proxy, b"EXEC", lambda: c.record_run("w1", "ok", 1000, per_minute))
    stats = direct.hgetall("reverie:stats")
    assert (stats["runs"], stats["runs:ok"], stats["tokens"]) == ("1", "1", "1000")
    assert float(direct.get("reverie:estimate")) == pytest.approx(0.8 * 2000 + 0.2 * 1000)
    # the reservation (3,000) came back once, less the 1,000 used: +2,000 (a lost reservation
    # was -1,000: the resent settlement found none and debited the whole use)
    assert c.tokens(per_minute) - before == pytest.approx(2000, abs=600)
    assert direct.hget("reverie:reserved", "w1") is None
    # the job's closing settlement (no run) is then a no-op
    level = c.tokens(per_minute)
    _cut(proxy, b"EXEC", lambda: c.settle("w1", 0, per_minute))
    assert c.tokens(per_minute) - level == pytest.approx(0, abs=600)


def test_claims_reservations_debits_and_counters_happen_once(proxy, redis_server):
    c, direct = _coords(proxy, redis_server)
    per_minute = 6_000
    c.make_due({"w1": 0, "w2": 0, "w3": 0})
    claimed = _cut(proxy, b"reverie:claims", lambda: c.claim(2, 60))
    assert len(claimed) == 2  # the first claim's reply, not a second claim's
    assert sorted(direct.zrange("reverie:claims", 0, -1)) == sorted(claimed)
    assert direct.zrange("reverie:due", 0, -1) == sorted({"w1", "w2", "w3"} - set(claimed))

    level = c.tokens(per_minute)
    _cut(proxy, b"reverie:reserved", lambda: c.reserve(claimed, 1000, per_minute))
    assert c.tokens(per_minute) - level == pytest.approx(-2000, abs=600)  # debited once

    level = c.tokens(per_minute)
    _cut(proxy, b"reverie:budget", lambda: c.tokens(per_minute, debit=5000))
    assert c.tokens(per_minute) - level == pytest.approx(-5000, abs=600)

    assert _cut(proxy, b"reverie:crashes", lambda: c.started("w1")) == 0
    assert direct.hget("reverie:crashes", "w1") == "1"  # one start, not a crash
    assert _cut(proxy, b"reverie:failures", lambda: c.failed("w1")) == 1
    assert direct.hget("reverie:failures", "w1") == "1"

    assert _cut(proxy, b"reverie:lease:w3", lambda: c.acquire("w3", "job-a", 30, 60))
    assert direct.get("reverie:lease:w3") == "job-a"  # its own lease, not "held by another"
    assert not c.acquire("w3", "job-b", 30, 60)

    assert _cut(proxy, b"reverie:due", lambda: c.make_due({"w9": 0})) == 1  # newly due, once
    assert set(direct.keys("reverie:once:*")), "each write leaves its id"
    assert all(0 < direct.ttl(k) <= 300 for k in direct.keys("reverie:once:*"))


# -- Redis dying under a job -----------------------------------------------------------------------


def test_redis_dying_as_a_job_marks_the_rest_due_leaves_the_marker(
    tmp_path, proxy, redis_server, monkeypatch
):
    """A job drained part of a backlog (its drain budget ran out) and Redis died as it marked the
    rest due. The workspace's due marker must still be on disk: a Redis that comes back without its
    data is rebuilt from the markers, and the rest is dreamed. (The job removed the marker first,
    then re-marked Redis, then the disk: a Redis failing in between left nothing saying so.)"""
    from support.fleet import batches_committed, fleet_env

    from reverie.fleet import Fleet
    from reverie.storage.config import Config, load_config
    from reverie.storage.scopes import Scope, ScopeRoot
    from reverie.storage.store import WorkspaceStore

    root = tmp_path / "root"
    config = Config()
    config.memory.history.fsync = False
    store = WorkspaceStore(ScopeRoot(root).ensure(Scope("ann")), config=config)
    for i in range(60):
        store.append_history(f"- [durable] Project p{i} uses database db{i}", "cli:test")
    env = fleet_env(
        root,
        redis_server,
        REVERIE_FLEET__BROKER_URL=proxy.url,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        # 20 batches of 3 take longer: the job yields with history left
        REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS="0.3",
    )
    for key, value in env.items():
        if key.startswith("REVERIE_"):
            monkeypatch.setenv(key, value)
    fleet = Fleet(load_config())
    ws = Scope("ann").name
    assert fleet.dispatch_once(lambda _: None) == [ws]
    proxy.arm(b"reverie:parked", die=True)  # the job's make_due: the rest is due
    outcome = fleet.run_job(ws)
    assert outcome.status == "redis-error" and "\n" not in (outcome.reason or "")
    batches = batches_committed(store.workspace.root)
    assert len(batches) == len(set(batches))  # each batch it ran, once
    assert 0 < store.pending_count() == 60 - sum(b - a + 1 for a, b in batches)
    assert ScopeRoot(root).due_names() == [ws]  # was: [] (removed, never put back)

    redis_server.kill(lose_data=True)  # and Redis comes back with nothing
    redis_server.start(aof=False)
    monkeypatch.setenv("REVERIE_FLEET__BROKER_URL", redis_server.url)
    sent: list[str] = []
    assert Fleet(load_config()).dispatch_once(sent.append) == [ws]  # healed from the marker


def test_a_job_that_ended_while_redis_was_down_is_not_counted_as_dead(
    tmp_path, proxy, redis_server, monkeypatch
):
    """A job whose end Redis did not hear (down at that moment) left its start counted as a job
    that died; with ``crashParkAfter`` such ends in a row parked a healthy workspace. The process
    tells Redis before its next job."""
    from support.fleet import fleet_env

    from reverie.fleet import Fleet
    from reverie.storage.config import Config, load_config
    from reverie.storage.scopes import Scope, ScopeRoot
    from reverie.storage.store import WorkspaceStore

    root = tmp_path / "root"
    config = Config()
    config.memory.history.fsync = False
    store = WorkspaceStore(ScopeRoot(root).ensure(Scope("ann")), config=config)
    store.append_history("- [durable] Project p1 uses database db1", "cli:test")
    env = fleet_env(
        root,
        redis_server,
        REVERIE_FLEET__BROKER_URL=proxy.url,
        REVERIE_FLEET__CRASH_PARK_AFTER="1",  # one job counted dead parks the workspace
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS="600",
    )
    for key, value in env.items():
        if key.startswith("REVERIE_"):
            monkeypatch.setenv(key, value)
    ws = Scope("ann").name
    _, direct = _coords(proxy, redis_server)  # the scripts loaded: one write each
    proxy.arm(b"reverie:crashes", die=True, after=1)  # its start is heard, its end is not
    assert Fleet(load_config()).run_job(ws).status == "redis-error"
    assert direct.hget("reverie:crashes", ws) == "1"  # a start, never finished, as Redis sees it

    monkeypatch.setenv("REVERIE_FLEET__BROKER_URL", redis_server.url)  # Redis reachable again
    outcome = Fleet(load_config()).run_job(ws)
    # the first job's run was done before its end went unheard: nothing left to do, and no park
    assert outcome.status == "nothing-to-do", outcome  # was: "parked: 1 jobs died mid-run"
    assert direct.zrange("reverie:parked", 0, -1) == [] and store.pending_count() == 0


# -- an unpark whose reply is lost -----------------------------------------------------------------


def test_an_unpark_whose_reply_is_lost_still_says_it_unparked(proxy, redis_server):
    c, direct = _coords(proxy, redis_server)
    c.park("w1", "3 jobs died mid-run")
    assert "w1" in c.parked()
    before = proxy.connections
    proxy.arm(b"reverie:parked-why")
    assert c.unpark("w1") is True, "a resent unpark answered 'not parked'"
    assert proxy.cuts == 1, "the proxy did not cut the reply"
    assert proxy.connections > before, "redis-py did not send the unpark again"
    assert direct.zscore("reverie:parked", "w1") is None
    assert direct.hget("reverie:parked-why", "w1") is None
    assert direct.zscore("reverie:due", "w1") is not None, "unparked but never made due"
    # a second, separate unpark is honest: it was not parked any more
    assert c.unpark("w1") is False


def test_unparking_a_workspace_never_parked_makes_nothing_due(proxy, redis_server):
    c, direct = _coords(proxy, redis_server)
    assert c.unpark("ghost") is False
    assert direct.zscore("reverie:due", "ghost") is None


def test_the_cli_reports_unparked_through_a_lost_reply(tmp_path, proxy, redis_server):
    """The user's command, in process, through the proxy: exit 0 and 'unparked', not 'not
    parked' with exit 1."""
    import json

    from support.cli import invoke

    c, _ = _coords(proxy, redis_server)
    c.park("team/alpha", "3 jobs died mid-run")
    proxy.arm(b"reverie:parked-why")
    env = {"REVERIE_FLEET__BROKER_URL": proxy.url, "REVERIE_FLEET__ROOT": str(tmp_path)}
    result = invoke("fleet", "unpark", "team/alpha", "--json", env=env)
    assert proxy.cuts == 1
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"unparked": ["team/alpha"], "not_parked": []}
