"""A Dream edit that empties a memory file (or rewrites it with fewer lines and nothing of its own)
never ends ``ok`` with its finding unwritten. The lifecycle keeps the lines such an edit took out
without evidence; it used to put them back one by one, losing the heading, a blank line and the
last newline, and the run committed that as its change: status ``ok``, the finding nowhere. Now
the edit is undone whole (the file byte for byte as it was, no commit) and the batch is set aside
like one whose findings got no edit, with a reason that says so; ``reverie requeue`` runs it
again.

A model never empties a memory file on its word: a ``[FILE-REMOVE]`` finding for a whole file
("the user wants a fresh start") names no line: it is no line's evidence, and an edit that would
leave a file that held facts with none is undone whole, even when the findings name every line
(lines leave one reason at a time; ``reverie forget`` is a person's verb). Driven through
``reverie.open`` and ``Memory.dream`` with a scripted model whose replies are shaped as a model's:
findings, then an ``edit_file`` call, then a closing line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.cli import invoke
from support.dream_helpers import MEM, edit, make_env

import reverie
from reverie.llm.types import ToolCall

SEEDED = {
    "USER.md": "# User\n\nWho the user is.\n\n- Lives in Lisbon\n- Works at Acme\n",
    MEM: "# Memory\n\nWhat stays true.\n\n- Uses Postgres 16\n- Deploys on Fridays\n",
}
FINDING = {"USER.md": "[USER] Has a cat named Tom", MEM: "[MEMORY] Uses Redis for caching"}
LINE = {"USER.md": "- Has a cat named Tom\n", MEM: "- Uses Redis for caching\n"}
SAID = {"USER.md": "I adopted a cat named Tom.", MEM: "- [durable] We use Redis for caching"}


def _seeded(tmp_path):
    env = make_env(tmp_path / "ws")
    for rel, text in SEEDED.items():
        (env.ws.root / rel).write_text(text)
    env.git_cli("add", "-A")
    env.git_cli("commit", "-qm", "seed")
    return env


def _head(env) -> str:
    return env.git_cli("rev-parse", "HEAD").strip()


@pytest.mark.parametrize("rel", ["USER.md", MEM])
@pytest.mark.parametrize("new", ["", "\n", "# User\n"], ids=["empty", "blank", "heading-only"])
def test_an_edit_that_empties_a_file_is_undone_and_its_batch_set_aside(tmp_path, rel, new):
    env = _seeded(tmp_path)
    env.add(SAID[rel])
    head = _head(env)
    env.fake.enqueue(FINDING[rel], [edit(rel, SEEDED[rel], new)], "done")
    result = asyncio.run(env.dream().run())
    assert result.status == "no-change", (result.status, result.reason, result.files)
    assert "undone" in result.reason and "set aside: `reverie requeue 1`" in result.reason
    assert env.read(rel) == SEEDED[rel]  # byte for byte: heading, blank lines, last newline
    assert _head(env) == head, "a commit was made for an edit that wrote nothing"
    assert [(d.first, d.last) for d in env.dream().set_aside()] == [(1, 1)]
    listed = invoke("-w", str(env.ws.root), "requeue")
    assert listed.returncode == 0 and "history 1–1" in listed.stdout

    # requeued, and run again with an edit that writes the finding: it lands
    dream = env.dream()
    assert [d.first for d in dream.requeue([1])] == [1]
    env.fake.enqueue(FINDING[rel], [edit(rel, "", LINE[rel])], "done")
    again = asyncio.run(dream.run())
    assert again.status == "ok" and (again.first, again.last) == (1, 1), again.reason
    assert LINE[rel].strip() in env.read(rel)
    for line in SEEDED[rel].splitlines():
        assert line in env.read(rel).splitlines()


def test_a_rewrite_with_fewer_lines_and_none_of_its_own_is_undone(tmp_path):
    """Not only emptied: USER.md rewritten down to one of its lines, the finding not written."""
    env = _seeded(tmp_path)
    env.add(SAID["USER.md"])
    env.fake.enqueue(
        FINDING["USER.md"], [edit("USER.md", SEEDED["USER.md"], "- Lives in Lisbon\n")], "done"
    )
    result = asyncio.run(env.dream().run())
    assert result.status == "no-change" and "undone" in result.reason, result.reason
    assert env.read("USER.md") == SEEDED["USER.md"]
    assert [(d.first, d.last) for d in env.dream().set_aside()] == [(1, 1)]


def test_a_rewrite_that_writes_the_finding_keeps_the_old_lines_and_lands(tmp_path):
    """The file replaced by the finding's line alone: the finding is written (ok), and the lines
    taken out without evidence stay (as before this change)."""
    env = _seeded(tmp_path)
    env.add(SAID["USER.md"])
    env.fake.enqueue(
        FINDING["USER.md"], [edit("USER.md", SEEDED["USER.md"], LINE["USER.md"])], "done"
    )
    result = asyncio.run(env.dream().run())
    assert result.status == "ok", result.reason
    text = env.read("USER.md")
    assert "- Has a cat named Tom" in text
    assert "- Lives in Lisbon" in text and "- Works at Acme" in text
    assert env.dream().set_aside() == []


def test_a_replaced_line_is_not_taken_out_by_an_edit_that_never_wrote_its_replacement(tmp_path):
    """A "replaces" finding, and an edit that emptied MEMORY.md instead of writing the new line: the
    old line stays too (it would have left for a line nowhere), the file as it was, the batch set
    aside."""
    env = _seeded(tmp_path)
    env.add("- [durable] We deploy on Thursdays now")
    env.fake.enqueue(
        "[MEMORY] Deploys on Thursdays (replaces: Deploys on Fridays)",
        [edit(MEM, SEEDED[MEM], "")],
        "done",
    )
    result = asyncio.run(env.dream().run())
    assert env.read(MEM) == SEEDED[MEM]
    assert result.status == "no-change" and "set aside" in result.reason, result.reason
    assert [(d.first, d.last) for d in env.dream().set_aside()] == [(1, 1)]


# -- a model's whole-file removal ------------------------------------------------------------------


USER = "# User\n\n- Lives in Lyon\n- Works at Initech\n- Has a cat named Tom\n"


def _edit(old: str, new: str) -> ToolCall:
    return ToolCall("e1", "edit_file", {"path": "USER.md", "old_text": old, "new_text": new})


@pytest.mark.parametrize(
    "findings",
    [
        "[FILE-REMOVE] USER.md: the user wants a fresh start (why: everything is outdated)",
        "[FILE-REMOVE] USER.md: Lives in Lyon (why: moved)\n"
        "[FILE-REMOVE] USER.md: Works at Initech (why: left)\n"
        "[FILE-REMOVE] USER.md: Has a cat named Tom (why: gave it away)",
    ],
    ids=["whole-file", "every-line-named"],
)
def test_a_models_edit_never_empties_a_memory_file(
    tmp_path: Path, fake, monkeypatch, findings: str
) -> None:
    monkeypatch.setenv("REVERIE_MODEL", fake.model)
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.runtime.workspace.write("USER.md", USER)
        memory.remember("- [correction] forget all of that, I want a fresh start")
        fake.enqueue(findings, [_edit(USER, "# User\n")], "Done: USER.md cleared.")
        memory.dream()
        assert memory.runtime.workspace.read("USER.md") == USER
        archive = tmp_path / "ws" / "memory" / "archive"
        assert "Initech" not in "".join(p.read_text() for p in archive.glob("*.md"))
