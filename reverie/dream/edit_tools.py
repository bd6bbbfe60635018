"""Dream's phase-2 tools, ``read_file``, ``edit_file`` and ``archive_line``, over a ``StagedFiles``
copy (never the disk). ``archive_line`` only takes the line out of the staged file and records it:
the lifecycle step (``reverie.dream.lifecycle``) appends it to the archive in the same commit."""

from __future__ import annotations

import difflib

from ..llm.tools import ToolBox, ToolError, tool_from_function
from ..text.memline import bare_line, line_key
from .lifecycle import MovedLine
from .result import Edit
from .staging import PathRefused, StagedFiles

__all__ = ["MemoryTools"]

_CLOSEST = 3


class MemoryTools:
    """The tools bound to one staged copy; ``edits`` records every successful edit in order."""

    def __init__(self, staged: StagedFiles) -> None:
        self.staged = staged
        self.edits: list[Edit] = []
        self.moved: list[MovedLine] = []
        self.box = ToolBox(
            [
                tool_from_function(self.read_file),
                tool_from_function(self.edit_file),
                tool_from_function(self.archive_line),
            ]
        )

    def _path(self, path: str) -> str:
        try:
            return self.staged.check_path(path)
        except PathRefused as exc:
            raise ToolError(f"refused: {exc}. Nothing was read or changed.") from None

    def read_file(self, path: str) -> str:
        """Read one memory file's current (staged) content.

        Args:
            path: SOUL.md, USER.md or memory/MEMORY.md.
        """
        rel = self._path(path)
        text = self.staged.current[rel]
        return text if text else "(empty file)"

    def edit_file(self, path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
        """Replace an exact piece of text in a memory file. old_text must match exactly and be
        unique unless replace_all is true; an empty old_text appends new_text at the end of the
        file.

        Args:
            path: SOUL.md, USER.md or memory/MEMORY.md.
            old_text: the exact text to replace (copy it from the file, including line breaks).
            new_text: the replacement; empty deletes old_text.
            replace_all: replace every occurrence instead of requiring exactly one.
        """
        rel = self._path(path)
        if old_text == new_text:
            raise ToolError("no-op edit refused: old_text and new_text are identical.")
        text = self.staged.current[rel]
        if old_text == "":
            sep = "" if not text or text.endswith("\n") else "\n"
            updated, count = text + sep + new_text, 1
        else:
            count = text.count(old_text)
            if count == 0:
                raise ToolError(f"old_text was not found in {rel}. {_closest(text, old_text)}")
            if count > 1 and not replace_all:
                raise ToolError(
                    f"old_text occurs {count} times in {rel}; include more "
                    "surrounding text to make it unique, or set replace_all to true."
                )
            updated = (
                text.replace(old_text, new_text)
                if replace_all
                else text.replace(old_text, new_text, 1)
            )
        if updated == text:
            raise ToolError("no-op edit refused: the file would not change.")
        self.staged.current[rel] = updated
        self.edits.append(Edit(rel, old_text, new_text, replace_all, count if replace_all else 1))
        return f"Edited {rel}: replaced {count if replace_all else 1} occurrence(s)."

    def archive_line(self, path: str, line: str, reason: str) -> str:
        """Move one line out of a memory file into the searchable archive (memory/archive/), e.g. an
        old detail that no longer needs to be in every prompt. The line stays findable by search.

        Args:
            path: USER.md or memory/MEMORY.md (SOUL.md rules are never archived).
            line: the line's text as it stands in the file (its bullet may be left out).
            reason: why it can leave the prompt file, in a few words.
        """
        rel = self._path(path)
        if rel == "SOUL.md":
            raise ToolError(
                "SOUL.md holds standing rules; they are never archived. Nothing was changed."
            )
        key = line_key(line)
        text = self.staged.current[rel]
        rows = text.split("\n")
        hits = [
            i
            for i, raw in enumerate(rows)
            if raw.strip() and not raw.lstrip().startswith("#") and line_key(raw) == key
        ]
        if not key or not hits:
            raise ToolError(f"no line of {rel} reads {line!r}. {_closest(text, line)}")
        raw = rows.pop(hits[0])
        self.staged.current[rel] = "\n".join(rows)
        self.moved.append(MovedLine(rel, raw, " ".join(reason.split())[:160] or "moved by Dream"))
        self.edits.append(Edit(rel, raw + "\n", ""))
        return f"Archived from {rel}: {bare_line(raw)}"


def _closest(text: str, wanted: str) -> str:
    lines = text.splitlines()
    probes = [ln for ln in wanted.splitlines() if ln.strip()] or [wanted]
    seen: list[int] = []
    for probe in probes[:5]:
        for match in difflib.get_close_matches(probe, lines, n=_CLOSEST, cutoff=0.4):
            idx = lines.index(match)
            if idx not in seen:
                seen.append(idx)
    if not seen:
        return "No similar lines; read_file shows the current content."
    shown = "\n".join(f"  line {i + 1}: {lines[i]}" for i in sorted(seen)[: _CLOSEST * 2])
    return f"The closest lines are:\n{shown}"
