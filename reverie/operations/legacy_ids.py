"""Ids an older version recorded that this one changes or refuses: find them, and migrate a user
directory to an id of today (``reverie --root DIR legacy-ids``; forgetting them is
``reverie.operations.forget``).

Before ids were NFKC-normalised and checked for one script, a full-width ``ａｌｉｃｅ`` and a
mixed-script ``аlice`` were users of their own, each in the directory its id's digest names. This
version reads the first as ``alice`` and refuses the second, so no ``--user`` reaches either
directory again. `ScopeRoot.legacy_users` lists them (one scan of the root, kept in
``legacy-ids.json``); an MCP token recorded for such an id is ignored (``reverie.storage.access``),
never taken for the user the id names now; ``forget-user`` removes them with the user they now name
(or, for a refused id, given exactly); `migrate` gives one an id of today, when that id has no
memory of its own (two users' memories are never merged).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass

from ..dream.fence import section_lock
from ..errors import CommandError
from ..storage.access import TokenFile
from ..storage.scopes import LegacyUser, Scope, ScopeRoot, validate_id
from ..storage.workspace import Workspace

__all__ = ["legacy_users", "migrate", "Migrated"]

_LOCK_SECONDS = 60.0


@dataclass(frozen=True)
class Migrated:
    """What `migrate` did: the recorded id, the id now, the tokens rebound, the due markers moved
    and the fleet's Redis entries of the old names removed."""

    recorded: str
    user: str
    tokens: int
    markers: int
    redis_entries: dict[str, int]


def legacy_users(
    root: ScopeRoot | str | os.PathLike[str], *, rescan: bool = True
) -> list[LegacyUser]:
    """Every user directory recorded under an id this version changes or refuses (a scan)."""
    scopes = root if isinstance(root, ScopeRoot) else ScopeRoot(root)
    return scopes.legacy_users(rescan=rescan)


def migrate(
    root: ScopeRoot | str | os.PathLike[str],
    recorded: str,
    to: str | None = None,
    *,
    outside: Callable[[str], dict[str, int]] | None = None,
) -> Migrated:
    """Give the legacy user recorded as ``recorded`` the id ``to`` (default: the id it reads as
    now; a refused id needs one). Holding every scope's write fence, its directory moves to
    ``to``'s place, its files record ``to``, its due markers follow it, its MCP tokens are bound
    to ``to``, and the fleet's Redis entries of the old names go (``outside``)."""
    scopes = root if isinstance(root, ScopeRoot) else ScopeRoot(root)
    found = [u for u in scopes.legacy_users() if u.user == recorded]
    if not found:
        raise CommandError(
            f"no user recorded as {recorded!r} by an older version under {scopes.root} "
            "(reverie --root DIR legacy-ids lists them)"
        )
    legacy = found[0]
    if to is None and legacy.now is None:
        raise CommandError(
            f"{recorded!r} is refused by this version ({legacy.problem}): give the id to migrate "
            "it to with --to"
        )
    user = validate_id(to if to is not None else legacy.now)
    new = Scope(user).user_digest
    with ExitStack() as held:
        for held_dir in sorted(str(p) for p in scopes.scope_dirs_of(legacy.digest)):
            state = Workspace(held_dir).state_dir
            if state.is_dir():
                held.enter_context(section_lock(state, timeout=_LOCK_SECONDS))
        old_markers = scopes.drop_due_markers(legacy.digest)
        scopes.move_user(legacy.digest, user)
    markers = 0
    for d in scopes.scope_dirs_of(new):
        name = new if d.name == "workspace" else f"{new}.{d.name}"
        if old_markers:
            scopes.mark_due(name)  # pending history keeps its wake-up under the new name
            markers += 1
    rebound = TokenFile(scopes).rebind_user(legacy.user, user)
    redis = outside(legacy.digest) if outside is not None else {}
    scopes.forget_legacy({legacy.digest})
    return Migrated(legacy.user, user, len(rebound), markers, redis)
