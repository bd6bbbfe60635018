"""Dream's lifecycle step: budgets held by archiving, never by rejecting; expiry; supersession;
salience; nothing silently dropped. Unit tests call ``lifecycle.apply`` directly; the rest run Dream
with the scripted model (the model's phrasing never matters here: the step is deterministic and
model-independent)."""

from __future__ import annotations

import re
from asyncio import run
from datetime import date, timedelta

import pytest
from support.cli import invoke
from support.dream_helpers import MEM, edit, make_env

from reverie.dream.archive import archive_path, parse_entry
from reverie.dream.lifecycle import apply, line_dates
from reverie.dream.result import Edit, Finding
from reverie.dream.salience import LineInfo, SalienceRecord
from reverie.gitstore import trailers as tr
from reverie.recall import Recall
from reverie.storage.config import Config, DreamConfig
from reverie.text.memline import line_key

TODAY = date(2027, 6, 1)
USER_T = "# User\n\nWho the user is.\n\n"
MEM_T = "# Memory\n\nProject facts.\n\n"


def _apply(tmp_path, files, *, base=None, cfg=None, record=None, **kw):
    cfg = cfg or DreamConfig()
    current = {"SOUL.md": "# Soul\n", "USER.md": USER_T, MEM: MEM_T, **files}
    base = current if base is None else {**current, **base}
    record = record or SalienceRecord(tmp_path / "salience.json")
    return apply(
        base, current, cfg=cfg, today=kw.pop("today", TODAY), record=record, archive_texts={}, **kw
    )


def _facts(text: str) -> list[str]:
    return [line_key(ln) for ln in text.splitlines() if ln.startswith("- ")]


def _archived(outcome, source) -> list[str]:
    text = outcome.archive.get(archive_path(source), "")
    return [line_key(e[0]) for ln in text.splitlines() if (e := parse_entry(ln))]


# -- unit: the rules -------------------------------------------------------------------------------
def test_dates_parse_absolute_forms_only():
    assert line_dates("Deadline for taxes: 2027-03-05") == [date(2027, 3, 5)]
    assert line_dates("Trip to Rome March 5, 2027 to 9 March 2027") == [
        date(2027, 3, 5),
        date(2027, 3, 9),
    ]
    assert (
        line_dates("Due 2027-02-30, next Friday, 3/4") == []
    )  # impossible or relative: a plain fact


def test_expiry_after_grace_archives_and_keeps_other_dates(tmp_path):
    mem = MEM_T + "".join(
        [
            "- Deadline for the tax return: 2027-05-20\n",  # 12 days past: expires
            "- Dentist appointment on May 28, 2027\n",  # 4 days past: within grace
            "- Deadline for the grant: 2027-02-30\n",  # not a date: stays
            "- Founded the company on 2019-04-01\n",  # a date, but not an event
            "- Likes Postgres\n",
        ]
    )
    out = _apply(tmp_path, {MEM: mem})
    assert _archived(out, MEM) == ["deadline for the tax return: 2027 05 20"]
    assert out.expired == 1 and out.archived == 0
    assert (
        "Dentist" in out.files[MEM]
        and "2027-02-30" in out.files[MEM]
        and "Founded" in out.files[MEM]
    )
    assert "expired 2027-06-01 (grace 7 days)" in out.archive[archive_path(MEM)]
    cfg = DreamConfig()
    cfg.lifecycle.grace_days = 2
    assert _apply(tmp_path, {MEM: mem}, cfg=cfg).expired == 2


@pytest.mark.parametrize(("days_past", "expired"), [(6, 0), (7, 0), (8, 1)])
def test_expiry_boundary_a_date_exactly_grace_days_past_stays(tmp_path, days_past, expired):
    """``graceDays`` days past its date a line is still within grace; the day after, it expires."""
    due = TODAY - timedelta(days=days_past)
    out = _apply(tmp_path, {MEM: MEM_T + f"- Deadline for the tax return: {due.isoformat()}\n"})
    assert DreamConfig().lifecycle.grace_days == 7
    assert out.expired == expired


def test_duplicates_and_subsets_merge_into_the_longer_line(tmp_path):
    user = (
        USER_T
        + "- Likes green tea\n- likes green tea.\n- Likes green tea with honey\n- Likes coffee\n"
    )
    out = _apply(tmp_path, {"USER.md": user})
    assert _facts(out.files["USER.md"]) == ["likes green tea with honey", "likes coffee"]
    assert out.merged == 2 and out.archived == 0
    entries = out.archive[
        archive_path("USER.md")
    ]  # merged lines are archived too, naming the line they went into
    assert (
        '- likes green tea. · merged 2027-06-01: a duplicate into "Likes green tea with honey"'
        in entries
    )
    assert (
        '- Likes green tea · merged 2027-06-01: said word for word in a longer line into "Likes'
        ' green tea with honey"' in entries
    )
    body = "\n".join(out.commit_lines())
    assert (
        'merged USER.md: "likes green tea."' in body and 'into "Likes green tea with honey"' in body
    )


def test_newer_value_of_an_attribute_supersedes_the_older(tmp_path):
    base = USER_T + "- Lives in Lisbon\n- Favourite colour: blue\n- Note: call back\n"
    user = base + "- Lives in Porto\n- Favourite colour: green\n- Note: buy milk\n"
    out = _apply(tmp_path, {"USER.md": user}, base={"USER.md": base})
    assert _facts(out.files["USER.md"]) == [
        "note: call back",
        "lives in porto",
        "favourite colour: green",
        "note: buy milk",
    ]
    entries = out.archive[archive_path("USER.md")]
    assert '- Lives in Lisbon · superseded 2027-06-01 by "Lives in Porto"' in entries
    assert out.count("superseded") == 2


def test_a_negation_supersedes_the_older_line(tmp_path):
    base = MEM_T + "- Uses MySQL for the shop\n"
    mem = base + "- No longer uses MySQL for the shop\n"
    out = _apply(tmp_path, {MEM: mem}, base={MEM: base})
    assert _facts(out.files[MEM]) == ["no longer uses mysql for the shop"]
    assert _archived(out, MEM) == ["uses mysql for the shop"]


def test_over_budget_archives_least_salient_keeping_identity_pins_and_soul(tmp_path):
    cfg = DreamConfig(user_max_chars=400)
    cfg.lifecycle.stale_days = None  # the budget rule alone (staleDays is tested below)
    record = SalienceRecord(tmp_path / "s.json")
    lines = [f"- Likes hobby number {i}" for i in range(20)]
    user = USER_T + "- Name: Ana\n- Likes old films [pinned]\n" + "\n".join(lines) + "\n"
    rec = record.files.setdefault("USER.md", {})
    rec["name: ana"] = LineInfo(TODAY - timedelta(days=900), mark="permanent")
    rec["likes old films"] = LineInfo(TODAY - timedelta(days=900))
    for i in range(20):  # hobby i learned i*10 days ago; hobby 3 recalled often
        rec[f"likes hobby number {i}"] = LineInfo(TODAY - timedelta(days=10 * i))
    rec["likes hobby number 19"].hits, rec["likes hobby number 19"].last_hit = (
        9,
        TODAY - timedelta(days=1),
    )
    soul = "# Soul\n" + "".join(f"- Rule {i}: always be kind in way {i}\n" for i in range(60))
    out = _apply(tmp_path, {"USER.md": user, "SOUL.md": soul}, cfg=cfg, record=record)
    kept = out.files["USER.md"]
    assert len(kept) <= 400 * cfg.lifecycle.target_ratio
    assert "Name: Ana" in kept and "Likes old films [pinned]" in kept and "hobby number 19" in kept
    assert "hobby number 0\n" in kept and "hobby number 18" not in kept  # oldest unused leave first
    assert out.files["SOUL.md"] == soul
    gone = set(_facts(user)) - set(_facts(kept))
    assert gone == set(_archived(out, "USER.md")) and out.archived == len(gone)
    assert all(
        "over budget" in ln
        for ln in out.archive[archive_path("USER.md")].splitlines()
        if ln.startswith("- ")
    )


def test_stale_lines_leave_unless_confirmed_recalled_or_protected(tmp_path):
    record = SalienceRecord(tmp_path / "s.json")
    old = TODAY - timedelta(days=40)
    record.files["USER.md"] = {
        k: LineInfo(old) for k in ("likes chess", "likes go", "likes tea", "name: ana")
    }
    record.files["USER.md"]["likes go"].last_hit = TODAY - timedelta(days=3)
    record.files["USER.md"]["name: ana"].mark = "permanent"
    user = USER_T + "- Likes chess\n- Likes go\n- Likes tea\n- Name: Ana\n"
    out = _apply(tmp_path, {"USER.md": user}, record=record, facts=[("durable", "Likes tea")])
    assert _archived(out, "USER.md") == [
        "likes chess"
    ]  # go was recalled, tea confirmed today, the name is identity
    assert "unused 30 days" in out.archive[archive_path("USER.md")]


def test_identity_lines_without_a_mark_are_protected_too(tmp_path):
    record = SalienceRecord(tmp_path / "s.json")
    old = TODAY - timedelta(days=400)
    lines = [
        "Name: Ana",
        "From Coimbra",
        "User's wife is called Marta",
        "Has a dog named Bolota",
        "Likes chess",
        "Lives in Braga",
        "Favourite tea: sencha",
    ]  # the last two are attributes: they do not go stale
    record.files["USER.md"] = {line_key(x): LineInfo(old) for x in lines}
    out = _apply(tmp_path, {"USER.md": USER_T + "".join(f"- {x}\n" for x in lines)}, record=record)
    assert _archived(out, "USER.md") == ["likes chess"]


def test_a_pin_the_model_adds_is_taken_off(tmp_path):
    base = USER_T + "- Likes jazz\n"
    out = _apply(tmp_path, {"USER.md": USER_T + "- Likes jazz [pinned]\n"}, base={"USER.md": base})
    assert out.files["USER.md"] == base


def test_model_removals_are_superseded_or_removed_and_archived(tmp_path):
    base = USER_T + "- Lives in Lisbon\n- Works at Acme\n"
    now = USER_T + "- Lives in Porto\n"
    edits = [
        Edit("USER.md", "- Lives in Lisbon\n", "- Lives in Porto\n"),
        Edit("USER.md", "- Works at Acme\n", ""),
    ]
    out = _apply(
        tmp_path,
        {"USER.md": now},
        base={"USER.md": base},
        edits=edits,
        findings=[Finding("FILE-REMOVE", "USER.md: Works at Acme (why: left the job)")],
    )
    entries = out.archive[archive_path("USER.md")]
    assert 'Lives in Lisbon · superseded 2027-06-01 by "Lives in Porto"' in entries
    assert "Works at Acme · removed 2027-06-01 by Dream (finding: USER.md: Works at Acme" in entries
    assert (
        out.own_removals == {}
    )  # the model's removals stay the model's: the gate still judges them


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("- Works at Initech", "- Has a cat named Tom"),  # a true, unrelated line replaced
        ("- Works at Initech", ""),  # taken out with no finding
        ("- Speaks Polish", "- Speaks Portuguese"),  # a second language is not an update
    ],
)
def test_a_line_an_edit_took_out_with_no_evidence_is_put_back(tmp_path, caplog, old, new):
    base = USER_T + "- Lives in Lisbon\n" + old + "\n- Likes jazz\n"
    now = base.replace(old + "\n", new + "\n" if new else "")
    out = _apply(
        tmp_path,
        {"USER.md": now},
        base={"USER.md": base},
        edits=[Edit("USER.md", old + "\n", new + "\n" if new else "")],
        findings=[Finding("USER", new[2:])] if new else [],
    )
    kept = out.files["USER.md"].splitlines()
    assert kept[kept.index("- Lives in Lisbon") + 1] == old  # back where it was
    assert (new in kept) if new else True
    assert out.retired == [] and archive_path("USER.md") not in out.archive
    assert "took out with no finding naming them" in caplog.text


@pytest.mark.parametrize(
    ("old", "new", "findings"),
    [
        ("- Lives in Lisbon", "- Lives in Porto", []),  # the same single-valued attribute
        ("- Likes green tea", "- Likes green tea with honey", []),  # the line said inside it
        ("- Project uses Postgres 15", "- Project uses Postgres 17", []),  # most words shared
        (
            "- Works at Initech",
            "- Is a freelancer",
            [Finding("USER", "Is a freelancer (replaces: Works at Initech)")],
        ),
    ],
)
def test_a_line_an_edit_updated_is_superseded(tmp_path, old, new, findings):
    base = USER_T + old + "\n"
    out = _apply(
        tmp_path,
        {"USER.md": USER_T + new + "\n"},
        base={"USER.md": base},
        edits=[Edit("USER.md", old + "\n", new + "\n")],
        findings=findings,
    )
    assert out.files["USER.md"] == USER_T + new + "\n"
    assert (
        f'{old[2:]} · superseded 2027-06-01 by "{new[2:]}"' in out.archive[archive_path("USER.md")]
    )


def test_learning_records_marks_and_confirmations(tmp_path):
    record = SalienceRecord(tmp_path / "s.json")
    record.files["USER.md"] = {"likes jazz": LineInfo(TODAY - timedelta(days=100))}
    base = USER_T + "- Likes jazz\n"
    user = base + "- Name: Ana\n- Deadline for visa: 2027-07-01\n"
    _apply(
        tmp_path,
        {"USER.md": user},
        base={"USER.md": base},
        record=record,
        facts=[
            ("permanent", "Name: Ana"),
            ("ephemeral", "Deadline for visa: 2027-07-01"),
            ("durable", "Likes jazz"),
        ],
    )
    lines = record.files["USER.md"]
    assert lines["name: ana"].mark == "permanent" and lines["name: ana"].learned == TODAY
    assert lines["deadline for visa: 2027 07 01"].mark == "ephemeral"
    assert lines["likes jazz"].confirmed == TODAY and lines[
        "likes jazz"
    ].learned == TODAY - timedelta(days=100)


# -- Dream runs ------------------------------------------------------------------------------------
@pytest.fixture
def env(tmp_path):
    return make_env(tmp_path / "ws", memory_max_chars=2_000, user_max_chars=1_000)


def _every_line_accounted(env, before: list[str]) -> None:
    now = set(_facts(env.read(MEM))) | {
        line_key(e[0]) for ln in env.read(archive_path(MEM)).splitlines() if (e := parse_entry(ln))
    }
    assert set(before) <= now


def test_a_hand_edited_60kb_memory_comes_within_budget_losing_no_line(env):
    big = MEM_T + "".join(
        f"- Project fact number {i} about subsystem {i % 17} and its owner\n" for i in range(1200)
    )
    assert len(big) > 60_000
    env.ws.write(MEM, big)
    dream = env.dream()
    result = run(dream.run())  # nothing pending: the lifecycle runs alone, no model call
    assert (
        result.status == "ok" and result.archived > 1000 and "archived" in result.lifecycle_summary
    )
    assert len(env.read(MEM)) <= 2_000 and not env.fake.prompts
    _every_line_accounted(env, _facts(big))
    tracked = env.git_cli("ls-files")
    assert (
        "memory/archive/memory.md" in tracked and env.git_cli("status", "--porcelain").strip() == ""
    )
    assert run(dream.run()).status == "nothing-to-do"
    hits = Recall(env.ws, env.config).search("fact number 7 subsystem 7", k=5)
    assert any(h.source.path == "memory/archive/memory.md" for h in hits)


def test_budget_pressure_never_rejects_or_sets_a_batch_aside(env):
    for day in range(12):
        env.add(f"- [durable] fact {day}")
        new = "".join(f"- Fact {day}.{i}: {'detail ' * 8}\n" for i in range(6))
        env.fake.enqueue(f"[MEMORY] fact {day}", [edit(MEM, "", new)], "done")
        result = run(env.dream().run())
        assert result.status == "ok", result.reason
        text = env.read(MEM)
        assert len(text) <= 2_000
        # every line the runs so far wrote is still in the file or in the archive: pressure lost
        # nothing
        archive = env.ws.read(archive_path(MEM))
        lost = [
            f"{d}.{i}"
            for d in range(day + 1)
            for i in range(6)
            if f"Fact {d}.{i}:" not in text + archive
        ]
        assert not lost, lost
    assert not (env.ws.memory_dir / "dream-deadletter.jsonl").exists()
    body = env.git_cli("log", "-1", "--format=%B")
    assert "Lifecycle: archived" in body and tr.parse_trailers(body)[tr.KIND] == "dream"


def test_expiry_follows_dreams_clock_and_is_reported(env):
    env.ws.write(MEM, MEM_T + "- Deadline for the report: 2027-03-05\n- Uses Postgres\n")
    env.git.commit("seed", kind="manual")
    dream = env.dream()
    dream.today = lambda: date(2027, 3, 10)
    assert run(dream.run()).status == "nothing-to-do"  # within grace
    dream.today = lambda: date(2027, 3, 13)
    result = run(dream.run())
    assert (
        result.status == "ok"
        and result.expired == 1
        and result.lifecycle_summary == "expired 1 date"
    )
    assert "Deadline" not in env.read(MEM) and "Uses Postgres" in env.read(MEM)
    assert "expired 2027-03-13 (grace 7 days)" in env.read(archive_path(MEM))
    why = [p for p in env.git.why("Deadline for the report") if p.line.startswith("- ")]
    assert [p.path for p in why] == ["memory/archive/memory.md"] and why[0].kind == "dream"
    assert "expired" in parse_entry(why[0].line)[1]


def test_dream_run_supersedes_an_older_value_the_model_only_added_beside(env):
    # The model adds the new home and leaves the old one: only the lifecycle's supersede step can
    # retire it. (The year test cannot tell: the offline engine replaces such lines itself.)
    env.ws.write("USER.md", USER_T + "- Lives in Lisbon\n- Likes green tea\n")
    env.git.commit("seed", kind="manual")
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue("[USER] Lives in Porto", [edit("USER.md", "", "- Lives in Porto\n")], "done")
    dream = env.dream()
    dream.today = lambda: TODAY
    result = run(dream.run())
    assert result.status == "ok", result.reason
    assert [(e.path, e.old_text, e.new_text) for e in result.edits] == [
        ("USER.md", "", "- Lives in Porto\n")
    ]
    assert result.superseded == 1 and result.expired == 0 and result.merged == 0
    assert result.archived == 1  # the superseded line itself, nothing else
    assert _facts(env.read("USER.md")) == ["likes green tea", "lives in porto"]
    entry = '- Lives in Lisbon · superseded 2027-06-01 by "Lives in Porto"'
    assert entry in env.read(archive_path("USER.md")).splitlines()
    body = env.git_cli("log", "-1", "--format=%B")
    assert 'superseded USER.md: "Lives in Lisbon" by "Lives in Porto"' in body
    why = [p for p in env.git.why("Lives in Lisbon") if p.line.startswith("- ")]
    assert [p.path for p in why] == [archive_path("USER.md")] and why[0].kind == "dream"


def test_recall_hits_are_logged_without_the_writer_lock_and_keep_a_line(env, tmp_path):
    env.ws.write(
        "USER.md", USER_T + "- Likes climbing in the Alps\n- Likes baking sourdough bread\n"
    )
    env.git.commit("seed", kind="manual")
    env.ws.state_dir.mkdir(parents=True, exist_ok=True)
    recall = Recall(env.ws, env.config)
    assert recall.search("sourdough", k=3)
    log = (env.ws.state_dir / "recall-hits.jsonl").read_text()
    assert (
        '"path":"USER.md"' in log
        and "likes baking sourdough bread" in log
        and "climbing" not in log
    )
    record = SalienceRecord.load(env.ws.state_dir)
    record.files["USER.md"] = {
        "likes climbing in the alps": LineInfo(date(2027, 1, 1)),
        "likes baking sourdough bread": LineInfo(date(2027, 1, 1)),
    }
    record.fold_hits()
    assert record.files["USER.md"]["likes baking sourdough bread"].hits == 1
    assert record.files["USER.md"]["likes climbing in the alps"].hits == 0


def test_an_archive_file_deleted_or_edited_by_hand_is_reindexed_and_recreated(env):
    env.ws.write(
        MEM, MEM_T + "- Deadline for the audit: 2027-01-05\n- Deadline for the visa: 2027-01-06\n"
    )
    dream = env.dream()
    dream.today = lambda: date(2027, 3, 1)
    assert run(dream.run()).expired == 2
    recall = Recall(env.ws, env.config)
    assert recall.search("audit", k=3)
    path = env.ws.root / archive_path(MEM)
    path.write_text("# my own notes\n\nvisa stuff\n")
    assert [h.source.path for h in recall.search("visa", k=3)] == [archive_path(MEM)]
    path.unlink()
    assert recall.search("audit", k=3) == []
    env.ws.write(MEM, env.read(MEM) + "- Deadline for the rent: 2027-02-01\n")
    assert run(dream.run()).expired == 1
    assert "rent" in path.read_text() and re.search(r"^## 2027-03-01$", path.read_text(), re.M)


def test_status_and_prompts_show_budgets(env):
    from reverie.memory.status import collect_status

    env.ws.write(MEM, MEM_T + "- Uses Postgres\n")
    env.add("- [durable] Uses Redis")
    env.fake.enqueue(
        "[MEMORY] Uses Redis",
        [edit(MEM, "- Uses Postgres\n", "- Uses Postgres\n- Uses Redis\n")],
        "done",
    )
    assert run(env.dream().run()).status == "ok"
    analyze, edit1 = env.fake.prompts[0], env.fake.prompts[1]
    assert "## Budgets\n- SOUL.md:" in analyze.user and "of 2,000 characters" in analyze.user
    assert "archive_line" in edit1.user and "archive_line" in {
        t["function"]["name"] for t in edit1.tools
    }
    report = collect_status(env.store)
    assert report.budgets[MEM]["limit"] == 2_000 and report.budgets[MEM]["chars"] == len(
        env.read(MEM)
    )


def test_the_model_can_archive_a_line_itself(env):
    env.ws.write(MEM, MEM_T + "- Old detail about the build\n- Uses Postgres\n")
    env.git.commit("seed", kind="manual")
    env.add("- [durable] Uses Redis")
    from reverie.llm.types import ToolCall

    env.fake.enqueue(
        "[MEMORY] Uses Redis",
        [
            ToolCall(
                "a",
                "archive_line",
                {"path": MEM, "line": "Old detail about the build", "reason": "stale detail"},
            )
        ],
        "done",
    )
    result = run(env.dream().run())
    assert result.status == "ok" and result.archived == 1
    assert "Old detail about the build · archived" in env.read(archive_path(MEM))
    assert "(stale detail)" in env.read(archive_path(MEM)) and "Old detail" not in env.read(MEM)


def test_config_tracks_the_archive():
    assert "memory/archive/*.md" in Config().git.tracked_files


# -- set-aside batches come back -------------------------------------------------------------------
def test_a_set_aside_batch_can_be_listed_and_requeued(tmp_path):
    from reverie.chat.commands import CommandRouter
    from reverie.memory.runtime import Runtime

    env = make_env(tmp_path / "ws", max_attempts=2)
    env.add("- [durable] Uses Redis")
    leak = "- key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n"
    for _ in range(2):  # a batch's own fault, twice: set aside
        env.fake.enqueue("[MEMORY] Uses Redis", [edit(MEM, "", leak)], "done")
        result = run(env.dream().run())
    assert result.status == "dead-lettered" and env.store.dream_cursor() == 1
    env.add("- [durable] Uses Kafka")
    dream = env.dream()
    assert [(d.first, d.last) for d in dream.set_aside()] == [(1, 1)]
    cli = invoke("-w", str(env.ws.root), "requeue")
    assert cli.returncode == 0 and "history 1–1" in cli.stdout and "credential" in cli.stdout
    router = CommandRouter(Runtime(env.ws, config=env.config))
    assert "history 1–1" in run(router.handle("/requeue"))
    assert "Requeued history 1–1" in run(router.handle("/requeue 1"))
    assert dream.set_aside() == [] and [d.first for d in dream.queued()] == [1]
    env.fake.enqueue("[MEMORY] Uses Redis", [edit(MEM, "", "- Uses Redis\n")], "done")
    result = run(dream.run())  # the requeued batch first; the cursor does not move back
    assert (
        result.status == "ok"
        and (result.first, result.last) == (1, 1)
        and "Uses Redis" in env.read(MEM)
    )
    assert env.store.dream_cursor() == 1 and dream.queued() == []
    env.fake.enqueue("[MEMORY] Uses Kafka", [edit(MEM, "", "- Uses Kafka\n")], "done")
    result = run(dream.run())
    assert (result.first, result.last) == (2, 2) and env.store.dream_cursor() == 2


def test_a_person_pins_a_line_by_command_and_dream_keeps_it(env):
    from reverie.chat.commands import CommandRouter
    from reverie.errors import DreamError
    from reverie.memory.runtime import Runtime

    env.ws.write("USER.md", USER_T + "- Likes old maps\n- Likes old films\n")
    env.git.commit("seed", kind="manual")
    router = CommandRouter(Runtime(env.ws, config=env.config))
    assert "2 lines contain" in run(router.handle("/pin likes old"))
    assert "Pinned in USER.md" in run(router.handle("/pin old maps"))
    assert "- Likes old maps [pinned]" in env.read("USER.md")
    assert env.git.log(limit=1)[0].kind == "manual"
    from reverie.dream.pins import pin

    with pytest.raises(DreamError):
        pin(env.ws, env.git, "nothing like this")
    cfg = env.config.dream
    cfg.user_max_chars, cfg.lifecycle.stale_days = 100, 7
    dream = env.dream()
    run(dream.run())  # the first run records when each line was learned
    dream.today = lambda: date.today() + timedelta(days=30)
    result = run(dream.run())  # stale after 7 days: the unpinned line leaves, the pinned one stays
    assert result.status == "ok" and "Likes old maps [pinned]" in env.read("USER.md")
    assert "Likes old films" not in env.read("USER.md") and "Likes old films" in env.read(
        archive_path("USER.md")
    )
