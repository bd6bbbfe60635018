"""`reverie import --from nanobot`: what a hostile source cannot do (a link anywhere on the way, a
killed import), and what a workspace shared both ways holds (topics, archive)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import invoke, run_cli

from reverie.memory.importers import import_nanobot


def _cli(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = {"REVERIE_HOME": str(ws.parent / "home")}
    return run_cli("-w", str(ws), *args, env=home, timeout=120)


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


def _big_source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "memory").mkdir(parents=True)
    (src / "SOUL.md").write_text("# Soul\n\nBe kind.\n")
    (src / "memory" / "MEMORY.md").write_text("# Memory\n\n- Project X ships in March\n")
    with open(src / "memory" / "history.jsonl", "w") as f:
        for n in range(1, 60_001):
            f.write(_entry(n, f"User: note number {n} about the garden and the weather today"))
    return src


def _stale(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.glob(".dst.import-*"))


def _importing(src: Path, dst: Path) -> subprocess.Popen[bytes]:
    """``reverie -w DST import SRC --from nanobot`` started in its own process (its home beside
    ``dst``), to be killed mid-way."""
    env = {**os.environ, "REVERIE_HOME": str(dst.parent / "home")}
    return subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(dst), "import", str(src), "--from", "nanobot"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def test_a_killed_nanobot_import_leaves_no_half_workspace_and_the_next_run_cleans_up(tmp_path):
    """SIGKILL while the import is staged: the target does not exist (never a workspace that looks
    imported without its memory files); the next run removes the staging folder, says so, and
    imports whole."""
    src, dst = _big_source(tmp_path), tmp_path / "dst"
    proc = _importing(src, dst)
    try:
        for _ in range(4000):
            if _stale(tmp_path) or proc.poll() is not None:
                break
            os.sched_yield()
        proc.kill()
    finally:
        proc.wait()
    if not _stale(tmp_path):
        pytest.skip("the import finished before it could be killed mid-way")
    assert not dst.exists() or not any(dst.iterdir())
    done = _cli(dst, "import", str(src), "--from", "nanobot")
    assert done.returncode == 0, done.stderr
    out = " ".join((done.stdout + done.stderr).split())
    assert "removed" in out and "interrupted before it was moved into place" in out, out
    assert _stale(tmp_path) == []
    assert "Project X ships in March" in (dst / "memory" / "MEMORY.md").read_text()
    log = subprocess.run(
        ["git", "-C", str(dst), "log", "--format=%s"], capture_output=True, text=True
    )
    assert log.stdout.splitlines()[0].startswith("import: nanobot workspace from")
    assert "60000 entries pending" in " ".join(_cli(dst, "status").stdout.split())


def test_the_target_appears_only_whole(tmp_path):
    """Killed the moment the target appears: it already holds its memory files and the import
    commit (written in the staging folder, before the one rename)."""
    src = tmp_path / "src"
    (src / "memory").mkdir(parents=True)
    (src / "SOUL.md").write_text("# Soul\n")
    (src / "memory" / "MEMORY.md").write_text("- Ana owns billing\n")
    (src / "memory" / "history.jsonl").write_text(_entry(1, "User: hi"))
    dst = tmp_path / "dst"
    proc = _importing(src, dst)
    try:
        while proc.poll() is None and not dst.exists():
            os.sched_yield()
        proc.kill()
    finally:
        proc.wait()
    assert dst.exists()
    assert (dst / "memory" / "MEMORY.md").read_text() == "- Ana owns billing\n"
    assert (dst / "SOUL.md").read_text() == "# Soul\n"
    log = subprocess.run(
        ["git", "-C", str(dst), "log", "--format=%s"], capture_output=True, text=True
    )
    assert log.stdout.splitlines()[0].startswith("import: nanobot workspace from")
    status = _cli(dst, "status")
    assert status.returncode == 0 and "1 entries pending" in status.stdout


def test_a_staging_folder_held_by_a_running_import_is_left_alone(tmp_path):
    import fcntl

    from reverie.operations.portability import clear_stale_staging
    from reverie.storage.workspace import Workspace

    held, left = tmp_path / ".dst.import-held", tmp_path / ".dst.import-left"
    for d in (held, left):
        d.mkdir()
        (d / "history.jsonl").write_text("x\n")
    fd = os.open(held, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert clear_stale_staging(Workspace(tmp_path / "dst")) == [left]
    finally:
        os.close(fd)
    assert held.exists() and not left.exists()


def test_a_bundle_import_removes_a_staging_folder_a_killed_one_left(tmp_path):
    ws, home = tmp_path / "ws", {"REVERIE_HOME": str(tmp_path / "home")}
    bundle = tmp_path / "b.tgz"
    # the bundle is set up in this process; the import checked is a CLI process of its own
    assert invoke("-w", str(ws), "init", env=home).returncode == 0
    assert invoke("-w", str(ws), "export", str(bundle), env=home).returncode == 0
    stale = tmp_path / ".dst.import-abc123"
    stale.mkdir()
    (stale / "history.jsonl").write_text("redacted copy\n")
    done = _cli(tmp_path / "dst", "import", str(bundle))
    assert done.returncode == 0, done.stderr
    flat = " ".join((done.stdout + done.stderr).split())
    assert "interrupted before it was moved into place" in flat, flat
    assert not stale.exists() and _stale(tmp_path) == []


def test_topic_files_and_the_archive_of_a_workspace_used_in_place_come_in(tmp_path):
    """A workspace Reverie kept in place (nanobot's layout plus topics and archive) imported with
    --from nanobot: its topic files at any depth and its archive are committed, nothing named as
    "not a memory file"."""
    import reverie

    src = tmp_path / "src"
    with reverie.open(src) as m:
        m.init()
        m.write("memory/topics/project.md", "# Project\n- The launch is on 2027-02-01\n")
        m.write("memory/topics/people/ana.md", "# Ana\n- Ana owns billing\n")
        m.remember("User: hello")
    (src / "memory" / "archive").mkdir()
    (src / "memory" / "archive" / "files.md").write_text("- archived line kept with why\n")
    (src / "memory" / "archive" / "old").mkdir()
    (src / "memory" / "archive" / "old" / "x.md").write_text("- not an archive file\n")
    dst = tmp_path / "dst"
    result = import_nanobot(src, dst)
    reasons = {s.item: s.reason for s in result.skipped}
    assert not [item for item, why in reasons.items() if why == "not a memory file"], reasons
    assert reasons["memory/archive/old/x.md"] == "not an archive file (memory/archive/*.md)"
    assert (dst / "memory/topics/people/ana.md").read_text() == "# Ana\n- Ana owns billing\n"
    assert "2027-02-01" in (dst / "memory/topics/project.md").read_text()
    assert (dst / "memory/archive/files.md").read_text() == "- archived line kept with why\n"
    shown = subprocess.run(
        ["git", "-C", str(dst), "show", "--stat", "--format=", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout
    for rel in (
        "memory/topics/people/ana.md",
        "memory/topics/project.md",
        "memory/archive/files.md",
    ):
        assert rel in shown
    done = _cli(dst, "why", "Ana owns billing")
    assert done.returncode == 0 and "memory/topics/pe" in done.stdout, done.stdout + done.stderr


def test_a_legacy_history_next_to_a_log_with_entries_is_named_not_silently_copied(tmp_path):
    src = tmp_path / "src"
    (src / "memory").mkdir(parents=True)
    (src / "memory" / "HISTORY.md").write_text(
        "[2026-01-01 10:00] User moved to Lyon.\n\n[2026-01-02 11:00] User adopted a cat.\n"
    )
    (src / "memory" / "history.jsonl").write_text(_entry(1, "User: I work at Globex"))
    done = _cli(tmp_path / "dst", "import", str(src), "--from", "nanobot")
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())
    assert (
        "memory/HISTORY.md entries: the file is copied, but its entries are not in history" in flat
    )
    assert (tmp_path / "dst" / "memory" / "HISTORY.md").exists()


def test_a_legacy_history_alone_is_migrated_and_not_named(tmp_path):
    src = tmp_path / "src"
    (src / "memory").mkdir(parents=True)
    (src / "memory" / "HISTORY.md").write_text("[2026-01-01 10:00] User moved to Lyon.\n")
    result = import_nanobot(src, tmp_path / "dst")
    assert not [s for s in result.skipped if "HISTORY.md" in s.item]
