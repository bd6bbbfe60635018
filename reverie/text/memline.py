"""What a memory line is: the one definition of a bullet, a line's bare text, "the same line", a
fact line and a pin, for every reader and writer of the memory files (Recall's chunks and hit keys,
Dream's lifecycle, gate and tools, the session-end flush, the Consolidator's markers, the verbs).

A **bullet** is a list item's marker at the start of a line: ``-``, ``*``, ``+`` or ``•``, or a
number of up to three digits with ``.`` or ``)``, then white space. `line_key` is "the same line":
bullet, age suffix and pin marker removed, lower case, punctuation folded (Recall writes it in its
hit log, Dream reads it).
"""

from __future__ import annotations

import re

__all__ = [
    "BULLET",
    "TOP_BULLET",
    "PIN_MARK",
    "strip_bullet",
    "bullet_text",
    "bare_line",
    "line_key",
    "holds_text",
    "is_fact_line",
    "is_pinned",
    "unpin",
]

#: A person pins a line (it is never archived automatically) by ending it with this marker.
PIN_MARK = "[pinned]"

_MARK = r"(?:[-*+•]|\d{1,3}[.)])"
#: A bullet, indented or not, with the white space after it.
BULLET = re.compile(rf"^\s*{_MARK}\s+")
#: A top-level list item (no indent, one space): where Recall cuts a memory file into facts.
TOP_BULLET = re.compile(rf"^{_MARK} ")
_AGE = re.compile(r"\s\[age: \d+ days?\]$")
#: The pin marker alone. A pattern led by ``(?<!\s)\s*`` tried a look-behind at every position of
#: a line (0.6 s of CPU on a 10 MB line, 7x this search); `unpin` takes the white space before each
#: marker itself, as ``\s`` reads it (``str.isspace``).
_PIN = re.compile(r"\[pinned\]|📌", re.I)
_PUNCT = re.compile(r"[^\w\s:]")


def strip_bullet(line: str) -> str:
    """``line`` without its bullet (and the white space around the rest)."""
    return BULLET.sub("", line).strip()


def bullet_text(line: str) -> str | None:
    """The text after ``line``'s bullet, or None when it is no bullet or holds nothing."""
    m = BULLET.match(line)
    text = line[m.end() :].strip() if m else ""
    return text or None


def is_pinned(line: str) -> bool:
    return bool(_PIN.search(line))


def unpin(line: str) -> str:
    """``line`` without its pin marker (and the white space before it)."""
    kept, end = [], 0
    for m in _PIN.finditer(line):
        start = m.start()
        while start > end and line[start - 1].isspace():
            start -= 1
        kept.append(line[end:start])
        end = m.end()
    return "".join(kept) + line[end:] if kept else line


def bare_line(line: str) -> str:
    """A memory line's text: without its bullet, age annotation or pin marker."""
    text = _AGE.sub("", line.rstrip())
    text = unpin(text)
    return strip_bullet(text)


def line_key(line: str) -> str:
    """The comparison key of a memory line (see the module docstring)."""
    return " ".join(_PUNCT.sub(" ", bare_line(line).lower()).split())


def holds_text(line: str) -> bool:
    """A line a person's edit can take away with something in it (not blank, not a heading): a
    removal by hand archives any such line, comments, tables and quotes included, so nothing written
    is lost."""
    return bool(line.strip()) and not line.lstrip().startswith("#")


def is_fact_line(line: str) -> bool:
    """A line that states one fact: what the lifecycle may merge, supersede or retire. Comments,
    code fences, table rows and quotes are structure a person wrote; the lifecycle never moves them.
    """
    s = line.strip()
    return bool(s) and not s.startswith(("#", "<!--", "```", "|", ">")) and bool(line_key(s))
