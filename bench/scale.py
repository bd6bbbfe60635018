"""Scale: ``status``, one Dream batch, ``log`` and ``show`` on a big workspace against the same work
on a small one.

    .venv/bin/python -m bench scale          # 1,000,000 entries + 100,000 commits vs 10,000 each
    .venv/bin/python -m bench scale --quick  # 100,000 entries + 20,000 commits vs 10,000 each

Each workspace holds a ``memory/history.jsonl`` of N ~300-byte entries (bench/history.py's
generator) and a memory repo of C commits (bench/gitstore.py's ``git fast-import`` builder, no
unrelated files), built once into ``bench/.cache/`` and copied fresh for each run. The peer of every
row is the SAME operation on the small workspace, timed in alternating rounds in this process; the
ratio is small/large, so ≥ 0.5 means "within 2×".

Operations are the library calls the CLI commands make: ``collect_status(store)`` (``reverie
status``), ``GitStore.log(20)`` (``reverie log``), ``GitStore.show(<8-hex prefix>)`` of HEAD and of
a commit 5,000 back (``reverie show``), and ``Dream.run()`` over a 20-entry batch with the
zero-latency scripted model (``direct=True``: no litellm) applying one edit and committing — the
batch is appended just before each run, so every run reads past the cursor of the full history and
commits onto the full repo.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

from bench import Context, Result, stats_of
from bench.gitstore import build_workspace
from bench.history import history_workspace

BATCH = 20
SHOW_DEPTH = 5_000


def _workspace(ctx: Context, entries: int, commits: int) -> Path:
    """A cached workspace with ``entries`` history entries (all already dreamed) and a
    ``commits``-commit repo."""
    base = ctx.cache / f"scale-{entries}-{commits}"
    if not (base / ".complete").exists():
        shutil.rmtree(base, ignore_errors=True)
        t0 = time.perf_counter()
        ws = build_workspace(base / "ws", commits, unrelated=0)
        hist = history_workspace(ctx, entries) / "memory"
        shutil.copyfile(hist / "history.jsonl", ws.memory_dir / "history.jsonl")
        (ws.memory_dir / ".cursor").write_text(str(entries))
        (ws.memory_dir / ".dream_cursor").write_text(str(entries))
        # The builder's synthetic trailers run to cursor 3×commits; a newest dream commit at the
        # history's real end keeps Dream's reconcile (cursor <- HEAD's Reverie-Cursor when ahead)
        # consistent with this history.
        from reverie.gitstore import GitStore
        from reverie.gitstore import trailers as T

        git = GitStore(ws)
        git.ensure()
        git.commit(
            "dream: scale baseline",
            kind="dream",
            trailers={T.CURSOR: str(entries)},
            files={"memory/MEMORY.md": ws.read("memory/MEMORY.md") + "- baseline\n"},
        )
        print(
            f"[bench] scale: built {entries:,} entries + {commits:,} commits in "
            f"{time.perf_counter() - t0:.0f}s",
            flush=True,
        )
        (base / ".complete").write_text("ok\n")
    dest = ctx.tmpdir(f"scale-{entries}-") / "ws"
    shutil.copytree(base / "ws", dest, symlinks=True)
    return dest


class _Side:
    """One workspace and the four operations on it."""

    def __init__(self, root: Path, name: str) -> None:
        from reverie import MemoryStore
        from reverie.gitstore import GitStore
        from reverie.llm.scripted import ScriptedModel
        from reverie.storage.config import Config
        from reverie.storage.workspace import Workspace

        self.ws = Workspace(root)
        self.fake = ScriptedModel.register(name, direct=True)
        self.config = Config()
        self.config.dream.model_override = self.fake.model
        self.config.memory.history.fsync = False
        self.store = MemoryStore(self.ws, config=self.config)
        self.git = GitStore(self.ws, self.config.git)
        self.git.ensure()
        self.old = self.git.resolve(f"HEAD~{SHOW_DEPTH}")[:8]
        self.runs = 0

    def status(self) -> None:
        from reverie.memory.status import collect_status

        report = collect_status(self.store)
        assert report.pending is not None

    def log(self) -> None:
        assert len(self.git.log(20)) == 20

    def show_head(self) -> None:
        self.git.show(self.git.head()[:8])  # type: ignore[index]

    def show_old(self) -> None:
        self.git.show(self.old)

    def dream(self) -> float:
        """Append a batch (untimed), then time one Dream run over it."""
        from reverie.dream import Dream
        from reverie.llm.client import ModelClient
        from reverie.llm.types import ToolCall

        self.runs += 1
        for k in range(BATCH):
            self.store.append_history(
                f"- [durable] scale fact {self.runs}.{k}: the user likes tea no. {k}", "cli:b"
            )
        line = f"- Likes tea (run {self.runs})\n"
        self.fake.enqueue(
            f"[MEMORY] Likes tea (run {self.runs})",
            [
                ToolCall(
                    "c1",
                    "edit_file",
                    {"path": "memory/MEMORY.md", "old_text": "", "new_text": line},
                )
            ],
            "Done.",
        )
        dream = Dream(self.store, self.git, ModelClient(self.config), self.config)
        t0 = time.perf_counter()
        result = asyncio.run(dream.run())
        took = time.perf_counter() - t0
        if result.status != "ok":
            raise RuntimeError(f"scale dream run did not commit: {result.status} {result.reason}")
        return took


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(ctx: Context) -> list[Result]:
    small_n, small_c = 10_000, 10_000
    big_n, big_c = (100_000, 20_000) if ctx.quick else (1_000_000, 100_000)
    rounds, reps = (3, 3) if ctx.quick else (5, 5)
    small = _Side(_workspace(ctx, small_n, small_c), "scale-small")
    big = _Side(_workspace(ctx, big_n, big_c), "scale-big")
    ops = ["status", "log", "show_head", "show_old"]
    samples: dict[str, dict[str, list[float]]] = {
        s: {op: [] for op in [*ops, "dream"]} for s in ("small", "big")
    }
    for side in (small, big):  # warm imports and caches, untimed
        for op in ops:
            getattr(side, op)()
        side.dream()
    for _ in range(rounds):
        for label, side in (("small", small), ("big", big)):
            for op in ops:
                samples[label][op] += [_timed(getattr(side, op)) for _ in range(reps)]
            samples[label]["dream"].append(side.dream())
    names = {
        "status": "status (collect_status: cursors, pending count, files)",
        "log": "log(20)",
        "show_head": "show HEAD (8-hex prefix)",
        "show_old": f"show a commit {SHOW_DEPTH:,} back (8-hex prefix)",
        "dream": f"one Dream batch ({BATCH} entries, 1 edit, commit; zero-latency scripted model)",
    }
    peer = f"same op at {small_n:,} entries / {small_c:,} commits"
    note = f"{big_n:,} entries, {big_c:,} commits; ratio ≥ 0.5 = within 2×"
    return [
        Result(
            "scale",
            names[op],
            stats_of(samples["big"][op]),
            stats_of(samples["small"][op]),
            peer,
            target="≤ 2× the small figure (ratio ≥ 0.5)",
            note=f"{note}; n={len(samples['big'][op])}",
        )
        for op in [*ops, "dream"]
    ]
