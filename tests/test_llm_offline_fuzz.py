"""Property tests of the offline engine: any input gives an answer in the protocol, the same one
every time, and every edit_file call it emits applies exactly once, in order, to the staged files it
was shown."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reverie.llm import load_prompt
from reverie.llm import protocol as p
from reverie.llm.offline import respond

TOOLS = [
    {
        "type": "function",
        "function": {"name": "edit_file", "parameters": {"type": "object", "properties": {}}},
    }
]
PATHS = ("SOUL.md", "USER.md", "memory/MEMORY.md")
WORDS = [
    "Lives in",
    "Works at",
    "Name:",
    "Likes",
    "Uses",
    "Always",
    "Never",
    "Reply in",
    "Deadline for x:",
    "Berlin",
    "Munich",
    "tea",
    "MySQL",
    "Postgres",
    "the",
    "user",
    "#",
    "##",
    "-",
    "*",
    "é",
    "\u00a0",
    "(replaces:",
    ")",
    "[correction]",
    "[age: 30 days]",
    "",
    " ",
    "\t",
]
line = st.lists(st.sampled_from(WORDS) | st.text(max_size=8), max_size=6).map(" ".join)
body = st.lists(line, max_size=12).map("\n".join)
kinds = st.sampled_from(["USER", "SOUL", "MEMORY", "FILE-REMOVE", "SKIP", "BOGUS"])
finding = st.tuples(kinds, line).map(lambda t: f"[{t[0]}] {t[1]}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.tuples(body, body, body), findings=st.lists(finding | line, max_size=10))
# Found by hypothesis: a repeated finding carrying an age annotation once produced a no-op edit.
@example(files=("", "", ""), findings=["[USER] Lives in Berlin [age: 30 days]"] * 2)
def test_edits_always_apply_exactly_once(files: tuple[str, str, str], findings: list[str]) -> None:
    staged = dict(zip(PATHS, files))
    user = p.render_sections([(p.SECTION_FINDINGS, "\n".join(findings)), *staged.items()])
    shown = p.parse_sections(user)  # what the engine sees (section bodies are trimmed)
    msgs = [
        {"role": "system", "content": load_prompt("dream-edit")},
        {"role": "user", "content": user},
    ]
    reply = respond(msgs, tools=TOOLS)
    assert reply == respond(msgs, tools=TOOLS)
    current = {path: shown.get(path, "") for path in PATHS}
    for call in reply.tool_calls:
        a = call.arguments
        assert call.name == "edit_file" and a is not None and a["path"] in PATHS
        if a["old_text"]:
            assert current[a["path"]].count(a["old_text"]) == 1, (a, current[a["path"]])
            assert a["old_text"] != a["new_text"]
            current[a["path"]] = current[a["path"]].replace(a["old_text"], a["new_text"], 1)
        else:
            assert not current[a["path"]].strip()
            current[a["path"]] = a["new_text"]


@settings(max_examples=150, deadline=None)
@given(task=st.sampled_from(p.TASKS), text=st.text(max_size=400), lines=st.lists(line, max_size=8))
def test_any_input_gets_a_protocol_answer(task: str, text: str, lines: list[str]) -> None:
    transcript = "\n".join(
        p.transcript_line("2026-11-20 10:00", role, f"{text} {ln}")
        for role, ln in zip(["user", "tool", "assistant", "user"] * 3, lines)
    )
    user = p.render_sections(
        [
            (p.SECTION_ARCHIVE, transcript),
            (p.SECTION_BATCH, text + "\n" + "\n".join(lines)),
            (p.SECTION_FINDINGS, "\n".join(lines)),
            ("USER.md", text),
        ]
    )
    msgs = [{"role": "system", "content": load_prompt(task)}, {"role": "user", "content": user}]
    reply = respond(msgs, tools=TOOLS if task == "dream-edit" else None)
    assert reply == respond(msgs, tools=TOOLS if task == "dream-edit" else None)
    out = reply.content or ""
    if task == "archive":
        said = out.splitlines()
        said = said[:-1] if said[-1:] == [p.UNSURE] else said  # (unsure) only ever ends the answer
        assert said == [p.NOTHING] or all(p.parse_fact_line(x) for x in said), out
    elif task == "dream-analyze":
        assert all(p.parse_finding_line(x) for x in out.splitlines())
    elif task == "flush":
        assert out == "[silent]" or all(x.startswith("- ") for x in out.splitlines())
