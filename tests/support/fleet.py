"""Real components for the fleet tests and bench: a redis-server on a unix socket, Celery workers
and the dispatcher as processes, scope workspaces with an appender, and the oracles checked
afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .gitcli import git_run

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
REDIS_SERVER = shutil.which("redis-server")


def wait_for(cond: Callable[[], object], timeout: float, what: str, poll: float = 0.05) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class RedisServer:
    """redis-server on a unix socket in a short temp dir (socket paths are limited to 107 bytes)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rvfleet"))
        self.sock = self.dir / "r.sock"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis+socket://{self.sock}"

    def start(self, *, aof: bool = True) -> None:
        assert REDIS_SERVER is not None
        self.sock.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                "0",
                "--unixsocket",
                str(self.sock),
                "--unixsocketperm",
                "700",
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes" if aof else "no",
                "--appendfsync",
                "everysec",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        client = redis.Redis(unix_socket_path=str(self.sock))

        def up() -> bool:
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        wait_for(up, 10, "redis-server to answer")
        client.close()

    def kill(self, *, lose_data: bool = False) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        if lose_data:
            for p in self.dir.iterdir():
                if p.name != "r.sock":
                    shutil.rmtree(p) if p.is_dir() else p.unlink()

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def fleet_env(root: Path, redis: RedisServer, **extra: str) -> dict[str, str]:
    """Environment of every fleet process: short leases and claims so faults resolve in seconds."""
    env = dict(os.environ)
    env.update(
        {
            # fleet_app (celery -A) from here, reverie from the repository
            "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")]),
            "REVERIE_FLEET__ROOT": str(root),
            "REVERIE_FLEET__BROKER_URL": redis.url,
            "REVERIE_FLEET__LEASE_SECONDS": "3",
            "REVERIE_FLEET__HEARTBEAT_SECONDS": "0.5",
            "REVERIE_FLEET__FENCE_MARGIN_SECONDS": "1",
            "REVERIE_FLEET__CLAIM_SECONDS": "4",
            "REVERIE_FLEET__DISPATCH_EVERY_SECONDS": "0.2",
            "REVERIE_FLEET__DEBOUNCE_SECONDS": "0",
            "REVERIE_FLEET__JITTER_SECONDS": "0",
            "REVERIE_FLEET__RETRY_BACKOFF_SECONDS": "1",
            "REVERIE_FLEET__MAX_INFLIGHT": "8",
            "REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE": "slow/offline",
            "REVERIE_AGENTS__DEFAULTS__DREAM__MAX_BATCH_SIZE": "3",
            # a backlog yields; the job re-marks it due
            "REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS": "4",
            "REVERIE_TEST_LATENCY": "0.2",
        }
    )
    env.update(extra)
    return env


class Proc:
    """A fleet process in its own process group (a kill takes its pool children too), logging to a
    file. Every one started is in `STARTED` until `stop_all` (a test's teardown) ends it, whatever
    the test did."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._out = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.p = subprocess.Popen(
            argv,
            env=env,
            cwd=HERE,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        STARTED.append(self)

    def send(self, sig: int) -> None:
        try:
            os.killpg(self.p.pid, sig)
        except ProcessLookupError:
            pass

    def alive(self) -> bool:
        return self.p.poll() is None

    def stop(self, sig: int = signal.SIGKILL) -> None:
        self.send(sig)
        self._wait()

    def _wait(self) -> None:
        if self in STARTED:
            STARTED.remove(self)
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.send(signal.SIGKILL)
            self.p.wait()
        self._out.close()

    def text(self) -> str:
        return self.log.read_text(errors="replace")


STARTED: list[Proc] = []


def stop_together(procs: list[Proc], sig: int) -> None:
    """``Proc.stop(sig)`` of each, the signal sent to all first: a Celery worker takes ~2 s to
    shut down warm, which one after the other added up in the tests that run several."""
    for proc in procs:
        proc.send(sig)
    for proc in procs:
        proc._wait()


def stop_all() -> None:
    """Kill every process group a test started and has not stopped (a failed test leaves none
    running)."""
    while STARTED:
        proc = STARTED.pop()
        proc.send(signal.SIGCONT)  # a group left stopped would not die of SIGTERM
        proc.stop(signal.SIGKILL)


def start_worker(name: str, env: dict[str, str], logs: Path, concurrency: int = 1) -> Proc:
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "fleet_app",
        "worker",
        "-Q",
        "reverie-dream",
        "-c",
        str(concurrency),
        "--pool",
        "prefork",
        "-n",
        f"{name}@%h",
        "-l",
        "INFO",
        "--without-mingle",
        "--without-gossip",
        "--without-heartbeat",
    ]
    return Proc(argv, env, logs / f"{name}.log")


def start_dispatcher(env: dict[str, str], logs: Path, name: str = "dispatch") -> Proc:
    return Proc([sys.executable, "-m", "reverie", "fleet", "dispatch"], env, logs / f"{name}.log")


def git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return git_run(ws, *args, check=False)


def batches_committed(ws: Path) -> list[tuple[int, int]]:
    """The ``Reverie-Batch`` of every dream commit (first, last), newest first."""
    out = git(
        ws, "log", "--format=%(trailers:key=Reverie-Batch,valueonly,separator=)"
    ).stdout.split()
    return [(int(a), int(b)) for a, _, b in (v.partition("-") for v in out)]
