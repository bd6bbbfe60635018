"""Signals end every command the way a shell and a service manager expect, from the first
instant Reverie runs:

- Ctrl-C while the command line's own modules are still being imported (the ~50 ms before
  ``reverie.cli`` installs its handlers) prints one line, never Python's traceback, and the process
  dies by the signal: the console entry point (``reverie._start``, named in pyproject.toml) installs
  its handler before it imports anything of the command line. The signal is raised by an import
  hook at the exact moment ``reverie.cli`` is imported, so the test is deterministic.
- Ctrl-C at a terminal goes to the whole foreground process group: the supervisor of ``fleet
  worker`` must be the only one to pass it on to its worker (once), or Celery takes the second copy
  for a second Ctrl-C and shuts down cold. The worker here is a process counting the SIGINTs it
  gets; the signal goes to the supervisor's process group, as a terminal sends it.
- ``fleet worker --no-supervise`` (a real Celery worker on a real Redis) stopped by SIGTERM exits
  143, not 0: a shell or systemd sees the signal; a supervised worker whose supervisor is killed
  outright stops by itself.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

from support.fleet import Proc, fleet_env, wait_for

ROOT = Path(__file__).resolve().parent.parent

_DURING_IMPORT = """
import importlib, os, signal, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == "reverie.cli":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, while the command line is imported
        return None
sys.meta_path.insert(0, Hook())
module, func = sys.argv[1].split(":")
sys.argv = ["reverie", "--help"]
sys.exit(getattr(importlib.import_module(module), func)())
"""


def test_ctrl_c_while_the_command_line_is_imported_prints_one_line_and_no_traceback() -> None:
    with open(ROOT / "pyproject.toml", "rb") as f:
        entry = tomllib.load(f)["project"]["scripts"]["reverie"]
    done = subprocess.run(
        [sys.executable, "-c", _DURING_IMPORT, entry],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert done.stderr == "reverie: interrupted\n"
    assert done.returncode in (-signal.SIGINT, 130)


_COUNTING_WORKER = """
import signal, sys, time
got = []
signal.signal(signal.SIGINT, lambda *_: got.append(1))
print("ready", flush=True)
end = time.monotonic() + 20
while time.monotonic() < end and not got:
    time.sleep(0.01)
time.sleep(0.5)  # a second copy of the signal would land here
print(f"sigints {len(got)}", flush=True)
sys.exit(0)
"""

_SUPERVISOR = """
import sys
from reverie.fleet.supervise import supervise
sys.exit(supervise([sys.executable, "-c", sys.argv[1]], {}, say=print))
"""


def test_a_terminals_ctrl_c_reaches_the_supervised_worker_once(tmp_path: Path) -> None:
    log = tmp_path / "out.log"
    with open(log, "wb") as out:
        sup = subprocess.Popen(
            [sys.executable, "-c", _SUPERVISOR, _COUNTING_WORKER],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            start_new_session=True,  # its own group: the terminal's foreground group here
        )
        try:
            wait_for(lambda: "ready" in log.read_text(), 30, "the worker to start")
            os.killpg(sup.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
            assert sup.wait(timeout=30) == 130
        finally:
            if sup.poll() is None:
                os.killpg(sup.pid, signal.SIGKILL)
                sup.wait()
    assert "sigints 1" in log.read_text(), log.read_text()


def test_a_worker_stopped_by_sigterm_exits_143_and_one_left_alone_stops(
    tmp_path: Path, redis_server
) -> None:
    """Two real workers started at once: ``--no-supervise`` stopped by SIGTERM exits 143; a
    supervised one whose supervisor is SIGKILLed (its worker is in a group of its own) stops by
    itself within seconds (``follow_supervisor``), never left running unsupervised."""
    env = fleet_env(tmp_path / "root", redis_server, TMPDIR=str(tmp_path))
    base = [sys.executable, "-m", "reverie", "fleet", "worker"]
    plain = Proc([*base, "--no-supervise", "--name", "plain"], env, tmp_path / "plain.log")
    sup = Proc([*base, "--name", "sup"], env, tmp_path / "sup.log")
    try:
        for proc in (plain, sup):
            wait_for(lambda p=proc: "ready" in p.text(), 90, "Celery to be ready")
        child = int(re.findall(r"Celery worker started \(pid (\d+)\)", sup.text())[0])
        plain.p.send_signal(signal.SIGTERM)  # the process only, as systemd's stop does
        os.kill(sup.p.pid, signal.SIGKILL)  # the supervisor only, killed outright
        assert plain.p.wait(timeout=60) in (143, -signal.SIGTERM), plain.text()[-2000:]
        wait_for(lambda: not _alive(child), 30, "the unsupervised worker to stop")
    finally:
        plain.stop(signal.SIGKILL)
        sup.stop(signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie (exited, not yet reaped by init) is gone
        return f.read().split(") ")[-1][:1] != "Z"
