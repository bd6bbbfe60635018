"""What mem0's ``add`` costs here: ``add(text)`` (``infer=True``, mem0's default: one Dream run with
the offline engine) against ``add(text, infer=False)`` (record only), the floor, in the same run.

Usage::

    python bench/mem0_add.py [--adds 30] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import reverie  # noqa: E402


def measure(adds: int) -> None:
    medians = {}
    for infer in (False, True):
        with tempfile.TemporaryDirectory() as tmp, reverie.open(Path(tmp) / "ws") as memory:
            memory.init()
            took = []
            for i in range(adds):
                start = time.perf_counter()
                memory.add(f"I have a cat called Tom{i}.", infer=infer)
                took.append(time.perf_counter() - start)
            medians[infer] = statistics.median(took)
            p95 = sorted(took)[int(0.95 * (len(took) - 1))]
            name = "add (infer=True)" if infer else "add (infer=False)"
            print(f"{name:18s} median {medians[infer] * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms")
    print(f"learning at once costs {medians[True] / medians[False]:.1f}x recording only")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--adds", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="10 adds each")
    args = parser.parse_args(argv)
    measure(10 if args.quick else args.adds)


if __name__ == "__main__":
    main()
