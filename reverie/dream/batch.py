"""Phase-1 input: the next batch past the Dream cursor, and the analysis message built from it.

The message follows ``reverie.llm.protocol``: ``SECTION_TODAY``, ``SECTION_BATCH`` (one
``batch_header`` per entry, content capped), then one section per memory file; MEMORY.md lines older
than ``protocol.AGE_THRESHOLD_DAYS`` by the repo's history carry ``protocol.age_suffix``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Protocol

from ..gitstore.types import CommitInfo
from ..llm import protocol
from ..storage.history import HistoryEntry
from ..storage.workspace import MEMORY, MEMORY_FILES, SOUL, USER

if TYPE_CHECKING:
    from ..storage.config import DreamConfig

__all__ = [
    "ENTRY_CAP",
    "SECTION_BUDGETS",
    "build_analysis_message",
    "budget_lines",
    "line_ages",
    "cap_entry",
]

#: The prompt section (both phases) stating each file's size and budget and what Dream does to keep
#: them.
SECTION_BUDGETS = "Budgets"

log = logging.getLogger(__name__)

#: Characters of one history entry shown to the model; the rest is cut with a marker.
ENTRY_CAP = 4_000
#: How many of MEMORY.md's past versions the age walk reads at most (bounds the cost on a long
#: history).
AGE_WALK_LIMIT = 40


class _History(Protocol):  # the part of GitStore the age walk uses
    def log(
        self, limit: int = 20, kind: str | None = None, path: str | None = None
    ) -> list[CommitInfo]: ...
    def file_at(self, rev: str, path: str) -> str | None: ...  # noqa: E704


def cap_entry(content: str, cap: int = ENTRY_CAP) -> str:
    if len(content) <= cap:
        return content
    return content[:cap] + f"\n…[{len(content) - cap} more characters not shown]"


def line_ages(git: _History, text: str, now: datetime | None = None) -> list[int | None]:
    """Per line of ``text`` (MEMORY.md as on disk), its age in whole days: since the oldest commit
    from which the line has been present in every version up to HEAD. None for lines HEAD does not
    have (not committed yet).

    This is a bounded blame by line content over GitStore's public ``log``/``file_at``.
    """
    lines = text.splitlines()
    ages: list[int | None] = [None] * len(lines)
    now = now or datetime.now(UTC)
    commits = git.log(limit=AGE_WALK_LIMIT, path=MEMORY)
    alive = {ln for ln in lines if ln.strip()}
    since: dict[str, datetime] = {}
    for info in commits:  # newest first
        version = git.file_at(info.sha, MEMORY)
        present = set(version.splitlines()) if version else set()
        alive &= present
        if not alive:
            break
        for ln in alive:
            since[ln] = info.time
    for i, ln in enumerate(lines):
        when = since.get(ln)
        if when is not None:
            ages[i] = max(0, (now - when).days)
    return ages


def _annotate(text: str, ages: Sequence[int | None]) -> str:
    out = []
    for ln, age in zip(text.splitlines(), list(ages) + [None] * len(text.splitlines())):
        if age is not None and age > protocol.AGE_THRESHOLD_DAYS and ln.strip():
            ln += protocol.age_suffix(age)
        out.append(ln)
    return "\n".join(out)


def budget_lines(files: Mapping[str, str], cfg: DreamConfig) -> str:
    """The ``Budgets`` section: each prompt file's size against its budget, and the lifecycle rules
    (the same text for any model; the gate still checks the result)."""
    limits = {SOUL: cfg.soul_max_chars, USER: cfg.user_max_chars, MEMORY: cfg.memory_max_chars}
    rows = [
        f"- {rel}: {len(files.get(rel, '')):,} of {limits[rel]:,} characters "
        f"({100 * len(files.get(rel, '')) // limits[rel]} %)"
        for rel in MEMORY_FILES
    ]
    grace = cfg.lifecycle.grace_days
    rows.append(
        "After your edits Dream keeps every file within its budget: it merges duplicate "
        "lines, removes a line a "
        f"newer one supersedes, retires dated items more than {grace} days past their "
        "date, and moves the least "
        "used lines of USER.md and memory/MEMORY.md to the searchable archive "
        "(memory/archive/). Write dates as "
        "absolute dates (YYYY-MM-DD). A correction replaces the line it contradicts "
        '("(replaces: old line)"). '
        "To move a line out yourself, call archive_line(path, line, reason). SOUL.md "
        "rules, identity facts and "
        "lines ending in [pinned] are never archived."
    )
    return "\n".join(rows)


def build_analysis_message(
    entries: Sequence[HistoryEntry],
    files: Mapping[str, str],
    memory_ages: Sequence[int | None] = (),
    today: date | None = None,
    *,
    budgets: str | None = None,
) -> str:
    """The phase-1 user message (with a ``Budgets`` section when ``budgets`` is given)."""
    batch = "\n\n".join(
        f"{protocol.batch_header(e.cursor, e.timestamp)}\n{cap_entry(e.content)}" for e in entries
    )
    sections = [
        (protocol.SECTION_TODAY, (today or date.today()).isoformat()),
        (protocol.SECTION_BATCH, batch),
    ]
    for rel in MEMORY_FILES:
        text = files.get(rel, "")
        if rel == MEMORY and memory_ages:
            text = _annotate(text, memory_ages)
        sections.append((rel, text if text.strip() else "(empty)"))
    if budgets:
        sections.append((SECTION_BUDGETS, budgets))
    return protocol.render_sections(sections)
