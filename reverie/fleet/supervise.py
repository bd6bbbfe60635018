"""``reverie fleet worker`` keeps its Celery worker running: it runs it as a child process and
starts it again when it exits on its own.

Why: a Celery worker can exit for good on a broker fault it does not count as a connection error.
Seen here (issue 35's attack): with Redis killed while jobs were in flight, kombu's Redis transport
restored the unacknowledged messages of a channel whose connection Celery had already collected
(``Connection.collect`` clears the transport's client), and ``Channel._connparams`` raised
``AttributeError: 'NoneType' object has no attribute 'hostname'`` — an "Unrecoverable error" that
ends the worker, which then drains nothing when Redis comes back (the same failure is reported
upstream: celery/kombu issues 582 and 970). It is a race in kombu, not reproducible on demand (10
runs here with kombu 5.7.0 survived), so no setting prevents it; a supervisor does. The messages
it held are not lost: their claims lapse and the dispatcher sends them again.

The worker runs in a process group of its own, so a signal a terminal sends to its foreground group
(Ctrl-C) reaches the supervisor only, which forwards it once: reaching both, Celery took the
forwarded copy for a second Ctrl-C and shut down cold (tasks cancelled). The supervisor forwards
SIGTERM, SIGINT and SIGQUIT to the worker, and SIGHUP (the terminal closed) as SIGTERM, and exits
with it when told to stop (one line, and the shell's status for the signal: 128 + its number, as
every command); a worker that exits by itself is started again after a back-off (1 s, doubling
up to 60 s, back to 1 s once a worker has run a minute), one line each time. Under systemd or
Kubernetes, which restart a process themselves, ``--no-supervise`` runs Celery in the foreground
instead.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType

from ..backoff import capped_backoff

__all__ = ["supervise", "follow_supervisor", "CHILD_ENV"]

log = logging.getLogger(__name__)

#: Set in the worker child's environment: that process runs Celery itself.
CHILD_ENV = "REVERIE_FLEET_WORKER_CHILD"
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)
#: What the worker is sent for a signal the supervisor gets (Celery restarts itself on SIGHUP).
_AS: dict[int, int] = {signal.SIGHUP: signal.SIGTERM}


def follow_supervisor(every: float = 1.0) -> None:
    """In the worker child: stop (SIGTERM to itself, a warm shutdown) once the supervisor is gone.
    The child is in a process group of its own, so a supervisor killed outright (SIGKILL, the OOM
    killer) would otherwise leave it running, unsupervised, with nobody to stop it."""
    import os

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="reverie-follow-supervisor", daemon=True).start()


def supervise(
    argv: Sequence[str],
    env: dict[str, str],
    *,
    say: Callable[[str], None],
    first_backoff: float = 1.0,
    max_backoff: float = 60.0,
    healthy_after: float = 60.0,
    stop: threading.Event | None = None,
) -> int:
    """Run ``argv`` (the worker) with ``env`` until a forwarded signal stops it; returns 128 + that
    signal's number then (its exit code when ``stop`` was set without one). A run that exits by
    itself is started again after a doubling back-off."""
    stop = stop or threading.Event()
    child: list[subprocess.Popen[bytes]] = []
    caught: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)
        # set from a thread: the handler runs in the main thread, maybe inside `stop.wait`'s own
        # lock, which `set` takes too
        threading.Thread(target=stop.set, daemon=True).start()
        if child and child[0].poll() is None:
            child[0].send_signal(_AS.get(signum, signum))

    def stopped(code: int) -> int:
        if not caught:
            return code
        name = signal.Signals(caught[0]).name
        say(f"reverie fleet worker: stopped by {name} (the Celery worker exited with {code})")
        return 128 + caught[0]

    previous = {s: signal.signal(s, forward) for s in _FORWARDED}
    exits = 0  # exits in a row, each after a short run (the back-off's count)
    try:
        while True:
            started = time.monotonic()
            # its own process group: a terminal's Ctrl-C reaches it once, through `forward`
            proc = subprocess.Popen(list(argv), env={**env, CHILD_ENV: "1"}, process_group=0)
            child[:] = [proc]
            say(f"reverie fleet worker: Celery worker started (pid {proc.pid})")
            code = proc.wait()
            if stop.is_set() or caught:
                return stopped(code)
            exits = 1 if time.monotonic() - started >= healthy_after else exits + 1
            backoff = capped_backoff(exits, first_backoff, max(max_backoff, first_backoff))
            say(
                f"reverie fleet worker: the Celery worker exited by itself (exit code {code}); "
                f"starting it again in {backoff:g}s"
            )
            if stop.wait(backoff):
                return stopped(code)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
