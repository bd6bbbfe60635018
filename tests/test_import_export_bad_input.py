"""Importers and bad input: NUL bytes in a memory file are refused with one clear line (never
committed as a binary file), and a mem0 export that is valid JSON with a lone-surrogate escape is
read.

What import and export leave out is named, never silently altered or missing (hostile report,
adapt4 items 6 and 7): an imported file holding a control character is named with it and left
out, as every other way text is stored refuses it (``reverie.text.safety.unstorable``, one check);
an export of a workspace nanobot uses in place carries nanobot's own files (``AGENTS.md``,
``skills/``) and names what it leaves out (symlinks, the agent's working files)."""

from __future__ import annotations

import logging
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from support.cli import run_cli

from reverie.memory.importers import import_nanobot
from reverie.operations.portability import export_bundle, import_bundle


def _cli(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = {"REVERIE_HOME": str(ws.parent / "home")}
    return run_cli("-w", str(ws), *args, env=home, timeout=120)


def test_a_memory_file_with_nul_bytes_is_named_and_not_committed(tmp_path):
    src = tmp_path / "src"
    (src / "memory").mkdir(parents=True)
    (src / "SOUL.md").write_text("# Soul\n")
    (src / "memory" / "MEMORY.md").write_bytes(b"# Memory\n\n- deadline 2027-01-01\x00 with NUL\n")
    (src / "memory" / "notes.md").write_text("- a clean topic\n")
    done = _cli(tmp_path / "dst", "import", str(src), "--from", "nanobot")
    assert done.returncode == 0, done.stderr
    assert (
        "memory/MEMORY.md: holds a control character (U+0000, NUL) at offset 31: remove it "
        "(only tab and newline are kept); then import again"
    ) in done.stdout
    dst = tmp_path / "dst"
    tracked = subprocess.run(
        ["git", "-C", str(dst), "ls-tree", "-r", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.split()
    assert "memory/MEMORY.md" not in tracked and "memory/topics/notes.md" in tracked
    assert b"\x00" not in b"".join(p.read_bytes() for p in dst.rglob("*.md"))


def test_nul_in_a_copied_nanobot_file_is_refused_too(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "SOUL.md").write_text("# Soul\n")
    (src / "AGENTS.md").write_bytes(b"agents\x00\x00\n")
    result = import_nanobot(src, tmp_path / "dst")
    assert {s.item: s.reason for s in result.skipped}["AGENTS.md"].startswith(
        "holds a control character (U+0000, NUL) at offset 6"
    )
    assert not (tmp_path / "dst" / "AGENTS.md").exists()


def test_a_mem0_export_with_a_lone_surrogate_escape_is_read(tmp_path):
    export = tmp_path / "mem0.json"
    export.write_text(
        '{"results": [{"id": "1", "memory": "Likes tea \\ud800 a lot", "user_id": "ana"},'
        ' {"id": "2", "memory": "Lives in Rome", "user_id": "ana"}]}'
    )
    ws = tmp_path / "ws"
    done = _cli(ws, "import", str(export), "--from", "mem0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not JSON" not in done.stdout + done.stderr
    history = (ws / "memory" / "history.jsonl").read_text()
    assert "Lives in Rome" in history and "Likes tea \\\\ud800 a lot" in history


def test_a_mem0_file_that_is_not_json_is_still_one_line(tmp_path):
    export = tmp_path / "mem0.json"
    export.write_text('{"results": [ {"id": "1", "memory": ')
    done = _cli(tmp_path / "ws", "import", str(export), "--from", "mem0")
    assert done.returncode != 0
    assert "is not JSON" in done.stderr and "Traceback" not in done.stderr


# -- what import and export leave out is named -----------------------------------------------------


def test_an_imported_file_with_a_control_character_is_named_and_left_out(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "skills" / "x").mkdir(parents=True)
    (src / "SOUL.md").write_text("# Soul\n- be brief\n")
    (src / "USER.md").write_text("# User\n- lives in Oslo\x1b[8m and hides this\n")
    (src / "skills" / "x" / "SKILL.md").write_text("say \u202eolleh\n")
    (src / "AGENTS.md").write_text("tabs\tand CRLF\r\nare text\n")
    result = import_nanobot(src, tmp_path / "dst")
    skipped = {s.item: s.reason for s in result.skipped}
    assert skipped["USER.md"].startswith(
        "holds a control character (U+001B, ESC) at offset 22: remove it"
    ), skipped
    assert "U+202E" in skipped["skills/x/SKILL.md"], skipped
    dst = tmp_path / "dst"
    assert not (dst / "USER.md").exists()  # never an altered copy
    assert not (dst / "skills" / "x" / "SKILL.md").exists()
    assert (dst / "AGENTS.md").read_bytes() == b"tabs\tand CRLF\r\nare text\n"
    assert "be brief" in (dst / "SOUL.md").read_text()


def test_export_carries_nanobots_files_and_names_what_it_leaves_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import reverie

    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.init()
        memory.remember("User: lives in Oslo")
    (ws / "AGENTS.md").write_text("# Agent\n- be kind\n")
    (ws / "HEARTBEAT.md").write_text("- check mail\n")
    (ws / "skills" / "weather").mkdir(parents=True)
    (ws / "skills" / "weather" / "SKILL.md").write_text("# Weather\n")
    (ws / "project").mkdir()
    (ws / "project" / "main.py").write_text("print(1)\n")
    (tmp_path / "elsewhere.md").write_text("- not this workspace's\n")
    (ws / "skills" / "linked.md").symlink_to(tmp_path / "elsewhere.md")
    (ws / "memory" / "linked.md").symlink_to(tmp_path / "elsewhere.md")
    os.mkfifo(ws / "memory" / "pipe")  # reading it would hang the export
    (ws / "memory" / "two\nlines.md").write_text("- x\n")  # an import refuses such a name
    (ws / "memory").joinpath(os.fsdecode(b"caf\xe9.md")).write_text("- y\n")  # not UTF-8
    with caplog.at_level(logging.WARNING, logger="reverie"):
        result = export_bundle(ws, tmp_path / "out.tar.gz")
    with tarfile.open(result.path) as tar:
        names = set(tar.getnames())
    for rel in ("AGENTS.md", "HEARTBEAT.md", "skills/weather/SKILL.md", "memory/history.jsonl"):
        assert rel in names, sorted(names)
    assert not {"project/main.py", "skills/linked.md", "memory/linked.md"} & names
    left = {s.item: s.reason for s in result.skipped}
    assert set(left) == {
        "project/",
        "skills/linked.md",
        "memory/linked.md",
        "memory/pipe",
        "memory/two\\x0alines.md",
        "memory/caf\\xe9.md",
    }, left
    assert "symbolic link" in left["skills/linked.md"] and "not memory" in left["project/"]
    assert "not a regular file" in left["memory/pipe"]
    assert "not UTF-8" in left["memory/caf\\xe9.md"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "left out 6" in warnings[0], warnings
    assert "\n" not in warnings[0]
    back = import_bundle(result.path, tmp_path / "back")
    assert (back.workspace / "skills" / "weather" / "SKILL.md").read_text() == "# Weather\n"
    assert (back.workspace / "AGENTS.md").read_text() == "# Agent\n- be kind\n"


def test_a_mem0_memory_with_a_control_character_is_named_and_left_out(tmp_path: Path) -> None:
    """A mem0 memory is remembered: what ``Memory.remember`` refuses (a NUL, an ESC) is named with
    the character, never stored (it was stored as it was)."""
    import json

    import reverie
    from reverie.memory.importers.mem0 import import_mem0

    export = tmp_path / "mem0.json"
    memories = [("1", "Likes \x1b[8mtea"), ("2", "Lives in Rome"), ("3", "a NUL \x00 here")]
    export.write_text(
        json.dumps({"results": [{"id": i, "memory": t, "user_id": "ana"} for i, t in memories]})
    )
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        result = import_mem0(memory, export)
        assert [e.content for e in memory.history()] == ["Lives in Rome"]
    skipped = {s.item: s.reason for s in result.skipped}
    assert "(U+001B, ESC) at offset 6" in skipped["item 1 (id 1)"], skipped
    assert "(U+0000, NUL) at offset 6" in skipped["item 3 (id 3)"], skipped
