"""A real model's output is checked before it reaches a memory file (issue 21): session summaries
that are not prose or that read the instructions back become a raw excerpt labelled with the truth;
flushed lines that are code, braces or the prompt are dropped; every one of these calls sends an
output limit sized to its task."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from reverie.llm import ModelClient, ToolCall, protocol
from reverie.llm.output import echo_of, fact_problem, prose_problem
from reverie.llm.scripted import Reply, connection_error
from reverie.operations.memfiles import UNAVAILABLE, UNUSABLE, maybe_flush, write_session_file
from reverie.storage.config import Config

NOW = datetime(2026, 11, 22, 15, 30)
CONVO = [
    {"role": r, "content": c, "timestamp": f"2026-11-22T14:{i:02d}:00"}
    for i, (r, c) in enumerate(
        [
            ("user", "I want to plan the garden beds for spring"),
            ("assistant", "Sure. What grows there now?"),
            ("user", "Tomatoes last year, they got blight"),
            ("assistant", "Rotate to beans this year."),
            ("user", "OK beans it is, and garlic in the corner"),
            ("assistant", "Noted: beans and garlic."),
        ]
    )
]


def _config() -> Config:
    return Config.model_validate(
        {"llm": {"maxRetries": 0}, "agents": {"defaults": {"maxTokens": 4096}}}
    )


def _summary(workspace, fake, *replies):
    fake.enqueue(*replies)
    res = asyncio.run(
        write_session_file(
            workspace, ModelClient(_config()), "cli:a", CONVO, model=fake.model, now=NOW
        )
    )
    return res, (workspace.root / res.path).read_text()


def test_prose_and_echo_checks():
    assert prose_problem("We planned beans and garlic for the spring beds.") is None
    assert (
        prose_problem("{{")
        and prose_problem('{"summary": "x y z"}')
        and prose_problem("```python\nx=1\n```")
    )
    assert prose_problem("ok") and prose_problem("=> ## ** -- :: ;; !! ?? a b c")
    schema = "what was discussed, decided and left open"
    assert echo_of("What was discussed, decided and left open, never ordered", [schema])
    assert echo_of("We discussed beans; garlic was decided.", [schema]) is None
    assert fact_problem("Prefers green tea") is None and fact_problem("def f(): pass")


@pytest.mark.parametrize(
    "summary",
    [
        "{{",
        "What was discussed, decided and left open, never ordered",
        '```json\n{"slug": "x"}\n```',
    ],
)
def test_an_unusable_summary_becomes_a_raw_excerpt_labelled_truthfully(workspace, fake, summary):
    res, text = _summary(
        workspace,
        fake,
        ToolCall(
            "c", "save_summary", {"slug": "kebab-case-topic-name-at-most-40", "summary": summary}
        ),
    )
    assert res.status == "raw" and "rejected" in res.reason
    assert f"(raw excerpt: {UNUSABLE})" in text and UNAVAILABLE not in text
    assert summary not in text and "kebab" not in res.path
    assert "garden beds for spring" in text  # the key messages are the record


def test_no_tool_call_is_an_unusable_answer_and_an_outage_is_unavailable(workspace, fake):
    res, text = _summary(workspace, fake, Reply("Sure! Here is a summary of the chat."))
    assert res.status == "raw" and f"(raw excerpt: {UNUSABLE})" in text
    res, text = _summary(workspace, fake, connection_error())
    assert res.status == "raw" and f"(raw excerpt: {UNAVAILABLE})" in text


def test_a_good_summary_is_kept_and_the_call_is_limited(workspace, fake):
    res, text = _summary(
        workspace,
        fake,
        ToolCall(
            "c",
            "save_summary",
            {
                "slug": "garden-beds",
                "summary": (
                    "Planned the spring beds: beans where the blighted tomatoes were, garlic in "
                    "the corner."
                ),
            },
        ),
    )
    assert (
        res.status == "written"
        and res.path.endswith("-garden-beds.md")
        and "(raw excerpt" not in text
    )
    sent = fake.prompts[-1]
    assert sent.max_tokens == protocol.MAX_OUTPUT_TOKENS[protocol.TASK_SESSION_SUMMARY]
    assert sent.temperature == _config().agents.defaults.temperature


def test_flush_drops_malformed_lines_and_a_line_cut_at_the_limit(workspace, fake):
    answer = (
        "- Plans beans and garlic for the spring beds\n- {{\n- ```python\n"
        "- Answer with bullet lines, one self-contained fact per line\n- Tomatoes got bli"
    )
    fake.enqueue(Reply(answer, finish_reason="length"))
    res = asyncio.run(
        maybe_flush(
            workspace,
            ModelClient(_config()),
            "cli:a",
            CONVO,
            estimated_tokens=10_000,
            trigger_tokens=10_000,
            cycle=0,
            model=fake.model,
            now=NOW,
        )
    )
    assert res.status == "flushed" and res.added == ["Plans beans and garlic for the spring beds"]
    assert fake.prompts[-1].max_tokens == protocol.MAX_OUTPUT_TOKENS[protocol.TASK_FLUSH]
    day = (workspace.root / res.path).read_text()
    assert "{{" not in day and "```" not in day and "bli\n" not in day
