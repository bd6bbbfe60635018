"""Dated memory files: the session-end summary (``/new``) and the pre-compaction flush. This
docstring is their spec.

``memory/YYYY-MM-DD-<slug>.md`` — one per ended session (at least
``memory.sessionFiles.minUserMessages`` user messages, default 3). The model names ``<slug>``
(kebab-case, ≤ 40 characters) and writes the summary through a forced ``save_summary`` tool call.
The summary must be prose that is not the task's instructions read back (see
``reverie.llm.output``); otherwise, or when the model cannot be reached, a raw excerpt is written
instead and labelled with the truth. Layout::

    # <Title>

    - Session: `<key>`
    - Time: <first message> – <last message>
    - Written: <now>[ (raw excerpt: the model was unavailable | the model answered without a usable
    summary)]

    ## Summary
    <summary>

    ## Key messages
    - [YYYY-MM-DD HH:MM] USER: <excerpt>

Created atomically and never overwritten: the bytes go to a temp file (fsync) that is then
hard-linked to the first free name (``-2``, ``-3`` … on a clash), so two writers never clobber each
other and a crash leaves no partial file.

``memory/YYYY-MM-DD.md`` — the day's flushed facts, one ``- fact`` bullet per line under a ``#
YYYY-MM-DD`` header. Append-only: each flush is one ``O_APPEND`` write + fsync under a lock, after
repairing a missing final newline; facts already in that day's file (compared case- and
punctuation-insensitively) are not written again; a line that is not a short sentence of words
(code, braces, the prompt read back) is dropped with a warning. A flush happens at most once per
session per compaction cycle (``memory/.reverie/flush.json`` maps session key → the session's
``last_consolidated`` at its last flush; it is written after the append, so a crash in between only
repeats a flush whose facts the dedup then drops).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import orjson

from ..errors import ContextWindowError, ModelError, ReverieError
from ..llm import protocol
from ..llm.client import ModelClient, log_model_failure
from ..llm.output import echo_of, fact_problem, prose_problem, unwrap_fence
from ..llm.prompts import load_prompt
from ..llm.replylog import Verdict, keep_reply
from ..llm.tools import function_schema
from ..llm.transcript import render_line, speaker, stamp_of
from ..llm.types import ModelResponse
from ..llm.window import ContextWindows, reply_tokens, room
from ..recall.rank import STOPWORDS
from ..storage.fsutil import (
    atomic_write,
    fsync_dir,
    open_regular,
    read_text_lossy,
    write_all,
)
from ..storage.locking import Lock, lock_path
from ..storage.sessions import Session, content_text
from ..storage.workspace import Workspace
from ..text.memline import bullet_text, strip_bullet

if TYPE_CHECKING:
    from ..storage.config import Config

log = logging.getLogger(__name__)

__all__ = [
    "SAVE_SUMMARY_TOOL",
    "SILENT",
    "SessionFileResult",
    "FlushResult",
    "write_session_file",
    "flush_due",
    "maybe_flush",
    "slugify",
    "consolidator_hooks",
    "judge_flush",
    "FlushAnswer",
]

SILENT = "[silent]"
MAX_SLUG = 40
MAX_TRANSCRIPT_CHARS = 60_000
EXCERPT_CHARS = 280
MAX_EXCERPTS = 8


def save_summary(slug: str, summary: str) -> None:
    """Save the summary of the conversation as a dated memory file.

    Args:
        slug: kebab-case topic name, at most 40 characters
        summary: what was discussed, decided and left open
    """


#: The forced tool call of the session-summary task.
SAVE_SUMMARY_TOOL: dict[str, Any] = function_schema(save_summary)
_FORCE_SUMMARY = {"type": "function", "function": {"name": "save_summary"}}


#: The label of a raw excerpt, by why there is no summary.
UNAVAILABLE = "the model was unavailable"
UNUSABLE = "the model answered without a usable summary"


@dataclass(frozen=True)
class SessionFileResult:
    """``status``: ``written`` (model summary), ``raw`` (no usable summary: raw excerpt; ``reason``
    says why), ``skipped`` (too short/off)."""

    status: str
    path: str | None = None
    slug: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class FlushResult:
    """``status``: ``flushed``, ``silent`` (the model said so), ``no-facts`` (an unusable answer),
    ``not-due``, ``already-flushed``, ``disabled`` or ``failed`` (model error; not recorded, so the
    next turn retries)."""

    status: str
    path: str | None = None
    added: list[str] = field(default_factory=list)
    duplicates: int = 0
    reason: str = ""


def slugify(text: str, limit: int = MAX_SLUG) -> str:
    """kebab-case ASCII, at most ``limit`` characters, cut at a word boundary; ``""`` when nothing
    is left."""
    words = re.findall(r"[a-z0-9]+", (text or "").lower())
    slug = ""
    for w in words:
        candidate = f"{slug}-{w}" if slug else w
        if len(candidate) > limit:
            break
        slug = candidate
    return slug or ("-".join(words)[:limit].strip("-") if words else "")


def transcript(messages: Sequence[Mapping[str, Any]], limit: int = MAX_TRANSCRIPT_CHARS) -> str:
    """Transcript lines (``reverie.llm.transcript``) for the messages with text; the newest
    ``limit`` characters when too long."""
    lines = [
        render_line(m, fallback_stamp="", limit=limit)
        for m in messages
        if isinstance(m, Mapping) and content_text(m.get("content")).strip()
    ]
    out: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > limit and out:
            break
        out.append(line)
    return "\n".join(reversed(out))


def _request(
    task: str,
    workspace: Workspace,
    messages: Sequence[Mapping[str, Any]],
    today: str,
    limit: int = MAX_TRANSCRIPT_CHARS,
) -> list[dict[str, str]]:
    body = protocol.render_sections(
        [(protocol.SECTION_TODAY, today), (protocol.SECTION_ARCHIVE, transcript(messages, limit))]
    )
    return [
        {"role": "system", "content": load_prompt(task, workspace)},
        {"role": "user", "content": body},
    ]


class _RecentOutage(Exception):
    """Internal: the model was unavailable a moment ago; it is not called again yet."""


#: Seconds after an outage of the model during which a summary or a flush does not call it again
#: (the session file gets its labelled raw excerpt; the flush is tried again on a later turn).
OUTAGE_SECONDS = 60.0
#: Characters per token assumed when a transcript is cut to a model's window (errs short).
_CHARS_PER_TOKEN = 3
_FIT_TRIES = 4


async def _fitted_call(
    task: str,
    workspace: Workspace,
    client: ModelClient,
    messages: Sequence[Mapping[str, Any]],
    today: str,
    *,
    config: Config,
    model: str | None,
    **kw: Any,
) -> tuple[ModelResponse, list[dict[str, str]]]:
    """One call of ``task`` over the transcript of ``messages``, cut to the model's context window
    (``reverie.llm.window``); an over-window answer teaches the window and the newest, shorter part
    of the transcript is sent again. Returns the reply and the request. Raises ``ModelError``."""
    name = model or config.model
    windows = ContextWindows(config, workspace.state_dir)
    max_out = reply_tokens(windows.of(name), _limit(task, config))
    limit = min(MAX_TRANSCRIPT_CHARS, room(windows.of(name), max_out) * _CHARS_PER_TOKEN)
    for tries in range(_FIT_TRIES):
        request = _request(task, workspace, messages, today, max(1_000, limit))
        try:
            return await client.complete(request, model=model, max_tokens=max_out, **kw), request
        except ContextWindowError as exc:
            window = windows.learn(name, exc.limit, exc.requested, str(exc))
            if tries + 1 == _FIT_TRIES or limit <= 1_000:
                raise
            limit = min(limit // 2, room(window or 1, max_out) * _CHARS_PER_TOKEN)
    raise AssertionError("unreachable")  # pragma: no cover


def _keep(
    workspace: Workspace,
    task: str,
    key: str,
    verdict: Verdict,
    reason: str,
    request: Sequence[Mapping[str, Any]],
    response: ModelResponse,
    model: str,
) -> None:
    keep_reply(
        workspace.state_dir,
        task=task,
        model=model,
        verdict=verdict,
        reason=reason,
        messages=request,
        response=response,
        ref={"session": key},
    )


# -- session-end memory files ----------------------------------------------------------------------
#: ``commit(message, {path: new content}, {path: content it was computed from})``: GitStore's commit
#: (kind ``recall``), which writes the file itself after the ref update (its crash-safe order), so
#: the dated file and its commit never disagree; the base is the writers' protocol (another writer's
#: change meanwhile is merged, not lost).
Commit = Callable[[str, dict[str, str], dict[str, str]], object]


async def write_session_file(
    workspace: Workspace,
    client: ModelClient,
    key: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    config: Config | None = None,
    now: datetime | None = None,
    model: str | None = None,
    commit: Commit | None = None,
) -> SessionFileResult:
    """Summarise an ending session into ``memory/YYYY-MM-DD-<slug>.md`` (see the module docstring).

    ``client`` is a ``ModelClient``; ``messages`` are the session's messages (nanobot format). Never
    raises for a model failure: the raw excerpt is written instead. With ``commit``, the file is
    written through it.
    """
    settings = (config or client.config).memory.session_files
    now = now or datetime.now()
    users = [
        m
        for m in messages
        if isinstance(m, Mapping)
        and m.get("role") == "user"
        and content_text(m.get("content")).strip()
    ]
    if not settings.enabled:
        return SessionFileResult(
            "skipped", reason="session files are off (memory.sessionFiles.enabled)"
        )
    if len(users) < settings.min_user_messages:
        return SessionFileResult(
            "skipped",
            reason=f"{len(users)} user message(s), fewer than {settings.min_user_messages}",
        )
    cfg = config or client.config
    slug, summary, raw_reason, label = await _summarised(
        workspace, client, key, messages, cfg, now, model
    )
    if summary is None:
        if label == UNUSABLE:  # an outage was already reported (once) above
            log.warning("session %s: %s; writing a raw excerpt instead", key, raw_reason)
        slug = _raw_slug(content_text(users[0].get("content")))
    assert slug is not None
    text = _render_session_file(key, messages, slug, summary, now, label)
    stem = f"{now:%Y-%m-%d}-{slug}"
    if commit is not None:
        path = _free_name(workspace, stem)
        commit(f"recall: session file for {key}", {path: text}, {path: ""})
    else:
        path = _create_exclusive(workspace, stem, text)
    return SessionFileResult("written" if summary is not None else "raw", path, slug, raw_reason)


async def _summarised(
    workspace: Workspace,
    client: ModelClient,
    key: str,
    messages: Sequence[Mapping[str, Any]],
    cfg: Config,
    now: datetime,
    model: str | None,
) -> tuple[str | None, str | None, str, str]:
    """The model's (slug, summary) for the session, or (None, None, why not, the raw excerpt's
    label); a refused or repaired reply is kept as evidence."""
    slug, summary, raw_reason, label = None, None, "", UNUSABLE
    system = load_prompt(protocol.TASK_SESSION_SUMMARY, workspace)
    task = protocol.TASK_SESSION_SUMMARY
    try:
        if client.unavailable_within(model, OUTAGE_SECONDS):
            # The consolidation just met the provider down or silent (and said so): the excerpt
            # now, not another wait.
            raise _RecentOutage()
        resp, request = await _fitted_call(
            task,
            workspace,
            client,
            messages,
            f"{now:%Y-%m-%d}",
            config=cfg,
            model=model,
            tools=[SAVE_SUMMARY_TOOL],
            tool_choice=_FORCE_SUMMARY,
        )
        args = next(
            (c.arguments for c in resp.tool_calls if c.name == "save_summary" and c.arguments), None
        )
        given = args.get("summary") if args is not None else None
        if args is not None and isinstance(given, str) and given.strip():
            candidate = given.strip()
            problem = _summary_problem(candidate, system)
            if problem is None:
                summary = candidate
                slug = _usable_slug(str(args.get("slug") or ""), system)
                if not slug:
                    slug = slugify(summary)
                    _keep(
                        workspace,
                        task,
                        key,
                        "repaired",
                        "the slug was the schema's wording or empty; made from the summary",
                        request,
                        resp,
                        model or cfg.model,
                    )
            else:
                raw_reason = f"the summary was rejected: {problem}"
        else:
            raw_reason = "the model did not call save_summary with a summary"
        if summary is None:
            _keep(workspace, task, key, "refused", raw_reason, request, resp, model or cfg.model)
    except _RecentOutage:
        raw_reason, label = "the model was unavailable a moment ago", UNAVAILABLE
        log.info("session %s: the model was unavailable a moment ago; a raw excerpt", key)
    except ModelError as exc:
        raw_reason, label = f"model failed: {exc}", UNAVAILABLE
        log_model_failure(log, f"session {key}: no summary, writing a raw excerpt instead", exc)
    return slug, summary, raw_reason, label


def _raw_slug(first: str) -> str:
    """A raw excerpt's file name, from the first user message's words (stopwords left out)."""
    return (
        slugify(" ".join(w for w in first.split() if w.lower() not in STOPWORDS))
        or slugify(first)
        or "session"
    )


def _summary_problem(summary: str, system: str) -> str | None:
    """Why a ``save_summary`` argument cannot be the file's summary, or None."""
    problem = prose_problem(summary)
    if problem:
        return problem
    echo = echo_of(summary, [system, _schema_text()])
    return f"it repeats the instructions ({echo!r})" if echo else None


def _usable_slug(raw: str, system: str) -> str:
    """The model's slug, unless it is the schema's own wording (``kebab-case-topic-name…``) or
    empty."""
    slug = slugify(raw)
    words = slug.replace("-", " ")
    if not slug or echo_of(words, [system, _schema_text()], n=3) or "kebab" in words:
        return ""
    return slug


def _schema_text() -> str:
    props = SAVE_SUMMARY_TOOL["function"]["parameters"]["properties"]
    return " ".join(
        [SAVE_SUMMARY_TOOL["function"]["description"], *(p["description"] for p in props.values())]
    )


def _render_session_file(
    key: str,
    messages: Sequence[Mapping[str, Any]],
    slug: str,
    summary: str | None,
    now: datetime,
    label: str = UNAVAILABLE,
) -> str:
    stamps = [s for s in (stamp_of(m, "") for m in messages if isinstance(m, Mapping)) if s]
    span = f"{stamps[0]} – {stamps[-1]}" if stamps else "unknown"
    note = "" if summary is not None else f" (raw excerpt: {label})"
    lines = [
        f"# {slug.replace('-', ' ').capitalize()}",
        "",
        f"- Session: `{key}`",
        f"- Time: {span}",
        f"- Written: {now:%Y-%m-%d %H:%M}{note}",
        "",
        "## Summary",
        "",
    ]
    if summary is not None:
        # A summary line starting '#' must not open a heading of its own.
        lines += [re.sub(r"^(\s*#)", r"\\\1", ln) for ln in summary.splitlines()]
    else:
        lines.append("No summary: the key messages below are the record.")
    lines += ["", "## Key messages", ""]
    for m in _key_messages(messages):
        body = " ".join(content_text(m.get("content")).split())
        body = body if len(body) <= EXCERPT_CHARS else body[: EXCERPT_CHARS - 1] + "…"
        lines.append("- " + protocol.transcript_line(stamp_of(m, ""), speaker(m), body))
    return "\n".join(lines).rstrip() + "\n"


def _key_messages(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The user's messages (they carry the intent), the longest first when there are many, kept in
    order; plus the last assistant reply (where the conversation ended)."""
    said = [
        (i, m)
        for i, m in enumerate(messages)
        if isinstance(m, Mapping)
        and m.get("role") in ("user", "assistant")
        and content_text(m.get("content")).strip()
    ]
    users = [(i, m) for i, m in said if m.get("role") == "user"]
    chosen = sorted(users, key=lambda p: -len(content_text(p[1].get("content"))))[
        : MAX_EXCERPTS - 1
    ]
    last_reply = next(((i, m) for i, m in reversed(said) if m.get("role") == "assistant"), None)
    if last_reply is not None:
        chosen.append(last_reply)
    return [m for _, m in sorted(chosen, key=lambda p: p[0])]


def _free_name(workspace: Workspace, stem: str) -> str:
    for n in range(1, 1000):
        rel = f"memory/{stem}.md" if n == 1 else f"memory/{stem}-{n}.md"
        if not workspace.resolve(rel).exists():
            return rel
    raise FileExistsError(f"no free name for memory/{stem}.md")


def _create_exclusive(workspace: Workspace, stem: str, text: str) -> str:
    """Write ``memory/<stem>.md`` (or ``<stem>-2.md`` …) without ever replacing an existing file."""
    memory_dir = workspace.memory_dir
    memory_dir.mkdir(parents=True, exist_ok=True)
    tmp = memory_dir / f".{stem}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    fd = open_regular(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        write_all(fd, text.encode("utf-8", "replace"))  # a short write would link a cut file
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        for n in range(1, 1000):
            rel = f"memory/{stem}.md" if n == 1 else f"memory/{stem}-{n}.md"
            target = workspace.resolve(rel)
            try:
                os.link(tmp, target)  # fails if the name exists: create-if-absent, atomically
            except FileExistsError:
                continue
            fsync_dir(memory_dir)
            return rel
        raise FileExistsError(f"no free name for memory/{stem}.md")
    finally:
        tmp.unlink(missing_ok=True)


# -- pre-compaction flush --------------------------------------------------------------------------
def _flush_lock(workspace: Workspace) -> Lock:
    """``memory/.reverie/flush.lock``: held while ``flush.json`` is read, or the day's file and it
    are written."""
    return Lock(lock_path(workspace.state_dir / "flush"), timeout=30)


def flush_due(estimated_tokens: int, trigger_tokens: int, config: Config) -> bool:
    """True when the prompt estimate is within ``memory.flush.thresholdTokens`` of the consolidation
    trigger."""
    f = config.memory.flush
    return f.enabled and estimated_tokens >= trigger_tokens - f.threshold_tokens


async def maybe_flush(
    workspace: Workspace,
    client: ModelClient,
    key: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    estimated_tokens: int,
    trigger_tokens: int,
    cycle: int,
    config: Config | None = None,
    now: datetime | None = None,
    model: str | None = None,
    commit: Commit | None = None,
) -> FlushResult:
    """Before compaction, save the session's durable facts to ``memory/YYYY-MM-DD.md`` — once per
    ``cycle``.

    Call it on every turn with the session's prompt estimate and the consolidation trigger;
    ``cycle`` is the session's ``last_consolidated`` (it moves when a compaction happens, opening a
    new cycle). A model failure is returned as ``failed`` (not recorded, so the next turn tries
    again), never raised. With ``commit``, the day's file is extended through it (a whole-file
    atomic write after the commit) instead of an ``O_APPEND`` write.
    """
    config = config or client.config
    if not config.memory.flush.enabled:
        return FlushResult("disabled")
    if not flush_due(estimated_tokens, trigger_tokens, config):
        return FlushResult("not-due")
    state_path = workspace.state_dir / "flush.json"
    workspace.state_dir.mkdir(parents=True, exist_ok=True)
    with _flush_lock(workspace):
        state = _read_state(state_path)
        if state.get(key) == cycle:
            return FlushResult("already-flushed")
    now = now or datetime.now()
    day = f"{now:%Y-%m-%d}"
    task = protocol.TASK_FLUSH
    try:
        if client.unavailable_within(model, OUTAGE_SECONDS):
            log.info("flush of session %s: the model was unavailable a moment ago; later", key)
            return FlushResult("failed", reason="the model was unavailable a moment ago")
        resp, request = await _fitted_call(
            task, workspace, client, messages, day, config=config, model=model
        )
    except ModelError as exc:
        log_model_failure(log, f"flush of session {key} failed", exc)
        return FlushResult("failed", reason=str(exc))
    judged = judge_flush(
        resp.content,
        load_prompt(task, workspace),
        key,
        cut=resp.finish_reason == "length",
    )
    silent, facts = judged.silent, judged.facts
    if judged.verdict != "trusted":
        _keep(
            workspace, task, key, judged.verdict, judged.note, request, resp, model or config.model
        )
    if not silent and not facts:
        log.warning(
            "flush of session %s: the answer had no usable '- fact' line and was not %s alone; "
            "nothing saved (%s)",
            key,
            SILENT,
            judged.note,
        )
    rel = f"memory/{day}.md"
    added: list[str] = []
    duplicates = 0
    with _flush_lock(workspace):
        if facts:
            added, duplicates = _append_facts(workspace, rel, day, facts, commit, key)
        state = _read_state(state_path)
        state[key] = cycle
        atomic_write(
            state_path, orjson.dumps(state, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        )
    if not facts:
        return FlushResult("silent" if silent else "no-facts")
    return FlushResult("flushed", rel, added, duplicates)


@dataclass(frozen=True)
class FlushAnswer:
    """How a flush answer is taken: ``silent`` (a whole-reply ``[silent]``), the usable ``facts``,
    and ``verdict`` (trusted, repaired, lenient, refused) with ``note`` saying why."""

    silent: bool
    facts: list[str]
    verdict: Verdict | Literal["trusted"]
    note: str = ""


def judge_flush(
    content: str | None, system: str = "", key: str = "", *, cut: bool = False
) -> FlushAnswer:
    """A flush answer's facts: ``[silent]`` is believed only as the whole answer; ``- fact`` lines
    are taken, code, braces and the prompt read back dropped (``lenient``); the last line of an
    answer cut at its token limit is dropped (``repaired``); an answer with no usable line, or
    ``[silent]`` beside other lines, is refused (nothing saved)."""
    answer = (content or "").strip()
    notes: list[str] = []
    unwrapped = unwrap_fence(answer)
    if unwrapped is not None:
        answer = unwrapped.strip()
        notes.append("the reply was wrapped in a code fence")
    lines = [ln for ln in answer.splitlines() if ln.strip()]
    silent_lines = [ln for ln in lines if _is_silent(ln)]
    if silent_lines and len(lines) == 1:
        return FlushAnswer(True, [], "repaired" if notes else "trusted", "; ".join(notes))
    if silent_lines:
        why = f"{SILENT} mixed with {len(lines) - len(silent_lines)} other line(s)"
        return FlushAnswer(False, [], "refused", why)
    facts = _facts(answer, system, key, cut=cut)
    if not facts:
        why = "no usable '- fact' line" if answer else "empty reply"
        return FlushAnswer(False, [], "refused", "; ".join([*notes, why]))
    if cut:
        notes.append("cut at the token limit: its last line dropped")
    other = len(lines) - len(facts) - (1 if cut and lines else 0)
    if other > 0:
        notes.append(f"{other} line(s) that are not usable facts ignored")
        return FlushAnswer(False, facts, "lenient", "; ".join(notes))
    return FlushAnswer(False, facts, "repaired" if notes else "trusted", "; ".join(notes))


def _is_silent(line: str) -> bool:
    return strip_bullet(line).rstrip(".").strip().lower() == SILENT


def _facts(answer: str, system: str = "", key: str = "", *, cut: bool = False) -> list[str]:
    """The usable ``- fact`` lines of a flush answer; with ``cut`` (the reply hit its token limit)
    the last line, likely cut mid-sentence, is dropped."""
    lines = answer.splitlines()
    if cut and lines:
        lines = lines[:-1]
    facts = []
    dropped: list[tuple[str, str]] = []
    for line in lines:
        said = bullet_text(line)
        if said and said.lower() != SILENT:
            fact = " ".join(said.split())
            problem = fact_problem(fact, [system] if system else [])
            if problem:
                dropped.append((problem, fact))
                continue
            facts.append(fact)
    if dropped:  # one line in the log, however many a runaway reply held
        problem, fact = dropped[0]
        more = f" and {len(dropped) - 1:,} more" if len(dropped) > 1 else ""
        log.warning("flush of session %s: dropped a line (%s): %.80r%s", key, problem, fact, more)
    return facts


def _limit(task: str, config: Config) -> int:
    return protocol.max_output_tokens(task, config.defaults.max_tokens)


def _norm(fact: str) -> str:
    return " ".join(re.findall(r"\w+", fact.lower()))


def _append_facts(
    workspace: Workspace,
    rel: str,
    day: str,
    facts: list[str],
    commit: Commit | None = None,
    key: str = "",
) -> tuple[list[str], int]:
    """Append the facts not already in the day's file (caller holds the flush lock). One write,
    fsynced."""
    path: Path = workspace.resolve(rel)
    existing = read_text_lossy(path)
    seen = {_norm(said) for line in existing.splitlines() if (said := bullet_text(line))}
    new: list[str] = []
    for fact in facts:
        n = _norm(fact)
        if n and n not in seen:
            seen.add(n)
            new.append(fact)
    if not new:
        return [], len(facts)
    prefix = ""
    if not existing:
        prefix = f"# {day}\n\n"
    elif not existing.endswith("\n"):
        prefix = "\n"  # repair a torn or hand-edited tail so the next bullet starts on its own line
    addition = prefix + "".join(f"- {f}\n" for f in new)
    if commit is not None:
        commit(
            f"recall: {len(new)} fact(s) flushed from {key} before compaction",
            {rel: existing + addition},
            {rel: existing},
        )
        return new, len(facts) - len(new)
    payload = addition.encode("utf-8", "replace")
    created = not path.exists()
    # never through a symlink swapped in since ``resolve`` checked the path
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        write_all(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    return new, len(facts) - len(new)


def _read_state(path: Path) -> dict[str, int]:
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, orjson.JSONDecodeError):
        log.warning("%s is unreadable; starting a fresh flush record", path)
        return {}
    return (
        {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, int)}
        if isinstance(data, dict)
        else {}
    )


class ConsolidatorHooks(TypedDict):
    """The keyword arguments ``consolidator_hooks`` gives ``Consolidator``."""

    before_compaction: Callable[[Session, int, int], Awaitable[None]]
    at_new_session: Callable[[Session], Awaitable[None]]


def consolidator_hooks(
    workspace: Workspace, client: ModelClient, config: Config, commit: Commit | None = None
) -> ConsolidatorHooks:
    """The ``Consolidator`` hooks that run the flush before compaction and write the session file at
    ``/new``.

    ``commit(message, {path: content}, {path: base})`` versions a written dated file (``Runtime``
    passes GitStore's commit, kind ``recall``), which then writes the file; a conflict with an edit
    made meanwhile writes nothing (the facts stay in history). Neither hook ever fails the turn or
    the ``/new``: a disk, git or model error is logged and the conversation goes on.
    """

    async def before_compaction(session: Session, estimate: int, budget: int) -> None:
        try:
            await maybe_flush(
                workspace,
                client,
                session.key,
                session.messages[session.last_consolidated :],
                estimated_tokens=estimate,
                trigger_tokens=budget,
                cycle=session.last_consolidated,
                config=config,
                commit=commit,
            )
        except (ReverieError, OSError) as exc:
            log.warning("pre-compaction flush of session %s failed: %s", session.key, exc)

    async def at_new_session(session: Session) -> None:
        try:
            await write_session_file(
                workspace, client, session.key, session.messages, config=config, commit=commit
            )
        except (ReverieError, OSError) as exc:
            log.warning("session-end memory file of %s failed: %s", session.key, exc)

    return {"before_compaction": before_compaction, "at_new_session": at_new_session}
