"""Issue 26's shapes of real speech through the engine's real path (Dream's analysis and edit turn
on the files): job and home changes said as leaving replace the old line, a version upgrade replaces
the old version, a passing state or a framed sentence replaces nothing, nicknames land in USER.md
and a naming rule in SOUL.md only when asked."""

from __future__ import annotations

import offline_corpus as corpus
import pytest


def _files(**lines: str) -> dict[str, str]:
    files = corpus.templates()
    for rel, line in (("USER.md", lines.get("user")), ("memory/MEMORY.md", lines.get("memory"))):
        if line:
            files[rel] = files[rel].rstrip("\n") + f"\n- {line}\n"
    return files


def _lines(files: dict[str, str], sentence: str, path: str) -> dict[str, set[str]]:
    """Every bullet line of each file once the sentence has been learned."""
    from reverie.llm import protocol as p

    staged = dict(files)
    entry = sentence
    if path == "archive":
        reply = corpus._ask(
            "archive", [(p.SECTION_ARCHIVE, p.transcript_line(corpus.SAID, "user", sentence))]
        )
        entry = reply.content or p.NOTHING
    batch = f"{p.batch_header(1, corpus.SAID)}\n{entry}"
    analysis = (
        corpus._ask(
            "dream-analyze",
            [
                (p.SECTION_TODAY, corpus.SAID[:10]),
                (p.SECTION_BATCH, batch),
                *((rel, staged[rel]) for rel in corpus.FILES),
            ],
        ).content
        or ""
    )
    reply = corpus._ask(
        "dream-edit",
        [(p.SECTION_FINDINGS, analysis), *((rel, staged[rel]) for rel in corpus.FILES)],
        corpus.EDIT_TOOLS,
    )
    for call in reply.tool_calls:
        a = call.arguments
        staged[a["path"]] = staged[a["path"]].replace(a["old_text"], a["new_text"], 1)
    return {
        rel: {ln[2:] for ln in staged[rel].splitlines() if ln.startswith("- ")}
        for rel in corpus.FILES
    }


@pytest.mark.parametrize("path", ["history", "archive"])
@pytest.mark.parametrize(
    ("before", "sentence", "after", "gone"),
    [
        (
            {"user": "Works at Google"},
            "I left Google to join Stripe.",
            ("USER.md", "Works at Stripe"),
            ("USER.md", "Works at Google"),
        ),
        (
            {"user": "Lives in Berlin"},
            "I left Berlin for Lisbon.",
            ("USER.md", "Lives in Lisbon"),
            ("USER.md", "Lives in Berlin"),
        ),
        (
            {"memory": "Uses Postgres 14"},
            "We upgraded Postgres from 14 to 16.",
            ("memory/MEMORY.md", "Uses Postgres 16"),
            ("memory/MEMORY.md", "Uses Postgres 14"),
        ),
        (
            {"user": "Works at Siemens"},
            "I quit my job at Siemens.",
            None,
            ("USER.md", "Works at Siemens"),
        ),
    ],
)
def test_a_change_said_as_leaving_replaces_the_old_line(
    path, before, sentence, after, gone
) -> None:
    lines = _lines(_files(**before), sentence, path)
    if after:
        assert after[1] in lines[after[0]]
    assert gone[1] not in lines[gone[0]]


@pytest.mark.parametrize("path", ["history", "archive"])
@pytest.mark.parametrize(
    "sentence",
    [
        "I'm working from Café Central today.",
        "I live in Slack these days.",
        "I've just moved to Linux.",
        "In my novel I work at Umbrella Corporation.",
        "I work at Umbrella Corporation. Just kidding.",
        "Rumour has it I work at Umbrella Corporation.",
    ],
)
def test_a_passing_state_or_a_framed_sentence_replaces_nothing(path: str, sentence: str) -> None:
    files = _files(user="Works at Siemens")
    files["USER.md"] = files["USER.md"].rstrip("\n") + "\n- Lives in Lisbon\n"
    lines = _lines(files, sentence, path)
    assert {"Works at Siemens", "Lives in Lisbon"} <= lines["USER.md"]
    assert (
        lines["USER.md"] - {"Works at Siemens", "Lives in Lisbon"}
        == _lines(corpus.templates(), "ok", path)["USER.md"]
    )


@pytest.mark.parametrize("path", ["history", "archive"])
def test_a_nickname_is_who_the_user_is_and_a_naming_rule_only_when_asked(path: str) -> None:
    said = corpus.learn("My friends call me Jojo.", path).facts()
    assert said == [("USER.md", "Goes by Jojo")]
    asked = corpus.learn("Please call me Jojo.", path).facts()
    assert sorted(asked) == [("SOUL.md", "Call the user Jojo"), ("USER.md", "Goes by Jojo")]
