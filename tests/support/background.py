"""Slow checks that are a process of their own (mypy over the package, the crash-consistency
harness), started as soon as collection ends so they run on the machine's other core while the rest
of the suite runs; the test that owns one waits for its result and asserts on it. A check whose test
was not collected is not started; a session that ends first (``-x``, Ctrl-C) kills what is still
running.

Each runs in the isolation ``conftest._isolated_home`` gives a test: no ``REVERIE_*`` setting of the
caller but the ones named here, a home directory of its own, no provider key.

Under pytest-xdist each worker collects the whole suite, but a check must run once: the controller
(which runs no test) starts them when the first worker reports its collection, writing each one's
output and exit code to files in a directory it hands every worker (`share`); the test that owns a
check, in whichever worker, waits for those files (`attach`).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Check:
    test: str  # the node id's end: "file.py::test_name"
    argv: Callable[[Path], list[str]]  # the command, given a work directory of its own
    keep_env: tuple[str, ...] = ()  # REVERIE_* variables the check reads from the caller


@dataclass
class Done:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    workdir: Path


CHECKS = {
    "mypy": Check(
        "test_lint.py::test_mypy_strict_on_the_package",
        lambda _: [sys.executable, "-m", "mypy"],
    ),
    "crash": Check(
        "test_crash_consistency.py::test_pipeline_survives_a_sigkill_after_every_step",
        lambda work: [
            sys.executable,
            "-m",
            "tests.support.crash_harness",
            str(work),
            "--every-step",
            "--quiet",
            "3",
            "--seed",
            os.environ.get("REVERIE_CRASH_SEED", "2026"),
        ],
        keep_env=("REVERIE_CRASH_SEED",),
    ),
}


@dataclass
class _Running:
    argv: list[str]
    proc: subprocess.Popen[bytes]
    out: IO[bytes]
    err: IO[bytes]
    workdir: Path


_running: dict[str, _Running] = {}
_workdirs: list[Path] = []
_shared: Path | None = None  # xdist: where the controller writes results, or a worker reads them
_owner = False  # whether this process starts the checks it shares (the xdist controller)


def owns(nodeid: str) -> bool:
    """Whether the test waits for a check (such tests run last, giving the check the whole
    suite's time)."""
    return any(nodeid.endswith(check.test) for check in CHECKS.values())


def share() -> Path:
    """The xdist controller: the directory its checks' results go to, for `attach` in each
    worker."""
    global _shared, _owner
    if _shared is None:
        _shared = Path(tempfile.mkdtemp(prefix="reverie-checks-"))
        _workdirs.append(_shared)
        _owner = True
    return _shared


def attach(shared: Path) -> None:
    """An xdist worker: read the checks' results from the controller's directory (`share`)."""
    global _shared
    _shared = shared


def start(nodeids: Iterable[str]) -> None:
    """Start the check of every collected test that has one (in an xdist worker: none, the
    controller does)."""
    if _shared is not None and not _owner:
        return
    ids = list(nodeids)
    for name, check in CHECKS.items():
        if name not in _running and any(i.endswith(check.test) for i in ids):
            _start(name)  # the controller keeps it in _running: each worker's report starts it once


def _start(name: str) -> None:
    check = CHECKS[name]
    work = Path(tempfile.mkdtemp(prefix=f"reverie-{name}-"))
    _workdirs.append(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update({k: os.environ[k] for k in check.keep_env if k in os.environ})
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        env.pop(key, None)
    (work / "home").mkdir()
    env["REVERIE_HOME"] = str(work / "home")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    (work / "run").mkdir()
    argv = check.argv(work / "run")
    if _owner:
        assert _shared is not None
        out, err = open(_shared / f"{name}.out", "w+b"), open(_shared / f"{name}.err", "w+b")
        (_shared / f"{name}.argv").write_text("\0".join([str(work / "run"), *argv]))
    else:
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=err,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,
    )
    _running[name] = _Running(argv, proc, out, err, work / "run")
    if _owner:
        threading.Thread(target=_publish, args=(name, proc), daemon=True).start()


def _publish(name: str, proc: subprocess.Popen[bytes]) -> None:
    """The controller: write the exit code once the check ends (renamed into place: a reader never
    sees half of it)."""
    code = proc.wait()
    assert _shared is not None
    tmp = _shared / f"{name}.rc.tmp"
    tmp.write_text(str(code))
    tmp.rename(_shared / f"{name}.rc")


def _die_with_parent() -> None:
    """A session killed outright (SIGTERM, SIGKILL, a CI timeout) runs no teardown: the kernel
    ends the check."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def result(name: str, timeout: float = 600) -> Done:
    """Wait for a check (starting it now if collection did not) and return how it ended."""
    if _shared is not None and not _owner and (_shared / f"{name}.argv").exists():
        return _shared_result(_shared, name, timeout)
    if name not in _running:
        _start(name)
    run = _running.pop(name)
    try:
        run.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        run.proc.kill()
        run.proc.wait()
        raise
    return Done(run.argv, run.proc.returncode, _read(run.out), _read(run.err), run.workdir)


def _shared_result(shared: Path, name: str, timeout: float) -> Done:
    """An xdist worker: wait for the exit code the controller writes (`_publish`), then read the
    output."""
    work, *argv = (shared / f"{name}.argv").read_text().split("\0")
    deadline = time.monotonic() + timeout
    while not (shared / f"{name}.rc").exists():
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(argv, timeout)
        time.sleep(0.1)
    code = int((shared / f"{name}.rc").read_text())
    text = [
        (shared / f"{name}.{part}").read_bytes().decode("utf-8", errors="replace")
        for part in ("out", "err")
    ]
    return Done(argv, code, text[0], text[1], Path(work))


def _read(stream: IO[bytes]) -> str:
    stream.seek(0)
    text = stream.read().decode("utf-8", errors="replace")
    stream.close()
    return text


def stop_all() -> None:
    """Kill what is still running and remove the work directories (the session is over)."""
    while _running:
        _, run = _running.popitem()
        run.proc.kill()
        run.proc.wait()
        run.out.close()
        run.err.close()
    while _workdirs:
        shutil.rmtree(_workdirs.pop(), ignore_errors=True)
