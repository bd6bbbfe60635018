"""Dream.run end to end with the scripted model (called by name, in-process) on a real workspace
and memory repo."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC

import orjson
import pytest
from support.dream_helpers import MEM, edit, make_env, read

from reverie.dream.deadletter import read_dead_letters
from reverie.dream.lock import RunLock
from reverie.dream.records import StatusRecord
from reverie.gitstore import trailers as tr
from reverie.llm.scripted import Reply, bad_request_error
from reverie.llm.types import ToolCall, Usage
from reverie.memory.status import collect_status

USER0 = "# User\n\nWho the user is: name, home, work, preferences. Dream keeps this current.\n"


@pytest.fixture
def env(tmp_path):
    return make_env(tmp_path / "ws")


def run(dream, **kw):
    return asyncio.run(dream.run(**kw))


def snapshot(env):
    return (
        {rel: env.read(rel) for rel in ("SOUL.md", "USER.md", MEM)},
        env.git.head(),
        env.store.dream_cursor(),
    )


def test_nothing_pending_calls_no_model(env):
    result = run(env.dream())
    assert result.status == "nothing-to-do" and env.fake.prompts == []


def test_success_commits_with_trailers_then_advances_the_cursor(env):
    env.add(
        "- [durable] User lives in Berlin",
        "- [durable] Project Atlas ships in May",
        "- [ephemeral] rain",
    )
    env.fake.enqueue(
        "[USER] Lives in Berlin\n[MEMORY] Project Atlas ships in May",
        [
            edit("USER.md", "", "- Lives in Berlin\n", "a"),
            edit(MEM, "", "- Project Atlas ships in May\n", "b"),
        ],
        "Added two facts.",
    )
    progress = []
    result = run(env.dream(), on_progress=progress.append)
    assert result.status == "ok", result.reason
    assert (result.first, result.last) == (1, 3)
    assert env.read("USER.md").endswith("- Lives in Berlin\n")
    assert env.read(MEM).endswith("- Project Atlas ships in May\n")
    assert env.store.dream_cursor() == 3
    assert result.commit == env.git.head()
    assert {c.path for c in result.files} == {"USER.md", MEM}
    assert [f.kind for f in result.findings] == ["USER", "MEMORY"]
    assert len(result.edits) == 2 and result.tool_calls == 2 and result.iterations == 2
    body = env.git_cli("log", "-1", "--format=%B")
    trailers = tr.parse_trailers(body)
    assert (
        trailers[tr.KIND] == "dream" and trailers[tr.BATCH] == "1-3" and trailers[tr.CURSOR] == "3"
    )
    assert trailers[tr.MODEL] == env.fake.model and trailers[tr.TOOL_CALLS] == "2"
    assert int(trailers[tr.TOKENS]) == result.usage.total_tokens > 0
    assert env.git_cli("status", "--porcelain").strip() == ""
    assert {p.phase for p in progress} >= {"start", "analyze", "edit", "commit"}
    assert max(p.tool_calls for p in progress) == 2
    # Phase 1 saw today's date, the batch and the files per the protocol; phase 2 saw findings and
    # files.
    analyze, edit1 = env.fake.prompts[0], env.fake.prompts[1]
    assert analyze.system.startswith("# Reverie task: dream-analyze") and analyze.tools is None
    assert (
        "## History batch\n### cursor 1 · " in analyze.user
        and "## memory/MEMORY.md" in analyze.user
    )
    assert edit1.system.startswith("# Reverie task: dream-edit")
    assert (
        "## Findings\n[USER] Lives in Berlin" in edit1.user and "## USER.md\n# User" in edit1.user
    )
    assert {t["function"]["name"] for t in edit1.tools} == {
        "read_file",
        "edit_file",
        "archive_line",
    }
    assert StatusRecord.load(env.ws.state_dir).last_run["status"] == "ok"


def test_skip_advances_the_cursor_without_a_commit(env):
    env.add("- [skip] small talk")
    head = env.git.head()
    env.fake.enqueue("[SKIP]")
    result = run(env.dream())
    assert result.status == "no-change" and result.commit is None
    assert env.git.head() == head and env.store.dream_cursor() == 1
    assert len(env.fake.prompts) == 1  # no phase 2


def test_edit_phase_without_changes_is_no_change(env):
    env.add("- [durable] User lives in Berlin")
    env.fake.enqueue("[USER] Lives in Berlin", "Already recorded.")
    head = env.git.head()
    result = run(env.dream())
    assert result.status == "no-change" and env.git.head() == head and env.store.dream_cursor() == 1


def _assert_untouched(env, before, attempts=1):
    files, head, cursor = before
    assert snapshot(env) == (files, head, cursor)
    from reverie.dream.records import Attempts

    assert Attempts.load(env.ws.state_dir).for_batch(cursor + 1) == attempts


def test_iteration_cap_fails_and_writes_nothing(tmp_path):
    env = make_env(tmp_path / "ws", max_iterations=2)
    env.add("- [durable] fact")
    before = snapshot(env)
    env.fake.enqueue("[MEMORY] fact", [edit(MEM, "", "- fact\n")], [read(MEM)], [read(MEM)])
    result = run(env.dream())
    assert result.status == "failed" and "iterations" in result.reason
    assert result.iterations == 2 and len(env.fake.prompts) == 3
    _assert_untouched(env, before)


def test_tool_call_cap(tmp_path):
    env = make_env(tmp_path / "ws", max_tool_calls=3)
    env.add("- [durable] fact")
    before = snapshot(env)
    env.fake.enqueue("[MEMORY] fact", [read(MEM, f"r{i}") for i in range(4)], "done")
    result = run(env.dream())
    assert result.status == "failed" and "tool-calls" in result.reason
    _assert_untouched(env, before)


def test_token_cap(tmp_path):
    env = make_env(tmp_path / "ws", token_budget=5_000)
    env.add("- [durable] fact")
    before = snapshot(env)
    env.fake.enqueue(
        "[MEMORY] fact", Reply(tool_calls=[edit(MEM, "", "- fact\n")], usage=Usage(4_000, 2_000))
    )
    result = run(env.dream())
    assert result.status == "failed" and "tokens" in result.reason
    _assert_untouched(env, before)


def test_wall_time_cap(tmp_path):
    env = make_env(tmp_path / "ws", max_seconds=0.3)
    env.add("- [durable] fact")
    before = snapshot(env)

    def slow(prompt):
        time.sleep(0.4)
        return [edit(MEM, "", "- fact\n")]

    env.fake.enqueue("[MEMORY] fact", slow, "done")
    result = run(env.dream())
    assert result.status == "failed" and "time" in result.reason
    _assert_untouched(env, before)


def test_same_failing_call_three_times_ends_the_run(env):
    env.add("- [durable] fact")
    before = snapshot(env)
    bad = edit(MEM, "no such text", "x")
    env.fake.enqueue("[MEMORY] fact", [bad], [bad], [bad], "never reached")
    result = run(env.dream())
    assert result.status == "failed" and "loop" in result.reason
    assert env.fake.pending == 1
    _assert_untouched(env, before)


def test_refused_paths_touch_nothing_and_the_model_is_told(env):
    env.add("- [durable] fact")
    history = env.ws.history_path.read_bytes()
    env.fake.enqueue(
        "[MEMORY] fact",
        [
            edit("../outside.md", "", "x", "a"),
            edit("memory/history.jsonl", "", "x", "b"),
            edit("memory/.dream_cursor", "", "99", "c"),
            read("/etc/passwd", "d"),
            ToolCall("e", "edit_file", None, raw_arguments="{oops"),
            ToolCall("f", "rm", {"path": MEM}),
        ],
        [edit(MEM, "", "- fact\n")],
        "done",
    )
    result = run(env.dream())
    assert result.status == "ok"
    assert env.ws.history_path.read_bytes() == history
    assert not (env.ws.root.parent / "outside.md").exists()
    assert env.store.dream_cursor() == 1
    tool_msgs = [m["content"] for m in env.fake.prompts[2].messages if m["role"] == "tool"]
    assert len(tool_msgs) == 6 and all(t.startswith("Error:") for t in tool_msgs)
    assert sum("refused" in t for t in tool_msgs) == 4


@pytest.mark.parametrize("case", ["credential"])  # a file over budget is archived, not rejected:
def test_gate_rejections_leave_files_and_show_in_status(
    tmp_path, case
):  # see tests/test_dream_lifecycle.py
    env = make_env(tmp_path / "ws", memory_max_chars=300)
    big = "# Memory\n" + "".join(f"- fact {i}\n" for i in range(20))
    env.ws.write(MEM, big)
    env.git.commit("seed", kind="manual")
    env.add("- [durable] something")
    before = snapshot(env)
    new = {
        "size": big + "- " + "y" * 300 + "\n",
        "credential": big + "- key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n",
    }[case]
    env.fake.enqueue("[MEMORY] something", [edit(MEM, big, new)], "done")
    result = run(env.dream())
    assert result.status == "rejected"
    assert {"size": "size budget", "credential": "credential"}[case] in result.reason
    _assert_untouched(env, before)
    report = collect_status(env.store)
    assert report.dream_last_rejection["reason"] == result.reason and report.dream_attempts == 1


def test_a_file_gutted_with_no_finding_is_put_back_and_the_run_changes_nothing(env, caplog):
    """The model took 19 of 20 lines out with no ``[FILE-REMOVE]``: no line leaves without
    evidence, so the lifecycle puts them back before the gate (which would reject the shrink)."""
    big = "# Memory\n" + "".join(f"- fact {i}\n" for i in range(20))
    env.ws.write(MEM, big)
    env.git.commit("seed", kind="manual")
    env.add("- [durable] something")
    env.fake.enqueue("[MEMORY] something", [edit(MEM, big, "# Memory\n- fact 1\n")], "done")
    assert run(env.dream()).status == "no-change"
    assert env.read(MEM) == big and "kept 19 line(s) of memory/MEMORY.md" in caplog.text


def test_an_edit_that_puts_an_unrelated_line_in_place_of_a_true_one_only_adds(env):
    """The batch says only "my cat is called Tom"; the model's edit writes it over "Works at
    Initech". The job is not superseded by a cat: both lines stay, nothing is archived."""
    user = env.read("USER.md") + "- Works at Initech\n"
    env.ws.write("USER.md", user)
    env.git.commit("seed", kind="manual")
    env.add("- [durable] my cat is called Tom")
    env.fake.enqueue(
        "[USER] Has a cat named Tom",
        [edit("USER.md", "- Works at Initech", "- Has a cat named Tom")],
        "done",
    )
    assert run(env.dream()).status == "ok"
    kept = env.read("USER.md")
    assert "- Works at Initech\n" in kept and "- Has a cat named Tom" in kept
    archive = env.ws.memory_dir / "archive"
    assert "Initech" not in "".join(f.read_text("utf-8") for f in archive.glob("*.md"))


def test_file_remove_findings_naming_lines_allow_a_large_removal_and_none_empties_a_file(env):
    big = "# Memory\n" + "".join(f"- fact {i}\n" for i in range(20))
    env.ws.write(MEM, big)
    env.git.commit("seed", kind="manual")
    env.add("- [correction] all those facts are obsolete")
    # one finding for the whole file names no line: nothing leaves, the file is never emptied
    env.fake.enqueue(
        "[FILE-REMOVE] MEMORY.md: facts 0-19 are obsolete", [edit(MEM, big, "# Memory\n")], "done"
    )
    run(env.dream())
    assert env.read(MEM) == big
    # findings naming twelve of the lines: those twelve leave, more than half at once
    env.add("- [correction] facts 0 to 11 are obsolete")
    named = "\n".join(f"[FILE-REMOVE] MEMORY.md: fact {i} (why: obsolete)" for i in range(12))
    rest = "# Memory\n" + "".join(f"- fact {i}\n" for i in range(12, 20))
    env.fake.enqueue(named, [edit(MEM, big, rest)], "done")
    assert run(env.dream()).status == "ok"
    assert env.read(MEM) == rest


def test_dead_letter_after_three_failures_then_moves_on(env):
    env.add("- [durable] a", "- [durable] b")
    for attempt in (1, 2):
        env.fake.enqueue(bad_request_error("the model refuses"))
        result = run(env.dream())
        assert (
            result.status == "failed"
            and result.attempts == attempt
            and env.store.dream_cursor() == 0
        )
    env.fake.enqueue(bad_request_error("the model refuses"))
    result = run(env.dream())
    assert result.status == "dead-lettered" and result.attempts == 3
    assert env.store.dream_cursor() == 2
    (letter,) = read_dead_letters(env.ws.memory_dir / "dream-deadletter.jsonl")
    assert (letter.first, letter.last, letter.attempts) == (1, 2, 3) and "refuses" in letter.reason
    report = collect_status(env.store)
    assert report.dream_dead_letters[0]["first"] == 1 and report.dream_attempts == 0
    assert run(env.dream()).status == "nothing-to-do"
    env.add("- [durable] c")
    env.fake.enqueue("[SKIP]")
    assert (r := run(env.dream())).status == "no-change" and (r.first, r.last) == (3, 3)


def test_concurrent_edit_is_merged_and_kept(env):
    env.ws.write("USER.md", USER0 + "\n- Works at ACME\n")
    env.git.commit("seed", kind="manual")
    env.add("- [durable] User lives in Berlin")

    def person_edits_meanwhile(prompt):
        text = env.read("USER.md")
        (env.ws.root / "USER.md").write_text(text.replace("# User\n", "# User (edited by hand)\n"))
        return "done"

    env.fake.enqueue(
        "[USER] Lives in Berlin",
        [edit("USER.md", "- Works at ACME\n", "- Works at ACME\n- Lives in Berlin\n")],
        person_edits_meanwhile,
    )
    result = run(env.dream())
    assert result.status == "ok", result.reason
    text = env.read("USER.md")
    assert "# User (edited by hand)" in text and "- Lives in Berlin" in text
    kinds = [c.kind for c in env.git.log(limit=3)]
    assert kinds[:2] == ["dream", "manual"]  # the person's edit is its own commit, before Dream's
    assert env.git_cli("status", "--porcelain").strip() == ""


def test_conflicting_concurrent_edit_abandons_the_run(env):
    env.ws.write("USER.md", USER0 + "- Lives in Paris\n")
    env.git.commit("seed", kind="manual")
    env.add("- [correction] User moved to Berlin")

    def person_edits_same_line(prompt):
        (env.ws.root / "USER.md").write_text(USER0 + "- Lives in Lyon\n")
        return "done"

    env.fake.enqueue(
        "[USER] correction: lives in Berlin",
        [edit("USER.md", "- Lives in Paris", "- Lives in Berlin")],
        person_edits_same_line,
    )
    head = env.git.head()
    result = run(env.dream())
    assert result.status == "failed" and "conflict" in result.reason
    assert env.read("USER.md") == USER0 + "- Lives in Lyon\n"  # never overwritten
    assert env.store.dream_cursor() == 0 and result.attempts == 1
    assert env.git.head() == head


def test_dry_run_returns_the_diff_and_writes_nothing(env):
    env.add("- [durable] User lives in Berlin")
    state = env.ws.state_dir
    before = snapshot(env)
    env.fake.enqueue("[USER] Lives in Berlin", [edit("USER.md", "", "- Lives in Berlin\n")], "done")
    result = run(env.dream(), dry_run=True)
    assert result.status == "ok" and result.dry_run and result.commit is None
    assert "+- Lives in Berlin" in result.diff and "b/USER.md" in result.diff
    assert snapshot(env) == before
    assert (
        not (state / "dream-status.json").exists() and not (state / "dream-attempts.json").exists()
    )


def test_soul_edits_are_held_for_approval_when_protected(env):
    env.add("- [permanent] User: always answer in French")
    soul = env.read("SOUL.md")
    env.fake.enqueue(
        "[SOUL] Always answer in French", [edit("SOUL.md", "", "- Always answer in French\n")], "ok"
    )
    head = env.git.head()
    result = run(env.dream())
    assert result.status == "ok" and result.commit is None and env.git.head() == head
    assert env.read("SOUL.md") == soul
    assert result.pending_soul is not None and "Always answer in French" in result.pending_soul
    assert env.store.dream_cursor() == 1
    from reverie.dream.proposal import load_proposal

    staged = load_proposal(env.ws)
    assert staged is not None and staged.base == soul and staged.proposed == result.pending_soul
    assert (staged.first_cursor, staged.last_cursor) == (1, 1)


def test_soul_edits_apply_when_protection_is_off(tmp_path):
    env = make_env(tmp_path / "ws", protect_soul=False)
    env.add("- [permanent] User: always answer in French")
    env.fake.enqueue(
        "[SOUL] Always answer in French", [edit("SOUL.md", "", "- Always answer in French\n")], "ok"
    )
    assert run(env.dream()).status == "ok"
    assert env.read("SOUL.md").endswith("- Always answer in French\n")


def test_already_running_and_wait(env):
    env.add("- [durable] x")
    lock = RunLock(env.ws.state_dir)
    assert lock.try_acquire()
    assert run(env.dream()).status == "already-running"
    assert env.fake.prompts == []

    async def later_release():
        await asyncio.sleep(0.3)
        lock.release()

    async def both():
        env.fake.enqueue("[SKIP]")
        _, result = await asyncio.gather(later_release(), env.dream().run(wait=True))
        return result

    assert asyncio.run(both()).status == "no-change"


def test_drain_processes_every_batch(tmp_path):
    env = make_env(tmp_path / "ws", max_batch_size=2)
    env.add(*[f"- [durable] fact {i}" for i in range(5)])
    env.fake.enqueue(
        "[MEMORY] fact 0",
        [edit(MEM, "", "- fact 0\n")],
        "done",
        "[SKIP]",
        "[MEMORY] fact 4",
        [edit(MEM, "", "- fact 4\n")],
        "done",
    )
    result = run(env.dream(), drain=True)
    assert result.status == "ok" and [b.status for b in result.batches] == ["ok", "no-change", "ok"]
    assert [(b.first, b.last) for b in result.batches] == [(1, 2), (3, 4), (5, 5)]
    assert env.store.dream_cursor() == 5
    assert len(env.git.log(limit=10, kind="dream")) == 2


def test_model_error_fails_the_attempt(env):
    env.add("- [durable] x")
    env.fake.enqueue(bad_request_error("nope"))
    result = run(env.dream())
    assert result.status == "failed" and result.reason.startswith("model:")


@pytest.mark.parametrize(
    "reply",
    [
        "I think the user is nice.\nSure! Here you go:",
        "```python\nprint('hello')\n```",
        "",
        "   \n",
    ],
)
def test_an_analysis_without_findings_or_skip_fails_and_keeps_the_batch(env, reply):
    """A real model's useless answer (prose, a code block, nothing) is not "nothing worth keeping":
    the run fails, the cursor stays, and no attempt is counted, so the batch is never set aside for
    it (issue 21)."""
    env.add("- [durable] x")
    for _ in range(4):
        env.fake.enqueue(reply)
        result = run(env.dream())
        assert result.status == "failed" and (
            "no finding lines" in result.reason or "empty reply" in result.reason
        )
        assert result.attempts == 0
    assert env.store.dream_cursor() == 0 and env.store.pending_count() == 1


def test_skip_alone_is_a_completed_run(env):
    env.add("- [durable] x")
    env.fake.enqueue("[SKIP]")
    assert run(env.dream()).status == "no-change" and env.store.dream_cursor() == 1


def test_a_runaway_analysis_is_cut_before_it_reaches_phase_2(env, caplog):
    from reverie.dream.analyze import MAX_FINDING_CHARS, MAX_FINDINGS

    env.add("- [durable] x")
    runaway = (
        "[USER] " + "y" * 100_000 + "\n" + "\n".join(f"[MEMORY] fact {i}" for i in range(5_000))
    )
    env.fake.enqueue(runaway, "done")
    with caplog.at_level("WARNING"):
        result = run(env.dream())
    assert len(result.findings) == MAX_FINDINGS
    assert len(result.findings[0].text) == MAX_FINDING_CHARS
    assert all(len(f.text) <= MAX_FINDING_CHARS for f in result.findings)
    assert "kept the first" in caplog.text and "characters cut" in caplog.text
    assert len(env.fake.prompts[1].user) < 100_000  # phase 2 saw the bounded list


def test_reconcile_advances_from_the_last_dream_commit(env):
    env.add("- a", "- b", "- c")
    env.ws.write(MEM, "# Memory\n- a\n")
    env.git.commit("dream: x", kind="dream", trailers={tr.CURSOR: "3", tr.BATCH: "1-3"})
    assert env.store.dream_cursor() == 0
    assert env.dream().reconcile() == 3 and env.store.dream_cursor() == 3


def test_reconcile_never_skips_a_history_the_last_dream_commit_did_not_see(env, caplog):
    """history.jsonl replaced under an existing memory repo: HEAD's cursor (3) describes another
    log, so the two new entries must still be processed, not skipped."""
    env.add("- a", "- b", "- c")
    env.ws.write(MEM, "# Memory\n- a\n")
    env.git.commit("dream: x", kind="dream", trailers={tr.CURSOR: "3", tr.BATCH: "1-3"})
    for path in (env.ws.history_path, env.ws.cursor_path, env.ws.dream_cursor_path):
        path.unlink(missing_ok=True)
    env.add("- d", "- e")
    with caplog.at_level("WARNING"):
        assert env.dream().reconcile() == 0
    assert "not advancing" in caplog.text
    assert [e.cursor for e in env.store.read_unprocessed_history()] == [1, 2]


def test_history_retention_is_applied_after_a_run_and_never_drops_pending_entries(tmp_path):
    env = make_env(tmp_path / "ws", max_batch_size=200)
    env.config.memory.history.retention = 100
    env.add(*(f"- fact {i}" for i in range(1, 251)))
    env.fake.enqueue("[SKIP]")
    assert run(env.dream()).status == "no-change"  # consumed 1-200
    cursors = [e.cursor for e in env.store.history.read_since(0)]
    assert cursors == list(range(151, 251))  # the newest 100 kept
    env.add(
        *(f"- more {i}" for i in range(50))
    )  # 150 entries: within the margin (100 + max(10, 100))
    env.fake.enqueue("[SKIP]")
    run(env.dream())
    assert [e.cursor for e in env.store.history.read_since(0)][
        0
    ] == 151  # 150 ≤ 100 + 100: not rewritten yet


def test_history_retention_keeps_entries_dream_has_not_consumed(tmp_path):
    env = make_env(tmp_path / "ws", max_batch_size=20)
    env.config.memory.history.retention = 100
    env.add(*(f"- fact {i}" for i in range(1, 301)))
    env.fake.enqueue("[SKIP]")
    run(env.dream())  # consumed 1-20 only
    cursors = [e.cursor for e in env.store.history.read_since(0)]
    assert cursors == list(range(21, 301))  # the consumed 20 dropped, all 280 pending kept
    assert env.store.pending_count() == 280


def test_memory_lines_carry_their_age(env):
    from reverie.dream.batch import line_ages

    env.ws.write(MEM, "# Memory\n- old fact\n")
    env.git.commit("seed", kind="manual")
    env.ws.write(MEM, "# Memory\n- old fact\n- new fact\n")
    from datetime import datetime, timedelta

    future = datetime.now(UTC) + timedelta(days=30)
    assert line_ages(env.git, env.read(MEM), now=future) == [30, 30, None]
    env.add("- x")
    env.fake.enqueue("[SKIP]")
    run(env.dream())
    assert "- old fact\n" in env.fake.prompts[0].user  # committed today: no age shown


def test_status_record_is_json(env):
    env.add("- x")
    env.fake.enqueue("[SKIP]")
    run(env.dream())
    data = orjson.loads((env.ws.state_dir / "dream-status.json").read_bytes())
    assert data["last_run"]["status"] == "no-change" and data["last_completed"]


def test_workspace_prompt_override_is_used(env):
    (env.ws.root / "prompts").mkdir()
    (env.ws.root / "prompts" / "dream.md").write_text(
        "# Reverie task: dream-analyze\nHOUSE RULES FOR ANALYSIS\n# Reverie task: dream-edit\nHOUSE"
        " RULES FOR EDITS\n"
    )
    env.add("- [durable] x")
    env.fake.enqueue("[MEMORY] x", [edit(MEM, "", "- x\n")], "done")
    assert run(env.dream()).status == "ok"
    analyze, edit1 = env.fake.prompts[0].system, env.fake.prompts[1].system
    assert (
        analyze.startswith("# Reverie task: dream-analyze")
        and "HOUSE RULES FOR ANALYSIS" in analyze
    )
    assert edit1.startswith("# Reverie task: dream-edit") and "HOUSE RULES FOR EDITS" in edit1


def test_drain_stops_at_its_overall_budget_without_counting_an_attempt(tmp_path):
    env = make_env(tmp_path / "ws", max_batch_size=1, drain_token_budget=1_000)
    env.add("- [durable] a", "- [durable] b", "- [durable] c")
    env.fake.enqueue(Reply("[SKIP]", usage=Usage(700, 10)), Reply("[SKIP]", usage=Usage(700, 10)))
    result = run(env.dream(), drain=True)
    assert [b.status for b in result.batches] == [
        "no-change",
        "paused",
    ] and result.status == "paused"
    assert result.reason == "paused: 2 entries left, run again or raise dream.drainTokenBudget"
    assert env.store.dream_cursor() == 1 and result.batches[1].attempts == 0
    env.fake.enqueue(Reply("[SKIP]", usage=Usage(300, 10)), Reply("[SKIP]", usage=Usage(300, 10)))
    assert run(env.dream(), drain=True).status == "no-change" and env.store.dream_cursor() == 3


def test_reconcile_looks_past_a_later_manual_commit_but_not_past_a_restore(env):
    env.add("- a", "- b", "- c")
    env.ws.write(MEM, "# Memory\n- a\n")
    sha = env.git.commit("dream: x", kind="dream", trailers={tr.CURSOR: "3", tr.BATCH: "1-3"})
    env.ws.write("USER.md", USER0 + "- edited by hand\n")
    env.git.commit("a person's edit", kind="manual")
    assert env.dream().reconcile() == 3
    from reverie.operations.restore import restore_memory

    restore_memory(
        env.store, env.git, sha, replay=True
    )  # rewinds the cursor on purpose: reconcile must not undo that
    rewound = env.store.dream_cursor()
    assert rewound < 3
    assert env.dream().reconcile() == rewound
