"""``reverie.open`` -> ``Memory``: the front door's verbs on a real workspace and memory repo
(offline engine)."""

from __future__ import annotations

import asyncio
import subprocess

import pytest

import reverie
from reverie.errors import CommandError, GateError, UnsafePathError, WorkspaceError
from reverie.memory import Memory, use_memory_class


@pytest.fixture
def mem(tmp_path):
    with reverie.open(tmp_path / "ws") as memory:
        yield memory


def _git_kinds(mem: Memory) -> list[str]:
    return [c.kind for c in mem.log()]


def test_remember_dream_recall_log_restore(mem):
    """The README's path: remember, dream, and the fact is in USER.md, committed, searchable and
    undoable."""
    noted = mem.remember(
        "User: I live in Lisbon and I prefer Postgres over SQLite.", session_key="t:1"
    )
    assert noted.cursor == 1 and noted.session_key == "t:1" and mem.pending() == 1
    result = mem.dream()
    assert result.status == "ok" and result.commit
    assert "Lisbon" in mem.read("USER.md") and mem.pending() == 0
    assert _git_kinds(mem)[:1] == ["dream"] and mem.show(result.commit).info.sha == result.commit
    assert any(h.source.path == "USER.md" for h in mem.recall("Postgres"))
    assert any(i.path == "USER.md" and "Postgres" in i.memory for i in mem.search("Postgres"))
    assert "Lisbon" in mem.context()
    undone = mem.restore()  # default: the newest Dream commit
    assert undone.commit and "Lisbon" not in mem.read("USER.md")


def test_write_commits_by_kind_and_redacts(mem):
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    done = mem.write("memory/MEMORY.md", f"# Memory\n- Deploys use the key {key}\n", kind="agent")
    assert done.commit and not done.staged
    text = mem.read("memory/MEMORY.md")
    assert key not in text and "Deploys use the key" in text
    assert _git_kinds(mem)[0] == "agent"
    assert mem.write("memory/MEMORY.md", text).commit is None  # unchanged: no commit
    log = subprocess.run(
        ["git", f"--git-dir={mem.runtime.git.git_dir}", "log", "-p"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert (
        "Deploys use the key" in log.stdout and key not in log.stdout
    )  # git as the independent checker


def test_agent_soul_edit_waits_for_approval(mem):
    mem.write("SOUL.md", "# Soul\n- Be kind.\n")  # a person's edit applies
    before = mem.read("SOUL.md")
    staged = mem.write("SOUL.md", before + "- Answer in French.\n", kind="agent")
    assert staged.staged and staged.commit is None and mem.read("SOUL.md") == before
    assert mem.pending_soul() is not None
    approved = mem.approve()
    assert approved.commit and "French" in mem.read("SOUL.md")


def test_the_gate_refuses_a_gutting_edit(mem):
    lines = "".join(f"- Fact number {n} about the user.\n" for n in range(8))
    mem.write("USER.md", "# User\n" + lines)
    with pytest.raises(GateError, match="lose more than half"):
        mem.write("USER.md", "# User\n- one\n", kind="agent")
    assert "Fact number 7" in mem.read("USER.md")


@pytest.mark.parametrize(
    "path",
    [
        "memory/history.jsonl",
        "../outside.md",
        "/etc/passwd",
        "memory/.reverie/x.md",
        "sessions/a.md",
        "notes.md",
    ],
)
def test_file_verbs_refuse_what_is_not_a_memory_file(mem, path):
    with pytest.raises(UnsafePathError):
        mem.read(path)
    with pytest.raises(UnsafePathError):
        mem.write(path, "x")


def test_remove_archives_the_line_with_its_reason_and_why_finds_it(mem):
    mem.write("memory/MEMORY.md", "# Memory\n- The project ships on Friday.\n- Uses Postgres.\n")
    removed = mem.remove("memory/MEMORY.md", "the project ships on friday", reason="it shipped")
    assert removed.archive == "memory/archive/memory.md" and removed.commit
    assert "Friday" not in mem.read("memory/MEMORY.md") and "Uses Postgres" in mem.read(
        "memory/MEMORY.md"
    )
    assert "it shipped" in mem.read("memory/archive/memory.md")
    found = mem.why("ships on Friday")
    assert [p.path for p in found] == ["memory/archive/memory.md"] and found[
        0
    ].sha == removed.commit
    with pytest.raises(WorkspaceError, match="no line"):
        mem.remove("memory/MEMORY.md", "no such line", reason="x")
    with pytest.raises(CommandError):
        mem.remove("memory/MEMORY.md", "Uses Postgres", reason="  ")


def test_pin_requeue_status(mem):
    mem.write("USER.md", "# User\n- Lives in Porto\n")
    assert mem.pin("Porto").changed and "[pinned]" in mem.read("USER.md")
    assert mem.pin("Porto", unpin=True).changed
    assert mem.requeue() == [] and mem.set_aside() == []
    assert mem.status().pending == 0


def test_async_twins_and_the_sync_verbs_refusal_inside_a_loop(mem):
    async def main() -> None:
        await mem.aremember("User: my dog is called Rex.")
        result = await mem.adream()
        assert result.status == "ok"
        assert (await mem.alog(limit=1))[0].sha == result.commit
        assert await mem.arecall("Rex")
        assert "Rex" in await mem.aread("USER.md")
        with pytest.raises(CommandError, match="adream"):
            mem.dream()

    asyncio.run(main())


def test_a_registered_subclass_is_what_open_builds(tmp_path):
    class Mine(Memory):
        pass

    previous = use_memory_class(Mine)
    try:
        with reverie.open(tmp_path / "ws") as memory:
            assert type(memory) is Mine and type(memory.sibling()) is Mine
    finally:
        use_memory_class(previous)
    assert type(reverie.open(tmp_path / "ws")) is Memory
    with pytest.raises(TypeError):
        use_memory_class(dict)  # type: ignore[arg-type]


def test_lines_an_edit_takes_out_go_to_the_archive(mem):
    mem.write("USER.md", "# User\n- Lives in Lisbon\n- Likes jazz\n- Has a cat\n")
    done = mem.write(
        "USER.md",
        "# User\n- Lives in Porto\n- Likes jazz\n- Has a cat\n",
        kind="agent",
        message="moved",
    )
    assert done.archived == ("- Lives in Lisbon",)
    archive = mem.read("memory/archive/user.md")
    assert "- Lives in Lisbon · removed" in archive and "by an agent in an edit (moved)" in archive
    assert [p.path for p in mem.why("Lives in Lisbon")] == ["memory/archive/user.md"]
    reordered = mem.write("USER.md", "# User\n* Has a cat\n- Lives in Porto\n- Likes jazz\n")
    assert (
        reordered.commit and reordered.archived == ()
    )  # moved and re-bulleted lines are not removed
    with pytest.raises(UnsafePathError, match="archive"):
        mem.write("memory/archive/user.md", "# gone\n", kind="agent")


def test_history_purge_and_gc(mem):
    mem.remember("User: the door code is 4812.")
    mem.remember("User: I like tea.")
    assert [e.content for e in mem.history(since=1)] == ["User: I like tea."]
    assert mem.plan_purge("4812").found
    mem.purge("4812")
    assert not mem.plan_purge("4812").found and "4812" not in mem.history()[0].content
    mem.gc()


def test_every_verb_has_an_async_twin_with_the_same_parameters():
    import inspect

    methods = {  # Memory's own and the verbs it inherits (reverie.memory.verbs)
        n: v
        for cls in reversed(Memory.__mro__)
        if cls.__module__.startswith("reverie")
        for n, v in vars(cls).items()
        if not n.startswith("_") and inspect.isfunction(v)
    }
    verbs = [
        n
        for n in methods
        if not (n.startswith("a") and n[1:] in methods)
        and n not in ("sibling", "close", "check_user")
    ]
    assert {"remember", "recall", "dream", "log", "restore", "approve", "write", "remove"} <= set(
        verbs
    )
    for verb in verbs:
        twin = methods.get("a" + verb)
        assert twin is not None and inspect.iscoroutinefunction(twin), (
            f"Memory.{verb} has no async twin"
        )
        assert (
            inspect.signature(twin).parameters.keys()
            == inspect.signature(methods[verb]).parameters.keys()
        ), verb


def test_write_creates_a_dated_note_and_refuses_an_untracked_file(mem):
    from reverie.errors import GitStoreError

    done = mem.write("memory/2026-11-25.md", "# 2026-11-25\n- Chose Postgres.\n", kind="agent")
    assert done.commit and "memory/2026-11-25.md" in mem.files()
    with pytest.raises(GitStoreError, match="not a tracked file"):
        mem.write("memory/notes.md", "- x\n")
    assert not (mem.workspace.root / "memory" / "notes.md").exists()


@pytest.mark.parametrize("verb", ["write", "remove"])
def test_a_pin_landing_while_a_write_or_remove_is_in_flight_is_kept(mem, verb):
    """Pins take no run lock: one committed between a write's (or remove's) read and its commit is
    merged, not overwritten (the writers' protocol: ``GitStore.commit(base=...)``)."""
    from reverie.dream.pins import pin

    head = mem.read("USER.md").rstrip("\n")
    mem.write("USER.md", head + "\n- Likes old maps\n- Has a cat named Miso\n- Plays chess\n")
    git = mem.runtime.git
    real = git.commit

    def pin_first(*args, **kwargs):
        git.commit = real
        assert pin(mem.workspace, git, "old maps").changed
        return real(*args, **kwargs)

    git.commit = pin_first
    if verb == "write":
        mem.write(
            "USER.md", mem.read("USER.md").replace("- Plays chess\n", "- Plays chess on Sundays\n")
        )
    else:
        mem.remove("USER.md", "- Plays chess", reason="stopped playing")
    assert git.commit is real  # the pin really landed in between
    text = mem.read("USER.md")
    assert "- Likes old maps [pinned]" in text and "- Has a cat named Miso" in text
    assert ("- Plays chess on Sundays" in text) if verb == "write" else ("Plays chess" not in text)
    status = subprocess.run(
        ["git", "-C", str(mem.workspace.root), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status.strip() == ""


def test_a_text_longer_than_one_memory_is_refused_whole_not_kept_in_part(mem):
    """History cuts a longer entry (``memory.history.maxEntryChars``): ``remember`` refuses it in
    one line and writes nothing, rather than keep its start while the caller hears it was kept."""
    most = mem.config.memory.history.max_entry_chars
    mem.remember("I live in Porto.")
    with pytest.raises(CommandError, match="one memory holds") as refused:
        mem.remember("I live in Lisbon. " + "x" * most)
    assert "\n" not in str(refused.value)
    assert [e.content for e in mem.history()] == ["I live in Porto."]
    assert mem.remember("y" * (most - 10)).cursor == 2  # up to the limit, kept whole
    assert len(mem.history()[-1].content) == most - 10
