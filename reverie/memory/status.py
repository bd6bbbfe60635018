"""What ``reverie status`` reports, gathered as one structured value (rendered by the CLI)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from ..dream.deadletter import deadletter_path, queued, set_aside
from ..dream.proposal import load_proposal
from ..dream.records import DeadLetterRecord, OutageRecord, RejectionRecord, RunRecord, summarize
from ..errors import CursorError, WorkspaceError
from ..llm.replylog import summarize_replies
from ..storage.configdata import OFFLINE_MODEL
from ..storage.repostate import UNWRITTEN, UNWRITTEN_REMEDY, left_unwritten
from ..storage.scopes import SCOPE_FILE
from ..storage.store import WorkspaceStore
from ..storage.workspace import ARCHIVE_DIR, MEMORY, MEMORY_FILES, REPO_DIRS, SOUL, USER

__all__ = ["StatusReport", "PendingSoulSummary", "collect_status", "describe_model"]


class PendingSoulSummary(TypedDict):
    """A SOUL.md change Dream staged for approval, as ``reverie status`` shows it."""

    created_at: str
    first_cursor: int | None
    last_cursor: int | None
    added: int
    removed: int
    proposals: int
    applied: bool


def describe_model(model: str) -> str:
    return "offline rule-based engine" if model == OFFLINE_MODEL else model


@dataclass
class StatusReport:
    workspace: str
    #: Whether ``reverie init`` (or a scope's root) made it; ``missing`` names the memory files
    #: that are not there (an import may bring only some), ``legacy_history`` a nanobot
    #: ``memory/HISTORY.md`` the next write moves into history.jsonl (a query writes nothing).
    initialised: bool
    last_cursor: int
    dream_cursor: int | None
    pending: int | None
    files: dict[str, int]  # path -> size in characters
    model: str
    model_description: str
    dream_model: str
    problems: list[str] = field(default_factory=list)
    #: A SOUL.md change Dream staged for approval (``reverie approve`` / ``reject``): when, cursors,
    #: +/- lines.
    pending_soul: PendingSoulSummary | None = None
    # Dream (see reverie.dream.records): the last run and rejection as recorded, batches set aside.
    dream_last_run: RunRecord | None = None
    dream_last_rejection: RejectionRecord | None = None
    dream_dead_letters: list[DeadLetterRecord] = field(default_factory=list)
    dream_attempts: int = 0
    #: Each prompt file's use of its Dream budget: ``{path: {"chars", "limit", "percent"}}``.
    budgets: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Dream's archive (``memory/archive/*.md``): ``{"files", "lines", "chars"}``.
    archive: dict[str, int] = field(default_factory=dict)
    #: ``{"since", "reason", "kind"}`` while Dream runs fail because the model cannot be reached
    #: or does not answer (``kind`` ``not-answering``); batches stay pending.
    dream_model_unavailable: OutageRecord | None = None
    #: Batches put back with ``reverie requeue`` that the next runs take first (their entries are
    #: behind the cursor, so ``pending`` does not count them; ``queued_entries`` does).
    dream_queued: list[DeadLetterRecord] = field(default_factory=list)
    queued_entries: int = 0
    #: The model replies kept as evidence (``reverie.llm.replylog``): ``{"count", "verdicts",
    #: "last", "path"}``.
    kept_replies: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    legacy_history: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON (``reverie status --json``)."""
        return asdict(self)


def collect_status(store: WorkspaceStore) -> StatusReport:
    ws = store.workspace
    problems: list[str] = []
    last = store.last_cursor()
    try:
        consumed = store.dream_cursor()
        dream: int | None = consumed
        pending: int | None = store.history.count_since(consumed)
    except CursorError as exc:
        dream, pending = None, None
        problems.append(str(exc))
    files = {rel: len(ws.read(rel)) for rel in MEMORY_FILES}
    missing = [rel for rel in MEMORY_FILES if not ws.resolve(rel).exists()]
    pending_soul = _pending_soul(store, problems)
    git_dir = next((d for d in (ws.root / n for n in REPO_DIRS) if d.is_dir()), None)
    unwritten = left_unwritten(git_dir) if git_dir is not None else []
    problems += [f"{rel}: {UNWRITTEN}; {UNWRITTEN_REMEDY}" for rel in unwritten]
    cfg = store.settings  # no pydantic import when no key is set
    letters = deadletter_path(ws.memory_dir)
    dream_summary = summarize(ws.state_dir, set_aside(letters))
    waiting = [
        DeadLetterRecord(first=d.first, last=d.last, reason=d.reason, time=d.time)
        for d in queued(letters)
    ]
    limits = {
        SOUL: cfg.dream.soul_max_chars,
        USER: cfg.dream.user_max_chars,
        MEMORY: cfg.dream.memory_max_chars,
    }
    budgets = {
        rel: {"chars": files[rel], "limit": limits[rel], "percent": 100 * files[rel] // limits[rel]}
        for rel in MEMORY_FILES
    }
    return StatusReport(
        workspace=str(ws.root),
        # `reverie init` writes the starter memory files; a scope's workspace (made by its root,
        # ``reverie.storage.scopes``) has none until Dream writes one: initialised all the same
        initialised=(ws.root / SCOPE_FILE).is_file() or not missing,
        missing=missing,
        legacy_history=ws.legacy_history_path.is_file(),
        last_cursor=last,
        dream_cursor=dream,
        pending=pending,
        files=files,
        model=cfg.model,
        model_description=describe_model(cfg.model),
        dream_model=cfg.dream_model,
        problems=problems,
        pending_soul=pending_soul,
        dream_last_run=dream_summary.last_run,
        dream_last_rejection=dream_summary.last_rejection,
        dream_dead_letters=dream_summary.dead_letters,
        dream_attempts=dream_summary.attempts,
        budgets=budgets,
        archive=_archive_size(store),
        dream_model_unavailable=dream_summary.model_unavailable,
        dream_queued=waiting,
        queued_entries=sum(d["last"] - d["first"] + 1 for d in waiting),
        kept_replies=summarize_replies(ws.state_dir),
    )


def _archive_size(store: WorkspaceStore) -> dict[str, int]:
    """Files, entry lines and characters of Dream's archive (a query: reads only)."""
    folder = store.workspace.root / ARCHIVE_DIR
    out = {"files": 0, "lines": 0, "chars": 0}
    if not folder.is_dir() or folder.is_symlink():
        return out
    for path in sorted(folder.glob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        text = store.workspace.read(f"{ARCHIVE_DIR}/{path.name}")
        out["files"] += 1
        out["lines"] += sum(1 for ln in text.splitlines() if ln.startswith("- "))
        out["chars"] += len(text)
    return out


def _pending_soul(store: WorkspaceStore, problems: list[str]) -> PendingSoulSummary | None:
    try:
        change = load_proposal(store)
    except WorkspaceError as exc:
        problems.append(str(exc))
        return None
    if change is None:
        return None
    added, removed = change.counts()
    return PendingSoulSummary(
        created_at=change.created_at,
        first_cursor=change.first_cursor,
        last_cursor=change.last_cursor,
        added=added,
        removed=removed,
        proposals=change.proposals,
        applied=change.applied,
    )
