"""GitStore benchmark: a workspace with 2,000 unrelated files and a 10,000-commit memory repo.

Measures, as medians: committing a one-line change (Reverie vs nanobot-ai 0.3.5's ``GitStore.auto_commit`` on a
copy of the same repo, run in the same benchmark run), ``show`` of a commit 5,000 back, ``log(20)``, ``restore``.

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
    samples = []
    base = _memory_text(0)
    for i in range(reps):
        text = base.replace("item 7 ", f"item 7 (edit {i}) ", 1)
        t = time.perf_counter()
        sha = g.commit("dream: one line", kind="dream", trailers={T.CURSOR: str(i)}, files={MEM: text})
        samples.append(time.perf_counter() - t)
        assert sha is not None
    res["commit_ms"] = _median_ms(samples)
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


NANOBOT_SCRIPT = textwrap.dedent(
    """
    import json, statistics, sys, time
    from pathlib import Path
    from nanobot.utils.gitstore import GitStore
    root, reps = Path(sys.argv[1]), int(sys.argv[2])
    gs = GitStore(root, tracked_files=["SOUL.md", "USER.md", "memory/MEMORY.md"])
    mem = root / "memory" / "MEMORY.md"
    base = mem.read_text()
    samples = []
    for i in range(reps):
        mem.write_text(base.replace("item 7 ", f"item 7 (nb {i}) ", 1))
        t = time.perf_counter()
        sha = gs.auto_commit(f"dream: one line {i}")
        samples.append(time.perf_counter() - t)
        assert sha, "auto_commit made no commit"
    print(json.dumps({"auto_commit_ms": round(statistics.median(samples) * 1000, 3)}))
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


def bench_nanobot(root: Path, reps: int) -> dict[str, Any]:
    py = nanobot_python()
    if py is None:
        return {"skipped": "nanobot-ai could not be installed"}
    try:
        proc = subprocess.run([str(py), "-c", NANOBOT_SCRIPT, str(root), str(reps)], capture_output=True, text=True)
    except OSError as exc:
        return {"skipped": f"nanobot python {py} cannot run: {exc}"}
    if proc.returncode != 0:
        return {"skipped": f"nanobot run failed: {proc.stderr.strip()[-400:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(quick: bool = False) -> dict[str, Any]:
    commits, unrelated, reps = (1000, 2000, 30) if quick else (10_000, 2000, 200)
    with tempfile.TemporaryDirectory(prefix="reverie-bench-gitstore-") as tmp:
        t = time.perf_counter()
        ws = build_workspace(Path(tmp) / "ws", commits, unrelated)
        build_s = round(time.perf_counter() - t, 2)
        shutil.copytree(ws.root, Path(tmp) / "nb", symlinks=True)
        reverie = bench_reverie(ws, reps)
        nanobot = bench_nanobot(Path(tmp) / "nb", reps)
    result: dict[str, Any] = {
        "commits": commits,
        "unrelated_files": unrelated,
        "reps": reps,
        "build_s": build_s,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    result.update(reverie)
    result["nanobot"] = nanobot
    if "auto_commit_ms" in nanobot and reverie["commit_ms"]:
        result["speedup"] = round(nanobot["auto_commit_ms"] / reverie["commit_ms"], 1)
        result["speedup_from_disk"] = round(nanobot["auto_commit_ms"] / reverie["commit_from_disk_ms"], 1)
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
