"""A memory file that is not a regular file (a folder, a FIFO) gives one clear line from `status`
and `chat`, never "internal error" and never a hang.

``USER.md`` a folder: ``reverie dream`` says "is a folder, not a regular file", the wording every
other reader uses (``Workspace.read_bytes``), never the OS error's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.cli import invoke, run_cli


def _cli(ws: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    home = {"REVERIE_HOME": str(ws.parent / "home")}
    return run_cli("-w", str(ws), *args, env=home, input=stdin, timeout=60)


@pytest.mark.parametrize("rel", ["USER.md", "SOUL.md", "memory/MEMORY.md"])
@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_memory_file_that_is_not_a_regular_file_is_one_clear_line(tmp_path, rel, kind):
    ws = tmp_path / "ws"
    # set-up in this process (a new interpreter for it cost ~0.4 s); the runs checked are real ones
    assert (
        invoke("-w", str(ws), "init", env={"REVERIE_HOME": str(tmp_path / "home")}).returncode == 0
    )
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


# -- Dream on a folder where USER.md goes ----------------------------------------------------------


def test_dream_says_a_folder_where_user_md_goes_in_the_workspaces_words(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    assert invoke("-w", ws, "history", "append", "User: I live in Lyon").returncode == 0
    (tmp_path / "ws" / "USER.md").unlink()
    (tmp_path / "ws" / "USER.md").mkdir()
    done = invoke("-w", ws, "dream")
    said = " ".join((done.stdout + done.stderr).split())
    assert "is a folder, not a regular file" in said and "Errno" not in said, said
    assert "Traceback" not in said
