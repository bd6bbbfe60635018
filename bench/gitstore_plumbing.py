"""A/B of the commit's two repository writes: Reverie's plumbing against dulwich's public APIs, with
nanobot's ``auto_commit`` in the same run.

    .venv/bin/python -m bench gitstore_plumbing            # 30 rounds of 20 commits per variant
    .venv/bin/python -m bench --quick gitstore_plumbing    # 6 rounds of 10: a smoke run, too
                                                           # short to tell the variants apart

Every commit of ``GitStore`` writes its new objects as loose objects
(``reverie.gitstore.plumbing.write_loose``) and moves the branch ref with a reflog entry
(``plumbing.compare_and_swap``). This area times the same commit four ways, on one copy of ``bench
gitstore``'s cached 1,000-commit repo with 2,000 unrelated files:

- ``plumbing``: the shipped code, as it is;
- ``add_object``: each loose object written by dulwich's ``repo.object_store.add_object``;
- ``set_if_equals``: the ref moved by dulwich's ``repo.refs.set_if_equals(ref, old, new,
  message=..., committer=..., timestamp=..., timezone=...)`` (git's lock file, fsync, reflog entry,
  rename);
- ``dulwich both``: the two together.

The swap is a seam of this benchmark only: while a variant runs, ``reverie.gitstore.writer``'s
``write_loose`` / ``compare_and_swap`` names are pointed at thin adapters to dulwich's calls (and
``core.transact`` is wrapped to hand them the open repo); the shipped code is never changed. Each
adapter call is also timed on its own, so the per-object and per-ref-update costs are reported
beside the whole commit's.

Workload, as ``bench gitstore``'s "already written to disk" row and nanobot's: one line of
memory/MEMORY.md is rewritten (untimed), then ``GitStore.commit`` is timed (wall and
``time.process_time``). Rounds are round-robin and the order of the variants (and of nanobot-ai
0.3.5's ``auto_commit``, on its own copy of the repo, when its venv exists in ``bench/.venvs``)
rotates from round to round, so a shared machine's drift hits every side alike. nanobot makes as
many commits per round as the four variants together, so both repos grow alike (a commit's cost
drifts up as a repo copy takes thousands of commits). Each variant is compared with the shipped code
round by round (the median of the per-round differences, and a sign test over the rounds: "within
noise" when p ≥ 0.05), in wall and in CPU time. After the run the repo must pass ``git fsck`` with
one reflog entry per commit made.
"""

from __future__ import annotations

import math
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from bench import Context, Result, peerenv, stats_of
from bench.gitstore import MEM, _copy, _memory_text, cached_workspace
from reverie.gitstore import GitStore
from reverie.gitstore import core as gs_core
from reverie.gitstore import writer as gs_writer
from reverie.storage.workspace import Workspace

PEER = "0.3.5"
COMMITS = 1_000
VARIANTS = ("plumbing", "add_object", "set_if_equals", "dulwich both")
_SEAMS: tuple[tuple[ModuleType, str], ...] = (
    (gs_writer, "write_loose"),
    (gs_writer, "compare_and_swap"),
    (gs_core, "transact"),
)


class _Seam:
    """Points ``writer.write_loose`` / ``writer.compare_and_swap`` at dulwich's public calls for one
    variant, and times every call of either (shipped or dulwich) so the per-call costs can be
    compared."""

    def __init__(self) -> None:
        self.repo: Any = None
        self.object_calls: dict[str, list[float]] = {v: [] for v in VARIANTS}
        self.ref_calls: dict[str, list[float]] = {v: [] for v in VARIANTS}
        # the module globals the commit path looks up at call time (writer.transact calls the first
        # two by name, GitStore calls core's transact); set only inside variant() and always put
        # back
        self._orig: tuple[Callable[..., Any], ...] = tuple(
            getattr(module, attr) for module, attr in _SEAMS
        )

    def _transact(self, repo: Any, *args: Any, **kwargs: Any) -> Any:
        self.repo = repo  # the GitStore's open MemoryRepo (a dulwich Repo), for the adapters below
        return self._orig[2](repo, *args, **kwargs)

    def _dulwich_object(self, objects_dir: Path, obj: Any) -> None:
        self.repo.object_store.add_object(obj)

    @staticmethod
    def _dulwich_ref(
        repo: Any,
        git_dir: Path,
        ref: bytes,
        old: bytes | None,
        new: bytes,
        who: bytes,
        message: bytes,
    ) -> bool:
        when = time.time()
        kw = {
            "committer": who,
            "timestamp": int(when),
            "timezone": time.localtime(when).tm_gmtoff,
            "message": message,
        }
        if old is None:  # set_if_equals(None) would overwrite; "must not exist yet" is add_if_new
            return bool(repo.refs.add_if_new(ref, new, **kw))
        return bool(repo.refs.set_if_equals(ref, old, new, **kw))

    @staticmethod
    def _timed(fn: Callable[..., Any], sink: list[float]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                sink.append(time.perf_counter() - t0)

        return wrapper

    @contextmanager
    def variant(self, name: str) -> Iterator[None]:
        write_loose, cas, _ = self._orig
        if name in ("add_object", "dulwich both"):
            write_loose = self._dulwich_object
        if name in ("set_if_equals", "dulwich both"):
            cas = self._dulwich_ref
        swapped = (
            self._timed(write_loose, self.object_calls[name]),
            self._timed(cas, self.ref_calls[name]),
            self._transact,
        )
        for (module, attr), fn in zip(_SEAMS, swapped):
            setattr(module, attr, fn)
        try:
            yield
        finally:
            for (module, attr), fn in zip(_SEAMS, self._orig):
                setattr(module, attr, fn)


def _reflog_entries(root: Path) -> int:
    return len(
        subprocess.run(
            ["git", "-C", str(root), "reflog", "show", "--format=%H", "refs/heads/main"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    )


def _verify(root: Path, made: int, reflog_before: int) -> str:
    """The repo after the run: ``git fsck`` clean and one new reflog entry per commit made (as git
    sees them)."""
    fsck = subprocess.run(
        ["git", "-C", str(root), "fsck", "--no-dangling", "--no-progress"],
        capture_output=True,
        text=True,
    )
    if fsck.returncode != 0:
        raise RuntimeError(f"git fsck failed after the A/B run:\n{fsck.stdout}{fsck.stderr}")
    added = _reflog_entries(root) - reflog_before
    if added != made:
        raise RuntimeError(f"{made} commits made but {added} reflog entries added")
    return f"git fsck clean; {added} reflog entries for {made} commits"


def _sign_test(diffs: list[float]) -> tuple[int, int, float]:
    """Paired rounds: (rounds where the variant was slower, rounds compared, two-sided sign-test
    p-value)."""
    slower = sum(d > 0 for d in diffs)
    n = sum(d != 0 for d in diffs)
    if n == 0:
        return 0, 0, 1.0
    k = min(slower, n - slower)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)
    return slower, n, p


def _paired(samples: dict[str, list[float]], name: str, per_round: int) -> str:
    """The variant against the shipped plumbing, round by round (same round, same machine state):
    the median of the per-round differences of medians and a sign test. "Within noise" = p ≥ 0.05.
    """

    def by_round(values: list[float]) -> list[float]:
        return [
            statistics.median(values[i : i + per_round]) for i in range(0, len(values), per_round)
        ]

    mine, ref = by_round(samples[name]), by_round(samples["plumbing"])
    diffs = [a - b for a, b in zip(mine, ref)]
    slower, n, p = _sign_test(diffs)
    verdict = "within noise" if p >= 0.05 else ("slower" if slower > n / 2 else "faster")
    return (
        f"vs plumbing: {statistics.median(diffs) * 1e3:+.3f} ms median per-round difference, "
        f"slower in {slower}/{n} rounds, sign test p={p:.3g} ({verdict})"
    )


def run(ctx: Context) -> list[Result]:
    rounds, per_round = (6, 10) if ctx.quick else (30, 20)
    src = cached_workspace(ctx, COMMITS)
    ws = Workspace(_copy(ctx, src, "plumbing-ab"))
    git = GitStore(ws)
    git.ensure()
    with_peer = peerenv.ready(PEER) is not None
    peer_ws = _copy(ctx, src, "plumbing-ab-nanobot") if with_peer else None
    base = _memory_text(0)
    seam = _Seam()
    wall: dict[str, list[float]] = {v: [] for v in VARIANTS}
    cpu: dict[str, list[float]] = {v: [] for v in VARIANTS}
    peer_wall: list[float] = []
    peer_cpu: list[float] = []
    slots: list[str] = [*VARIANTS, *(["nanobot"] if with_peer else [])]
    reflog_before = _reflog_entries(ws.root)
    made = 0
    # warm-up: one untimed commit per variant (imports, caches, the repo opened)
    for name in VARIANTS:
        with seam.variant(name):
            ws.write(MEM, base.replace("item 3 ", f"item 3 (warm {name}) ", 1), fsync=False)
            assert git.commit("manual: warm-up", kind="manual") is not None
            made += 1
    for values in (*seam.object_calls.values(), *seam.ref_calls.values()):
        values.clear()
    for r in range(rounds):
        order = slots[r % len(slots) :] + slots[: r % len(slots)]
        for name in order:
            if name == "nanobot":
                assert peer_ws is not None
                # as many commits as the four variants make together, so both repos grow alike
                # during the run
                out = ctx.peer(
                    PEER,
                    "nanobot_gitstore",
                    {"workspace": str(peer_ws), "reps": per_round * len(VARIANTS), "round": r},
                )
                peer_wall += out["samples"]
                peer_cpu += out["cpu"]
                continue
            with seam.variant(name):
                for i in range(per_round):
                    ws.write(
                        MEM, base.replace("item 9 ", f"item 9 ({name} {r}.{i}) ", 1), fsync=False
                    )
                    t0, c0 = time.perf_counter(), time.process_time()
                    sha = git.commit("manual: one line", kind="manual")
                    wall[name].append(time.perf_counter() - t0)
                    cpu[name].append(time.process_time() - c0)
                    assert sha is not None
                    made += 1
        print(
            f"[bench] gitstore_plumbing round {r + 1}/{rounds} median wall: "
            + ", ".join(
                f"{v} {statistics.median(wall[v][-per_round:]) * 1e3:.2f} ms" for v in VARIANTS
            )
            + (
                ", nanobot "
                f"{statistics.median(peer_wall[-per_round * len(VARIANTS) :]) * 1e3:.2f} ms"
                if with_peer
                else ""
            )
            + "; CPU: "
            + ", ".join(
                f"{v} {statistics.median(cpu[v][-per_round:]) * 1e3:.2f} ms" for v in VARIANTS
            ),
            file=sys.stderr,
            flush=True,
        )
    check = _verify(ws.root, made, reflog_before)

    peer_name = f"nanobot-ai {PEER} auto_commit" if with_peer else ""
    peer_w = stats_of(peer_wall) if with_peer else None
    peer_c = stats_of(peer_cpu) if with_peer else None
    peer_text = (
        f"nanobot in the same rounds ({rounds * per_round * len(VARIANTS)} commits)"
        if with_peer
        else "no nanobot venv: no ratio"
    )
    head = (
        f"{COMMITS:,}-commit repo, {rounds} rounds × {per_round} commits per variant, "
        f"{peer_text}; {check}"
    )
    results: list[Result] = []
    for name in VARIANTS:
        per_obj = seam.object_calls[name]
        per_ref = seam.ref_calls[name]
        wall_note = head if name == "plumbing" else _paired(wall, name, per_round)
        cpu_note = "time.process_time: user + system" + (
            "" if name == "plumbing" else "; " + _paired(cpu, name, per_round)
        )
        results.append(
            Result(
                "gitstore_plumbing",
                f"commit, {name}: wall",
                stats_of(wall[name]),
                peer_w,
                peer_name,
                target="≥ 5× nanobot, within noise of plumbing",
                note=wall_note,
            )
        )
        results.append(
            Result(
                "gitstore_plumbing",
                f"commit, {name}: CPU",
                stats_of(cpu[name]),
                peer_c,
                peer_name,
                note=cpu_note,
            )
        )
        results.append(
            Result(
                "gitstore_plumbing",
                f"{name}: one object write",
                stats_of(per_obj),
                note=f"n={len(per_obj)} ({len(per_obj) / max(1, len(wall[name])):.0f} per commit)",
            )
        )
        results.append(
            Result(
                "gitstore_plumbing",
                f"{name}: one ref move + reflog",
                stats_of(per_ref),
                note=f"n={len(per_ref)}",
            )
        )
    shutil.rmtree(ws.root, ignore_errors=True)
    if peer_ws is not None:
        shutil.rmtree(peer_ws, ignore_errors=True)
    return results
