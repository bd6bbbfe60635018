"""Memory never loses a correct fact (issue 25): one regression test per fault found by an
adversarial user.

A line leaves a prompt file only for a reason with evidence, lands in the archive with that reason
(merges included) where ``reverie why`` finds it; writers never overwrite each other; replay and
requeue agree; damaged archive files never cost a batch; a file far over budget is trimmed before
the model is asked; a drain pauses at its budget."""

from __future__ import annotations

from asyncio import run
from datetime import date

from support.dream_helpers import MEM, edit, make_env

from reverie.dream.archive import archive_path, parse_entry
from reverie.dream.lifecycle import apply, single_valued
from reverie.dream.salience import SalienceRecord
from reverie.storage.config import DreamConfig
from reverie.text.memline import line_key

TODAY = date(2027, 6, 1)
USER_T = "# User\n\nWho the user is.\n\n"
MEM_T = "# Memory\n\nProject facts.\n\n"


def _apply(tmp_path, files, *, base=None, **kw):
    current = {"SOUL.md": "# Soul\n", "USER.md": USER_T, MEM: MEM_T, **files}
    base = current if base is None else {**current, **base}
    record = SalienceRecord(tmp_path / "salience.json")
    return apply(
        base, current, cfg=DreamConfig(), today=TODAY, record=record, archive_texts={}, **kw
    )


def _facts(text: str) -> list[str]:
    return [line_key(ln) for ln in text.splitlines() if ln.startswith("- ")]


def _archived(text: str) -> dict[str, str]:
    return {line_key(e[0]): e[1] for ln in text.splitlines() if (e := parse_entry(ln))}


# -- 1. a look-alike fact about another subject is not a duplicate ---------------------------------
def test_a_fact_about_another_subject_is_not_merged_away(tmp_path):
    user = (
        USER_T + "- Is vegetarian\n- Wife is vegetarian\n- Speaks German\n- Manager speaks German\n"
    )
    out = _apply(tmp_path, {"USER.md": user})
    assert _facts(out.files["USER.md"]) == _facts(user) and not out.retired
    mem = MEM_T + "- Uses Postgres\n- The team's old service uses Postgres\n"
    assert _apply(tmp_path, {MEM: mem}).retired == []


def test_the_same_fact_said_twice_merges_and_the_merged_line_is_archived_where_why_finds_it(
    tmp_path,
):
    env = make_env(tmp_path / "ws")
    env.ws.write(
        "USER.md",
        USER_T
        + "- Likes green tea\n- The user likes green tea with honey\n- Likes jazz\n- likes jazz.\n",
    )
    env.git.commit("seed", kind="manual")
    result = run(env.dream().run())  # nothing pending: the lifecycle alone
    assert result.status == "ok" and result.merged == 2
    assert _facts(env.read("USER.md")) == ["the user likes green tea with honey", "likes jazz"]
    archive = _archived(env.read(archive_path("USER.md")))
    assert archive["likes green tea"].endswith('into "The user likes green tea with honey"')
    assert (
        archive["likes jazz"].startswith("merged") and 'into "Likes jazz"' in archive["likes jazz"]
    )
    found = env.git.why("likes jazz.")
    assert [p.path for p in found if not p.line.startswith("#")] == [archive_path("USER.md")]


# -- 2. repeated labels are multi-valued unless the attribute is single-valued ---------------------
def test_a_repeated_label_keeps_every_value_unless_the_attribute_is_single_valued(tmp_path):
    base = USER_T + "".join(
        f"- {line}\n"
        for line in (
            "Sister: Ana",
            "Child: Tom",
            "Bug: login times out",
            "Lesson: pin the lock file",
            "Repository: reverie",
            "Language: Portuguese",
            "Time zone: Europe/Lisbon",
            "Employer: Acme",
            "Job title: engineer",
        )
    )
    new = "".join(
        f"- {line}\n"
        for line in (
            "Sister: Maria",
            "Child: Lea",
            "Bug: search misses archives",
            "Lesson: test the CLI in process",
            "Repository: nanobot",
            "Language: German",
            "Time zone: America/New_York",
            "Works at Globex",
            "Role: staff engineer",
        )
    )
    out = _apply(tmp_path, {"USER.md": base + new}, base={"USER.md": base})
    kept = _facts(out.files["USER.md"])
    for line in (
        "sister: ana",
        "sister: maria",
        "child: tom",
        "child: lea",
        "bug: login times out",
        "lesson: pin the lock file",
        "repository: reverie",
        "language: portuguese",
        "language: german",
    ):
        assert line in kept, line
    gone = _archived(out.archive[archive_path("USER.md")])
    assert gone == {
        "time zone: europe lisbon": 'superseded 2027-06-01 by "Time zone: America/New_York"',
        "employer: acme": 'superseded 2027-06-01 by "Works at Globex"',
        "job title: engineer": 'superseded 2027-06-01 by "Role: staff engineer"',
    }


def test_the_single_valued_list_is_explicit():
    assert all(
        single_valued(label)
        for label in (
            "home",
            "employer",
            "job title",
            "name",
            "time zone",
            "favourite colour",
            "current project",
        )
    )
    assert not any(
        single_valued(label)
        for label in (
            "sister",
            "child",
            "pet",
            "language",
            "likes",
            "bug",
            "lesson",
            "repository",
            "rule",
            "note",
        )
    )


# -- 3. one writer protocol: no writer overwrites another ------------------------------------------
def test_a_dream_commit_landing_while_a_pin_is_in_flight_is_kept(tmp_path):
    from reverie.dream.pins import pin

    env = make_env(tmp_path / "ws")
    env.ws.write(MEM, MEM_T + "- Likes old maps\n")
    env.git.commit("seed", kind="manual")
    env.add("- [durable] Uses Kafka for events")
    env.fake.enqueue(
        "[MEMORY] Uses Kafka for events", [edit(MEM, "", "- Uses Kafka for events\n")], "done"
    )
    real = env.git.commit

    def slow(*args, **kw):  # the pin has read MEMORY.md; Dream commits before the pin does
        env.git.commit = real
        assert run(env.dream().run()).status == "ok"
        return real(*args, **kw)

    env.git.commit = slow
    result = pin(env.ws, env.git, "old maps")
    assert result.changed and env.git.commit is real
    text = env.read(MEM)
    assert "- Likes old maps [pinned]" in text and "- Uses Kafka for events" in text
    assert env.git_cli("status", "--porcelain").strip() == ""
    assert "Uses Kafka for events" in env.git_cli("show", "HEAD:memory/MEMORY.md")


def test_a_pin_conflicting_with_a_concurrent_change_of_its_line_is_tried_again(tmp_path):
    from reverie.dream.pins import pin

    env = make_env(tmp_path / "ws")
    env.ws.write(MEM, MEM_T + "- Likes old maps\n")
    env.git.commit("seed", kind="manual")
    real = env.git.commit

    def racing(*args, **kw):  # someone rewrites the very line between the pin's read and its commit
        env.git.commit = real
        real("edit", kind="manual", files={MEM: MEM_T + "- Likes old maps of Lisbon\n"})
        return real(*args, **kw)

    env.git.commit = racing
    result = pin(env.ws, env.git, "old maps")
    assert result.changed and result.line == "- Likes old maps of Lisbon [pinned]"
    assert env.read(MEM) == MEM_T + "- Likes old maps of Lisbon [pinned]\n"


# -- 4. restore --replay and requeue agree ---------------------------------------------------------
def _set_aside_then_requeue_and_learn(env) -> str:
    """Batch 1 fails twice (set aside); batch 2 is learned; batch 1 is requeued and learned. Returns
    its commit."""
    leak = "- key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n"
    env.add("- [durable] Uses Redis for the cache")
    for _ in range(2):
        env.fake.enqueue("[MEMORY] Uses Redis", [edit(MEM, "", leak)], "done")
        run(env.dream().run())
    env.add("- [durable] Uses Kafka for events")
    env.fake.enqueue("[MEMORY] Uses Kafka", [edit(MEM, "", "- Uses Kafka for events\n")], "done")
    assert run(env.dream().run()).status == "ok"
    env.dream().requeue()
    env.fake.enqueue("[MEMORY] Uses Redis", [edit(MEM, "", "- Uses Redis for the cache\n")], "done")
    result = run(env.dream().run())
    assert (
        result.status == "ok"
        and (result.first, result.last) == (1, 1)
        and env.dream().queued() == []
    )
    return result.commit


def test_restore_replay_replays_a_batch_that_was_set_aside_and_requeued(tmp_path):
    from reverie.operations.restore import restore_memory

    env = make_env(tmp_path / "ws", max_attempts=2, max_batch_size=1)
    sha = _set_aside_then_requeue_and_learn(env)
    result = restore_memory(env.store, env.git, sha, replay=True)
    assert result.cursor_rewound_to == 0 and "Uses Redis" not in env.read(MEM)
    for fact in (
        "Uses Redis for the cache",
        "Uses Kafka for events",
    ):  # every batch after the restored commit
        env.fake.enqueue(f"[MEMORY] {fact}", [edit(MEM, "", f"- {fact}\n")], "done")
    results = [run(env.dream().run()) for _ in range(2)]
    assert [r.first for r in results] == [1, 2] and {r.status for r in results} <= {
        "ok",
        "no-change",
    }
    assert "- Uses Redis for the cache" in env.read(MEM) and env.store.dream_cursor() == 2
    assert env.dream().set_aside() == [] and env.dream().queued() == []


def test_restore_replay_over_a_set_aside_batch_runs_it_in_order(tmp_path):
    from reverie.operations.restore import restore_memory

    env = make_env(tmp_path / "ws", max_attempts=1, max_batch_size=1)
    env.ws.write(MEM, MEM_T + "- Seeded fact\n")
    env.add("- [durable] Uses Rust")
    env.fake.enqueue("[MEMORY] Uses Rust", [edit(MEM, "", "- Uses Rust\n")], "done")
    first = run(env.dream().run())
    env.add("- [durable] Uses Redis for the cache")
    env.fake.enqueue(
        "[MEMORY] Uses Redis",
        [edit(MEM, "", "- key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n")],
        "done",
    )
    assert run(env.dream().run()).status == "dead-lettered" and env.store.dream_cursor() == 2
    restore_memory(env.store, env.git, first.commit, replay=True)
    assert (
        env.store.dream_cursor() == 0 and env.dream().set_aside() == []
    )  # it comes back with the replay
    env.fake.enqueue("[MEMORY] Uses Rust", [edit(MEM, "", "- Uses Rust\n")], "done")
    env.fake.enqueue("[MEMORY] Uses Redis", [edit(MEM, "", "- Uses Redis for the cache\n")], "done")
    assert [run(env.dream().run()).first for _ in range(2)] == [1, 2]
    assert "- Uses Redis for the cache" in env.read(MEM)


# -- 5. a damaged archive file is repaired or set apart; the run goes on ---------------------------
def _over_budget(env) -> None:
    env.ws.write(
        "USER.md", USER_T + "".join(f"- Likes board game number {i:03d} a lot\n" for i in range(40))
    )
    env.git.commit("hand-grown", kind="manual")


def test_invalid_utf8_in_an_archive_file_is_set_apart_and_the_run_goes_on(tmp_path, capsys):
    from reverie.cli._render_dream import print_dream

    env = make_env(tmp_path / "ws", user_max_chars=600)
    path = env.ws.root / archive_path("USER.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    damaged = (
        b"# Archive: USER.md\n\n## 2027-01-01\n\n### Likes caf\xe9\n"
        b"- Likes caf\xe9 \xb7 archived 2027-01-01\n"
    )
    path.write_bytes(damaged)
    _over_budget(env)
    result = run(
        env.dream().run()
    )  # nothing pending: the lifecycle alone must archive into the damaged file
    assert result.status == "ok" and result.archived > 0, result.reason
    print_dream(result)
    out = capsys.readouterr().out
    assert "memory/archive/user.md had invalid UTF-8" in " ".join(out.split())
    aside = [p for p in path.parent.iterdir() if p.name.startswith("user.md.damaged-")]
    assert len(aside) == 1 and aside[0].read_bytes() == damaged  # nothing in it is lost
    text = path.read_text("utf-8")  # valid now, with the run's archived lines appended
    assert "Likes caf\ufffd" in text and "Likes board game number 000 a lot" in text
    assert len(env.read("USER.md")) <= 600 and env.git_cli("status", "--porcelain").strip() == ""
    assert not (env.ws.memory_dir / "dream-deadletter.jsonl").exists()


def test_a_directory_in_place_of_an_archive_file_is_moved_aside_and_its_text_comes_back(tmp_path):
    env = make_env(tmp_path / "ws")
    env.ws.write("USER.md", USER_T + "- Lives in Lisbon\n")
    env.git.commit("seed", kind="manual")
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue("[USER] Lives in Porto", [edit("USER.md", "", "- Lives in Porto\n")], "done")
    assert run(env.dream().run()).superseded == 1
    path = env.ws.root / archive_path("USER.md")
    committed = path.read_text()
    path.unlink()
    (path / "notes").mkdir(parents=True)
    (path / "notes" / "mine.txt").write_text("a person's file")
    env.add("- [durable] Lives in Braga")
    env.fake.enqueue("[USER] Lives in Braga", [edit("USER.md", "", "- Lives in Braga\n")], "done")
    result = run(env.dream().run())
    assert result.status == "ok" and result.superseded == 1, result.reason
    assert any("memory/archive/user.md was not a file: moved aside" in w for w in result.warnings)
    aside = next(p for p in path.parent.iterdir() if p.name.startswith("user.md.damaged-"))
    assert (aside / "notes" / "mine.txt").read_text() == "a person's file"
    text = path.read_text()
    assert (
        text.startswith(committed)
        and "- Lives in Porto · superseded" in text
        and "Lives in Lisbon" in text
    )


def test_an_archive_file_without_its_header_gets_it_back(tmp_path):
    env = make_env(tmp_path / "ws")
    path = env.ws.root / archive_path(MEM)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("- Old note · archived 2027-01-01 (over budget)\n")
    env.ws.write(MEM, MEM_T + "- Uses MySQL for the shop\n- No longer uses MySQL for the shop\n")
    env.git.commit("seed", kind="manual")
    result = run(env.dream().run())
    assert result.status == "ok" and any("had lost its header" in w for w in result.warnings)
    text = path.read_text()
    assert text.startswith("# Archive: memory/MEMORY.md") and "- Old note · archived" in text
    assert "- Uses MySQL for the shop · superseded" in text


# -- 7. an untracked archive: nothing removed where nobody could find it ---------------------------
def test_with_the_archive_untracked_no_line_leaves_and_no_report_points_at_it(tmp_path, capsys):
    from reverie.cli._render_dream import print_dream

    env = make_env(tmp_path / "ws", user_max_chars=300)
    env.git.config.tracked_files = ["SOUL.md", "USER.md", "memory/MEMORY.md"]
    env.git.tracked = list(env.git.config.tracked_files)
    env.config.git.tracked_files = list(env.git.tracked)
    env.ws.write(
        "USER.md",
        USER_T
        + "- Lives in Lisbon\n- Likes jazz\n- likes jazz.\n"
        + "".join(f"- Likes board game number {i:03d}\n" for i in range(20)),
    )
    env.git.commit("seed", kind="manual")
    before = env.read("USER.md")
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue(
        "[USER] Lives in Porto",
        [edit("USER.md", "- Lives in Lisbon\n", "- Lives in Porto\n")],
        "done",
    )
    result = run(env.dream().run())
    assert result.status == "ok" and not result.archive_tracked
    assert any("not in git.trackedFiles" in w for w in result.warnings)
    after = env.read("USER.md")
    assert after == before.replace("Lives in Lisbon", "Lives in Porto")  # only the model's own edit
    assert not (env.ws.root / "memory" / "archive").exists()
    print_dream(result)
    out = " ".join(capsys.readouterr().out.split())
    assert "see memory/archive/" not in out and "nothing is archived" in out


# -- 6. a file far over budget is trimmed before the model is asked --------------------------------
def test_a_hand_grown_user_md_far_over_budget_is_trimmed_before_the_prompt_is_built(tmp_path):
    env = make_env(tmp_path / "ws", token_budget=30_000, max_attempts=1)
    big = USER_T + "".join(
        f"- Hand-written note {i:05d} on topic {i % 97} with detail\n" for i in range(6200)
    )
    assert len(big) > 300_000  # ≈ 80k tokens in the prompt: over the batch's cap 2.5 times
    env.ws.write("USER.md", big)
    env.git.commit("hand-grown", kind="manual")
    env.add("- [durable] Uses Kafka for events")
    env.fake.enqueue(
        "[MEMORY] Uses Kafka for events", [edit(MEM, "", "- Uses Kafka for events\n")], "done"
    )
    result = run(env.dream().run())
    assert result.status == "ok", result.reason
    assert any("over budget before the model call" in w for w in result.warnings)
    assert all(len(str(p)) < 60_000 for p in env.fake.prompts)  # the model saw the trimmed file
    assert len(env.read("USER.md")) <= env.config.dream.user_max_chars and "Uses Kafka" in env.read(
        MEM
    )
    kept = set(_facts(env.read("USER.md"))) | set(_archived(env.read(archive_path("USER.md"))))
    assert set(_facts(big)) <= kept  # every line is in the file or the archive
    assert not (env.ws.memory_dir / "dream-deadletter.jsonl").exists()


# -- 8. a drain stopping at its budget is a pause --------------------------------------------------
def test_a_drain_stopping_at_its_token_budget_pauses_says_what_is_left_and_exits_0(
    tmp_path, monkeypatch, capsys
):
    from reverie.cli import cmd_dream

    env = make_env(tmp_path / "ws", max_batch_size=1, drain_token_budget=1000)
    for i in range(3):
        env.add(f"- [durable] Uses tool number {i}")
        env.fake.enqueue(
            f"[MEMORY] Uses tool number {i}", [edit(MEM, "", f"- Uses tool number {i}\n")], "done"
        )
    result = run(env.dream().run(drain=True))
    assert result.status == "paused" and env.store.dream_cursor() == 0, result.reason
    assert result.reason == "paused: 3 entries left, run again or raise dream.drainTokenBudget"
    assert not (env.ws.memory_dir / "dream-deadletter.jsonl").exists()
    assert cmd_dream.run.__module__  # the CLI maps a pause to exit 0 (only failures exit 1)
    assert "paused" not in cmd_dream._FAILED


def test_the_offline_engine_is_not_counted_against_a_token_budget(tmp_path):
    from reverie.storage.config import OFFLINE_MODEL

    env = make_env(tmp_path / "ws", max_batch_size=2, drain_token_budget=1000, token_budget=1000)
    env.config.dream.model_override = OFFLINE_MODEL
    for i in range(5):
        env.add(f"- [durable] Uses tool number {i} for the build")
    result = run(env.dream().run(drain=True))
    assert result.status in ("ok", "no-change") and env.store.dream_cursor() == 5, result.reason
    assert result.usage.total_tokens > 1  # counted and reported, never charged


# -- 9. recent facts stay --------------------------------------------------------------------------
def test_budget_pressure_archives_old_recalled_lines_before_anything_learned_this_month(tmp_path):
    from datetime import timedelta

    from reverie.dream.salience import LineInfo

    cfg = DreamConfig()
    cfg.user_max_chars = 200
    old = [f"Likes old hobby number {i:02d}" for i in range(6)]
    new = [f"Likes new hobby number {i:02d}" for i in range(4)]
    record = SalienceRecord(tmp_path / "salience.json")
    lines = record.files.setdefault("USER.md", {})
    for text in old:  # learned a year ago, but recalled often and lately
        lines[line_key(text)] = LineInfo(
            TODAY - timedelta(days=365), hits=15, last_hit=TODAY - timedelta(days=1)
        )
    for i, text in enumerate(new):  # learned in the last month, never recalled
        lines[line_key(text)] = LineInfo(TODAY - timedelta(days=5 + 6 * i))
    user = USER_T + "".join(f"- {t}\n" for t in old + new)
    files = {"SOUL.md": "# Soul\n", "USER.md": user, MEM: MEM_T}
    out = apply(files, files, cfg=cfg, today=TODAY, record=record, archive_texts={})
    kept = _facts(out.files["USER.md"])
    assert all(line_key(t) in kept for t in new), kept  # this month's facts all stay
    assert len(out.files["USER.md"]) <= 200 and out.archived >= 3


def test_a_lifecycle_step_that_cannot_be_written_fails_loudly_not_with_exit_0(
    tmp_path, monkeypatch, capsys
):
    from reverie.cli import main
    from reverie.dream import transaction
    from reverie.errors import MergeConflictError

    env = make_env(tmp_path / "ws")
    env.ws.write("USER.md", USER_T + "- Likes jazz\n- likes jazz.\n")
    env.git.commit("seed", kind="manual")

    def conflict(
        point: str,
    ) -> None:  # another writer's change to the same lines lands at the last moment
        if point == "before-commit":
            raise MergeConflictError("USER.md changed meanwhile", path="USER.md")

    monkeypatch.setattr(transaction, "fault", conflict)
    assert main(["-w", str(env.ws.root), "dream"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "failed" in out and "lifecycle not written" in out
    assert env.read("USER.md").count("jazz") == 2  # nothing written


def test_family_and_pets_by_label_are_identity_and_stay_under_budget_pressure(tmp_path):
    cfg = DreamConfig()
    cfg.user_max_chars = 120
    user = (
        USER_T
        + "- Sister: Ana\n- Sister: Maria\n- Dog: Bolota\n"
        + "".join(f"- Likes tea number {i}\n" for i in range(8))
    )
    files = {"SOUL.md": "# Soul\n", "USER.md": user, MEM: MEM_T}
    out = apply(
        files,
        files,
        cfg=cfg,
        today=TODAY,
        record=SalienceRecord(tmp_path / "s.json"),
        archive_texts={},
    )
    kept = _facts(out.files["USER.md"])
    assert {"sister: ana", "sister: maria", "dog: bolota"} <= set(kept) and out.archived >= 6
