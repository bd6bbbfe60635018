"""An argument of 4 KB (a paste gone wrong, a model's runaway tool call) used to come back whole in
the error's message: a 4 KB line in a terminal, an MCP reply, a log. Every ``ReverieError`` now
passes its message through one place (``errors.shorten_message``) that cuts an over-long quoted
word, or an over-long message, in its middle, naming how much was cut; and a restore of a workspace
with no memory repo yet is Reverie's error, not an ``IndexError``."""

from __future__ import annotations

import pickle

import pytest

import reverie
from reverie.errors import CommandError, ReverieError, shorten_message

BIG = "x" * 4000


@pytest.mark.parametrize(
    "verb",
    [
        lambda m: m.read(BIG),
        lambda m: m.write(BIG, "text"),
        lambda m: m.log(limit=BIG),
        lambda m: m.log(since=BIG),
        lambda m: m.restore(BIG),
    ],
)
def test_an_error_quoting_a_huge_argument_stays_short(tmp_path, verb):
    with reverie.open(tmp_path / "ws") as memory:
        memory.remember("User: I live in Rome.")
        with pytest.raises(ReverieError) as caught:
            verb(memory)
    message = str(caught.value)
    assert len(message) < 600
    assert "characters cut" in message and "xxxx" in message


def test_a_short_message_is_left_as_it_is_and_survives_pickling():
    assert str(CommandError("limit must be a whole number")) == "limit must be a whole number"
    long = CommandError("bad value " + BIG)
    again = pickle.loads(pickle.dumps(long))
    assert str(again) == str(long) and len(str(again)) < 300
    prose = shorten_message("word " * 2000)
    assert len(prose) < 1100 and prose.startswith("word word") and "characters cut" in prose


def test_a_restore_before_any_repo_is_a_reverie_error(tmp_path):
    with reverie.open(tmp_path / "ws") as memory:
        with pytest.raises(ReverieError):
            memory.restore("abcd")
