"""Conformance with nanobot's own test suite, behaviour by behaviour, through Reverie's public API.

The specification is nanobot-ai's tests at tag v0.1.5.post3 (``tests/agent/test_memory_store.py``,
``test_cursor_recovery.py``, ``test_git_store.py``, ``test_session_atomic.py``) and at v0.1.4.post4
(``tests/test_memory_consolidation_types.py``). Each class below names the file it follows; each
test states the behaviour nanobot checks. Where Reverie deliberately differs, the test asserts
Reverie's behaviour and says why (the list is in docs/nanobot.md, "Differences, and why"). Tests of
nanobot's private helpers and of its loguru output have no counterpart.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from datetime import datetime
from pathlib import Path

import orjson
import pytest

from reverie import MemoryStore
from reverie.errors import GitStoreError, SessionError, UnknownRevisionError
from reverie.gitstore import GitStore
from reverie.llm.client import ModelClient
from reverie.llm.scripted import ScriptedModel
from reverie.llm.types import ToolCall
from reverie.storage.config import Config, GitConfig
from reverie.storage.history import DEFAULT_MAX_ENTRY_CHARS
from reverie.storage.sessions import Session, SessionStore
from reverie.storage.workspace import Workspace


def write_lines(path: Path, *lines: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def entry(cursor: object, content: str, stamp: str = "2026-04-01 10:00") -> str:
    return orjson.dumps({"cursor": cursor, "timestamp": stamp, "content": content}).decode()


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    return MemoryStore(tmp_path)


# == test_memory_store.py
# ========================================================================================
class TestMemoryFiles:
    def test_missing_files_read_empty(self, store):
        assert store.read_memory() == store.read_soul() == store.read_user() == ""
        assert store.get_memory_context() == ""

    def test_each_file_round_trips(self, store):
        store.write_memory("hello")
        store.write_soul("soul content")
        store.write_user("user content")
        assert (store.read_memory(), store.read_soul(), store.read_user()) == (
            "hello",
            "soul content",
            "user content",
        )
        assert store.memory_file.read_text() == "hello" and store.read_long_term() == "hello"

    def test_memory_context_is_a_labelled_block(self, store):
        store.write_memory("important fact")
        ctx = store.get_memory_context()
        assert "Long-term Memory" in ctx and "important fact" in ctx


class TestHistoryCursors:
    def test_append_returns_consecutive_cursors_and_writes_them(self, store):
        assert [store.append_history(f"event {i}") for i in range(3)] == [1, 2, 3]
        first = orjson.loads(store.read_file(store.history_file).splitlines()[0])
        assert first["cursor"] == 1 and first["content"] == "event 0"

    @pytest.mark.parametrize(
        ("raw", "kept"),
        [
            ("<think>reasoning</think>final answer", "final answer"),
            (
                "<think>nothing user-facing</think>",
                "",
            ),  # a pure leak is stored empty, never as the raw text
            ("<channel|>", ""),
            ("<think>unclosed reasoning at the start", ""),
            ("talk about the <thinking> tag", "talk about the <thinking> tag"),
        ],
    )
    def test_reasoning_and_template_leaks_never_reach_history(self, store, raw, kept):
        cursor = store.append_history(raw)
        (row,) = [orjson.loads(line) for line in store.read_file(store.history_file).splitlines()]
        assert row["cursor"] == cursor and row["content"] == kept

    def test_unprocessed_history_reads_past_the_cursor_as_dicts(self, store):
        for i in range(3):
            store.append_history(f"event {i + 1}")
        later = store.read_unprocessed_history(since_cursor=1)
        assert [e["cursor"] for e in later] == [2, 3] and later[0]["content"] == "event 2"
        assert len(store.read_unprocessed_history(since_cursor=0)) == 3
        assert later[0].get("session_key") is None and "session_key" not in later[0]

    def test_entries_without_a_cursor_are_skipped(self, store):
        write_lines(
            store.history_file,
            '{"timestamp": "2026-04-01 10:00", "content": "no cursor"}',
            entry(2, "valid"),
            entry(3, "also valid"),
        )
        assert [e["cursor"] for e in store.read_unprocessed_history(0)] == [2, 3]

    def test_a_log_with_no_valid_cursor_starts_at_one(self, store):
        write_lines(store.history_file, '{"timestamp": "2026-04-01 10:01", "content": "no cursor"}')
        (store.memory_dir / ".cursor").unlink(missing_ok=True)
        assert store.append_history("new event") == 1

    def test_compaction_drops_the_oldest_dreamed_entries_atomically(self, tmp_path):
        # nanobot drops the oldest entries past max_history_entries whatever Dream has read; Reverie
        # never drops an entry Dream has not consumed (a deliberate difference), so the Dream cursor
        # is moved first here.
        store = MemoryStore(tmp_path, max_history_entries=2)
        for i in range(5):
            store.append_history(f"event {i + 1}")
        assert store.compact_history() == 0  # nothing dreamed yet: nothing may go
        store.set_last_dream_cursor(5)
        assert store.compact_history() == 3
        assert [e["cursor"] for e in store.read_unprocessed_history(0)] == [4, 5]
        assert (
            sorted(p.name for p in store.memory_dir.iterdir() if ".tmp" in p.name) == []
        )  # no temp file left
        assert store.append_history("after") == 6  # a dropped cursor is never issued again


class TestHistoryHardCap:
    def test_an_oversized_entry_is_truncated_with_a_short_marker(self, store):
        store.append_history("x" * (DEFAULT_MAX_ENTRY_CHARS + 10_000))
        assert len(store.read_unprocessed_history(0)[0]["content"]) <= DEFAULT_MAX_ENTRY_CHARS + 50

    def test_max_chars_applies_a_tighter_cap(self, store):
        store.append_history("a" * 500, max_chars=100)
        content = store.read_unprocessed_history(0)[0]["content"]
        assert content.startswith("a" * 100) and len(content) <= 150

    def test_raw_archive_keeps_every_message_in_entries_within_the_cap(self, store):
        messages = [
            {
                "role": "user" if i % 2 == 0 else "assistant",
                "content": f"message {i} " + "x" * 300,
                "timestamp": "2026-04-01T10:00:00",
            }
            for i in range(20)
        ]
        (cursor,) = store.raw_archive(messages[:3], "cli:a")
        (got,) = store.read_unprocessed_history(0)
        assert got["cursor"] == cursor and got["session_key"] == "cli:a"
        assert got["content"].startswith("[RAW] 3 messages\n") and "message 2" in got["content"]
        cursors = store.raw_archive(
            messages, max_chars=2_000
        )  # nanobot truncates; Reverie splits, losing nothing
        parts = [e["content"] for e in store.read_unprocessed_history(cursor)]
        assert len(cursors) == len(parts) > 1 and all(len(p) <= 2_000 for p in parts)
        assert all(f"message {i} " in "".join(parts) for i in range(20))

    def test_max_chars_of_zero_means_no_cap(self, store):
        store.append_history("a" * 500, max_chars=0)
        assert store.read_unprocessed_history(0)[0]["content"] == "a" * 500

    def test_entries_within_the_cap_are_unchanged(self, store):
        store.append_history("normal short entry")
        assert store.read_unprocessed_history(0)[0]["content"] == "normal short entry"


class TestDreamCursor:
    def test_starts_at_zero_and_persists_across_stores(self, store):
        assert store.get_last_dream_cursor() == 0
        store.set_last_dream_cursor(5)
        assert store.get_last_dream_cursor() == 5
        store.set_last_dream_cursor(3)
        assert MemoryStore(store.workspace).get_last_dream_cursor() == 3


class TestLegacyHistoryMigration:
    @staticmethod
    def legacy(tmp_path: Path, data: str | bytes) -> Path:
        path = tmp_path / "memory" / "HISTORY.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return path

    @staticmethod
    def fallback(tmp_path: Path) -> str:
        return datetime.fromtimestamp(
            (tmp_path / "memory" / "HISTORY.md.bak").stat().st_mtime
        ).strftime("%Y-%m-%d %H:%M")

    def test_a_jsonl_entry_with_cursor_one_is_read(self, store):
        write_lines(store.history_file, entry(1, "Old event", "2026-03-30 14:30"))
        assert [e["cursor"] for e in store.read_unprocessed_history(0)] == [1]

    def test_entries_raw_blocks_and_unstamped_chunks_keep_their_boundaries(self, tmp_path):
        text = (
            "[2026-04-01 10:00] User prefers dark mode.\n\n"
            "[2026-04-01 10:05] [RAW] 2 messages\n"
            "[2026-04-01 10:04] USER: hello\n"
            "[2026-04-01 10:04] ASSISTANT: hi\n\n"
            "Legacy chunk without timestamp.\n"
            "Keep whatever content we can recover.\n"
        )
        legacy = self.legacy(tmp_path, text)
        store = MemoryStore(tmp_path)
        got = store.read_unprocessed_history(0)
        assert [e["cursor"] for e in got] == [1, 2, 3]
        assert (got[0]["timestamp"], got[0]["content"]) == (
            "2026-04-01 10:00",
            "User prefers dark mode.",
        )
        assert got[1]["timestamp"] == "2026-04-01 10:05"
        assert (
            got[1]["content"].startswith("[RAW] 2 messages") and "USER: hello" in got[1]["content"]
        )
        assert "ASSISTANT: hi" in got[1]["content"]
        assert got[2]["timestamp"] == self.fallback(tmp_path)
        assert got[2]["content"].startswith("Legacy chunk without timestamp.")
        assert store.read_file(store.memory_dir / ".cursor").strip() == "3"
        assert (
            store.read_file(store.memory_dir / ".dream_cursor").strip() == "3"
        )  # old history is not re-dreamed
        assert not legacy.exists() and (tmp_path / "memory" / "HISTORY.md.bak").read_text() == text

    def test_consecutive_stamped_lines_are_separate_entries(self, tmp_path):
        self.legacy(
            tmp_path,
            "[2026-04-01 10:00] First event.\n[2026-04-01 10:01] Second event.\n"
            "[2026-04-01 10:02] Third event.\n",
        )
        got = MemoryStore(tmp_path).read_unprocessed_history(0)
        assert [e["content"] for e in got] == ["First event.", "Second event.", "Third event."]

    def test_a_raw_block_stays_one_entry_and_the_next_event_splits(self, tmp_path):
        self.legacy(
            tmp_path,
            "[2026-04-01 10:05] [RAW] 2 messages\n[2026-04-01 10:04] USER: hello\n"
            "[2026-04-01 10:04] ASSISTANT: hi\n[2026-04-01 10:06] Normal event after raw block.\n",
        )
        got = MemoryStore(tmp_path).read_unprocessed_history(0)
        assert len(got) == 2 and got[0]["content"].startswith("[RAW] 2 messages")
        assert (
            "USER: hello" in got[0]["content"]
            and got[1]["content"] == "Normal event after raw block."
        )

    def test_nonstandard_date_headers_start_entries_and_keep_their_text(self, tmp_path):
        self.legacy(
            tmp_path,
            "[2026-03-25–2026-04-02] Multi-day summary.\n[2026-03-26/27] Cross-day summary.\n",
        )
        got = MemoryStore(tmp_path).read_unprocessed_history(0)
        stamp = self.fallback(tmp_path)
        assert [(e["timestamp"], e["content"]) for e in got] == [
            (stamp, "[2026-03-25–2026-04-02] Multi-day summary."),
            (stamp, "[2026-03-26/27] Cross-day summary."),
        ]

    def test_a_non_empty_history_jsonl_means_no_migration(self, tmp_path):
        write_lines(tmp_path / "memory" / "history.jsonl", entry(7, "existing", "2026-04-01 12:00"))
        legacy = self.legacy(tmp_path, "[2026-04-01 10:00] legacy\n\n")
        got = MemoryStore(tmp_path).read_unprocessed_history(0)
        assert [(e["cursor"], e["content"]) for e in got] == [(7, "existing")]
        assert legacy.exists() and not (tmp_path / "memory" / "HISTORY.md.bak").exists()

    def test_an_empty_history_jsonl_still_migrates(self, tmp_path):
        (tmp_path / "memory").mkdir()
        (tmp_path / "memory" / "history.jsonl").write_text("")
        legacy = self.legacy(tmp_path, "[2026-04-01 10:00] legacy\n\n")
        got = MemoryStore(tmp_path).read_unprocessed_history(0)
        assert [(e["cursor"], e["timestamp"], e["content"]) for e in got] == [
            (1, "2026-04-01 10:00", "legacy")
        ]
        assert not legacy.exists() and (tmp_path / "memory" / "HISTORY.md.bak").exists()

    def test_invalid_utf8_is_migrated_not_refused(self, tmp_path):
        self.legacy(tmp_path, b"[2026-04-01 10:00] Broken \xff data still needs migration.\n\n")
        (got,) = MemoryStore(tmp_path).read_unprocessed_history(0)
        assert got["timestamp"] == "2026-04-01 10:00"
        assert "Broken" in got["content"] and "migration." in got["content"]


# == test_cursor_recovery.py
# =====================================================================================
class TestCursorRecovery:
    @pytest.mark.parametrize(
        ("lines", "expected"),
        [
            ([entry(5, "good"), entry(6, "also good"), entry("bad", "corrupted")], 7),
            ([entry("a", "bad1"), entry("b", "bad2")], 1),
            (
                [
                    entry(3, "valid"),
                    entry(3.5, "float"),
                    entry(None, "null"),
                    entry([1, 2], "list"),
                ],
                4,
            ),
            ([entry(4, "real"), entry(True, "bool")], 5),  # a bool is not a cursor
            ([entry(100, "high"), entry(5, "out of order"), entry("poison", "tail corrupt")], 101),
        ],
    )
    def test_next_cursor_is_past_every_valid_cursor(self, store, lines, expected):
        write_lines(store.history_file, *lines)
        (store.memory_dir / ".cursor").unlink(missing_ok=True)
        assert store.append_history("next") == expected

    def test_a_corrupt_cursor_file_falls_back_to_the_log(self, store):
        store.memory_dir.mkdir(parents=True, exist_ok=True)
        (store.memory_dir / ".cursor").write_text("not_a_number")
        write_lines(store.history_file, entry(10, "valid"))
        assert store.append_history("after bad cursor file") == 11

    @pytest.mark.parametrize(
        ("lines", "cursors"),
        [
            ([entry(1, "valid1"), entry("bad", "corrupted"), entry(3, "valid3")], [1, 3]),
            (
                [entry("x", "bad"), entry(2, "good2"), entry(None, "also bad"), entry(4, "good4")],
                [2, 4],
            ),
            ([entry(4, "real"), entry(True, "bool"), entry(5, "next")], [4, 5]),
        ],
    )
    def test_readers_skip_non_int_cursors_and_keep_order(self, store, lines, cursors):
        write_lines(store.history_file, *lines)
        assert [e["cursor"] for e in store.read_unprocessed_history(0)] == cursors

    def test_valid_logs_are_unaffected(self, store):
        for i in range(3):
            store.append_history(f"event {i + 1}")
        assert [e["cursor"] for e in store.read_unprocessed_history(1)] == [2, 3]


# == test_git_store.py
# ===========================================================================================
TRACKED = ["SOUL.md", "USER.md", "memory/MEMORY.md"]


@pytest.fixture
def git(tmp_path) -> GitStore:
    return GitStore(Workspace(tmp_path), GitConfig(tracked_files=TRACKED))


@pytest.fixture
def git_ready(git) -> GitStore:
    for rel in (
        TRACKED
    ):  # Reverie's first commit holds the files that exist (nanobot's init creates them empty)
        path = git.workspace.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    git.ensure()
    return git


def edit(g: GitStore, rel: str, text: str, message: str) -> str | None:
    (g.workspace.root / rel).write_text(text)
    return g.commit(message, kind="manual")


class TestGitInit:
    def test_nothing_is_created_until_the_first_write(self, git, tmp_path):
        assert not (tmp_path / ".git").exists()

    def test_ensure_creates_the_repo_once(self, git_ready, tmp_path):
        assert (tmp_path / ".git").is_dir()
        git_ready.ensure()
        commits = git_ready.log()
        assert len(commits) == 1 and commits[0].subject.startswith("init")

    def test_ignore_rules_re_include_every_tracked_file(self, git_ready, tmp_path):
        text = (tmp_path / ".gitignore").read_text()
        lines = text.splitlines()
        assert "*" in lines and all(f"!/{rel}" in lines for rel in TRACKED) and "!/memory/" in lines


class TestGitCommit:
    def test_a_change_is_committed_and_listed_newest_first(self, git_ready):
        sha = edit(git_ready, "SOUL.md", "updated", "update soul")
        assert (
            sha is not None and len(sha) == 40
        )  # Reverie returns full shas (nanobot: 8 characters)
        commits = git_ready.log()
        assert len(commits) == 2 and commits[0].sha == sha and commits[0].subject == "update soul"

    def test_no_change_no_commit(self, git_ready):
        assert git_ready.commit("nothing 1", kind="manual") is None
        assert git_ready.commit("nothing 2", kind="manual") is None
        assert len(git_ready.log()) == 1

    def test_log_order_limit_and_fields(self, git_ready):
        for i in range(3):
            edit(git_ready, "SOUL.md", f"v{i}", f"commit {i}")
        commits = git_ready.log()
        assert (
            len(commits) == 4
            and commits[0].subject == "commit 2"
            and commits[-1].subject.startswith("init")
        )
        for i in range(3, 10):
            edit(git_ready, "SOUL.md", f"v{i}", f"c{i}")
        assert len(git_ready.log(limit=3)) == 3
        c = git_ready.log()[0]
        assert len(c.short) == 8 and isinstance(c.time, datetime) and c.message


class TestGitQueries:
    def test_diff_between_two_commits(self, git_ready):
        a = edit(git_ready, "SOUL.md", "original\n", "v1")
        b = edit(git_ready, "SOUL.md", "modified\n", "v2")
        assert "+modified" in git_ready.diff(a, b)

    def test_unknown_revisions_are_a_clear_error(self, git_ready):
        # nanobot answers "" / None; Reverie raises UnknownRevisionError so a typo is never read as
        # "no change"
        with pytest.raises(UnknownRevisionError):
            git_ready.diff("deadbeef", "cafebabe")
        with pytest.raises(UnknownRevisionError):
            git_ready.resolve("deadbeef")
        with pytest.raises(UnknownRevisionError):
            git_ready.show("deadbeef")

    def test_a_prefix_finds_its_commit(self, git_ready):
        sha = edit(git_ready, "SOUL.md", "v2", "v2")
        assert git_ready.resolve(sha[:4]) == sha

    def test_show_returns_the_commit_and_its_diff(self, git_ready):
        sha = edit(git_ready, "SOUL.md", "content\n", "add content")
        detail = git_ready.show(sha)
        assert detail.info.sha == sha and "+content" in detail.diff

    def test_the_first_commit_of_empty_files_changes_no_line(self, git_ready):
        # nanobot shows "" for the root commit; Reverie shows git's diff against nothing: the files
        # it added (the tracked files, empty here, and its .gitignore)
        diff = git_ready.show(git_ready.log()[-1].sha).diff
        assert diff.count("new file mode") == 4
        changed = {ln[6:] for ln in diff.splitlines() if ln.startswith("+++ b/")}
        assert changed == {".gitignore"}  # the empty memory files add no line


class TestGitUndo:
    def test_restore_puts_back_the_state_before_a_commit(self, git_ready, tmp_path):
        # nanobot's revert(sha) restores the commit's parent; Reverie's restore(sha) does the same
        # (its revert undoes only that commit's change, keeping later ones)
        edit(git_ready, "SOUL.md", "v2 content", "v2")
        result = git_ready.restore(git_ready.log()[0].sha)
        assert result.commit is not None and (tmp_path / "SOUL.md").read_text() == ""

    def test_the_root_commit_cannot_be_restored_past(self, git_ready):
        with pytest.raises(GitStoreError):
            git_ready.restore(git_ready.log()[0].sha)

    def test_an_unknown_revision_is_refused(self, git_ready):
        with pytest.raises(UnknownRevisionError):
            git_ready.restore("deadbeef")


class TestNanobotGitNames:
    """nanobot's GitStore method names (reverie.gitstore.nanobot_api), with its None/"" answers."""

    def test_init_once_creates_the_tracked_files_and_one_commit(self, tmp_path):
        g = GitStore(tmp_path, tracked_files=TRACKED)
        assert not g.is_initialized() and g.auto_commit("too early") is None
        assert g.diff_commits("a", "b") == "" and g.show_commit_diff("deadbeef") is None
        assert g.init() is True and g.is_initialized() and g.init() is False
        assert all((tmp_path / rel).is_file() for rel in TRACKED)
        (commit,) = g.log()
        assert "init" in commit.message

    def test_auto_commit_find_diff_and_show(self, tmp_path):
        g = GitStore(tmp_path, tracked_files=TRACKED)
        g.init()
        assert g.auto_commit("no change") is None
        (tmp_path / "SOUL.md").write_text("original\n")
        a = g.auto_commit("v1")
        (tmp_path / "SOUL.md").write_text("modified\n")
        b = g.auto_commit("v2")
        assert a and b and g.log(max_entries=1)[0].sha == b
        assert g.find_commit(b[:4]).sha == b and g.find_commit("deadbeef") is None
        assert "+modified" in g.diff_commits(a, b) and g.diff_commits("deadbeef", "cafebabe") == ""
        commit, diff = g.show_commit_diff(b)
        assert commit.sha == b and "+modified" in diff

    def test_a_nanobot_repo_counts_as_initialised_before_adoption(self, tmp_path):
        import subprocess

        (tmp_path / "SOUL.md").write_text("soul\n")
        (tmp_path / ".gitignore").write_text("/*\n!.gitignore\n!SOUL.md\n")
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
        subprocess.run(
            [
                "git",
                "-C",
                str(tmp_path),
                "-c",
                "user.name=n",
                "-c",
                "user.email=n@x",
                "commit",
                "-q",
                "-m",
                "init: nanobot memory store",
            ],
            check=True,
        )
        g = GitStore(tmp_path, tracked_files=["SOUL.md"])
        assert g.is_initialized() and g.init() is False


class TestMemoryStoreGit:
    def test_the_store_exposes_one_git_store(self, tmp_path):
        store = MemoryStore(tmp_path)
        assert isinstance(store.git, GitStore) and store.git is store.git


# == test_session_atomic.py
# ======================================================================================
@pytest.fixture
def sessions(tmp_path) -> SessionStore:
    return SessionStore(Workspace(tmp_path))


def session_file(sessions: SessionStore, key: str, *lines: str) -> Path:
    path = sessions.path_for(key)
    write_lines(path, *lines)
    return path


def meta(key: str, **kw) -> str:
    now = datetime.now().isoformat()
    obj = {
        "_type": "metadata",
        "key": key,
        "created_at": now,
        "updated_at": now,
        "metadata": {},
        "last_consolidated": 0,
    }
    obj.update(kw)
    return orjson.dumps(obj).decode()


class TestSessionWrites:
    def test_the_file_is_a_metadata_line_then_messages(self, sessions):
        s = sessions.get_or_create("test:1")
        sessions.append(s, {"role": "user", "content": "hello"})
        sessions.append(s, {"role": "assistant", "content": "hi"})
        rows = [orjson.loads(line) for line in s.path.read_bytes().splitlines()]
        assert len(rows) == 3 and rows[0]["_type"] == "metadata" and rows[0]["key"] == "test:1"
        assert (rows[1]["role"], rows[1]["content"]) == ("user", "hello")

    def test_messages_added_in_memory_are_written_by_save(self, sessions):
        s = Session(key="test:overwrite")
        s.add_message("user", "first")
        sessions.save(s)
        s.add_message("user", "second")
        sessions.save(s)
        sessions.invalidate("test:overwrite")  # Reverie keeps no cache: a no-op
        loaded = SessionStore(sessions.workspace.root).get_or_create("test:overwrite")
        assert [m["content"] for m in loaded.messages] == ["first", "second"]
        rows = [
            orjson.loads(line)
            for line in sessions.path_for("test:overwrite").read_bytes().splitlines()
        ]
        assert rows[0]["_type"] == "metadata" and len(rows) == 3

    def test_save_never_drops_a_message_another_writer_added(self, sessions):
        # nanobot's save overwrites the file with what it holds; Reverie refuses when the file has
        # more
        s = Session(key="test:race")
        s.add_message("user", "mine")
        sessions.save(s)
        other = sessions.get_or_create("test:race")
        sessions.append(other, {"role": "user", "content": "theirs"})
        s.add_message("user", "mine again")
        with pytest.raises(SessionError):
            sessions.save(s)
        assert [m["content"] for m in sessions.get_or_create("test:race").messages] == [
            "mine",
            "theirs",
        ]

    def test_no_temp_file_is_left_behind(self, sessions, monkeypatch):
        s = sessions.get_or_create("test:clean")
        sessions.append(s, {"role": "user", "content": "x"})
        sessions.save_offset(s, 1)
        assert [p for p in sessions.dir.iterdir() if ".tmp" in p.name] == []

    def test_a_failed_rewrite_leaves_no_temp_file_and_the_old_session(self, sessions, monkeypatch):
        s = sessions.get_or_create("test:fail")
        sessions.append(s, {"role": "user", "content": "ok"})
        before = s.path.read_bytes()

        def disk_full(*args, **kwargs):
            raise OSError(28, "simulated disk full")

        monkeypatch.setattr(os, "replace", disk_full)
        with pytest.raises(OSError):
            sessions.save_offset(s, 1)
        monkeypatch.undo()
        assert [p for p in sessions.dir.iterdir() if ".tmp" in p.name] == []
        assert s.path.read_bytes() == before

    def test_every_message_survives_repeated_writes(self, sessions):
        s = sessions.get_or_create("test:consistency")
        for i in range(5):
            sessions.append(s, {"role": "user", "content": f"msg{i}"})
        loaded = SessionStore(sessions.workspace).get_or_create("test:consistency")
        assert [m["content"] for m in loaded.messages] == [f"msg{i}" for i in range(5)]


class TestSessionRepair:
    def test_a_truncated_last_line_is_ignored(self, sessions):
        session_file(
            sessions,
            "test:trunc",
            meta("test:trunc"),
            '{"role": "user", "content": "hello"}',
            '{"role": "assistant", "content": "partial...',
        )
        assert [m["content"] for m in sessions.get_or_create("test:trunc").messages] == ["hello"]

    def test_a_corrupt_metadata_line_is_skipped(self, sessions):
        session_file(
            sessions, "test:badmeta", "NOT VALID JSON!!!", '{"role": "user", "content": "survived"}'
        )
        assert [m["content"] for m in sessions.get_or_create("test:badmeta").messages] == [
            "survived"
        ]

    def test_a_wholly_corrupt_file_opens_as_an_empty_session(self, sessions):
        session_file(sessions, "test:allbad", "garbage line 1", "garbage line 2", "{{invalid json")
        s = sessions.get_or_create("test:allbad")
        assert s.messages == [] and s.key == "test:allbad"
        session_file(sessions, "test:fallback", "{{{{")
        assert sessions.get_or_create("test:fallback").messages == []

    def test_an_empty_file_is_an_empty_session_of_its_key(self, sessions):
        session_file(sessions, "test:empty")
        s = sessions.get_or_create("test:empty")
        assert s.messages == [] and s.key == "test:empty"

    def test_valid_messages_amid_corruption_are_kept_in_order(self, sessions):
        session_file(
            sessions,
            "test:mixed",
            meta("test:mixed"),
            "BROKEN",
            '{"role": "user", "content": "msg1"}',
            '{"role": "assistant", "content": "broken',
            '{"role": "user", "content": "msg2"}',
        )
        assert [m["content"] for m in sessions.get_or_create("test:mixed").messages] == [
            "msg1",
            "msg2",
        ]

    def test_bad_timestamps_fall_back_and_an_offset_past_the_end_is_reset(self, sessions):
        session_file(
            sessions,
            "test:badts",
            meta("test:badts", created_at="not-a-date", updated_at="also-bad", last_consolidated=5),
            '{"role": "user", "content": "hi"}',
        )
        s = sessions.get_or_create("test:badts")
        assert isinstance(s.created_at, datetime)
        # nanobot keeps 5 for one message; Reverie resets an offset past the end to 0 (re-archive,
        # never skip)
        assert s.last_consolidated == 0
        session_file(
            sessions,
            "test:ok",
            meta("test:ok", last_consolidated=1),
            '{"role": "user", "content": "hi"}',
        )
        assert sessions.get_or_create("test:ok").last_consolidated == 1

    def test_read_session_file_returns_the_repaired_payload(self, sessions):
        session_file(
            sessions,
            "test:read-repair",
            meta("test:read-repair", metadata={"source": "repair"}),
            '{"role": "user", "content": "survived"}',
            '{"role": "assistant", "content": "partial...',
        )
        payload = sessions.read_session_file("test:read-repair")
        assert payload is not None and payload["key"] == "test:read-repair"
        assert payload["metadata"] == {"source": "repair"}
        assert payload["messages"] == [{"role": "user", "content": "survived"}]
        assert sessions.read_session_file("test:none") is None

    def test_listing_keeps_a_repaired_file(self, sessions):
        session_file(
            sessions,
            "test:list-repair",
            "NOT VALID JSON",
            meta("test:list-repair"),
            '{"role": "user", "content": "hello"}',
        )
        assert any(s["key"] == "test:list-repair" for s in sessions.list_sessions())


# == test_memory_consolidation_types.py (v0.1.4.post4)
# ===========================================================
_names = itertools.count()


@pytest.fixture
def seeded(tmp_path):
    fake = ScriptedModel.register(f"conformance{next(_names)}")
    config = Config.model_validate({"agents": {"defaults": {"model": fake.model}}})
    store = MemoryStore(tmp_path, config=config)
    session = Session(
        key="cli:test",
        messages=[
            {"role": "user", "content": f"msg{i}", "timestamp": "2026-01-01 00:00"}
            for i in range(60)
        ],
    )
    yield store, session, ModelClient(config), fake
    ScriptedModel.unregister(fake.name)


def save_memory(arguments: object) -> ToolCall:
    raw = orjson.dumps(arguments).decode()
    return ToolCall(
        "call_1", "save_memory", arguments if isinstance(arguments, dict) else None, raw
    )


def run(store, session, client) -> bool:
    return asyncio.run(store.consolidate(session, client, None, memory_window=50))


class TestSeedConsolidateArgumentTypes:
    def test_string_arguments(self, seeded):
        store, session, client, fake = seeded
        fake.enqueue(
            save_memory(
                {
                    "history_entry": "[2026-01-01] User discussed testing.",
                    "memory_update": "# Memory\nUser likes testing.",
                }
            )
        )
        assert run(store, session, client) is True
        assert "[2026-01-01] User discussed testing." in store.history_file.read_text()
        assert "User likes testing." in store.memory_file.read_text()

    def test_dict_values_are_stored_as_json(self, seeded):
        store, session, client, fake = seeded
        fake.enqueue(
            save_memory(
                {
                    "history_entry": {
                        "timestamp": "2026-01-01",
                        "summary": "User discussed testing.",
                    },
                    "memory_update": {"facts": ["User likes testing"], "topics": ["testing"]},
                }
            )
        )
        assert run(store, session, client) is True
        # history.jsonl (nanobot 0.1.4 wrote HISTORY.md): the entry's content is the JSON text of
        # the dict
        (got,) = store.read_unprocessed_history(0)
        assert orjson.loads(got["content"])["summary"] == "User discussed testing."
        assert "User likes testing" in orjson.loads(store.memory_file.read_text())["facts"]

    def test_arguments_as_a_json_string(self, seeded):
        store, session, client, fake = seeded
        fake.enqueue(
            ToolCall(
                "call_1",
                "save_memory",
                None,
                orjson.dumps(
                    {
                        "history_entry": "[2026-01-01] User discussed testing.",
                        "memory_update": "# Memory\nUser likes testing.",
                    }
                ).decode(),
            )
        )
        assert run(store, session, client) is True
        assert "User discussed testing." in store.history_file.read_text()

    def test_a_list_of_arguments_uses_its_first_object(self, seeded):
        store, session, client, fake = seeded
        fake.enqueue(
            save_memory(
                [
                    {
                        "history_entry": "[2026-01-01] User discussed testing.",
                        "memory_update": "# Memory\nUser likes testing.",
                    }
                ]
            )
        )
        assert run(store, session, client) is True
        assert "User discussed testing." in store.history_file.read_text()
        assert "User likes testing." in store.memory_file.read_text()

    @pytest.mark.parametrize(
        "reply",
        ["I summarized the conversation.", save_memory([]), save_memory(["string", "content"])],
    )
    def test_no_usable_call_returns_false_and_writes_nothing(self, seeded, reply):
        store, session, client, fake = seeded
        fake.enqueue(reply)
        assert run(store, session, client) is False
        assert not store.history_file.exists() and session.last_consolidated == 0

    def test_too_few_messages_is_a_no_op_without_a_model_call(self, seeded):
        store, session, client, fake = seeded
        session.messages = session.messages[:10]
        assert run(store, session, client) is True
        assert fake.prompts == []
