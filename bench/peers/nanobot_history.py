"""Peer workload run INSIDE a nanobot-ai virtual environment (imports only the standard library and
nanobot).

argv[1] is a JSON object:
  {"reads": [[workspace, since_cursor], ...], "budget": seconds per read size,
   "min_reps": n, "max_reps": n,
   "append": {"workspace": path, "blocks": n, "block_size": n, "text": str} | null}
Prints one JSON object: per read size the raw seconds per call and the cursors returned (for a
correctness cross-check), and for appends the appends/s of each block.
"""

from __future__ import annotations

import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

try:  # nanobot logs through loguru to stderr; keep the run quiet
    from loguru import logger

    logger.remove()
except ImportError:
    pass

from nanobot.agent.memory import MemoryStore  # noqa: E402


def main() -> None:
    args = json.loads(sys.argv[1])
    out: dict = {"version": version("nanobot-ai"), "reads": [], "append": None}
    for workspace, since in args.get("reads", []):
        store = MemoryStore(Path(workspace))
        first = store.read_unprocessed_history(since)  # warm-up (and the page cache), untimed
        samples: list[float] = []
        start = time.perf_counter()
        while len(samples) < args["min_reps"] or (
            time.perf_counter() - start < args["budget"] and len(samples) < args["max_reps"]
        ):
            t0 = time.perf_counter()
            store.read_unprocessed_history(since)
            samples.append(time.perf_counter() - t0)
        out["reads"].append(
            {
                "workspace": workspace,
                "since": since,
                "samples": samples,
                "cursors": [e["cursor"] for e in first],
            }
        )
    spec = args.get("append")
    if spec:
        store = MemoryStore(Path(spec["workspace"]))
        rates = []
        for _ in range(spec["blocks"]):
            t0 = time.perf_counter()
            for _ in range(spec["block_size"]):
                store.append_history(spec["text"])
            rates.append(spec["block_size"] / (time.perf_counter() - t0))
        out["append"] = {"rates": rates, "last_cursor": store._next_cursor() - 1}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
