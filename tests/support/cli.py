"""Run the ``reverie`` command line in the test process, or in its own process where a real one is
the point.

`invoke` calls ``reverie.cli.main`` with argv, like ``python -m reverie`` but without the 0.3-0.4 s
of a new interpreter, and gives back what `subprocess.run` would: ``returncode``, ``stdout``,
``stderr`` (text, universal newlines). It sets up what a new process would have and puts back what a
run may change, so tests stay independent:

- ``os.environ`` (plus ``env``), the working directory (the repository root, as `run_cli` has),
  ``sys.argv``;
- stdin (``input``, else empty; never a terminal), stdout and stderr (pipes: no terminal, no
  colour);
- rich's module-level consoles, which read ``COLUMNS``, colour and terminal state when created:
  reset to what a console created now would read, then restored;
- logging (``main`` installs its handler on the ``reverie`` logger), signal handlers, the ``atexit``
  hook that ``main`` registers;
- threads: a run must not leave a non-daemon one behind (a new process would hang at exit on it);
  an idle worker of a ``ThreadPoolExecutor`` (``reverie.memory.offload``'s shared pool, created on
  a process's first async verb and kept for the next) is not one: interpreter exit wakes and joins
  those.

`run_cli` is the subprocess run, for what needs a real process: start-up time, imports in a fresh
interpreter, signals, a terminal.
"""

from __future__ import annotations

import atexit
import concurrent.futures.thread
import contextlib
import gc
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SIGNALS = [
    s
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGCHLD)
    if s is not None
]


@dataclass
class Result:
    """What `subprocess.run(..., capture_output=True, text=True)` returns, for a run in this
    process."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    threads: list[str] = field(
        default_factory=list
    )  # daemon threads the run left (a process's exit ends them)


def cli_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a ``python -m reverie`` process a test starts: this one's, the checkout
    first on ``PYTHONPATH``, then ``env``."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return full_env


def run_cli(
    *args: str, env: Mapping[str, str] | None = None, input: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m reverie`` in a subprocess, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "reverie", *args],
        capture_output=True,
        text=True,
        env=cli_env(env),
        input=input,
        timeout=timeout,
        cwd=str(ROOT),
    )


def invoke(
    *args: str,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    cwd: str | Path | None = None,
) -> Result:
    """Run ``reverie *args`` in this process; see the module docstring for what is set up and put
    back."""
    from reverie.cli import main

    argv = [str(a) for a in args]
    out, err = _pipe(), _pipe()
    with _restored(env, cwd, input, out, err) as before:
        try:
            code: int | str | None = main(argv)
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code
        except BaseException:  # what a new process prints, then exits 1 with
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    if code is None:
        returncode = 0
    elif isinstance(code, int):
        returncode = code
    else:  # SystemExit("message"): printed, exit 1
        err.write(f"{code}\n")
        err.flush()
        returncode = 1
    new = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    if any(not t.daemon and not _pool_worker(t) for t in new):  # a process would hang at exit
        raise AssertionError(f"`reverie {' '.join(argv)}` left threads running: {new}")
    return Result(["reverie", *argv], returncode, _text(out), _text(err), [t.name for t in new])


def _pool_worker(thread: threading.Thread) -> bool:
    """A ``ThreadPoolExecutor``'s worker: its exit hook (``concurrent.futures.thread``) tells each
    to stop and joins it, so a process does not hang on it. Whether a run left one depended on the
    test before it in the same process (the offload pool is created once), so ``demo --json``
    failed alone and passed after another async verb."""
    return thread in concurrent.futures.thread._threads_queues


def _pipe() -> io.TextIOWrapper:
    """A text stream like a pipe's: UTF-8, a ``buffer`` for bytes, not a terminal."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def _restored(
    env: Mapping[str, str] | None,
    cwd: str | Path | None,
    input: str | None,
    out: io.TextIOWrapper,
    err: io.TextIOWrapper,
) -> Iterator[set[threading.Thread]]:
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr, sys.argv
    saved_signals = {s: signal.getsignal(s) for s in _SIGNALS}
    saved_logging = _logging_state()
    threads = set(threading.enumerate())
    os.environ.update(env or {})
    os.chdir(cwd if cwd is not None else ROOT)
    sys.stdin = io.StringIO(input or "")
    sys.stdout, sys.stderr = out, err
    sys.argv = ["reverie"]
    consoles = _fresh_consoles()
    try:
        yield threads
    finally:
        _join_new_threads(threads)
        for console, state in consoles:
            console.__dict__.update(state)
        atexit.unregister(gc.freeze)  # main's exit-time speed-up: not for this process
        _restore_logging(saved_logging)
        for s, handler in saved_signals.items():
            signal.signal(s, handler)
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _join_new_threads(before: set[threading.Thread], timeout: float = 5.0) -> None:
    """Give threads the run started (an executor winding down) a moment to end, as process exit
    would."""
    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread not in before and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))


_CONSOLE_STATE = (
    "_width",
    "_height",
    "_color_system",
    "no_color",
    "is_interactive",
    "_force_terminal",
)


def _fresh_consoles() -> list[tuple[object, dict[str, object]]]:
    """Give every rich console the CLI created at import what a console created now would read
    (``COLUMNS``, ``NO_COLOR``, no terminal), as in a new process; return their old state to put
    back."""
    from rich.console import Console

    found: dict[int, Console] = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("reverie.") and module is not None:
            for value in vars(module).values():
                if isinstance(value, Console):
                    found[id(value)] = value
    saved = []
    for console in found.values():
        saved.append((console, {k: console.__dict__[k] for k in _CONSOLE_STATE}))
        fresh = Console(stderr=console.stderr)
        console.__dict__.update({k: fresh.__dict__[k] for k in _CONSOLE_STATE})
    return saved


def _logging_state() -> dict[str, tuple[list[logging.Handler], int, bool, bool]]:
    manager = logging.Logger.manager
    loggers = [logging.getLogger(), *manager.loggerDict.values()]
    return {
        lg.name: (list(lg.handlers), lg.level, lg.propagate, lg.disabled)
        for lg in loggers
        if isinstance(lg, logging.Logger)
    }


def _restore_logging(saved: dict[str, tuple[list[logging.Handler], int, bool, bool]]) -> None:
    for lg in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        if not isinstance(lg, logging.Logger):
            continue
        name = "root" if lg is logging.getLogger() else lg.name
        handlers, level, propagate, disabled = saved.get(name, ([], logging.NOTSET, True, False))
        for handler in lg.handlers:
            if handler not in handlers:
                handler.close()
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate, lg.disabled = propagate, disabled
