"""Dream's own cost and prompt size, against nanobot-ai 0.1.5.post3's ``Dream.run`` in the same run.

Usage: ``python -m bench.dream [--runs N] [--nanobot-python PATH]``. The scenario (``dream_scenario.json``): 20
history entries, the same three memory files, and the same scripted replies for both — phase-1 findings, one turn
with three ``edit_file`` calls, a final text. Reverie's model is the scripted fake with ``direct=True`` (answers
without entering litellm, zero latency), so the time is Reverie's own: reading the batch, both phases, the gate,
the dulwich commit and the cursor write. Prompt tokens are counted with one counter (litellm's ``gpt-4o``
tokenizer) over the exact messages and tool schemas each side sent. nanobot runs in its own virtual environment
(``--nanobot-python``, or ``$NANOBOT_015_PYTHON``); without one, only Reverie's figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reverie.config import Config  # noqa: E402
from reverie.dream import Dream  # noqa: E402
from reverie.gitstore import GitStore  # noqa: E402
from reverie.llm.client import ModelClient  # noqa: E402
from reverie.llm.scripted import ScriptedModel  # noqa: E402
from reverie.llm.types import ToolCall  # noqa: E402
from reverie.store import MemoryStore  # noqa: E402
from reverie.workspace import Workspace  # noqa: E402

SCENARIO = Path(__file__).with_name("dream_scenario.json")
NANOBOT_DRIVER = Path(__file__).with_name("_nanobot_dream.py")
BUDGET_MS = 50.0


class _FsyncClock:
    """Counts the time spent waiting in ``os.fsync`` (the disk's time, reported apart from Reverie's own)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._real = os.fsync

    def __enter__(self) -> _FsyncClock:
        def timed(fd: int) -> None:
            t0 = time.perf_counter()
            try:
                self._real(fd)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1

        os.fsync = timed  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        os.fsync = self._real


def _setup(root: Path, scenario: dict[str, Any], fake: ScriptedModel) -> Dream:
    ws = Workspace(root)
    ws.init()
    for rel, text in scenario["files"].items():
        ws.write(rel, text)
    config = Config()
    config.dream.model_override = fake.model
    config.memory.history.fsync = False
    store = MemoryStore(ws, config=config)
    git = GitStore(ws, config.git)
    git.ensure()
    for content in scenario["entries"]:
        store.append_history(content, "cli:bench")
    fake.enqueue(
        scenario["phase1"],
        [ToolCall(f"c{i}", "edit_file", e) for i, e in enumerate(scenario["edits"])],
        scenario["final"],
    )
    return Dream(store, git, ModelClient(config), config)


def reverie_runs(scenario: dict[str, Any], runs: int) -> tuple[list[float], list[dict[str, Any]]]:
    times: list[float] = []
    cpu: list[float] = []
    own: list[float] = []
    fsyncs: list[int] = []
    requests: list[dict[str, Any]] = []
    for i in range(runs + 1):  # the first run warms imports and caches; it is not counted
        fake = ScriptedModel.register(f"bench{i}", direct=True)
        with tempfile.TemporaryDirectory() as d:
            dream = _setup(Path(d) / "ws", scenario, fake)
            with _FsyncClock() as disk:
                t0, c0 = time.perf_counter(), time.process_time()
                result = asyncio.run(dream.run())
                ms = (time.perf_counter() - t0) * 1000
                cpu_ms = (time.process_time() - c0) * 1000
            if result.status != "ok" or len(result.edits) != 3:
                raise SystemExit(f"bench scenario did not apply: {result.status} {result.reason}")
        if i:
            times.append(ms)
            cpu.append(cpu_ms)
            own.append(ms - disk.seconds * 1000)
            fsyncs.append(disk.calls)
        requests = [{"messages": p.messages, "tools": p.tools} for p in fake.prompts]
        ScriptedModel.unregister(fake.name)
    return {"wall": times, "cpu": cpu, "own": own, "fsyncs": fsyncs}, requests


def nanobot_runs(python: str, runs: int) -> tuple[list[float], list[dict[str, Any]]]:
    out = subprocess.run([python, str(NANOBOT_DRIVER), str(SCENARIO), str(runs + 1)], capture_output=True,
                         text=True, check=True)
    data = json.loads(out.stdout)
    return data["ms"][1:], data["requests"]


def prompt_tokens(requests: list[dict[str, Any]]) -> int:
    client = ModelClient(Config())
    return sum(client.count_tokens(r["messages"], tools=r["tools"] or None, model="gpt-4o") for r in requests)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--nanobot-python", default=os.environ.get("NANOBOT_015_PYTHON"))
    args = parser.parse_args(argv)
    scenario = json.loads(SCENARIO.read_text())
    entries = len(scenario["entries"])
    t, requests = reverie_runs(scenario, args.runs)
    times = t["wall"]
    ours = prompt_tokens(requests)
    report: dict[str, Any] = {
        "reverie_ms_median": round(statistics.median(times), 2),
        "reverie_ms_max": round(max(times), 2),
        "reverie_own_ms_median": round(statistics.median(t["own"]), 2),
        "reverie_cpu_ms_median": round(statistics.median(t["cpu"]), 2),
        "reverie_fsyncs": max(t["fsyncs"]),
        "budget_ms": BUDGET_MS,
        "reverie_model_calls": len(requests),
        "reverie_prompt_tokens": ours,
        "reverie_prompt_tokens_per_entry": round(ours / entries, 1),
    }
    print(f"Reverie Dream, 20 entries, 3 edits, zero-latency scripted model, {args.runs} runs (medians):")
    print(f"  own time (wall minus fsync waits) {report['reverie_own_ms_median']} ms [budget {BUDGET_MS:g} ms]; "
          f"CPU {report['reverie_cpu_ms_median']} ms; wall {report['reverie_ms_median']} ms "
          f"(max {report['reverie_ms_max']}) including {report['reverie_fsyncs']} fsyncs")
    print(f"  {len(requests)} model calls, {ours} prompt tokens, {report['reverie_prompt_tokens_per_entry']} per entry")
    if args.nanobot_python:
        nb_times, nb_requests = nanobot_runs(args.nanobot_python, args.runs)
        theirs = prompt_tokens(nb_requests)
        report.update({
            "nanobot_ms_median": round(statistics.median(nb_times), 2),
            "nanobot_model_calls": len(nb_requests),
            "nanobot_prompt_tokens": theirs,
            "nanobot_prompt_tokens_per_entry": round(theirs / entries, 1),
            "prompt_token_ratio": round(ours / theirs, 3),
        })
        print(f"nanobot-ai 0.1.5.post3 Dream.run, same batch/files/replies: median {report['nanobot_ms_median']} ms, "
              f"{len(nb_requests)} model calls, {theirs} prompt tokens, "
              f"{report['nanobot_prompt_tokens_per_entry']} per entry")
        print(f"  prompt tokens Reverie/nanobot: {report['prompt_token_ratio']}")
    else:
        print("nanobot: skipped (pass --nanobot-python or set NANOBOT_015_PYTHON to its venv's python)")
    return report


if __name__ == "__main__":
    main()
