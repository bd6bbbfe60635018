"""The offline engine on the hand-labelled LoCoMo tuning turns (``tests/data/locomo_labels.tsv``,
splits ``tune``, ``tune2``, and ``heldout`` to ``heldout5``, opened for tuning once their first-run
figures were recorded): no wrong line, and the fact turns it learns stay learned. The frozen
held-out split (``heldout6``: turns of conv-26, conv-30, conv-41 labelled blind) is never scored
here: it is measured only by ``python -m bench offline_corpus``, so no test can be fitted to it.

The turns' text lives in ``shared/data/locomo/`` beside the checkout, not in the repository; without
it the tests skip."""

from __future__ import annotations

import functools

import offline_corpus as corpus
import pytest

pytestmark = pytest.mark.skipif(
    corpus.locomo_data() is None,
    reason="shared/data/locomo/locomo-dev.json (the LoCoMo development split) not found",
)


#: Every split but the frozen held-out one (``heldout6``).
TUNING = ("tune", "tune2", "heldout", "heldout2", "heldout3", "heldout4", "heldout5")


def _tuning() -> list[corpus.Turn]:
    return [t for split in TUNING for t in corpus.locomo_turns(split)]


@functools.cache
def _scored(path: str) -> corpus.TurnScore:
    """The engine over the tuning turns along ``path``, run once per path for this file's tests
    (a run takes tens of seconds; each turn starts from the templates, so a run is repeatable)."""
    return corpus.score_turns(_tuning(), path)


def test_the_labels_keep_the_held_out_split_apart() -> None:
    turns = corpus.locomo_turns()
    by_split: dict[str, set[str]] = {}
    for t in turns:
        by_split.setdefault(t.split, set()).add(t.turn.split("|")[0])
    assert set(by_split) == {*TUNING, "heldout6"}
    assert by_split["tune"] | by_split["tune2"] == {"conv-26", "conv-30", "conv-41"}
    assert (
        by_split["heldout"]
        == by_split["heldout2"]
        == by_split["heldout3"]
        == by_split["heldout4"]
        == {"conv-42", "conv-43"}
    )
    assert len({t.turn for t in turns}) == len(turns)  # no turn labelled twice
    assert len(corpus.locomo_turns("tune2")) >= 300
    assert len(corpus.locomo_turns("heldout2")) >= 250
    assert len(corpus.locomo_turns("heldout3")) >= 300
    assert len(corpus.locomo_turns("heldout4")) >= 190
    assert by_split["heldout5"] == {"conv-26", "conv-30", "conv-41"}  # unseen turns of those
    assert len(corpus.locomo_turns("heldout5")) == 200
    assert by_split["heldout6"] == {
        "conv-26",
        "conv-30",
        "conv-41",
    }  # their last first-person turns
    assert len(corpus.locomo_turns("heldout6")) == 180


@pytest.mark.parametrize("path", ["history", "archive"])
def test_no_wrong_line_on_the_tuning_turns(path: str) -> None:
    s = _scored(path)
    assert s.wrongs == []
    assert s.written >= 25  # it does write: a silent engine would pass the line above


def test_the_tuning_fact_turns_it_learns() -> None:
    s = _scored("history")
    assert s.positives >= 179
    assert s.learned >= 86, [m[:2] for m in s.misses]
