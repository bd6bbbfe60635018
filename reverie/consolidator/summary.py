"""One summary call: a slice of conversation in, fact lines (or ``(nothing)``) out — or a reason it
failed.

The request follows the prompt protocol (``reverie.llm.protocol``): the system prompt is the
``archive`` task's (``prompts/archive.md``, package data, overridable per workspace: the task keeps
the name nanobot gave it), the user message holds ``SECTION_CONTEXT`` (the messages just before the
slice, for understanding only) and ``SECTION_ARCHIVE`` (the slice), as transcript lines with
untrusted speakers labelled.

A reply must account for the slice (``interpret``); its verdict is one of:

- *trusted*: fact lines only (optionally ending ``(unsure)``), each sharing a word with the slice,
  together covering every sentence of the user's that says something; or ``(nothing)`` as the whole
  reply for a slice in which the user said nothing (greetings, questions, tool output); or
  ``(nothing)`` / nothing followed by ``(unsure)``.
- *lenient*: usable fact lines beside lines that are not (chatter, an echoed transcript, a fact
  sharing no word with the slice, which is dropped), or facts that leave a sentence of the user's
  unaccounted for, or a reply longer than a history entry holds (read up to there, at a line's end):
  the facts are kept and so are the slice's words (as for ``(unsure)``), so nothing the user said is
  lost. A fact said twice is kept once.
- *refused*: an exception, ``finish_reason`` error/length, empty text, tool calls, no usable fact
  line, ``(nothing)`` mixed with anything but ``(unsure)``, or ``(nothing)`` for a slice in which
  the user said something: the caller puts the slice into history as a raw entry, so model garbage
  never reaches history.jsonl and never costs a message.

A reply wrapped whole in a code fence is unwrapped first (*repaired*). Every reply that is not
trusted is kept with its request (``reverie.llm.replylog``) by the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ContextWindowError, ModelError
from ..llm import protocol
from ..llm.client import ModelClient, log_model_failure
from ..llm.output import content_words, line_problem, said_something, unaccounted, unwrap_fence
from ..llm.prompts import load_prompt
from ..llm.transcript import render_transcript, speaker, transcript_text
from ..llm.types import ModelResponse, Usage
from ..storage.history import DEFAULT_MAX_ENTRY_CHARS
from ..storage.workspace import Workspace
from ..text.memline import strip_bullet

log = logging.getLogger(__name__)

__all__ = ["SummaryReply", "request_messages", "interpret", "summarise", "CONTEXT_MESSAGES"]

#: How many messages before a slice are shown as context.
CONTEXT_MESSAGES = 8
_FAILED_FINISH = {"error", "length", "content_filter"}
_MAX_REPLY_TOKENS = 4_096


@dataclass(frozen=True, slots=True)
class SummaryReply:
    """``facts`` is the history entry to append (None for ``(nothing)``) unless ``failure`` says why
    not; ``unsure``: the slice's words are kept in history as well (the model said ``(unsure)``, or
    its facts did not account for the whole slice). ``verdict`` (trusted, repaired, lenient,
    refused) and ``note`` say how the reply was taken; ``response`` and ``request`` are the call
    itself, for the kept-replies log."""

    facts: str | None = None
    failure: str | None = None
    unsure: bool = False
    usage: Usage = field(default_factory=Usage)
    verdict: str = "trusted"
    note: str = ""
    response: ModelResponse | None = None
    request: tuple[dict[str, str], ...] = ()

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
    message_chars: int = 8_000,
) -> list[dict[str, str]]:
    """The summary call's messages: system prompt, then the two protocol sections (the context keeps
    its most recent lines within ``context_chars``, so a small context window is not overrun by mere
    context; each archived message is shown up to ``message_chars``)."""
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
                render_transcript(
                    archive, fallback_stamp=fallback_stamp, owner=owner, limit=message_chars
                ),
            ),
        ]
    )
    return [
        {"role": "system", "content": load_prompt(protocol.TASK_ARCHIVE, workspace)},
        {"role": "user", "content": body},
    ]


def _marker(line: str) -> str | None:
    """``(nothing)`` or ``(unsure)`` when the line is one (a bullet, case and a full stop aside)."""
    word = strip_bullet(line).rstrip(".").strip().lower()
    return word if word in (protocol.NOTHING, protocol.UNSURE) else None


def interpret(
    content: str | None,
    finish_reason: str,
    has_tool_calls: bool,
    archive: Sequence[Mapping[str, Any]] = (),
    *,
    owner: str | None = None,
    instructions: str = "",
) -> SummaryReply:
    """How the reply to the slice ``archive`` is taken (see the module docstring): its fact lines
    and whether the slice's words are kept too, or why it is refused. ``instructions`` (the system
    prompt) is what a fact may not repeat."""
    if has_tool_calls:
        return _refused("the model called tools instead of answering")
    if finish_reason in _FAILED_FINISH:
        return _refused(f"finish_reason {finish_reason}")
    text = (content or "").strip()
    if not text:
        return _refused("empty reply")
    repaired = unwrap_fence(text)
    notes = []
    if repaired is not None:
        text, notes = repaired.strip(), ["the reply was wrapped in a code fence"]
    whole = len(text)
    if whole > DEFAULT_MAX_ENTRY_CHARS:  # a runaway reply: lines past what an entry holds unread
        end = text.rfind("\n", 0, DEFAULT_MAX_ENTRY_CHARS + 1)
        text = text[:end] if end > 0 else ""  # never a line cut part way
        notes.append(f"only the first {len(text):,} of {whole:,} characters read")
    lines = _sort_lines(text, archive, instructions)
    if whole > len(text):
        lines.other += 1  # the unread rest: not trusted, so the slice's words are kept too
    said = _user_said(archive, owner)
    if protocol.NOTHING in lines.markers:
        return _nothing(lines, said, notes)
    return _facts(lines, said, notes)


@dataclass
class _Lines:
    """A reply's lines by what they are."""

    facts: list[str] = field(default_factory=list)  # "- [mark] fact", usable
    skips: list[str] = field(default_factory=list)  # facts marked skip: accounted for, not kept
    dropped: list[str] = field(default_factory=list)  # unusable facts, each with why
    other: int = 0  # lines that are not fact lines
    markers: set[str] = field(default_factory=set)  # (nothing), (unsure)


def _sort_lines(text: str, archive: Sequence[Mapping[str, Any]], instructions: str) -> _Lines:
    """The reply's lines sorted: a fact that repeats the instructions or shares no word with the
    slice is dropped."""
    lines = _Lines()
    seen: set[tuple[str, str]] = set()
    slice_words = content_words("\n".join(transcript_text(m) for m in archive))
    for line in text.splitlines():
        if not line.strip():
            continue
        marker = _marker(line)
        if marker is not None:
            lines.markers.add(marker)
            continue
        parsed = protocol.parse_fact_line(line)
        if parsed is None:
            lines.other += 1
            continue
        mark, fact = parsed
        fact = " ".join(fact.split())
        if (mark, fact) in seen:
            continue  # the same fact again (a model repeating itself) says nothing more
        seen.add((mark, fact))
        if mark == "skip":
            lines.skips.append(fact)
            continue
        problem = line_problem(fact, [instructions] if instructions else [])
        if problem is None and archive and not content_words(fact) & slice_words:
            problem = "shares no word with the conversation"
        if problem is not None:
            lines.dropped.append(f"{fact[:60]!r} ({problem})")
            continue
        lines.facts.append(f"- [{mark}] {fact}")
    return lines


def _nothing(lines: _Lines, said: list[str], notes: list[str]) -> SummaryReply:
    """A reply that says ``(nothing)``: taken alone (or with ``(unsure)``), and only for a slice in
    which the user said nothing unless it is unsure."""
    if lines.facts or lines.skips or lines.dropped or lines.other:
        mixed = len(lines.facts) + len(lines.skips) + len(lines.dropped) + lines.other
        return _refused(f"'(nothing)' mixed with {mixed} other line(s)")
    unsure = protocol.UNSURE in lines.markers
    if said and not unsure:
        return _refused(
            f"'(nothing)' for a conversation in which the user said something ({said[0][:60]!r})"
        )
    return _taken(None, unsure, notes)


def _facts(lines: _Lines, said: list[str], notes: list[str]) -> SummaryReply:
    """A reply of fact lines: lenient (the slice's words kept too) when lines were ignored or
    dropped or a sentence of the user's is not accounted for."""
    unsure = protocol.UNSURE in lines.markers
    other, dropped = lines.other, lines.dropped
    if not lines.facts and not lines.skips:
        if unsure:
            return _taken(None, True, notes + ([f"{other} other line(s)"] if other else []))
        why = "; ".join(dropped[:3]) if dropped else f"{other} line(s) that are not fact lines"
        return _refused(f"no usable fact line and no (nothing): {why}")
    if other:
        notes.append(f"{other} line(s) that are not fact lines ignored")
    if dropped:
        notes.append(f"{len(dropped)} fact line(s) dropped: " + "; ".join(dropped[:3]))
    missed = unaccounted(said, [*lines.facts, *lines.skips])
    if missed:
        notes.append(
            f"{len(missed)} sentence(s) of the user's not accounted for ({missed[0][:60]!r})"
        )
    lenient = bool(other or dropped or missed)
    return _taken("\n".join(lines.facts) or None, unsure or lenient, notes, lenient=lenient)


def _user_said(archive: Sequence[Mapping[str, Any]], owner: str | None) -> list[str]:
    """The sentences of the user's messages in the slice that say something."""
    return [
        sentence
        for m in archive
        if speaker(m, owner) == "USER"
        for sentence in said_something(transcript_text(m))
    ]


def _refused(why: str) -> SummaryReply:
    return SummaryReply(failure=why, verdict="refused", note=why)


def _taken(
    facts: str | None, unsure: bool, notes: list[str], *, lenient: bool = False
) -> SummaryReply:
    verdict = "lenient" if lenient else "repaired" if notes else "trusted"
    return SummaryReply(facts=facts, unsure=unsure, verdict=verdict, note="; ".join(notes))


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
    message_chars: int = 8_000,
    max_tokens: int = _MAX_REPLY_TOKENS,
) -> SummaryReply:
    """Ask the model for the slice's fact lines; never raises for a model failure (it is reported
    instead), except ``ContextWindowError``: the prompt did not fit, and the caller sends less."""
    messages = request_messages(
        workspace,
        context,
        archive,
        fallback_stamp=fallback_stamp,
        owner=owner,
        context_chars=context_chars,
        message_chars=message_chars,
    )
    try:
        reply = await client.complete(messages, model=model, max_tokens=max_tokens)
    except ContextWindowError:
        raise  # the caller learns the window and sends a smaller slice
    # the client turns every provider failure into ModelError after its retries
    except ModelError as exc:
        log_model_failure(log, "summary call failed", exc)
        return SummaryReply(failure=f"model error: {exc}")
    answer = interpret(
        reply.content,
        reply.finish_reason,
        bool(reply.tool_calls),
        archive,
        owner=owner,
        instructions=messages[0]["content"],
    )
    if answer.failure:
        log.warning("archive reply rejected: %s", answer.failure)
    elif answer.verdict != "trusted":
        log.info("archive reply taken (%s): %s", answer.verdict, answer.note)
    return replace(answer, usage=reply.usage, response=reply, request=tuple(messages))
