"""What every importer reads the same way: a source file as UTF-8 text (anything else reported,
never replaced), the lines of Markdown that state something, and the list of what was skipped."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...operations.portability import Skipped
from ...security.scrub import redact_text
from ...text.utf8 import not_utf8

__all__ = ["Intake", "facts", "strip_front_matter", "MAX_FILE_BYTES", "MAX_FACT_CHARS"]

#: A memory file larger than this is not memory but something else.
MAX_FILE_BYTES = 1 << 20
#: A longer line is kept in its file but not remembered as one fact.
MAX_FACT_CHARS = 1_000
#: A line that is only a link to another file (an index entry), with an optional description.
_LINK_LINE = re.compile(r"^(?:[-*+]\s+)?\[[^\]]*\]\([^)\s]+\)\s*(?:[-–—:]\s*.*)?$")


@dataclass
class Intake:
    """One import's bookkeeping: what was skipped (each named with why) and credentials redacted."""

    skipped: list[Skipped] = field(default_factory=list)
    redacted: int = 0

    def skip(self, item: str, reason: str) -> None:
        self.skipped.append(Skipped(item, reason))

    def clean(self, text: str) -> str:
        """``text`` with its credentials redacted (counted)."""
        out, found = redact_text(text)
        self.redacted += found
        return out

    def read(self, path: Path, label: str, *, limit: int = MAX_FILE_BYTES) -> str | None:
        """``path``'s text, strictly UTF-8, redacted; None (and the file named as skipped, with why)
        for a symlink, something that is not a regular file, a file over ``limit`` bytes, or bytes
        that are not UTF-8 (never decoded with replacements: the source stays as it is)."""
        if path.is_symlink():
            self.skip(label, "a symbolic link, not followed")
            return None
        if not path.is_file():
            self.skip(label, "not a regular file")
            return None
        try:
            size = path.stat().st_size
            if size > limit:
                self.skip(label, f"{size:,} bytes (at most {limit:,} are read as memory)")
                return None
            data = path.read_bytes()
        except OSError as exc:
            self.skip(label, f"cannot be read ({exc.strerror or exc})")
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.skip(
                label,
                f"{not_utf8(data, exc)}; convert it to UTF-8 and import again",
            )
            return None
        return self.clean(text.removeprefix("\ufeff"))


def strip_front_matter(text: str) -> str:
    """``text`` without the YAML front matter at its top (``---`` … ``---``), if it has one."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text
    for n, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "\n".join(lines[n + 1 :])
    return text  # never closed: not front matter


def facts(text: str) -> list[str]:
    """The lines of Markdown that state something: not front matter, headings, rules, fences,
    comments, blank lines, or lines that only link to another file (an index's entries)."""
    out: list[str] = []
    fenced = False
    for raw in strip_front_matter(text).splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not line or line.startswith(("#", "---", "<!--", "|")):
            continue
        if _LINK_LINE.match(line):
            continue
        line = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", line).strip()
        if line and len(line) <= MAX_FACT_CHARS:
            out.append(line)
    return out
