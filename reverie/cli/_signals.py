"""How a command ends on SIGINT (Ctrl-C) or SIGTERM: one line on stderr and the conventional exit
status, 128 + the signal (130, 143), never a traceback.

SIGTERM does what Ctrl-C does (`handled`): its handler raises SIGINT again in the process, so
whatever handles SIGINT at that moment handles it — Python's ``KeyboardInterrupt`` where a command
simply runs, ``asyncio.run``'s handler (it cancels the main task, every ``finally`` and cleanup of
the run goes on, then ``KeyboardInterrupt``) in a command on an event loop, the chat's handler (it
cancels the turn), a server's own. An exception raised straight from a SIGTERM handler landed
inside whatever task ran at that moment, where a library caught and logged it (APScheduler's job
executor printed its traceback, and the chat went on). `reverie.cli.main` says which of the two
it was (`last`) in one line. What a write leaves half-made is then what a killed process leaves,
and every write is made to survive that (atomic replaces, appends with torn-tail repair, Dream's
crash-safe order). Commands that stop cleanly on a signal (``serve``, ``fleet dispatch``, ``fleet
status --watch``) catch it themselves with `stopping`, finish, then end with the same status.

While the command line is parsed the signals are held (`held`, which is
``reverie.storage.signals.deferred_signals``): parsing imports the command's module and its C
extensions, and a KeyboardInterrupt raised inside one's initialisation crashed the process
(orjson's, SIGSEGV, seen here). A held signal is raised again when parsing ends.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from ..storage.signals import deferred_signals as held

__all__ = ["handled", "held", "stopping", "last", "terminated", "exit_status", "end_by", "SAID"]

#: The signals a command ends on, and the word its one line says.
SAID: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


#: The signal the running command was told to stop by (`handled` clears it).
_last: list[int] = []


def last() -> int:
    """The signal that stopped the command: SIGTERM if one came, else SIGINT."""
    return signal.SIGTERM if signal.SIGTERM in _last else signal.SIGINT


def terminated() -> bool:
    """Whether SIGTERM came (a handler that takes SIGINT to mean "cancel this step" ends the
    command instead)."""
    return signal.SIGTERM in _last


def exit_status(signum: int) -> int:
    """The shell's status for a process ended by ``signum``: 128 + its number."""
    return 128 + signum


def _as_sigint(signum: int, frame: FrameType | None) -> None:
    _last.append(signum)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt  # nobody takes SIGINT (a shell's background job): stop here
    signal.raise_signal(signal.SIGINT)


@contextmanager
def handled(*, restore: bool = True) -> Iterator[None]:
    """Within, SIGTERM does what SIGINT does (see the module's docstring). ``restore``: put the
    previous handlers back after (`main` called in a test's process); when False (the process's own
    entry point) both signals end the process at once after the block: it is exiting, and a
    signal during the interpreter's shutdown would print a traceback."""
    _last.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if not restore:
        atexit.register(_die_if_told)
    previous = {
        signal.SIGINT: signal.getsignal(signal.SIGINT),
        signal.SIGTERM: signal.signal(signal.SIGTERM, _as_sigint),
    }
    if not restore and previous[signal.SIGINT] is not signal.SIG_IGN:
        # the entry point's start-up handler (reverie._start) hands over to Python's own
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler if restore else signal.SIG_DFL)


#: The signal the process is to end by (`end_by`), once its exit handlers have run.
_end: list[int] = []


def end_by(status: int) -> None:
    """The process's entry point ending with ``status`` 130 or 143 ends by that signal instead,
    once the interpreter has run its other exit handlers and flushed what the command printed: a
    shell sees the same 130 or 143 (and a script's loop stops, as for any command Ctrl-C ended),
    and a service manager sees the stop it asked for, not a failure (systemd counts an exit status
    of 143 as one unless told otherwise, and a death by SIGTERM as a clean stop). Any other status
    is left alone. Takes effect within `handled` (``restore=False``), which registers the exit
    handler first, so it runs last."""
    if status - 128 in SAID:
        _end[:] = [status - 128]


def _die_if_told() -> None:
    if not _end:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed, or a pipe nobody reads
            pass
    signal.signal(_end[0], signal.SIG_DFL)
    os.kill(os.getpid(), _end[0])


@contextmanager
def stopping(stop: Callable[[], object]) -> Iterator[list[int]]:
    """Within, SIGINT and SIGTERM call ``stop`` instead of raising; yields the list of the signals
    caught, for the command to end with `exit_status` of the first one once it has stopped.
    ``stop`` runs on a thread of its own: a handler runs in the main thread between two bytecodes,
    maybe while that thread holds the lock ``stop`` takes (``threading.Event.set`` inside the
    main thread's ``Event.wait`` deadlocked)."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)
        threading.Thread(target=stop, name="reverie-stop", daemon=True).start()

    previous = {s: signal.signal(s, on_signal) for s in SAID}
    try:
        yield caught
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
