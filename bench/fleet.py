"""Fleet: Dream throughput with 1, 2, 4 (and 8) Celery worker processes on the same work; recovery
of a killed worker.

    .venv/bin/python -m bench fleet          # 24 workspaces, model latency 0.25 s, 1/2/4/8 workers
    .venv/bin/python -m bench fleet --quick  # 12 workspaces, 1/2/4 workers

Real components, as in tests/test_fleet.py: redis-server on a unix socket, ``celery -A fleet_app
worker`` processes (concurrency 1, prefork), the dispatcher (`Fleet.serve_dispatch`) in this
process. The model is the offline engine answering after a fixed latency
(tests/support/fleet_app.py), so the figures measure coordination and Reverie's own CPU, not a
provider. Every round starts from the same copy of the workspaces (each with 3 durable facts
pending: one batch, about three model calls) all due at once; the round ends when none has history
pending.

Rows: seconds per job at P workers against the floor ``(seconds per job at 1 worker) / P`` measured
in the same run, so the ratio is the scaling efficiency (goal ≥ 0.8 until the cores bind). Notes:
jobs lost (workspaces left pending with no due entry), duplicate commits (a ``Reverie-Batch`` in two
commits), due-to-done latency p50/p95 (from the moment all became due to each workspace's job end,
read from the workers' logs), dispatcher CPU per job, and the time from SIGKILL of the worker
holding a lease to another worker's job holding it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

from bench import Context, Result, stats_of

SUPPORT = Path(__file__).resolve().parent.parent / "tests" / "support"
LATENCY = "0.25"
FACTS = 3


def _support():  # type: ignore[no-untyped-def]
    if str(SUPPORT.parent) not in sys.path:
        sys.path.insert(0, str(SUPPORT.parent))
    from support import fleet

    return fleet


def _build(root: Path, n: int) -> list[str]:
    from reverie.storage.config import Config
    from reverie.storage.scopes import Scope, ScopeRoot
    from reverie.storage.store import WorkspaceStore

    scopes, config = ScopeRoot(root), Config()
    names = []
    for i in range(n):
        scope = Scope(f"user{i}")
        store = WorkspaceStore(scopes.ensure(scope), config=config)
        for k in range(FACTS):
            store.append_history(
                f"- [durable] Project p{i}x{k} uses database db{i}x{k}", "cli:bench"
            )
        names.append(scope.name)
    return names


_DONE = re.compile(
    r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/ForkPoolWorker-\d+\] Task "
    r"reverie\.fleet\.dream"
    r"\[[^\]]+\] succeeded in [0-9.e-]+s: \{'ws': '([0-9a-f.]+)', 'status': '([a-z-]+)'"
)


def _done_times(logs: list[Path]) -> dict[str, float]:
    """Each workspace's last job end (unix time) from the workers' logs."""
    out: dict[str, float] = {}
    for log in logs:
        for stamp, ws, _status in _DONE.findall(log.read_text(errors="replace")):
            t = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()
            out[ws] = max(out.get(ws, 0.0), t)
    return out


def _cpu_of_groups(groups: set[int]) -> float:
    """CPU seconds (user + system) used so far by the live processes of these process groups
    (workers and pools)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) not in groups:
                continue
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def _wait_ready(procs: list, timeout: float = 60) -> None:  # type: ignore[type-arg]
    fs = _support()
    fs.wait_for(
        lambda: all(" ready." in p.text() for p in procs), timeout, "workers ready", poll=0.1
    )


def _round(  # type: ignore[no-untyped-def]
    ctx: Context, redis, template: Path, names: list[str], workers: int
) -> dict[str, float]:
    from reverie.fleet import Fleet
    from reverie.fleet.app import TASK, make_app
    from reverie.storage.config import load_config
    from reverie.storage.store import WorkspaceStore
    from reverie.storage.workspace import Workspace

    fs = _support()
    work = ctx.tmpdir(f"fleet-p{workers}-")
    root = work / "root"
    shutil.copytree(template, root, symlinks=True)
    env = fs.fleet_env(
        root, redis, REVERIE_TEST_LATENCY=LATENCY, REVERIE_FLEET__MAX_INFLIGHT=str(2 * workers)
    )
    import redis as redis_py

    redis_py.Redis(unix_socket_path=str(redis.sock)).flushall()
    procs = [fs.start_worker(f"b{workers}x{i}", env, work) for i in range(workers)]
    try:
        _wait_ready(procs)
        config = load_config(env={k: v for k, v in env.items() if k.startswith("REVERIE_")})
        fleet = Fleet(config)
        app = make_app(config)
        sent = 0
        dispatch_cpu = 0.0

        def send(ws: str) -> None:
            app.send_task(TASK, args=[ws], queue=config.fleet.queue)

        stop = threading.Event()

        def tick(ids: list[str]) -> None:
            nonlocal sent
            sent += len(ids)

        t_cpu0 = time.thread_time
        cpu = [0.0]

        def dispatcher() -> None:
            c0 = t_cpu0()
            fleet.serve_dispatch(send, stop, on_tick=tick)
            cpu[0] = t_cpu0() - c0

        groups = {p.p.pid for p in procs}
        cpu_start = _cpu_of_groups(groups)
        start = time.time()
        thread = threading.Thread(target=dispatcher, daemon=True)
        thread.start()
        ws_dirs = [fleet.scopes.workspace_of_due(n) for n in names]  # type: ignore[union-attr]

        def drained() -> bool:
            return all(
                WorkspaceStore(Workspace(w.root)).pending_count() == 0
                for w in ws_dirs
                if w is not None
            )

        fs.wait_for(drained, 600, "every workspace drained", poll=0.25)
        wall = time.time() - start
        worker_cpu = _cpu_of_groups(groups) - cpu_start
        stop.set()
        thread.join()
        dispatch_cpu = cpu[0]
        done = _done_times([p.log for p in procs])
        latencies = [done[n] - start for n in names if n in done]
        lost = sum(
            1
            for w in ws_dirs
            if w is not None
            and WorkspaceStore(Workspace(w.root)).pending_count() > 0
            and w.root.name not in fleet.coord.known()
        )
        dups = 0
        for w in ws_dirs:
            assert w is not None
            batches = fs.batches_committed(w.root)
            dups += len(batches) - len(set(batches))
        q = (
            statistics.quantiles(latencies, n=20, method="inclusive")
            if len(latencies) > 1
            else latencies * 19
        )
        return {
            "worker_cpu_per_job": worker_cpu / len(names),
            "cores_busy": worker_cpu / wall,
            "wall": wall,
            "jobs": float(len(names)),
            "sent": float(sent),
            "lost": float(lost),
            "dups": float(dups),
            "p50": statistics.median(latencies),
            "p95": q[18],
            "dispatch_cpu_per_job": dispatch_cpu / max(sent, 1),
        }
    finally:
        for p in procs:
            p.stop(signal.SIGTERM)


def _recovery(  # type: ignore[no-untyped-def]
    ctx: Context, redis, template: Path, names: list[str]
) -> tuple[float, float]:
    """Seconds from SIGKILL of the worker holding a workspace's lease to another worker's job
    holding it, and to the workspace drained. Only that workspace is due, so no backlog queues in
    front of its second job."""
    import redis as redis_py

    from reverie.fleet import Fleet
    from reverie.fleet.app import TASK, make_app
    from reverie.storage.config import load_config
    from reverie.storage.scopes import ScopeRoot
    from reverie.storage.store import WorkspaceStore

    fs = _support()
    work = ctx.tmpdir("fleet-recover-")
    root = work / "root"
    shutil.copytree(template, root, symlinks=True)
    for name in names[1:]:
        ScopeRoot(root).unmark_due(name)
    env = fs.fleet_env(root, redis, REVERIE_TEST_LATENCY="1.0")
    r = redis_py.Redis(unix_socket_path=str(redis.sock), decode_responses=True)
    r.flushall()
    procs = [fs.start_worker(f"r{i}", env, work) for i in range(2)]
    try:
        _wait_ready(procs)
        config = load_config(env={k: v for k, v in env.items() if k.startswith("REVERIE_")})
        fleet = Fleet(config)
        app = make_app(config)
        stop = threading.Event()
        thread = threading.Thread(
            target=fleet.serve_dispatch,
            daemon=True,
            args=(lambda ws: app.send_task(TASK, args=[ws], queue=config.fleet.queue), stop),
        )
        thread.start()
        ws = names[0]
        token = fs.wait_for(
            lambda: r.get(f"reverie:lease:{ws}"), 60, "a job on the first workspace", poll=0.01
        )
        pid = int(str(token).split(":")[1])
        victim = next(p for p in procs if os.getpgid(pid) == p.p.pid)
        t0 = time.time()
        victim.stop(signal.SIGKILL)

        def taken() -> bool:
            t = r.get(f"reverie:lease:{ws}")
            return bool(t) and t != token

        fs.wait_for(taken, 60, "another job to take the killed worker's workspace", poll=0.01)
        took = time.time() - t0
        ws_dir = fleet.scopes.workspace_of_due(ws)  # type: ignore[union-attr]
        assert ws_dir is not None
        fs.wait_for(
            lambda: WorkspaceStore(ws_dir).pending_count() == 0,
            60,
            "the workspace drained",
            poll=0.05,
        )
        drained = time.time() - t0
        stop.set()
        thread.join()
        return took, drained
    finally:
        for p in procs:
            p.stop(signal.SIGTERM)


def run(ctx: Context) -> list[Result]:
    fs = _support()
    if fs.REDIS_SERVER is None:
        print(
            "[bench] fleet: skipped, redis-server is not installed (scripts/system-deps installs "
            "it)"
        )
        return []
    n = 12 if ctx.quick else 24
    template = ctx.tmpdir("fleet-template-") / "root"
    names = _build(template, n)
    redis = fs.RedisServer()
    redis.start(aof=True)
    try:
        rounds = {
            p: _round(ctx, redis, template, names, p)
            for p in ((1, 2, 4) if ctx.quick else (1, 2, 4, 8))
        }
        recover = [_recovery(ctx, redis, template, names) for _ in range(1 if ctx.quick else 3)]
    finally:
        redis.close()
    per_job_1 = rounds[1]["wall"] / rounds[1]["jobs"]
    results = []
    for p, r in rounds.items():
        per_job = r["wall"] / r["jobs"]
        note = (
            f"{r['jobs']:.0f} jobs in {r['wall']:.1f} s ({r['jobs'] / r['wall']:.2f} jobs/s); "
            f"lost {r['lost']:.0f}, "
            f"duplicate commits {r['dups']:.0f}; due-to-done p50 {r['p50']:.1f} s, p95 "
            f"{r['p95']:.1f} s; "
            f"dispatcher CPU {r['dispatch_cpu_per_job'] * 1e3:.2f} ms/job; workers' CPU "
            f"{r['worker_cpu_per_job'] * 1e3:.0f} ms/job, {r['cores_busy']:.2f} cores busy"
        )
        results.append(
            Result(
                "fleet",
                f"{p} worker process(es), model latency {LATENCY} s",
                stats_of([per_job]),
                stats_of([per_job_1 / p]),
                peer_name=f"floor: 1 worker ÷ {p}",
                target="≥ 0.8× until the cores bind",
                note=note,
            )
        )
    results.append(
        Result(
            "fleet",
            "SIGKILL of the worker holding a lease → another worker's job holds it",
            stats_of([t for t, _ in recover]),
            None,
            target="≈ claimSeconds (4 s here) + a dispatch tick",
            note=f"lease 3 s, claim 4 s, heartbeat 0.5 s, model latency 1 s; runs: "
            f"{', '.join(f'{t:.1f}' for t, _ in recover)} s; to drained: "
            f"{', '.join(f'{d:.1f}' for _, d in recover)} s",
        )
    )
    return results
