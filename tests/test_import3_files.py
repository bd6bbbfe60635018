"""A memory file that is not a regular file (a folder, a FIFO) gives one clear line from `status`
and `chat`, never "internal error" and never a hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _cli(ws: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REVERIE_HOME": str(ws.parent / "home")}
    return subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("rel", ["USER.md", "SOUL.md", "memory/MEMORY.md"])
@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_memory_file_that_is_not_a_regular_file_is_one_clear_line(tmp_path, rel, kind):
    ws = tmp_path / "ws"
    assert _cli(ws, "init").returncode == 0
    path = ws / rel
    path.unlink()
    if kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    what = "a folder, not a regular file" if kind == "folder" else "not a regular file"
    for args, stdin in ((("status",), ""), (("chat",), "hello\n")):
        done = _cli(ws, *args, stdin=stdin)
        out = done.stdout + done.stderr
        assert "internal error" not in out and "Traceback" not in out, out
        flat = " ".join(out.split())  # chat's console wraps long lines
        assert f"'{rel}' in {ws} is" in flat and what in flat, out
        assert (
            f"{what}: move it aside" in flat
            or f"{what} (a FIFO, socket or device): move it aside" in flat
        ), out
