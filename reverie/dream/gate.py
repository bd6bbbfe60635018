"""The gate every Dream run passes before anything is written: shrinkage, size budgets, credentials, and
control characters (an ``ESC[…`` in USER.md would reach every prompt and every terminal showing it).

A rejection leaves the files as they were; the reason is logged and recorded for ``reverie status``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..config import DreamConfig
from ..textsafety import control_chars
from ..workspace import MEMORY, SOUL, USER
from .result import Finding
from .seams import find_credentials

__all__ = ["GateVerdict", "check"]

_MIN_LINES_FOR_SHRINK_CHECK = 2  # a one-line file is not "content" whose loss the gate guards
_FILE_NAMES = {SOUL: "soul.md", USER: "user.md", MEMORY: "memory.md"}


@dataclass(frozen=True, slots=True)
class GateVerdict:
    ok: bool
    reason: str | None = None


def _budgets(cfg: DreamConfig) -> dict[str, int]:
    return {MEMORY: cfg.memory_max_chars, USER: cfg.user_max_chars, SOUL: cfg.soul_max_chars}


def _removal_allowed(rel: str, findings: Iterable[Finding]) -> bool:
    """A ``[FILE-REMOVE]`` finding naming this file allows a large removal; one naming no file allows it anywhere."""
    for f in findings:
        if f.kind != "FILE-REMOVE":
            continue
        text = f.text.lower()
        named = [path for path, name in _FILE_NAMES.items() if name in text]
        if not named or rel in named:
            return True
    return False


def _nonblank(text: str) -> int:
    return sum(1 for ln in text.splitlines() if ln.strip())


def check(
    base: Mapping[str, str], changed: Mapping[str, str], findings: Iterable[Finding], cfg: DreamConfig
) -> GateVerdict:
    """Judge a run's changed files (path -> new content) against their base content."""
    findings = list(findings)
    budgets = _budgets(cfg)
    for rel, new in changed.items():
        old = base.get(rel, "")
        old_lines, new_lines = _nonblank(old), _nonblank(new)
        if old_lines >= _MIN_LINES_FOR_SHRINK_CHECK and not _removal_allowed(rel, findings):
            if len(new) * 2 < len(old):
                return GateVerdict(False, f"{rel} would lose more than half its content "
                                          f"({len(old)} → {len(new)} characters) without a [FILE-REMOVE] finding")
            if new_lines * 2 < old_lines:
                return GateVerdict(False, f"{rel} would lose more than half its lines "
                                          f"({old_lines} → {new_lines}) without a [FILE-REMOVE] finding")
        limit = budgets.get(rel)
        # A file already over budget may still shrink; it may not grow.
        if limit is not None and len(new) > limit and len(new) > len(old):
            return GateVerdict(False, f"{rel} would exceed its size budget ({len(new)} > {limit} characters)")
        introduced_controls = control_chars(new) - control_chars(old)
        if introduced_controls:
            shown = ", ".join(f"U+{ord(c):04X}" for c in sorted(introduced_controls))
            return GateVerdict(False, f"an edit to {rel} would introduce control characters ({shown})")
        before = {value for _, value in find_credentials(old)}
        introduced = sorted({kind for kind, value in find_credentials(new) if value not in before})
        if introduced:
            return GateVerdict(False, f"an edit to {rel} would introduce a credential ({', '.join(introduced)})")
    return GateVerdict(True)
