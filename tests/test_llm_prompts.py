"""Prompt loading: packaged prompts, workspace overrides, Dream's shared dream.md, the task line
always first."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie.llm import load_prompt
from reverie.llm.protocol import TASKS, task_line, task_of


@pytest.mark.parametrize("task", TASKS)
def test_packaged_prompts_start_with_their_task_line(task: str) -> None:
    text = load_prompt(task)
    assert text.splitlines()[0] == task_line(task)
    assert task_of(text) == task
    assert len(text) > 200


def test_workspace_override_wins_and_gets_the_task_line(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "archive.md").write_text("Only keep names.\n")
    text = load_prompt("archive", tmp_path)
    assert text == f"{task_line('archive')}\nOnly keep names.\n"
    assert load_prompt("flush", tmp_path) == load_prompt("flush")


def test_dream_md_serves_both_phases_or_one_block_each(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    dream = tmp_path / "prompts" / "dream.md"
    dream.write_text("Be terse.\n")
    assert load_prompt("dream-analyze", tmp_path).endswith("Be terse.\n")
    assert task_of(load_prompt("dream-edit", tmp_path)) == "dream-edit"
    dream.write_text(
        f"{task_line('dream-analyze')}\nAnalyse well.\n{task_line('dream-edit')}\nEdit well.\n"
    )
    assert (
        load_prompt("dream-analyze", tmp_path) == f"{task_line('dream-analyze')}\nAnalyse well.\n"
    )
    assert load_prompt("dream-edit", tmp_path) == f"{task_line('dream-edit')}\nEdit well.\n"


def test_empty_or_undecodable_override_falls_back(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "archive.md").write_text("   \n")
    (tmp_path / "prompts" / "flush.md").write_bytes(b"\xff\xfe bad")
    assert load_prompt("archive", tmp_path) == load_prompt("archive")
    assert load_prompt("flush", tmp_path) == load_prompt("flush")


def test_unknown_task_is_an_error() -> None:
    with pytest.raises(ValueError):
        load_prompt("poetry")
