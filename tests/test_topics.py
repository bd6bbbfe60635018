"""Topic files (reverie.storage.topics) and whole files leaving or moving
(reverie.operations.files): a topic
file at any depth is versioned (the git CLI sees it tracked, a hidden file beside it ignored),
indexed by Recall, within its budget and listed by name; delete, rename and clear are each one
commit whose removed lines land in the archive, undone by a restore of that commit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.gitcli import git

import reverie
from reverie.errors import UnsafePathError, WorkspaceError
from reverie.operations.files import FILES_ARCHIVE, clear_files, delete_file, rename_file
from reverie.storage.topics import check_topic, description, listing, topic_files, topic_path

GIT = shutil.which("git")


@pytest.fixture
def memory(tmp_path: Path):
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        yield memory


def test_a_topic_file_at_any_depth_is_versioned_indexed_and_listed(memory) -> None:
    ws = memory.workspace
    rel = "memory/topics/projects/acme/notes.md"
    text = "---\ndescription: what Acme asked for\n---\n- Acme wants invoices in EUR.\n"
    done = memory.write(rel, text, kind="agent", message="agent: note")
    assert done.commit is not None
    assert memory.log(limit=1)[0].files[0].path == rel
    hidden = ws.root / "memory/topics/projects/.draft.md"
    hidden.write_text("- scratch\n")
    if GIT:
        assert git(ws.root, "ls-files", "memory/topics").split() == [rel]
        assert ".draft.md" in git(ws.root, "status", "--porcelain", "--ignored")
        assert git(ws.root, "status", "--porcelain", "--untracked-files=all", "memory") == ""
    assert topic_files(ws) == [rel]
    hits = memory.recall("invoices EUR")
    assert hits and hits[0].source.path == rel
    assert listing(ws) == f"- {rel} ({len(text)} B): what Acme asked for"
    memory.restore(done.commit, only=True)
    assert not (ws.root / rel).exists() and topic_files(ws) == []


def test_the_budget_and_the_listing_say_what_to_do(memory) -> None:
    ws = memory.workspace
    with pytest.raises(WorkspaceError, match="holds at most 100: keep what matters"):
        check_topic(ws, "memory/topics/a.md", "x" * 101, max_chars=100, max_files=5)
    for n in range(3):
        memory.write(f"memory/topics/t{n}.md", f"- fact {n}\n")
    with pytest.raises(WorkspaceError, match="3 topic files already"):
        check_topic(ws, "memory/topics/new.md", "- y", max_chars=100, max_files=3)
    check_topic(ws, "memory/topics/t1.md", "- y", max_chars=100, max_files=3)  # an existing one
    assert listing(ws, max_chars=60).endswith("- … and 1 more (search finds them)")
    assert description("no front matter") is None
    with pytest.raises(UnsafePathError):
        topic_path("../USER.md")
    with pytest.raises(UnsafePathError):
        topic_path("a/.hidden.md")


def test_delete_archives_every_line_in_one_commit_and_a_restore_undoes_it(memory) -> None:
    ws = memory.workspace
    memory.write("memory/topics/progress.md", "# Progress\n\n- Feature A done.\n- B next.\n")
    memory.write("memory/2026-11-02-standup.md", "- Standup moved to 10:00.\n")
    done = delete_file(
        ws, memory.runtime.git, "memory/topics/progress.md", kind="agent", reason="stale"
    )
    assert done.deleted == ("memory/topics/progress.md",) and done.archived == 2
    assert not (ws.root / "memory/topics/progress.md").exists()
    archive = (ws.root / FILES_ARCHIVE).read_text()
    assert "- Feature A done. · deleted " in archive and "from memory/topics/progress.md" in archive
    assert "by an agent (stale)" in archive
    assert [p.path for p in memory.why("Feature A done")] == [FILES_ARCHIVE]
    assert memory.log(limit=1)[0].sha == done.commit
    memory.restore(done.commit, only=True)
    assert "- Feature A done." in (ws.root / "memory/topics/progress.md").read_text()
    assert not (ws.root / FILES_ARCHIVE).exists()  # it came with the deletion
    delete_file(ws, memory.runtime.git, "memory/2026-11-02-standup.md")
    assert not (ws.root / "memory/2026-11-02-standup.md").exists()
    for refused in ("USER.md", "memory/MEMORY.md", "memory/archive/user.md"):
        with pytest.raises((WorkspaceError, UnsafePathError)):
            delete_file(ws, memory.runtime.git, refused)
    with pytest.raises(FileNotFoundError):
        delete_file(ws, memory.runtime.git, "memory/topics/none.md")


def test_rename_moves_a_file_or_a_folder_unchanged(memory) -> None:
    ws, git = memory.workspace, memory.runtime.git
    memory.write("memory/topics/drafts/a.md", "- one\n")
    memory.write("memory/topics/drafts/b.md", "- two\n")
    done = rename_file(ws, git, "memory/topics/drafts", "memory/topics/final")
    assert sorted(done.written) == ["memory/topics/final/a.md", "memory/topics/final/b.md"]
    assert topic_files(ws) == ["memory/topics/final/a.md", "memory/topics/final/b.md"]
    assert not (ws.root / "memory/topics/drafts").exists()  # the emptied folder goes too
    assert not (ws.root / FILES_ARCHIVE).exists()  # nothing left memory
    with pytest.raises(FileExistsError):
        rename_file(ws, git, "memory/topics/final/a.md", "memory/topics/final/b.md")
    with pytest.raises(WorkspaceError):
        rename_file(ws, git, "USER.md", "memory/topics/user.md")
    with pytest.raises(UnsafePathError):
        rename_file(ws, git, "memory/topics/final/a.md", "memory/archive/a.md")
    with pytest.raises(UnsafePathError):
        rename_file(ws, git, "memory/topics/final", "memory/topics/final/inner")
    memory.restore(done.commit, only=True)
    assert topic_files(ws) == ["memory/topics/drafts/a.md", "memory/topics/drafts/b.md"]


def test_clear_empties_memory_in_one_commit_keeping_soul_and_every_line(memory) -> None:
    ws = memory.workspace
    soul = (ws.root / "SOUL.md").read_text()
    memory.write("USER.md", (ws.root / "USER.md").read_text() + "\n- Lives in Lisbon.\n")
    memory.write("memory/topics/t.md", "- Topic fact.\n")
    memory.write("memory/2026-11-03.md", "# 2026-11-03\n\n- Dated fact.\n")
    before = len(memory.log(limit=100))
    done = clear_files(ws, memory.runtime.git)
    assert len(memory.log(limit=100)) == before + 1
    assert topic_files(ws) == [] and not (ws.root / "memory/2026-11-03.md").exists()
    assert "Lisbon" not in (ws.root / "USER.md").read_text()
    assert (ws.root / "SOUL.md").read_text() == soul
    assert "- Lives in Lisbon. · cleared" in (ws.root / "memory/archive/user.md").read_text()
    files = (ws.root / FILES_ARCHIVE).read_text()
    assert "Topic fact." in files and "Dated fact." in files
    assert done.archived == 3
    memory.restore(done.commit, only=True)
    assert "Lisbon" in (ws.root / "USER.md").read_text() and topic_files(ws) == [
        "memory/topics/t.md"
    ]
