"""The values GitStore returns: plain frozen data, rendered by front-ends (never Markdown here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

__all__ = [
    "FileChange",
    "CommitInfo",
    "CommitDetail",
    "OperationResult",
    "Provenance",
    "RepoProblem",
]


@dataclass(frozen=True)
class FileChange:
    """One tracked file's change in a commit: lines added and removed (a git ``--numstat``)."""

    path: str
    added: int
    removed: int


@dataclass(frozen=True)
class CommitInfo:
    """A commit as the log shows it. ``short`` is the 8-hex abbreviation; ``time`` is
    timezone-aware."""

    sha: str
    short: str
    time: datetime
    kind: str  # the Reverie-Kind trailer; "" for commits made by other tools
    subject: str
    message: str
    trailers: dict[str, str] = field(default_factory=dict)
    files: list[FileChange] = field(default_factory=list)


@dataclass(frozen=True)
class CommitDetail:
    """A commit and its git-style unified diff against its first parent (tracked files only)."""

    info: CommitInfo
    diff: str


@dataclass(frozen=True)
class OperationResult:
    """Outcome of restore/revert: the new commit (None when nothing changed) and what changed. With
    ``replay=True``, ``replay_from`` is the cursor just before the undone Dream batch;
    ``cursor_rewound_to`` is set when ``reverie.operations.restore.restore_memory`` moved
    ``.dream_cursor`` there (GitStore never does). ``merged``: the memory files changed after the
    ``base`` the undo was previewed at, and the previewed change was merged over those changes (what
    a confirmation must tell the person, since the result is not exactly the diff they saw)."""

    commit: str | None
    files: list[FileChange]
    cursor_rewound_to: int | None = None
    replay_from: int | None = None
    merged: bool = False


@dataclass(frozen=True)
class Provenance:
    """Where a memory line came from: the commit that introduced it and the history cursors behind
    that commit.

    ``line_no`` is 1-based in the current file. ``cursor_range`` is ``(first, last)`` from
    ``Reverie-Batch`` (or ``(cursor, cursor)`` from ``Reverie-Cursor`` alone); None for commits
    without them (manual edits, init). ``via``: the restores and reverts that brought the line back
    after that commit wrote it, newest first (full shas; empty when none did).
    """

    path: str
    line_no: int
    line: str
    sha: str
    short: str
    kind: str
    time: datetime
    subject: str
    cursor_range: tuple[int, int] | None
    via: tuple[str, ...] = ()


@dataclass(frozen=True)
class RepoProblem:
    """Something damaged in the memory repo, as a query found it (``GitStore.problems``): the file
    (workspace-relative when inside it), what is wrong and what to do."""

    path: str
    problem: str
    remedy: str
