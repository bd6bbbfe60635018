"""What the templates show, computed from the library's values: lines of a memory file, lines of a
diff, inline Markdown, a commit's batch. No I/O and no library calls here (the handlers in
``reverie.ui.app`` make those)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from markupsafe import Markup, escape

from ..gitstore.trailers import BATCH, KIND, parse_batch
from ..hitlog import is_pinned
from ..textdiff import diff_line_kind

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from ..gitstore.types import CommitInfo

__all__ = [
    "FileLine",
    "file_lines",
    "DiffLine",
    "diff_lines",
    "inline",
    "batch_of",
    "ago",
    "other_trailers",
]


@dataclass(frozen=True)
class FileLine:
    """One line of a memory file as the Memory screen shows it. ``index`` is 0-based (forms carry it
    with the line's text, so an action on a file changed meanwhile is refused, not applied to
    another line)."""

    index: int
    raw: str
    kind: str  # heading | item | text | blank
    level: int  # a heading's level (1-6), else 0
    body: str  # the text without its Markdown marker
    pinned: bool
    query: str = (
        ""  # ``path=…&line=…&text=…``: what the line's links carry (built once, not per link)
    )

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def actionable(self) -> bool:
        return self.kind in ("item", "text")


def file_lines(text: str, path: str = "") -> list[FileLine]:
    out = []
    rows = text.split("\n")
    for i, raw in enumerate(rows):
        stripped = raw.strip()
        if not stripped:
            if i < len(rows) - 1:  # (not the file's final newline)
                out.append(FileLine(i, raw, "blank", 0, "", False))
            continue
        query = urlencode({"path": path, "line": i, "text": raw}) if path else ""
        if stripped.startswith("#"):
            marks = len(stripped) - len(stripped.lstrip("#"))
            if marks <= 6 and stripped[marks : marks + 1] in (" ", ""):
                out.append(
                    FileLine(i, raw, "heading", marks, stripped[marks:].strip(), False, query)
                )
                continue
        if stripped[:2] in ("- ", "* "):
            out.append(FileLine(i, raw, "item", 0, stripped[2:], is_pinned(raw), query))
            continue
        out.append(FileLine(i, raw, "text", 0, stripped, is_pinned(raw), query))
    return out


@dataclass(frozen=True)
class DiffLine:
    kind: str  # file | hunk | add | del | context | meta
    text: str


def diff_lines(diff: str) -> list[DiffLine]:
    """The diff's lines with their kinds (``reverie.textdiff``); git's no-newline marker is muted like a header."""
    out = []
    for line in diff.splitlines():
        kind = diff_line_kind(line)
        out.append(DiffLine("meta" if kind == "no-newline" else kind, line))
    return out


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # The "zero" preset: raw HTML off (it is escaped), no links, no images; only emphasis and code
    # spans on.
    return MarkdownIt("zero").enable(["emphasis", "backticks"])


@lru_cache(maxsize=8192)
def inline(text: str) -> Markup:
    """A memory line's inline Markdown (emphasis, code) as HTML; everything else in it escaped. A
    line without ``*``, ``_`` or a backtick has no such marks: it is only escaped. Cached: a page
    shows mostly the same lines on every load."""
    if not any(mark in text for mark in ("*", "_", "`")):
        return escape(text)
    return Markup(_markdown().renderInline(text))  # noqa: S704 (markdown-it escapes with html off)


def batch_of(info: CommitInfo) -> tuple[int, int] | None:
    return parse_batch(info.trailers.get(BATCH))


def other_trailers(info: CommitInfo) -> list[tuple[str, str]]:
    return [(k, v) for k, v in info.trailers.items() if k != KIND]


def ago(when: datetime | None, now: datetime | None = None) -> str:
    if when is None:
        return "never"
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            n = round(seconds / size)
            text = f"{n} {unit}{'s' if n != 1 else ''}"
            return f"in {text}" if future else f"{text} ago"
    return "now" if future else "just now"
