"""Issue 41: a reply accounts for its input or is not trusted; the replies not taken as they came
are kept; a silent provider is an outage; prompts fit the model's window; status shows every
queued batch. Each parser's rules here, on hand-made replies; the replay corpus of a real model's
replies is ``test_reply_corpus.py``."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import orjson
import pytest
from support.cli import run_cli
from support.dream_helpers import MEM, edit, make_env

from reverie import MemoryStore
from reverie.consolidator import Consolidator, SessionStore
from reverie.consolidator.summary import interpret
from reverie.dream.analyze import UnusableAnalysis, judge
from reverie.dream.budget import Budget, call_reserve
from reverie.dream.records import StatusRecord
from reverie.errors import ContextWindowError
from reverie.llm.client import ModelClient
from reverie.llm.replylog import (
    MAX_BYTES,
    find_reply,
    keep_reply,
    read_replies,
    replies_path,
)
from reverie.llm.scripted import Reply, ScriptedModel
from reverie.llm.types import ModelResponse, ToolCall
from reverie.llm.window import ContextWindows, parse_limit
from reverie.memory.status import collect_status
from reverie.operations.memfiles import judge_flush
from reverie.storage.config import Config, DreamConfig, LLMConfig

USER = "user"


def said(*texts: str) -> list[dict[str, str]]:
    out = []
    for t in texts:
        out += [{"role": USER, "content": t}, {"role": "assistant", "content": "Noted."}]
    return out


# -- the archive reply -----------------------------------------------------------------------------
EWA = said("By the way, my sister Ewa lives in Berlin.")


@pytest.mark.parametrize(
    "reply, why",
    [
        # the reply a real model gave at /new: its input echoed, then "(nothing)"
        ("[2026-11-20 10:00] USER: By the way, my sister Ewa lives in Berlin.\n(nothing)", "mixed"),
        ("(nothing)\n- [durable] Sister Ewa lives in Berlin", "mixed"),
        ("- [skip] chit-chat\n(nothing)", "mixed"),
        ("(nothing)", "in which the user said something"),
        ("(Nothing).", "in which the user said something"),
        ("Sure! I have nothing to add.", "no usable fact line"),
        ("- [durable] Prefers tea over coffee", "no usable fact line"),  # shares no word
        ("- [durable] ```python", "no usable fact line"),
    ],
)
def test_an_archive_reply_that_does_not_account_for_its_input_is_refused(reply, why):
    taken = interpret(reply, "stop", False, EWA)
    assert not taken.ok and why in (taken.failure or "") and taken.verdict == "refused"


@pytest.mark.parametrize(
    "messages",
    [
        said("Hi!", "thanks :)"),
        said("What's the weather like in Porto today?"),
        [{"role": "tool", "content": "Weather: 18 degrees and light rain all over Lisbon today."}],
        [{"role": USER, "name": "Marta", "content": "I think the user should move to Madrid now."}],
    ],
)
def test_nothing_is_believed_where_the_user_said_nothing(messages):
    taken = interpret("(nothing)", "stop", False, messages)
    assert taken.ok and taken.facts is None and not taken.unsure and taken.verdict == "trusted"


def test_facts_that_account_for_the_slice_are_trusted():
    taken = interpret("- [durable] Sister Ewa lives in Berlin", "stop", False, EWA)
    assert taken.ok and taken.verdict == "trusted" and not taken.unsure
    assert taken.facts == "- [durable] Sister Ewa lives in Berlin"


def test_facts_beside_chatter_or_missing_a_sentence_keep_the_words_too():
    chatter = interpret("Here you go:\n- [durable] Sister Ewa lives in Berlin", "stop", False, EWA)
    assert chatter.ok and chatter.verdict == "lenient" and chatter.unsure
    two = said("I moved to Porto last week. My sister Ewa lives in Berlin.")
    missed = interpret("- [correction] Lives in Porto", "stop", False, two)
    assert missed.ok and missed.unsure and "not accounted for" in missed.note
    assert missed.facts == "- [correction] Lives in Porto"
    # a fact sharing no word with the slice is dropped, the rest kept, the words kept too
    invented = interpret(
        "- [durable] Sister Ewa lives in Berlin\n- [permanent] Name is Bob", "stop", False, EWA
    )
    assert invented.facts == "- [durable] Sister Ewa lives in Berlin" and invented.unsure
    assert "shares no word" in invented.note


def test_skip_lines_account_for_chit_chat():
    small_talk = said("I had a really lovely walk along the river this morning.")
    taken = interpret("- [skip] a walk along the river", "stop", False, small_talk)
    assert taken.ok and taken.facts is None and not taken.unsure and taken.verdict == "trusted"


def test_a_fenced_reply_is_unwrapped_and_said_to_be_repaired():
    taken = interpret("```\n- [durable] Sister Ewa lives in Berlin\n```", "stop", False, EWA)
    assert taken.ok and taken.verdict == "repaired" and "code fence" in taken.note
    assert taken.facts == "- [durable] Sister Ewa lives in Berlin"


@pytest.mark.parametrize("reply", ["(nothing)\n(unsure)", "(unsure)"])
def test_unsure_keeps_the_words_whatever_was_said(reply):
    taken = interpret(reply, "stop", False, EWA)
    assert taken.ok and taken.unsure and taken.facts is None


# -- the analysis ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply, why",
    [
        ("The batch:\n[SKIP]\nA: [USER] is a user", "[SKIP] among"),
        ("- [durable] x\n[SKIP]\nsome junk", "[SKIP] among"),
        ("[USER] Lives in Porto\n[SKIP]", "mixed with 1 finding"),
        ("Here is my analysis of the batch.", "no finding lines and no [SKIP]"),
        ("", "empty reply"),
    ],
)
def test_an_analysis_with_skip_among_other_lines_is_unusable(reply, why):
    with pytest.raises(UnusableAnalysis, match=pytest_escape(why)):
        judge(reply)


def pytest_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_a_whole_skip_is_taken_and_findings_beside_junk_leniently():
    assert judge("[SKIP]").skipped and judge("- [SKIP]").verdict == "trusted"
    assert judge("[USER] [skip] said hello").skipped
    lenient = judge("Findings:\n[USER] Lives in Porto\n[MEMORY] [skip] chit-chat")
    assert [f.text for f in lenient.findings] == ["Lives in Porto"]
    assert lenient.verdict == "lenient" and "2 line(s)" in lenient.note
    fenced = judge("```\n[USER] Lives in Porto\n```")
    assert fenced.verdict == "repaired" and len(fenced.findings) == 1


# -- the flush -------------------------------------------------------------------------------------
def test_a_runaway_flush_reply_is_one_warning_line(caplog):
    """A flush reply of 20,000 lines of code beside one fact: the fact is taken and the log gets one
    line for the dropped ones (before: a warning per line, 20,000 of them)."""
    reply = "- Lives in Porto\n" + "- def f(): return 1\n" * 20_000
    with caplog.at_level("WARNING", logger="reverie.operations.memfiles"):
        answer = judge_flush(reply, key="cli:loop")
    assert answer.facts == ["Lives in Porto"]
    [warned] = [r.getMessage() for r in caplog.records if r.name == "reverie.operations.memfiles"]
    assert "and 19,999 more" in warned


def test_silent_is_believed_only_as_the_whole_flush_answer():
    assert judge_flush("[silent]").silent and judge_flush("- [silent].").silent
    mixed = judge_flush("[silent]\n- Lives in Porto")
    assert not mixed.silent and mixed.facts == [] and mixed.verdict == "refused"
    lenient = judge_flush("Here you go:\n- Lives in Porto\n- def f(): pass")
    assert lenient.facts == ["Lives in Porto"] and lenient.verdict == "lenient"
    cut = judge_flush("- Lives in Porto\n- Works at Ac", cut=True)
    assert cut.facts == ["Lives in Porto"] and cut.verdict == "repaired"
    assert judge_flush("I cannot do that.").verdict == "refused"


# -- the kept replies ------------------------------------------------------------------------------
def test_a_kept_reply_is_bounded_redacted_and_found_by_its_id(tmp_path: Path):
    secret = "sk-proj-4f9Qx7LmN2pR8sT1vW3yZ5aB6cD0eF2gH4jK7mP9"
    response = ModelResponse(
        content=f"my key is {secret}\n" + "x" * 50_000,
        tool_calls=(ToolCall("c1", "edit_file", None, "{" + "y" * 10_000),),
    )
    rid = keep_reply(
        tmp_path,
        task="archive",
        model="openai/m",
        verdict="refused",
        reason="r",
        messages=[{"role": "system", "content": "sys"}, {"role": USER, "content": "u" * 9_000}],
        response=response,
        ref={"session": "cli:a", "cursors": [3, 4]},
    )
    assert rid is not None
    raw = replies_path(tmp_path).read_bytes()
    assert secret.encode() not in raw and len(raw) < 20_000
    kept = find_reply(tmp_path, rid)
    assert kept is not None and kept.cursors == (3, 4) and kept.request["messages"] == 2
    assert "[REDACTED" in kept.reply["content"]


def test_the_kept_replies_stay_under_their_bound_and_skip_a_torn_line(tmp_path: Path):
    big = ModelResponse(content="z" * 7_000)
    for _ in range(400):
        keep_reply(tmp_path, task="flush", model="m", verdict="refused", reason="r", response=big)
    path = replies_path(tmp_path)
    assert path.stat().st_size <= MAX_BYTES
    with path.open("ab") as fh:
        fh.write(b'{"id": "r-torn", "time"')
    kept = read_replies(tmp_path)
    assert kept and all(r.id != "r-torn" for r in kept)


def test_a_reply_that_cannot_be_kept_does_not_fail_the_task(tmp_path: Path):
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")
    assert keep_reply(blocker, task="archive", model="m", verdict="refused", reason="r") is None


# -- the model's window ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, limit, requested",
    [
        (
            (
                "This model's maximum context length is 8192 tokens. However, you requested 9020"
                " tokens (9010 in the messages, 10 in the completion)."
            ),
            8192,
            9020,
        ),
        ("Requested tokens (8448) exceed context window of 8192", 8192, 8448),
        ("prompt is too long: 210000 tokens > 200000 maximum", None, None),
        ("maximum context length exceeded", None, None),
    ],
)
def test_the_window_a_provider_names_is_read(text, limit, requested):
    assert parse_limit(text) == (limit, requested)


def test_windows_come_from_config_then_the_agent_then_what_was_learned(tmp_path: Path):
    cfg = Config.model_validate(
        {
            "agents": {"defaults": {"model": "openai/a", "contextWindowTokens": 4096}},
            "models": {"openai/b": {"contextWindowTokens": 16384}},
        }
    )
    windows = ContextWindows(cfg, tmp_path)
    assert windows.of("openai/a") == 4096 and windows.of("openai/b") == 16384
    assert windows.of("scripted/c") == 4096  # no entry of its own: agents.defaults' value
    windows.learn("openai/a", 2048, 3000, "maximum context length is 2048")
    assert ContextWindows(cfg, tmp_path).of("openai/a") == 2048  # kept in the workspace state
    windows.learn("openai/b", 8192, 9000, "maximum context length is 8192")
    assert ContextWindows(cfg, tmp_path).of("openai/b") == 16384  # said for it: the person's word
    windows.learn("scripted/c", None, 4000, "too long")
    assert ContextWindows(cfg, tmp_path).of("scripted/c") == 3000
    (tmp_path / "model-windows.json").write_text("{corrupt")
    assert ContextWindows(cfg, tmp_path).of("openai/a") == 4096


# -- a silent provider is an outage ----------------------------------------------------------------
def test_by_default_a_call_ends_on_its_own_timeout_before_the_run_does():
    dream, llm = DreamConfig(), LLMConfig()
    reserve = call_reserve(Budget.from_config(dream), llm.timeout)
    assert llm.timeout < dream.max_seconds and reserve < dream.max_seconds


@pytest.mark.parametrize("max_seconds, timeout", [(3.0, 1.0), (1.5, 30.0)])
def test_a_hung_model_costs_no_attempt_and_status_says_not_answering(
    tmp_path: Path, max_seconds: float, timeout: float
):
    """A model that never answers, with the per-call timeout under the run's limit (the defaults'
    shape) and over it (the issue's maxSeconds 40 with a 120 s timeout): either way the run ends on
    the call's own deadline, counts no attempt, keeps the batch."""
    env = make_env(tmp_path / "ws", max_seconds=max_seconds, max_attempts=1)
    env.config.llm.timeout = timeout
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue(*[Reply("[USER] Lives in Porto", delay=1_000) for _ in range(5)])
    started = time.monotonic()
    result = asyncio.run(env.dream().run())
    assert time.monotonic() - started < max_seconds + 1.5
    assert result.status == "failed" and result.attempts == 0
    assert (result.reason or "").startswith(
        "model unavailable"
    ) and "not answering" in result.reason
    assert env.store.dream_cursor() == 0 and env.store.pending_count() == 1
    outage = StatusRecord.load(env.ws.state_dir).model_unavailable
    assert outage is not None and outage.get("kind") == "not-answering"
    out = run_cli("-w", str(env.ws.root), "status")
    assert "model not answering since" in out.stdout


def test_a_dead_provider_is_still_unreachable_in_status(tmp_path: Path):
    env = make_env(tmp_path / "ws")
    env.config.dream.model_override = "openai/none"
    env.config.providers["openai"] = env.config.providers.get("openai") or _provider(
        "http://127.0.0.1:9/v1"
    )
    env.add("- [durable] Lives in Porto")
    result = asyncio.run(env.dream().run())
    assert result.attempts == 0 and result.reason.startswith("model unavailable")
    assert "model unreachable since" in run_cli("-w", str(env.ws.root), "status").stdout


def _provider(base: str):
    from reverie.storage.config import ProviderConfig

    return ProviderConfig(api_base=base, api_key="none")


# -- fitting the window ----------------------------------------------------------------------------
WINDOW = 2_000


class _Window:
    """A scripted provider with a 2,000-token window: a longer prompt gets its over-window error."""

    def __init__(self, fake: ScriptedModel, answer) -> None:
        self.answer = answer
        fake.responder = self

    def __call__(self, prompt):
        from reverie.llm.tokens import estimate_tokens

        tokens = estimate_tokens(prompt.messages, prompt.tools)
        if tokens > WINDOW:
            return ContextWindowError(
                f"This model's maximum context length is {WINDOW} tokens. However, you requested "
                f"{tokens} tokens",
                limit=WINDOW,
                requested=tokens,
            )
        return self.answer(prompt)


def test_an_over_window_batch_is_made_smaller_and_the_window_kept(tmp_path: Path):
    env = make_env(tmp_path / "ws")
    for i in range(12):
        env.add(f"- [durable] Likes board game number {i}: " + "words " * 120)
    _Window(env.fake, lambda p: "[SKIP]" if "dream-analyze" in p.system else "done")
    result = asyncio.run(env.dream().run())
    assert result.status == "no-change" and result.attempts == 0, result.reason
    assert 1 <= result.last < 12  # a smaller batch, the rest pending
    assert (
        ContextWindows(env.config, env.ws.state_dir).learned()[env.fake.model]["tokens"] == WINDOW
    )
    # the next run sizes its batch to the learned window at once: no over-window answer at all
    prompts = len(env.fake.prompts)
    asyncio.run(env.dream().run())
    assert len(env.fake.prompts) == prompts + 1


def test_an_over_window_slice_is_archived_smaller_never_raw(tmp_path: Path):
    fake = ScriptedModel.register("window-archive")
    try:
        config = Config.model_validate({"agents": {"defaults": {"model": fake.model}}})
        store = MemoryStore(tmp_path / "ws", config=config)
        sessions = SessionStore(store.workspace)
        cons = Consolidator(store, ModelClient(config), config)
        s = sessions.get_or_create("k")
        for i in range(6):
            sessions.append(s, {"role": USER, "content": f"I keep a plant number {i}. " * 60})
            sessions.append(s, {"role": "assistant", "content": "Noted."})
        _Window(fake, lambda p: "- [durable] Keeps plant number 0, 1, 2, 3, 4, 5")
        result = asyncio.run(cons.new_session(s))
        assert result.cleared and result.raw_fallbacks == 0 and result.rounds > 1
        assert cons.window == WINDOW
    finally:
        ScriptedModel.unregister("window-archive")


# -- status and why --------------------------------------------------------------------------------
def test_status_shows_a_requeued_batch_and_its_entries(tmp_path: Path):
    env = make_env(tmp_path / "ws", max_attempts=1)
    env.add("- [durable] Lives in Porto", "- [durable] Works at Acme")
    env.fake.enqueue("[USER] Lives in Porto", *[edit("USER.md", "nope", "x") for _ in range(3)])
    asyncio.run(env.dream().run())
    dream = env.dream()
    assert dream.set_aside() and dream.requeue()
    report = collect_status(env.store)
    assert report.pending == 0 and report.queued_entries == 2 and len(report.dream_queued) == 1
    out = run_cli("-w", str(env.ws.root), "status").stdout
    assert "0 entries pending (+2 requeued)" in out and "queued" in out


def test_why_and_status_point_to_a_refused_reply(tmp_path: Path):
    fake = ScriptedModel.register("why-archive")
    try:
        config = Config.model_validate({"agents": {"defaults": {"model": fake.model}}})
        store = MemoryStore(tmp_path / "ws", config=config)
        store.workspace.init()
        sessions = SessionStore(store.workspace)
        cons = Consolidator(store, ModelClient(config), config)
        s = sessions.get_or_create("k")
        for m in EWA:
            sessions.append(s, m)
        fake.enqueue("USER: By the way, my sister Ewa lives in Berlin.\n(nothing)")
        result = asyncio.run(cons.new_session(s))
        (rid,) = result.kept_replies
        root = str(store.workspace.root)
        why = run_cli("-w", root, "why", "sister Ewa").stdout
        assert rid in why and "refused" in why
        shown = run_cli("-w", root, "why", "--reply", rid)
        assert shown.returncode == 0 and "(nothing)" in shown.stdout and "mixed" in shown.stdout
        as_json = orjson.loads(run_cli("-w", root, "why", "--reply", rid, "--json").stdout)
        assert as_json["verdict"] == "refused" and as_json["ref"]["cursors"]
        assert rid in run_cli("-w", root, "status").stdout
        assert run_cli("-w", root, "why", "--reply", "r-nope").returncode == 1
    finally:
        ScriptedModel.unregister("why-archive")


def test_an_edit_turn_with_a_refused_tool_call_is_kept(tmp_path: Path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue(
        "[USER] Lives in Porto",
        edit("../../etc/passwd", "", "x"),
        edit("USER.md", "", "- Lives in Porto\n"),
        "done",
    )
    result = asyncio.run(env.dream().run())
    assert result.status == "ok"
    kept = read_replies(env.ws.state_dir)
    assert [(r.task, r.verdict) for r in kept] == [("dream-edit", "refused")]
    assert kept[0].ref == {"batch": [1, 1]} and "refused" in kept[0].reason


def test_a_batch_with_findings_and_no_edit_says_so(tmp_path: Path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue("[USER] Lives in Porto", "I did it.")
    result = asyncio.run(env.dream().run())
    assert result.status == "no-change" and "the edit step made no edit" in (result.reason or "")
    assert "reply kept" in (result.reason or "") and env.store.dream_cursor() == 1
    record = StatusRecord.load(env.ws.state_dir).last_run
    assert record is not None and record["reason"] == result.reason


def test_skip_over_a_new_fact_is_taken_with_its_reason_and_evidence(tmp_path: Path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] Lives in Porto")
    env.fake.enqueue("[SKIP]")
    result = asyncio.run(env.dream().run())
    assert result.status == "no-change" and "[SKIP] over 1 new fact line" in (result.reason or "")
    assert [r.verdict for r in read_replies(env.ws.state_dir)] == ["lenient"]
    assert (env.ws.root / MEM).exists()


def test_a_reply_with_lone_surrogates_is_kept_readable(tmp_path: Path):
    rid = keep_reply(
        tmp_path,
        task="archive",
        model="m\ud800",
        verdict="refused",
        reason="bad \udcff",
        messages=[{"role": USER, "content": "undecodable \ud800 bytes"}],
        response=ModelResponse(content="x\udcff"),
        ref={"session": "k\ud800"},
    )
    kept = find_reply(tmp_path, rid or "")
    assert kept is not None and kept.reply["content"] == "x?" and kept.ref["session"] == "k?"


def test_a_symlinked_replies_log_is_never_written_through(tmp_path: Path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    replies_path(tmp_path).symlink_to(target)
    assert keep_reply(tmp_path, task="flush", model="m", verdict="refused", reason="r") is None
    assert target.read_text() == "keep me\n"


def test_threads_keeping_replies_at_once_lose_none(tmp_path: Path):
    from concurrent.futures import ThreadPoolExecutor

    def keep(i: int) -> str | None:
        return keep_reply(
            tmp_path, task="archive", model="m", verdict="refused", reason=f"reply {i}"
        )

    with ThreadPoolExecutor(4) as pool:
        ids = list(pool.map(keep, range(200)))
    assert None not in ids and {r.id for r in read_replies(tmp_path)} == set(ids)


def test_a_huge_or_garbled_replies_log_is_read_in_bounded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A log grown by hand past its bound costs a reader its tail only (bytes counted, not
    seconds: a timed bound failed under load), garbage lines are skipped, and the next writer
    trims the log back under its bound."""
    other = tmp_path / "other"
    keep_reply(other, task="flush", model="m", verdict="refused", reason="after the garbage")
    record = replies_path(other).read_bytes()
    path = replies_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfe garbage\n" * 1_000_000 + record)  # 11 MB that do not parse
    real_read, main, read = os.read, threading.get_ident(), []

    def counting_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if threading.get_ident() == main:
            read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    kept = read_replies(tmp_path)
    monkeypatch.undo()
    assert [r.reason for r in kept] == ["after the garbage"]
    assert 0 < sum(read) <= 2 * MAX_BYTES, sum(read)
    keep_reply(tmp_path, task="flush", model="m", verdict="refused", reason="trimmed")
    assert path.stat().st_size <= MAX_BYTES  # the writer trimmed it back under its bound
    assert [r.reason for r in read_replies(tmp_path)][-2:] == ["after the garbage", "trimmed"]


def test_new_does_not_wait_twice_for_a_silent_model(tmp_path: Path):
    """/new with a model that does not answer: the archive waits once and keeps the messages raw;
    the session summary does not wait for it again (its file is the labelled raw excerpt)."""
    from reverie.memory.runtime import Runtime
    from reverie.operations.memfiles import UNAVAILABLE
    from reverie.storage.workspace import Workspace

    fake = ScriptedModel.register("silent-new")
    try:
        config = Config.model_validate(
            {
                "agents": {"defaults": {"model": fake.model}},
                "llm": {"maxRetries": 0, "timeout": 0.5},
            }
        )
        ws = Workspace(tmp_path / "ws")
        ws.init()
        rt = Runtime(ws, config=config)
        fake.responder = lambda prompt: Reply("(nothing)", delay=60)
        session = rt.sessions.get_or_create("k")
        for m in said("I live in Porto.", "My sister Ewa lives in Berlin.", "I like green tea."):
            rt.sessions.append(session, m)
        started = time.monotonic()
        result = asyncio.run(rt.consolidator.new_session(session))
        assert result.cleared and result.raw_fallbacks == 1 and len(fake.prompts) == 1
        assert time.monotonic() - started < 5
        dated = sorted((ws.root / "memory").glob("20*-*.md"))
        assert dated and f"(raw excerpt: {UNAVAILABLE})" in dated[-1].read_text()
    finally:
        ScriptedModel.unregister("silent-new")
