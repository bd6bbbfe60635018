"""GitStore benchmark: a workspace with 2,000 unrelated files and a 10,000-commit memory repo.

Measures, as medians: committing a one-line change, ``show`` of a commit 5,000 back, ``log(20)``, ``restore``,
and a paired run against nanobot-ai 0.3.5's ``GitStore.auto_commit``: one Reverie commit then one nanobot commit,
alternately, each on its own copy of the same repo, so both see the same machine load (wall and CPU time).

    python -m bench.gitstore            # full run (builds the repo with `git fast-import`, ~10 s)
    python -m bench.gitstore --quick    # 1,000 commits, fewer repetitions (a smoke run, not for BENCHMARKS.md)

The nanobot side runs in its own virtual environment (nanobot-ai==0.3.5 from the registry), located by
``$REVERIE_NANOBOT_PYTHON`` or created under ``~/.cache/reverie-bench/nanobot-0.3.5``; when it cannot be had,
the comparison is reported as skipped, never invented.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from reverie.gitstore import GitStore
from reverie.gitstore import trailers as T
from reverie.gitstore.location import gitignore_text
from reverie.workspace import Workspace

MEM = "memory/MEMORY.md"
TRACKED = ["SOUL.md", "USER.md", MEM]
NANOBOT_VERSION = "0.3.5"
TARGETS = {"commit_ms": 5.0, "show_5000_back_ms": 50.0, "log20_ms": 10.0, "restore_ms": 30.0, "speedup": 5.0}


def _memory_text(i: int, lines: int = 60) -> str:
    body = [f"- fact {k}: the user mentioned item {k} (rev {i if k == i % lines else 0})" for k in range(lines)]
    return "# Memory\n\n" + "\n".join(body) + "\n"


def build_workspace(root: Path, commits: int, unrelated: int) -> Workspace:
    """The workspace, its unrelated files, and a memory repo of ``commits`` commits (one git fast-import run)."""
    ws = Workspace(root)
    ws.init()
    for k in range(unrelated):
        (ws.sessions_dir / f"telegram_{k:05d}.jsonl").write_text('{"_type": "metadata", "key": "k"}\n' * 3)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    soul, user = ws.read("SOUL.md").encode(), ws.read("USER.md").encode()
    out: list[bytes] = []

    def data(payload: bytes) -> bytes:
        return b"data %d\n%s\n" % (len(payload), payload)

    t0 = 1_760_000_000
    for i in range(commits):
        kind = "init" if i == 0 else ("manual" if i % 10 == 0 else "dream")
        tr = {T.KIND: kind}
        if kind == "dream":
            tr.update({T.CURSOR: str(i * 3), T.BATCH: T.format_batch(i * 3 - 2, i * 3)})
        msg = T.format_message(f"{kind}: commit {i}", f"{MEM} | +1 -1", tr).encode()
        out.append(b"commit refs/heads/main\n")
        out.append(b"committer Reverie <reverie@localhost> %d +0100\n" % (t0 + i * 60))
        out.append(data(msg))
        if i == 0:
            out.append(b"M 100644 inline SOUL.md\n" + data(soul))
            out.append(b"M 100644 inline USER.md\n" + data(user))
            out.append(b"M 100644 inline .gitignore\n" + data(gitignore_text(TRACKED).encode()))
        out.append(b"M 100644 inline memory/MEMORY.md\n" + data(_memory_text(i).encode()))
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(out), check=True)
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "main"], check=True)
    subprocess.run(["git", "-C", str(root), "config", "reverie.memoryrepo", "true"], check=True)
    return ws


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def bench_reverie(ws: Workspace, reps: int) -> dict[str, Any]:
    g = GitStore(ws)
    g.ensure()
    head_commits = g.log(limit=1)
    assert head_commits, "benchmark repo has no commits"
    res: dict[str, Any] = {}
    # 1. one-line change, contents passed in (the Dream path: includes the atomic file write)
    samples, cpu = [], []
    base = _memory_text(0)
    for i in range(reps):
        text = base.replace("item 7 ", f"item 7 (edit {i}) ", 1)
        t, c = time.perf_counter(), time.process_time()
        sha = g.commit("dream: one line", kind="dream", trailers={T.CURSOR: str(i)}, files={MEM: text})
        samples.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        assert sha is not None
    res["commit_ms"] = _median_ms(samples)
    res["commit_cpu_ms"] = _median_ms(cpu)
    # 1b. same change written to disk first, then committed (what nanobot's auto_commit is timed on)
    samples = []
    for i in range(reps):
        ws.write(MEM, base.replace("item 9 ", f"item 9 (disk {i}) ", 1), fsync=False)
        t = time.perf_counter()
        sha = g.commit("manual: one line", kind="manual")
        samples.append(time.perf_counter() - t)
        assert sha is not None
    res["commit_from_disk_ms"] = _median_ms(samples)
    # 2. show of a commit 5,000 back, named by its 8-hex prefix
    depth = min(5000, max(len_history(g) - 2, 1))
    old = g.resolve(f"HEAD~{depth}")[:8]
    samples = []
    for _ in range(max(reps // 5, 5)):
        t = time.perf_counter()
        detail = g.show(old)
        samples.append(time.perf_counter() - t)
    assert detail.diff
    res["show_back"] = depth
    res["show_5000_back_ms"] = _median_ms(samples)
    # 3. log(20)
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        entries = g.log(20)
        samples.append(time.perf_counter() - t)
    assert len(entries) == 20
    res["log20_ms"] = _median_ms(samples)
    # 4. restore of the newest commit (each restore is itself a commit, so the next one restores it back)
    samples = []
    for _ in range(max(reps // 2, 5)):
        t = time.perf_counter()
        r = g.restore("HEAD")
        samples.append(time.perf_counter() - t)
        assert r.commit is not None
    res["restore_ms"] = _median_ms(samples)
    # 4b. why(): blame of a line last changed long ago (no target; bounded first-parent walk)
    t = time.perf_counter()
    found = g.why("fact 59:")
    res["why_ms"] = round((time.perf_counter() - t) * 1000, 1)
    res["why_lines"] = len(found)
    # 5. the same one-line commit with the repository held open (`with GitStore(ws) as git:`, as a Dream run can)
    samples = []
    with GitStore(ws) as held:
        for i in range(reps):
            text = base.replace("item 5 ", f"item 5 (held {i}) ", 1)
            t = time.perf_counter()
            held.commit("dream: one line", kind="dream", trailers={T.CURSOR: str(i)}, files={MEM: text})
            samples.append(time.perf_counter() - t)
    res["commit_held_ms"] = _median_ms(samples)
    return res


def len_history(g: GitStore) -> int:
    out = subprocess.run(["git", f"--git-dir={g.git_dir}", "rev-list", "--count", "HEAD"], capture_output=True, text=True)
    return int(out.stdout.strip() or 0)


NANOBOT_WORKER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from nanobot.utils.gitstore import GitStore
    root = Path(sys.argv[1])
    gs = GitStore(root, tracked_files=["SOUL.md", "USER.md", "memory/MEMORY.md"])
    mem = root / "memory" / "MEMORY.md"
    base = mem.read_text()
    print("ready", flush=True)
    for line in sys.stdin:
        i = int(line)
        mem.write_text(base.replace("item 7 ", f"item 7 (nb {i}) ", 1))
        t, c = time.perf_counter(), time.process_time()
        sha = gs.auto_commit(f"dream: one line {i}")
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        print(json.dumps({"wall": wall, "cpu": cpu, "ok": bool(sha)}), flush=True)
    """
)


def nanobot_python() -> Path | None:
    env = os.environ.get("REVERIE_NANOBOT_PYTHON")
    if env:
        return Path(env)
    venv = Path.home() / ".cache" / "reverie-bench" / f"nanobot-{NANOBOT_VERSION}"
    py = venv / "bin" / "python"
    if py.exists():
        return py
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", f"nanobot-ai=={NANOBOT_VERSION}"], check=True)
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"nanobot-ai {NANOBOT_VERSION} unavailable: {exc}", file=sys.stderr)
        return None
    return py


def bench_interleaved(ws: Workspace, nb_root: Path, reps: int) -> dict[str, Any]:
    """One Reverie commit, then one nanobot ``auto_commit`` on its copy of the repo, alternately, so both see the
    same machine load; nanobot runs in its own venv as a worker fed one line per commit."""
    py = nanobot_python()
    if py is None:
        return {"skipped": "nanobot-ai could not be installed"}
    try:
        proc = subprocess.Popen(
            [str(py), "-c", NANOBOT_WORKER, str(nb_root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
    except OSError as exc:
        return {"skipped": f"nanobot python {py} cannot run: {exc}"}
    assert proc.stdin is not None and proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        return {"skipped": "nanobot worker did not start"}
    g = GitStore(ws)
    base = _memory_text(0)
    ours, ours_cpu, theirs, theirs_cpu = [], [], [], []
    try:
        for i in range(reps):
            text = base.replace("item 3 ", f"item 3 (pair {i}) ", 1)
            t, c = time.perf_counter(), time.process_time()
            assert g.commit("dream: one line", kind="dream", trailers={T.CURSOR: str(i)}, files={MEM: text})
            ours.append(time.perf_counter() - t)
            ours_cpu.append(time.process_time() - c)
            proc.stdin.write(f"{i}\n")
            proc.stdin.flush()
            row = json.loads(proc.stdout.readline())
            assert row["ok"], "nanobot auto_commit made no commit"
            theirs.append(row["wall"])
            theirs_cpu.append(row["cpu"])
    finally:
        proc.stdin.close()
        proc.wait()
    out = {
        "reverie_commit_ms": _median_ms(ours),
        "reverie_commit_cpu_ms": _median_ms(ours_cpu),
        "nanobot_auto_commit_ms": _median_ms(theirs),
        "nanobot_auto_commit_cpu_ms": _median_ms(theirs_cpu),
    }
    out["speedup"] = round(out["nanobot_auto_commit_ms"] / out["reverie_commit_ms"], 1)
    out["cpu_speedup"] = round(out["nanobot_auto_commit_cpu_ms"] / out["reverie_commit_cpu_ms"], 1)
    return out


def run(quick: bool = False) -> dict[str, Any]:
    commits, unrelated, reps = (1000, 2000, 30) if quick else (10_000, 2000, 200)
    with tempfile.TemporaryDirectory(prefix="reverie-bench-gitstore-") as tmp:
        t = time.perf_counter()
        ws = build_workspace(Path(tmp) / "ws", commits, unrelated)
        build_s = round(time.perf_counter() - t, 2)
        # identical copies for the paired run, so both sides start from the same 10,000-commit repo
        shutil.copytree(ws.root, Path(tmp) / "pair", symlinks=True)
        shutil.copytree(ws.root, Path(tmp) / "nb", symlinks=True)
        reverie = bench_reverie(ws, reps)
        pair = bench_interleaved(Workspace(Path(tmp) / "pair"), Path(tmp) / "nb", reps)
    result: dict[str, Any] = {
        "commits": commits,
        "unrelated_files": unrelated,
        "reps": reps,
        "build_s": build_s,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    result.update(reverie)
    result["vs_nanobot_0_3_5"] = pair
    result["targets"] = TARGETS
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    print(json.dumps(run(quick=args.quick), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
