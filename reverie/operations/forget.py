"""Forgetting a user: every scope of the user under a scope root.

`reverie.scopes.ScopeRoot.forget_user` removes the user's directory (workspaces, their git history, sessions,
the search index inside them) and the due markers. Front-ends call this function, which also removes what is kept
for the user outside that directory: a search index on local disk (``memory.search.indexDir``).
"""

from __future__ import annotations

import os

from ..config import load_config
from ..recall.index import remove_external_index
from ..scopes import ForgetResult, Scope, ScopeRoot

__all__ = ["forget_user"]


def forget_user(root: ScopeRoot | str | os.PathLike[str], user: str) -> ForgetResult:
    """Delete all memory of ``user`` under ``root`` and say what was removed (`ForgetResult`). Crash-safe: run it
    again after a crash and it finishes."""
    scopes = root if isinstance(root, ScopeRoot) else ScopeRoot(root)

    def outside(scope: Scope) -> None:
        ws = scopes.workspace(scope)
        remove_external_index(ws, load_config(ws.root).memory.search.index_dir)

    return scopes.forget_user(user, extra=outside)
