"""What every importer reads the same way: a source file as UTF-8 text (anything else reported,
never replaced), the lines of Markdown that state something, and the list of what was skipped."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ...operations.portability import Skipped
from ...security.scrub import redact_text
from ...text.safety import unstorable
from ...text.utf8 import not_utf8

__all__ = [
    "Intake",
    "facts",
    "link_on_the_way",
    "strip_front_matter",
    "MAX_FILE_BYTES",
    "MAX_FACT_CHARS",
]

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

    def read_bytes(
        self, path: Path, label: str, *, limit: int = MAX_FILE_BYTES, root: Path | None = None
    ) -> bytes | None:
        """``path``'s bytes; None (and the file named as skipped, with why) for a symlink (any
        folder on the way below ``root`` too), something that is not a regular file, or a file
        over ``limit`` bytes."""
        link = link_on_the_way(root, path) if root is not None else None
        if link is not None:
            where = f"{link} is a symbolic link" if link.endswith("/") else "a symbolic link"
            self.skip(label, f"{where}, not followed")
            return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            self.skip(label, "not a regular file")
            return None
        except OSError as exc:
            if os.path.islink(path):
                self.skip(label, "a symbolic link, not followed")
            else:
                self.skip(label, f"cannot be read ({exc.strerror or exc})")
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                self.skip(label, "not a regular file")
                return None
            if st.st_size > limit:
                self.skip(label, f"{st.st_size:,} bytes (at most {limit:,} are read as memory)")
                return None
            with os.fdopen(os.dup(fd), "rb") as handle:
                return handle.read(limit + 1)[:limit]
        except OSError as exc:
            self.skip(label, f"cannot be read ({exc.strerror or exc})")
            return None
        finally:
            os.close(fd)

    def read(
        self, path: Path, label: str, *, limit: int = MAX_FILE_BYTES, root: Path | None = None
    ) -> str | None:
        """``path``'s text, strictly UTF-8, redacted; None (and the file named as skipped, with why)
        for what ``read_bytes`` refuses, bytes that are not UTF-8 (never decoded with replacements:
        the source stays as it is), or text that no way into Reverie stores
        (``reverie.text.safety.unstorable``: a NUL or another control character but tab, newline
        and carriage return). Such a file is never imported with the character removed or
        replaced: it is named with the character and where it is, and left out. (History entries
        and conversations are what was said: their importers keep them as they are, as Reverie
        keeps a conversation; renderers show a control character as a visible one.)"""
        data = self.read_bytes(path, label, limit=limit, root=root)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.skip(
                label,
                f"{not_utf8(data, exc)}; convert it to UTF-8 and import again",
            )
            return None
        why = unstorable(text)
        if why is not None:
            self.skip(label, f"{why}; then import again")
            return None
        return self.clean(text.removeprefix("\ufeff"))


def link_on_the_way(root: Path, path: Path) -> str | None:
    """The first entry from ``root`` down to ``path`` that is a symbolic link, relative to ``root``
    (a folder with a trailing ``/``); None when there is none. Every component is checked, as a
    workspace opened in place is (``Workspace.resolve``): a link anywhere on the way leads out."""
    parts = path.relative_to(root).parts
    here = root
    for i, part in enumerate(parts):
        here = here / part
        try:
            if stat.S_ISLNK(os.lstat(here).st_mode):
                return "/".join(parts[: i + 1]) + ("/" if i < len(parts) - 1 else "")
        except OSError:
            return None  # missing: nothing below it to follow
    return None


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
