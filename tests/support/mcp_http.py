"""``reverie mcp --http`` in its own process, for the MCP tests over HTTP: a free port, the server
started on it and waited for (its port accepting connections), its environment without a bearer
token unless the test gives one."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from support.cli import ROOT, cli_env


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_mcp_http(
    args: list[str], port: int, env_extra: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """``reverie ARGS mcp --http --port PORT``, once its port accepts a connection (an
    ``AssertionError`` with its stderr when it exits first, or after 60 s). ``REVERIE_MCP_TOKEN``
    only as ``env_extra`` gives it. The caller stops it."""
    env = cli_env()
    env.pop("REVERIE_MCP_TOKEN", None)
    env.update(env_extra or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", *args, "mcp", "--http", "--port", str(port)],
        env=env,
        cwd=str(ROOT),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the HTTP server did not start")
