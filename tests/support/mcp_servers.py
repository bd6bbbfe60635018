"""``reverie mcp`` in its own process, for the MCP tests (which import this after skipping where the
MCP SDK is missing):

- `stdio_server`: the SDK's parameters for a server over stdio (a client's ``Client(...)`` starts
  and stops it);
- `mcp_http_server`: ``mcp --http`` started on a free port and waited for (its port accepting
  connections), its address while it runs, stopped after; its environment has no bearer token
  unless the test gives one.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from mcp import StdioServerParameters

from support.cli import ROOT, cli_env


def stdio_server(args: list[str]) -> StdioServerParameters:
    """``reverie ARGS mcp`` over stdio (``ARGS``: ``-w WS``, or ``--root DIR --user ID``)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "reverie", *args, "mcp"],
        env=cli_env(),
        cwd=str(ROOT),
    )


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def mcp_http_server(args: list[str], env_extra: dict[str, str] | None = None) -> Iterator[str]:
    """``reverie ARGS mcp --http`` on a free port: its address (``http://127.0.0.1:PORT/mcp``)
    while it runs; stopped on leaving. ``REVERIE_MCP_TOKEN`` only as ``env_extra`` gives it."""
    port = free_port()
    proc = _start(args, port, env_extra)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _start(args: list[str], port: int, env_extra: dict[str, str] | None) -> subprocess.Popen[str]:
    """``reverie ARGS mcp --http --port PORT``, once its port accepts a connection (an
    ``AssertionError`` with its stderr when it exits first, or after 60 s)."""
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
