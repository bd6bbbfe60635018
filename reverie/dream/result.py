"""What a Dream run returns and reports while it runs: plain frozen values, rendered by
front-ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..gitstore.types import FileChange
from ..llm.types import Usage

__all__ = ["DreamStatus", "Finding", "Edit", "DreamResult", "Progress", "ProgressPhase"]

DreamStatus = Literal[
    "ok",
    "no-change",
    "nothing-to-do",
    "already-running",
    "failed",
    "rejected",
    "dead-lettered",
    "paused",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One phase-1 finding: ``kind`` is USER, SOUL, MEMORY, FILE-REMOVE or SKIP."""

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Edit:
    """One successful ``edit_file`` call applied to the staged copy."""

    path: str
    old_text: str
    new_text: str
    replace_all: bool = False
    count: int = 1  # occurrences replaced


@dataclass(frozen=True)
class DreamResult:
    """The outcome of ``Dream.run``.

    ``first``/``last`` are the history cursors of the batch (None when nothing was read). ``commit``
    is the dream commit's sha (None unless status is "ok" and not a dry run). ``diff`` is the
    unified diff of what the run would write (always filled for a dry run, and for "ok" runs).
    ``pending_soul`` holds a SOUL.md change staged for approval instead of written
    (``dream.protectSoul``). A drain returns one result whose ``batches`` are the per-batch results;
    its top-level fields aggregate them.
    """

    status: DreamStatus
    first: int | None = None
    last: int | None = None
    findings: tuple[Finding, ...] = ()
    edits: tuple[Edit, ...] = ()
    files: tuple[FileChange, ...] = ()
    commit: str | None = None
    usage: Usage = field(default_factory=Usage)
    iterations: int = 0
    tool_calls: int = 0
    reason: str | None = None
    diff: str = ""
    dry_run: bool = False
    model: str = ""
    attempts: int = 0
    pending_soul: str | None = None
    batches: tuple[DreamResult, ...] = ()
    #: The lifecycle step (``reverie.dream.lifecycle``): lines moved to ``memory/archive/`` (expired
    #: ones not included), dated items retired, lines superseded by newer ones, duplicates merged.
    archived: int = 0
    expired: int = 0
    superseded: int = 0
    merged: int = 0
    #: Said to the person with the outcome: a damaged archive file repaired (naming it), the archive
    #: untracked…
    warnings: tuple[str, ...] = ()
    #: False when ``git.trackedFiles`` leaves ``memory/archive/*.md`` out: nothing was archived.
    archive_tracked: bool = True
    #: A prompt file was over its budget before the model call: the lifecycle step's trim, which a
    #: run commits on its own first (its result, with that commit); in a dry run, the trim it would
    #: commit (its diff also leads ``diff``).
    trim: DreamResult | None = None

    @property
    def lifecycle_summary(self) -> str:
        """ "archived 12 lines, expired 3 dates" (and superseded/merged counts), or "" when nothing
        left a file."""
        parts = []
        if self.archived:
            parts.append(f"archived {self.archived} line{'s' if self.archived != 1 else ''}")
        if self.expired:
            parts.append(f"expired {self.expired} date{'s' if self.expired != 1 else ''}")
        if self.superseded:
            parts.append(f"superseded {self.superseded}")
        if self.merged:
            parts.append(f"merged {self.merged} duplicate{'s' if self.merged != 1 else ''}")
        return ", ".join(parts)

    @property
    def changed(self) -> bool:
        """Whether the run changed a memory file."""
        return bool(self.files)


ProgressPhase = Literal["start", "analyze", "edit", "gate", "commit", "done"]


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress event for a live status line: which phase, and the run's counters so far."""

    phase: ProgressPhase
    iteration: int = 0
    tool_calls: int = 0
    tokens: int = 0
    first: int | None = None
    last: int | None = None
    message: str = ""
