"""No blind writes: a write that replaces content names the state it was made from.

``Memory.write(..., base=content_id(text_read))`` and ``Memory.restore(..., base=plan.base)`` (the
``RestorePlan`` a confirmation showed): a change made since is merged three-way when the two touch
different lines, else ``EditConflictError`` carries both sides and nothing is written. The issue's
cases: an edit form open while a Dream commit lands; a confirmation page whose restore would delete
a line added after its preview. The API the UI's forms and the framework adapters adopt.
"""

from __future__ import annotations

import subprocess

import pytest

import reverie
from reverie import EditConflictError, content_id
from reverie.errors import MergeConflictError, PendingChangedError
from reverie.memory import Memory

USER = "USER.md"
MEMORY = "memory/MEMORY.md"


@pytest.fixture
def mem(tmp_path):
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.write(USER, "# User\n- Likes tea.\n- Works as a nurse.\n- Has a cat.\n")
        yield memory


def _dream_adds_lisbon(mem: Memory) -> str:
    """A real Dream commit (offline engine) that adds a line to USER.md; returns that line."""
    mem.remember("User: I live in Lisbon.")
    result = mem.dream()
    assert result.status == "ok" and result.commit, result
    [line] = [ln for ln in mem.read(USER).splitlines() if "Lisbon" in ln]
    return line


def _head(mem: Memory) -> str:
    return mem.log(limit=1)[0].sha


def test_content_id_is_git_blob_id(mem):
    path = mem.workspace.root / USER
    git = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True)
    assert content_id(mem.read(USER)) == git.stdout.strip()
    assert content_id("") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def test_write_from_the_current_state_applies_and_returns_the_next_base(mem):
    text = mem.read(USER)
    done = mem.write(USER, text.replace("tea", "green tea"), base=content_id(text))
    assert done.commit and not done.merged
    assert done.content_id == content_id(mem.read(USER))
    again = mem.write(USER, mem.read(USER) + "- Runs on Sundays.\n", base=done.content_id)
    assert again.commit and "Runs on Sundays" in mem.read(USER)


def test_an_edit_open_while_dream_commits_keeps_dreams_line(mem):
    """The issue's UI case: the page loaded USER.md, a Dream commit added a line, the person saves
    an edit of another line. Before: the new line was gone. Now: both changes are in the file."""
    loaded = mem.read(USER)
    lisbon = _dream_adds_lisbon(mem)
    edited = loaded.replace("Works as a nurse.", "Works as a head nurse.")
    done = mem.write(USER, edited, base=content_id(loaded))
    text = mem.read(USER)
    assert done.commit and done.merged
    assert lisbon in text and "head nurse" in text and "- Works as a nurse." not in text
    assert done.archived == ("- Works as a nurse.",)  # the edited line's old text, nothing else
    assert mem.show(done.commit).info.kind == "manual"


def test_a_conflicting_edit_is_refused_with_both_sides(mem):
    loaded = mem.read(USER)
    other = mem.write(USER, loaded.replace("Likes tea.", "Likes coffee."), base=content_id(loaded))
    head = _head(mem)
    mine = loaded.replace("Likes tea.", "Likes mint tea.")
    with pytest.raises(EditConflictError) as err:
        mem.write(USER, mine, base=content_id(loaded))
    exc = err.value
    assert isinstance(exc, MergeConflictError) and exc.path == USER and exc.lines
    assert exc.yours == mine and exc.current == mem.read(USER) and exc.base == loaded
    assert exc.current_id == other.content_id
    assert "Likes coffee." in mem.read(USER) and _head(mem) == head  # nothing written
    # the person chooses (here: theirs, then their own line again) and saves from the current state
    done = mem.write(USER, exc.current + "- Likes mint tea too.\n", base=exc.current_id)
    assert done.commit and not done.merged


def test_a_base_the_repo_never_held_cannot_be_merged(mem):
    mem.write(USER, mem.read(USER) + "- Plays chess.\n")
    unknown = content_id("# User\n- a state nobody committed\n")
    with pytest.raises(EditConflictError) as err:
        mem.write(USER, "# User\n- Likes tea.\n", base=unknown)
    assert err.value.base is None and "Plays chess" in err.value.current
    assert "Plays chess" in mem.read(USER)
    with pytest.raises(EditConflictError):
        mem.write(USER, "# User\n", base="not an id")


def test_a_removal_made_from_an_old_state_archives_only_what_the_person_removed(mem):
    loaded = mem.read(USER)
    lisbon = _dream_adds_lisbon(mem)
    done = mem.write(USER, loaded.replace("- Has a cat.\n", ""), base=content_id(loaded))
    assert done.archived == ("- Has a cat.",)
    assert lisbon in mem.read(USER) and "Has a cat" not in mem.read(USER)
    assert "Has a cat" in mem.read("memory/archive/user.md")


def test_an_agents_soul_change_from_an_old_state_is_staged_merged(mem):
    mem.write("SOUL.md", mem.read("SOUL.md") + "- Be kind.\n- Be brief.\n")
    loaded = mem.read("SOUL.md")
    mem.write("SOUL.md", loaded.replace("- Be brief.\n", "- Be brief.\n- Cite sources.\n"))
    staged = mem.write(
        "SOUL.md",
        loaded.replace("- Be kind.", "- Be kind and patient."),
        kind="agent",
        base=content_id(loaded),
    )
    assert staged.staged and staged.merged
    assert mem.approve().commit
    soul = mem.read("SOUL.md")
    assert "Be kind and patient." in soul and "Cite sources." in soul


def test_a_soul_approval_or_rejection_names_the_proposal_it_showed(mem):
    """Dream widens a pending SOUL.md proposal (a second proposal merges into it): a confirmation
    that showed the first neither applies nor drops the widened one; with the new id it does."""
    soul = mem.read("SOUL.md")
    mem.write("SOUL.md", soul + "- Answer in French.\n", kind="agent")
    shown = mem.pending_soul()
    assert shown is not None
    mem.write("SOUL.md", soul + "- Answer in French.\n- Never cite.\n", kind="agent")
    for verb in (mem.approve, mem.reject):
        with pytest.raises(PendingChangedError, match="show it again") as err:
            verb(change=shown.id)
        assert err.value.current_id != shown.id
    now = mem.pending_soul()
    assert now is not None and "Never cite" in now.diff() and mem.read("SOUL.md") == soul
    assert now.id == err.value.current_id
    rejected = mem.reject(change=now.id)
    assert rejected is not None and rejected.change == now and mem.pending_soul() is None
    mem.write("SOUL.md", soul + "- Be brief.\n", kind="agent")
    shown = mem.pending_soul()
    assert shown is not None and mem.approve(change=shown.id).commit
    assert "- Be brief." in mem.read("SOUL.md")


def test_a_restore_confirmed_after_a_new_commit_keeps_the_new_line(mem):
    """The issue's confirmation case: "Restore memory to before X" previewed, a line added in
    between, then confirmed: the restore does what the preview showed, and the new line stays."""
    mem.write(USER, mem.read(USER) + "- Plays the cello.\n")
    target = _head(mem)
    plan = mem.plan_restore(target)
    assert plan.base == target and plan.files == (USER,) and "-- Plays the cello." in plan.diff
    lisbon = _dream_adds_lisbon(mem)
    result = mem.restore(target, base=plan.base)
    text = mem.read(USER)
    assert "Plays the cello" not in text and lisbon in text
    assert (
        result.commit
        and "Applied over the changes made since" in mem.show(result.commit).info.message
    )


def test_without_a_base_a_restore_still_restores_the_whole_state(mem):
    mem.write(USER, mem.read(USER) + "- Plays the cello.\n")
    target = _head(mem)
    _dream_adds_lisbon(mem)
    mem.restore(target)
    assert "Lisbon" not in mem.read(USER) and "cello" not in mem.read(USER)


def test_the_plan_is_what_the_restore_does_when_nothing_moved(mem):
    before = mem.read(USER)
    mem.write(USER, before.replace("Has a cat.", "Has two cats."))
    mem.write(USER, mem.read(USER) + "- Plays the cello.\n")
    first = mem.log(limit=2)[1].sha
    plan = mem.plan_restore(first)
    mem.restore(first, base=plan.base)
    assert mem.read(USER) == before
    assert mem.plan_restore(first).diff == ""  # done: nothing left to change


def test_a_restore_whose_lines_changed_since_is_refused_with_both_sides(mem):
    mem.write(USER, mem.read(USER).replace("Likes tea.", "Likes coffee."))
    target = _head(mem)
    plan = mem.plan_restore(target)
    mem.write(USER, mem.read(USER).replace("Likes coffee.", "Likes espresso."))
    head = _head(mem)
    with pytest.raises(EditConflictError) as err:
        mem.restore(target, base=plan.base)
    exc = err.value
    assert exc.path == USER and exc.head == head
    assert "Likes tea." in exc.yours and "Likes espresso." in exc.current
    assert "espresso" in mem.read(USER) and _head(mem) == head


def test_a_revert_confirmed_after_a_new_commit(mem):
    loaded = mem.read(USER)
    bad = mem.write(USER, loaded.replace("Has a cat.", "Has a dog.")).commit
    plan = mem.plan_restore(bad, only=True)
    assert "+- Has a cat." in plan.diff and plan.only
    lisbon = _dream_adds_lisbon(mem)
    done = mem.restore(bad, only=True, base=plan.base)
    assert done.commit and "Has a cat." in mem.read(USER) and lisbon in mem.read(USER)


def test_preview_restore_is_the_plans_diff(mem):
    mem.write(USER, mem.read(USER) + "- Plays the cello.\n")
    head = _head(mem)
    assert mem.preview_restore(head) == mem.plan_restore(head).diff


def test_async_twins_take_the_base(mem):
    import asyncio

    async def go() -> None:
        loaded = await mem.aread(USER)
        await mem.awrite(USER, loaded + "- Swims.\n", base=content_id(loaded))
        with pytest.raises(EditConflictError):
            await mem.awrite(USER, loaded.replace("Has a cat.", "x"), base=content_id("stale\n"))
        target = (await mem.alog(limit=1))[0].sha
        plan = await mem.aplan_restore(target)
        assert (await mem.arestore(target, base=plan.base)).commit

    asyncio.run(go())
    assert "Swims" not in mem.read(USER)


def test_an_edit_does_not_wait_for_a_dream_run_and_the_run_keeps_it(tmp_path):
    """A person's edit during a Dream run (here: a model that answers only when told) commits at
    once instead of waiting for the run (it waited up to 30 s, then failed); the run's commit merges
    its own edit over it."""
    import asyncio
    import threading
    import time

    from reverie.llm import registry
    from reverie.llm.offline import respond
    from reverie.llm.types import ModelResponse
    from reverie.storage.config import Config

    asked, answer = threading.Event(), threading.Event()

    async def gated(request):  # type: ignore[no-untyped-def]
        asked.set()
        while not answer.is_set():
            await asyncio.sleep(0.01)
        r = respond(request.messages, tools=request.tools, tool_choice=request.tool_choice)
        return ModelResponse(r.content, r.tool_calls, r.finish_reason, r.usage, request.model)

    registry.register("gatedmodel", gated)
    try:
        cfg = Config.model_validate({"agents": {"defaults": {"model": "gatedmodel/x"}}})
        with reverie.open(tmp_path / "ws", config=cfg) as memory:
            memory.init()
            memory.write(USER, memory.read(USER) + "- Likes tea.\n")
            answer.set()  # a first run, let through: the newest Dream commit the fence anchors on
            memory.remember("User: I have a cat.")
            assert memory.dream().commit
            answer.clear()
            asked.clear()
            memory.remember("User: I live in Lisbon.")
            results: list[object] = []
            run = threading.Thread(target=lambda: results.append(memory.dream()))
            run.start()
            assert asked.wait(30)
            text = memory.read(USER)
            began = time.perf_counter()
            done = memory.write(USER, text + "- Plays chess.\n", base=content_id(text))
            assert done.commit and time.perf_counter() - began < 5
            for i in range(60):  # more commits than the fence's anchor window looked through
                text = memory.read(MEMORY)
                memory.write(MEMORY, text + f"- Note {i}.\n", base=content_id(text))
            answer.set()
            run.join(60)
            [result] = results
            assert result.status == "ok" and result.commit, result  # type: ignore[attr-defined]
            final = memory.read(USER)
            assert "Plays chess" in final and "Lisbon" in final and "Likes tea" in final
            assert "- Note 59." in memory.read(MEMORY)
    finally:
        answer.set()
        registry.unregister("gatedmodel")


# -- the adapters: Anthropic's memory tool edits the text it read ----------------------------------
def _read_then(mem: Memory, monkeypatch: pytest.MonkeyPatch, meanwhile) -> None:
    """``mem.read`` returns the file, then another writer commits (``meanwhile``) before the tool's
    write: the window a Dream commit can land in."""
    real = mem.read

    def read(path: str) -> str:
        text = real(path)
        monkeypatch.setattr(mem, "read", real)
        meanwhile()
        return text

    monkeypatch.setattr(mem, "read", read)


def test_the_memory_tools_edit_keeps_a_dream_line_committed_between_its_read_and_write(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip(
        "anthropic", reason="the anthropic SDK (reverie[anthropic]) is not installed"
    )
    from reverie.integrations.anthropic import ReverieMemoryTool

    lines: list[str] = []
    _read_then(mem, monkeypatch, lambda: lines.append(_dream_adds_lisbon(mem)))
    out = ReverieMemoryTool(mem).call(
        {
            "command": "str_replace",
            "path": "/memories/USER.md",
            "old_str": "Likes tea",
            "new_str": "Likes coffee",
        }
    )
    assert "has been edited" in str(out)
    text = mem.read(USER)
    assert "- Likes coffee." in text and "Likes tea" not in text
    assert text.count(lines[0]) == 1  # Dream's line stays, once
    assert [e.kind for e in mem.log(limit=2)] == ["agent", "dream"]


def test_the_memory_tools_edit_of_a_line_changed_meanwhile_is_refused(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip(
        "anthropic", reason="the anthropic SDK (reverie[anthropic]) is not installed"
    )
    from anthropic.lib.tools import ToolError

    from reverie.integrations.anthropic import AsyncReverieMemoryTool

    def person_edits() -> None:
        mem.write(USER, mem.read(USER).replace("Likes tea", "Likes green tea"))

    # the async tool runs the commands in the async verbs' executor, where it reads with ``read``
    _read_then(mem, monkeypatch, person_edits)
    before = len(mem.log())
    with pytest.raises(ToolError, match="view the file again"):
        import asyncio

        asyncio.run(
            AsyncReverieMemoryTool(mem).call(
                {
                    "command": "str_replace",
                    "path": "/memories/USER.md",
                    "old_str": "- Likes tea.",
                    "new_str": "- Likes coffee.",
                }
            )
        )
    assert "- Likes green tea." in mem.read(USER) and "coffee" not in mem.read(USER)
    assert len(mem.log()) == before + 1  # the person's edit only
