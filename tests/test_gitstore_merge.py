"""merge3: the line-based three-way merge used by revert and by Dream's re-application of a run's
edits."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
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
    assert merge3(BASE, edit(BASE, 3, "o\n"), edit(BASE, 4, "t\n")) == edit(
        edit(BASE, 3, "o\n"), 4, "t\n"
    )


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


def test_insertions_at_the_same_place_keep_both_ours_first() -> None:
    """Two insertions change no line of the base: Dream and a person both appending a fact to
    USER.md keep both facts (a fact both added, once)."""
    assert merge3(BASE, BASE + "ours\n", BASE + "theirs\n") == BASE + "ours\ntheirs\n"
    assert merge3(BASE, BASE + "same\n", BASE + "same\n") == BASE + "same\n"
    both = merge3(BASE, BASE + "a\nshared\n", BASE + "shared\nb\n")
    assert both == BASE + "a\nshared\nb\n"
    middle = BASE.replace("line 4\n", "line 4\nours\n"), BASE.replace("line 4\n", "line 4\nthe\n")
    assert merge3(BASE, *middle) == BASE.replace("line 4\n", "line 4\nours\nthe\n")


def test_a_change_of_the_same_lines_still_conflicts() -> None:
    with pytest.raises(MergeConflictError):
        merge3(BASE, edit(BASE, 9, "ours\n"), edit(BASE, 9, "theirs\n"))
    with pytest.raises(MergeConflictError):
        merge3(BASE, BASE.replace("line 9\n", ""), edit(BASE, 9, "theirs\n"))


def test_an_insertion_at_the_edge_of_the_other_sides_change_merges() -> None:
    """A line appended after the line the other side edited or removed has one place: both apply
    (a fact Dream adds at the end of a list while a person edits or removes its last line)."""
    appended = BASE + "new fact\n"
    last_removed = BASE.replace("line 9\n", "")
    assert merge3(BASE, appended, last_removed) == last_removed + "new fact\n"
    assert merge3(BASE, last_removed, appended) == last_removed + "new fact\n"
    last_edited = edit(BASE, 9, "line nine\n")
    assert merge3(BASE, last_edited, appended) == last_edited + "new fact\n"
    before = BASE.replace("line 4\n", "new fact\nline 4\n")
    assert merge3(BASE, edit(BASE, 4, "four\n"), before) == edit(before, 5, "four\n")


def test_an_insertion_inside_the_other_sides_change_conflicts() -> None:
    inside = BASE.replace("line 5\n", "line 5\nnew\n")
    replaced = BASE.replace("line 4\nline 5\nline 6\n", "X\n")
    with pytest.raises(MergeConflictError):
        merge3(BASE, replaced, inside)


lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n"]), max_size=12).map("".join)


@given(lines, lines)
def test_one_sided_changes_are_exact(base: str, other: str) -> None:
    assert merge3(base, other, base) == other
    assert merge3(base, base, other) == other


@given(
    st.lists(st.text(alphabet="xyz", min_size=1, max_size=3), min_size=6, max_size=20), st.data()
)
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


# Properties with inputs the merge's rules were not written for: base lines are unique (``L<i>``)
# and each side's new lines are tagged with its name, so the expected result is known without
# running any merge.


def _base(n: int) -> list[str]:
    return [f"L{i}\n" for i in range(n)]


def _new_lines(tag: str, count: int) -> list[str]:
    return [f"{tag}{k}\n" for k in range(count)]


@st.composite
def _separated_edits(
    draw: st.DrawFn,
) -> tuple[list[str], tuple[int, int, int], tuple[int, int, int]]:
    """A base and two edits (start, end, new line count): ours inside [0, k), theirs inside [k +
    gap, n)."""
    n = draw(st.integers(4, 30))
    k = draw(st.integers(1, n - 2))
    gap = draw(
        st.integers(0, 1)
    )  # 0: the edits may touch (adjacent lines), 1: one line both leave alone
    i = draw(st.integers(0, k - 1))
    j = draw(
        st.integers(i, k)
    )  # i == j: a pure insertion (at k it touches theirs: still one place)
    lo = k + gap
    if lo >= n:
        lo = n - 1
    s = draw(st.integers(lo, n - 1))
    e = draw(st.integers(s + 1, n))
    return _base(n), (i, j, draw(st.integers(0, 3))), (s, e, draw(st.integers(0, 3)))


def _apply(lines: list[str], edit: tuple[int, int, int], tag: str) -> list[str]:
    start, end, count = edit
    return lines[:start] + _new_lines(tag, count) + lines[end:]


@given(_separated_edits())
def test_a_merge_of_non_overlapping_edits_applies_both(
    case: tuple[list[str], tuple[int, int, int], tuple[int, int, int]],
) -> None:
    base, mine, other = case
    ours, theirs = _apply(base, mine, "O"), _apply(base, other, "T")
    both = _apply(
        _apply(base, other, "T"), mine, "O"
    )  # theirs first: it lies after ours, so ours' indexes hold
    assert merge3("".join(base), "".join(ours), "".join(theirs)) == "".join(both)
    assert merge3("".join(base), "".join(theirs), "".join(ours)) == "".join(both)


@given(st.integers(3, 30), st.data())
def test_an_overlapping_edit_reports_a_conflict_naming_the_path(
    n: int, data: st.DataObject
) -> None:
    base = _base(n)
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(i + 1, n))
    s = data.draw(st.integers(0, j - 1))  # theirs overlaps ours: s < j and e > i
    e = data.draw(st.integers(max(s, i) + 1, n))
    ours = _apply(base, (i, j, data.draw(st.integers(1, 3))), "O")
    theirs = _apply(base, (s, e, data.draw(st.integers(1, 3))), "T")
    with pytest.raises(MergeConflictError) as err:
        merge3("".join(base), "".join(ours), "".join(theirs), path="memory/USER.md")
    assert err.value.path == "memory/USER.md"
    assert "memory/USER.md" in str(err.value)
    assert err.value.lines is not None
    first, last = err.value.lines
    assert 1 <= first <= last <= len(ours)
    assert any(
        ours[k - 1].startswith("O") for k in range(first, last + 1)
    )  # the range shows ours' changed lines


@given(_separated_edits(), st.booleans())
def test_identical_edits_on_both_sides_are_not_a_conflict(
    case: tuple[list[str], tuple[int, int, int], tuple[int, int, int]], extra: bool
) -> None:
    base, shared, other = case
    ours = _apply(base, shared, "S")
    theirs = _apply(base, shared, "S")
    expected = ours
    # theirs also changes something else, past a line both leave alone, which must come through too
    if extra:
        assume(other[0] > shared[1])
        theirs = _apply(_apply(base, other, "T"), shared, "S")
        expected = theirs
    assert merge3("".join(base), "".join(ours), "".join(theirs)) == "".join(expected)


texts = st.lists(
    st.text(st.characters(codec="utf-8"), max_size=12).map(lambda s: s + "\n"), max_size=8
).map("".join)


@given(texts, texts, texts)
def test_any_text_merges_or_conflicts_and_one_sided_changes_are_exact(
    base: str, ours: str, theirs: str
) -> None:
    assert merge3(base, ours, base) == ours and merge3(base, base, theirs) == theirs
    try:
        merged = merge3(base, ours, theirs, path="p")
    except MergeConflictError as exc:
        assert exc.path == "p" and exc.lines is not None
    else:
        assert isinstance(merged, str)


def test_undecodable_bytes_read_with_surrogateescape_pass_through() -> None:
    # b"caf\xe9\n" read with surrogateescape, as revert reads a file that is not UTF-8
    raw = "caf\udce9\n"
    base = BASE + raw
    assert merge3(base, "top\n" + base, base + "end\n") == "top\n" + base + "end\n"


def test_a_line_repeated_often_in_a_long_file_does_not_misalign_the_merge() -> None:
    # 300 lines, one in three blank: difflib's autojunk would ignore the blank lines for alignment.
    base = "".join(f"- fact {i}\n" if i % 3 else "\n" for i in range(300))
    ours = base.replace("- fact 10\n", "- fact ten\n")
    theirs = base.replace("- fact 290\n", "- fact two hundred ninety\n")
    assert merge3(base, ours, theirs) == ours.replace("- fact 290\n", "- fact two hundred ninety\n")


def test_both_sides_removing_the_same_duplicate_remove_it_once() -> None:
    # Each side drops one of two "- g" lines (and ours also rewrites "- f"): both keep one "- g", so
    # the merge does. (The hand-written merge this replaced applied each side's deletion to a
    # different copy and lost both.)
    base = "top\n- g\n- g\n- h\n- f\n- e\nend\n"
    ours = "top\n- g\n- h\n- e\n- e\nend\n"
    theirs = "top\n- g\n- h\n- f\n- e\nend\n"
    assert merge3(base, ours, theirs) == ours
