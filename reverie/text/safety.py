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

``hidden`` is wider, for a page that must show exactly what the agent reads (``reverie ui``): every
character a reader does not see or that changes how the rest is seen — the controls above, every
other format character (zero-width spaces and joiners, marks such as U+200E, the tag characters an
attacker can hide ASCII text in), line and paragraph separators, surrogates, private-use and
unassigned code points, and Unicode's other default-ignorable code points (the Hangul fillers,
variation selectors). Left alone, because they are how emoji are written: a zero-width joiner
between two pictographs, and a variation selector after a symbol.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CONTROL",
    "printable",
    "control_chars",
    "unstorable",
    "unusable_key",
    "hidden",
    "describe",
    "visible",
]

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_NAMES = {0: "NULL", 0x1B: "ESCAPE", 0x7F: "DELETE", 0x0D: "CARRIAGE RETURN"}
_SHORT_NAMES = {0: "NUL", 0x1B: "ESC", 0x7F: "DEL"}
#: ``CONTROL`` but a carriage return, which a file's line ends may hold.
_STORED_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟
    return "\u2421" if code == 0x7F else "\ufffd"


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: every control character replaced by one visible
    character."""
    if text.isprintable():  # the common case, in C: no control character (and no newline) at all
        return text
    return CONTROL.sub(_picture, text)


def unstorable(text: str, *, controls: bool = True) -> str | None:
    """Why ``text`` cannot be stored, said after the name of what holds it, or None: a lone
    surrogate (``is not UTF-8 (...)``: it cannot be written as UTF-8, and stored as a JSON escape
    it would come back as something else), or, with ``controls``, a control character but tab,
    newline and carriage return (``holds a control character (U+0000, NUL) at offset 3``). The one
    check every way text is stored by applies — ``Memory``'s verbs, the nanobot store, the
    adapters — so none of them stores what another refuses. ``controls=False`` is for what was
    said in a conversation, kept as it was (renderers apply ``printable``)."""
    from .utf8 import undecodable

    why = undecodable(text)
    if why is not None:
        return f"is {why}: send it as UTF-8 text"
    found = _STORED_CONTROL.search(text) if controls else None
    if found is None:
        return None
    char = found.group()
    label = unicodedata.name(char, "") or _SHORT_NAMES.get(ord(char), "a control character")
    return (
        f"holds a control character (U+{ord(char):04X}, {label}) at offset {found.start()}: "
        "remove it (only tab and newline are kept)"
    )


def unusable_key(key: object, *, empty: bool = False) -> str | None:
    """Why ``key`` cannot be a session key or an id, said after its name, or None: not a string,
    blank, or text ``unstorable`` refuses, or a tab or a newline (a key is one line). The one check
    every way a key comes in applies (``Memory``'s verbs, the session files, history's appends, the
    adapters), so a NUL or an escape sequence never names a session file, a history entry's
    session, a memory id or a prompt's conversation. ``empty``: a blank key is no key (history's
    entries, whose ``session_key`` nanobot may leave empty)."""
    if not isinstance(key, str):
        return f"must be a string, not {type(key).__name__}"
    if not empty and not key.strip():
        return "is empty: say what it is"
    for i, ch in enumerate(key):
        if ch in "\t\n\r":
            name = {"\t": "CHARACTER TABULATION", "\n": "LINE FEED", "\r": "CARRIAGE RETURN"}[ch]
            return (
                f"holds a control character (U+{ord(ch):04X}, {name}) at offset {i}: "
                "a key is one line of text"
            )
    return unstorable(key)


def control_chars(text: str) -> set[str]:
    """The distinct control characters in ``text`` (empty for text safe to store and show)."""
    return set(CONTROL.findall(text))


#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt) outside the format
#: category: drawn as nothing, read by a model as characters.
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_ZWJ, _VARIATION = "\u200d", ("\ufe0e", "\ufe0f")


def _is_hidden(ch: str) -> bool:
    if ch in "\t\n":
        return False
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES or bool(_IGNORABLE.match(ch))


def _emoji_part(text: str, i: int) -> bool:
    """Whether the character at ``i`` is a joiner or variation selector of an emoji sequence."""
    before = text[i - 1] if i > 0 else ""
    if text[i] in _VARIATION:
        keycap = before in "0123456789#*" and text[i + 1 : i + 2] == "\u20e3"
        return bool(before) and (unicodedata.category(before) == "So" or keycap)
    if text[i] != _ZWJ:
        return False
    k = i - 1
    while k >= 0 and (text[k] in _VARIATION or "\U0001f3fb" <= text[k] <= "\U0001f3ff"):
        k -= 1  # a pictograph's own variation selector or skin tone
    after = text[i + 1 : i + 2]
    return (
        k >= 0
        and bool(after)
        and unicodedata.category(text[k]) == "So" == unicodedata.category(after)
    )


def hidden(text: str) -> list[int]:
    """The positions in ``text`` of hidden characters (see the module docstring), in order."""
    if text.isascii():
        return (
            [i for i, ch in enumerate(text) if ch not in "\t\n" and not ch.isprintable()]
            if not text.isprintable()
            else []
        )
    return [i for i, ch in enumerate(text) if _is_hidden(ch) and not _emoji_part(text, i)]


def describe(ch: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: a hidden character as a person can read it; a byte that
    is not UTF-8, read with ``surrogateescape`` (U+DC80–U+DCFF), as the byte: ``\\xE9 BYTE NOT
    UTF-8``."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte ``surrogateescape`` kept: named as the byte it is
        return f"\\x{code - 0xDC00:02X} BYTE NOT UTF-8"
    name = unicodedata.name(ch, "") or _CONTROL_NAMES.get(code, "")
    if not name:
        category = unicodedata.category(ch)
        name = {"Cc": "CONTROL", "Cs": "SURROGATE", "Co": "PRIVATE USE", "Cn": "UNASSIGNED"}.get(
            category, category
        )
    return f"U+{code:04X} {name}"


def visible(text: str) -> str:
    """``text`` with each hidden character written as ``⟨U+XXXX⟩``: plain text for where no markup
    can go (a page's JSON, a title)."""
    spots = hidden(text)
    if not spots:
        return text
    out, last = [], 0
    for i in spots:
        out.append(text[last:i])
        out.append(f"\u27e8{describe(text[i]).split(' ', 1)[0]}\u27e9")
        last = i + 1
    out.append(text[last:])
    return "".join(out)
