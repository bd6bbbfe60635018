"""The staged copy Dream edits: exactly SOUL.md, USER.md and memory/MEMORY.md, in memory, never on
disk.

The path rule lives here, once: a path is admitted only if its normalised form is one of
``MEMORY_FILES`` and the file on disk is a regular file inside the workspace (no symlink, valid
UTF-8). Everything else — ``../``, absolute paths, NUL bytes, history.jsonl, cursors — is refused
with a message for the model.

A memory file that cannot be read (invalid UTF-8, a symlink, a read error) is in ``unreadable``: the
run must not go on without it, or the batch's facts about that file would be consumed with nowhere
to go.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import UnsafePathError, WorkspaceError
from ..storage.workspace import MEMORY_FILES, Workspace, check_relative

__all__ = ["StagedFiles", "PathRefused", "unified_diff"]


class PathRefused(Exception):
    """A path outside the staged set; the message is shown to the model."""


@dataclass
class StagedFiles:
    """``base``: the files as read at the start of the run; ``current``: the run's edited copy."""

    base: dict[str, str]
    current: dict[str, str]
    refused: dict[str, str] = field(default_factory=dict)  # path -> why it cannot be edited

    @classmethod
    def load(cls, workspace: Workspace) -> StagedFiles:
        base: dict[str, str] = {}
        refused: dict[str, str] = {}
        for rel in MEMORY_FILES:
            try:
                base[rel] = workspace.read_bytes(rel).decode("utf-8")
            except UnicodeDecodeError:
                refused[rel], base[rel] = f"{rel} is not valid UTF-8; fix it by hand first", ""
            except WorkspaceError as exc:  # the workspace's own words (a folder, a link, …)
                refused[rel], base[rel] = str(exc), ""
        return cls(base, dict(base), refused)

    @classmethod
    def from_texts(cls, texts: Mapping[str, str]) -> StagedFiles:
        base = {rel: texts.get(rel, "") for rel in MEMORY_FILES}
        return cls(base, dict(base))

    @property
    def unreadable(self) -> str | None:
        """Why a memory file could not be read for this run (``None`` when all were): a reason to
        fail the run."""
        return "; ".join(self.refused.values()) or None

    def check_path(self, path: str) -> str:
        """The normalised staged path for ``path``, or ``PathRefused`` saying why not."""
        try:
            rel = check_relative(path)
        except UnsafePathError as exc:
            raise PathRefused(str(exc)) from None
        if rel not in MEMORY_FILES:
            allowed = ", ".join(MEMORY_FILES)
            raise PathRefused(f"{path!r} is not editable; the only files are {allowed}")
        if rel in self.refused:
            raise PathRefused(self.refused[rel])
        return rel

    def changed(self) -> dict[str, str]:
        """The staged files whose content differs from the base: path -> new content."""
        return {rel: text for rel, text in self.current.items() if text != self.base.get(rel, "")}

    def diff(self) -> str:
        return "".join(
            unified_diff(rel, self.base.get(rel, ""), text) for rel, text in self.changed().items()
        )


def unified_diff(rel: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
