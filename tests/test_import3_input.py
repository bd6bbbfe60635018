"""Importers and bad input: NUL bytes in a memory file are refused with one clear line (never
committed as a binary file), and a mem0 export that is valid JSON with a lone-surrogate escape is
read."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.cli import run_cli

from reverie.memory.importers import import_nanobot


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
