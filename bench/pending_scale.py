"""`reverie status` (the pending count) on a long undreamed history: N entries past Dream's cursor.

    .venv/bin/python -m bench.pending_scale [--quick] [N] [ROUNDS] [OTHER_TREE]

Writes a workspace whose ``memory/history.jsonl`` holds N entries (default 200,000, ~32 MB, as
Reverie writes them) and no Dream cursor, then times ``python -m reverie -w WS status`` as a child
process (bytecode written and read), ROUNDS times (default 5), alternating with OTHER_TREE's sources
(``PYTHONPATH``) when one is given: wall and CPU (user + sys) per run and their medians, and the
pending count each printed (the sides must agree).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent


def build(ws: Path, n: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "init"],
        env=env,
        check=True,
        capture_output=True,
    )
    with open(ws / "memory" / "history.jsonl", "wb") as f:
        for c in range(1, n + 1):
            entry = {
                "cursor": c,
                "timestamp": "2026-11-29 11:59",
                "session_key": "cli:bench",
                "content": f"- [durable] fact number {c} about the user, with some words",
            }
            f.write(orjson.dumps(entry) + b"\n")


def one(tree: Path, ws: Path) -> tuple[float, float, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(ws), "status"],
        env=env,
        cwd=ws.parent,  # not this checkout: ``-m`` would import the sources beside it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read().decode() if proc.stdout else ""
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"status with {tree} failed")
    found = re.search(r"(\d[\d,]*) entries pending", out)
    return wall, usage.ru_utime + usage.ru_stime, found.group(1) if found else "?"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    quick = "--quick" in args  # ``python -m bench --quick``: 20,000 entries, 3 rounds
    args = [a for a in args if a != "--quick"]
    n = int(args[0]) if args else 20_000 if quick else 200_000
    rounds = int(args[1]) if len(args) > 1 else 3 if quick else 5
    sides = {"this tree": ROOT}
    if len(args) > 2:
        sides["other"] = Path(args[2]).resolve()
    with tempfile.TemporaryDirectory(prefix="pending-scale-") as tmp:
        ws = Path(tmp) / "ws"
        build(ws, n)
        print(f"{n:,} entries, load {os.getloadavg()[0]:.2f}")
        for tree in sides.values():
            one(tree, ws)  # bytecode written, the file in the page cache
        runs: dict[str, list[tuple[float, float, str]]] = {s: [] for s in sides}
        for r in range(rounds):
            for name in list(sides) if r % 2 == 0 else list(reversed(sides)):
                runs[name].append(one(sides[name], ws))
        print(f"load after {os.getloadavg()[0]:.2f}")
        for name, got in runs.items():
            print(
                f"{name}: wall median {statistics.median(w for w, _, _ in got):.2f} s "
                f"({' / '.join(f'{w:.2f}' for w, _, _ in got)}); CPU median "
                f"{statistics.median(c for _, c, _ in got):.2f} s; pending {got[0][2]}"
            )


if __name__ == "__main__":
    main()
