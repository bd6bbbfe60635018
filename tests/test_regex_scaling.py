"""No pattern in the package is quadratic on what a user pastes or a model replies.

A pattern like ``\\s*X`` searched over a long run of white space re-scans the rest of the run from
every position: a message with 20,000 spaces took 11 s to turn into a transcript line, 20,000
newlines in a model's reply took 87 s to be judged "not code". Each such pattern now starts a match
only where a run starts (``(?<!\\s)``) or stays on its line; these tests hold the class.

Each test feeds one of the fixed readers 50,000-100,000 characters of the shape that was quadratic:
it returns in milliseconds now and took minutes before. The timing of every literal pattern in the
package, at N and 4N characters, is ``python -m bench regex_scaling`` (BENCHMARKS.md).
"""

from __future__ import annotations

import pytest

from reverie.llm.output import line_problem, prose_problem, said_something
from reverie.llm.protocol import parse_removal, removal_text, split_replaces, with_replaces
from reverie.llm.transcript import transcript_text
from reverie.storage.history import strip_think
from reverie.text.memline import PIN_MARK, bare_line, is_pinned, unpin


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("<think>a</think>answer<think>", "answer<think>"),
        ("<thought>a<think>b</thought>c</think>", "c"),
        ("<think>a</think>x<thought>b</thought>y", "xy"),
        ("x</think>   \n  ", "x"),
        ("<think>" * 5000, ""),
        ("x" + "<thought>" * 10_000 + "</think>", "x" + "<thought>" * 10_000),
        ("answer " + " " * 50_000 + "</think>", "answer"),
    ],
)
def test_reasoning_blocks_are_stripped_as_before_at_any_size(raw: str, kept: str) -> None:
    assert strip_think(raw) == kept


def test_a_pin_is_found_and_taken_off_with_the_space_before_it() -> None:
    line = f"- Lives in Porto   {PIN_MARK}"
    assert is_pinned(line) and unpin(line) == "- Lives in Porto"
    assert bare_line(f"- x{' ' * 100_000}y 📌") == f"x{' ' * 100_000}y"
    assert not is_pinned("- " + " " * 100_000 + "x")
    assert unpin("- a [pinned]\t[PINNED]📌 b") == "- a b" and unpin("[pinned]x") == "x"


def test_a_transcript_line_folds_each_run_of_line_breaks_once() -> None:
    text = transcript_text({"role": "user", "content": "a  \n\n  b" + " " * 100_000 + "c\r\nd"})
    assert text.startswith("a ⏎ b") and text.endswith("c ⏎ d")


def test_code_is_still_code_and_blank_lines_are_still_prose() -> None:
    assert (
        prose_problem("Some words here\n\n\n    def f(x):\n        return x") == "code, not prose"
    )
    assert prose_problem("Some words here\n<div class='x'>\nmore") == "code, not prose"
    assert prose_problem("The user\n" + "\n" * 100_000 + "lives in Porto.") is None
    assert line_problem("<a" + "\n" * 100_000) is None
    assert said_something("It is a long quiet day.   \n\n  We went to the sea today.") == [
        "It is a long quiet day.",
        "We went to the sea today.",
    ]


@pytest.mark.parametrize("gap", ["", " ", " " * 100_000])
def test_findings_text_round_trips_whatever_the_white_space(gap: str) -> None:
    assert split_replaces(with_replaces(f"Lives in Porto{gap}", "Lives in Lisbon")) == (
        "Lives in Porto",
        "Lives in Lisbon",
    )
    assert parse_removal(removal_text("USER.md", f"Old line{gap}", "moved")) == (
        "USER.md",
        "Old line",
        "moved",
    )
    assert parse_removal(f"free text{gap}") == (None, "free text", None)


def test_laughter_after_a_run_of_stops_joins_its_sentence_at_any_length() -> None:
    from reverie.llm.offline.rules.clauses import laughter_attached

    assert laughter_attached("I work at NASA. lol") == "I work at NASA lol."
    assert laughter_attached("I work at NASA!!! haha") == "I work at NASA haha!!!"
    assert laughter_attached("I live in Porto" + "!" * 100_000) == "I live in Porto" + "!" * 100_000
