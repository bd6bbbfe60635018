"""``reverie purge TEXT``: scrub a leaked string from memory — every git version, history, sessions,
state.

``plan_purge`` says what would change without changing anything; ``purge`` does it. Where the string
goes:

- the memory repo: every version of every tracked file and every commit message
  (``reverie.gitstore.purge``: history rewritten, refs moved, reflogs reset, old objects deleted),
  recorded by a ``Reverie-Kind: purge`` commit whose ``Reverie-Purge`` trailer describes the string
  (length, credential kind), never the string;
- ``memory/history.jsonl``: rewritten atomically under the history lock, the string replaced by
  ``[REDACTED:purged]`` only inside string values (content, session key, other text fields), never
  in a key or a number, so no entry stops being one (lines that are not JSON: the raw bytes,
  JSON-escaped forms too);
- ``sessions/**``: each file rewritten atomically under its session lock, the same way;
- every other file under ``memory/`` and ``sessions/`` holding it (torn-line and corrupt-line
  sidecars, the legacy HISTORY.md, a SOUL.md proposal, dead letters, memory notes): rewritten
  atomically, JSON files in their string values only (``reverie.security.scrub`` says what is
  replaced in which format);
- the search index ``memory/.index.sqlite`` (or its copy under ``memory.search.indexDir``) is
  derived data: deleted, then rebuilt from the cleaned files (``Memory.purge``). It is rebuilt even
  when the string is found nowhere else, since an index can keep the bytes of rows it deleted; that
  purge rewrites nothing, so it takes no lock and waits for no Dream.

Files elsewhere in the workspace that hold the string (``reverie.json``, your own notes) are listed
as not changed: they are not memory. Order and recovery: the plain files first, then the repository;
every step is idempotent, so after a crash the same ``purge`` finishes the job.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..dream.lock import dream_run_lock
from ..errors import ReverieError, WorkspaceError
from ..recall.index import remove_external_index
from ..security.scrub import replace_in_file
from ..security.secrets import scan
from ..storage.fsutil import atomic_write
from ..storage.locking import is_lock_file
from ..storage.sessions import SessionStore
from ..text.utf8 import undecodable

if TYPE_CHECKING:
    from ..gitstore import GitStore
    from ..gitstore.purge import HistoryRewrite, HistoryScan
    from ..storage.store import WorkspaceStore

log = logging.getLogger(__name__)

__all__ = [
    "REPLACEMENT",
    "MIN_LENGTH",
    "FileHit",
    "PurgePlan",
    "PurgeResult",
    "plan_purge",
    "purge",
    "describe",
]

REPLACEMENT = "[REDACTED:purged]"
#: Shorter strings would match all over ordinary text; purging them would damage memory, not clean
#: it.
MIN_LENGTH = 4
_SKIP_DIRS = {".git", ".reverie-git", "__pycache__"}
_INDEX_PREFIX = ".index.sqlite"
_LOCK_TIMEOUT = 30.0


@dataclass(frozen=True)
class FileHit:
    """A file holding the string. ``action``: ``redact``, ``delete`` (derived data) or ``keep`` (not
    memory)."""

    path: str  # workspace-relative, POSIX
    occurrences: int
    action: str


@dataclass(frozen=True)
class PurgePlan:
    description: str  # what is removed, safe to show and to record (never the string)
    history: HistoryScan  # the memory repo
    files: tuple[FileHit, ...]

    @property
    def found(self) -> bool:
        """The string is in memory: a version in the repo or a file to redact. The search index
        alone does not count: it is derived, deleted and rebuilt by every purge (``derived``)."""
        return bool(self.history.occurrences) or any(f.action == "redact" for f in self.files)

    @property
    def derived(self) -> bool:
        """A search index exists that might keep an old copy of the string (its deleted rows'
        bytes stay in the file); ``purge`` deletes it and the index is rebuilt from the files."""
        return any(f.action == "delete" for f in self.files)


@dataclass(frozen=True)
class PurgeResult:
    plan: PurgePlan
    rewrite: HistoryRewrite
    files: tuple[FileHit, ...]  # what was redacted or deleted


def describe(text: str) -> str:
    """A description of ``text`` that does not reveal it: its length and, if it is one, its
    credential kind."""
    kinds = sorted({m.kind for m in scan(text)})
    return f"a {len(text)}-character string" + (f" ({', '.join(kinds)})" if kinds else "")


def _check(text: str) -> bytes:
    """``text`` as the bytes to look for, once it is a string that can be in memory: at least
    ``MIN_LENGTH`` characters, not part of the marker, and UTF-8 (a lone surrogate is never
    stored: ``reverie.text.safety.unstorable``), else ``WorkspaceError``."""
    if not isinstance(text, str):
        raise WorkspaceError(f"the text to purge must be a string, not {type(text).__name__}")
    why = undecodable(text)
    if why is not None:
        raise WorkspaceError(f"the text to purge is {why}: send it as UTF-8 text")
    if len(text) < MIN_LENGTH:
        raise WorkspaceError(
            f"the text to purge must be at least {MIN_LENGTH} characters "
            "(it would match everywhere)"
        )
    if text in REPLACEMENT:
        raise WorkspaceError(
            f"cannot purge {text!r}: it is part of the replacement marker {REPLACEMENT}"
        )
    return text.encode("utf-8")


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                yield path


def _find_files(store: WorkspaceStore, git: GitStore, text: str) -> list[FileHit]:
    ws = store.workspace
    tracked = set(git.tracked) | {".gitignore"}
    hits: list[FileHit] = []
    for path in _walk(ws.root):
        rel = path.relative_to(ws.root).as_posix()
        if rel in tracked or is_lock_file(rel):
            continue  # tracked files are rewritten with the repository
        in_memory = rel.startswith(("memory/", "sessions/"))
        if in_memory and path.name.startswith(_INDEX_PREFIX):
            hits.append(FileHit(rel, 0, "delete"))
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            log.warning("purge: cannot read %s: %s", rel, exc.strerror)
            continue
        n = replace_in_file(rel, data, text, REPLACEMENT)[1]
        if n:
            hits.append(FileHit(rel, n, "redact" if in_memory else "keep"))
    return hits


def plan_purge(store: WorkspaceStore, git: GitStore, text: str) -> PurgePlan:
    """What ``purge`` would change; nothing is written, and, as every query, no lock is taken: a
    workspace without a memory repo has no version to scan (``purge`` itself creates it)."""
    # here, not at the top: importing it imports dulwich
    from ..gitstore.purge import HistoryScan, scan_history

    needle = _check(text)
    history = scan_history(git, needle) if git.exists else HistoryScan(0, 0, 0, 0, (), 0)
    return PurgePlan(describe(text), history, tuple(_find_files(store, git, text)))


def purge(
    store: WorkspaceStore,
    git: GitStore,
    text: str,
    *,
    check: Callable[[PurgePlan], None] | None = None,
) -> PurgeResult:
    """Remove ``text`` from memory everywhere (see the module docstring) and record the purge.

    Holds Dream's run lock throughout (waits up to 30 s for a running Dream, then
    ``LockTimeoutError``). ``check``, when given, is called with the plan while every file the
    purge rewrites is held against its writers (the history lock, each conversation's lock), so
    what it reads cannot change before the rewrite; raising from it leaves everything as it was.
    A caller that may purge only while what it found still holds (an adapter erasing one memory's
    text, never another's that shares it) checks there.

    A string found nowhere in memory (``PurgePlan.found`` is False) has nothing to rewrite: no
    lock is taken and nothing is changed, so a running Dream is not waited for; the result's
    ``rewrite.head`` is None, and the caller rebuilds the search index, the one place it may be
    (``Memory.purge``).
    """
    from ..gitstore.purge import HistoryRewrite  # plan_purge has imported dulwich already

    plan = plan_purge(store, git, text)
    if not plan.found:
        if check is not None:
            check(plan)
        return PurgeResult(plan, HistoryRewrite(plan.history, 0, None), ())
    # Dream holds what it read in memory for a whole run: purging under it could see the string
    # re-committed.
    with dream_run_lock(store.workspace.state_dir, "purge", _LOCK_TIMEOUT):
        return _purge_locked(store, git, text, check)


def _purge_locked(
    store: WorkspaceStore,
    git: GitStore,
    text: str,
    check: Callable[[PurgePlan], None] | None,
) -> PurgeResult:
    from ..gitstore.purge import rewrite_history  # imports dulwich: only when a purge really runs

    _settle_dream_cursor(store, git)
    plan = plan_purge(store, git, text)
    sessions = SessionStore(store.workspace, lock_timeout=_LOCK_TIMEOUT)
    done: list[FileHit] = []
    targets = [
        (hit, store.workspace.resolve(hit.path)) for hit in plan.files if hit.action != "keep"
    ]
    with ExitStack() as held:
        # every file to rewrite is locked before any is read: appends wait, so none is lost
        # between a read and its rename, and ``check`` sees what the rewrite will
        held.enter_context(store.history.locked())
        for hit, path in targets:
            if hit.path.startswith("sessions/") and path.suffix == ".jsonl":
                held.enter_context(sessions.locked(path))
        if check is not None:
            check(plan)
        for hit, path in targets:
            if hit.action == "delete":
                path.unlink(missing_ok=True)
            else:
                _rewrite(path, hit.path, text)
            done.append(hit)
    # An index kept outside the workspace (memory.search.indexDir) holds the string too: derived, so
    # deleted.
    remove_external_index(store.workspace, store.config.memory.search.index_dir)
    rewrite = rewrite_history(git, _check(text), REPLACEMENT.encode(), description=plan.description)
    return PurgeResult(plan, rewrite, tuple(done))


def _settle_dream_cursor(store: WorkspaceStore, git: GitStore) -> None:
    """Dream's start-up reconcile, run before the history log's entries are rewritten (under
    Dream's run lock, which the purge holds): a dream commit whose cursor ``.dream_cursor`` has not
    reached yet (a run killed between its commit and the cursor's write) is followed only while the
    log holds the entry it names by digest (``Reverie-Last-Entry``); redacting that entry's text
    would make it another entry, and the batch that commit consumed would be dreamed again. A
    failure does not stop the purge (a string to erase outweighs a batch dreamed twice)."""
    if not git.exists:
        return
    from ..dream.records import Attempts
    from ..dream.transaction import reconcile

    try:
        reconcile(store, git, Attempts.load(store.workspace.state_dir))
    except (ReverieError, OSError) as exc:
        log.warning("purge: the Dream cursor was not settled first (%s); purging anyway", exc)


def _rewrite(path: Path, rel: str, text: str) -> None:
    """Replace ``text`` as the file's format allows (string values of JSON, raw bytes of prose);
    atomic."""
    data, n = replace_in_file(rel, path.read_bytes(), text, REPLACEMENT)
    if n:
        atomic_write(path, data)  # temp, fsync, rename
