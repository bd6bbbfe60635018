"""Control characters in text that reaches a terminal or a memory file: one definition, one
sanitiser.

History content, session keys, commit messages and memory lines are anyone's text: an ``ESC[8m`` in
them hides what follows from the person approving a SOUL.md rule, an OSC sequence retitles the
window, ``ESC[2J`` clears the screen. ``printable`` is what every renderer applies before text
reaches the terminal (the CLI's ``history show``, ``log``, ``show``, ``why``, ``approve --show``,
and chat replies); ``control_chars`` is what Dream's gate refuses in a memory file it writes.

Controls are: C0 (U+0000–U+001F) but tab and newline, DEL, C1 (U+0080–U+009F, where U+009B is a
one-byte CSI), and the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) that
reorder what is shown. Each becomes one visible character — the Unicode control picture for C0 and
DEL (ESC shows as ␛), U+FFFD for the others — so column widths and styled spans computed on the
original text stay right.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL", "printable", "control_chars"]

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟
    return "\u2421" if code == 0x7F else "\ufffd"


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: every control character replaced by one visible character."""
    if text.isprintable():  # the common case, in C: no control character (and no newline) at all
        return text
    return CONTROL.sub(_picture, text)


def control_chars(text: str) -> set[str]:
    """The distinct control characters in ``text`` (empty for text safe to store and show)."""
    return set(CONTROL.findall(text))
