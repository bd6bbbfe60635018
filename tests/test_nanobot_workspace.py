"""A nanobot workspace shared with Reverie (issue 20): adoption on the first write, restores that
keep Reverie's ignore rules, nanobot 0.3.5's versioned Dream cursor, one session file per key,
unique cursors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest
from support.gitcli import git

from reverie import MemoryStore
from reverie.gitstore import GitStore
from reverie.gitstore import trailers as T
from reverie.storage.sessions import SessionStore
from reverie.storage.workspace import Workspace

ENV = ["-c", "user.name=nanobot", "-c", "user.email=nanobot@dream"]


def nanobot_035_workspace(root: Path) -> None:
    """A workspace as nanobot 0.3.5 leaves it: its .gitignore allow-list and a versioned
    memory/.dream_cursor."""
    (root / "memory").mkdir(parents=True)
    (root / "SOUL.md").write_text("soul\n")
    (root / "USER.md").write_text("user\n")
    (root / "memory" / "MEMORY.md").write_text("# Memory\n- old fact\n")
    (root / "memory" / ".dream_cursor").write_text("1")
    (root / "memory" / ".cursor").write_text("1")
    (root / "memory" / "history.jsonl").write_text(
        '{"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "x"}\n'
    )
    (root / ".gitignore").write_text(
        "/*\n!.gitignore\n!SOUL.md\n!USER.md\n!memory/\n!memory/MEMORY.md\n!memory/.dream_cursor\n"
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git(root, "add", ".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md", "memory/.dream_cursor")
    git(root, *ENV, "commit", "-q", "-m", "init: nanobot memory store")


def dream(g: GitStore, text: str, cursor: int) -> str:
    sha = g.commit(
        "dream: update",
        kind="dream",
        trailers={T.CURSOR: str(cursor)},
        files={"memory/MEMORY.md": text},
    )
    assert sha
    return sha


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "-uall")


def test_opening_and_reading_never_adopt_the_first_write_does(tmp_path):
    root = tmp_path / "nb"
    nanobot_035_workspace(root)
    head = git(root, "rev-parse", "HEAD")
    gitignore = (root / ".gitignore").read_bytes()
    store = MemoryStore(root)
    store.append_history("a history append is no git write")
    assert store.read_unprocessed_history(0)[0]["cursor"] == 1
    assert (
        git(root, "rev-parse", "HEAD") == head and (root / ".gitignore").read_bytes() == gitignore
    )
    dream(store.git, "# Memory\n- old fact\n- new fact\n", 2)
    subjects = git(root, "log", "--format=%s").splitlines()
    assert subjects[-1] == "init: nanobot memory store" and subjects[0] == "dream: update"
    assert subjects[1].startswith("init: ")  # the adoption commit, made by the first write


def test_nanobots_versioned_dream_cursor_leaves_the_repo_and_stays_on_disk(tmp_path):
    root = tmp_path / "nb"
    nanobot_035_workspace(root)
    g = MemoryStore(root).git
    dream(g, "# Memory\n- old fact\n- b\n", 2)
    assert "memory/.dream_cursor" not in git(root, "ls-tree", "-r", "--name-only", "HEAD")
    assert (root / "memory" / ".dream_cursor").read_text() == "1"  # untracked, never deleted
    adoption = git(root, "show", "--stat", "--format=%s", "HEAD~1")
    assert "memory/.dream_cursor" in adoption  # the commit names what left the repo
    (root / "memory" / ".dream_cursor").write_text(
        "2\n"
    )  # Dream moves it: no longer "modified forever"
    (root / "memory" / "history.jsonl").write_text("{}\n")
    assert status(root) == ""
    # reopening (a second process) finds nothing more to untrack: no commit
    head = git(root, "rev-parse", "HEAD")
    GitStore(Workspace(root)).ensure()
    assert git(root, "rev-parse", "HEAD") == head


def test_restoring_past_the_adoption_commit_keeps_reverie_ignore_rules(tmp_path):
    root = tmp_path / "nb"
    nanobot_035_workspace(root)
    g = MemoryStore(root).git
    dream(g, "# Memory\n- old fact\n- b\n", 2)
    ours = (root / ".gitignore").read_text()
    root_commit = git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    adoption = git(root, "rev-parse", "HEAD~1").strip()
    g.restore(
        adoption
    )  # memory as before the adoption commit: nanobot's files, not its ignore rules
    assert (root / ".gitignore").read_text() == ours
    assert (root / "memory" / "MEMORY.md").read_text() == "# Memory\n- old fact\n"
    assert "history.jsonl" not in status(root) and ".cursor" not in status(root)
    g.revert(adoption)  # undoing the adoption commit itself changes no ignore rule either
    assert (root / ".gitignore").read_text() == ours
    head = git(root, "rev-parse", "HEAD")
    GitStore(Workspace(root)).commit(
        "manual: nothing", kind="manual"
    )  # a later write needs no re-adoption
    assert git(root, "rev-parse", "HEAD") == head
    assert root_commit in git(root, "rev-list", "HEAD")


def test_email_style_session_key_is_one_conversation_with_nanobot(tmp_path):
    root = tmp_path / "ws"
    ws = Workspace(root)
    ws.init()
    (root / "sessions").mkdir(exist_ok=True)
    nanobot_file = root / "sessions" / "email_alice@example.com.jsonl"
    meta = {
        "_type": "metadata",
        "key": "email:alice@example.com",
        "created_at": "2026-01-01T10:00:00",
        "updated_at": "2026-01-01T10:00:00",
        "metadata": {},
        "last_consolidated": 0,
    }
    nanobot_file.write_bytes(
        orjson.dumps(meta) + b"\n" + orjson.dumps({"role": "user", "content": "hi"}) + b"\n"
    )
    sessions = SessionStore(ws)
    s = sessions.get_or_create("email:alice@example.com")
    assert s.path == nanobot_file and [m["content"] for m in s.messages] == ["hi"]
    sessions.append(s, {"role": "assistant", "content": "hello"})
    assert sorted(p.name for p in (root / "sessions").glob("*.jsonl")) == [
        "email_alice@example.com.jsonl"
    ]


@pytest.mark.parametrize("order", [[100, 5], [5, 100, 7], [3, 9, 2, 9]])
def test_next_cursor_is_past_the_largest_whatever_the_order(tmp_path, order):
    store = MemoryStore(tmp_path / "ws")
    store.history_file.parent.mkdir(parents=True, exist_ok=True)
    store.history_file.write_bytes(
        b"".join(
            orjson.dumps({"cursor": c, "timestamp": "2026-01-01 10:00", "content": f"c{c}"}) + b"\n"
            for c in order
        )
    )
    (store.memory_dir / ".cursor").write_text(
        str(order[-1])
    )  # what a lock-free writer leaves: its own last
    first = store.append_history("next")
    assert first == max(order) + 1
    # another writer appends a low cursor behind Reverie's back; the incremental scan still sees the
    # maximum
    with open(store.history_file, "ab") as f:
        f.write(
            orjson.dumps({"cursor": 2, "timestamp": "2026-01-01 10:00", "content": "late"}) + b"\n"
        )
    (store.memory_dir / ".cursor").write_text("2")
    assert store.append_history("after") == first + 1
    assert MemoryStore(tmp_path / "ws").append_history("fresh process") == first + 2


def test_a_new_process_scans_only_past_the_checkpoint_and_distrusts_a_rewritten_log(
    tmp_path, monkeypatch
):
    from reverie.storage import history

    store = MemoryStore(tmp_path / "ws")
    for i in range(50):
        store.append_history(f"entry {i}")
    starts: list[int] = []
    real = history._scan_cursor_keys

    def spy(fd, start, size, best, late=None):
        starts.append(start)
        return real(fd, start, size, best, late)

    monkeypatch.setattr(history, "_scan_cursor_keys", spy)
    assert MemoryStore(tmp_path / "ws").append_history("fresh process") == 51
    assert starts and starts[0] > 0  # the checkpoint another instance left: not the whole log again
    # the same file rewritten in place (same inode) with a larger cursor before the checkpoint's
    # offset (the first line: the checkpoint was written after the first full scan)
    path = store.history_file
    fields = path.with_name(path.name + ".maxcursor").read_text().split()
    checkpoint = int(fields[1])
    # digests of the bytes before the offset and of the line, and the late lines' offsets: no text
    assert len(fields) == 6 and len(fields[3]) == 16 and fields[4] == "-"

    assert 0 < checkpoint < len(path.read_bytes())
    data = path.read_bytes().replace(b'"cursor":1,', b'"cursor":900,')
    with open(path, "r+b") as f:
        f.write(data)
    starts.clear()
    assert MemoryStore(tmp_path / "ws").append_history("after the rewrite") == 901
    assert starts[0] == 0
    path.with_name(path.name + ".maxcursor").write_text("garbage")
    assert (
        MemoryStore(tmp_path / "ws").append_history("a torn checkpoint only costs a full scan")
        == 902
    )
