"""`reverie fleet status --watch` under real signals and a real redis-server that is stopped, killed
and started again: it stops within about a second of SIGINT or SIGTERM with one line, whether its
shell ignored SIGINT for it (a job started in the background by a script) or Redis hangs; a Redis
that goes away is one line, and one more when it is back, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from support.fleet import RedisServer, fleet_env, wait_for
from support.fleet_fixtures import needs_redis

pytestmark = [needs_redis]
pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")

STOPPED = "reverie fleet status: stopped"


class Watch:
    """The watch as a process, its stdout and stderr read as they come (off a terminal, JSON)."""

    def __init__(self, env: dict[str, str], *, ignore_sigint: bool = False) -> None:
        def ignore() -> None:  # what a non-interactive shell does to a command run with `&`
            signal.signal(signal.SIGINT, signal.SIG_IGN)

        self.p = subprocess.Popen(
            [sys.executable, "-m", "reverie", "fleet", "status", "--watch", "--json"]
            + ["--every", "0.2"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=ignore if ignore_sigint else None,
        )
        os.set_blocking(self.p.stdout.fileno(), False)  # type: ignore[union-attr]
        os.set_blocking(self.p.stderr.fileno(), False)  # type: ignore[union-attr]
        self.out = self.err = ""

    def read(self) -> None:
        self.out += _drain(self.p.stdout.fileno())  # type: ignore[union-attr]
        self.err += _drain(self.p.stderr.fileno())  # type: ignore[union-attr]

    def lines(self) -> int:
        self.read()
        return self.out.count("\n")

    def stop(self, sig: int) -> float:
        """Send ``sig``; the seconds until it exited."""
        sent = time.monotonic()
        self.p.send_signal(sig)
        try:
            self.p.wait(timeout=20)
        finally:
            if self.p.poll() is None:
                self.p.kill()
                self.p.wait()
        took = time.monotonic() - sent
        self.read()
        return took


def _drain(fd: int) -> str:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace")


def _env(tmp_path, server: RedisServer) -> dict[str, str]:
    (tmp_path / "root").mkdir()
    return fleet_env(tmp_path / "root", server)


@pytest.mark.parametrize(
    ("sig", "ignore_sigint"),
    [(signal.SIGINT, True), (signal.SIGINT, False), (signal.SIGTERM, False)],
    ids=["sigint-ignored-by-its-shell", "sigint", "sigterm"],
)
def test_the_watch_stops_within_a_second_with_one_line(tmp_path, redis_server, sig, ignore_sigint):
    watch = Watch(_env(tmp_path, redis_server), ignore_sigint=ignore_sigint)
    wait_for(lambda: watch.lines() >= 2, 30, "the watch's lines")
    took = watch.stop(sig)
    assert took < 2.0, f"exited {took:.1f}s after the signal"  # was: never, with SIGINT ignored
    said = "interrupted" if sig == signal.SIGINT else "terminated"
    assert watch.p.returncode == -sig, watch.err  # ended by it, cleanly: $? 130 or 143 (harden2)
    assert watch.err == f"{STOPPED} ({said})\n", watch.err


def test_the_watch_stops_at_once_while_redis_hangs(tmp_path, redis_server):
    """Redis stopped (SIGSTOP): every read waits; a stop waits for one read at most (1 s), not the
    5 s timeout tried four times of the fleet's other commands."""
    watch = Watch(_env(tmp_path, redis_server))
    wait_for(lambda: watch.lines() >= 1, 30, "the watch's first line")
    assert redis_server.proc is not None
    redis_server.proc.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: watch.read() or "not answering" in watch.err, 10, "the line saying so")
        took = watch.stop(signal.SIGINT)
    finally:
        redis_server.proc.send_signal(signal.SIGCONT)
    assert took < 2.5, f"exited {took:.1f}s after SIGINT"
    assert watch.p.returncode == -signal.SIGINT and "Traceback" not in watch.err
    assert watch.err.endswith(STOPPED + " (interrupted)\n")


def test_redis_killed_and_back_is_one_line_each_under_the_watch(tmp_path, redis_server):
    watch = Watch(_env(tmp_path, redis_server))
    wait_for(lambda: watch.lines() >= 1, 30, "the watch's first line")
    redis_server.kill()
    wait_for(lambda: watch.read() or "not answering" in watch.err, 10, "the line saying so")
    shown = watch.lines()
    wait_for(lambda: watch.lines() >= shown + 3, 10, "the last state shown meanwhile")
    redis_server.start()
    wait_for(lambda: watch.read() or "answers again" in watch.err, 10, "the line saying it is back")
    watch.stop(signal.SIGINT)
    lines = watch.err.splitlines()
    assert len(lines) == 3, watch.err  # down, back, stopped: one line each
    assert lines[0].startswith(
        f"reverie fleet status: Redis at {redis_server.url} is not answering"
    )
    assert "showing the last state, trying again every 0.2s" in lines[0]
    assert lines[1] == f"reverie fleet status: Redis at {redis_server.url} answers again"
    assert lines[2] == STOPPED + " (interrupted)"
