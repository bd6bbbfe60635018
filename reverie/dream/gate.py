"""The gate every Dream run passes before anything is written: additions out of proportion to the
findings, shrinkage, size budgets, credentials, and control characters (an ``ESC[…`` in USER.md
would reach every prompt and every terminal showing it).

It judges the result of the model's edits *and* the lifecycle step together; lines the step archived
or retired are accounted for (they are in the archive or named in the commit), so they never count
as lost content.

A rejection leaves the files as they were; the reason is logged and recorded for ``reverie status``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..security.secrets import scan
from ..storage.workspace import MEMORY, SOUL, USER
from ..text.memline import bare_line
from ..text.safety import control_chars
from .archive import parse_entry
from .result import Finding

if TYPE_CHECKING:
    from ..storage.config import DreamConfig

__all__ = ["GateVerdict", "check", "check_additions"]


def find_credentials(text: str) -> list[tuple[str, str]]:
    """``(kind, matched text)`` for each credential in ``text``."""
    return [(m.kind, text[m.start : m.end]) for m in scan(text)]


_MIN_LINES_FOR_SHRINK_CHECK = 2  # a one-line file is not "content" whose loss the gate guards
#: A line a run adds may be at most this long: longer is not a memory fact but garbage (a model's
#: runaway output), and the lifecycle would otherwise carry it into the archive. Lines that were
#: already in a file may move.
MAX_NEW_LINE_CHARS = 2_000
_FILE_NAMES = {SOUL: "soul.md", USER: "user.md", MEMORY: "memory.md"}
#: A run writes what its findings say: a finding becomes a line or a few, so the model's edits may
#: add at most this many lines per finding, beyond ``_SPARE_NEW_LINES``. More is a model's runaway
#: output (one line written 80,000 times, or invented lines by the thousand), which the lifecycle
#: would otherwise merge or archive line by line: minutes of work, an archive of megabytes and a
#: USER.md full of lines nobody said.
NEW_LINES_PER_FINDING = 5
_SPARE_NEW_LINES = 10


@dataclass(frozen=True, slots=True)
class GateVerdict:
    ok: bool
    reason: str | None = None


def _budgets(cfg: DreamConfig) -> dict[str, int]:
    return {MEMORY: cfg.memory_max_chars, USER: cfg.user_max_chars, SOUL: cfg.soul_max_chars}


def removal_finding(rel: str, findings: Iterable[Finding]) -> Finding | None:
    """The ``[FILE-REMOVE]`` finding that allows removals from ``rel``: one naming this file, or
    one naming no file (it allows them anywhere); None when there is none."""
    for f in findings:
        if f.kind != "FILE-REMOVE":
            continue
        text = f.text.lower()
        named = [path for path, name in _FILE_NAMES.items() if name in text]
        if not named or rel in named:
            return f
    return None


def _nonblank(text: str) -> int:
    return sum(1 for ln in text.splitlines() if ln.strip())


def _without(text: str, lines: Iterable[str]) -> str:
    """``text`` less one occurrence of each of ``lines`` (the lifecycle step's own, accounted-for
    removals)."""
    rows = text.split("\n")
    for line in lines:
        try:
            rows.remove(line)
        except ValueError:
            pass
    return "\n".join(rows)


def _new_long_line(base: Mapping[str, str], changed: Mapping[str, str]) -> str | None:
    known: set[str] | None = None
    for rel, new in changed.items():
        old = set(base.get(rel, "").splitlines())
        for line in new.splitlines():
            if len(line) <= MAX_NEW_LINE_CHARS or line in old:
                continue
            if known is None:
                known = {bare_line(x) for text in base.values() for x in text.splitlines()}
            entry = parse_entry(line)
            if bare_line(entry[0] if entry else line) not in known:
                return (
                    f"{rel} would gain a line of {len(line):,} characters "
                    f"(more than {MAX_NEW_LINE_CHARS:,}: not a memory fact)"
                )
    return None


def check_additions(
    base: Mapping[str, str], current: Mapping[str, str], findings: Iterable[Finding]
) -> GateVerdict:
    """Judge how much the model's edits (``base`` into ``current``, before the lifecycle step)
    add: a line counts as new unless the files held it before (a line moved between files or
    written again is not new; each further copy of it is). Refused past ``NEW_LINES_PER_FINDING``
    per finding (``[SKIP]`` aside), counted in one pass that stops at the limit."""
    said = sum(1 for f in findings if f.kind != "SKIP")
    limit = _SPARE_NEW_LINES + NEW_LINES_PER_FINDING * said
    held = Counter(
        ln.strip() for rel in _FILE_NAMES for ln in base.get(rel, "").splitlines() if ln.strip()
    )
    added = 0
    for rel in _FILE_NAMES:
        for line in current.get(rel, "").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if held[line] > 0:
                held[line] -= 1
                continue
            added += 1
            if added > limit:
                return GateVerdict(
                    False,
                    f"the edits would add more than {limit} new lines ({rel} among them) for "
                    f"{said} finding(s): not what the findings say",
                )
    return GateVerdict(True)


def check(
    base: Mapping[str, str],
    changed: Mapping[str, str],
    findings: Iterable[Finding],
    cfg: DreamConfig,
    *,
    own_removals: Mapping[str, Iterable[str]] | None = None,
    over_budget_ok: Iterable[str] = (),
) -> GateVerdict:
    """Judge a run's changed files (path -> new content) against their base content.

    ``own_removals``: lines the lifecycle step moved to the archive or retired (named in the
    commit), which the shrinkage checks do not count as lost; the model's own removals still are.
    ``over_budget_ok``: files the step could not bring within budget because only protected lines
    (identity, pins, rules) are left; they may grow. Archive files (``memory/archive/``) are checked
    for credentials only, against everything the run started from.
    """
    findings = list(findings)
    budgets = _budgets(cfg)
    long_line = _new_long_line(base, changed)
    if long_line is not None:
        return GateVerdict(False, long_line)
    own = own_removals or {}
    allowed_over = set(over_budget_ok)
    everything = "\n".join(base.values())
    for rel, new in changed.items():
        old = base.get(rel, "")
        if rel not in budgets:  # an archive file: lines moved from the prompt files, appended
            before = {value for _, value in find_credentials(everything)}
            introduced = sorted(
                {kind for kind, value in find_credentials(new) if value not in before}
            )
            if introduced:
                return GateVerdict(
                    False,
                    f"an edit to {rel} would introduce a credential ({', '.join(introduced)}): "
                    "leave it out",
                )
            continue
        judged = _without(old, own.get(rel, ()))
        old_lines, new_lines = _nonblank(judged), _nonblank(new)
        if old_lines >= _MIN_LINES_FOR_SHRINK_CHECK and removal_finding(rel, findings) is None:
            if len(new) * 2 < len(judged):
                return GateVerdict(
                    False,
                    f"{rel} would lose more than half its content "
                    f"({len(judged)} → {len(new)} characters) at once: take "
                    "out only the lines that are no longer true, each with why",
                )
            if new_lines * 2 < old_lines:
                return GateVerdict(
                    False,
                    f"{rel} would lose more than half its lines ({old_lines} → {new_lines}) "
                    "at once: take out only the lines that are no longer true, each with why",
                )
        limit = budgets.get(rel)
        # A file already over budget may still shrink; it may not grow.
        if (
            limit is not None
            and len(new) > limit
            and len(new) > len(old)
            and rel not in allowed_over
        ):
            return GateVerdict(
                False,
                f"{rel} would exceed its size budget ({len(new)} > {limit} characters): shorten or "
                "merge lines instead of adding",
            )
        introduced_controls = control_chars(new) - control_chars(old)
        if introduced_controls:
            shown = ", ".join(f"U+{ord(c):04X}" for c in sorted(introduced_controls))
            return GateVerdict(
                False, f"an edit to {rel} would introduce control characters ({shown})"
            )
        before = {value for _, value in find_credentials(old)}
        introduced = sorted({kind for kind, value in find_credentials(new) if value not in before})
        if introduced:
            return GateVerdict(
                False,
                f"an edit to {rel} would introduce a credential ({', '.join(introduced)}): leave "
                "it out",
            )
    return GateVerdict(True)
