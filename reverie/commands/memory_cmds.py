"""``/dream-log`` and ``/dream-restore``: memory's versions, over GitStore.

Each reply is one GitStore call rendered as Markdown; the CLI's ``log``, ``show`` and ``restore`` make the same
calls (``restore_or_revert`` is shared so the flag handling cannot drift).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..dream.pending import load_pending
from ..errors import AmbiguousRevisionError, CommandError
from .render import commit_detail, operation_reply, pending_soul, versions_table
from .router import Command, Invocation

if TYPE_CHECKING:
    from ..gitstore.types import OperationResult
    from ..runtime import Runtime

__all__ = ["commands", "restore_or_revert", "parse_restore_args"]

#: How many versions ``/dream-restore`` without a sha lists.
VERSIONS_SHOWN = 10


def parse_restore_args(args: list[str]) -> tuple[str | None, bool, bool]:
    """``[sha] [--only] [--replay]`` → ``(sha, only, replay)``; ``CommandError`` on anything else."""
    sha, only, replay = None, False, False
    for arg in args:
        if arg == "--only":
            only = True
        elif arg == "--replay":
            replay = True
        elif arg.startswith("-"):
            raise CommandError(f"Unknown option `{arg}` (allowed: `--only`, `--replay`).")
        elif sha is None:
            sha = arg
        else:
            raise CommandError(f"Give one sha, not several (`{sha}`, `{arg}`).")
    if sha is None and (only or replay):
        raise CommandError("`--only` and `--replay` need a sha.")
    return sha, only, replay


def restore_or_revert(runtime: Runtime, sha: str, *, only: bool = False, replay: bool = False) -> OperationResult:
    """Restore memory to before ``sha`` — or, with ``only``, undo just that change — under Dream's run lock, the
    cursor rewound with ``replay`` (``reverie.operations.restore``)."""
    from ..operations.restore import restore_memory

    return restore_memory(runtime.store, runtime.git, sha, only=only, replay=replay)


def _ambiguous(exc: AmbiguousRevisionError) -> str:
    shown = ", ".join(f"`{c[:8]}`" for c in exc.candidates[:8])
    return f"{exc}" + (f" Candidates: {shown}." if shown else "")


async def dream_log(inv: Invocation) -> str:
    git = inv.runtime.git
    if len(inv.args) > 1:
        raise CommandError("Give at most one sha.")
    try:
        if inv.args:
            return commit_detail(git.show(inv.args[0]))
        latest = git.log(limit=1, kind="dream")
        text = commit_detail(git.show(latest[0].sha)) if latest else "Dream has not run yet."
        pending = load_pending(inv.runtime.store)
        return text + ("\n\n" + pending_soul(pending) if pending is not None and not pending.applied else "")
    except AmbiguousRevisionError as exc:
        return _ambiguous(exc)


async def dream_restore(inv: Invocation) -> str:
    sha, only, replay = parse_restore_args(inv.args)
    git = inv.runtime.git
    if sha is None:
        return versions_table(git.log(limit=VERSIONS_SHOWN))
    try:  # in a worker thread: a scheduled Dream on this event loop may hold the run lock the restore waits for
        result = await asyncio.to_thread(restore_or_revert, inv.runtime, sha, only=only, replay=replay)
    except AmbiguousRevisionError as exc:
        return _ambiguous(exc)
    return operation_reply("reverted" if only else "restored to before", sha, result)


def commands() -> list[Command]:
    return [
        Command("dream-log", dream_log, "the latest Dream change (or any commit's) with its diff",
                "/dream-log [sha]", takes_args=True),
        Command("dream-restore", dream_restore,
                "list memory's versions, or restore memory to before a change (--only: undo just it)",
                "/dream-restore [sha] [--only] [--replay]", takes_args=True),
    ]
