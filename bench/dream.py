"""Dream: a run's own cost, and prompt tokens per history entry, against nanobot-ai 0.1.5.post3's
``Dream.run``.

Workload (issue 5's benchmark): ``bench/dream_scenario.json`` — 20 history entries, the same three
memory files, and the same scripted replies for both sides: phase-1 findings, one turn with three
``edit_file`` calls, a final text. Reverie's model is the scripted fake with ``direct=True``
(answers without entering litellm, zero latency), so the time is Reverie's own: reading the batch,
both phases, the gate, the dulwich commit and the cursor.

Rows: the run's wall time against nanobot's (same work, both committing to git); Reverie's own time
= wall minus the time spent waiting in ``os.fsync`` (the disk's, measured by wrapping it), and the
process's CPU time, against the issue's 50 ms; and history entries per 1,000 prompt tokens (the
inverse of prompt tokens per processed entry), counted with one counter (litellm's ``gpt-4o``
tokenizer) over the exact messages and tool schemas each side sent. Rounds alternate Reverie and
nanobot.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from ._core import Context, Result, stats_of

SCENARIO = Path(__file__).with_name("dream_scenario.json")
PEER_VERSION = "0.1.5.post3"
TARGET_MS = 50


class _FsyncClock:
    """Time spent waiting in ``os.fsync`` while active (the disk's time, reported apart from
    Reverie's own)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._real = os.fsync

    def __enter__(self) -> _FsyncClock:
        def timed(fd: int) -> None:
            t0 = time.perf_counter()
            try:
                self._real(fd)
            finally:
                self.seconds += time.perf_counter() - t0

        os.fsync = timed  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        os.fsync = self._real


def _reverie_once(
    root: Path, scenario: dict[str, Any], name: str
) -> tuple[float, float, float, list[dict[str, Any]]]:
    from reverie import MemoryStore
    from reverie.dream import Dream
    from reverie.gitstore import GitStore
    from reverie.llm.client import ModelClient
    from reverie.llm.scripted import ScriptedModel
    from reverie.llm.types import ToolCall
    from reverie.storage.config import Config
    from reverie.storage.workspace import Workspace

    fake = ScriptedModel.register(name, direct=True)
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
    dream = Dream(store, git, ModelClient(config), config)
    with _FsyncClock() as disk:
        t0, c0 = time.perf_counter(), time.process_time()
        result = asyncio.run(dream.run())
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if result.status != "ok" or len(result.edits) != 3:
        raise RuntimeError(f"dream bench scenario did not apply: {result.status} {result.reason}")
    requests = [{"messages": p.messages, "tools": p.tools} for p in fake.prompts]
    ScriptedModel.unregister(name)
    return wall, wall - disk.seconds, cpu, requests


def _prompt_tokens(requests: list[dict[str, Any]]) -> int:
    from reverie.llm.client import ModelClient
    from reverie.storage.config import Config

    client = ModelClient(Config())
    return sum(
        client.count_tokens(r["messages"], tools=r["tools"] or None, model="gpt-4o")
        for r in requests
    )


def run(ctx: Context) -> list[Result]:
    scenario = json.loads(SCENARIO.read_text())
    entries = len(scenario["entries"])
    rounds, per_round = (2, 3) if ctx.quick else (5, 4)
    walls: list[float] = []
    owns: list[float] = []
    cpus: list[float] = []
    peer: list[float] = []
    ours_req: list[dict[str, Any]] = []
    theirs_req: list[dict[str, Any]] = []
    _reverie_once(
        ctx.tmpdir("dream-warm-") / "ws", scenario, "bench-warm"
    )  # imports and caches, untimed
    for r in range(rounds):
        for i in range(per_round):
            wall, own, cpu, ours_req = _reverie_once(
                ctx.tmpdir("dream-") / "ws", scenario, f"bench{r}-{i}"
            )
            walls.append(wall)
            owns.append(own)
            cpus.append(cpu)
        out = ctx.peer(
            PEER_VERSION, "nanobot_dream", {"scenario": str(SCENARIO), "runs": per_round + 1}
        )
        peer.extend(out["samples"][1:])  # its first run warms its imports
        theirs_req = out["requests"]
    ours_tok, theirs_tok = _prompt_tokens(ours_req), _prompt_tokens(theirs_req)
    peer_name = f"nanobot-ai {PEER_VERSION} Dream.run"
    return [
        Result(
            "dream",
            "run over 20 entries, 3 edits, zero-latency model (wall, with git commit)",
            stats_of(walls),
            stats_of(peer),
            peer_name,
            note=f"{len(ours_req)} vs {len(theirs_req)} model calls",
        ),
        Result(
            "dream",
            "same run, Reverie's own time (wall minus fsync waits)",
            stats_of(owns),
            target=f"≤ {TARGET_MS} ms",
        ),
        Result(
            "dream", "same run, CPU time of the process", stats_of(cpus), target=f"≤ {TARGET_MS} ms"
        ),
        Result(
            "dream",
            "history entries per 1,000 prompt tokens (same batch, files, replies)",
            stats_of([1000 * entries / ours_tok]),
            stats_of([1000 * entries / theirs_tok]),
            peer_name,
            unit="entries/1k tok",
            note=f"prompt tokens per entry: Reverie {ours_tok / entries:.1f}, "
            f"nanobot {theirs_tok / entries:.1f}",
        ),
    ]
