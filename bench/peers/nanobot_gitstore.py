"""Peer workload run INSIDE a nanobot-ai virtual environment (imports only the standard library and
nanobot).

argv[1] is a JSON object: {"workspace": path, "reps": n, "round": k}. Each rep rewrites one line of
memory/MEMORY.md (untimed) and times ``GitStore.auto_commit`` (wall and CPU seconds). Prints one
JSON object.
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

from nanobot.utils.gitstore import GitStore  # noqa: E402


def main() -> None:
    args = json.loads(sys.argv[1])
    root = Path(args["workspace"])
    store = GitStore(root, tracked_files=["SOUL.md", "USER.md", "memory/MEMORY.md"])
    mem = root / "memory" / "MEMORY.md"
    base = mem.read_text()
    samples: list[float] = []
    cpu: list[float] = []
    for i in range(args["reps"]):
        mem.write_text(base.replace("item 7 ", f"item 7 (nanobot {args['round']}.{i}) ", 1))
        t0, c0 = time.perf_counter(), time.process_time()
        sha = store.auto_commit(f"dream: one line {args['round']}.{i}")
        samples.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if not sha:
            raise SystemExit("auto_commit made no commit")
    print(json.dumps({"version": version("nanobot-ai"), "samples": samples, "cpu": cpu}))


if __name__ == "__main__":
    main()
