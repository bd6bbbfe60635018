"""``reverie serve --root``: many scopes, one process, a model of fixed latency.

    .venv/bin/python -m bench serve_root          # 10,000 scopes, concurrency 64, 1 s a model call
    .venv/bin/python -m bench serve_root --quick  # 1,000 scopes, concurrency 64, 0.25 s a call

Setup (untimed): N scopes under one root, each with one history entry (so each is marked due by the
append) and its memory repo created. Then one `RootScheduler` (the code behind ``reverie serve
--root``) runs until every scope is drained. Each run is a real Dream batch over the scripted model
(``reverie/llm/scripted.py``) with a fixed latency L per call: three calls (the analysis, one
``edit_file`` tool call, the closing text), a gate check and a git commit. The floor:
``concurrency`` runs in flight at all times, each taking 3·L, i.e. concurrency ÷ (3·L) runs a
second; the row reports the measured rate as a fraction of it (goal ≥ 0.8). Memory per in-flight run
is the rise of the process's resident set from before the scheduler starts to its peak while runs
are in flight, divided by the concurrency.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from bench import Context, Result, Stats

CALLS_PER_RUN = 3


def dream_responder(prompt: Any) -> Any:
    """A Dream that learns the batch's first fact: analysis → one finding; edit → one ``edit_file``
    appending it to USER.md; after the tool result → a closing text. Deterministic, and right for
    any batch."""
    from reverie.llm.types import ToolCall

    if not prompt.tools:
        fact = next(
            (
                line.split("] ", 1)[1]
                for line in prompt.user.splitlines()
                if line.startswith("- [durable] ")
            ),
            "something",
        )
        return f"[USER] {fact}"
    if prompt.messages[-1].get("role") == "tool":
        return "Saved."
    finding = (
        prompt.user.split("[USER] ", 1)[1].split("\n", 1)[0]
        if "[USER] " in prompt.user
        else "something"
    )
    return ToolCall(
        "e1", "edit_file", {"path": "USER.md", "old_text": "", "new_text": f"- {finding}\n"}
    )


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _build(root: Path, scopes: int) -> None:
    from reverie.gitstore import GitStore
    from reverie.storage.scopes import Scope, ScopeRoot
    from reverie.storage.store import WorkspaceStore

    sr = ScopeRoot(root)
    t0 = time.perf_counter()
    for i in range(scopes):
        ws = sr.ensure(Scope(f"user{i:06d}"))
        WorkspaceStore(ws).append_history(
            f"- [durable] user {i} likes tea number {i}", "chat:bench"
        )
        git = GitStore(ws)
        git.ensure()
        git.close()
    print(
        f"[bench] serve_root: built {scopes:,} scopes in {time.perf_counter() - t0:.0f}s",
        flush=True,
    )


def _serve(
    root: Path, concurrency: int, latency: float, scopes: int
) -> tuple[float, int, int, dict[str, int]]:
    from reverie.llm.scripted import ScriptedModel
    from reverie.memory.runtime import Runtime
    from reverie.schedule.root import RootScheduler
    from reverie.storage.config import load_config
    from reverie.storage.scopes import ScopeRoot

    def open_dream(ws):
        return Runtime(ws).dream

    fake = ScriptedModel.register("bench-serve-root", responder=dream_responder, latency=latency)
    env = {
        "REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE": fake.model,
        "REVERIE_SERVE__JITTER_SECONDS": "0",
        "REVERIE_MEMORY__HISTORY__FSYNC": "false",
    }
    os.environ.update(env)
    sched = RootScheduler(
        ScopeRoot(root), open_dream, config=load_config(), max_inflight=concurrency
    )
    base = _rss()
    peak = base

    async def main() -> float:
        nonlocal peak
        stop = asyncio.Event()
        task = asyncio.ensure_future(sched.run(stop))
        t0 = time.perf_counter()
        while sched.stats.done < scopes:
            await asyncio.sleep(0.2)
            # the fake's own record of every prompt is not the scheduler's memory
            fake.prompts.clear()
            peak = max(peak, _rss())
            if task.done():
                task.result()
        elapsed = time.perf_counter() - t0
        stop.set()
        await task
        return elapsed

    try:
        elapsed = asyncio.run(main())
    finally:
        ScriptedModel.unregister("bench-serve-root")
        for key in env:
            os.environ.pop(key, None)
    return elapsed, base, peak, dict(sched.stats.finished)


def run(ctx: Context) -> list[Result]:
    scopes, latency = (1_000, 0.25) if ctx.quick else (10_000, 1.0)
    concurrency = 64
    root = ctx.tmpdir("serve-root-") / "root"
    _build(root, scopes)
    elapsed, base, peak, finished = _serve(root, concurrency, latency, scopes)
    if finished.get("ok", 0) != scopes:
        raise RuntimeError(f"serve_root bench: not every run committed: {finished}")
    rate = scopes / elapsed
    floor = concurrency / (CALLS_PER_RUN * latency)
    per_run = (peak - base) / concurrency
    print(
        f"[bench] serve_root: {scopes:,} runs in {elapsed:.1f}s = {rate:.1f} runs/s; floor "
        f"{floor:.1f} runs/s "
        f"(concurrency {concurrency} / ({CALLS_PER_RUN} calls x {latency:g}s)) = "
        f"{rate / floor:.0%}; "
        f"RSS {base / 2**20:.0f} -> {peak / 2**20:.0f} MiB = {per_run / 2**10:.0f} KiB per "
        "in-flight run",
        flush=True,
    )
    return [
        Result(
            "serve_root",
            f"{scopes:,} scopes, concurrency {concurrency}, {latency:g} s a call: runs/s vs "
            "concurrency/(3 calls x latency)",
            reverie=Stats(rate, rate, rate, 1),
            peer=Stats(floor, floor, floor, 1),
            peer_name="the latency bound",
            unit="ops/s",
            target="≥ 0.8×",
            note=f"{per_run / 2**10:,.0f} KiB RSS per in-flight run; finished {finished}",
        ),
    ]
