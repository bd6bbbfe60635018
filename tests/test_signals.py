"""Ctrl-C (SIGINT) and SIGTERM end every long-running command with one line and the shell's
status for the signal (130, 143: the process ends by the signal once it has exited cleanly, so
``returncode`` is minus the signal), never a traceback, and leave memory consistent: an interrupted
Dream's commits, cursor and files agree, and the next run picks up where it stopped (no batch
lost, none committed twice). Real processes, real signals (``reverie.cli._signals``).

Signals end every command the way a shell and a service manager expect, from the first
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
  outright stops by itself."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from support.cli import ROOT, invoke
from support.fleet import Proc, batches_committed, fleet_env, git, wait_for
from support.fleet_fixtures import needs_redis

LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["REVERIE_HOME"] = str(home)
    env["REVERIE_MEMORY__HISTORY__FSYNC"] = "false"
    env.pop("REVERIE_DEBUG", None)
    return env


def _start(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", *args],
        env=env,
        cwd=str(ROOT),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.flush()
    return proc


def _ended(proc: subprocess.Popen[str], sig: int, timeout: float = 60) -> tuple[str, str]:
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running {timeout}s after {signal.Signals(sig).name}: {err[-2000:]}")
    assert "Traceback" not in err, err
    # ended by the signal, after its clean exit: a shell's $? is 128 + the signal (130, 143)
    assert proc.returncode == -sig, (proc.returncode, err)
    return out, err


def _lines() -> list[str]:
    """User turns of public conversations (not written for these tests)."""
    data = json.loads(LOCOMO.read_text()) if LOCOMO.exists() else []
    out = []
    for conv in data:
        c = conv.get("conversation", conv)
        for key, turns in c.items():
            if key.startswith("session_") and isinstance(turns, list):
                out += ["I " + t["text"].replace("\n", " ") for t in turns if t.get("text")]
    return out or [f"I moved to city number {i} and I work at firm {i}." for i in range(400)]


@pytest.fixture
def backlog(tmp_path: Path) -> Path:
    """A workspace with 100 history entries pending (five of Dream's batches: the signal comes after
    the first is committed, with four to go)."""
    import reverie
    from reverie.storage.config import Config

    config = Config()
    config.memory.history.fsync = False
    ws = tmp_path / "ws"
    with reverie.open(ws, config=config) as memory:
        memory.init()
        for line in _lines()[:100]:
            memory.remember(line)
    return ws


def _dream_commits(ws: Path) -> int:
    return len(batches_committed(ws))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_dream_stopped_by_a_signal_says_one_line_and_the_next_run_picks_up(
    backlog, tmp_path, sig
):
    env = _env(tmp_path / "home")
    proc = _start(env, "-w", str(backlog), "dream", "--all", "--json")
    wait_for(lambda: _dream_commits(backlog) >= 1 or proc.poll() is not None, 60, "a commit")
    assert proc.poll() is None, "Dream ended before the signal: the backlog is too small"
    out, err = _ended(proc, sig)
    said = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}[sig]
    assert err == f"reverie: {said}\n"
    assert out == ""
    # consistent: nothing tracked is left modified or staged, the cursor is the last commit's batch
    assert git(backlog, "status", "--porcelain").stdout == ""
    done = batches_committed(backlog)
    status = json.loads(_run(env, "-w", str(backlog), "status", "--json").stdout)
    assert status["dream_cursor"] >= max(b for _, b in done), status  # no-change batches: no commit
    assert status["problems"] == [], status["problems"]
    # the next run picks up: every entry dreamed exactly once
    again = _run(env, "-w", str(backlog), "dream", "--all", "--json")
    assert again.returncode == 0, again.stderr
    batches = sorted(batches_committed(backlog))
    covered = [n for a, b in batches for n in range(a, b + 1)]
    assert covered == sorted(set(covered)), f"a batch committed twice: {batches}"
    assert json.loads(_run(env, "-w", str(backlog), "status", "--json").stdout)["pending"] == 0


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reverie", *args],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_stops_on_a_signal_with_its_status(tmp_path, sig):
    env = _env(tmp_path / "home")
    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init", env=env).returncode == 0  # set-up: in this process
    proc = _start(env, "-w", str(ws), "serve")
    assert proc.stdout is not None
    assert "reverie serve:" in proc.stdout.readline()  # the handlers are in place once it says so
    out, err = _ended(proc, sig)
    said = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}[sig]
    assert out.strip().splitlines()[-1] == f"reverie serve: stopped ({said})"
    assert err == ""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_piped_chat_ends_on_a_signal_in_one_line(tmp_path, sig):
    """A chat reading its messages from a pipe, stopped while it works through them."""
    env = _env(tmp_path / "home")
    ws = tmp_path / "ws"
    messages = "\n".join(_lines()[:300]) + "\n"
    proc = _start(env, "-w", str(ws), "chat", stdin=messages)
    wait_for(lambda: (ws / "sessions").is_dir() or proc.poll() is not None, 60, "a session")
    assert proc.poll() is None
    time.sleep(0.3)
    _, err = _ended(proc, sig)
    assert err.splitlines()[-1] == (
        "reverie: interrupted" if sig == signal.SIGINT else "reverie: terminated"
    )
    # the workspace reads back whole: no damaged session or history file
    status = json.loads(_run(env, "-w", str(ws), "status", "--json").stdout)
    assert status["problems"] == [], status["problems"]


def test_signals_during_parsing_are_held_and_raised_after(tmp_path):
    """In process: a SIGTERM arriving while the command line is parsed (the command's modules
    being imported) is raised once parsing ends, as an interrupt that says "terminated"."""
    from reverie.cli import _signals

    with pytest.raises(KeyboardInterrupt), _signals.handled():
        with _signals.held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # delivered here, and only noted
            reached = True
    assert reached
    assert _signals.last() == signal.SIGTERM


def test_main_in_process_puts_the_handlers_back(tmp_path):
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    assert invoke("-w", str(tmp_path / "ws"), "init").returncode == 0
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


# -- the fleet's long-running commands, against a real redis-server --------------------------------


@pytest.fixture
def fleet_root(tmp_path, redis_server):
    pytest.importorskip("celery", reason="the `fleet` extra is not installed")
    from support.fleet import fleet_env

    root = tmp_path / "root"
    root.mkdir()
    env = fleet_env(root, redis_server, REVERIE_HOME=str(tmp_path / "home"))
    assert _run(env, "fleet", "init", "--kind", "plain").returncode == 0
    return env


def _started(proc: subprocess.Popen[str], stream: str, text: str, timeout: float = 60) -> None:
    """Wait until the process says ``text`` on ``stream`` (its handlers are in place then)."""
    pipe = proc.stdout if stream == "stdout" else proc.stderr
    assert pipe is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = pipe.readline()
        if text in line:
            return
        if not line and proc.poll() is not None:
            pytest.fail(f"ended before saying {text!r}")
    pytest.fail(f"never said {text!r}")


@needs_redis
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_fleet_dispatch_stops_on_a_signal_in_one_line(fleet_root, sig):
    """It said "interrupted" by a traceback (a Ctrl-C before its loop) or exited 0 (in it)."""
    proc = _start(fleet_root, "fleet", "dispatch")
    _started(proc, "stdout", "Ctrl-C to stop")
    time.sleep(0.5)  # a few ticks
    _, err = _ended(proc, sig)
    said = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}[sig]
    assert err.splitlines()[-1] == f"reverie fleet dispatch: stopped ({said})"


@needs_redis
def test_fleet_status_watch_stops_on_sigterm_with_its_status(fleet_root):
    proc = _start(fleet_root, "fleet", "status", "--watch", "--json", "--every", "0.2")
    _started(proc, "stdout", '"in_flight"')
    _, err = _ended(proc, signal.SIGTERM)
    assert err.splitlines()[-1] == "reverie fleet status: stopped (terminated)"


@needs_redis
def test_a_supervised_fleet_worker_stops_on_sigterm_with_143(fleet_root):
    """The supervisor forwards the signal to Celery (a warm shutdown, exit 0) and ends with the
    signal's status, not Celery's 0."""
    proc = _start(fleet_root, "fleet", "worker", "-c", "1", "--pool", "solo")
    _started(proc, "stderr", "ready.", timeout=90)
    _, err = _ended(proc, signal.SIGTERM)
    assert err.splitlines()[-1].startswith("reverie fleet worker: stopped by SIGTERM")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_consolidation_stopped_while_the_model_summarises_loses_nothing(tmp_path, sig):
    """``reverie consolidate KEY`` stopped while its model call is in flight: one line, 130 or
    143; the conversation keeps every message and its offset, history has nothing half-written,
    and the next run consolidates it."""
    import reverie

    ws = tmp_path / "ws"
    said = [{"role": "user", "content": line} for line in _lines()[:40]]
    with reverie.open(ws) as memory:
        memory.init()
        memory.record("cli:talk", said, consolidate=False)
        before = (memory.pending(), len(memory.messages("cli:talk", archived=True)))
    env = _env(tmp_path / "home")
    waiting = tmp_path / "model-waiting"
    env.update(REVERIE_MODEL="scripted/pty", SCRIPTED_SLOW="60", SCRIPTED_WAITING=str(waiting))
    env["SCRIPTED_SLOW_TASKS"] = "archive,session-summary"
    script = str(ROOT / "tests" / "support" / "scripted_cli.py")
    proc = subprocess.Popen(
        [sys.executable, script, "-w", str(ws), "consolidate", "cli:talk"],
        env=env,
        cwd=str(ROOT),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not waiting.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # until the model starts its 60 s wait (it writes the file as it does)
    time.sleep(0.2)  # well inside that wait
    assert waiting.exists() and proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode == 128 + sig, err  # main(argv) returns it; `reverie` ends by it
    assert err.splitlines()[-1] == f"reverie: {'interrupted' if sig == 2 else 'terminated'}"
    with reverie.open(ws) as memory:
        assert (memory.pending(), len(memory.messages("cli:talk", archived=True))) == before
        session = memory.session("cli:talk")
        assert [m["content"] for m in session.messages] == [m["content"] for m in said]
    env["SCRIPTED_SLOW"] = "0"
    again = subprocess.run(
        [sys.executable, script, "-w", str(ws), "consolidate", "cli:talk"],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr


# -- from the first instant: during imports, under a supervisor ------------------------------------


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
