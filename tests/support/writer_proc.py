"""Memory-file writers for the concurrent-writers property test (run by tests, not collected).

usage: python writer_proc.py <workspace> <name> <n> <seed>   n appends and pin toggles from another
process; prints
                                                             the lines it committed, one a line

Each writer follows the one writer protocol (``GitStore.commit`` with the ``base`` it read): appends
to its own section of MEMORY.md and toggles the pin of its own USER.md line; a conflict is re-read
and tried again.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from reverie.dream.pins import pin
from reverie.errors import MergeConflictError
from reverie.gitstore import GitStore
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace

MEM = "memory/MEMORY.md"
TRIES = 20


def section(name: str) -> str:
    return f"## Writer {name}"


def append(ws: Workspace, git: GitStore, name: str, line: str) -> bool:
    """Add ``line`` at the end of the writer's own section (read, change, commit with ``base``);
    True once committed."""
    for _ in range(TRIES):
        before = ws.read(MEM)
        rows = before.split("\n")
        at = rows.index(section(name)) + 1
        while at < len(rows) and rows[at].startswith("- "):
            at += 1
        rows.insert(at, line)
        try:
            git.commit(
                f"manual: {name} adds a line",
                kind="manual",
                files={MEM: "\n".join(rows)},
                base={MEM: before},
            )
        except MergeConflictError:
            continue
        return True
    return False


def toggle_pin(ws: Workspace, git: GitStore, name: str, pinned: bool) -> None:
    for _ in range(TRIES):
        try:
            pin(ws, git, f"writer {name} likes", pinned=pinned)
            return
        except MergeConflictError:
            continue


def work(root: Path, name: str, n: int, seed: int) -> list[str]:
    ws = Workspace(root)
    git = GitStore(ws, Config().git)
    rnd = random.Random(seed)
    done = []
    for i in range(n):
        line = (
            f"- Writer {name} learned fact number {i:02d} about"
            f" {rnd.choice(['maps', 'tea', 'rust', 'kafka'])}"
        )
        if append(ws, git, name, line):
            done.append(line)
        if rnd.random() < 0.5:
            toggle_pin(ws, git, name, pinned=rnd.random() < 0.5)
    return done


if __name__ == "__main__":
    root, name, n, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    print("\n".join(work(root, name, n, seed)))
