"""One walk of an exception's cause chain (``reverie.errors.cause_chain``), used by the model
client (is the provider unreachable?) and the fleet's log filter (was it the broker?): each
exception once, through ``__cause__``, ``__context__`` and a wrapper's ``original_exception``, and a
cycle ends it."""

from __future__ import annotations

from reverie.errors import cause_chain


class _Wrapped(Exception):
    def __init__(self, original: BaseException) -> None:
        super().__init__("wrapped")
        self.original_exception = original


def test_the_chain_holds_each_exception_behind_it_once() -> None:
    root = ConnectionRefusedError("refused")
    wrapped = _Wrapped(root)
    try:
        try:
            raise wrapped
        except _Wrapped as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as outer:
        chain = list(cause_chain(outer))
    assert chain[0].args == ("outer",)
    assert wrapped in chain and root in chain
    assert len(chain) == len({id(e) for e in chain}) == 3


def test_a_cycle_ends_the_walk() -> None:
    a, b = ValueError("a"), KeyError("b")
    a.__context__, b.__context__ = b, a
    assert list(cause_chain(a)) == [a, b]
