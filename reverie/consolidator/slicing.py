"""Where a session may be cut for archiving: safe slices.

A slice is ``messages[start:end]``. It is safe when ``end`` is the index of a user message (the
slice stops just before it), or the end of the session when everything is archived: an assistant
message with ``tool_calls`` and its tool results always sit inside one turn, so they are never
separated, and the turn in progress is never cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["safe_ends", "pick_slice"]


def safe_ends(
    messages: Sequence[Mapping[str, Any]], start: int, *, include_end: bool = False
) -> list[int]:
    """Every ``end`` after ``start`` at which ``messages[start:end]`` is a safe slice, in order."""
    ends = [i for i in range(start + 1, len(messages)) if messages[i].get("role") == "user"]
    if include_end and len(messages) > start and (not ends or ends[-1] != len(messages)):
        ends.append(len(messages))
    return ends


def pick_slice(
    messages: Sequence[Mapping[str, Any]],
    start: int,
    *,
    need: int,
    max_tokens: int,
    tokens_of: Callable[[Mapping[str, Any]], int],
    include_end: bool = False,
) -> int | None:
    """The ``end`` of the oldest safe slice from ``start`` that frees at least ``need`` tokens.

    The slice grows turn by turn until it frees ``need`` tokens, but stops before it would exceed
    ``max_tokens`` (what one summary call may carry); it always holds at least one turn. None when
    no safe slice exists.
    """
    ends = safe_ends(messages, start, include_end=include_end)
    if not ends:
        return None
    chosen = None
    total = 0
    at = start
    for end in ends:
        total += sum(tokens_of(m) for m in messages[at:end])
        at = end
        if chosen is not None and total > max_tokens:
            break
        chosen = end
        if total >= need:
            break
    return chosen
