"""``Dream``: the one library call that runs the two-phase memory edit (``reverie dream``,
``/dream`` and the scheduler all call ``Dream.run`` and only render its ``DreamResult``).

Sequence of one batch: run lock → reconcile → read the batch past ``.dream_cursor`` → phase 1
(findings) → phase 2 (edits on a staged copy, in budget) → gate → merge over concurrent edits →
commit → cursor. Any failure before the commit writes nothing and leaves the batch pending. Faults
of the batch itself (the gate, a malformed edit loop, its own budget) count an attempt, and
``maxAttempts`` of them set the batch aside; faults of the model (unreachable, key refused,
overloaded past the retry budget, an analysis without findings or ``[SKIP]``) count none, so an
outage never costs a batch.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Literal

from ..errors import (
    AlreadyRunningError,
    ContextWindowError,
    GitStoreError,
    MergeConflictError,
    ModelError,
    ModelUnavailableError,
    ReverieError,
    UnsafePathError,
)
from ..gitstore import trailers as tr
from ..gitstore.location import is_tracked
from ..gitstore.trailers import format_message
from ..llm import protocol
from ..llm.prompts import load_prompt
from ..llm.registry import prefix_of
from ..llm.types import Usage
from ..llm.window import ContextWindows, reply_tokens, room
from ..security.untrusted import untrusted_soul_lines
from ..storage.configdata import OFFLINE_MODEL
from ..storage.history import HistoryEntry
from ..storage.store import WorkspaceStore
from ..storage.workspace import MEMORY, MEMORY_FILES, SOUL
from . import transaction
from .agent import EditOutcome, run_edit_loop
from .analyze import UnusableAnalysis, analyze
from .archive import archive_path
from .archive_files import REPAIR_MODEL, read_archives
from .batch import budget_lines, build_analysis_message, line_ages
from .budget import Budget, BudgetExceeded
from .deadletter import (
    DeadLetter,
    append_dead_letter,
    append_event,
    deadletter_path,
    queued,
    set_aside,
)
from .edit_tools import MemoryTools
from .evidence import Evidence, kept_note, unheld_findings
from .fence import Fence
from .gate import check, check_additions
from .lifecycle import MANAGED, LifecycleOutcome, budgets
from .lifecycle import apply as run_lifecycle
from .lock import RunLock
from .proposal import stage_soul_change
from .records import Attempts, StatusRecord
from .result import DreamResult, DreamStatus, Finding, Progress, ProgressPhase
from .salience import SalienceRecord
from .staging import StagedFiles, unified_diff

if TYPE_CHECKING:
    from ..gitstore import GitStore
    from ..llm.client import ModelClient
    from ..storage.config import Config

__all__ = ["Dream", "ProgressCallback"]

log = logging.getLogger(__name__)

ProgressCallback = Callable[[Progress], None]


class _Failed(Exception):
    """A batch attempt failed before anything was written."""

    def __init__(
        self,
        status: Literal["failed", "rejected"],
        reason: str,
        *,
        count: bool = True,
        unavailable: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        # False when the batch is not at fault: the drain's overall budget, the model
        self.count = count
        # The model could not be reached, or did not answer (the ModelUnavailableError's kind):
        # `reverie status` says since when.
        self.unavailable = unavailable


class _Shrink(Exception):
    """Internal: the batch must be its first ``keep`` entries to fit the model's window."""

    def __init__(self, keep: int) -> None:
        super().__init__(keep)
        self.keep = keep


@dataclass
class _Attempt:
    """One try at one batch: what its steps share, and what a failure reports (``findings``: the
    analysis's, once it has answered)."""

    entries: list[HistoryEntry]
    budget: Budget
    attempts: Attempts
    dry_run: bool
    staged: StagedFiles
    tools: MemoryTools
    base: DreamResult
    evidence: Evidence
    progress: Callable[[ProgressPhase], None]
    findings: tuple[Finding, ...] = ()

    @property
    def first(self) -> int:
        return self.entries[0].cursor

    @property
    def last(self) -> int:
        return self.entries[-1].cursor


class Dream:
    """Dream over one workspace: its memory files (``store``), their repo (``git``) and the model
    (``client``)."""

    def __init__(
        self,
        store: WorkspaceStore,
        git: GitStore,
        client: ModelClient,
        config: Config | None = None,
    ) -> None:
        self.store = store
        self.git = git
        self.client = client
        self.config = config if config is not None else store.config
        self.workspace = store.workspace
        self._repo_ready = False
        #: Today's date for the lifecycle step (expiry, salience) and the analysis prompt;
        #: replaceable in tests.
        self.today: Callable[[], date] = date.today
        self._archive_disk: dict[str, str] = {}
        self._requeued: int | None = None  # first cursor of the requeued batch this run works on
        # what this run tells the person besides its outcome (DreamResult.warnings)
        self._warnings: list[str] = []
        #: The fencing epoch a distributed worker took with this workspace's lease
        #: (``fence.bump_epoch``), and a check that its lease is still good (a reason when not);
        #: every write of a run is refused once either fails. Unset for a single-host run, which
        #: still gets the expected-batch check.
        self.epoch: int | None = None
        self.lease_check: Callable[[], str | None] | None = None
        self._fence: Fence | None = None
        #: This run's over-budget trim (``_trim_first``): committed first, or previewed.
        self._trim: DreamResult | None = None
        #: Each model's context window (``reverie.llm.window``): Dream's prompts are sized to it.
        self.windows = ContextWindows(self.config, self.workspace.state_dir)
        #: Called after a run that committed, its lock released: the wiring brings the search index
        #: up to date there (``Runtime.sync_index``), so queries find it in step.
        self.after_commit: Callable[[], None] | None = None

    @property
    def model(self) -> str:
        """``modelOverride``, else the agent's model, else the offline engine."""
        return self.config.dream_model

    def pending(self) -> int:
        return self.store.pending_count()

    # -- entry points ------------------------------------------------------------------------------
    async def run(
        self,
        *,
        drain: bool = False,
        wait: bool = False,
        dry_run: bool = False,
        on_progress: ProgressCallback | None = None,
    ) -> DreamResult:
        """Process the next batch (every pending batch, within an overall budget, with ``drain``).

        Another run holding the lock → status "already-running" (or wait for it with ``wait``).
        ``dry_run`` computes the diff and writes nothing (no commit, cursor, attempt or status
        record).
        """
        # A workspace never written, or removed under this run (forget-user): nothing to do, and
        # nothing is created.
        if not self.workspace.root.is_dir():
            return DreamResult("nothing-to-do", model=self.model)
        lock = RunLock(self.workspace.state_dir)
        if not await lock.acquire(wait=wait):
            return DreamResult(
                "already-running", reason="another Dream run holds the lock", model=self.model
            )
        self._warnings = []
        self._trim = None
        try:
            self._ensure_repo()
            attempts = Attempts.load(self.workspace.state_dir)
            self._fence = Fence(self.store, self.git, self.epoch, self.lease_check)
            with self._fence.section():  # a stale run does not even roll a cursor forward
                transaction.reconcile(self.store, self.git, attempts)
            self._fence.begin()
            emit = on_progress or (lambda p: None)
            if not drain:
                result = await self._batch(
                    self._budget(Budget.from_config(self.config.dream)), attempts, dry_run, emit
                )
            else:
                result = await self._drain(attempts, dry_run, emit)
            if not dry_run and result.status in ("ok", "no-change", "dead-lettered"):
                if self.config.memory.history.retention is not None:
                    with self._section():
                        self._retain()
            tracked = self._archive_enabled()
            trim = self._trim
            if trim is not None and dry_run:  # the preview: the trim's commit, then the run's
                result = replace(result, diff=trim.diff + result.diff)
            result = replace(
                result, warnings=tuple(self._warnings), archive_tracked=tracked, trim=trim
            )
        finally:
            self._fence = None
            lock.release()
        if self.after_commit is not None and not dry_run and (result.commit or trim is not None):
            self.after_commit()
        return result

    def _section(self) -> AbstractContextManager[None]:
        """The run's write fence (``FencedError`` when this run may no longer write)."""
        return self._fence.section() if self._fence is not None else nullcontext()

    def _retain(self) -> None:
        """Apply ``memory.history.retention`` now that the Dream cursor moved (only consumed entries
        can go). The log is rewritten only once it is 10 % (at least 100 entries) past the limit,
        judged from its first and last cursors, so a run does not pay a full read of the log for a
        handful of entries."""
        keep = self.config.memory.history.retention
        if keep is None:
            return
        first = self.store.history.read_since(0, limit=1)
        if not first or self.store.last_cursor() - first[0].cursor + 1 <= keep + max(
            keep // 10, 100
        ):
            return
        try:
            dropped = self.store.compact_history(keep)
        except (ReverieError, OSError) as exc:
            log.warning("dream: history retention not applied (%s); the log is kept whole", exc)
            return
        if dropped:
            log.info("dream: history retention dropped the %d oldest consumed entries", dropped)

    def reconcile(self) -> int:
        """Advance ``.dream_cursor`` to HEAD's dream ``Reverie-Cursor`` when that is ahead; returns
        the cursor."""
        lock = RunLock(self.workspace.state_dir)
        if not lock.try_acquire():
            return self.store.dream_cursor()  # the running Dream reconciles itself
        try:
            self._ensure_repo()
            return transaction.reconcile(
                self.store, self.git, Attempts.load(self.workspace.state_dir)
            )
        finally:
            lock.release()

    def _ensure_repo(self) -> None:
        """Open the memory repo (and run GitStore's crash recovery) once per Dream object."""
        if not self._repo_ready:
            self.git.ensure()
            self._repo_ready = True

    # -- drain -------------------------------------------------------------------------------------
    async def _drain(
        self, attempts: Attempts, dry_run: bool, emit: ProgressCallback
    ) -> DreamResult:
        cfg = self.config.dream
        overall = self._budget(
            Budget(1_000_000, 1_000_000, cfg.drain_token_budget, cfg.drain_max_seconds)
        )
        results: list[DreamResult] = []
        while True:
            result = await self._batch(
                self._budget(Budget.from_config(cfg, overall=overall)), attempts, dry_run, emit
            )
            if result.status == "nothing-to-do":
                break
            results.append(result)
            if result.status not in ("ok", "no-change", "dead-lettered") or dry_run:
                break  # the same batch would come next (or, dry, the cursor cannot move)
            if overall.remaining_seconds() <= 0 or overall.tokens >= overall.max_tokens:
                if self.pending() or self.queued():
                    results.append(DreamResult("paused", model=self.model))
                break
        if not results:
            return DreamResult("nothing-to-do", model=self.model)
        if results[-1].status == "paused":
            results[-1] = replace(results[-1], reason=self._paused(overall))
        if len(results) == 1:
            return results[0]
        return _aggregate(results)

    def _budget(self, budget: Budget) -> Budget:
        """The offline engine costs nothing: its calls are not counted against a token budget (every
        other cap holds)."""
        if prefix_of(self.model) == prefix_of(OFFLINE_MODEL):
            budget.max_tokens = sys.maxsize
        return budget

    def _paused(self, overall: Budget) -> str:
        """Why a drain stopped at its own budget, what is left, and how to go on."""
        left = self.pending() + sum(d.last - d.first + 1 for d in self.queued())
        knob = (
            "dream.drainMaxSeconds"
            if overall.remaining_seconds() <= 0
            else "dream.drainTokenBudget"
        )
        log.info("dream: drain paused at its budget; %d entries left", left)
        return f"paused: {left} entries left, run again or raise {knob}"

    # -- one batch ---------------------------------------------------------------------------------
    async def _batch(
        self, budget: Budget, attempts: Attempts, dry_run: bool, emit: ProgressCallback
    ) -> DreamResult:
        cfg = self.config.dream
        entries, self._requeued = self._requeued_batch(dry_run), None
        if entries:
            self._requeued = entries[0].cursor
        else:
            # Dream's read requeues late entries (storage.history): an append, never in a dry run
            read = self.store.history.read_since if dry_run else self.store.history.read_pending
            entries = read(self.store.dream_cursor(), limit=cfg.max_batch_size)
        if not entries:
            return self._maintain(dry_run)
        while True:
            try:
                return await self._attempt(entries, budget, attempts, dry_run, emit)
            except _Shrink as shrink:
                # The model's window does not take this many entries: the batch is the first ones,
                # and the rest wait for the next batch (a requeued batch is never shrunk).
                entries = entries[: shrink.keep]

    def _room(self) -> int:
        """Prompt tokens a call to Dream's model may send (its window less the reply); the offline
        engine reads any length."""
        if prefix_of(self.model) == prefix_of(OFFLINE_MODEL):
            return sys.maxsize
        window = self.windows.of(self.model)
        return room(window, self._max_tokens(protocol.TASK_DREAM_EDIT))

    def _fit(self, entries: list[HistoryEntry], system: str, user: str) -> None:
        """Raise ``_Shrink`` when the analysis prompt is over the model's window and fewer entries
        would do; ``_Failed`` (no attempt counted) when one entry is already too many."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        tokens = self.client.count_tokens(messages, model=self.model)
        limit = self._room()
        if tokens <= limit:
            return
        if len(entries) > 1 and self._requeued is None:
            keep = max(1, min(len(entries) - 1, len(entries) * limit // max(tokens, 1)))
            log.info(
                "dream: %d entries make a %d-token prompt, over the model's room of %d; taking %d",
                len(entries),
                tokens,
                limit,
                keep,
            )
            raise _Shrink(keep)
        raise _Failed(
            "failed",
            f"the analysis prompt ({tokens} tokens with {len(entries)} entr"
            f"{'y' if len(entries) == 1 else 'ies'}) does not fit the model's context window "
            f"({self.windows.of(self.model)} tokens); set models.<name>.contextWindowTokens or "
            "use a model with a larger window",
            count=False,
        )

    async def _attempt(
        self,
        entries: list[HistoryEntry],
        budget: Budget,
        attempts: Attempts,
        dry_run: bool,
        emit: ProgressCallback,
    ) -> DreamResult:
        """One try at one batch: analyze, edit, judge, then commit (or show, for a dry run); a
        failure is reported by what failed (``_failed``). The attempt's shared state first: the
        files staged (trimmed first when over budget), the edit tools over them, the result a
        failure starts from, and where evidence is kept."""
        first, last = entries[0].cursor, entries[-1].cursor
        emit(Progress("start", first=first, last=last))
        staged = StagedFiles.load(self.workspace)
        if not staged.unreadable and self._over_budget(staged):
            staged = self._trim_first(staged, dry_run)
        base = DreamResult(
            "failed",
            first,
            last,
            model=self.model,
            dry_run=dry_run,
            attempts=attempts.for_batch(first),
        )

        def progress(phase: ProgressPhase) -> None:
            emit(Progress(phase, budget.iterations, budget.tool_calls, budget.tokens, first, last))

        evidence = Evidence(self.workspace.state_dir, self.model, first, last, dry_run)
        run = _Attempt(
            entries,
            budget,
            attempts,
            dry_run,
            staged,
            MemoryTools(staged),
            base,
            evidence,
            progress,
        )
        try:
            return await self._run(run)
        except (BudgetExceeded, ModelError, _Failed) as exc:
            return self._failed(run, exc)

    async def _run(self, run: _Attempt) -> DreamResult:
        """The attempt's steps, in order; a step that fails raises (``_failed`` reports it)."""
        if run.staged.unreadable:  # never consume a batch whose facts could not be written anywhere
            raise _Failed("failed", run.staged.unreadable, count=False)
        today = self.today()
        sizes = budget_lines(run.staged.base, self.config.dream)
        said, edited = await self._analyze_and_edit(run, today, sizes)
        life, changed = self._judge(run, today)
        budget = run.budget
        done = _with_lifecycle(
            replace(
                run.base,
                findings=run.findings,
                edits=tuple(run.tools.edits),
                usage=budget.usage,
                iterations=budget.iterations,
                tool_calls=budget.tool_calls,
            ),
            life,
        )
        if not changed and not life.archive:
            why = said or _undone(life) or run.evidence.unchanged(run.findings, run.tools, edited)
            # findings the files do not hold and no edit wrote (none was made, or the lifecycle
            # undid the one made: it emptied a file): the batch moves on set aside, so `reverie
            # requeue` lists it and runs it again (else its cursor moved, nothing changed, and no
            # command led back to it)
            unheld = bool(unheld_findings(run.findings, run.staged.base))
            aside = (not run.tools.edits and unheld) or (bool(life.undone) and bool(run.findings))
            if aside and not run.dry_run:
                why = f"{why}; set aside: `reverie requeue {run.base.first}` runs it again"
            no_change = replace(done, status="no-change", reason=why)
            return self._finish(no_change, run.attempts, run.last, run.dry_run, life, aside=aside)
        if run.dry_run:
            return self._preview(done, run.staged, changed, life)
        run.progress("commit")
        return self._commit(done, run.staged, {**changed, **life.archive}, run.attempts, life)

    async def _analyze_and_edit(
        self, run: _Attempt, today: date, sizes: str | None
    ) -> tuple[str | None, EditOutcome | None]:
        """Ask the model what the batch teaches (``run.findings``), then let it edit the staged
        files to say so. Returns why an analysis was not taken as it came (None: it was), and the
        edit step's outcome (None: nothing to edit)."""
        entries, staged = run.entries, run.staged
        system = load_prompt(protocol.TASK_DREAM_ANALYZE, self.workspace)
        ages = self._memory_ages(staged.base[MEMORY])
        user = build_analysis_message(entries, staged.base, ages, today, budgets=sizes)
        self._fit(entries, system, user)
        analysis = await analyze(
            self.client,
            run.budget,
            model=self.model,
            system=system,
            user=user,
            max_tokens=self._max_tokens(protocol.TASK_DREAM_ANALYZE),
        )
        run.findings = analysis.findings
        said = run.evidence.analysis(analysis, entries, staged.base)
        run.progress("analyze")
        if not run.findings:
            return said, None
        edited = await run_edit_loop(
            self.client,
            run.budget,
            run.tools,
            model=self.model,
            system=load_prompt(protocol.TASK_DREAM_EDIT, self.workspace),
            findings=run.findings,
            progress=lambda: run.progress("edit"),
            budgets=sizes,
            max_tokens=self._max_tokens(protocol.TASK_DREAM_EDIT),
            on_refused=run.evidence.refused_edit,
            window=self.windows.of(self.model),
            room_tokens=self._room(),
        )
        return said, edited

    def _judge(self, run: _Attempt, today: date) -> tuple[LifecycleOutcome, dict[str, str]]:
        """The lifecycle's changes (archiving, expiry) beside the model's edits, then the gate over
        both, and the SOUL.md rule check (``_Failed("rejected")`` when either says no). Returns the
        lifecycle's outcome and the files the edits changed."""
        staged = run.staged
        facts = [
            f
            for e in run.entries
            for ln in e.content.splitlines()
            if (f := protocol.parse_fact_line(ln))
        ]
        added = check_additions(staged.base, staged.current, run.findings)
        if not added.ok:  # before the lifecycle, which would sort a runaway edit line by line
            raise _Failed("rejected", f"gate: {added.reason}")
        life = self._lifecycle(
            staged, today, dry_run=run.dry_run, tools=run.tools, findings=run.findings, facts=facts
        )
        changed = staged.changed()
        run.progress("gate")
        verdict = check(
            staged.base,
            {**changed, **life.archive},
            run.findings,
            self.config.dream,
            own_removals=life.own_removals,
            over_budget_ok=life.protected_over_budget,
        )
        if not verdict.ok:
            raise _Failed("rejected", f"gate: {verdict.reason}")
        batch = [e.content for e in run.entries]
        laundered = untrusted_soul_lines(batch, staged.base.get(SOUL, ""), changed.get(SOUL))
        if laundered:  # security: a SOUL.md rule only ever comes from what the user said
            raise _Failed(
                "rejected",
                f"gate: SOUL.md would take a rule from tool output or another participant "
                f"({laundered[0][:80]!r})",
            )
        return life, changed

    def _preview(
        self,
        done: DreamResult,
        staged: StagedFiles,
        changed: dict[str, str],
        life: LifecycleOutcome,
    ) -> DreamResult:
        """A dry run's result: the diff and the files a real run would write, nothing written."""
        # As a real run would: a SOUL.md change under protectSoul is staged for approval, not
        # written, so it is the SOUL.md proposal here, not one of the files.
        soul = changed.get(SOUL) if self.config.dream.protect_soul else None
        written = {k: v for k, v in changed.items() if soul is None or k != SOUL}
        archive_base = self._archive_base(staged)
        files = tuple(transaction.file_changes(archive_base, {**written, **life.archive}))
        return replace(
            done,
            status="ok",
            diff=staged.diff() + _archive_diff(archive_base, life.archive),
            files=files,
            pending_soul=soul,
        )

    def _failed(self, run: _Attempt, exc: BudgetExceeded | ModelError | _Failed) -> DreamResult:
        """What a failed step reports: a pause when the drain's budget ran out (nothing written, no
        attempt counted), a smaller batch when the model's window is too small (``_Shrink``), else
        a failure, counted against the batch only when the batch is at fault."""
        first, last = run.first, run.last

        def fail(failure: _Failed) -> DreamResult:
            return self._fail(
                run.base, run.findings, run.tools, run.budget, run.attempts, run.dry_run, failure
            )

        if isinstance(exc, _Failed):
            return fail(exc)
        if isinstance(exc, BudgetExceeded):
            if not exc.overall:
                return fail(_Failed("failed", str(exc)))
            # the drain's budget, not the batch: a pause, nothing written, no attempt counted
            log.info("dream: batch %s-%s paused: %s", first, last, exc)
            budget = run.budget
            paused = replace(
                run.base,
                status="paused",
                reason=str(exc),
                usage=budget.usage,
                iterations=budget.iterations,
                tool_calls=budget.tool_calls,
            )
            if not run.dry_run:
                self._record(paused)
            return paused
        if isinstance(exc, ModelUnavailableError):
            # The prefix is what schedulers read as an outage (reverie.schedule.policy); the
            # message says "not answering" for a silent provider.
            return fail(
                _Failed("failed", f"model unavailable: {exc}", count=False, unavailable=exc.kind)
            )
        if isinstance(exc, ContextWindowError):
            window = self.windows.learn(self.model, exc.limit, exc.requested, str(exc))
            if len(run.entries) > 1 and self._requeued is None:
                log.info(
                    "dream: the model's window is %s tokens; batch %d-%d made smaller",
                    window,
                    first,
                    last,
                )
                raise _Shrink(max(1, len(run.entries) // 2)) from None
            return fail(_Failed("failed", f"model: {exc}", count=False))
        if isinstance(exc, UnusableAnalysis):
            kept = run.evidence.keep(
                protocol.TASK_DREAM_ANALYZE, "refused", str(exc), exc.messages, exc.response
            )
            return fail(_Failed("failed", f"model: {exc}{kept_note(kept)}", count=False))
        return fail(_Failed("failed", f"model: {exc}"))

    # -- set-aside batches -------------------------------------------------------------------------
    def set_aside(self) -> list[DeadLetter]:
        """Batches set aside (after repeated failures, or with findings no edit wrote) and not
        requeued since (a query)."""
        return set_aside(deadletter_path(self.workspace.memory_dir))

    def queued(self) -> list[DeadLetter]:
        """Requeued batches waiting for the next run."""
        return queued(deadletter_path(self.workspace.memory_dir))

    def requeue(self, firsts: list[int] | None = None) -> list[DeadLetter]:
        """Put set-aside batches (those starting at ``firsts``; all when None) back in front of the
        queue: the next run processes them before the batches past the cursor, which never moves
        back. Takes Dream's run lock (raises ``AlreadyRunningError`` while a run holds it); returns
        the batches requeued."""
        lock = RunLock(self.workspace.state_dir)
        if not lock.try_acquire():
            raise AlreadyRunningError("Dream is running; requeue when it ends")
        try:
            path = deadletter_path(self.workspace.memory_dir)
            chosen = [d for d in set_aside(path) if firsts is None or d.first in firsts]
            for d in chosen:
                append_event(path, "requeued", d.first)
            return chosen
        finally:
            lock.release()

    def _requeued_batch(self, dry_run: bool) -> list[HistoryEntry]:
        """The entries of the first requeued batch still in history (a vanished one is settled with
        a warning)."""
        path = deadletter_path(self.workspace.memory_dir)
        for d in queued(path):
            entries = [
                e
                for e in self.store.history.read_since(d.first - 1, limit=d.last - d.first + 1)
                if e.cursor <= d.last
            ]
            if entries:
                return entries
            log.warning(
                "dream: requeued batch %d-%d is no longer in history (compacted); dropped",
                d.first,
                d.last,
            )
            if not dry_run:
                with self._section():
                    append_event(path, "done", d.first)
        return []

    # -- lifecycle ---------------------------------------------------------------------------------
    def _archive_enabled(self) -> bool:
        """The archive is written only where the memory repo tracks it (``git.trackedFiles``)."""
        ok = all(is_tracked(archive_path(rel), self.git.tracked) for rel in MEMORY_FILES)
        if not ok:
            self._warn(
                "memory/archive/*.md is not in git.trackedFiles, so nothing can be "
                "archived: the lifecycle removes no line (no merge, supersession, "
                "expiry or trimming) and files over budget stay over it"
            )
        return ok

    def _warn(self, message: str) -> None:
        """A warning the run's result carries to the person (once per run)."""
        if message not in self._warnings:
            self._warnings.append(message)
            log.warning("dream: %s", message)

    def _committed(self, rel: str) -> str | None:
        """``rel``'s last committed text: at HEAD, or — deleted since (a commit made while a
        directory stood in its place records a deletion) — as the last commit that had it."""
        try:
            if not self.git.head():
                return None
            text = self.git.file_at("HEAD", rel)
            for info in [] if text is not None else self.git.log(limit=2, path=rel):
                text = self.git.file_at(info.sha, rel)
                if text is not None:
                    break
            return text
        except GitStoreError:
            return None

    def _save_repair(self, rel: str, text: str, base: str | None, note: str) -> None:
        """Commit an archive file's repair on its own (``archive_files``), as every memory-file
        writer writes: under the writer lock, merged over a change made since ``base`` was read."""
        self.git.commit(
            format_message(f"dream: repair {rel}", note, {}),
            kind="dream",
            trailers={tr.KIND: "dream", tr.MODEL: REPAIR_MODEL},
            files={rel: text},
            base={rel: base} if base is not None else None,
        )

    def _archive_base(self, staged: StagedFiles) -> dict[str, str]:
        """The staged files' base plus the archive files as on disk (what a run's changes are diffed
        against)."""
        out = dict(staged.base)
        for rel in MEMORY_FILES:
            path = archive_path(rel)
            out[path] = self._archive_disk.get(path, "")
        return out

    def _lifecycle(
        self,
        staged: StagedFiles,
        today: date,
        *,
        dry_run: bool,
        tools: MemoryTools | None = None,
        findings: tuple[Finding, ...] = (),
        facts: list[tuple[str, str]] | None = None,
    ) -> LifecycleOutcome:
        """Run the lifecycle step over the staged copy (it updates ``staged.current``)."""
        enabled = self._archive_enabled()
        with nullcontext() if dry_run else self._section():  # repairs write; so does fold_hits
            return self._lifecycle_step(staged, today, dry_run, tools, findings, facts, enabled)

    def _lifecycle_step(
        self,
        staged: StagedFiles,
        today: date,
        dry_run: bool,
        tools: MemoryTools | None,
        findings: tuple[Finding, ...],
        facts: list[tuple[str, str]] | None,
        enabled: bool,
    ) -> LifecycleOutcome:
        archives = read_archives(
            self.workspace, self._committed, None if dry_run else self._save_repair
        )
        for note in archives.notes:
            self._warn(note)
        enabled = enabled and not archives.unreadable
        disk = self._archive_disk = archives.texts
        record = SalienceRecord.load(self.workspace.state_dir)
        record.fold_hits()
        life = run_lifecycle(
            staged.base,
            staged.current,
            cfg=self.config.dream,
            today=today,
            record=record,
            archive_texts=disk,
            edits=tools.edits if tools else (),
            moved=tools.moved if tools else (),
            findings=findings,
            facts=facts or (),
            archive_enabled=enabled,
        )
        for rel in MANAGED:
            staged.current[rel] = life.files[rel]
        if life.retired:
            log.info("dream lifecycle: %s", "; ".join(life.commit_lines(limit=0)[:1]))
        return life

    def _maintain(self, dry_run: bool, staged: StagedFiles | None = None) -> DreamResult:
        """Nothing pending: run the lifecycle step alone (expiry, budgets, duplicates) and commit
        what it changes. No model call; the cursor stays where it is. ``staged`` (a dry run's):
        the copy the step runs on, left holding what it would write."""
        staged = staged if staged is not None else StagedFiles.load(self.workspace)
        cfg = self.config.dream
        life = self._lifecycle(staged, self.today(), dry_run=dry_run)
        changed = staged.changed()
        if not changed and not life.archive:
            if not dry_run:
                with self._section():
                    life.record.save()  # lines seen for the first time get their learned date
            return DreamResult("nothing-to-do", model=self.model)
        files = {**changed, **life.archive}
        verdict = check(
            staged.base,
            files,
            (),
            cfg,
            own_removals=life.own_removals,
            over_budget_ok=life.protected_over_budget,
        )
        result = _with_lifecycle(DreamResult("ok", model=self.model, dry_run=dry_run), life)
        # cannot happen for the step's own removals; refuse rather than write a surprise
        if not verdict.ok:
            log.warning("dream lifecycle: not written: %s", verdict.reason)
            return DreamResult(
                "failed", model=self.model, reason=f"lifecycle not written: {verdict.reason}"
            )
        base = self._archive_base(staged)
        if dry_run:
            return replace(
                result,
                diff=staged.diff() + _archive_diff(base, life.archive),
                files=tuple(transaction.file_changes(base, files)),
            )
        try:
            merged, disk = transaction.merge_over_disk(self.workspace, base, files)
        except (MergeConflictError, UnsafePathError, UnicodeDecodeError) as exc:
            log.warning(
                "dream lifecycle: a memory file changed meanwhile (%s); trying again next run", exc
            )
            return DreamResult(
                "failed",
                model=self.model,
                reason=f"lifecycle not written, a memory file changed "
                f"meanwhile: {exc}; trying again next run",
            )
        changes = transaction.file_changes(disk, merged)
        stats = ", ".join(f"{c.path} +{c.added} -{c.removed}" for c in changes)
        cursor = self.store.dream_cursor()
        trailers = {tr.KIND: "dream", tr.CURSOR: str(cursor), tr.MODEL: "lifecycle"}
        message = format_message(
            f"dream: lifecycle, {stats}", "\n".join(life.commit_lines()), trailers
        )
        with self._section():  # the commit and its records: all or nothing
            try:
                sha = transaction.commit_run(
                    self.git,
                    self.store,
                    merged,
                    message,
                    trailers,
                    cursor,
                    base=disk,
                    section=self._section(),
                )
            except MergeConflictError as exc:
                log.warning(
                    "dream lifecycle: a memory file changed meanwhile (%s); trying again next run",
                    exc,
                )
                return DreamResult(
                    "failed",
                    model=self.model,
                    reason=f"lifecycle not written, a memory file changed "
                    f"meanwhile: {exc}; trying again next run",
                )
            life.record.save()
            result = replace(
                result,
                commit=sha,
                files=tuple(changes) if sha else (),
                diff="".join(unified_diff(rel, disk[rel], text) for rel, text in merged.items()),
            )
            self._record(result)
        return result

    def _over_budget(self, staged: StagedFiles) -> bool:
        limits = budgets(self.config.dream)
        return any(len(staged.base.get(rel, "")) > limits[rel] for rel in MANAGED)

    def _trim_first(self, staged: StagedFiles, dry_run: bool) -> StagedFiles:
        """A prompt file over its budget (grown by hand) is brought within it by the lifecycle step
        alone, and committed, before the model is asked: its prompt then never carries the excess
        (which could cost the batch its token budget). A dry run shows that commit first (its diff
        leads the run's, ``DreamResult.trim``) and goes on from the trimmed files, as a real run
        would."""
        if dry_run:
            trimmed_copy = StagedFiles.from_texts(staged.base)
            preview = self._maintain(True, trimmed_copy)
            if preview.status != "ok" or not preview.diff:
                return staged
            self._trim = preview
            self._warn(
                f"over budget before the model call: a real run first commits the lifecycle "
                f"({preview.lifecycle_summary}) on its own; its diff comes first below"
            )
            return StagedFiles.from_texts(trimmed_copy.current)
        trimmed = self._maintain(False)
        if trimmed.commit is None:
            # nothing the step could retire (protected lines alone), or it could not write
            return staged
        self._trim = trimmed
        self._warn(
            f"over budget before the model call: the lifecycle {trimmed.lifecycle_summary} first "
            f"(commit {trimmed.commit[:8]})"
        )
        return StagedFiles.load(self.workspace)

    def _max_tokens(self, task: str) -> int:
        """The task's reply limit, within a quarter of the model's window."""
        wanted = protocol.max_output_tokens(task, self.config.defaults.max_tokens)
        if prefix_of(self.model) == prefix_of(OFFLINE_MODEL):
            return wanted
        return reply_tokens(self.windows.of(self.model), wanted)

    def _memory_ages(self, text: str) -> list[int | None]:
        if not text.strip():
            return []
        try:
            return line_ages(self.git, text)
        except GitStoreError as exc:
            log.warning("dream: line ages unavailable (%s); MEMORY.md shown without them", exc)
            return []

    def _commit(
        self,
        done: DreamResult,
        staged: StagedFiles,
        changed: dict[str, str],
        attempts: Attempts,
        life: LifecycleOutcome,
    ) -> DreamResult:
        cfg = self.config.dream
        assert done.first is not None and done.last is not None
        try:
            files, disk = transaction.merge_over_disk(
                self.workspace, self._archive_base(staged), changed
            )
        except MergeConflictError as exc:
            raise _Failed(
                "failed", f"a memory file changed during the run and the edits conflict: {exc}"
            ) from None
        except (UnsafePathError, UnicodeDecodeError) as exc:
            raise _Failed(
                "failed", f"a memory file changed during the run and cannot be edited: {exc}"
            ) from None
        if files != changed:  # merged over a concurrent edit: judge what would actually be written
            verdict = check(
                disk,
                files,
                done.findings,
                cfg,
                own_removals=life.own_removals,
                over_budget_ok=life.protected_over_budget,
            )
            if not verdict.ok:
                raise _Failed(
                    "rejected", f"gate (after merging a concurrent edit): {verdict.reason}"
                )
        # The staged SOUL.md change, the commit, the cursor and every record of them: written
        # inside one fence section, all or nothing.
        with self._section():
            return self._write_batch(done, files, disk, attempts, life)

    def _write_batch(
        self,
        done: DreamResult,
        files: dict[str, str],
        disk: dict[str, str],
        attempts: Attempts,
        life: LifecycleOutcome,
    ) -> DreamResult:
        cfg = self.config.dream
        assert done.first is not None and done.last is not None
        pending_soul = None
        if cfg.protect_soul and SOUL in files:
            pending_soul = files.pop(SOUL)
            reason = "; ".join(f.text for f in done.findings if f.kind == "SOUL")
            stage_soul_change(
                self.workspace,
                base=disk[SOUL],
                proposed=pending_soul,
                meta={
                    "first": done.first,
                    "last": done.last,
                    "model": self.model,
                    "reason": reason,
                    "head": self.git.head(),
                },
            )
        changes = transaction.file_changes(disk, files)
        subject, _findings = transaction.commit_message(
            changes, done.findings, done.first, done.last
        )
        # lines already in the files; never the findings' history text
        body = "\n".join(life.commit_lines())
        trailers = transaction.dream_trailers(
            done.first,
            done.last,
            model=self.model,
            iterations=done.iterations,
            tool_calls=done.tool_calls,
            usage=done.usage,
        )
        cursor = done.last
        if self._requeued is not None:  # a requeued batch: the cursor is past it already and stays
            cursor = self.store.dream_cursor()
            trailers[tr.CURSOR] = str(cursor)
        message = format_message(subject, body, trailers)
        try:
            sha = transaction.commit_run(
                self.git,
                self.store,
                files,
                message,
                trailers,
                cursor,
                base=disk,
                section=self._section(),
            )
        except MergeConflictError as exc:
            # another writer committed the same lines meanwhile: not the batch's fault
            raise _Failed(
                "failed",
                f"a memory file changed during the commit and the edits conflict: {exc}",
                count=False,
            ) from None
        if self._requeued is not None:
            append_event(deadletter_path(self.workspace.memory_dir), "done", self._requeued, sha)
        diff = "".join(unified_diff(rel, disk[rel], text) for rel, text in files.items())
        status: DreamStatus = "ok" if sha or pending_soul is not None else "no-change"
        result = replace(
            done,
            status=status,
            commit=sha,
            files=tuple(changes) if sha else (),
            diff=diff,
            pending_soul=pending_soul,
        )
        attempts.clear()
        life.record.save()
        self._record(result)
        return result

    def _finish(
        self,
        result: DreamResult,
        attempts: Attempts,
        last: int,
        dry_run: bool,
        life: LifecycleOutcome | None = None,
        *,
        aside: bool = False,
    ) -> DreamResult:
        """A completed run with nothing to write: the cursor moves on without a commit; ``aside``:
        the batch is recorded as set aside first (a dead letter, which ``requeue`` puts back;
        ``transaction.reconcile`` finishes a crash between the record and the cursor)."""
        if dry_run:
            return result
        with self._section():
            path = deadletter_path(self.workspace.memory_dir)
            if aside:
                assert result.first is not None and result.last is not None
                append_dead_letter(path, result.first, result.last, result.reason or "", 1)
            if self._requeued is not None:
                if not aside:
                    append_event(path, "done", self._requeued)
            else:
                self.store.set_dream_cursor(last)
            if life is not None:
                life.record.save()
            attempts.clear()
            self._record(result)
        return result

    def _fail(
        self,
        base: DreamResult,
        findings: tuple[Finding, ...],
        tools: MemoryTools,
        budget: Budget,
        attempts: Attempts,
        dry_run: bool,
        failure: _Failed,
    ) -> DreamResult:
        """Nothing was written. Count the attempt if the batch is at fault; at ``maxAttempts`` set
        it aside."""
        # Info, not warning: the reason travels in the result, which every front-end prints (once).
        log.info("dream: batch %s-%s %s: %s", base.first, base.last, failure.status, failure.reason)
        result = replace(
            base,
            status=failure.status,
            reason=failure.reason,
            findings=findings,
            edits=tuple(tools.edits),
            usage=budget.usage,
            iterations=budget.iterations,
            tool_calls=budget.tool_calls,
        )
        if dry_run:
            return result
        with self._section():  # a stale run counts no attempt and records nothing (FencedError)
            return self._count_failure(result, base, attempts, failure)

    def _count_failure(
        self, result: DreamResult, base: DreamResult, attempts: Attempts, failure: _Failed
    ) -> DreamResult:
        assert base.first is not None and base.last is not None
        n = (
            attempts.fail(base.first, failure.reason)
            if failure.count
            else attempts.for_batch(base.first)
        )
        result = replace(result, attempts=n)
        if failure.count and n >= self.config.dream.max_attempts:
            with self._section():
                append_dead_letter(
                    deadletter_path(self.workspace.memory_dir),
                    base.first,
                    base.last,
                    failure.reason,
                    n,
                )
                transaction.fault("dead-lettered")
                if self._requeued is None:  # a requeued batch is behind the cursor already
                    # after the record: reconcile finishes a crash in between
                    self.store.set_dream_cursor(base.last)
            attempts.clear()
            log.warning(
                "dream: batch %d-%d set aside after %d failed attempts", base.first, base.last, n
            )
            result = replace(result, status="dead-lettered")
        self._record(result, unavailable=failure.unavailable)
        return result

    def _record(self, result: DreamResult, *, unavailable: str | None = None) -> None:
        """The status record, written inside the run's fence (a run that may no longer write
        records nothing: ``reverie status`` keeps telling what the run that took over did);
        ``unavailable`` is the outage's kind when the model could not be reached or did not
        answer."""
        with self._section():
            self._record_unfenced(result, unavailable=unavailable)

    def _record_unfenced(self, result: DreamResult, *, unavailable: str | None) -> None:
        try:
            StatusRecord.load(self.workspace.state_dir).record_run(
                result.status,
                result.first,
                result.last,
                result.reason,
                result.commit,
                unavailable=unavailable is not None,
                outage=unavailable,
            )
        except OSError as exc:  # advisory (``reverie status``): the run itself is done or recorded
            log.warning("dream: the status record was not written (%s)", exc.strerror or exc)


def _undone(life: LifecycleOutcome) -> str | None:
    """Why the files stayed as they were when the lifecycle undid the model's edits (they took
    lines out with no finding naming them and wrote nothing in their place), or None."""
    if not life.undone:
        return None
    what = ", ".join(f"{n} line(s) out of {rel}" for rel, n in sorted(life.undone.items()))
    return f"the edit took {what} with no finding naming them and wrote none: undone, kept as was"


def _with_lifecycle(result: DreamResult, life: LifecycleOutcome) -> DreamResult:
    return replace(
        result,
        archived=life.archived,
        expired=life.expired,
        superseded=life.count("superseded"),
        merged=life.count("merged"),
    )


def _archive_diff(base: dict[str, str], archive: dict[str, str]) -> str:
    return "".join(unified_diff(rel, base.get(rel, ""), text) for rel, text in archive.items())


def _aggregate(results: list[DreamResult]) -> DreamResult:
    usage = Usage()
    for r in results:
        usage = usage + r.usage
    ok = [r for r in results if r.status == "ok"]
    last = results[-1]
    # a lifecycle-only run has none
    return DreamResult(
        status="ok" if ok and last.status in ("ok", "no-change", "dead-lettered") else last.status,
        first=next((r.first for r in results if r.first is not None), None),
        last=next((r.last for r in reversed(results) if r.last is not None), None),
        findings=tuple(f for r in results for f in r.findings),
        edits=tuple(e for r in results for e in r.edits),
        files=tuple(c for r in results for c in r.files),
        commit=ok[-1].commit if ok else None,
        usage=usage,
        iterations=sum(r.iterations for r in results),
        tool_calls=sum(r.tool_calls for r in results),
        reason=last.reason,
        diff="".join(r.diff for r in results),
        dry_run=last.dry_run,
        model=last.model,
        attempts=last.attempts,
        pending_soul=next((r.pending_soul for r in reversed(results) if r.pending_soul), None),
        batches=tuple(results),
        archived=sum(r.archived for r in results),
        expired=sum(r.expired for r in results),
        superseded=sum(r.superseded for r in results),
        merged=sum(r.merged for r in results),
    )
