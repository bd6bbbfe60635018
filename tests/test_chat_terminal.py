"""``reverie chat`` (and the status line of ``dream`` / ``consolidate``) at a real terminal: driven
through a pty.

The CLI runs in its own process (``support/scripted_cli.py``) with a scripted model that is slow on
demand. The prompt is ready when prompt-toolkit turns bracketed paste on (``ESC[?2004h``); it draws
"> " with cursor moves, so the text itself is no marker.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import orjson
import pexpect
import pytest
from conftest import ROOT

from reverie.storage.workspace import Workspace

READY = "\x1b[?2004h"
UP = "\x1b[A"
SCRIPT = str(ROOT / "tests" / "support" / "scripted_cli.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


def spawn(*args: str, **env: str) -> pexpect.spawn:
    full = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
        TERM="xterm",
        REVERIE_MODEL="scripted/pty",
        PROMPT_TOOLKIT_NO_CPR="1",
        **env,
    )  # no cursor-position replies here
    child = pexpect.spawn(
        sys.executable,
        [SCRIPT, *args],
        env=full,
        encoding="utf-8",
        dimensions=(24, 120),
        timeout=20,
    )
    return child


def finish(child: pexpect.spawn) -> str:
    """Ctrl-D at the prompt; the output after it; the process must exit 0."""
    child.expect_exact(READY)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    tail = child.before
    child.close()
    assert child.exitstatus == 0, tail
    return tail


def session(ws: Path) -> list[tuple[str, str]]:
    lines = [
        orjson.loads(line)
        for line in (ws / "sessions" / "cli_chat.jsonl").read_bytes().splitlines()
    ]
    return [(m["role"], m["content"]) for m in lines[1:]]


def test_history_arrows_and_ctrl_d(tmp_path):
    ws = tmp_path / "ws"
    child = spawn("-w", str(ws), "chat", "--no-schedule")
    child.expect("model .*scripted/pty")  # the banner names the model
    child.expect_exact(READY)
    child.sendline("remember alpha")
    child.expect("echo: remember alpha")
    child.expect_exact(READY)
    child.sendline("then beta")
    child.expect("echo: then beta")
    tail = finish(child)
    assert "\n" in tail  # Ctrl-D leaves on a fresh line, not glued to the shell's prompt

    # Persisted per workspace, in its state directory (never in a memory file).
    stored = Workspace(ws).state_dir / "chat-input.jsonl"
    assert [orjson.loads(line) for line in stored.read_bytes().splitlines()] == [
        "remember alpha",
        "then beta",
    ]
    assert not any("alpha" in p.read_text() for p in ws.glob("*.md"))

    # A new chat: Up twice recalls the older line, which is sent again.
    child = spawn("-w", str(ws), "chat", "--no-schedule")
    child.expect_exact(READY)
    child.send(UP + UP + "\r")
    child.expect("echo: remember alpha")
    finish(child)
    assert session(ws)[-2:] == [("user", "remember alpha"), ("assistant", "echo: remember alpha")]


def test_ctrl_c_cancels_the_turn_and_keeps_the_message(tmp_path):
    ws = tmp_path / "ws"
    child = spawn("-w", str(ws), "chat", "--no-schedule")
    child.expect_exact(READY)
    child.send("a half-typed line")
    child.sendintr()  # Ctrl-C at the prompt clears the line, the chat goes on
    child.expect_exact(READY)
    child.sendline("a slow question")
    child.expect(r"waiting for scripted/pty · \d+\.\d s")  # the status line, past half a second
    started = time.monotonic()
    child.sendintr()
    child.expect("cancelled")
    child.expect("your message is kept in the session")
    assert time.monotonic() - started < 5  # not the model's 60 s
    child.expect_exact(READY)
    child.sendline("and a quick one")
    child.expect("echo: and a quick one")
    finish(child)
    assert session(ws) == [
        ("user", "a slow question"),
        ("user", "and a quick one"),
        ("assistant", "echo: and a quick one"),
    ]


def test_keys_typed_during_a_turn_wait_for_the_next_prompt(tmp_path):
    child = spawn("-w", str(tmp_path / "ws"), "chat", "--no-schedule", SCRIPTED_SLOW="1.5")
    child.expect_exact(READY)
    child.sendline("a slow one")
    child.expect("waiting for scripted/pty")
    child.sendline("typed ahead")  # not echoed over the status line...
    child.expect("echo: a slow one")
    assert "typed ahead" not in child.before
    child.expect("echo: typed ahead")  # ...but sent once the prompt is back
    finish(child)


def test_a_scheduled_dream_report_is_printed_while_the_prompt_waits(tmp_path):
    ws = Workspace(tmp_path / "ws")
    ws.init()
    from reverie import MemoryStore

    MemoryStore(ws).append_history("The user lives in Porto.", session_key="cli:chat")
    child = spawn(
        "-w", str(ws.root), "chat", SCRIPTED_SLOW="1", SCRIPTED_SLOW_TASKS="dream-analyze"
    )
    child.expect_exact(READY)
    child.expect(
        r"waiting for scripted/pty \(dream-analyze\)"
    )  # background work, shown beside the prompt
    child.expect("Scheduled Dream processed entry 1")  # arrives while the prompt is up
    child.expect_exact(READY)  # and the prompt is drawn again below it
    child.sendline("still here")
    child.expect("echo: still here")
    finish(child)


@pytest.mark.parametrize("command", ["dream", "consolidate"])
def test_status_line_names_the_model_on_a_terminal_only(tmp_path, command):
    import subprocess

    ws = Workspace(tmp_path / "ws")
    ws.init()
    from reverie import MemoryStore
    from reverie.consolidator import SessionStore

    MemoryStore(ws).append_history("The user lives in Porto.", session_key="cli:t")
    sessions = SessionStore(ws)
    sessions.append(sessions.get_or_create("cli:t"), {"role": "user", "content": "I live in Porto"})
    args = ["-w", str(ws.root), command] + (["cli:t"] if command == "consolidate" else [])
    task = "dream-analyze" if command == "dream" else "archive"
    env = {"SCRIPTED_SLOW": "1.2", "SCRIPTED_SLOW_TASKS": task}

    child = spawn(*args, **env)
    child.expect(rf"waiting for scripted/pty \({task}\) · \d+\.\d s")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    # Not a terminal: the same command prints no status line and no escape codes.
    if command == "dream":
        MemoryStore(ws).append_history("The user likes tea.", session_key="cli:t")
    else:
        sessions.append(sessions.get_or_create("cli:t"), {"role": "user", "content": "I like tea"})
    full = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
        REVERIE_MODEL="scripted/pty",
        **env,
    )
    proc = subprocess.run(
        [sys.executable, SCRIPT, *args], capture_output=True, text=True, env=full, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "waiting for" not in proc.stdout and "\x1b" not in proc.stdout


# -- the pieces, in-process ------------------------------------------------------------------------


def test_input_history_file_redacts_repairs_and_stays_bounded(tmp_path):
    from reverie.cli._chat_history import ChatInputHistory

    path = tmp_path / "state" / "chat-input.jsonl"
    hist = ChatInputHistory(path, keep=5, max_bytes=400)
    hist.store_string("my key is sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ")
    assert "sk-proj-" not in path.read_text() and "[REDACTED:openai-key]" in path.read_text()
    assert oct(path.stat().st_mode & 0o777) == "0o600"

    with open(path, "ab") as f:
        f.write(b'"torn mid-app')  # a crash mid-append
    hist.store_string("after the crash")
    hist.store_string("   ")  # blank: not stored
    loaded = list(ChatInputHistory(path).load_history_strings())
    assert (
        loaded[0] == "after the crash" and len(loaded) == 2
    )  # newest first; the torn line is skipped

    for i in range(40):
        hist.store_string(f"line number {i:02d}")
    kept = list(ChatInputHistory(path, keep=5).load_history_strings())
    assert path.stat().st_size <= 400  # cut back to its newest lines whenever it passes max_bytes
    assert kept == [f"line number {i:02d}" for i in range(39, 34, -1)]

    path.unlink()
    (tmp_path / "elsewhere").write_text("")
    path.symlink_to(
        tmp_path / "elsewhere"
    )  # a planted symlink is refused (a warning), never written through
    hist.store_string("not through the link")
    assert (tmp_path / "elsewhere").read_text() == ""
    assert list(ChatInputHistory(path).load_history_strings()) == []


def test_wait_text_shows_a_call_only_past_the_delay():
    from reverie.cli._status import elapsed_text, wait_text
    from reverie.llm.activity import ModelActivity

    activity = ModelActivity()
    assert wait_text(activity) is None
    with activity.call("openai/gpt-4o-mini", "archive") as call:
        assert wait_text(activity, now=call.started + 0.2) is None
        assert (
            wait_text(activity, now=call.started + 3.24)
            == "waiting for openai/gpt-4o-mini (archive) · 3.2 s"
        )
        with activity.call("openai/gpt-4o-mini"):
            assert "+1 more" in (wait_text(activity, now=call.started + 1) or "")
    assert activity.in_flight() == 0 and wait_text(activity) is None
    assert elapsed_text(75) == "1m 15s"
