"""GitStore: commit, show, log, restore and why on a workspace with 2,000 unrelated files and a
10,000-commit repo.

    .venv/bin/python -m bench gitstore            # full sizes (10,000 commits)
    .venv/bin/python -m bench gitstore --quick    # 1,000 commits, fewer repetitions

The memory repo is built once with ``git fast-import`` (Reverie's trailers and stat bodies, one line
of MEMORY.md changed per commit) and cached in ``bench/.cache/``; each run works on fresh copies.
The commit workload is timed against nanobot-ai 0.3.5's ``GitStore.auto_commit`` on its own copy of
the same repo, in alternating rounds (a round of Reverie commits, then a round of nanobot commits)
so drift on a shared machine hits both sides. Wall and CPU time (``time.process_time``) are both
reported: on a loaded machine both sides are I/O-bound.

The floor of each commit row is measured in the same rounds, on the same disk: the same bytes (the
new MEMORY.md) made durable with no git at all. "Contents passed": a temp file beside it written and
fsynced, renamed over it, the folder fsynced (what any crash-safe save costs). "Already on disk":
the file rewritten untimed, as before the commit, then timed: opened, fsynced, closed. Reverie's own
fsync counts per commit are counted by wrapping ``os.fsync``/``os.fdatasync`` and given in the rows'
notes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench import Context, Result, measure, stats_of
from reverie.gitstore import GitStore
from reverie.gitstore import trailers as T
from reverie.gitstore.location import gitignore_text
from reverie.storage.workspace import Workspace

MEM = "memory/MEMORY.md"
TRACKED = ["SOUL.md", "USER.md", MEM]
PEER = "0.3.5"
UNRELATED = 2000


def _memory_text(i: int, lines: int = 60) -> str:
    body = [
        f"- fact {k}: the user mentioned item {k} (rev {i if k == i % lines else 0})"
        for k in range(lines)
    ]
    return "# Memory\n\n" + "\n".join(body) + "\n"


def build_workspace(root: Path, commits: int, unrelated: int = UNRELATED) -> Workspace:
    """The workspace, its unrelated files, and a memory repo of ``commits`` commits (one git
    fast-import run)."""
    ws = Workspace(root)
    ws.init()
    for k in range(unrelated):
        (ws.sessions_dir / f"telegram_{k:05d}.jsonl").write_text(
            '{"_type": "metadata", "key": "k"}\n' * 3
        )
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    soul, user = ws.read("SOUL.md").encode(), ws.read("USER.md").encode()

    def data(payload: bytes) -> bytes:
        return b"data %d\n%s\n" % (len(payload), payload)

    out: list[bytes] = []
    for i in range(commits):
        kind = "init" if i == 0 else ("manual" if i % 10 == 0 else "dream")
        tr = {T.KIND: kind}
        if kind == "dream":
            tr.update({T.CURSOR: str(i * 3), T.BATCH: T.format_batch(i * 3 - 2, i * 3)})
        body = f"{MEM} | +1 -1"
        if i == 0:  # the first commit adds every file: its body says so, as Reverie's do
            body = "\n".join(
                f"{p} | +{n} -0"
                for p, n in (("SOUL.md", 3), ("USER.md", 3), (MEM, 62), (".gitignore", 10))
            )
        msg = T.format_message(f"{kind}: commit {i}", body, tr).encode()
        out.append(b"commit refs/heads/main\n")
        out.append(b"committer Reverie <reverie@localhost> %d +0100\n" % (1_760_000_000 + i * 60))
        out.append(data(msg))
        if i == 0:
            out.append(b"M 100644 inline SOUL.md\n" + data(soul))
            out.append(b"M 100644 inline USER.md\n" + data(user))
            out.append(b"M 100644 inline .gitignore\n" + data(gitignore_text(TRACKED).encode()))
        out.append(b"M 100644 inline memory/MEMORY.md\n" + data(_memory_text(i).encode()))
    subprocess.run(
        ["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(out), check=True
    )
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "main"], check=True)
    subprocess.run(["git", "-C", str(root), "config", "reverie.memoryrepo", "true"], check=True)
    return ws


def cached_workspace(ctx: Context, commits: int) -> Path:
    base = ctx.cache / f"gitstore2-{commits}"  # 2: the first commit's body lists every file
    if not (base / ".complete").exists():
        shutil.rmtree(base, ignore_errors=True)
        build_workspace(base / "ws", commits)
        (base / ".complete").write_text("ok\n")
    return base / "ws"


def _copy(ctx: Context, src: Path, name: str) -> Path:
    dest = ctx.tmpdir(f"gitstore-{name}-") / "ws"
    shutil.copytree(src, dest, symlinks=True)
    return dest


@contextmanager
def counting_fsyncs() -> Iterator[list[int]]:
    """Count ``os.fsync`` and ``os.fdatasync`` calls made inside the block (one list item: the
    count)."""
    count = [0]
    real = os.fsync, os.fdatasync

    def wrap(fn: Callable[[int], None]) -> Callable[[int], None]:
        def counted(fd: int) -> None:
            count[0] += 1
            fn(fd)

        return counted

    os.fsync, os.fdatasync = wrap(real[0]), wrap(real[1])  # type: ignore[assignment]
    try:
        yield count
    finally:
        os.fsync, os.fdatasync = real  # type: ignore[assignment]


def floor_passed(path: Path, data: bytes) -> float:
    """Seconds to make ``data`` the durable content of ``path`` with no git: temp file, fsync,
    rename, folder fsync."""
    t0 = time.perf_counter()
    tmp = path.with_name(f".{path.name}.floor")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return time.perf_counter() - t0


def floor_on_disk(path: Path, data: bytes) -> float:
    """Seconds to make ``data``, written to ``path`` untimed just before (as the commit's workload),
    durable."""
    path.write_bytes(data)
    t0 = time.perf_counter()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - t0


def _ms(samples: list[float]) -> str:
    return f"{stats_of(samples).median * 1e3:.2f} ms"


def _ratio(samples: list[float], floor: list[float]) -> str:
    return f"{stats_of(samples).median / stats_of(floor).median:.1f}×"


def run(ctx: Context) -> list[Result]:
    commits = 1_000 if ctx.quick else 10_000
    rounds, per_round = (3, 10) if ctx.quick else (5, 40)
    src = cached_workspace(ctx, commits)
    ws = Workspace(_copy(ctx, src, "reverie"))
    peer_ws = _copy(ctx, src, "nanobot")
    git = GitStore(ws)
    git.ensure()
    base = _memory_text(0)
    wall: list[float] = []
    cpu: list[float] = []
    disk: list[float] = []
    disk_cpu: list[float] = []
    peer_wall: list[float] = []
    peer_cpu: list[float] = []
    floor: list[float] = []
    floor_disk: list[float] = []
    with counting_fsyncs() as passed_count:
        git.commit(
            "dream: count", kind="dream", files={MEM: base.replace("item 3 ", "item 3 (count) ", 1)}
        )
    ws.write(MEM, base.replace("item 4 ", "item 4 (count) ", 1), fsync=False)
    with counting_fsyncs() as disk_count:
        git.commit("manual: count", kind="manual")
    floor_file = ctx.tmpdir("gitstore-floor-") / "MEMORY.md"  # same file system, outside both repos
    for r in range(rounds):
        for i in range(per_round):
            text = base.replace("item 7 ", f"item 7 (reverie {r}.{i}) ", 1)
            t0, c0 = time.perf_counter(), time.process_time()
            sha = git.commit(
                "dream: one line", kind="dream", trailers={T.CURSOR: str(i)}, files={MEM: text}
            )
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            assert sha is not None
        for i in range(per_round):
            ws.write(MEM, base.replace("item 9 ", f"item 9 (disk {r}.{i}) ", 1), fsync=False)
            t0, c0 = time.perf_counter(), time.process_time()
            assert git.commit("manual: one line", kind="manual") is not None
            disk.append(time.perf_counter() - t0)
            disk_cpu.append(time.process_time() - c0)
        for i in range(per_round):
            data = base.replace("item 7 ", f"item 7 (floor {r}.{i}) ", 1).encode()
            floor.append(floor_passed(floor_file, data))
            floor_disk.append(floor_on_disk(floor_file, data.replace(b"item 7", b"item 9", 1)))
        out = ctx.peer(
            PEER, "nanobot_gitstore", {"workspace": str(peer_ws), "reps": per_round, "round": r}
        )
        peer_wall += out["samples"]
        peer_cpu += out["cpu"]

    depth = min(5000, commits - 2)
    old = git.resolve(f"HEAD~{depth}")[:8]
    show, _ = measure(lambda: git.show(old), repeat=10 if ctx.quick else 40)
    log20, _ = measure(lambda: git.log(20), repeat=30 if ctx.quick else 200)
    restore, _ = measure(lambda: git.restore("HEAD"), repeat=10 if ctx.quick else 40)
    why, _ = measure(lambda: git.why("fact 59:"), repeat=1, warmup=0)

    peer_name = f"nanobot-ai {PEER} auto_commit"
    note = f"{commits:,} commits, {UNRELATED:,} unrelated files; n={len(wall)}/{len(peer_wall)}"
    return [
        Result(
            "gitstore",
            "commit a one-line change (contents passed; includes the atomic file write)",
            stats_of(wall),
            stats_of(peer_wall),
            peer_name,
            target="≤ 5 ms and ≥ 5× nanobot",
            note=f"{note}; {passed_count[0]} fsyncs; floor {_ms(floor)}, "
            f"{_ratio(wall, floor)} of it",
        ),
        Result(
            "gitstore",
            "floor of the row above: the same file saved durably, no git (temp, fsync, rename, "
            "folder fsync)",
            stats_of(floor),
            stats_of(peer_wall),
            peer_name,
            note="same rounds; the least any crash-safe save of these bytes costs here",
        ),
        Result(
            "gitstore",
            "commit a one-line change already written to disk",
            stats_of(disk),
            stats_of(peer_wall),
            peer_name,
            target="≤ 5 ms and ≥ 5× nanobot",
            note=f"{note}; {disk_count[0]} fsync(s); floor {_ms(floor_disk)}, "
            f"{_ratio(disk, floor_disk)} of it",
        ),
        Result(
            "gitstore",
            "floor of the row above: the same bytes, already written, fsynced (no git)",
            stats_of(floor_disk),
            stats_of(peer_wall),
            peer_name,
            note="same rounds",
        ),
        Result(
            "gitstore",
            "commit a one-line change, CPU time (contents passed)",
            stats_of(cpu),
            stats_of(peer_cpu),
            peer_name,
            note="time.process_time: user + system",
        ),
        Result(
            "gitstore",
            "commit a one-line change, CPU time (already on disk)",
            stats_of(disk_cpu),
            stats_of(peer_cpu),
            peer_name,
            note="time.process_time: user + system",
        ),
        Result(
            "gitstore", f"show of a commit {depth:,} back (8-hex prefix)", show, target="≤ 50 ms"
        ),
        Result("gitstore", "log(20)", log20, target="≤ 10 ms"),
        Result("gitstore", "restore (new commit + file write)", restore, target="≤ 30 ms"),
        Result(
            "gitstore",
            f"why: a line last changed at the root ({commits:,} first parents)",
            why,
            note="one run",
        ),
    ]
