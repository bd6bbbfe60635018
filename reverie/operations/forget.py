"""Forgetting a user: every scope of the user under a scope root, and everything kept for them
elsewhere, completely and exclusively.

**Which directories.** The user's own (the digest of the id as this version reads it), and every
user directory an older version recorded under an id this one changes or refuses
(``ScopeRoot.legacy_users``): those whose recorded id now reads as ``user`` (a full-width
``ａｌｉｃｅ`` recorded before ids were NFKC-normalised is ``alice`` now), or, for an id this
version refuses (a mixed-script one), those recorded under exactly that id. Each is forgotten by
its directory's digest, the same way.

**Order**, chosen so that a failure at any step leaves a state the next run completes (each step is
idempotent and nothing later depends on one that failed):

0. **Look, change nothing**: which directories, each scope's ``memory.search.indexDir`` (a
   workspace whose ``reverie.json`` is invalid falls back to the home config's, with a warning: a
   broken config never blocks forgetting). What fails here fails before anything changed.
1. **Tokens** bound to the user's scopes are revoked (``reverie.storage.access``): from here on no
MCP
   request can write for the user again.
2. A deletion a crash interrupted for these directories (``trash/<digest>.*``) is finished.
3. For each directory, **holding** the write fence (``fence.lock``, ``reverie.dream.fence``) of
   every scope in it: drop the due markers, **move** it into ``trash/`` in one rename (through
   directory descriptors opened without following links), delete the search index kept outside
   the root, and call ``outside`` with the digest — the fleet's hook that removes every Redis entry
   of the scopes (due, claims, lease, set aside, failures, crashes, parked). Every state write of a
   Dream run, and a fleet job's bookkeeping in Redis, happens under that lock after checking that
   its workspace is still the directory it started in; so a run in flight either wrote before (its
   writes go with the directory) or is refused after and writes nothing, anywhere.
4. **Delete** the trash entries; take the directories off the legacy list; sweep what other runs
   left in the trash.

A failure after step 1 raises `ForgetIncomplete` with what was removed so far and says to run
``forget-user`` again, which finishes: tokens are found again by id, directories by digest, trash
entries by their digest prefix, Redis entries by the digest even after the files went.
"""

from __future__ import annotations

import logging
import os
import unicodedata
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field

from ..dream.fence import section_lock
from ..errors import InvalidScopeError, ReverieError, UnsafePathError
from ..recall.index import remove_external_index
from ..storage.access import TokenFile
from ..storage.config import load_config
from ..storage.scopes import ForgetResult, LegacyUser, Scope, ScopeRoot, read_scope, validate_id
from ..storage.workspace import Workspace

__all__ = ["forget_user", "ForgetIncomplete", "forget_targets"]

log = logging.getLogger(__name__)

#: How long forget-user waits for a run's write section (milliseconds long) before giving up.
_LOCK_SECONDS = 60.0


class ForgetIncomplete(ReverieError):
    """Something could not be removed (Redis down, a file that cannot be deleted): ``result``
    says what was removed; running ``forget-user`` again finishes."""

    def __init__(self, result: ForgetResult, reason: str) -> None:
        super().__init__(reason)
        self.result = result


@dataclass
class _Target:
    """One user directory to forget: its digest, the id it was recorded under, and what step 0
    found in it."""

    digest: str
    recorded: str
    legacy: bool
    dirs: list[os.PathLike[str]] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)
    index_dirs: dict[str, str | None] = field(default_factory=dict)


def forget_targets(scopes: ScopeRoot, user: str) -> tuple[str | None, list[LegacyUser]]:
    """The id ``user`` reads as (None: this version refuses it) and the legacy user directories
    it names (see the module docstring); `InvalidScopeError` for a refused id naming none."""
    try:
        now: str | None = validate_id(user, "user id")
    except InvalidScopeError:
        now = None
    wanted = unicodedata.normalize("NFC", user)
    legacy = [
        u
        for u in scopes.legacy_users()
        if (u.now == now if now is not None else u.user in (user, wanted))
    ]
    if now is None and not legacy:
        validate_id(user, "user id")  # raises the refusal, in one line
    return now, legacy


def forget_user(
    root: ScopeRoot | str | os.PathLike[str],
    user: str,
    *,
    outside: Callable[[str], dict[str, int]] | None = None,
) -> ForgetResult:
    """Delete all memory of ``user`` under ``root`` and say what was removed (`ForgetResult`).
    ``outside(user_digest)`` removes what is kept for the user beyond the root (the fleet's Redis
    entries) and returns what it removed, by kind. Crash-safe and failure-safe: when a step fails,
    `ForgetIncomplete` says what was removed, and running it again finishes."""
    scopes = root if isinstance(root, ScopeRoot) else ScopeRoot(root)
    now, legacy = forget_targets(scopes, user)
    targets = [_Target(Scope(now).user_digest, now, False)] if now is not None else []
    targets += [_Target(u.digest, u.user, True) for u in legacy]
    for t in targets:  # 0. look, change nothing
        try:
            _look(scopes, t)
        except UnsafePathError as exc:  # a planted link: say how to go on
            raise UnsafePathError(
                f"{exc}: forget-user deletes nothing through a link; remove the link itself (what "
                "it points to may be another user's and is left alone), then run it again"
            ) from None
    shown = now if now is not None else user
    done = _Done()
    try:
        revoked = TokenFile(scopes).revoke_user(shown, [t.recorded for t in targets])  # 1.
        done.tokens = len(revoked)
        for t in targets:
            scopes.empty_trash(prefix=t.digest + ".")  # 2.
        for t in targets:
            _forget_dir(scopes, t, outside, done)  # 3.
        for entry in done.entries:  # 4.
            files, size = scopes.empty_trash(prefix=entry)
            done.files += files
            done.bytes += size
        scopes.forget_legacy({t.digest for t in targets if t.legacy})
        scopes.empty_trash()  # what a crashed run of another user left
    except (ReverieError, OSError) as exc:
        what = str(exc) if isinstance(exc, ReverieError) else f"{type(exc).__name__}: {exc}"
        done.failure = done.failure or what
    result = done.result(shown, targets, outside is not None)
    if done.failure is not None:
        raise ForgetIncomplete(
            result,
            f"forget-user {shown!r} did not finish ({done.failure}); what is listed was removed: "
            "run forget-user again to finish",
        )
    return result


@dataclass
class _Done:
    tokens: int = 0
    markers: int = 0
    files: int = 0
    bytes: int = 0
    entries: list[str] = field(default_factory=list)
    index: list[str] = field(default_factory=list)
    redis: dict[str, int] = field(default_factory=dict)
    redis_done: bool = True
    failure: str | None = None

    def result(self, user: str, targets: list[_Target], fleet: bool) -> ForgetResult:
        return ForgetResult(
            user,
            tuple(s for t in targets for s in t.scopes),
            self.files,
            self.bytes,
            self.markers,
            found=bool(self.entries) or any(t.scopes for t in targets),
            tokens=self.tokens,
            index_files=tuple(self.index),
            redis_entries=self.redis,
            redis="cleaned" if fleet and self.redis_done else "failed" if fleet else "none",
            legacy=tuple(t.recorded for t in targets if t.legacy and (t.dirs or t.scopes)),
        )


def _look(scopes: ScopeRoot, t: _Target) -> None:
    """Step 0 for one directory: its scopes and each scope's external index directory."""
    dirs = scopes.scope_dirs_of(t.digest)
    t.dirs = list(dirs)
    t.scopes = [s for s in (read_scope(d) for d in dirs) if s is not None]
    for d in dirs:
        try:
            t.index_dirs[str(d)] = load_config(d).memory.search.index_dir
        except ReverieError as exc:  # a broken reverie.json must not keep a user from going
            log.warning(
                "%s: its config is unreadable (%s); using the home config's indexDir", d, exc
            )
            t.index_dirs[str(d)] = load_config().memory.search.index_dir


def _forget_dir(
    scopes: ScopeRoot,
    t: _Target,
    outside: Callable[[str], dict[str, int]] | None,
    done: _Done,
) -> None:
    """Step 3 for one directory (see the module docstring)."""
    with ExitStack() as held:
        for d in sorted(str(p) for p in t.dirs):
            state = Workspace(d).state_dir
            if state.is_dir():
                held.enter_context(section_lock(state, timeout=_LOCK_SECONDS))
        done.markers += scopes.drop_due_markers(t.digest)
        entry = scopes.trash_user(t.digest)
        if entry is not None:
            done.entries.append(entry)
        for d, index_dir in t.index_dirs.items():
            done.index += [str(p) for p in remove_external_index(Workspace(d), index_dir)]
        if outside is not None:
            try:
                for kind, n in outside(t.digest).items():
                    done.redis[kind] = done.redis.get(kind, 0) + n
            except (ReverieError, OSError) as exc:
                done.redis_done = False
                done.failure = done.failure or str(exc)
