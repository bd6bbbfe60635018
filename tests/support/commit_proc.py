"""One memory edit (``Memory.write``, a GitStore commit) in its own process, cut by a signal just
before its K-th change to the disk, for the commit tests (run by tests, not collected).

usage: python commit_proc.py <workspace> <signal name> <k>   (k 0: no signal; prints the count)

The audit hook counts what changes the disk (an ``open`` that can write, a rename or exchange, an
unlink) from the moment the edit starts; before the K-th, it sends the signal to this process.
SIGKILL ends it there; SIGINT and SIGTERM go to their usual handlers (``KeyboardInterrupt``; the
default action), as in a program that embeds Reverie.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import reverie
from reverie.storage.fsutil import RENAME2_EVENT

_WRITE = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
counting = False
seen = 0


def main() -> None:
    ws, name, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sig = getattr(signal, name)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        global seen
        if not counting:
            return
        if event == "open" and (isinstance(args[0], int) or not (args[2] or 0) & _WRITE):
            return
        if event not in ("open", "os.rename", RENAME2_EVENT, "os.remove", "os.truncate"):
            return
        seen += 1
        if seen == k:
            os.kill(os.getpid(), sig)

    sys.addaudithook(hook)
    with reverie.open(ws) as memory:
        text = memory.read("USER.md")
        global counting
        counting = True
        memory.write("USER.md", text + "- Keeps bees on the roof\n")
        counting = False
    print(seen)


if __name__ == "__main__":
    main()
