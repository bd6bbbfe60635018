"""What the worker-process mode of the async verbs costs beside the default threads
(docs/threads.md): the first ``arecall`` of a fresh program (a worker process starts, imports
Reverie and opens the workspace on it), the next call, and a worker's resident memory after it
searched a 10,000-entry workspace (bench/embedded.py's workspace). Each run is a fresh interpreter;
the modes alternate.

Usage::

    python bench/offload_cost.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ONE_RUN = r"""
import asyncio, json, os, sys, time
import reverie
from reverie import offload

offload.configure(sys.argv[2])


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def children():
    found = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            found += [int(p) for p in f.read().split()]
    return found


async def main():
    async with reverie.open(sys.argv[1]) as memory:
        start = time.perf_counter()
        await memory.arecall("tea")
        first = time.perf_counter() - start
        start = time.perf_counter()
        await memory.arecall("Lisbon")
        second = time.perf_counter() - start
        workers = [rss_kb(p) for p in children()]
        print(json.dumps({"first": first, "second": second, "workers_kb": workers,
                          "self_kb": rss_kb(os.getpid())}))


asyncio.run(main())
"""


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    from bench.embedded import build

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        build(root)
        got: dict[str, list[dict[str, float | list[int]]]] = {"threads": [], "processes": []}
        for _ in range(args.runs):
            for mode in got:
                out = subprocess.run(
                    [sys.executable, "-c", ONE_RUN, str(root), mode],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                got[mode].append(json.loads(out.splitlines()[-1]))
    for mode, runs in got.items():
        first = statistics.median(float(r["first"]) for r in runs)  # type: ignore[arg-type]
        second = statistics.median(float(r["second"]) for r in runs)  # type: ignore[arg-type]
        workers = [kb for r in runs for kb in r["workers_kb"]]  # type: ignore[union-attr]
        line = f"{mode:9}  first arecall {first * 1000:7.1f} ms  next {second * 1000:6.1f} ms"
        if workers:
            line += f"  worker RSS median {statistics.median(workers) / 1024:.0f} MB"
            line += f" ({len(workers)} workers)"
        print(line)
    gap = statistics.median(float(r["first"]) for r in got["processes"]) - statistics.median(
        float(r["first"]) for r in got["threads"]
    )
    print(f"a first call in worker processes is {gap * 1000:.0f} ms slower than with threads")


if __name__ == "__main__":
    main()
