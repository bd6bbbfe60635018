"""Reverie embedded in an application (issue 34): the event loop's lag while 32 tasks call the
async verbs, and the long runs of the thread cases and the web-app stress test.

    # loop lag: 10,000-entry workspace, 32 tasks, 20 s a variant (--quick: 5 s a variant)
    .venv/bin/python -m bench embedded
    .venv/bin/python -m bench embedded --quick
    # tests/support/embedded.py's run
    .venv/bin/python -m bench.embedded stress --runs 20 --seconds 60
    # the thread cases of tests/test_memory_threads.py
    .venv/bin/python -m bench.embedded threads --runs 20

**Lag.** A ticker task sleeps 5 ms at a time and records how late it wakes: the lateness is how long
something else held the loop (or the process was not scheduled). 32 tasks call ``arecall``,
``arecord`` and ``aremember`` in turn on one ``Memory`` of a workspace with 10,000 history entries
(its index built first) and a 4,096-token window, so conversations consolidate under the load. Each
variant runs in a process of its own (the executor's size and the GIL's switch interval are
per-process): Reverie as shipped (the a-verbs in ``reverie.memory.offload``'s executor of
``MAX_WORKERS`` threads, switch interval 5 ms), other executor sizes, a 1 ms switch interval (what
an application may set: ``sys.setswitchinterval``), the floor (the ticker alone, nothing else
running) and the peer: the same verbs called synchronously from the tasks, on the loop, as
``arecall`` and ``arecord`` worked before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import Context, Result, Stats, stats_of

TESTS = Path(__file__).resolve().parent.parent / "tests"
TASKS = 32
ENTRIES = 10_000
TICK = 0.005
CONFIG = {"agents": {"defaults": {"contextWindowTokens": 4_096, "maxTokens": 512}}}


def build(root: Path, entries: int = ENTRIES) -> None:
    """A workspace with ``entries`` history entries, memory files and its search index built."""
    import reverie
    from reverie.storage.history import HistoryEntry

    root.mkdir(parents=True, exist_ok=True)
    (root / "reverie.json").write_text(json.dumps(CONFIG))
    with reverie.open(root) as memory:
        memory.init()
        memory.write("USER.md", memory.read("USER.md") + "- Lives in Lisbon.\n- Likes tea.\n")
    words = ["Lisbon", "coffee", "Postgres", "hiking", "cello", "Porto", "tea", "garden"]
    with open(root / "memory" / "history.jsonl", "ab") as f:
        for c in range(1, entries + 1):
            text = (
                f"User: note {c}: talked about {words[c % 8]} and {words[(c * 3) % 8]} "
                f"with Dana on day {c % 365}."
            )
            f.write(HistoryEntry(c, "2026-01-01 10:00", text, f"old:{c % 50}").to_json())
    with reverie.open(root) as memory:
        memory.reindex()


async def _lag(root: Path, seconds: float, mode: str) -> dict[str, Any]:
    import reverie

    memory = reverie.open(root)
    lags: list[float] = []
    cpus: list[float] = []
    calls = 0
    done = asyncio.Event()
    words = ["Lisbon coffee", "Postgres", "hiking with Dana", "tea garden", "cello Porto"]

    async def tick() -> None:
        while not done.is_set():
            before, cpu0 = time.perf_counter(), time.thread_time()
            await asyncio.sleep(TICK)
            lags.append(time.perf_counter() - before - TICK)
            cpus.append(time.thread_time() - cpu0)

    async def caller(n: int) -> None:
        nonlocal calls
        i = 0
        while not done.is_set():
            verb = (n + i) % 3
            i += 1
            message = {
                "role": "user",
                "content": f"I practised the cello for {i} minutes, task {n}.",
            }
            if mode == "executor":
                if verb == 0:
                    await memory.arecall(words[i % 5])
                elif verb == 1:
                    await memory.arecord(f"bench:{n % 8}", [message])
                else:
                    await memory.aremember(f"User: task {n} step {i} went fine.")
            else:  # the peer: the verbs' work on the loop, as arecall and arecord did it before
                if verb == 0:
                    memory.recall(words[i % 5])
                elif verb == 1:
                    await _on_loop_record(memory, f"bench:{n % 8}", message)
                else:
                    memory.remember(f"User: task {n} step {i} went fine.")
                await asyncio.sleep(0)
            calls += 1

    # warm up: each verb on every worker at once, so first-use imports (the offline engine's
    # rules) and, in process mode, the workers' start-up are not measured
    from reverie import offload

    for _ in range(2):
        await asyncio.gather(
            *(
                call
                for n in range(offload.MAX_WORKERS)
                for call in (
                    memory.arecall("Lisbon"),
                    memory.arecord(f"bench:warm{n}", [{"role": "user", "content": "I like tea."}]),
                    memory.aremember("User: warming up."),
                )
            )
        )
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.2)
    lags.clear()
    cpus.clear()
    tasks = [asyncio.create_task(caller(n)) for n in range(TASKS if mode != "floor" else 0)]
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    done.set()
    measured = lags[:]  # the window only: the tasks' last calls end after it
    measured_cpus = cpus[:]
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - started
    await ticker
    memory.close()
    return {"lags": measured, "calls": calls, "seconds": elapsed, "cpus": measured_cpus}


async def _on_loop_record(memory: Any, key: str, message: dict[str, Any]) -> None:
    """``arecord`` as it was: the session append and the Consolidator on the caller's loop."""
    rt = memory.runtime
    session = rt.sessions.get_or_create(key)
    rt.sessions.append(session, message)
    await rt.consolidator.maybe_consolidate(session)


def lag_main(argv: list[str]) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--mode", choices=("executor", "loop", "floor"), default="executor")
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--switch", type=float, default=0.0)
    p.add_argument("--offload", choices=("threads", "processes"), default="threads")
    a = p.parse_args(argv)
    if a.switch:
        sys.setswitchinterval(a.switch)
    from reverie import offload

    offload.configure(a.offload, workers=a.workers or None)
    out = asyncio.run(_lag(Path(a.root), a.seconds, a.mode))
    print(json.dumps(out))


def _recall_threads(root: Path, threads: int, per_thread: int, guarded: bool) -> float:
    """Queries a second from ``threads`` threads searching one ``Memory``: the index's pool (a
    connection per thread at work), or one connection that each query waits its turn for (the pool
    held to one connection: "a connection guarded by a lock")."""
    import threading

    import reverie

    words = ["Lisbon coffee", "Postgres", "hiking with Dana", "tea garden", "cello Porto"]
    with reverie.open(root) as memory:
        memory.recall("warm up")
        if guarded:
            memory.runtime.recall.index._limit = 1
        start = threading.Barrier(threads + 1)

        def work(n: int) -> None:
            start.wait()
            for i in range(per_thread):
                memory.recall(words[(n + i) % 5])

        workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
        for t in workers:
            t.start()
        start.wait()
        began = time.perf_counter()
        for t in workers:
            t.join()
        return threads * per_thread / (time.perf_counter() - began)


def _variant(ctx: Context, template: Path, seconds: float, **opts: Any) -> dict[str, Any]:
    root = ctx.tmpdir("embedded-") / "ws"
    shutil.copytree(template, root)
    args = [sys.executable, "-m", "bench.embedded", "lag", str(root), "--seconds", str(seconds)]
    for key, value in opts.items():
        args += [f"--{key}", str(value)]
    proc = subprocess.run(args, capture_output=True, text=True, cwd=str(TESTS.parent), check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"bench embedded {opts}: {proc.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    lags = sorted(out["lags"])
    out["p50"], out["p99"], out["max"] = _pct(lags, 0.5), _pct(lags, 0.99), lags[-1]
    out["cpu99"] = _pct(sorted(out["cpus"]), 0.99)  # the loop thread's own CPU between two ticks
    out["rate"] = out["calls"] / out["seconds"]
    print(
        f"[bench] embedded {opts}: lag p50 {out['p50'] * 1e3:.2f} ms, p99 {out['p99'] * 1e3:.2f} "
        "ms, "
        f"max {out['max'] * 1e3:.1f} ms; {out['rate']:.0f} calls/s; the loop's own CPU a tick p99 "
        f"{out['cpu99'] * 1e3:.2f} ms",
        flush=True,
    )
    return out


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def _stats(out: dict[str, Any]) -> Stats:
    """p50 as the median, p99 as the high end, max noted (the table's spread is p10–p90)."""
    return Stats(out["p99"], out["p50"], out["max"], len(out["lags"]))


def run(ctx: Context) -> list[Result]:
    seconds = 5.0 if ctx.quick else 20.0
    template = ctx.tmpdir("embedded-template-") / "ws"
    build(template)
    from reverie import offload

    variants = [
        ("floor", {"mode": "floor"}),
        (f"executor {offload.MAX_WORKERS} threads", {"mode": "executor"}),
        ("executor 1 thread", {"mode": "executor", "workers": 1}),
        ("executor 2 threads", {"mode": "executor", "workers": 2}),
        ("executor 8 threads", {"mode": "executor", "workers": 8}),
        (
            f"executor {offload.MAX_WORKERS} threads, switch 1 ms",
            {"mode": "executor", "switch": 0.001},
        ),
        ("processes, 1 worker", {"mode": "executor", "offload": "processes", "workers": 1}),
        (
            f"processes, {min(offload.MAX_WORKERS, os.cpu_count() or 1)} workers (one per CPU)",
            {"mode": "executor", "offload": "processes"},
        ),
        ("processes, 4 workers", {"mode": "executor", "offload": "processes", "workers": 4}),
        ("on the loop (before)", {"mode": "loop"}),
    ]
    per = 10 if ctx.quick else 40
    pooled, guarded = [], []
    for _ in range(3):  # interleaved: drift on a shared machine hits both
        pooled.append(_recall_threads(template, 8, per, guarded=False))
        guarded.append(_recall_threads(template, 8, per, guarded=True))
    print(f"[bench] embedded recall, 8 threads: pool {pooled}, one guarded connection {guarded}")
    outs = {name: _variant(ctx, template, seconds, **opts) for name, opts in variants}
    peer = outs["on the loop (before)"]
    floor = outs["floor"]
    results = [
        Result(
            "embedded",
            f"recall from 8 threads on one Memory, {ENTRIES:,} entries: queries/s, the pool vs one "
            "connection guarded by a lock",
            reverie=stats_of(pooled),
            peer=stats_of(guarded),
            peer_name="one guarded connection",
            unit="queries/s",
        )
    ]
    for name, out in outs.items():
        if name in ("floor", "on the loop (before)"):
            continue
        results.append(
            Result(
                "embedded",
                f"loop lag p99 (p50–max), {TASKS} tasks on arecall/arecord/aremember, "
                f"{ENTRIES:,} entries: {name}",
                reverie=_stats(out),
                peer=_stats(peer),
                peer_name="the same verbs on the loop",
                target="p99 ≤ 5 ms, max ≤ 20 ms",
                note=(
                    f"p50 {out['p50'] * 1e3:.2f} ms, p99 {out['p99'] * 1e3:.2f} ms, max "
                    f"{out['max'] * 1e3:.1f} ms; {out['rate']:.0f} calls/s (on the loop: "
                    f"{peer['rate']:.0f}); floor p99 {floor['p99'] * 1e3:.2f} ms, max "
                    f"{floor['max'] * 1e3:.1f} ms; p99 {out['p99'] / floor['p99']:.2f}× the "
                    f"floor's; the loop's own CPU a tick p99 {out['cpu99'] * 1e3:.2f} ms"
                ),
            )
        )
    return results


# -- the long runs ---------------------------------------------------------------------------------
def _support() -> Any:
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from support import embedded

    return embedded


def stress_main(argv: list[str]) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--dir", default="")
    a = p.parse_args(argv)
    embedded = _support()
    ctx = Context()
    totals = {"calls": 0, "errors": 0, "busy": 0, "problems": 0}
    try:
        for i in range(a.runs):
            root = (Path(a.dir) if a.dir else ctx.tmpdir("stress-")) / f"ws{i}"
            embedded.prepare(root)
            report = embedded.run(root, a.seconds)
            if not report["error_count"]:
                report.pop("server_stderr", None)
            for key in ("calls",):
                totals[key] += report[key]
            totals["errors"] += report["error_count"]
            totals["busy"] += report["busy"]
            totals["problems"] += len(report["problems"])
            print(json.dumps({"run": i + 1, **report}), flush=True)
            shutil.rmtree(root, ignore_errors=True)
    finally:
        ctx.cleanup()
    print(json.dumps({"runs": a.runs, "seconds": a.seconds, **totals}), flush=True)


def threads_main(argv: list[str]) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=20)
    a = p.parse_args(argv)
    _support()
    import test_memory_threads as cases  # the same workspace and process as the tests

    ctx = Context()
    bad = 0
    try:
        for i in range(a.runs):
            for mix, threads, rounds in (("recall", 6, 40), ("mixed", 6, 48)):
                root = cases._workspace(ctx.tmpdir("threads-") / "ws")
                started = time.monotonic()
                try:
                    out = cases._run(root, mix, threads, rounds)
                    ok = not out["errors"]
                    note = out["errors"][:3]
                except AssertionError as exc:  # a crash or "busy" in the process's output
                    ok, note = False, str(exc)[:500]
                bad += not ok
                print(
                    json.dumps(
                        {
                            "run": i + 1,
                            "mix": mix,
                            "ok": ok,
                            "seconds": round(time.monotonic() - started, 1),
                            "note": note,
                        }
                    ),
                    flush=True,
                )
    finally:
        ctx.cleanup()
    print(json.dumps({"runs": a.runs, "failed": bad}), flush=True)


if __name__ == "__main__":
    verbs = {"lag": lag_main, "stress": stress_main, "threads": threads_main}
    if len(sys.argv) < 2 or sys.argv[1] not in verbs:
        raise SystemExit(__doc__)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    verbs[sys.argv[1]](sys.argv[2:])
