"""One summary call: a slice of conversation in, fact lines (or ``(nothing)``) out — or a reason it
failed.

The request follows the prompt protocol (``reverie.llm.protocol``): the system prompt is the
``archive`` task's (``prompts/archive.md``, package data, overridable per workspace: the task keeps
the name nanobot gave it), the user message holds ``SECTION_CONTEXT`` (the messages just before the
slice, for understanding only) and ``SECTION_ARCHIVE`` (the slice), as transcript lines with
untrusted speakers labelled. The reply is accepted only as fact lines ``- [mark] fact`` or
``(nothing)``; anything else — an exception, ``finish_reason`` error/length, empty text, tool calls,
no fact line at all — is a failure the caller answers with a raw archive, so model garbage never
reaches history.jsonl.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ModelError
from ..llm import protocol
from ..llm.client import ModelClient, log_model_failure
from ..llm.prompts import load_prompt
from ..llm.types import Usage
from ..workspace import Workspace
from .transcript import render_transcript

log = logging.getLogger(__name__)

__all__ = ["SummaryReply", "request_messages", "interpret", "summarise", "CONTEXT_MESSAGES"]

#: How many messages before a slice are shown as context.
CONTEXT_MESSAGES = 8
_FAILED_FINISH = {"error", "length", "content_filter"}
_MAX_REPLY_TOKENS = 4_096


@dataclass(frozen=True, slots=True)
class SummaryReply:
    """``facts`` is the history entry to append (None for ``(nothing)``) unless ``failure`` says why
    not; ``unsure``: the model said ``(unsure)``, so the slice's transcript is kept in history as
    well."""

    facts: str | None = None
    failure: str | None = None
    unsure: bool = False
    usage: Usage = field(default_factory=Usage)

    @property
    def ok(self) -> bool:
        return self.failure is None


def request_messages(
    workspace: Workspace,
    context: Sequence[Mapping[str, Any]],
    archive: Sequence[Mapping[str, Any]],
    *,
    fallback_stamp: str,
    owner: str | None = None,
    context_chars: int = 8_000,
) -> list[dict[str, str]]:
    """The summary call's messages: system prompt, then the two protocol sections (the context keeps
    its most recent lines within ``context_chars``, so a small context window is not overrun by mere
    context)."""
    lines = render_transcript(
        context, fallback_stamp=fallback_stamp, owner=owner, limit=1_000
    ).splitlines()
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) + 1 > context_chars:
            break
        kept.append(line)
        used += len(line) + 1
    body = protocol.render_sections(
        [
            (protocol.SECTION_CONTEXT, "\n".join(reversed(kept)) or protocol.NOTHING),
            (
                protocol.SECTION_ARCHIVE,
                render_transcript(archive, fallback_stamp=fallback_stamp, owner=owner),
            ),
        ]
    )
    return [
        {"role": "system", "content": load_prompt(protocol.TASK_ARCHIVE, workspace)},
        {"role": "user", "content": body},
    ]


def interpret(content: str | None, finish_reason: str, has_tool_calls: bool) -> SummaryReply:
    """The reply's fact lines, ``(nothing)`` and ``(unsure)``, or why the reply is unusable."""
    if has_tool_calls:
        return SummaryReply(failure="the model called tools instead of answering")
    if finish_reason in _FAILED_FINISH:
        return SummaryReply(failure=f"finish_reason {finish_reason}")
    text = (content or "").strip()
    if not text:
        return SummaryReply(failure="empty reply")
    facts: list[str] = []
    skipped = 0
    nothing = unsure = False
    for line in text.splitlines():
        parsed = protocol.parse_fact_line(line)
        if parsed is None:
            word = line.strip().rstrip(".").lower()
            nothing = nothing or word == protocol.NOTHING
            unsure = unsure or word == protocol.UNSURE
            continue
        mark, fact = parsed
        if mark == "skip":
            skipped += 1
            continue
        facts.append(f"- [{mark}] {' '.join(fact.split())}")
    if facts or nothing or skipped or unsure:
        return SummaryReply(facts="\n".join(facts) or None, unsure=unsure)
    return SummaryReply(failure="no fact lines and no (nothing) in the reply")


async def summarise(
    client: ModelClient,
    workspace: Workspace,
    context: Sequence[Mapping[str, Any]],
    archive: Sequence[Mapping[str, Any]],
    *,
    fallback_stamp: str,
    owner: str | None = None,
    model: str | None = None,
    context_chars: int = 8_000,
    max_tokens: int = _MAX_REPLY_TOKENS,
) -> SummaryReply:
    """Ask the model for the slice's fact lines; never raises for a model failure (it is reported instead)."""
    messages = request_messages(
        workspace,
        context,
        archive,
        fallback_stamp=fallback_stamp,
        owner=owner,
        context_chars=context_chars,
    )
    try:
        reply = await client.complete(messages, model=model, max_tokens=max_tokens)
    except (
        ModelError
    ) as exc:  # the client turns every provider failure into ModelError after its retries
        log_model_failure(log, "summary call failed", exc)
        return SummaryReply(failure=f"model error: {exc}")
    answer = interpret(reply.content, reply.finish_reason, bool(reply.tool_calls))
    if answer.failure:
        log.warning("archive reply rejected: %s", answer.failure)
    return replace(answer, usage=reply.usage)
