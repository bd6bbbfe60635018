"""Forgetting a user: every scope of the user under a scope root.

`reverie.scopes.ScopeRoot.forget_user` removes the user's directory (workspaces, their git history,
sessions, the search index inside them) and the due markers. Front-ends call this function, which
also removes what is kept for the user outside that directory: a search index on local disk
(``memory.search.indexDir``) and the MCP bearer tokens bound to the user's scopes
(``reverie.access``).
"""

from __future__ import annotations

import os
from dataclasses import replace

from ..access import TokenFile
from ..config import load_config
from ..recall.index import remove_external_index
from ..scopes import ForgetResult, Scope, ScopeRoot

__all__ = ["forget_user"]


def forget_user(root: ScopeRoot | str | os.PathLike[str], user: str) -> ForgetResult:
    """Delete all memory of ``user`` under ``root`` and say what was removed (`ForgetResult`).
    Crash-safe: run it again after a crash and it finishes."""
    scopes = root if isinstance(root, ScopeRoot) else ScopeRoot(root)

    def outside(scope: Scope) -> None:
        ws = scopes.workspace(scope)
        remove_external_index(ws, load_config(ws.root).memory.search.index_dir)

    revoked = TokenFile(scopes).revoke_user(
        user
    )  # first: from here on no request can write to the user again
    return replace(scopes.forget_user(user, extra=outside), tokens=len(revoked))
