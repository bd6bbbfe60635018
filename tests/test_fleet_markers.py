"""One due marker for every fleet root, and the fleet's bookkeeping around it (real redis-server on
a unix socket, real workspaces on disk): a plain root's markers are the scopes' kind
(``reverie.storage.scopes.DueMarkers``), so what heals a root of scopes heals a plain one; the
markers an older version left in a plain root's ``.due`` are taken once; ``reverie fleet status``
says how many markers Redis does not know and since when; a workspace claimed again before its
job settled is charged its tokens once. Each test failed on main before the change it names."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from support.fleet import RedisServer, fleet_env
from support.fleet_fixtures import fleet_for, needs_redis

from reverie.storage.config import Config
from reverie.storage.scopes import Scope, ScopeRoot, write_root_kind
from reverie.storage.store import WorkspaceStore
from reverie.storage.workspace import Workspace

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
celery = pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")


def _fleet(root: Path, server: RedisServer, monkeypatch: pytest.MonkeyPatch, **fleet: object):
    return fleet_for(root, server, monkeypatch, model="reverie/offline", drain_seconds=600, **fleet)


def _config() -> Config:
    config = Config()
    config.memory.history.fsync = False
    return config


def _root(tmp_path: Path, kind: str, *names: str) -> tuple[Path, list[str]]:
    """A fleet root of ``kind`` holding a workspace with one pending history entry per name, and
    the workspaces' ids."""
    root = tmp_path / kind
    ids = []
    for name in names:
        if kind == "plain":
            ws = Workspace(root / name)
            ws.init()
            ids.append(name)
        else:
            ws = ScopeRoot(root).ensure(Scope(name))
            ids.append(Scope(name).name)
        WorkspaceStore(ws, config=_config()).append_history(
            f"- [durable] {name} works at Acme", "cli:test"
        )
    if kind == "plain":
        write_root_kind(root, "plain")
    return root, ids


def _digest(ws: str) -> str:
    return hashlib.blake2b(ws.encode(), digest_size=16).hexdigest()


def _marker(root: Path, kind: str, ws: str) -> Path:
    """Where ``ws``'s due marker is: a root of scopes' ``due/<bucket>/<name>``; a plain root's
    ``.reverie-due/<bucket>/<digest of the id>`` (the id is a path)."""
    if kind == "scopes":
        return root / "due" / ws[:2] / ws
    return root / ".reverie-due" / _digest(ws)[:2] / _digest(ws)


def _marked(root: Path, kind: str) -> list[Path]:
    return sorted((root / ("due" if kind == "scopes" else ".reverie-due")).glob("*/*"))


def _old_marker(root: Path, ws: str) -> Path:
    """A due marker as fleet6 left it in a plain root while Redis was down: ``.due/<digest>``
    holding the id."""
    marks = root / ".due"
    marks.mkdir(exist_ok=True)
    path = marks / _digest(ws)
    path.write_text(ws + "\n")
    return path


# -- one marker for both kinds of root -------------------------------------------------------------


def test_a_plain_roots_marker_is_the_scopes_kind_and_lasts_until_its_history_is_dreamed(
    tmp_path, redis_server, monkeypatch
):
    """Was: a plain root's marker was written only while Redis was down, in a directory of its own
    (``.due``, another implementation), and removed as soon as Redis had the mark. Now
    `Fleet.mark_dirty` leaves the marker the scopes' way (a bucket, written whole), the job that
    consumed the history removes it, and one left with history pending is marked again."""
    from reverie.fleet.job import pending

    root, (ws,) = _root(tmp_path, "plain", "team/alpha")
    fleet = _fleet(root, redis_server, monkeypatch)
    fleet.heal()
    assert fleet.mark_dirty(ws) is False  # the heal's scan made it due already
    marker = _marker(root, "plain", ws)
    assert marker.read_text() == ws + "\n" and _marked(root, "plain") == [marker]
    assert not (root / ".due").exists()
    assert fleet.dispatch_once(lambda w: None) == [ws]
    assert marker.exists()  # claimed, not yet dreamed: the marker stays
    assert fleet.run_job(ws).status == "ok" and pending(root / ws) == 0
    assert _marked(root, "plain") == []
    assert fleet.coord.due() == {}


@pytest.mark.parametrize("kind", ["plain", "scopes"])
def test_an_older_plain_marker_is_taken_once_and_its_directory_goes(
    tmp_path, redis_server, monkeypatch, caplog, kind
):
    """A plain root upgraded from fleet6 with a marker still in ``.due`` (Redis was down when the
    workspace was marked; the dispatcher that would have taken it stopped): the new dispatcher,
    with Redis's data and generation kept (no rebuild), makes the workspace due at its first tick,
    moves the marker into the buckets and removes ``.due``; after the job nothing is due again. In
    a root of scopes a ``.due`` is nobody's and is left alone."""
    root, ids = _root(tmp_path, kind, "a", "b")
    _fleet(root, redis_server, monkeypatch).coord.set_generation()  # the old dispatcher's
    if kind == "scopes":
        for name in ScopeRoot(root).due_names():
            ScopeRoot(root).unmark_due(name)  # only the old marker says "due"
    old = _old_marker(root, ids[1])
    fleet = _fleet(root, redis_server, monkeypatch, debounce_seconds=0, jitter_seconds=0)
    caplog.set_level(logging.WARNING)
    sent = fleet.dispatch_once(lambda w: None)
    assert fleet.rebuilds == 0
    if kind == "scopes":
        assert sent == [] and old.exists()
        return
    assert sent == [ids[1]], "the older version's marker was not taken"
    assert not old.parent.exists() and _marked(root, kind) == [_marker(root, kind, ids[1])]
    assert "1 due marker(s) of an older version taken" in caplog.text
    assert fleet.run_job(ids[1]).status == "ok"
    assert _marked(root, kind) == [] and fleet.dispatch_once(lambda w: None) == []


def test_a_plain_marker_that_is_no_marker_is_one_line_and_removed(
    tmp_path, redis_server, monkeypatch, caplog
):
    """In the buckets of a plain root's markers: a marker holding another id than its name says,
    one holding a path out of the root, one that is a directory, one that is not text. Each is one
    warning and removed; the good marker beside them makes its workspace due."""
    root, _ids = _root(tmp_path, "plain", "a", "b")
    fleet = _fleet(root, redis_server, monkeypatch, debounce_seconds=3600, jitter_seconds=3600)
    fleet.heal()
    fleet.coord.r.delete("reverie:due")
    _marker(root, "plain", "b").unlink()
    bucket_of = lambda ws: _marker(root, "plain", ws)  # noqa: E731
    bad = {
        "../outside": "../outside\n",
        "c": "b\n",  # another id than its name says
        "d": None,  # a directory
        "e": b"\xff\xfe\n",  # not text
    }
    for ws, content in bad.items():
        path = bucket_of(ws)
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    caplog.set_level(logging.WARNING)
    fleet.dispatch_once(lambda w: None)
    assert list(fleet.coord.due()) == ["a"]
    assert _marked(root, "plain") == [bucket_of("a")]
    removed = [r.getMessage() for r in caplog.records if "removed" in r.getMessage()]
    assert len(removed) == 4 and all("\n" not in m for m in removed), caplog.text
    assert "Traceback" not in caplog.text


# -- status: markers Redis does not know, in either kind of root -----------------------------------


@pytest.mark.parametrize("kind", ["plain", "scopes"])
def test_status_counts_the_markers_redis_does_not_know_and_the_oldest(
    tmp_path, redis_server, monkeypatch, capsys, kind
):
    """Was: only a root of scopes compared its markers with Redis, and the status said how many
    were missing, not since when (a tick's worth is normal; minutes mean Redis lost them). Now both
    kinds say the count and how long ago the oldest missing one was marked, in the text, in
    ``--json`` and in the dispatcher's metrics."""
    from reverie.cli import main
    from reverie.fleet.metrics import FleetCollector

    root, ids = _root(tmp_path, kind, "a", "b", "c")
    fleet = _fleet(root, redis_server, monkeypatch, debounce_seconds=3600, jitter_seconds=3600)
    fleet.heal()
    for ws in ids:
        fleet.mark_dirty(ws)
    assert main(["fleet", "status"]) == 0
    assert "disagree" not in capsys.readouterr().out
    state = fleet.status()
    assert (state.markers, state.markers_missing) == (3, 0)
    assert state.markers_missing_oldest_seconds is None

    past = time.time() - 600
    os.utime(_marker(root, kind, ids[0]), (past, past))  # marked ten minutes ago
    fleet.coord.unmark(ids[0])
    fleet.coord.unmark(ids[1])  # two marks Redis lost, the oldest ten minutes old
    assert main(["fleet", "status"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Redis and the disk disagree: 2 of 3 workspace(s) marked due on disk" in out
    oldest = re.search(r"the oldest marked (\d+)s ago", out)
    assert oldest and 600 <= int(oldest.group(1)) < 660, out
    assert main(["fleet", "status", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["markers"], got["markers_missing"]) == (3, 2)
    assert 600 <= got["markers_missing_oldest_seconds"] < 660
    families = {f.name: f for f in FleetCollector(fleet).collect()}
    assert families["reverie_due_markers_missing"].samples[0].value == 2
    assert 600 <= families["reverie_due_missing_age_seconds"].samples[0].value < 660


# -- the token budget ------------------------------------------------------------------------------


def _bucket(fleet) -> tuple[float, float]:
    tokens, at = fleet.coord.r.hmget("reverie:budget", ["tokens", "at"])
    return float(tokens), float(at)


@pytest.mark.parametrize("kind", ["plain", "scopes"])
def test_a_workspace_claimed_again_while_its_job_holds_the_lease_is_charged_once(
    tmp_path, redis_server, monkeypatch, kind
):
    """A job's message waits in the queue past its claim; the dispatcher claims the workspace again
    and sends a second message, delivered while the first job runs (its lease live): the second
    finds the lease and does nothing. Was: each claim debited the token bucket the average run's
    tokens and the run's end gave one reservation back, so the run cost its tokens plus one
    estimate, and admission held back that much more. Now a claim whose reservation is still open
    debits nothing: the run is charged what it used, once."""
    from reverie.fleet.job import run_dream_job
    from reverie.memory.runtime import Runtime

    root, (ws,) = _root(tmp_path, kind, "a")
    per_minute = 1_000_000  # refills 16,667 tokens a second, up to a million
    fleet = _fleet(
        root,
        redis_server,
        monkeypatch,
        claim_seconds=1,
        tokens_per_minute=per_minute,
        tokens_per_run=4_000,
    )
    # far from full: a minute of refill before the cap, so the bucket's level and time say
    # exactly what was debited
    fleet.coord.tokens(per_minute, debit=per_minute - 20_000)
    before = _bucket(fleet)
    assert fleet.dispatch_once(lambda w: None) == [ws]
    end = fleet.coord.now() + 1.05
    while fleet.coord.now() < end:  # the message waits in a busy queue past its claim
        time.sleep(0.05)
    assert fleet.dispatch_once(lambda w: None) == [ws], "the lapsed claim was not claimed again"

    second = []

    def runtime(path: Path) -> Runtime:
        # the second message, delivered to another worker while the first job holds the lease
        second.append(run_dream_job(fleet.coord, fleet.cfg, fleet.root, ws, kind))
        return Runtime(path)

    first = run_dream_job(fleet.coord, fleet.cfg, fleet.root, ws, kind, runtime=runtime)
    assert first.status == "ok" and [o.status for o in second] == ["leased"]
    after = _bucket(fleet)
    assert after[0] < per_minute - 1  # never refilled to the cap: the arithmetic below holds
    debited = before[0] + (after[1] - before[1]) * per_minute / 60 - after[0]
    # (Lua writes the bucket's time with 14 digits, a tenth of a millisecond: a token or two)
    assert debited == pytest.approx(first.tokens, abs=100), (
        f"debited {debited:.0f} tokens for a run that used {first.tokens}"
    )
    assert fleet.coord.r.hgetall("reverie:reserved") == {}


# -- the fleet's clock -----------------------------------------------------------------------------


def test_a_host_clock_stepped_between_two_measures_is_noticed_at_once(
    tmp_path, redis_server, monkeypatch
):
    """`Coordinator.now` is this host's clock plus its offset to Redis's, measured once a minute
    (a round trip each time otherwise). Was: a host clock stepped by an hour (NTP stepping, a VM
    resumed, a clock set by hand) put every time this process wrote an hour off for up to that
    minute: claim ends that lapse at once or an hour late, due times an hour off. Now a step shows
    as the wall clock moving against the monotonic one and the offset is measured again at once,
    while an unstepped clock costs no round trip."""
    import reverie.fleet.coord as coord_module

    fleet = _fleet(tmp_path / "root", redis_server, monkeypatch)
    c = fleet.coord
    times = 0
    real_time = c.r.time

    def counted() -> tuple[int, int]:
        nonlocal times
        times += 1
        return real_time()

    monkeypatch.setattr(c.r, "time", counted)

    def redis_now() -> float:
        seconds, micros = real_time()
        return seconds + micros / 1e6

    step = 0.0

    class HostClock:  # this host's clocks, its wall clock stepped by `step`
        monotonic = staticmethod(time.monotonic)

        @staticmethod
        def time() -> float:
            return time.time() + step

    monkeypatch.setattr(coord_module, "time", HostClock)
    assert abs(c.now() - redis_now()) < 1 and times == 1
    for _ in range(100):
        c.now()
    assert times == 1  # the offset is kept: no round trip while the clock runs on
    step = 3600.0  # the host's clock stepped an hour ahead
    assert abs(c.now() - redis_now()) < 1, "the fleet's clock followed the host's step"
    assert times == 2
    step = -7200.0
    assert abs(c.now() - redis_now()) < 1 and times == 3


def test_a_disk_that_refuses_a_plain_marker_is_one_warning_and_redis_has_the_mark(
    tmp_path, redis_server, monkeypatch, caplog
):
    """`Fleet.mark_dirty` leaves the marker before it tells Redis; a disk that refuses it (here the
    markers' directory is a file) does not stop the mark: one warning saying what is at stake, and
    the workspace is due. With Redis down as well, one warning names both."""
    root, (ws,) = _root(tmp_path, "plain", "a")
    fleet = _fleet(root, redis_server, monkeypatch)
    fleet.heal()
    fleet.coord.r.delete("reverie:due")
    (root / ".reverie-due").rename(tmp_path / "kept")
    (root / ".reverie-due").write_text("not a directory\n")
    caplog.set_level(logging.WARNING)
    caplog.clear()
    assert fleet.mark_dirty(ws) is True and list(fleet.coord.due()) == [ws]
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("reverie")]
    assert len(lines) == 1 and "marked due in Redis but not on the disk" in lines[0], lines
    caplog.clear()
    redis_server.kill()
    assert fleet.mark_dirty(ws) is False
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("reverie")]
    assert len(lines) == 1 and "and so did the disk" in lines[0] and "\n" not in lines[0], lines
    assert "Traceback" not in caplog.text


# -- the processes an operator runs ----------------------------------------------------------------


def test_a_plain_roots_due_index_deleted_by_hand_is_dreamed_by_real_workers(tmp_path, redis_server):
    """`reverie fleet dispatch` and a Celery worker as processes on a plain root; a workspace is
    appended to and marked (`reverie fleet mark`), and an operator deletes ``reverie:due`` before
    the debounce is over. Was: the mark was gone with the key (the plain root kept nothing on the
    disk once Redis had it) and the history waited for ``rebuild-due``. Now the dispatcher's full
    listing brings it back within a claim period, the worker dreams it, and the job removes its
    marker: nothing is left marked."""
    import redis as redis_py
    from support.cli import invoke
    from support.fleet import Proc, start_dispatcher, wait_for

    root = tmp_path / "plain"
    ws = Workspace(root / "team" / "alpha")
    ws.init()
    env = fleet_env(
        root,
        redis_server,
        REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE="reverie/offline",
        REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS="600",
        REVERIE_FLEET__DEBOUNCE_SECONDS="3",
    )
    env["TMPDIR"] = str(tmp_path)
    assert invoke("fleet", "init", "--kind", "plain", env=env).returncode == 0
    dispatcher = start_dispatcher(env, tmp_path)
    worker = Proc(
        [sys.executable, "-m", "reverie", "fleet", "worker", "-c", "1", "--name", "m"],
        env,
        tmp_path / "worker.log",
    )
    client = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    wait_for(lambda: client.get("reverie:generation"), 60, "the dispatcher's first tick")
    store = WorkspaceStore(ws, config=_config())
    store.append_history("- [durable] Project p1 uses database db1", "cli:test")
    marked = invoke("fleet", "mark", "team/alpha", env=env).stdout
    # "due", or "already due" when the running dispatcher's poll saw the new marker on the disk
    # and made it due between the mark's disk write and its own ZADD (a loaded machine)
    assert marked.startswith("team/alpha: "), marked
    assert len(_marked(root, "plain")) == 1 and client.zscore("reverie:due", "team/alpha")
    client.delete("reverie:due")  # the operator, within the 3 s debounce
    try:
        wait_for(lambda: store.pending_count() == 0, 60, "the marked workspace to be dreamed")
        wait_for(lambda: _marked(root, "plain") == [], 20, "the job to remove its marker")
    finally:
        for p in (dispatcher, worker):
            p.p.send_signal(signal.SIGTERM)
            p.p.wait(timeout=30)
            p.stop()
    status = json.loads(invoke("fleet", "status", "--json", env=env).stdout)
    assert (status["markers"], status["markers_missing"], status["due_now"]) == (0, 0, 0)
    for log_file in tmp_path.glob("*.log"):
        assert "Traceback" not in log_file.read_text(errors="replace"), log_file.name
