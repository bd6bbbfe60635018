"""`reverie import --from nanobot`: what a hostile source cannot do (a link anywhere on the way, a
killed import), and what a workspace shared both ways holds (topics, archive)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reverie.memory.importers import import_nanobot


def _cli(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REVERIE_HOME": str(ws.parent / "home")}
    return subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _entry(cursor: int, content: str) -> str:
    return (
        json.dumps({"cursor": cursor, "timestamp": "2026-01-01 10:00", "content": content}) + "\n"
    )


def test_a_memory_folder_that_is_a_link_outside_is_not_read_through(tmp_path):
    src, outside = tmp_path / "src", tmp_path / "outside"
    src.mkdir()
    outside.mkdir()
    (src / "SOUL.md").write_text("# Soul\n")
    (outside / "history.jsonl").write_text(_entry(1, "OUTSIDE HISTORY read through a link"))
    (outside / ".dream_cursor").write_text("7")
    (outside / "MEMORY.md").write_text("- outside memory\n")
    (src / "memory").symlink_to(outside)
    done = _cli(tmp_path / "dst", "import", str(src), "--from", "nanobot")
    assert done.returncode == 0, done.stderr
    assert "memory/history.jsonl: memory/ is a symbolic link, not followed" in done.stdout
    assert "memory/.dream_cursor: memory/ is a symbolic link, not followed" in done.stdout
    assert "memory/: a symbolic link, not followed" in done.stdout
    dst = tmp_path / "dst"
    found = [p for p in dst.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert not any("OUTSIDE" in p.read_text(errors="replace") for p in found)
    assert not (dst / "memory" / ".dream_cursor").exists()


def test_a_sessions_folder_or_a_subfolder_link_is_named_not_followed(tmp_path):
    src, outside = tmp_path / "src", tmp_path / "outside"
    (src / "memory").mkdir(parents=True)
    (src / "memory" / "MEMORY.md").write_text("- a fact\n")
    (outside / "inner").mkdir(parents=True)
    (outside / "cli_x.jsonl").write_text('{"role": "user", "content": "outside"}\n')
    (outside / "inner" / "note.md").write_text("outside skill\n")
    (src / "sessions").symlink_to(outside)
    (src / "skills").mkdir()
    (src / "skills" / "linked").symlink_to(outside / "inner")
    result = import_nanobot(src, tmp_path / "dst")
    reasons = {s.item: s.reason for s in result.skipped}
    assert reasons["sessions/"] == "a symbolic link, not followed"
    assert reasons["skills/linked/"] == "a symbolic link, not followed"
    assert not (tmp_path / "dst" / "sessions").exists()
