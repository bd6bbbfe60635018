"""A program that holds USER.md open for writing across a commit and never writes it (a sync
client, an editor's ``r+`` buffer): the commit's change is in HEAD, the file on disk stays the
version it was based on (``reverie.gitstore.writer.write_tracked``: not written). The commit
records the file as left unwritten (``writer.LEFT_BUSY``), and the next write finishes it — rolled
forward, or merged with a real save made on top of the old version — instead of committing the old
version back as a person's ``manual`` edit (which took the committed lines out of USER.md with no
archive entry and no person behind it: hostile7's report)."""

from __future__ import annotations

import logging
import subprocess
import sys

import reverie
from reverie import content_id
from reverie.gitstore.location import choose
from reverie.gitstore.writer import LEFT_BUSY, state_dir
from reverie.storage import fsutil


def _record(ws):
    return state_dir(choose(ws).git_dir) / LEFT_BUSY


def _manual_removals(memory):
    """The ``manual`` commits that took lines out of USER.md (no person did here)."""
    return [
        e
        for e in memory.log()
        if e.kind == "manual" and any(f.path == "USER.md" and f.removed for f in e.files)
    ]


def _commit_while_held(memory, ws, line, *, save=None):
    """Commit ``line`` added to USER.md while another program holds the file open for writing;
    ``save``: what that program then writes through its handle (None: nothing)."""
    before = memory.read("USER.md")
    holder = open(ws / "USER.md", "r+")  # noqa: SIM115 (held open across the commit on purpose)
    try:
        memory.write("USER.md", before + line, base=content_id(before))
        assert (ws / "USER.md").read_text() == before  # not written: the file is held
        if save is not None:
            holder.seek(0)
            holder.write(save)
            holder.truncate()
    finally:
        holder.close()
    return before


def test_a_file_held_open_and_never_written_keeps_the_committed_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        _commit_while_held(memory, ws, "- Likes tea\n")
        assert _record(ws).exists()
        memory.remember("User: my dog is called Rex.")
        memory.dream()
        assert "Likes tea" in memory.read("USER.md")
        assert "Likes tea" in (memory.committed("USER.md") or "")
        assert not _record(ws).exists()
        assert not _manual_removals(memory)


def test_a_real_save_through_the_held_file_is_merged_with_the_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        before = memory.read("USER.md")
        _commit_while_held(memory, ws, "- Likes tea\n", save="- Plays chess\n" + before)
        memory.remember("User: my dog is called Rex.")
        memory.dream()
        text, committed = memory.read("USER.md"), memory.committed("USER.md") or ""
        for kept in ("Likes tea", "Plays chess", "Lisbon"):
            assert kept in text and kept in committed
        assert (ws / "USER.md").read_text() == committed
        assert not _record(ws).exists()


def test_the_record_survives_a_kill_and_the_next_write_finishes(tmp_path, monkeypatch):
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        _commit_while_held(memory, ws, "- Likes tea\n")
    # a process killed after the commit: the next write is another process's
    assert _record(ws).exists()
    script = (
        "import sys, reverie\n"
        "with reverie.open(sys.argv[1]) as m:\n"
        "    m.remember('User: my dog is called Rex.')\n"
        "    m.dream()\n"
    )
    subprocess.run([sys.executable, "-c", script, str(ws)], check=True, timeout=300)
    with reverie.open(ws) as memory:
        assert "Likes tea" in memory.read("USER.md")
        assert "Likes tea" in (memory.committed("USER.md") or "")
        assert not _manual_removals(memory)
    assert not _record(ws).exists()


def test_a_record_that_does_not_parse_is_dropped_with_a_warning(tmp_path, caplog):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        _record(ws).write_text("not a record\n")
        with caplog.at_level(logging.WARNING):
            memory.remember("User: my dog is called Rex.")
            memory.dream()
        assert any("does not parse" in r.getMessage() for r in caplog.records)
        assert not _record(ws).exists()
        assert "Lisbon" in memory.read("USER.md")


def test_a_file_held_through_two_commits_gets_both_at_the_next_write(tmp_path, monkeypatch):
    """Still held at the next commit: the record stays (the file is not committed from disk), the
    second commit's change is recorded on the same version left, and once the file is let go the
    next write puts both changes on it."""
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        before = memory.read("USER.md")
        holder = open(ws / "USER.md", "r+")  # noqa: SIM115 (held open across the commits on purpose)
        try:
            memory.write("USER.md", before + "- Likes tea\n", base=content_id(before))
            then = memory.committed("USER.md") or ""
            memory.write("USER.md", then + "- Plays chess\n", base=content_id(then))
            assert (ws / "USER.md").read_text() == before
            assert _record(ws).exists()
        finally:
            holder.close()
        memory.remember("User: my dog is called Rex.")
        memory.dream()
        text, committed = memory.read("USER.md"), memory.committed("USER.md") or ""
        for kept in ("Likes tea", "Plays chess", "Lisbon"):
            assert kept in text and kept in committed
        assert not _manual_removals(memory)
        assert not _record(ws).exists()
