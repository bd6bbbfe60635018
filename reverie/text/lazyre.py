"""Patterns compiled on first use: the offline engine's modules define some 800 helper patterns at
their top level, and the secret scanner (``security.secrets``) 74; compiling them all cost most
of the engine's import and 40 ms of any import of the scanner (a demo reaches a small share of the
engine's through the rule gates, ``rules.gate``, and about half of the scanner's).

``lazy(source, flags)`` stands for ``re.compile(source, flags)``: the same pattern, compiled the
first time one of its methods (``search``, ``sub`` …) or compiled attributes is asked for; its
``pattern`` (the source, which other patterns are built from) needs no compiling. After the first
use the compiled pattern's methods are the object's own attributes, so a call costs what it did.
It is not an ``re.Pattern``: hand its ``.compiled`` to code that needs one (``re.sub(p, …)``,
``isinstance``). Two threads using it first at once both compile the same pattern; either result
is the same.
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = ["lazy", "LazyPattern", "compiled_count"]

#: The attributes of a compiled pattern made the object's own on first use.
_BOUND = ("search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer", "scanner")

_compiled = 0


class LazyPattern:
    """One pattern, compiled when first used (``lazy``)."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.pattern = source
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        found: re.Pattern[str] | None = self.__dict__.get("_rx")
        return found if found is not None else self._compile()

    def _compile(self) -> re.Pattern[str]:
        global _compiled
        rx = re.compile(self.pattern, self._flags)
        _compiled += 1
        for name in _BOUND:
            self.__dict__[name] = getattr(rx, name)
        self.__dict__["_rx"] = rx
        return rx

    def __getattr__(self, name: str) -> Any:
        # only for what the instance lacks: a method before the first compile, or ``flags``,
        # ``groups``, ``groupindex`` (asked for rarely, so read through each time)
        if name.startswith("__") or name in ("_rx", "_flags", "pattern"):
            raise AttributeError(name)
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags})"


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled on first use (typed as the pattern it stands for)."""
    return cast("re.Pattern[str]", LazyPattern(source, flags))


def compiled_count() -> int:
    """How many lazy patterns have been compiled in this process (for tests and benches)."""
    return _compiled
