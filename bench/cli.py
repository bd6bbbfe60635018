"""CLI start-up and the demo: wall time and peak memory of `reverie --help`, `status`, `log`, and `reverie demo`.

    .venv/bin/python -m bench.cli [--quick] [--commits N] [--runs N]

The fast commands are timed on a workspace whose memory repo holds N commits (default 10,000; 90 % Dream commits
with their trailers, every tenth a manual edit), built by the gitstore benchmark's `git fast-import` builder. Each command runs as a child process, as a user runs it; the figure is the median
wall time over the runs and the child's peak RSS (``ru_maxrss`` from ``os.wait4``). As a peer in the same run,
`python -c pass` and `python -c "import litellm"` are timed the same way: the floor every Python CLI pays, and
what importing litellm would add. The demo runs once per round in a fresh temporary directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env["REVERIE_HOME"] = str(home)
    env["PYTHONPATH"] = str(ROOT)
    return env


def measure(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """(median wall seconds, max peak RSS in MiB) of running ``argv`` ``runs`` times."""
    walls, rss = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{argv} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
        rss.append(usage.ru_maxrss / 1024)  # KiB on Linux
    return statistics.median(walls), max(rss)


def build_workspace(root: Path, commits: int, env: dict[str, str]) -> Path:
    """The gitstore benchmark's repo builder (``bench.gitstore.build_workspace``: 90 % dream commits, every 10th
    a manual one), run in a child so this process stays small: a forked child's ``ru_maxrss`` starts from the
    parent's size."""
    ws = root / "ws"
    code = f"from pathlib import Path; from bench.gitstore import build_workspace; build_workspace(Path({str(ws)!r}), {commits}, 0)"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=str(ROOT))
    return ws


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 commits, 3 runs")
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    commits, runs = (1_000, 3) if args.quick else (args.commits, args.runs)
    with tempfile.TemporaryDirectory(prefix="reverie-bench-cli-") as tmp:
        tmp_path = Path(tmp)
        home = tmp_path / "home"
        home.mkdir()
        env = _env(home)
        t0 = time.perf_counter()
        ws = build_workspace(tmp_path, commits, env)
        print(f"workspace with {commits:,} commits built in {time.perf_counter() - t0:.1f} s")
        py = [sys.executable]
        rows = [
            ("python -c pass (floor)", py + ["-c", "pass"]),
            ("python -c 'import litellm' (peer)", py + ["-c", "import litellm"]),
            ("reverie --help", py + ["-m", "reverie", "--help"]),
            ("reverie status", py + ["-m", "reverie", "-w", str(ws), "status"]),
            ("reverie log", py + ["-m", "reverie", "-w", str(ws), "log"]),
        ]
        print(f"{'command':40} {'median wall':>12} {'peak RSS':>10}   ({runs} runs)")
        for label, cmd in rows:
            wall, rss = measure(cmd, env, runs)
            print(f"{label:40} {wall * 1000:9.0f} ms {rss:7.0f} MiB")
        demo_runs = 1 if args.quick else 3
        walls = []
        for n in range(demo_runs):
            wall, rss = measure(py + ["-m", "reverie", "demo", str(tmp_path / f"demo{n}")], env, 1)
            walls.append(wall)
        print(f"{'reverie demo (offline engine)':40} {statistics.median(walls) * 1000:9.0f} ms {rss:7.0f} MiB"
              f"   (median of {demo_runs})")


if __name__ == "__main__":
    main()
