"""The record of files a commit left unwritten (``writer.LEFT_BUSY``, saves7) under attack: a commit
of the merge that fails after the record was settled, a record damaged in one line, a full disk when
the record is rewritten. In each, the lines the earlier commit put in HEAD must survive: never the
version left on disk (or a save made on it) committed back over them as a person's edit."""

from __future__ import annotations

import errno
import logging
from contextlib import contextmanager

import pytest

import reverie
from reverie import content_id
from reverie.errors import ReverieError
from reverie.gitstore import writer
from reverie.gitstore.location import choose
from reverie.gitstore.writer import LEFT_BUSY, state_dir
from reverie.storage import fsutil, repostate


def _record(ws):
    return state_dir(choose(ws).git_dir) / LEFT_BUSY


@contextmanager
def _held(path):
    """``path`` open for writing in another program (a sync client, an editor's buffer)."""
    with open(path, "r+") as holder:
        yield holder


@pytest.fixture
def lisbon(tmp_path, monkeypatch):
    """An open memory whose USER.md holds one dreamed line, and its workspace."""
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.dream()
        yield memory, ws


def _add_tea(memory):
    before = memory.read("USER.md")
    memory.write("USER.md", before + "- Likes tea\n", base=content_id(before))
    return before


def _held_commit(memory, ws, *, save=None):
    """Commit "- Likes tea" added to USER.md while another program holds it open for writing (so
    the commit leaves it unwritten); ``save``: what that program then writes through its handle."""
    with _held(ws / "USER.md") as holder:
        before = _add_tea(memory)
        assert (ws / "USER.md").read_text() == before
        if save is not None:
            holder.seek(0)
            holder.write(save)
            holder.truncate()
    assert _record(ws).exists()
    return before


def _removals(memory):
    """The commits that took lines out of USER.md (none should here)."""
    return [e for e in memory.log() if any(f.path == "USER.md" and f.removed for f in e.files)]


NOTE = "# Notes\n- a note\n"


def _full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_merge_whose_commit_fails_is_still_merged_by_the_next_write(lisbon, monkeypatch):
    """A save made on top of the version left is merged with the commit's change and committed; the
    record used to be dropped before that commit, so a commit that failed (a full disk, a kill)
    left the save to be committed as it was: the committed line taken out, no archive entry."""
    memory, ws = lisbon
    before = memory.read("USER.md")
    _held_commit(memory, ws, save="- Plays chess\n" + before)
    with monkeypatch.context() as m:
        m.setattr(writer, "write_loose", _full_disk)
        with pytest.raises(ReverieError):
            memory.write("memory/MEMORY.md", NOTE)
    memory.write("memory/MEMORY.md", NOTE)
    text, committed = memory.read("USER.md"), memory.committed("USER.md") or ""
    for kept in ("Likes tea", "Plays chess", "Lisbon"):
        assert kept in text and kept in committed
    assert not _record(ws).exists()


def test_a_record_damaged_in_one_line_keeps_its_other_lines(lisbon, caplog):
    """One line that does not parse (a torn copy, a stray edit) used to drop the whole record, so
    every file it named was committed back from disk as a person's edit."""
    memory, ws = lisbon
    _held_commit(memory, ws)
    with _record(ws).open("a") as f:
        f.write("0123 not-an-id MEMORY.md\n")
    with caplog.at_level(logging.WARNING):
        memory.write("memory/MEMORY.md", NOTE)
    assert any("does not parse" in r.getMessage() for r in caplog.records)
    assert "Likes tea" in memory.read("USER.md")
    assert "Likes tea" in (memory.committed("USER.md") or "")
    assert not _removals(memory)
    assert not _record(ws).exists()


def test_a_full_disk_when_the_record_is_rewritten_does_not_stop_the_write(lisbon, monkeypatch):
    """The file still held at the next write, and the record cannot be rewritten (a full disk): the
    record as it was stays true, so the write goes on (it used to fail with a bare OSError) and the
    file is finished once let go."""
    memory, ws = lisbon
    with _held(ws / "USER.md"):
        _add_tea(memory)
        with monkeypatch.context() as m:
            m.setattr(repostate, "atomic_write", _full_disk)
            memory.write("memory/MEMORY.md", NOTE)
        assert "a note" in (memory.committed("memory/MEMORY.md") or "")
        assert _record(ws).exists()
    memory.write("memory/MEMORY.md", NOTE + "- another\n")
    assert "Likes tea" in (memory.committed("USER.md") or "")
    assert "Likes tea" in memory.read("USER.md")
    assert not _removals(memory)
    assert not _record(ws).exists()


def test_status_and_faults_name_a_file_still_left_unwritten(lisbon):
    """``reverie status`` and the workspace's faults (the UI's check) name the file a commit could
    not write, until the next write finishes it; reading them changes nothing."""
    memory, ws = lisbon
    _held_commit(memory, ws)
    record = _record(ws).read_bytes()
    assert [p for p in memory.status().problems if p.startswith("USER.md: ")]
    assert [f for f in memory.faults() if f.path == "USER.md"]
    assert _record(ws).read_bytes() == record
    memory.write("memory/MEMORY.md", NOTE)
    assert not [p for p in memory.status().problems if p.startswith("USER.md")]
    assert not [f for f in memory.faults() if f.path == "USER.md"]


def test_a_deletion_of_a_held_file_is_finished_by_the_next_write(lisbon):
    """A restore that deletes a file (an archive file the undone run created) while another program
    holds it open for writing: the file stays (deleting it would drop that program's next save into
    a file no name reaches), and the deletion used to be recorded nowhere, so the next write
    committed the file back as a person's ``manual`` edit, undoing the restore's deletion. It is
    recorded like a write left undone, and the next write finishes it once the file is let go."""
    memory, ws = lisbon
    archive = "memory/archive/user.md"
    memory.remember("User: I moved to Porto.")
    second = memory.dream().commit
    assert second and (ws / archive).exists()
    with _held(ws / archive):
        assert memory.restore(second).commit
        assert memory.committed(archive) is None
        assert (ws / archive).exists()
        assert _record(ws).exists()
        assert [f for f in memory.faults() if f.path == archive]
    memory.write("memory/MEMORY.md", NOTE)
    assert not (ws / archive).exists()
    assert memory.committed(archive) is None
    assert memory.log(limit=1)[0].files[0].path == "memory/MEMORY.md"
    assert not _record(ws).exists()


def test_a_restore_planned_while_a_file_is_left_unwritten_keeps_what_it_does_not_undo(lisbon):
    """``Memory.restore()`` plans over the files as they are (bound to HEAD, changes since kept):
    a file still left unwritten showed the version before the commits it missed, so the lines
    those commits added read as a person's removal made since and were taken out by the restore
    too (or it refused with an EditConflictError) — here a line written before the run the
    restore undoes."""
    memory, ws = lisbon
    with _held(ws / "USER.md"):
        before = _add_tea(memory)
        memory.remember("User: my dog is called Rex.")
        assert memory.dream().commit
        assert (ws / "USER.md").read_text() == before
    preview = memory.plan_restore()
    removed = [ln for ln in preview.diff.splitlines() if ln.startswith("-") and "tea" in ln]
    assert not removed
    assert memory.restore().commit
    text, committed = memory.read("USER.md"), memory.committed("USER.md") or ""
    assert "Rex" not in committed
    for kept in ("Likes tea", "Lisbon"):
        assert kept in text and kept in committed


def test_a_save_merged_while_the_file_is_still_held_is_finished_once_let_go(lisbon):
    """A program that keeps the file open and saves through it now and then: its save on the version
    left is merged with the commit's change and committed while it still holds the file, so the
    merge is left unwritten in turn. The record of that (made by the merge's own commit) used to be
    dropped with the settled one, and named the version left as HEAD's before the merge, not the
    save on disk; the next write committed the save back over the committed line either way."""
    memory, ws = lisbon
    with _held(ws / "USER.md") as holder:
        before = _add_tea(memory)
        holder.write("- Plays chess\n" + before)
        holder.flush()
        memory.write("memory/MEMORY.md", NOTE)  # merges the save and tea; cannot write them
        assert (ws / "USER.md").read_text() == "- Plays chess\n" + before
        assert _record(ws).exists()
    memory.write("memory/MEMORY.md", NOTE + "- another\n")
    text, committed = memory.read("USER.md"), memory.committed("USER.md") or ""
    for kept in ("Likes tea", "Plays chess", "Lisbon"):
        assert kept in text and kept in committed
    assert not _removals(memory)
    assert not _record(ws).exists()
