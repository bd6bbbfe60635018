"""``reverie purge``: the string leaves every git version, history and sessions — checked with
the git CLI."""

from __future__ import annotations

import orjson
import pytest
from support.cli import invoke
from support.gitcli import git_run

from reverie import MemoryStore
from reverie.errors import WorkspaceError
from reverie.gitstore import GitStore
from reverie.operations.purge import REPLACEMENT, plan_purge, purge

# Not a credential format the scanner knows, so history keeps it until a purge: the case purge
# exists for.
LEAK = "corkscrew-velvet-4471-harbour"


@pytest.fixture
def leaked(workspace):  # type: ignore[no-untyped-def]
    """A memory repo where LEAK entered MEMORY.md, was edited, left, and sits in a message and in
    SOUL.md."""
    store = MemoryStore(workspace)
    git = GitStore(workspace, store.config.git)
    git.ensure()
    memory = store.read_long_term()
    git.commit("dream: facts", kind="dream", files={"memory/MEMORY.md": memory + "- likes tea\n"})
    git.commit(
        "dream: vault",
        kind="dream",
        files={"memory/MEMORY.md": memory + f"- likes tea\n- vault phrase {LEAK}\n"},
    )
    git.commit(
        f"manual: noted {LEAK}",
        kind="manual",
        files={"USER.md": store.read_user() + "- lives in Oslo\n"},
    )
    git.gc()  # the first versions are packed, the later ones loose: purge must reach both
    git.commit(
        "dream: soul", kind="dream", files={"SOUL.md": store.read_soul() + f"- never say {LEAK}\n"}
    )
    git.commit(
        "dream: tidy",
        kind="dream",
        files={"memory/MEMORY.md": memory + "- likes tea\n- has a vault\n"},
    )
    store.append_history(f"[2026-11-22 10:00] USER: the vault phrase is {LEAK}", "cli:alice")
    store.append_history("[2026-11-22 10:01] USER: unrelated entry", "cli:alice")
    sessions = workspace.root / "sessions"
    (sessions / "cli_alice.jsonl").write_text(
        orjson.dumps({"_type": "metadata", "key": "cli:alice", "last_consolidated": 0}).decode()
        + "\n"
        + orjson.dumps({"role": "user", "content": f"remember {LEAK} please"}).decode()
        + "\n"
    )
    (workspace.root / "notes.txt").write_text(f"my own file with {LEAK}\n")
    return store, git


def _objects(git_dir) -> set[str]:  # type: ignore[no-untyped-def]
    out = git_run(git_dir, "rev-list", "--objects", "--all").stdout
    return {line.split()[0] for line in out.splitlines()}


def _blobs_with(git_dir, needle: str) -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    for sha in _objects(git_dir):
        if (
            git_run(git_dir, "cat-file", "-t", sha).stdout.strip() == "blob"
            and needle in git_run(git_dir, "cat-file", "-p", sha).stdout
        ):
            found.append(sha)
    return found


def test_plan_lists_everything_and_changes_nothing(leaked) -> None:  # type: ignore[no-untyped-def]
    store, git = leaked
    head = git.head()
    plan = plan_purge(store, git, LEAK)
    assert plan.found and LEAK not in plan.description
    assert plan.history.paths == ("SOUL.md", "memory/MEMORY.md")
    assert plan.history.messages == 1 and plan.history.commits_affected >= 3
    actions = {hit.path: hit.action for hit in plan.files}
    assert actions["memory/history.jsonl"] == "redact"
    assert actions["sessions/cli_alice.jsonl"] == "redact"
    assert actions["notes.txt"] == "keep"
    assert git.head() == head and LEAK in store.workspace.history_path.read_text()


def test_purge_removes_every_trace_and_keeps_everything_else(leaked) -> None:  # type: ignore[no-untyped-def]
    store, git = leaked
    git_dir = git.git_dir
    old_blobs = _blobs_with(git_dir, LEAK)
    assert len(old_blobs) >= 2
    before = git_run(
        git_dir, "log", "--format=%an|%ae|%at|%cn|%ce|%ct|%s", "--reverse"
    ).stdout.splitlines()

    result = purge(store, git, LEAK)

    # git: no trace in any version or message, the old blobs are gone, the repository is sound.
    log_p = git_run(git_dir, "log", "-p", "--all").stdout
    assert LEAK not in log_p and REPLACEMENT in log_p
    for sha in old_blobs:
        assert git_run(git_dir, "cat-file", "-p", sha, check=False).returncode != 0
        assert sha in result.rewrite.removed_objects
    fsck = git_run(git_dir, "fsck", "--full", "--strict", check=False)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert "dangling" not in fsck.stdout + fsck.stderr
    assert LEAK not in git_run(git_dir, "reflog", "--all").stdout
    packs = list((git_dir / "objects" / "pack").glob("*.pack"))
    assert len(packs) == 1 and LEAK.encode() not in packs[0].read_bytes()
    # Authors, committers, dates and subjects are kept (but for the string); the purge commit is on
    # top.
    after = git_run(
        git_dir, "log", "--format=%an|%ae|%at|%cn|%ce|%ct|%s", "--reverse"
    ).stdout.splitlines()
    assert after[:-1] == [line.replace(LEAK, REPLACEMENT) for line in before]
    top = git.log(limit=1)[0]
    assert top.kind == "purge" and LEAK not in top.message
    assert (
        "Reverie-Purge" in top.trailers and "29-character string" in top.trailers["Reverie-Purge"]
    )
    # Files on disk: memory files, history and sessions are clean; everything else in them stays.
    assert LEAK not in store.read_soul() and REPLACEMENT in store.read_soul()
    assert store.read_long_term().endswith("- likes tea\n- has a vault\n")
    assert "- lives in Oslo" in store.read_user()
    entries = store.read_unprocessed_history(0)
    assert [e.content for e in entries] == [
        f"[2026-11-22 10:00] USER: the vault phrase is {REPLACEMENT}",
        "[2026-11-22 10:01] USER: unrelated entry",
    ]
    assert entries[0].session_key == "cli:alice"
    assert LEAK not in (store.workspace.root / "sessions" / "cli_alice.jsonl").read_text()
    assert (
        LEAK in (store.workspace.root / "notes.txt").read_text()
    )  # not memory: listed, left alone
    # The repository keeps working: a new commit, a status with nothing dirty, and git agrees.
    assert git.dirty() == []
    assert git.commit("dream: more", kind="dream", files={"USER.md": store.read_user() + "- new\n"})
    assert git_run(git_dir, "fsck", "--full", check=False).returncode == 0
    # A second purge finds nothing more.
    assert not plan_purge(store, git, LEAK).found


def test_cli_refuses_without_a_terminal_or_yes_then_purges_with_yes(leaked) -> None:  # type: ignore[no-untyped-def]
    store, git = leaked
    ws = str(store.workspace.root)
    refused = invoke("-w", ws, "purge", LEAK, input="y\n")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert "memory/history.jsonl" in refused.stdout  # the plan is shown first
    assert LEAK in store.workspace.history_path.read_text()
    done = invoke("-w", ws, "purge", LEAK, "--yes")
    assert done.returncode == 0, done.stderr
    assert "purged a 29-character string" in done.stdout and LEAK not in done.stdout
    assert LEAK not in git_run(git.git_dir, "log", "-p", "--all").stdout
    again = invoke("-w", ws, "purge", LEAK, "--yes")
    assert again.returncode == 0 and "not found" in again.stdout


def test_too_short_or_marker_text_is_refused(leaked) -> None:  # type: ignore[no-untyped-def]
    store, git = leaked
    with pytest.raises(WorkspaceError, match="at least"):
        plan_purge(store, git, "ab")
    with pytest.raises(WorkspaceError, match="replacement marker"):
        plan_purge(store, git, "REDACTED")


def test_purge_waits_for_a_running_dream_and_refuses_when_it_does_not_end(
    leaked, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from reverie.dream.lock import RunLock
    from reverie.errors import LockTimeoutError
    from reverie.operations import purge as purge_module

    store, git = leaked
    monkeypatch.setattr(purge_module, "_LOCK_TIMEOUT", 0.5)
    dream = RunLock(store.workspace.state_dir)
    assert dream.try_acquire()
    try:
        with pytest.raises(LockTimeoutError, match="Dream is running"):
            purge(store, git, LEAK)
    finally:
        dream.release()
    assert LEAK in store.workspace.history_path.read_text()  # nothing was touched
    purge(store, git, LEAK)
    assert LEAK not in store.workspace.history_path.read_text()


def _index_bytes(workspace) -> bytes:  # type: ignore[no-untyped-def]
    path = workspace.root / "memory" / ".index.sqlite"
    return b"".join(p.read_bytes() for p in path.parent.glob(".index.sqlite*") if p.is_file())


def test_the_index_is_rebuilt_without_the_string_even_when_only_it_might_keep_it(
    leaked, workspace
) -> None:  # type: ignore[no-untyped-def]
    """A purge deletes the search index (an index keeps the bytes of rows it deleted) and the
    verb rebuilds it from the cleaned files, so search stays fast and the string is gone from it;
    a string found nowhere else still rebuilds it, in one line, exit 0."""
    import reverie

    with reverie.open(workspace.root) as memory:
        memory.reindex()
    assert LEAK.encode() in _index_bytes(workspace)
    done = invoke("-w", str(workspace.root), "purge", LEAK, "--yes")
    assert done.returncode == 0, done.stderr
    rebuilt = _index_bytes(workspace)
    assert rebuilt and LEAK.encode() not in rebuilt
    with reverie.open(workspace.root) as memory:
        assert memory.recall("vault")  # the rebuilt index answers

    # A string found nowhere: the index is still rebuilt (one of its old rows might hold it).
    with reverie.open(workspace.root) as memory:
        memory.reindex()
    again = invoke("-w", str(workspace.root), "purge", "never-written-anywhere", "--yes")
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert again.stdout.count("\n") == 1 and "nothing to purge" in again.stdout
    assert "search index was rebuilt" in again.stdout
    assert (workspace.root / "memory" / ".index.sqlite").is_file()


def test_a_string_found_nowhere_waits_for_no_dream_and_still_leaves_the_index(
    workspace, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A string that is only in the search index (a conversation file deleted by hand after it
    was indexed; an index may also keep the bytes of rows it deleted): nothing of memory holds it,
    so the purge rewrites nothing and does not wait for a running Dream (it used to wait 30 s
    and fail), yet the index is rebuilt without it. A text that cannot be in memory (a lone
    surrogate) is refused in one line, not a ``TypeError`` from deep inside."""
    import reverie
    from reverie.dream.lock import RunLock
    from reverie.operations import purge as purge_module

    monkeypatch.setattr(purge_module, "_LOCK_TIMEOUT", 0.5)
    with reverie.open(workspace.root) as memory:
        memory.init()
        memory.record("chat", [{"role": "user", "content": f"the vault phrase is {LEAK}"}])
        memory.reindex()
        for conversation in (workspace.root / "sessions").rglob("*.jsonl"):
            conversation.unlink()  # by hand: the index still holds it
        assert LEAK.encode() in _index_bytes(workspace)
        dream = RunLock(workspace.state_dir)
        assert dream.try_acquire()
        try:
            result = memory.purge(LEAK)
        finally:
            dream.release()
        assert not result.plan.found and result.rewrite.head is None and result.files == ()
        rebuilt = _index_bytes(workspace)
        assert rebuilt and LEAK.encode() not in rebuilt
        with pytest.raises(WorkspaceError, match="not UTF-8"):
            memory.plan_purge("abcd\ud800")
        with pytest.raises(WorkspaceError, match="not UTF-8"):
            memory.purge("abcd\ud800")
        with pytest.raises(WorkspaceError, match="must be a string, not bytes"):
            memory.purge(b"abcdef")  # type: ignore[arg-type]
