"""CLI start-up and the demo: wall time and peak memory of `reverie --help`, `status`, `log`, and `reverie demo`.

    .venv/bin/python -m bench.cli [--quick] [--commits N] [--runs N]

The fast commands are timed on a workspace whose memory repo holds N Dream commits (default 10,000), built with
`git fast-import` on top of the repo GitStore creates (the same commits, trailers and files Dream makes, written
in seconds instead of minutes). Each command runs as a child process, as a user runs it; the figure is the median
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
    """A workspace whose memory repo has ``commits`` Dream commits on top of GitStore's init commit."""
    ws = root / "ws"
    subprocess.run([sys.executable, "-m", "reverie", "-w", str(ws), "init"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    # Let GitStore create (and mark) the repo and its init commit.
    subprocess.run([sys.executable, "-c", f"from reverie.runtime import Runtime; Runtime({str(ws)!r}).git"],
                   env=env, check=True)
    head_ref = subprocess.run(["git", "-C", str(ws), "symbolic-ref", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    user_lines, memory_lines = ["# User", ""], ["# Memory", ""]
    chunks: list[bytes] = []
    stamp = 1_700_000_000
    for i in range(1, commits + 1):
        if i % 2:
            user_lines.append(f"- fact {i} about the user")
            path, text = "USER.md", "\n".join(user_lines[-200:]) + "\n"
        else:
            memory_lines.append(f"- project fact {i}")
            path, text = "memory/MEMORY.md", "\n".join(memory_lines[-300:]) + "\n"
        data = text.encode()
        msg = (f"dream: entries {i * 5 - 4}-{i * 5}\n\n{path} | +1 -0\n\n"
               f"Reverie-Kind: dream\nReverie-Batch: {i * 5 - 4}-{i * 5}\nReverie-Cursor: {i * 5}\n").encode()
        parent = f"from {head_ref}^0\n".encode() if i == 1 else b""
        chunks.append(
            b"commit " + head_ref.encode() + b"\n"
            + f"committer Reverie <reverie@localhost> {stamp + i * 60} +0000\n".encode()
            + f"data {len(msg)}\n".encode() + msg + b"\n" + parent
            + f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"
        )
    subprocess.run(["git", "-C", str(ws), "fast-import", "--quiet"], input=b"".join(chunks), check=True)
    subprocess.run(["git", "-C", str(ws), "checkout", "-f", "-q"], check=True)  # files on disk = HEAD
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
        print(f"workspace with {commits:,} dream commits built in {time.perf_counter() - t0:.1f} s")
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
