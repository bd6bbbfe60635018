"""Consolidation as jobs: ``/new`` and idle consolidation, for a worker that is not the chat
process (the fleet's Celery tasks, a cron), each under the session's consolidator lock.

Token-pressure consolidation stays inline in the chat process (``Consolidator.maybe_consolidate``
before a turn), because the next prompt needs it. The two kinds no prompt waits for can run
anywhere, as these plain functions of a workspace and a session key: each goes through the
``Memory`` verbs (one implementation), and the Consolidator takes ``<session
file>.consolidate.lock`` around every consolidation, as every consolidator does, so a job and the
chat process never consolidate the same messages twice; history appends mark a scope due as usual.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from ..consolidator import ConsolidationResult
from ..errors import SessionError
from ..storage.config import Config
from ..storage.workspace import Workspace
from .core import Memory, wrap
from .runtime import Runtime

__all__ = ["end_session", "consolidate_idle_sessions", "archive_idle_sessions"]


def _open(workspace: Workspace | str | os.PathLike[str] | Memory, config: Config | None) -> Memory:
    if isinstance(workspace, Memory):
        return workspace
    return wrap(Runtime(workspace, config=config))


async def end_session(
    workspace: Workspace | str | os.PathLike[str] | Memory,
    session_key: str,
    *,
    config: Config | None = None,
) -> ConsolidationResult:
    """``/new`` as a job: consolidate every message of ``session_key`` not yet in history, then
    clear the session (crash-safe order: consolidate, then clear). ``SessionError`` when there is no
    such session.
    """
    memory = _open(workspace, config)
    try:
        result = await memory.aclear(session_key)
        if result is None:
            raise SessionError(f"no session {session_key!r} in {memory.workspace.sessions_dir}")
        return result
    finally:
        if not isinstance(workspace, Memory):
            memory.close()


async def consolidate_idle_sessions(
    workspace: Workspace | str | os.PathLike[str] | Memory,
    *,
    idle_minutes: float = 60,
    now: datetime | None = None,
    config: Config | None = None,
) -> list[ConsolidationResult]:
    """Consolidate (without clearing) every session not updated for ``idle_minutes`` that has
    messages not yet in history; returns one result per session consolidated. Sessions in use are
    left to the chat process."""
    memory = _open(workspace, config)
    try:
        cutoff = (now or datetime.now()) - timedelta(minutes=idle_minutes)
        idle = [
            info
            for info in memory.runtime.sessions.list()
            if info.messages > info.last_consolidated and _naive(info.updated_at) <= _naive(cutoff)
        ]
        results = []
        for info in idle:
            results.extend(await memory.aconsolidate(info.key))
        return results
    finally:
        if not isinstance(workspace, Memory):
            memory.close()


def _naive(when: datetime) -> datetime:
    """Session times are local and naive (nanobot's format); compare like with like."""
    return when.astimezone().replace(tzinfo=None) if when.tzinfo is not None else when


#: ``consolidate_idle_sessions`` by its first name, kept for callers (docs/glossary.md).
archive_idle_sessions = consolidate_idle_sessions
