"""Phase 1: one model call without tools that turns a batch into findings (``[USER] fact`` ...)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ModelError
from ..llm import protocol
from ..llm.types import Usage
from .budget import Budget, budgeted_call
from .result import Finding

if TYPE_CHECKING:
    from ..llm.client import ModelClient

__all__ = ["Analysis", "UnusableAnalysis", "analyze", "parse_findings"]

log = logging.getLogger(__name__)

#: Bounds on what phase 1 hands to phase 2: a runaway reply (thousands of "findings", or one line of megabytes)
#: is cut here, with a warning, instead of becoming a phase-2 prompt that can only fail.
MAX_FINDINGS = 200
MAX_FINDING_CHARS = 2_000

_LIST_PREFIX = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_MARKS = re.compile(r"^\s*\[(permanent|durable|ephemeral|skip|correction)\]\s*", re.I)


class UnusableAnalysis(ModelError):
    """The model answered, but not with an analysis: empty, or no finding line and no ``[SKIP]`` (a
    code block, a chat reply). The run fails and the batch stays pending, without an attempt counted
    against it."""


@dataclass(frozen=True)
class Analysis:
    findings: tuple[Finding, ...]
    usage: Usage
    raw: str
    ignored_lines: int


def parse_findings(text: str) -> tuple[list[Finding], int]:
    """Finding lines of a phase-1 answer, and how many non-blank lines were not findings (ignored).

    List bullets before a finding are tolerated; consolidator marks inside a finding are stripped,
    except that a ``[correction]`` mark becomes the words "correction:" so phase 2 replaces the old
    fact in place. ``[SKIP]`` is dropped: it means "nothing here".
    """
    findings: list[Finding] = []
    ignored = 0
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        parsed = protocol.parse_finding_line(_LIST_PREFIX.sub("", line, count=1))
        if parsed is None:
            ignored += 1
            continue
        kind, body = parsed
        if kind == "SKIP":
            continue
        m = _MARKS.match(body)
        if m:
            body = body[m.end() :]
            if m.group(1).lower() == "skip":
                continue
            if m.group(1).lower() == "correction":
                body = f"correction: {body}"
        body = protocol.strip_age(body.strip())[0].strip()
        if body:
            findings.append(Finding(kind, body))
    return findings, ignored


def _skipped(text: str) -> bool:
    """True when the answer says, in the protocol, that the batch holds nothing worth keeping."""
    for line in text.splitlines():
        parsed = protocol.parse_finding_line(_LIST_PREFIX.sub("", line, count=1))
        if parsed is None:
            continue
        mark = _MARKS.match(parsed[1])
        if parsed[0] == "SKIP" or (mark is not None and mark.group(1).lower() == "skip"):
            return True
    return False


async def analyze(
    client: ModelClient,
    budget: Budget,
    *,
    model: str,
    system: str,
    user: str,
    max_tokens: int | None = None,
) -> Analysis:
    """Run phase 1; raises ``UnusableAnalysis``, ``ModelError`` or ``BudgetExceeded``."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    response = await budgeted_call(client, budget, messages, model=model, max_tokens=max_tokens)
    raw = response.content or ""
    if not raw.strip():
        # An empty answer is a model fault, not "nothing worth keeping" (that is [SKIP]): fail the
        # attempt so the batch is retried instead of the cursor skipping it unread.
        raise UnusableAnalysis(
            f"{model}: empty reply to the analysis (expected finding lines or [SKIP])"
        )
    findings, ignored = parse_findings(raw)
    if not findings and not _skipped(raw):
        # Not "nothing worth keeping" (that is [SKIP]): the model did not do the task, so the batch
        # must not be consumed as if it had been read.
        raise UnusableAnalysis(
            f"{model}: the analysis has no finding lines and no [SKIP] "
            f"({ignored} other line(s), starting {raw.strip()[:60]!r})"
        )
    if ignored:
        log.warning("dream analysis: ignored %d line(s) that are not findings", ignored)
    long = sum(len(f.text) > MAX_FINDING_CHARS for f in findings)
    if long:
        log.warning(
            "dream analysis: %d finding(s) longer than %d characters were cut",
            long,
            MAX_FINDING_CHARS,
        )
        findings = [Finding(f.kind, f.text[:MAX_FINDING_CHARS]) for f in findings]
    if len(findings) > MAX_FINDINGS:
        log.warning("dream analysis: kept the first %d of %d findings", MAX_FINDINGS, len(findings))
        findings = findings[:MAX_FINDINGS]
    return Analysis(tuple(findings), response.usage, raw, ignored)
