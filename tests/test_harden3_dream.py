"""Dream never empties a memory file on a model's word, and says a folder where a memory file goes
in the workspace's own words.

- A ``[FILE-REMOVE]`` finding for a whole file ("the user wants a fresh start") names no line: it is
  no line's evidence, and an edit that would leave a file that held facts with none is undone whole,
  even when the findings name every line (lines leave one reason at a time; ``reverie forget`` is a
  person's verb). Driven through ``reverie.open`` and ``Memory.dream`` with a scripted model whose
  replies are shaped as a model's: findings, then an ``edit_file`` call, then a closing line.
- ``USER.md`` a folder: ``reverie dream`` says "is a folder, not a regular file", the wording every
  other reader uses (``Workspace.read_bytes``), never the OS error's."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import invoke

import reverie
from reverie.llm.types import ToolCall

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


def test_dream_says_a_folder_where_user_md_goes_in_the_workspaces_words(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    assert invoke("-w", ws, "history", "append", "User: I live in Lyon").returncode == 0
    (tmp_path / "ws" / "USER.md").unlink()
    (tmp_path / "ws" / "USER.md").mkdir()
    done = invoke("-w", ws, "dream")
    said = " ".join((done.stdout + done.stderr).split())
    assert "is a folder, not a regular file" in said and "Errno" not in said, said
    assert "Traceback" not in said
