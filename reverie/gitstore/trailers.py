"""Reverie's commit-message trailers: the format's one definition.

A Reverie commit message is::

    <subject: one line>
    <blank line>
    <body: free text, may be empty (then this paragraph and its blank line are left out)>
    <blank line>
    Reverie-Kind: dream
    Reverie-Cursor: 42
    Reverie-Batch: 31-42
    Reverie-Model: openai/gpt-4o-mini

Trailers are the last paragraph of the message, one ``Key: value`` per line, in git's trailer syntax
(``git interpret-trailers --parse`` reads them). Keys are ``Token-Words`` (letters, digits, '-');
values are one line (newlines in a value are replaced by spaces when formatting). Known keys:

====================================== ===========================================================
key                                    value
====================================== ===========================================================
``Reverie-Kind``                       what made the commit: ``init | dream | restore | revert |
                                       manual | purge``
``Reverie-Cursor``                     the last history cursor the commit's Dream run consumed (a
                                       non-negative integer)
``Reverie-Batch``                      ``<first>-<last>``: the history cursors the run read
``Reverie-Last-Entry``                 on a ``dream`` commit: the digest of the history entry at
                                       its ``Reverie-Cursor`` (``HistoryEntry.digest``), so a log
                                       replaced by an older copy is told from the one it consumed
``Reverie-Model``                      model name
``Reverie-Tokens``                     total tokens
``Reverie-Cost``                       USD as a decimal
``Reverie-Iterations`` /               Dream's counters
``Reverie-Tool-Calls``
``Reverie-Restore-Of`` /               full sha of the commit a restore or revert undid
``Reverie-Revert-Of``
``Reverie-Purge``                      what a purge removed (a description, never the secret)
``Reverie-Approved``                   on a ``dream`` commit applying a SOUL.md proposal: that a
                                       person approved it, and when it was proposed (see
                                       ``reverie.dream.proposal``)
====================================== ===========================================================

No other module builds or parses trailers; they call ``format_message`` / ``parse_trailers``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import CursorError
from ..storage.cursors import parse_cursor

__all__ = [
    "KIND",
    "CURSOR",
    "BATCH",
    "LAST_ENTRY",
    "MODEL",
    "TOKENS",
    "COST",
    "ITERATIONS",
    "TOOL_CALLS",
    "RESTORE_OF",
    "REVERT_OF",
    "PURGE",
    "APPROVED",
    "REJECTED",
    "KINDS",
    "format_message",
    "parse_trailers",
    "split_message",
    "format_batch",
    "parse_batch",
    "parse_cursor_value",
    "replace_in_message",
]

KIND = "Reverie-Kind"
CURSOR = "Reverie-Cursor"
BATCH = "Reverie-Batch"
LAST_ENTRY = "Reverie-Last-Entry"
MODEL = "Reverie-Model"
TOKENS = "Reverie-Tokens"
COST = "Reverie-Cost"
ITERATIONS = "Reverie-Iterations"
TOOL_CALLS = "Reverie-Tool-Calls"
RESTORE_OF = "Reverie-Restore-Of"
REVERT_OF = "Reverie-Revert-Of"
PURGE = "Reverie-Purge"
APPROVED = "Reverie-Approved"
REJECTED = "Reverie-Rejected"

#: The kinds Reverie writes. Unknown kinds read from other tools' commits are kept as they are.
KINDS: tuple[str, ...] = (
    "init",
    "dream",
    "restore",
    "revert",
    "manual",
    "agent",
    "purge",
    "recall",
    "reject",
)

_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
_LINE_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*?)\s*$")
_BATCH_RE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


def _one_line(value: str) -> str:
    return " ".join(str(value).split())


def format_message(subject: str, body: str = "", trailers: Mapping[str, str] | None = None) -> str:
    """The full commit message; ``subject`` is collapsed to one line, trailer values to one line
    each.

    Raises ``ValueError`` for a key that is not a trailer token (it would not parse back).
    """
    parts = [_one_line(subject) or "(no subject)"]
    body = body.strip("\n")
    if body.strip():
        parts.append(body.rstrip())
    if trailers:
        lines = []
        for key, value in trailers.items():
            if not _KEY_RE.match(key):
                raise ValueError(f"not a trailer key: {key!r}")
            lines.append(f"{key}: {_one_line(value)}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def split_message(message: str) -> tuple[str, str, dict[str, str]]:
    """``(subject, body, trailers)`` of a message; body excludes the trailer paragraph."""
    text = message.replace("\r\n", "\n").strip("\n")
    paragraphs = re.split(r"\n[ \t]*\n", text) if text else []
    if not paragraphs:
        return "", "", {}
    subject_par = paragraphs[0].split("\n")
    subject = subject_par[0].strip()
    rest = paragraphs[1:]
    if len(subject_par) > 1:
        rest = ["\n".join(subject_par[1:])] + rest
    trailers: dict[str, str] = {}
    if rest:
        parsed = _parse_paragraph(rest[-1])
        if parsed is not None:
            trailers = parsed
            rest = rest[:-1]
    return subject, "\n\n".join(p.strip("\n") for p in rest).strip(), trailers


def _parse_paragraph(paragraph: str) -> dict[str, str] | None:
    """The trailers of a paragraph made only of ``Key: value`` lines; ``None`` if it is prose."""
    found: dict[str, str] = {}
    for line in paragraph.strip("\n").split("\n"):
        m = _LINE_RE.match(line.strip())
        if not m:
            return None
        found[m.group(1)] = m.group(2)
    return found or None


def parse_trailers(message: str) -> dict[str, str]:
    """The trailers of a commit message (``{}`` when it has none). A repeated key keeps its last
    value."""
    if not message:
        return {}
    return split_message(message)[2]


#: Trailers whose values are structure (kinds, cursors, ids, counters): a purge never rewrites them.
_STRUCTURED = frozenset(
    {KIND, CURSOR, BATCH, TOKENS, COST, ITERATIONS, TOOL_CALLS, RESTORE_OF, REVERT_OF}
)


def replace_in_message(message: str, old: str, new: str) -> tuple[str, int]:
    """``message`` with ``old`` replaced in its text (subject, body, free-text trailer values such
    as the model name), and how many were replaced. Trailer keys and structured values
    (``Reverie-Cursor: 1234``) are kept byte for byte, so purging "1234" or "Cursor" never breaks
    the record Dream's recovery reads."""
    if old not in message:
        return message, 0
    separators = list(re.finditer(r"\n[ \t]*\n", message.rstrip("\n")))
    head, paragraph = message, ""
    if separators:
        cut = separators[-1].end()
        if _parse_paragraph(message[cut:]) is not None:
            head, paragraph = message[:cut], message[cut:]
    total = head.count(old)
    head = head.replace(old, new)
    lines = []
    for line in paragraph.split("\n") if paragraph else []:
        m = _LINE_RE.match(line.strip())
        if m and m.group(1) not in _STRUCTURED:
            colon = line.index(":")
            value = line[colon + 1 :]
            total += value.count(old)
            line = line[: colon + 1] + value.replace(old, new)
        lines.append(line)
    return head + "\n".join(lines), total


def format_batch(first: int, last: int) -> str:
    return f"{int(first)}-{int(last)}"


def parse_batch(value: str | None) -> tuple[int, int] | None:
    """``(first, last)`` of a ``Reverie-Batch`` value; ``None`` when absent or malformed."""
    if not value:
        return None
    m = _BATCH_RE.match(value)
    if not m:
        return None
    first, last = int(m.group(1)), int(m.group(2))
    return (first, last) if first <= last else None


def parse_cursor_value(value: str | None) -> int | None:
    """A ``Reverie-Cursor`` value as an int; ``None`` when absent or not a non-negative integer."""
    if value is None:
        return None
    try:
        return parse_cursor(value.encode("utf-8", "replace"))
    except CursorError:
        return None
