"""One ``Memory`` shared by several threads, in a process of its own (run by tests and bench, not
collected): a crash of the interpreter (SIGSEGV, SIGBUS) is then the test's failure, not the test
runner's death.

usage: python threads_proc.py <workspace> <mix> <threads> <rounds>

``mix`` is ``recall`` (every thread searches) or ``mixed`` (recall, remember, log, read, write,
status, context, why, in turn). Prints one JSON object: the errors each thread met (type and
message), the cursors ``remember`` acknowledged and the lines ``write`` committed.
"""

from __future__ import annotations

import faulthandler
import json
import sys
import threading

import reverie
from reverie.errors import MergeConflictError

faulthandler.enable()


def main(root: str, mix: str, threads: int, rounds: int) -> None:
    memory = reverie.open(root)
    errors: list[str] = []
    cursors: list[int] = []
    lines: list[str] = []
    start = threading.Barrier(threads)

    def worker(n: int) -> None:
        start.wait()
        for i in range(rounds):
            step = 0 if mix == "recall" else i % 8
            try:
                if step == 0:
                    memory.recall(f"Lisbon coffee {i % 7}")
                elif step == 1:
                    cursors.append(memory.remember(f"User: thread {n} round {i} says hello").cursor)
                elif step == 2:
                    memory.log(limit=5)
                elif step == 3:
                    memory.read("USER.md")
                elif step == 4:
                    line = f"- Thread {n} wrote line {i}."
                    for _ in range(20):
                        current = memory.read("memory/MEMORY.md")
                        try:
                            memory.write(
                                "memory/MEMORY.md",
                                current.rstrip("\n") + "\n" + line + "\n",
                                base=reverie.content_id(current),
                            )
                        except MergeConflictError:
                            continue
                        lines.append(line)
                        break
                elif step == 5:
                    memory.status()
                elif step == 6:
                    memory.context()
                else:
                    memory.why("hello")
            except Exception as exc:  # noqa: BLE001 - every error is the test's evidence
                errors.append(f"{type(exc).__name__}: {exc}")

    workers = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    memory.close()
    print(json.dumps({"errors": errors, "cursors": cursors, "lines": lines}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
