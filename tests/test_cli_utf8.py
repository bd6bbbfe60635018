"""Bytes that are not UTF-8 typed into ``reverie chat`` or passed as an argument are refused in one
line, in the importers' words (``reverie.text.utf8``), never stored as ``\\udcXX`` escape text."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import invoke

from reverie.cli import main
from reverie.storage.workspace import Workspace
from reverie.text.utf8 import undecodable

ROOT = Path(__file__).resolve().parent.parent


def test_undecodable_names_the_first_bad_byte_as_the_importers_do() -> None:
    assert undecodable("I live in Zürich.") is None
    # what Python makes of b"I live in Z\xfcrich." in argv or on stdin (surrogateescape)
    escaped = b"I live in Z\xfcrich.".decode("utf-8", "surrogateescape")
    assert undecodable(escaped) == "not UTF-8 (byte 0xfc at offset 11)"
    assert undecodable("a\ud800") == "not UTF-8 (a lone surrogate U+D800 at offset 1)"
    assert undecodable("\udcc3\udcbc") is not None  # escapes that spell valid UTF-8: still refused


def _history(ws: Workspace) -> str:
    return ws.history_path.read_text() if ws.history_path.exists() else ""


@pytest.mark.parametrize(
    "argv",
    [
        ["history", "append", "I live in Z\udcfcrich."],
        ["history", "append", "ok", "--session", "k\udcfc"],
    ],
)
def test_an_argument_that_is_not_utf8_is_refused_in_one_line(
    workspace: Workspace, argv: list[str]
) -> None:
    result = invoke("-w", str(workspace.root), *argv)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "is not UTF-8 (byte 0xfc at offset " in result.stderr
    assert _history(workspace) == ""


def test_a_user_id_that_is_not_utf8_makes_no_scope(tmp_path: Path) -> None:
    result = invoke("--root", str(tmp_path / "r"), "--user", "k\udcfc", "history", "append", "x")
    assert result.returncode == 1 and "--user is not UTF-8 (byte 0xfc at offset 1)" in result.stderr
    assert not (tmp_path / "r").exists()


def test_a_path_argument_may_hold_any_bytes(tmp_path: Path) -> None:
    ws = tmp_path / "Z\udcfcrich"  # a directory name the file system allows
    result = invoke("-w", str(ws), "history", "append", "I live in Lisbon.")
    assert result.returncode == 0, result.stderr
    assert "Lisbon" in _history(Workspace(ws))


def test_a_chat_line_that_is_not_utf8_is_refused_and_the_chat_goes_on(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = b"I live in Z\xfcrich.\nI live in Bern.\n/new\n"  # as Python's UTF-8 mode reads it
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["-w", str(workspace.root), "chat", "--no-schedule"]) == 0
    out = capsys.readouterr()
    assert "not UTF-8 (byte 0xfc at offset 11): the line was not recorded" in out.err
    history = _history(workspace)
    assert "Bern" in history and "\\udc" not in history and "rich" not in history
    session = (workspace.sessions_dir / "cli_chat.jsonl").read_text()
    assert "\\udc" not in session


def test_a_piped_chat_refuses_the_line_in_a_real_process(tmp_path: Path) -> None:
    """Under a locale whose stdin decoder is strict (``LANG=en_US.UTF-8`` without UTF-8 mode) the
    byte used to kill the thread reading stdin: a traceback, then a chat that never ended."""
    ws = tmp_path / "ws"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONUTF8": "0"}
    proc = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "chat", "--no-schedule"],
        input=b"I live in Z\xfcrich.\nI live in Bern.\n/new\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert err.count("not UTF-8 (byte 0xfc at offset 11)") == 1 and "Traceback" not in err
    history = Workspace(ws).history_path.read_text()
    assert "Bern" in history and "\\udc" not in history
