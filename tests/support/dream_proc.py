"""A Dream run in its own process, for crash-injection and run-lock tests (run by tests, not
collected).

usage: python dream_proc.py <workspace> crash <point>      run with a crash (os._exit(77)) at a
fault point
       python dream_proc.py <workspace> race <ready-dir> <n> wait for n ready files, then run;
       print the status
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from reverie.dream import transaction
from support.dream_helpers import MEM, edit, make_env


def main() -> None:
    root, mode = Path(sys.argv[1]), sys.argv[2]
    if mode == "crash":
        point = sys.argv[3]
        env = make_env(
            root, name=f"proc{os.getpid()}", max_attempts=1 if point == "dead-lettered" else 3
        )
        transaction.fault = lambda p: os._exit(77) if p == point else None
        if point == "dead-lettered":
            # A failure the policy calls final, as it does litellm's BadRequestError, without
            # importing litellm into this process (seconds of CPU) for an error's type: an
            # in-process model's own exception (``client._classify``).
            env.fake.enqueue(RuntimeError("always fails"))
        else:
            env.fake.enqueue(
                "[USER] Lives in Berlin", [edit("USER.md", "", "- Lives in Berlin\n")], "done"
            )
        result = asyncio.run(env.dream().run())
        print(result.status, result.reason)
        sys.exit(0)
    if mode == "race":
        env = make_env(root, name=f"proc{os.getpid()}")
        ready, n = Path(sys.argv[3]), int(sys.argv[4])
        (ready / str(os.getpid())).touch()
        while len(list(ready.iterdir())) < n:
            time.sleep(0.01)

        def slow_skip(prompt):
            time.sleep(1.5)
            return "[MEMORY] fact"

        env.fake.enqueue(slow_skip, [edit(MEM, "", "- fact\n")], "done")
        print(asyncio.run(env.dream().run()).status)


if __name__ == "__main__":
    main()
