"""Phase 1: one model call without tools that turns a batch into findings (``[USER] fact`` ...)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..llm import protocol
from ..llm.output import unwrap_fence
from ..llm.types import ModelResponse, Usage
from .budget import Budget, budgeted_call
from .result import Finding

if TYPE_CHECKING:
    from ..llm.client import ModelClient

__all__ = ["Analysis", "UnusableAnalysis", "analyze", "judge", "parse_findings"]

log = logging.getLogger(__name__)

#: Bounds on what phase 1 hands to phase 2: a runaway reply (thousands of "findings", or one line of
#: megabytes) is cut here, with a warning, instead of becoming a phase-2 prompt that can only fail.
MAX_FINDINGS = 200
MAX_FINDING_CHARS = 2_000

_LIST_PREFIX = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_MARKS = re.compile(r"^\s*\[(permanent|durable|ephemeral|skip|correction)\]\s*", re.I)


class UnusableAnalysis(ModelError):
    """The model answered, but not with an analysis it can be trusted for: empty, no finding line
    and no ``[SKIP]`` (a code block, a chat reply), or ``[SKIP]`` mixed with other lines. The run
    fails and the batch stays pending, without an attempt counted against it. ``response`` and
    ``messages`` are the call, for the kept-replies log."""

    def __init__(
        self,
        message: str,
        *,
        response: ModelResponse | None = None,
        messages: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message)
        self.response = response
        self.messages = list(messages)


@dataclass(frozen=True)
class Analysis:
    """A usable analysis. ``verdict`` says how it was taken: ``trusted``, ``repaired`` (unwrapped
    from a code fence, findings cut) or ``lenient`` (lines that are not findings ignored); ``note``
    says why; ``skipped`` is True for a whole-reply ``[SKIP]``."""

    findings: tuple[Finding, ...]
    usage: Usage
    raw: str
    ignored_lines: int
    verdict: str = "trusted"
    note: str = ""
    skipped: bool = False
    response: ModelResponse | None = None
    messages: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class _Lines:
    """A phase-1 answer read line by line."""

    findings: list[Finding]
    skips: int  # [SKIP] lines, and finding lines marked [skip]
    skip_kind: int  # [SKIP] lines alone
    ignored: int  # non-blank lines that are neither


def _read(text: str) -> _Lines:
    findings: list[Finding] = []
    skips = skip_kind = ignored = 0
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        parsed = protocol.parse_finding_line(_LIST_PREFIX.sub("", line, count=1))
        if parsed is None:
            ignored += 1
            continue
        kind, body = parsed
        if kind == "SKIP":
            skips += 1
            skip_kind += 1
            continue
        m = _MARKS.match(body)
        if m:
            body = body[m.end() :]
            if m.group(1).lower() == "skip":
                skips += 1
                continue
            if m.group(1).lower() == "correction":
                body = f"correction: {body}"
        body = protocol.strip_age(body.strip())[0].strip()
        if body:
            findings.append(Finding(kind, body))
    return _Lines(findings, skips, skip_kind, ignored)


def parse_findings(text: str) -> tuple[list[Finding], int]:
    """Finding lines of a phase-1 answer, and how many non-blank lines were not findings (ignored).

    List bullets before a finding are tolerated; consolidator marks inside a finding are stripped,
    except that a ``[correction]`` mark becomes the words "correction:" so phase 2 replaces the old
    fact in place. ``[SKIP]`` and lines marked ``[skip]`` are dropped: they mean "nothing here".
    """
    lines = _read(text)
    return lines.findings, lines.ignored


def judge(text: str) -> Analysis:
    """How a phase-1 answer is taken (usage and the call left empty), or ``UnusableAnalysis``.

    ``[SKIP]`` means "nothing in this batch" and is believed only as the whole answer: beside
    findings it contradicts them, and among lines that are not findings it is one guess among junk
    (a small model's echo of the prompt holds it). Findings beside other lines are taken, the other
    lines ignored (``lenient``)."""
    raw = text or ""
    if not raw.strip():
        # An empty answer is a model fault, not "nothing worth keeping" (that is [SKIP]): fail the
        # attempt so the batch is retried instead of the cursor skipping it unread.
        raise UnusableAnalysis("empty reply to the analysis (expected finding lines or [SKIP])")
    notes: list[str] = []
    body = unwrap_fence(raw.strip())
    if body is not None:
        notes.append("the reply was wrapped in a code fence")
    lines = _read(body if body is not None else raw)
    findings = lines.findings
    if lines.skips and not findings:
        if lines.ignored:
            raise UnusableAnalysis(
                f"[SKIP] among {lines.ignored} line(s) that are not findings "
                f"(starting {raw.strip()[:60]!r}): not a whole-reply [SKIP]"
            )
        return Analysis(
            (), Usage(), raw, 0, "repaired" if notes else "trusted", "; ".join(notes), True
        )
    if lines.skip_kind and findings:
        raise UnusableAnalysis(
            f"[SKIP] mixed with {len(findings)} finding(s): the answer contradicts itself"
        )
    if not findings:
        # Not "nothing worth keeping" (that is [SKIP]): the model did not do the task, so the batch
        # must not be consumed as if it had been read.
        raise UnusableAnalysis(
            f"the analysis has no finding lines and no [SKIP] "
            f"({lines.ignored} other line(s), starting {raw.strip()[:60]!r})"
        )
    verdict = "repaired" if notes else "trusted"
    if lines.ignored or lines.skips:
        verdict = "lenient"
        notes.append(f"{lines.ignored + lines.skips} line(s) that are not findings ignored")
    long = sum(len(f.text) > MAX_FINDING_CHARS for f in findings)
    if long:
        notes.append(f"{long} finding(s) longer than {MAX_FINDING_CHARS} characters cut")
        findings = [Finding(f.kind, f.text[:MAX_FINDING_CHARS]) for f in findings]
        verdict = "lenient" if verdict == "lenient" else "repaired"
    if len(findings) > MAX_FINDINGS:
        notes.append(f"kept the first {MAX_FINDINGS} of {len(findings)} findings")
        findings = findings[:MAX_FINDINGS]
        verdict = "lenient" if verdict == "lenient" else "repaired"
    return Analysis(tuple(findings), Usage(), raw, lines.ignored, verdict, "; ".join(notes))


async def analyze(
    client: ModelClient,
    budget: Budget,
    *,
    model: str,
    system: str,
    user: str,
    max_tokens: int | None = None,
) -> Analysis:
    """Run phase 1; raises ``UnusableAnalysis``, ``ModelError`` (``ContextWindowError`` among them)
    or ``BudgetExceeded``."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    response = await budgeted_call(client, budget, messages, model=model, max_tokens=max_tokens)
    try:
        analysis = judge(response.content or "")
    except UnusableAnalysis as exc:
        why = _empty_because(response) if not (response.content or "").strip() else str(exc)
        raise UnusableAnalysis(f"{model}: {why}", response=response, messages=messages) from None
    if analysis.note:
        log.warning("dream analysis (%s): %s", analysis.verdict, analysis.note)
    return replace(analysis, usage=response.usage, response=response, messages=tuple(messages))


def _empty_because(response: ModelResponse) -> str:
    """Why an answer came back empty, in the words that tell the person what to change."""
    if response.tool_calls:
        names = ", ".join(sorted({call.name for call in response.tool_calls}))
        return f"the model called a tool ({names}) instead of writing the analysis (no text)"
    if response.reasoning:
        cut = " and was cut at max_tokens" if response.finish_reason == "length" else ""
        return (
            f"the reply holds only the model's reasoning ({len(response.reasoning):,} characters)"
            f"{cut}, no answer: raise agents.defaults.maxTokens or turn the model's thinking off"
        )
    return "empty reply to the analysis (expected finding lines or [SKIP])"
