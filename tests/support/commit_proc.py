"""One memory edit (``Memory.write``, a GitStore commit) in its own process, cut by a signal just
before its K-th change to the disk, for the commit tests (run by tests, not collected).

usage: python commit_proc.py <workspace> <signal name> <k>   (k 0: no signal; prints the count)
       python commit_proc.py --each <signal name> <workspace 1> <workspace 2> …

The audit hook counts what changes the disk (an ``open`` that can write, a rename or exchange, an
unlink) from the moment the edit starts; before the K-th, it sends the signal to this process.
SIGKILL ends it there; SIGINT and SIGTERM go to their usual handlers (``KeyboardInterrupt``; the
default action), as in a program that embeds Reverie.

``--each`` makes the edit in the N-th workspace cut before change N, each in a child forked from
this process once the same edit, uncut, has run in a scratch copy of the first (a fresh interpreter
importing Reverie for each cut cost a second; a test makes about 70). The child's stderr goes to
``<workspace>.stderr`` and its exit status, as ``subprocess`` reports it, is printed one a line. A
child ends as a fresh interpreter would: an uncaught ``KeyboardInterrupt`` prints its traceback
and ends the process by SIGINT, another exception prints its traceback and exits 1.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import traceback
from typing import Any

import reverie
from reverie.storage.fsutil import RENAME2_EVENT

_WRITE = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
counting = False
seen = 0
cut: tuple[int, int] = (0, 0)  # (before which change, which signal); 0: none


def hook(event: str, args: tuple[Any, ...]) -> None:
    global seen
    if not counting:
        return
    if event == "open" and (isinstance(args[0], int) or not (args[2] or 0) & _WRITE):
        return
    if event not in ("open", "os.rename", RENAME2_EVENT, "os.remove", "os.truncate"):
        return
    seen += 1
    if seen == cut[0]:
        os.kill(os.getpid(), cut[1])


def edit(ws: str) -> int:
    """The edit, cut as ``cut`` says: the count of changes to the disk it made."""
    global counting
    with reverie.open(ws) as memory:
        text = memory.read("USER.md")
        counting = True
        memory.write("USER.md", text + "- Keeps bees on the roof\n")
        counting = False
    return seen


def each(sig: int, workspaces: list[str]) -> None:
    global cut, seen
    with tempfile.TemporaryDirectory() as scratch:  # the same edit once, uncut, to load its modules
        shutil.copytree(workspaces[0], f"{scratch}/ws")
        edit(f"{scratch}/ws")
    seen = 0
    for k, ws in enumerate(workspaces, 1):
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            with open(f"{ws}.stderr", "w", encoding="utf-8") as err:
                os.dup2(err.fileno(), 2)
            try:
                cut = (k, sig)
                edit(ws)
            except KeyboardInterrupt:
                traceback.print_exc()
                sys.stderr.flush()
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGINT)
            except BaseException:  # noqa: BLE001 - as an uncaught exception ends a program
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), flush=True)


def main() -> None:
    global cut
    sys.addaudithook(hook)
    if sys.argv[1] == "--each":
        each(getattr(signal, sys.argv[2]), sys.argv[3:])
        return
    ws, name, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cut = (k, getattr(signal, name))
    print(edit(ws))


if __name__ == "__main__":
    main()
