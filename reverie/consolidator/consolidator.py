"""The Consolidator: keeps a session's prompt inside the context window by consolidating its oldest
turns.

Trigger: the estimated prompt (``estimate_tokens``) reaches ``budget = contextWindowTokens −
maxTokens − 1024``. Then the oldest safe slices (``slicing``) are consolidated, one model call each,
until the estimate is at most ``consolidationRatio × budget``, at most ``MAX_ROUNDS`` rounds per
call. Each round, in this order:

1. ask the model for fact lines (``summary.summarise``); on any failure, or a reply that does not
   account for the slice (``summary.interpret``), take the raw transcript instead;
2. append the result to history.jsonl with the session key (``(nothing)`` appends nothing, and is
   believed only of a slice in which the user said nothing; ``(unsure)``, or facts that leave
   something the user said unaccounted for, append the user's and the assistant's messages of the
   slice as well, so what the model did not state as a sure fact is still in history);
3. only then advance ``last_consolidated``: in memory each round, in the session file at the end of
   the call (and between rounds only when the last save is long past: ``_OffsetSaver``; a save
   rewrites the file);
4. keep a reply that was not trusted as it came, with its request and the cursors written for it
   (``reverie.llm.replylog``).

Each entry names the slice it came from (``resume``): a run that ends between 2 and 3 (a signal, a
crash) is resumed by the next one past the slices history holds, so none goes into history twice
(a slice's entries are appended in one write: all of them or none). A raw fallback ends the rounds
of that call (the model is failing; the next call tries again).

Every call is sized to the model's context window (``reverie.llm.window``): the budget above uses
it, and a slice never carries more than half of it. When the provider still answers that the
prompt is over its window, the window it names is learned and kept, and the slice is made smaller
(down to one turn, then each message shown shorter) and sent again; only a slice that cannot be made
to fit goes into history as a raw entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ContextWindowError, HistoryError, LockTimeoutError, SessionError
from ..llm.client import ModelClient
from ..llm.protocol import TASK_ARCHIVE, max_output_tokens
from ..llm.replylog import keep_reply
from ..llm.tokens import estimate_tokens as _estimate_message_tokens
from ..llm.transcript import raw_entries, speaker, transcript_content
from ..llm.types import Usage
from ..llm.window import ContextWindows, reply_tokens
from ..storage.history import format_timestamp
from ..storage.locking import Lock, lock_path
from ..storage.sessions import Session, SessionStore
from ..storage.store import WorkspaceStore
from .estimate import PromptEstimator, model_view
from .resume import SLICE_KEY, resume_offset, slice_marks
from .slicing import pick_slice, safe_ends
from .summary import CONTEXT_MESSAGES, SummaryReply, summarise

if TYPE_CHECKING:
    from ..storage.config import Config

log = logging.getLogger(__name__)

__all__ = ["Consolidator", "ConsolidationResult", "MAX_ROUNDS", "RESERVED_TOKENS"]

MAX_ROUNDS = 5
#: Tokens kept free besides the reply's ``maxTokens`` (framing, the next user message).
RESERVED_TOKENS = 1024
_WRITE_ERRORS = (HistoryError, LockTimeoutError, SessionError, OSError)


@dataclass
class ConsolidationResult:
    """What one Consolidator call did. ``stop`` says why it ended:

    ``below-threshold``, ``target-reached``, ``max-rounds``, ``raw-fallback``, ``no-safe-slice``,
    ``all-archived`` (consolidate_all / new_session; the value keeps its first
    name), ``error`` (a history or session write failed; see
    ``error``).
    """

    session_key: str
    budget: int
    target: int
    estimate_before: int
    estimate_after: int = 0
    rounds: int = 0
    # messages moved into history, per round (the name is a key of `reverie consolidate --json`)
    archived: list[int] = field(default_factory=list)
    cursors: list[int] = field(default_factory=list)  # history cursors written
    offsets: list[int] = field(default_factory=list)  # last_consolidated after each round
    raw_fallbacks: int = 0
    nothing_rounds: int = 0
    kept_raw: int = 0  # rounds whose transcript was kept beside the facts: the model said (unsure)
    failures: list[str] = field(default_factory=list)  # why the model's answer was not used
    kept_replies: list[str] = field(default_factory=list)  # ids of replies kept as evidence
    usage: Usage = field(default_factory=Usage)
    stop: str = "below-threshold"
    error: str | None = None
    cleared: bool = False

    @property
    def consolidated_messages(self) -> int:
        """How many messages this consolidation moved into history."""
        return sum(self.archived)

    @property
    def archived_messages(self) -> int:  # glossary: retired name, kept for callers
        """``consolidated_messages`` by its first name."""
        return self.consolidated_messages


def _conversation_only(
    messages: Sequence[Mapping[str, Any]], owner: str | None
) -> list[Mapping[str, Any]]:
    """The user's and the assistant's messages that hold text: what an ``(unsure)`` slice keeps.
    Tool output and other speakers are untrusted data, not what the user said, and are left out (a
    model failure's raw entry keeps them, labelled)."""
    return [
        m
        for m in messages
        if speaker(m, owner) in ("USER", "ASSISTANT")
        and transcript_content(m.get("content")).strip()
    ]


class Consolidator:
    """Token-pressure consolidation of sessions into history.jsonl, and ``/new``.

    ``tools`` (the agent's tool schemas) and ``extra_system`` (its own system prompt text) make the
    estimate match what the agent really sends; ``sessions`` defaults to the store's workspace's
    session files. ``before_compaction(session, estimate, budget)`` runs on every
    ``maybe_consolidate`` before any consolidation, and ``at_new_session(session)`` at ``/new``
    after the consolidation and before the clear: Recall's pre-compaction flush and session-end
    memory file (``reverie.operations.memfiles.consolidator_hooks``; wired by ``Runtime``).
    """

    def __init__(
        self,
        store: WorkspaceStore,
        client: ModelClient,
        config: Config | None = None,
        *,
        sessions: SessionStore | None = None,
        tools: list[dict[str, Any]] | None = None,
        extra_system: str = "",
        before_compaction: Callable[[Session, int, int], Awaitable[Any]] | None = None,
        at_new_session: Callable[[Session], Awaitable[Any]] | None = None,
    ) -> None:
        self.store = store
        self.client = client
        self.config = config if config is not None else store.config
        self.sessions = sessions if sessions is not None else SessionStore(store.workspace)
        self.tools = tools
        self.extra_system = extra_system
        self.before_compaction = before_compaction
        self.at_new_session = at_new_session
        # per event loop (weakly: a loop that ends takes its locks with it, and a new loop reusing
        # a dead one's id never finds a lock bound to the dead loop), per session key
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]]
        self._locks = weakref.WeakKeyDictionary()
        self._estimator = PromptEstimator(client)
        self.windows = ContextWindows(self.config, store.workspace.state_dir)

    # -- budget ------------------------------------------------------------------------------------
    @property
    def window(self) -> int:
        """The agent's model's context window (``reverie.llm.window``: config, learned, litellm's
        table)."""
        return self.windows.of(self.config.model)

    @property
    def budget(self) -> int:
        """Prompt tokens the agent may use before the oldest turns are consolidated: the window less
        the agent's reply (``maxTokens``, counted for at most half a window it does not fit) and
        ``RESERVED_TOKENS``."""
        window = self.window
        reply = min(self.config.defaults.max_tokens, window // 2)
        return max(1, window - reply - RESERVED_TOKENS)

    @property
    def target(self) -> int:
        return int(self.config.defaults.consolidation_ratio * self.budget)

    def estimate_tokens(self, session: Session) -> int:
        """Prompt tokens the agent would send now: system prompt with memory, messages not yet in
        history, tools."""
        return self._estimator.estimate(
            self.store,
            session,
            tools=self.tools,
            extra_system=self.extra_system,
            model=self.config.model,
        )

    # -- entry points ------------------------------------------------------------------------------
    async def maybe_consolidate(self, session: Session) -> ConsolidationResult:
        """Consolidate the oldest turns if the prompt is over budget. Write failures are logged and
        reported in the result (``stop="error"``), never raised: the agent's turn goes on and the
        next call retries."""
        estimate = self.estimate_tokens(session)
        result = ConsolidationResult(session.key, self.budget, self.target, estimate, estimate)
        if self.before_compaction is not None:
            await self.before_compaction(session, estimate, self.budget)
        if estimate < self.budget:
            return result
        try:
            async with self._exclusive(session, wait=False):
                await self._over_budget(session, result)
        except _Busy:
            # another process is consolidating this session right now; the next turn retries
            result.stop = "busy"
        return result

    async def _over_budget(self, session: Session, result: ConsolidationResult) -> None:
        try:
            await self._rounds(session, result, everything=False)
        except _WRITE_ERRORS as exc:
            log.error("consolidating session %s stopped: %s", session.key, exc)
            result.stop, result.error = "error", str(exc)
        result.estimate_after = self.estimate_tokens(session)

    async def consolidate_all(self, session: Session) -> ConsolidationResult:
        """Move every message not yet in history into it (model first, raw if it fails).

        Raises ``SessionError`` when even the raw entry cannot be written; what went into history
        stays there.
        """
        async with self._exclusive(session, wait=True):
            return await self._consolidate_all_locked(session)

    async def archive_all(self, session: Session) -> ConsolidationResult:
        """``consolidate_all`` by its first name, kept for callers (docs/glossary.md)."""
        return await self.consolidate_all(session)

    async def new_session(self, session: Session) -> ConsolidationResult:
        """``/new``: consolidate everything not yet in history, synchronously, then clear the
        session.

        Order: consolidate (history append, then offset) → clear (atomic rewrite). A crash before
        the clear leaves the session as it was, consolidated again by the next ``/new`` (a
        duplicate, never a loss). If history cannot be written at all, the session is NOT cleared
        and ``SessionError`` says so for the user.
        """
        async with self._exclusive(session, wait=True):
            result = await self._consolidate_all_locked(session)
            if self.at_new_session is not None:
                # never raises; the session still holds every message here
                await self.at_new_session(session)
            try:
                self.sessions.clear(session, consolidated=len(session.messages))
            except (OSError, LockTimeoutError) as exc:
                raise SessionError(
                    "The conversation is in history but could not be "
                    f"cleared ({exc}); it was kept. Try /new again."
                ) from exc
            result.cleared = True
            result.estimate_after = self.estimate_tokens(session)
            return result

    # -- internals ---------------------------------------------------------------------------------
    async def _consolidate_all_locked(self, session: Session) -> ConsolidationResult:
        estimate = self.estimate_tokens(session)
        result = ConsolidationResult(session.key, self.budget, self.target, estimate, estimate)
        try:
            await self._rounds(session, result, everything=True)
        except _WRITE_ERRORS as exc:
            raise SessionError(
                f"Could not move the conversation into history ({exc}); nothing "
                "was cleared. Try again once memory is writable."
            ) from exc
        result.estimate_after = self.estimate_tokens(session)
        return result

    async def _rounds(
        self, session: Session, result: ConsolidationResult, *, everything: bool
    ) -> None:
        # Counted again under the lock: another process may have consolidated part of the session
        # meanwhile.
        estimate = self.estimate_tokens(session) if not everything else result.estimate_before
        tokens_of = _TokenMemo()
        saver = _OffsetSaver(self.sessions, session)
        try:
            await self._round_loop(session, result, everything, estimate, tokens_of, saver)
        finally:
            # on a signal too (asyncio.run cancels the task: this runs): history and the offset
            # agree when the run ends
            saver.flush()

    async def _round_loop(
        self,
        session: Session,
        result: ConsolidationResult,
        everything: bool,
        estimate: int,
        tokens_of: _TokenMemo,
        saver: _OffsetSaver,
    ) -> None:
        while True:
            start = session.last_consolidated
            if everything:
                if start >= len(session.messages):
                    result.stop = "all-archived"
                    return
                end = self._largest_slice(session, start, tokens_of)
            else:
                if estimate <= self.target:
                    result.stop = "target-reached"
                    return
                if result.rounds >= MAX_ROUNDS:
                    result.stop = "max-rounds"
                    return
                picked = pick_slice(
                    session.messages,
                    start,
                    need=estimate - self.target,
                    max_tokens=max(1, self.budget // 2),
                    tokens_of=tokens_of,
                )
                if picked is None:
                    result.stop = "no-safe-slice"
                    return
                end = picked
            entries = len(result.cursors)
            ok = await self._consolidate_slice(session, start, end, result, rest_if_raw=everything)
            if len(result.cursors) == entries:
                saver.flush()  # no entry names this slice: only the offset says it is done
            else:
                saver.maybe_save()
            if not ok and not everything:
                result.stop = "raw-fallback"
                return
            if not everything:
                # Subtract the slice (cheap, proportional to the slice); count exactly only once it
                # looks done, so a round costs O(slice), not O(session) with a real tokenizer.
                estimate -= sum(tokens_of(m) for m in session.messages[start:end])
                if estimate <= self.target:
                    estimate = self.estimate_tokens(session)

    def _largest_slice(
        self, session: Session, start: int, tokens_of: Callable[[Mapping[str, Any]], int]
    ) -> int:
        """For consolidate_all: as many turns as one call may carry (``budget // 2`` tokens), at
        least one."""
        end = pick_slice(
            session.messages,
            start,
            need=sys.maxsize,
            max_tokens=max(1, self.budget // 2),
            tokens_of=tokens_of,
            include_end=True,
        )
        return len(session.messages) if end is None else end

    async def _consolidate_slice(
        self,
        session: Session,
        start: int,
        end: int,
        result: ConsolidationResult,
        *,
        rest_if_raw: bool,
    ) -> bool:
        """Consolidate ``messages[start:end]`` (or a smaller slice from ``start`` when the model's
        window demands it); False when it went into history as a raw entry."""
        messages = session.messages
        owner = (
            session.metadata.get("user_name")
            if isinstance(session.metadata.get("user_name"), str)
            else None
        )
        stamp = format_timestamp()
        reply, end = await self._summarise_fitting(session, start, end, stamp, owner, rest_if_raw)
        result.usage = result.usage + reply.usage
        result.rounds += 1
        contents: list[str] = []
        if reply.ok:
            if reply.facts is None and not reply.unsure:
                result.nothing_rounds += 1
            if reply.facts is not None:
                contents.append(reply.facts)
            if reply.unsure:  # the words themselves stay in history
                contents.extend(
                    raw_entries(
                        _conversation_only(messages[start:end], owner),
                        fallback_stamp=stamp,
                        owner=owner,
                    )
                )
                result.kept_raw += 1
        else:
            result.failures.append(reply.failure or "")
            result.raw_fallbacks += 1
            if rest_if_raw:
                # the model is failing: the rest goes in raw rather than call it again
                end = len(messages)
            contents.extend(raw_entries(messages[start:end], fallback_stamp=stamp, owner=owner))
        # Each entry names its slice (reverie.consolidator.resume): a run that ends before the
        # offset is saved is resumed past it, never consolidated twice.
        # One write for the slice's entries: a signal or a kill leaves all of them or none.
        written = self.store.history.append_many(
            contents,
            session.key,
            extras=[{SLICE_KEY: mark} for mark in slice_marks(messages, start, end, len(contents))],
        )
        result.cursors.extend(written)
        # History first, then the offset (saved by the caller's _OffsetSaver).
        session.last_consolidated = end
        result.archived.append(end - start)
        result.offsets.append(end)
        self._keep(reply, session.key, written, result)
        return reply.ok

    async def _summarise_fitting(
        self,
        session: Session,
        start: int,
        end: int,
        stamp: str,
        owner: str | None,
        everything: bool,
    ) -> tuple[SummaryReply, int]:
        """The summary of ``messages[start:end]``, made smaller until the model's window takes it:
        on an over-window answer the window is learned, then the slice halved (down to one turn),
        then each message shown shorter. Returns the reply and the slice's end."""
        messages = session.messages
        message_chars = 8_000
        context_chars = min(8_000, self.budget // 2)
        for _ in range(8):
            try:
                reply = await summarise(
                    self.client,
                    self.store.workspace,
                    messages[max(0, start - CONTEXT_MESSAGES) : start],
                    messages[start:end],
                    fallback_stamp=stamp,
                    owner=owner,
                    model=self.config.model,
                    # Context ≤ ~budget/8 tokens and a reply ≤ maxTokens: with a slice ≤ budget/2
                    # the call fits the window.
                    context_chars=context_chars,
                    message_chars=message_chars,
                    max_tokens=reply_tokens(
                        self.window,
                        max_output_tokens(TASK_ARCHIVE, self.config.defaults.max_tokens),
                    ),
                )
                return reply, end
            except ContextWindowError as exc:
                window = self.windows.learn(self.config.model, exc.limit, exc.requested, str(exc))
                log.info(
                    "summary call for %s: the prompt was over the model's window (%s tokens now); "
                    "sending less",
                    session.key,
                    window,
                )
                smaller = self._half_slice(messages, start, end, everything)
                if smaller < end:
                    end = smaller
                elif message_chars > 500:
                    message_chars //= 2
                context_chars //= 2
        why = "the slice does not fit the model's context window, even one short message at a time"
        return SummaryReply(failure=why, verdict="refused", note=why), end

    @staticmethod
    def _half_slice(
        messages: Sequence[Mapping[str, Any]], start: int, end: int, everything: bool
    ) -> int:
        """The largest safe end no further than halfway through ``messages[start:end]`` (``end``
        itself when the slice is one turn)."""
        half = start + max(1, (end - start) // 2)
        ends = [e for e in safe_ends(messages, start, include_end=everything) if e <= half]
        return ends[-1] if ends else end

    def _keep(
        self, reply: SummaryReply, key: str, written: list[int], result: ConsolidationResult
    ) -> None:
        """Keep a reply that was not trusted as it came, with what it wrote (``llm.replylog``)."""
        if reply.verdict == "trusted" or (reply.response is None and not reply.request):
            return
        verdict = "refused" if not reply.ok else reply.verdict
        kept = keep_reply(
            self.store.workspace.state_dir,
            task=TASK_ARCHIVE,
            model=self.config.model,
            verdict="lenient" if verdict == "lenient" else verdict,  # type: ignore[arg-type]
            reason=reply.note or reply.failure or "",
            messages=reply.request,
            response=reply.response,
            ref={"session": key, "cursors": written},
        )
        if kept:
            result.kept_replies.append(kept)

    def _resume(self, session: Session) -> None:
        """Advance the offset over the slices an interrupted run put in history without saving
        the offset (``reverie.consolidator.resume``), and save it."""
        if session.path is None or session.last_consolidated >= len(session.messages):
            return
        offset = resume_offset(
            self.store.history,
            session.key,
            session.messages,
            session.last_consolidated,
            session.updated_at,
        )
        if offset > session.last_consolidated:
            log.info(
                "session %s: messages %d..%d were already in history (a run ended before saving "
                "its offset); resuming after them",
                session.key,
                session.last_consolidated,
                offset,
            )
            self.sessions.save_offset(session, offset)

    def _adopt_disk_offset(self, session: Session) -> None:
        """If another process appended, consolidated further or rewrote the file meanwhile, start
        from the file (no double consolidation, no clear of what was never consolidated)."""
        if session.path is None:
            return
        on_disk = self.sessions.load(session.path)
        held = len(session.messages)
        if on_disk is not None and on_disk.messages[:held] != session.messages:
            # another thread or process rewrote the file since this copy was loaded: it cleared it
            # (after putting what it dropped in history) or took its newest message back. The file
            # is the conversation now: consolidating this copy would put a slice in history twice,
            # and clearing as many messages as it holds would drop newer ones never consolidated
            session.messages[:] = on_disk.messages
            session.last_consolidated = on_disk.last_consolidated
            return
        if (
            on_disk is not None
            and len(on_disk.messages) > held
            and on_disk.messages[:held] == session.messages
        ):
            # another thread or process appended since this copy was loaded: the file is the whole
            # conversation (else its offset, past this copy's end, was never adopted: a slice
            # consolidated twice)
            session.messages[held:] = on_disk.messages[held:]
        if on_disk is not None and session.last_consolidated < on_disk.last_consolidated <= len(
            session.messages
        ):
            session.last_consolidated = on_disk.last_consolidated

    @contextlib.asynccontextmanager
    async def _exclusive(self, session: Session, *, wait: bool) -> AsyncIterator[None]:
        """One consolidator per session: across tasks (an asyncio lock per event loop) and across
        processes (``<session file>.consolidate.lock``), so two consolidators never consolidate the
        same slice twice."""
        loop = asyncio.get_running_loop()
        loop_lock = self._locks.setdefault(loop, {}).setdefault(session.key, asyncio.Lock())
        async with loop_lock:
            path = session.path if session.path is not None else self.sessions.path_for(session.key)
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = Lock(lock_path(path, "consolidate"), error=SessionError)
            try:
                await lock.acquire_async(self.sessions.lock_timeout if wait else 0.0)
            except LockTimeoutError:
                if wait:
                    raise SessionError(
                        "Another process is consolidating session "
                        f"{session.key!r}; try again in a moment."
                    ) from None
                raise _Busy() from None
            try:
                self._adopt_disk_offset(session)
                self._resume(session)
                yield
            finally:
                lock.release()


class _OffsetSaver:
    """Saves a session's offset during a run: at its end, and between slices only when the last
    save is long past (``SAVE_EVERY`` seconds, and at least ``SAVE_COST_RATIO`` times what the last
    save took), so a long run of a big session does not rewrite its file per slice. Slices
    consolidated since the last save are found again in history by the next run (``resume``)."""

    SAVE_EVERY = 10.0
    SAVE_COST_RATIO = 20.0

    def __init__(self, sessions: SessionStore, session: Session) -> None:
        self.sessions = sessions
        self.session = session
        self.saved = session.last_consolidated
        self.next_at = time.monotonic() + self.SAVE_EVERY

    def maybe_save(self) -> None:
        if time.monotonic() >= self.next_at:
            self.flush()

    def flush(self) -> None:
        if self.session.last_consolidated == self.saved:
            return
        began = time.monotonic()
        self.sessions.save_offset(self.session, self.session.last_consolidated)
        self.saved = self.session.last_consolidated
        now = time.monotonic()
        self.next_at = now + max(self.SAVE_EVERY, self.SAVE_COST_RATIO * (now - began))


class _Busy(Exception):
    """Internal: another consolidator holds the session."""


class _TokenMemo:
    """Each message's cheap token estimate, computed once per call (slicing and the round's
    bookkeeping share it)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Mapping[str, Any], int]] = {}

    def __call__(self, message: Mapping[str, Any]) -> int:
        hit = self._seen.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1]
        tokens = _estimate_message_tokens([model_view(message)])
        self._seen[id(message)] = (message, tokens)
        return tokens
