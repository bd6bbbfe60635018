"""Forgetting a user: every scope of the user under a scope root, and everything kept for them
elsewhere, completely and exclusively.

Order, each step before the next:

1. **Tokens** bound to the user's scopes are revoked (``reverie.access``): from here on no MCP
   request can write to the user again.
2. **Hold** the write fence (``fence.lock``, ``reverie.dream.fence``) of every scope directory of
   the user. Every state write of a Dream run, and a fleet job's bookkeeping in Redis, happens
   under that lock after checking that its workspace is still the directory it started in; so a run
   in flight either wrote before this point (its writes go with the directory) or is refused after
   it and writes nothing, anywhere.
3. While holding them: drop the due markers, **move** the user's directory into ``trash/`` in one
   rename (through directory descriptors opened without following links: only a directory proved to
   be inside the root moves), delete the search index kept outside the root
   (``memory.search.indexDir``), and call ``outside`` with the user's digest — the fleet's hook that
   removes every Redis entry of the user's scopes (due, claims, lease, set aside, failures, crashes,
   parked).
4. **Delete** the trash entry (and any a crash left there before).

A crash after the rename leaves only a trash entry, which the next ``forget-user`` (of anyone)
deletes; run again for the same user, it finishes whatever is left (Redis entries are found by the
user's digest, so they go even when the directory went first).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack

from ..access import TokenFile
from ..config import load_config
from ..dream.fence import section_lock
from ..errors import ReverieError
from ..recall.index import remove_external_index
from ..scopes import ForgetResult, Scope, ScopeRoot, validate_id
from ..workspace import Workspace

__all__ = ["forget_user", "ForgetIncomplete"]

#: How long forget-user waits for a run's write section (milliseconds long) before giving up.
_LOCK_SECONDS = 60.0


class ForgetIncomplete(ReverieError):
    """The user's files are gone but something kept elsewhere could not be removed (Redis down):
    ``result`` says what was removed; running ``forget-user`` again finishes."""

    def __init__(self, result: ForgetResult, reason: str) -> None:
        super().__init__(reason)
        self.result = result


def forget_user(
    root: ScopeRoot | str | os.PathLike[str],
    user: str,
    *,
    outside: Callable[[str], dict[str, int]] | None = None,
) -> ForgetResult:
    """Delete all memory of ``user`` under ``root`` and say what was removed (`ForgetResult`).
    ``outside(user_digest)`` removes what is kept for the user beyond the root (the fleet's Redis
    entries) and returns what it removed, by kind; when it fails, the files are still deleted and
    `ForgetIncomplete` says what is left. Crash-safe: run it again after a crash and it finishes."""
    scopes = root if isinstance(root, ScopeRoot) else ScopeRoot(root)
    user = validate_id(user, "user id")
    digest = Scope(user).user_digest
    revoked = TokenFile(scopes).revoke_user(user)
    scopes.empty_trash()  # a deletion a crash interrupted
    found = scopes.scopes_of(user)
    dirs = scopes.scope_dirs(user)
    index_dirs = {d: load_config(d).memory.search.index_dir for d in dirs}
    failure: str | None = None
    with ExitStack() as held:
        for d in sorted(dirs):
            state = Workspace(d).state_dir
            if state.is_dir():
                held.enter_context(section_lock(state, timeout=_LOCK_SECONDS))
        markers = scopes.drop_due_markers(user)
        entry = scopes.trash_user(user)
        index = [
            str(p)
            for d, index_dir in index_dirs.items()
            for p in remove_external_index(Workspace(d), index_dir)
        ]
        redis: dict[str, int] = {}
        if outside is not None:
            try:
                redis = outside(digest)
            except (ReverieError, OSError) as exc:
                failure = str(exc)
    files, size = scopes.empty_trash(entry) if entry is not None else (0, 0)
    result = ForgetResult(
        user,
        tuple(found),
        files,
        size,
        markers,
        found=bool(found) or entry is not None,
        tokens=len(revoked),
        index_files=tuple(index),
        redis_entries=redis,
    )
    if failure is not None:
        raise ForgetIncomplete(
            result,
            f"the files of user {user!r} are deleted, but not their fleet entries in Redis "
            f"({failure}): run forget-user again when Redis is back",
        )
    return result
