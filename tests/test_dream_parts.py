"""Dream's parts on their own: typed tools and the path rule, the gate, the budget, finding
parsing, records."""

from __future__ import annotations

import os

import pytest

from reverie.dream.analyze import parse_findings
from reverie.dream.budget import Budget, BudgetExceeded
from reverie.dream.deadletter import append_dead_letter, read_dead_letters
from reverie.dream.edit_tools import MemoryTools
from reverie.dream.gate import check
from reverie.dream.lock import RunLock
from reverie.dream.records import Attempts, StatusRecord
from reverie.dream.result import Finding
from reverie.dream.staging import StagedFiles
from reverie.llm.tools import tool_from_function
from reverie.llm.types import ToolCall
from reverie.storage.config import DreamConfig

MEM = "memory/MEMORY.md"


def staged(**texts: str) -> StagedFiles:
    return StagedFiles.from_texts(
        {
            "SOUL.md": texts.get("soul", "# Soul\n"),
            "USER.md": texts.get("user", "# User\n"),
            MEM: texts.get("memory", "# Memory\n"),
        }
    )


def call(name: str, **args) -> ToolCall:
    return ToolCall("c", name, args)


# -- typed tools -----------------------------------------------------------------------------------
def test_schema_comes_from_signature_and_docstring():
    tools = MemoryTools(staged())
    schemas = {s["function"]["name"]: s["function"] for s in tools.box.schemas}
    edit = schemas["edit_file"]
    assert edit["parameters"]["required"] == ["path", "old_text", "new_text"]
    props = edit["parameters"]["properties"]
    assert props["replace_all"] == {
        "type": "boolean",
        "description": props["replace_all"]["description"],
        "default": False,
    }
    assert "every occurrence" in props["replace_all"]["description"]
    assert "exact" in edit["description"]
    assert schemas["read_file"]["parameters"]["properties"]["path"]["type"] == "string"


def test_tool_with_untyped_parameter_is_refused():
    def bad(x) -> str:  # noqa: ANN001
        return ""

    with pytest.raises(TypeError):
        tool_from_function(bad)


def test_bad_calls_become_errors_for_the_model():
    box = MemoryTools(staged()).box
    assert box.call(ToolCall("c", "delete_file", {"path": "USER.md"})).text.startswith(
        "Error: unknown tool"
    )
    out = box.call(ToolCall("c", "read_file", None, raw_arguments="{not json"))
    assert not out.ok and "not a JSON object" in out.text
    assert (
        "needs the parameter 'old_text'"
        in box.call(call("edit_file", path="USER.md", new_text="x")).text
    )
    assert (
        "must be a boolean"
        in box.call(
            call("edit_file", path="USER.md", old_text="a", new_text="b", replace_all="yes")
        ).text
    )
    assert "no parameter(s) mode" in box.call(call("read_file", path="USER.md", mode="r")).text


@pytest.mark.parametrize(
    "path",
    [
        "../USER.md",
        "/etc/passwd",
        "memory/history.jsonl",
        "memory/.dream_cursor",
        "memory/.cursor",
        "USER.md\x00.txt",
        "memory/../../x",
        "sessions/a.jsonl",
        "reverie.json",
        "",
    ],
)
def test_paths_outside_the_staged_set_are_refused(path):
    s = staged()
    tools = MemoryTools(s)
    for c in (
        call("read_file", path=path),
        call("edit_file", path=path, old_text="", new_text="x"),
    ):
        out = tools.box.call(c)
        assert not out.ok and "refused" in out.text
    assert s.changed() == {} and tools.edits == []


def test_symlinked_memory_file_is_refused_and_untouched(tmp_path):
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.init()
    outside = tmp_path / "outside.md"
    outside.write_text("secret plans\n")
    os.unlink(ws.root / "USER.md")
    os.symlink(outside, ws.root / "USER.md")
    s = StagedFiles.load(ws)
    tools = MemoryTools(s)
    out = tools.box.call(call("edit_file", path="USER.md", old_text="secret", new_text="public"))
    assert not out.ok and "refused" in out.text
    assert not tools.box.call(call("read_file", path="USER.md")).ok
    assert outside.read_text() == "secret plans\n"
    assert tools.box.call(call("read_file", path="SOUL.md")).ok


def test_edit_exact_unique_match_and_replace_all():
    s = staged(user="# User\n- likes tea\n- likes tea\n- lives in Paris\n")
    tools = MemoryTools(s)
    out = tools.box.call(
        call("edit_file", path="USER.md", old_text="- likes tea", new_text="- likes coffee")
    )
    assert not out.ok and "occurs 2 times" in out.text
    assert tools.box.call(
        call("edit_file", path="USER.md", old_text="- likes tea\n", new_text="", replace_all=True)
    ).ok
    assert tools.box.call(call("edit_file", path="USER.md", old_text="Paris", new_text="Berlin")).ok
    assert s.current["USER.md"] == "# User\n- lives in Berlin\n"
    assert [e.count for e in tools.edits] == [2, 1]


def test_not_found_lists_the_closest_lines():
    s = staged(memory="# Memory\n- project Atlas ships in March\n- uses Postgres 16\n")
    out = MemoryTools(s).box.call(
        call(
            "edit_file",
            path=MEM,
            old_text="- project Atlas ships in april",
            new_text="- project Atlas ships in May",
        )
    )
    assert not out.ok and "line 2: - project Atlas ships in March" in out.text


def test_noop_edits_are_refused():
    tools = MemoryTools(staged(user="# User\n- a\n"))
    assert (
        "no-op"
        in tools.box.call(call("edit_file", path="USER.md", old_text="- a", new_text="- a")).text
    )
    assert (
        "no-op" in tools.box.call(call("edit_file", path="USER.md", old_text="", new_text="")).text
    )
    assert tools.edits == []


def test_empty_old_text_appends():
    s = staged(user="# User")
    assert (
        MemoryTools(s).box.call(call("edit_file", path="USER.md", old_text="", new_text="- b\n")).ok
    )
    assert s.current["USER.md"] == "# User\n- b\n"


# -- gate ------------------------------------------------------------------------------------------
BIG = "# Memory\n" + "".join(f"- fact number {i} about the project\n" for i in range(10))


def test_gate_refuses_losing_half_without_file_remove():
    cfg = DreamConfig()
    shrunk = "# Memory\n- fact number 0 about the project\n"
    v = check({MEM: BIG}, {MEM: shrunk}, [Finding("MEMORY", "x")], cfg)
    assert not v.ok and "more than half" in v.reason
    assert check(
        {MEM: BIG},
        {MEM: shrunk},
        [Finding("FILE-REMOVE", "MEMORY.md: old facts are obsolete")],
        cfg,
    ).ok
    named_other = [Finding("FILE-REMOVE", "USER.md: drop the old address")]
    assert not check({MEM: BIG}, {MEM: shrunk}, named_other, cfg).ok


def test_gate_refuses_losing_half_the_lines_even_if_chars_stay():
    cfg = DreamConfig()
    old = "# Memory\n" + "".join(f"- f{i}\n" for i in range(10))
    new = "# Memory\n- " + "x" * len(old) + "\n"
    v = check({MEM: old}, {MEM: new}, [], cfg)
    assert not v.ok and "lines" in v.reason


def test_gate_size_budgets():
    cfg = DreamConfig(user_max_chars=200)
    v = check({"USER.md": "# User\n"}, {"USER.md": "# User\n" + "- x\n" * 100}, [], cfg)
    assert not v.ok and "size budget" in v.reason
    assert check({"USER.md": "# User\n"}, {"USER.md": "# User\n- x\n"}, [], cfg).ok


def _lines(count: int, size: int) -> str:
    """``count`` nonblank lines, ``size`` characters in all (newlines included)."""
    body = size - count
    widths = [body // count + (1 if i < body % count else 0) for i in range(count)]
    text = "".join("w" * w + "\n" for w in widths)
    assert len(text) == size and len(text.splitlines()) == count
    return text


def test_gate_content_threshold_is_exactly_half():
    # Refused when len(new) * 2 < len(old): half the characters may go, one more may not. Same line
    # count, so only the content check can decide.
    cfg = DreamConfig()
    old = _lines(4, 200)
    assert check({MEM: old}, {MEM: _lines(4, 100)}, [], cfg).ok
    v = check({MEM: old}, {MEM: _lines(4, 99)}, [], cfg)
    assert not v.ok and "more than half its content (200 → 99" in v.reason
    odd = _lines(4, 201)  # half of 201 rounds up: 101 stays, 100 is more than half lost
    assert check({MEM: odd}, {MEM: _lines(4, 101)}, [], cfg).ok
    assert not check({MEM: odd}, {MEM: _lines(4, 100)}, [], cfg).ok


def test_gate_line_threshold_is_exactly_half():
    # Refused when new_lines * 2 < old_lines: 6 → 3 lines stays, 6 → 2 does not. Same size, so only
    # the line check can decide.
    cfg = DreamConfig()
    old = _lines(6, 120)
    assert check({MEM: old}, {MEM: _lines(3, 120)}, [], cfg).ok
    v = check({MEM: old}, {MEM: _lines(2, 120)}, [], cfg)
    assert not v.ok and "more than half its lines (6 → 2)" in v.reason
    odd = _lines(7, 120)
    assert check({MEM: odd}, {MEM: _lines(4, 120)}, [], cfg).ok
    assert not check({MEM: odd}, {MEM: _lines(3, 120)}, [], cfg).ok


def test_gate_size_budget_is_exact():
    # Refused when len(new) > limit (and the file grows): the budget itself fits, one character more
    # does not.
    cfg = DreamConfig(user_max_chars=100)
    assert check({"USER.md": "# User\n"}, {"USER.md": "# User\n" + _lines(1, 93)}, [], cfg).ok
    v = check({"USER.md": "# User\n"}, {"USER.md": "# User\n" + _lines(1, 94)}, [], cfg)
    assert not v.ok and "size budget (101 > 100 characters)" in v.reason
    # A file already over budget may keep its size but not grow by one character.
    over = "# User\n" + _lines(1, 94)
    assert check({"USER.md": over}, {"USER.md": "# User\n" + _lines(2, 94)}, [], cfg).ok
    assert not check({"USER.md": over}, {"USER.md": "# User\n" + _lines(2, 95)}, [], cfg).ok


def test_gate_refuses_an_introduced_credential_but_not_an_existing_one():
    cfg = DreamConfig()
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    v = check({MEM: "# Memory\n"}, {MEM: f"# Memory\n- the API key is {key}\n"}, [], cfg)
    assert not v.ok and "credential" in v.reason
    old = f"# Memory\n- key {key}\n"
    assert check({MEM: old}, {MEM: old + "- uses Postgres\n"}, [], cfg).ok


# -- budget ----------------------------------------------------------------------------------------
def test_budget_caps():
    t = [0.0]
    b = Budget(2, 3, 100, 10.0, clock=lambda: t[0])
    b.start_turn()
    b.start_turn()
    with pytest.raises(BudgetExceeded) as e:
        b.start_turn()
    assert e.value.cap == "iterations"
    for _ in range(3):
        b.charge_tool_call()
    with pytest.raises(BudgetExceeded):
        b.charge_tool_call()
    with pytest.raises(BudgetExceeded) as e:
        b.charge_tokens(101)
    assert e.value.cap == "tokens"
    t[0] = 10.0
    with pytest.raises(BudgetExceeded) as e:
        b.check_time()
    assert e.value.cap == "time"


def test_budget_detects_the_same_failing_call_three_times():
    b = Budget(10, 50, 1000, 10)
    b.record_failure("edit_file(a)")
    b.record_failure("edit_file(b)")
    b.record_failure("edit_file(a)")
    with pytest.raises(BudgetExceeded) as e:
        b.record_failure("edit_file(a)")
    assert e.value.cap == "loop"


def test_overall_budget_is_marked_overall():
    overall = Budget(100, 100, 50, 100)
    b = Budget(10, 10, 1000, 100, overall=overall)
    with pytest.raises(BudgetExceeded) as e:
        b.charge_tokens(60)
    assert e.value.overall


# -- findings --------------------------------------------------------------------------------------
def test_parse_findings_tolerates_bullets_strips_marks_and_ignores_garbage():
    text = (
        "Here are my findings:\n[USER] Lives in Berlin\n- [MEMORY] [durable] Atlas ships in May\n"
        "[SOUL] [correction] answer in French\n[MEMORY] [skip] weather chat\n[SKIP]\n"
        "[FILE-REMOVE] MEMORY.md: old deadline [age: 40 days]\n[BOGUS] nope\n"
    )
    findings, ignored = parse_findings(text)
    assert findings == [
        Finding("USER", "Lives in Berlin"),
        Finding("MEMORY", "Atlas ships in May"),
        Finding("SOUL", "correction: answer in French"),
        Finding("FILE-REMOVE", "MEMORY.md: old deadline"),
    ]
    assert ignored == 2


# -- records ---------------------------------------------------------------------------------------
def test_dead_letters_append_and_survive_a_torn_tail(tmp_path):
    path = tmp_path / "memory" / "dream-deadletter.jsonl"
    append_dead_letter(path, 1, 20, "loop", 3)
    with open(path, "ab") as f:
        f.write(b'{"first": 21, "la')  # a crash mid-append
    append_dead_letter(path, 21, 40, "gate", 3)
    assert [(d.first, d.last, d.reason) for d in read_dead_letters(path)] == [
        (1, 20, "loop"),
        (21, 40, "gate"),
    ]


def test_attempts_and_status_records_survive_corruption(tmp_path):
    a = Attempts.load(tmp_path)
    assert a.fail(5, "x") == 1 and a.fail(5, "y") == 2
    assert Attempts.load(tmp_path).for_batch(5) == 2
    assert Attempts.load(tmp_path).for_batch(6) == 0
    (tmp_path / "dream-attempts.json").write_text("{garbage")
    assert Attempts.load(tmp_path).for_batch(5) == 0
    s = StatusRecord.load(tmp_path)
    s.record_run("rejected", 1, 2, "gate: too big", None)
    again = StatusRecord.load(tmp_path)
    assert again.last_rejection["reason"] == "gate: too big" and again.last_completed is None
    again.record_run("no-change", 1, 2, None, None)
    assert StatusRecord.load(tmp_path).last_completed is not None


def test_run_lock_is_exclusive_within_and_across_processes(tmp_path):
    import subprocess
    import sys

    a, b = RunLock(tmp_path), RunLock(tmp_path)
    assert a.try_acquire()
    assert not b.try_acquire()
    code = (
        "import sys; from reverie.dream.lock import RunLock; "
        f"sys.exit(0 if RunLock({str(tmp_path)!r}).try_acquire() else 3)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 3
    a.release()
    assert b.try_acquire()
    b.release()
