"""``/dream-log`` and ``/dream-restore``: memory's versions (``Memory.log``, ``show``, ``restore``).

Each reply is one ``Memory`` call rendered as Markdown; the CLI's ``log``, ``show`` and ``restore``
and the MCP tools make the same calls.
"""

from __future__ import annotations

from ...errors import AmbiguousRevisionError, CommandError
from .render import commit_detail, operation_reply, pending_soul, versions_table
from .router import Command, Invocation

__all__ = ["commands", "parse_restore_args", "VERSIONS_SHOWN"]

#: How many versions ``/dream-restore`` without a sha lists.
VERSIONS_SHOWN = 10


def parse_restore_args(args: list[str]) -> tuple[str | None, bool, bool]:
    """``[sha] [--only] [--replay]`` → ``(sha, only, replay)``; ``CommandError`` on anything
    else."""
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


def _ambiguous(exc: AmbiguousRevisionError) -> str:
    shown = ", ".join(f"`{c[:8]}`" for c in exc.candidates[:8])
    return f"{exc}" + (f" Candidates: {shown}." if shown else "")


async def dream_log(inv: Invocation) -> str:
    memory = inv.memory
    if len(inv.args) > 1:
        raise CommandError("Give at most one sha.")
    try:
        if inv.args:
            return commit_detail(memory.show(inv.args[0]))
        latest = memory.last_dream_commit()
        text = commit_detail(memory.show(latest.sha)) if latest else "Dream has not run yet."
        pending = memory.pending_soul()
        return text + (
            "\n\n" + pending_soul(pending) if pending is not None and not pending.applied else ""
        )
    except AmbiguousRevisionError as exc:
        return _ambiguous(exc)


async def dream_restore(inv: Invocation) -> str:
    sha, only, replay = parse_restore_args(inv.args)
    if sha is None:
        return versions_table(inv.memory.log(limit=VERSIONS_SHOWN))
    # in a worker thread: a scheduled Dream on this event loop may hold the run lock the restore
    # waits for
    try:
        result = await inv.memory.arestore(sha, only=only, replay=replay)
    except AmbiguousRevisionError as exc:
        return _ambiguous(exc)
    return operation_reply("reverted" if only else "restored to before", sha, result)


def commands() -> list[Command]:
    return [
        Command(
            "dream-log",
            dream_log,
            "the latest Dream change (or any commit's) with its diff",
            "/dream-log [sha]",
            takes_args=True,
        ),
        Command(
            "dream-restore",
            dream_restore,
            "list memory's versions, or restore memory to before a change (--only: undo just it)",
            "/dream-restore [sha] [--only] [--replay]",
            takes_args=True,
        ),
    ]
