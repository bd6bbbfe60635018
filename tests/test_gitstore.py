"""GitStore on real repositories, checked with the git CLI as an independent reader."""

from __future__ import annotations

import logging
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from support.gitcli import git

from reverie.errors import (
    AmbiguousRevisionError,
    GitStoreError,
    MergeConflictError,
    UnknownRevisionError,
)
from reverie.gitstore import FileChange, GitStore
from reverie.gitstore import trailers as T
from reverie.storage.config import GitConfig
from reverie.storage.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git CLI not installed")

MEM = "memory/MEMORY.md"


def fsck(git_dir: Path) -> None:
    res = subprocess.run(
        ["git", f"--git-dir={git_dir}", "fsck", "--full"], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "error" not in res.stderr.lower() and "missing" not in res.stdout.lower(), (
        res.stdout + res.stderr
    )


@pytest.fixture
def gs(workspace: Workspace) -> GitStore:
    g = GitStore(workspace)
    g.ensure()
    return g


def dream(g: GitStore, text: str, cursor: int, first: int | None = None) -> str | None:
    first = cursor if first is None else first
    return g.commit(
        "dream: update memory",
        kind="dream",
        trailers={T.CURSOR: str(cursor), T.BATCH: T.format_batch(first, cursor)},
        files={MEM: text},
    )


# -- creation, tracking, ignore rules --------------------------------------------------------------
def test_init_commit_tracks_only_memory_files(gs: GitStore, workspace: Workspace) -> None:
    (workspace.memory_dir / "history.jsonl").write_text('{"cursor": 1}\n')
    (workspace.sessions_dir / "cli_direct.jsonl").write_text("{}\n")
    (workspace.dream_cursor_path).write_text("1")
    assert gs.git_dir == workspace.root / ".git"
    files = git(gs.git_dir, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert sorted(files) == sorted([".gitignore", "SOUL.md", "USER.md", MEM])
    (info,) = gs.log()
    assert info.kind == "init" and len(info.short) == 8 and info.time.tzinfo is not None
    # a person's `git add -A` in the workspace stages nothing but the tracked files
    subprocess.run(["git", "add", "-A"], cwd=workspace.root, check=True)
    staged = subprocess.run(
        ["git", "diff", "--cached", "--name-only"],
        cwd=workspace.root,
        capture_output=True,
        text=True,
    )
    assert staged.stdout == ""
    ignored = subprocess.run(
        [
            "git",
            "check-ignore",
            "memory/history.jsonl",
            "sessions/cli_direct.jsonl",
            "memory/.dream_cursor",
            "memory/deep/x.md",
        ],
        cwd=workspace.root,
        capture_output=True,
        text=True,
    )
    assert len(ignored.stdout.split()) == 4
    assert git(gs.git_dir, "status", "--porcelain", cwd=workspace.root) == ""
    fsck(gs.git_dir)


def test_commit_writes_files_body_from_diff_and_trailers(
    gs: GitStore, workspace: Workspace
) -> None:
    sha = dream(gs, "# Memory\n- likes tea\n", 17, 3)
    assert sha is not None and len(sha) == 40 and gs.head() == sha
    assert workspace.read(MEM) == "# Memory\n- likes tea\n"
    message = git(gs.git_dir, "log", "-1", "--format=%B")
    subject, body, trailers = T.split_message(message)
    assert subject == "dream: update memory"
    assert trailers == {T.KIND: "dream", T.CURSOR: "17", T.BATCH: "3-17"}
    numstat = git(gs.git_dir, "show", "--numstat", "--format=", "HEAD").split()
    assert body == f"{MEM} | +{numstat[0]} -{numstat[1]}"
    author = git(gs.git_dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%ai")
    assert author.startswith("Reverie <reverie@localhost>|Reverie <reverie@localhost>|")
    # `git log -p` reads it
    assert "+- likes tea" in git(gs.git_dir, "log", "-p")
    fsck(gs.git_dir)


def test_no_empty_commits(gs: GitStore, workspace: Workspace) -> None:
    head = gs.head()
    assert gs.commit("dream: nothing", kind="dream", files={MEM: workspace.read(MEM)}) is None
    assert gs.commit("dream: nothing", kind="dream") is None
    assert gs.head() == head


def test_untracked_file_refused(gs: GitStore) -> None:
    with pytest.raises(GitStoreError):
        gs.commit("x", kind="dream", files={"memory/history.jsonl": "nope"})


def test_configured_identity_and_tracked_files(workspace: Workspace) -> None:
    (workspace.root / "notes").mkdir()
    (workspace.root / "notes" / "plan.md").write_text("plan\n")
    cfg = GitConfig(
        author_name="Ada", author_email="ada@example.org", tracked_files=["notes/plan.md", MEM]
    )
    g = GitStore(workspace, cfg)
    g.commit("manual tweak", kind="manual", files={"notes/plan.md": "plan v2\n"})
    assert git(g.git_dir, "log", "-1", "--format=%an <%ae>") == "Ada <ada@example.org>\n"
    files = git(g.git_dir, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert sorted(files) == [".gitignore", MEM, "notes/plan.md"]
    assert (
        subprocess.run(
            ["git", "check-ignore", "-q", "notes/plan.md"], cwd=workspace.root
        ).returncode
        == 1
    )


# -- where the repo lives --------------------------------------------------------------------------
def test_workspace_inside_another_repo_gets_its_own_git_dir(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    ws = Workspace(project / "agent" / "ws")
    ws.init()
    g = GitStore(ws)
    dream(g, "# Memory\n- fact\n", 4)
    assert g.git_dir == ws.root / ".reverie-git"
    assert "+- fact" in git(g.git_dir, "log", "-p")
    fsck(g.git_dir)
    # the enclosing project never sees the memory repo's own files, nor history and sessions
    (ws.memory_dir / "history.jsonl").write_text('{"cursor": 1}\n')
    (ws.sessions_dir / "s.jsonl").write_text("{}\n")
    status = subprocess.run(
        ["git", "status", "--porcelain", "-uall"], cwd=project, capture_output=True, text=True
    )
    assert ".reverie-git" not in status.stdout
    assert "history.jsonl" not in status.stdout and "sessions" not in status.stdout
    assert "SOUL.md" in status.stdout  # the project still sees the memory files
    assert git(g.git_dir, "status", "--porcelain", cwd=ws.root) == ""
    # reopened by a new instance: the same repo
    assert GitStore(ws).head() == g.head()


def test_foreign_dot_git_at_workspace_root_is_left_alone(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.init()
    subprocess.run(["git", "init", "-q", str(ws.root)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(ws.root),
            "-c",
            "user.name=u",
            "-c",
            "user.email=u@x",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "my project",
        ],
        check=True,
    )
    g = GitStore(ws)
    g.ensure()
    assert g.git_dir == ws.root / ".reverie-git"
    assert git(ws.root / ".git", "log", "--format=%s") == "my project\n"
    # the project's root .gitignore is the project's: not written; the memory repo ignores the rest
    # via exclude
    assert not (ws.root / ".gitignore").exists()
    (ws.root / ".gitignore").write_text("*.tmp\n")
    dream(g, "# Memory\n- x\n", 1)
    assert (ws.root / ".gitignore").read_text() == "*.tmp\n"
    assert ".gitignore" not in git(g.git_dir, "ls-tree", "-r", "--name-only", "HEAD")
    (ws.memory_dir / "history.jsonl").write_text("{}\n")
    assert "history" not in git(g.git_dir, "status", "--porcelain", "-uall", cwd=ws.root)


def _nanobot_repo(root: Path) -> None:
    """A workspace whose .git was made the way nanobot makes its memory repo (with the git CLI)."""
    root.mkdir(parents=True)
    (root / "memory").mkdir()
    (root / "SOUL.md").write_text("soul v1\n")
    (root / "USER.md").write_text("user v1\n")
    (root / "memory" / "MEMORY.md").write_text("# Memory\n- old fact\n")
    (root / "memory" / "history.jsonl").write_text(
        '{"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "x"}\n'
    )
    (root / ".gitignore").write_text(
        "/*\n!.gitignore\n!SOUL.md\n!USER.md\n!memory/\n!memory/MEMORY.md\n"
    )
    env = ["-c", "user.name=nanobot", "-c", "user.email=nanobot@dream"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(
        ["git", "-C", str(root), "add", ".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"],
        check=True,
    )
    subprocess.run(
        ["git", "-C", str(root), *env, "commit", "-q", "-m", "init: nanobot memory store"],
        check=True,
    )
    (root / "USER.md").write_text("user v2\n")
    subprocess.run(
        ["git", "-C", str(root), *env, "commit", "-q", "-am", "dream: update USER.md"], check=True
    )


def test_nanobot_repo_is_adopted_with_its_history(tmp_path: Path) -> None:
    root = tmp_path / "nb"
    _nanobot_repo(root)
    before = git(root / ".git", "rev-parse", "HEAD").strip()
    g = GitStore(Workspace(root))
    g.ensure()
    assert g.git_dir == root / ".git"
    subjects = [c.subject for c in g.log()]
    assert subjects[-2:] == ["dream: update USER.md", "init: nanobot memory store"]
    assert before in [c.sha for c in g.log()]
    # nanobot's `/*` left memory/history.jsonl unignored; adoption tightens it
    ignored = subprocess.run(["git", "check-ignore", "-q", "memory/history.jsonl"], cwd=root)
    assert ignored.returncode == 0
    dream(g, "# Memory\n- old fact\n- new fact\n", 2)
    assert git(root / ".git", "log", "--format=%s")  # git still reads it
    assert g.file_at("HEAD~1", "USER.md") == "user v2\n"
    fsck(root / ".git")
    # a second instance sees the adoption mark and the same history
    assert GitStore(Workspace(root)).head() == g.head()


# -- a person's edits ------------------------------------------------------------------------------
def test_interleaved_manual_edits_are_committed_first(gs: GitStore, workspace: Workspace) -> None:
    dream(gs, "# Memory\n- a\n", 1)
    (workspace.root / "USER.md").write_text("I edited this by hand\n")
    workspace.write(MEM, "# Memory\n- a\n- typed by me\n")
    assert sorted(gs.dirty()) == ["USER.md", MEM]
    dream(gs, "# Memory\n- a\n- typed by me\n- b\n", 2)
    kinds = [(c.kind, sorted(f.path for f in c.files)) for c in gs.log(3)]
    assert kinds == [("dream", [MEM]), ("manual", ["USER.md", MEM]), ("dream", [MEM])]
    assert gs.file_at("HEAD~1", "USER.md") == "I edited this by hand\n"
    assert gs.dirty() == []
    # another edit, then a restore: the person's edit is committed, never discarded
    workspace.write("SOUL.md", "my soul\n")
    gs.restore("HEAD")
    assert [c.kind for c in gs.log(2)] == ["restore", "manual"]
    assert "my soul\n" == gs.file_at("HEAD~1", "SOUL.md")


# -- queries ---------------------------------------------------------------------------------------
def test_log_filters_show_diff_file_at(gs: GitStore, workspace: Workspace) -> None:
    a = dream(gs, "# Memory\n- a\n", 1)
    gs.commit("manual", kind="manual", files={"SOUL.md": "soul 2\n"})
    b = dream(gs, "# Memory\n- a\n- b\n", 2)
    assert [c.sha for c in gs.log(kind="dream")] == [b, a]
    assert [c.kind for c in gs.log(path="SOUL.md")] == ["manual", "init"]
    assert len(gs.log(limit=2)) == 2
    detail = gs.show(b[:6])
    assert detail.info.sha == b and detail.info.files == [FileChange(MEM, 1, 0)]
    assert detail.diff == git(gs.git_dir, "diff", f"{b}~1", b, "--", MEM)
    assert gs.diff(a, b) == git(gs.git_dir, "diff", a, b, "--", "SOUL.md", MEM)
    assert gs.file_at(a, MEM) == "# Memory\n- a\n"
    assert gs.file_at(a, "nope.md") is None
    assert gs.last_trailer(T.CURSOR, kind="dream") == "2"
    assert gs.last_trailer(T.CURSOR, kind="restore") is None
    offset = detail.info.time.utcoffset()
    assert offset is not None and abs(offset) <= timedelta(hours=14)


def test_prefix_resolution_across_history(gs: GitStore) -> None:
    shas = [dream(gs, f"# Memory\n- fact {i}\n", i) for i in range(1, 31)]
    oldest = shas[0]
    assert oldest is not None
    for n in range(4, 41):
        try:
            assert gs.resolve(oldest[:n]) == oldest
            break
        except AmbiguousRevisionError as exc:
            assert oldest in exc.candidates and len(exc.candidates) > 1
    assert (
        gs.show(oldest[:10]).info.sha == oldest
    )  # 30 commits back: nanobot looks only at the last 20
    assert gs.resolve("HEAD~29") == oldest
    with pytest.raises(UnknownRevisionError):
        gs.resolve("ffffffffff")
    with pytest.raises(UnknownRevisionError):
        gs.resolve("xyz")
    with pytest.raises(UnknownRevisionError):
        gs.resolve("HEAD~500")


def test_every_prefix_resolves_as_git_would_loose_and_packed(workspace: Workspace) -> None:
    """Prefixes of every length kind (even, odd, 4 digits) against commits spread over several packs
    and loose objects, checked against the git CLI's own list of commits."""
    g = GitStore(workspace, GitConfig(gc_every=7))
    for i in range(1, 40):
        dream(g, f"# Memory\n- fact {i}\n", i)
    assert len(list((g.git_dir / "objects" / "pack").glob("*.pack"))) >= 3
    commits = git(g.git_dir, "rev-list", "--all").split()
    assert len(commits) == 40
    for sha in commits:
        for n in (4, 5, 7, 8, 40):
            expected = sorted(c for c in commits if c.startswith(sha[:n]))
            if len(expected) == 1:
                assert g.resolve(sha[:n]) == sha
            else:
                with pytest.raises(AmbiguousRevisionError) as exc:
                    g.resolve(sha[:n])
                assert sorted(exc.value.candidates) == expected


def test_ambiguous_prefix_lists_candidates(gs: GitStore) -> None:
    """1,000 commits on a side ref (git fast-import, fixed dates) make 4-hex prefix collisions
    certain."""
    stream = []
    for i in range(1000):
        stream.append(
            f"commit refs/heads/side\ncommitter T <t@x> {1700000000 + i} +0000\ndata"
            f" <<EOF\nc{i}\nEOF\n"
        )
    subprocess.run(
        ["git", f"--git-dir={gs.git_dir}", "fast-import", "--quiet"],
        input="\n".join(stream),
        text=True,
        check=True,
    )
    shas = git(gs.git_dir, "rev-list", "side").split()
    by_prefix: dict[str, list[str]] = {}
    for sha in shas:
        by_prefix.setdefault(sha[:4], []).append(sha)
    prefix, group = next((p, g) for p, g in by_prefix.items() if len(g) > 1)
    with pytest.raises(AmbiguousRevisionError) as err:
        gs.resolve(prefix)
    assert set(err.value.candidates) >= set(group)
    assert gs.resolve(group[0][:12]) == group[0]


# -- restore / revert ------------------------------------------------------------------------------
def test_restore_and_restore_of_restore(gs: GitStore, workspace: Workspace) -> None:
    dream(gs, "# Memory\n- a\n", 1)
    b = dream(gs, "# Memory\n- a\n- b (wrong)\n", 2)
    workspace.dream_cursor_path.write_text("2\n")
    r = gs.restore(b)
    assert workspace.read(MEM) == "# Memory\n- a\n"
    assert r.commit and r.files == [FileChange(MEM, 0, 1)] and r.cursor_rewound_to is None
    assert workspace.dream_cursor_path.read_text() == "2\n"  # not rewound by default
    info = gs.log(1)[0]
    assert info.kind == "restore" and info.trailers[T.RESTORE_OF] == b
    r2 = gs.restore(r.commit)
    assert workspace.read(MEM) == "# Memory\n- a\n- b (wrong)\n"
    assert gs.log(1)[0].trailers[T.RESTORE_OF] == r.commit
    assert gs.restore("HEAD~1").commit is None  # already as before r: no empty commit
    assert gs.restore("HEAD").commit is not None  # undo r2: back to the first restore's state
    assert workspace.read(MEM) == "# Memory\n- a\n"
    with pytest.raises(GitStoreError):
        gs.restore(gs.log(50)[-1].sha)  # before the first commit there is nothing
    assert r2.commit
    fsck(gs.git_dir)


def test_restore_replay_rewinds_cursor(gs: GitStore, workspace: Workspace) -> None:
    dream(gs, "# Memory\n- a\n", 10, 1)
    b = dream(gs, "# Memory\n- a\n- b\n", 25, 11)
    workspace.dream_cursor_path.write_text("25\n")
    result = gs.restore(
        b, replay=True
    )  # GitStore names the cursor to go back to; moving it is Dream's job
    assert result.replay_from == 10 and result.cursor_rewound_to is None
    assert workspace.dream_cursor_path.read_text() == "25\n"
    with pytest.raises(GitStoreError):
        gs.revert(result.commit, replay=True)  # a restore commit has no batch to replay


def test_restore_memory_with_replay_rewinds_the_dream_cursor(
    gs: GitStore, workspace: Workspace
) -> None:
    from reverie import MemoryStore
    from reverie.operations.restore import restore_memory

    dream(gs, "# Memory\n- a\n", 10, 1)
    b = dream(gs, "# Memory\n- a\n- b\n", 25, 11)
    store = MemoryStore(workspace)
    store.set_dream_cursor(25)
    result = restore_memory(store, gs, b, replay=True)
    assert result.cursor_rewound_to == 10 and workspace.dream_cursor_path.read_text() == "10\n"
    assert workspace.read(MEM) == "# Memory\n- a\n"


def test_revert_keeps_later_changes(gs: GitStore, workspace: Workspace) -> None:
    dream(gs, "# Memory\n- a\n- b\n- c\n- d\n- e\n", 1)
    bad = dream(gs, "# Memory\n- a\n- B (wrong)\n- c\n- d\n- e\n", 2)
    dream(gs, "# Memory\n- a\n- B (wrong)\n- c\n- d\n- E\n", 3)
    result = gs.revert(bad)
    assert workspace.read(MEM) == "# Memory\n- a\n- b\n- c\n- d\n- E\n"
    assert result.files == [FileChange(MEM, 1, 1)]
    info = gs.log(1)[0]
    assert info.kind == "revert" and info.trailers[T.REVERT_OF] == bad


def test_revert_conflict_writes_nothing(gs: GitStore, workspace: Workspace) -> None:
    dream(gs, "# Memory\n- a\n- b\n- c\n", 1)
    bad = dream(gs, "# Memory\n- a\n- B1\n- c\n", 2)
    dream(gs, "# Memory\n- a\n- B2\n- c\n", 3)
    workspace.write("USER.md", "pending hand edit\n")
    head = gs.head()
    with pytest.raises(MergeConflictError) as err:
        gs.revert(bad)
    assert err.value.path == MEM and err.value.lines == (3, 3)
    assert gs.head() == head
    assert workspace.read(MEM) == "# Memory\n- a\n- B2\n- c\n"
    assert workspace.read("USER.md") == "pending hand edit\n"


# -- provenance ------------------------------------------------------------------------------------
def test_why_traces_lines_to_commits_and_cursors(gs: GitStore, workspace: Workspace) -> None:
    first = dream(gs, "# Memory\n- likes green tea\n", 5, 1)
    gs.commit("manual", kind="manual", files={"USER.md": "Name: Ada\nDrinks tea daily\n"})
    dream(gs, "# Memory\n- lives in Oslo\n- likes green tea\n", 9, 6)
    found = {(p.path, p.line_no): p for p in gs.why("tea")}
    assert set(found) == {(MEM, 3), ("USER.md", 2)}
    mem = found[(MEM, 3)]
    assert (
        mem.sha == first
        and mem.kind == "dream"
        and mem.cursor_range == (1, 5)
        and mem.line == "- likes green tea"
    )
    assert found[("USER.md", 2)].kind == "manual" and found[("USER.md", 2)].cursor_range is None
    assert gs.why("no such text") == []
    oslo = gs.why("Oslo")
    assert oslo[0].cursor_range == (6, 9)


# -- upkeep ----------------------------------------------------------------------------------------
def test_automatic_packing_and_gc(workspace: Workspace) -> None:
    g = GitStore(workspace, GitConfig(gc_every=5))
    for i in range(12):
        dream(g, f"# Memory\n- {i}\n", i + 1)
    objects = g.git_dir / "objects"
    loose = [p for d in objects.glob("[0-9a-f][0-9a-f]") for p in d.iterdir()]
    assert len(list((objects / "pack").glob("*.pack"))) >= 2
    assert len(loose) < 12 * 3
    g.gc()
    assert [p for d in objects.glob("[0-9a-f][0-9a-f]") for p in d.iterdir()] == []
    assert len(list((objects / "pack").glob("*.pack"))) == 1
    assert len(g.log(100)) == 13
    fsck(g.git_dir)


# -- recovery --------------------------------------------------------------------------------------
def test_head_at_missing_object_recovers_from_reflog(
    gs: GitStore, caplog: pytest.LogCaptureFixture
) -> None:
    good = dream(gs, "# Memory\n- a\n", 1)
    assert good
    ref = gs.git_dir / "refs" / "heads" / "main"
    ref.write_text("1234567890123456789012345678901234567890\n")
    with caplog.at_level(logging.WARNING):
        g2 = GitStore(gs.workspace)
        g2.ensure()
    assert g2.head() == good
    assert "recovered" in caplog.text
    fsck(gs.git_dir)


def test_deleted_branch_ref_recovers_from_reflog(gs: GitStore) -> None:
    good = dream(gs, "# Memory\n- a\n", 1)
    (gs.git_dir / "refs" / "heads" / "main").unlink()
    g2 = GitStore(gs.workspace)
    assert g2.head() == good
    assert [c.kind for c in g2.log(5)][-1] == "init"  # the same history, not a fresh one


def test_head_at_corrupt_object_recovers(gs: GitStore) -> None:
    good = dream(gs, "# Memory\n- a\n", 1)
    bad = dream(gs, "# Memory\n- a\n- b\n", 2)
    assert good and bad
    obj = gs.git_dir / "objects" / bad[:2] / bad[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"garbage")
    g2 = GitStore(gs.workspace)
    assert g2.head() == good


def test_roll_forward_after_crash_between_ref_and_files(gs: GitStore, workspace: Workspace) -> None:
    """Simulate the crash window: HEAD moved and the marker exists, the file still has the old
    content."""
    from reverie.gitstore.writer import state_dir

    old_text = workspace.read(MEM)
    new = dream(gs, "# Memory\n- new\n", 1)
    old = git(gs.git_dir, "rev-parse", "HEAD~1").strip()
    workspace.write(MEM, old_text)
    marker = state_dir(gs.git_dir) / "pending"
    marker.write_text(f"{old} {new} {MEM} END\n")
    GitStore(workspace).ensure()
    assert workspace.read(MEM) == "# Memory\n- new\n"
    assert marker.read_text().startswith("#")  # done


def test_torn_marker_changes_nothing(gs: GitStore, workspace: Workspace) -> None:
    """A marker cut short (no END) comes from a kill before HEAD moved: it is dropped, files
    stay."""
    from reverie.gitstore.writer import state_dir

    new = dream(gs, "# Memory\n- new\n", 1)
    workspace.write(MEM, "# Memory\n- person's edit\n")
    marker = state_dir(gs.git_dir) / "pending"
    marker.write_text(f"0123456789012345678901234567890123456789 {new} {MEM}")
    GitStore(workspace).ensure()
    assert workspace.read(MEM) == "# Memory\n- person's edit\n"
    assert marker.read_text().startswith("#")


def test_dated_memory_files_deleted_or_restored(gs: GitStore, workspace: Workspace) -> None:
    """Files tracked through a glob (memory/YYYY-MM-DD*.md) are committed, their deletion is a
    manual edit, and a restore brings back a version that is no longer on disk."""
    dated = "memory/2026-11-20.md"
    assert gs.commit("recall: day notes", kind="recall", files={dated: "- met Ada\n"})
    (workspace.root / dated).unlink()
    assert dated in gs.dirty()
    dream(gs, "# Memory\n- a\n", 1)
    manual = gs.log(2)[1]
    assert manual.kind == "manual" and [f.path for f in manual.files] == [dated]
    gs.restore(manual.sha)
    assert (workspace.root / dated).read_text() == "- met Ada\n"
    assert dated in gs.show("HEAD").diff


def test_loose_objects_lists_what_git_sees_and_skips_lock_and_temp_files(
    gs: GitStore, workspace: Workspace
) -> None:
    from reverie.gitstore.plumbing import loose_objects

    gs.commit("dream: two", kind="dream", files={"memory/MEMORY.md": "- a\n- b\n"})
    objects = Path(gs.git_dir) / "objects"
    listed = git(
        gs.git_dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"
    ).split()
    assert not list(
        (objects / "pack").glob("*.pack")
    )  # nothing packed yet: git's list is the loose objects
    some = listed[0]
    (objects / some[:2] / (some[2:] + ".lock")).write_bytes(
        b""
    )  # a writer's lock file, and other strays
    (objects / some[:2] / "tmp_obj_123").write_bytes(b"")
    found = dict(loose_objects(objects))
    assert sorted(s.decode() for s in found) == sorted(listed)
    assert all(
        Path(path) == objects / sha[:2].decode() / sha[2:].decode() for sha, path in found.items()
    )
