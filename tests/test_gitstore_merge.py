"""merge3: the line-based three-way merge used by revert and by Dream's re-application of a run's edits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie.errors import MergeConflictError
from reverie.gitstore.merge import merge3

BASE = "".join(f"line {i}\n" for i in range(10))


def edit(text: str, index: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[index] = new
    return "".join(lines)


def test_disjoint_edits_both_apply() -> None:
    ours = edit(BASE, 1, "ours 1\n")
    theirs = edit(BASE, 8, "theirs 8\n")
    assert merge3(BASE, ours, theirs) == edit(edit(BASE, 1, "ours 1\n"), 8, "theirs 8\n")


def test_adjacent_lines_merge_cleanly() -> None:
    assert merge3(BASE, edit(BASE, 3, "o\n"), edit(BASE, 4, "t\n")) == edit(edit(BASE, 3, "o\n"), 4, "t\n")


def test_insertions_and_deletions() -> None:
    ours = BASE.replace("line 2\n", "line 2\ninserted\n")
    theirs = BASE.replace("line 7\n", "")
    assert merge3(BASE, ours, theirs) == ours.replace("line 7\n", "")


def test_same_change_on_both_sides_is_taken_once() -> None:
    both = edit(BASE, 5, "same\n")
    assert merge3(BASE, both, both) == both
    assert merge3(BASE, edit(both, 0, "x\n"), both) == edit(both, 0, "x\n")


def test_conflict_names_path_and_lines_in_ours() -> None:
    ours = BASE.replace("line 4\n", "ours A\nours B\n")
    theirs = edit(BASE, 4, "theirs\n")
    with pytest.raises(MergeConflictError) as err:
        merge3(BASE, ours, theirs, path="memory/MEMORY.md")
    assert err.value.path == "memory/MEMORY.md"
    assert err.value.lines == (5, 6)


def test_insertions_at_the_same_place_conflict_unless_equal() -> None:
    with pytest.raises(MergeConflictError):
        merge3(BASE, BASE + "ours\n", BASE + "theirs\n")
    assert merge3(BASE, BASE + "same\n", BASE + "same\n") == BASE + "same\n"


lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n"]), max_size=12).map("".join)


@given(lines, lines)
def test_one_sided_changes_are_exact(base: str, other: str) -> None:
    assert merge3(base, other, base) == other
    assert merge3(base, base, other) == other


@given(st.lists(st.text(alphabet="xyz", min_size=1, max_size=3), min_size=6, max_size=20), st.data())
def test_edits_in_separate_halves_commute(words: list[str], data: st.DataObject) -> None:
    base_lines = [f"{w}{i}\n" for i, w in enumerate(words)]
    base = "".join(base_lines)
    mid = len(base_lines) // 2
    i = data.draw(st.integers(0, mid - 2))
    j = data.draw(st.integers(mid + 1, len(base_lines) - 1))
    ours = base_lines.copy()
    ours[i] = "OURS\n"
    theirs = base_lines.copy()
    theirs[j] = "THEIRS\n"
    both = base_lines.copy()
    both[i], both[j] = "OURS\n", "THEIRS\n"
    assert merge3(base, "".join(ours), "".join(theirs)) == "".join(both)
    assert merge3(base, "".join(theirs), "".join(ours)) == "".join(both)
