"""``reverie consolidate [KEY]``: archive one session now, or every session whose prompt is over budget."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from ..errors import CommandError
from ._common import add_json_flag, console, emit_json, workspace_of

if TYPE_CHECKING:
    from ..consolidator import ConsolidationResult
    from ..runtime import Runtime


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("key", nargs="?", help="session key (e.g. cli:alice): archive all of it, keeping the session")
    add_json_flag(p)
    p.set_defaults(func=run)


async def _consolidate(rt: Runtime, key: str | None) -> list[ConsolidationResult]:
    if key is not None:
        session = rt.sessions.load(rt.sessions.path_for(key))
        if session is None:
            raise CommandError(f"no session {key!r} in {rt.workspace.sessions_dir}")
        return [await rt.consolidator.archive_all(session)]
    sessions = [rt.sessions.load(info.path) for info in rt.sessions.list()]
    return [await rt.consolidator.maybe_consolidate(s) for s in sessions if s is not None]


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ..activity import ModelActivity
    from ..runtime import Runtime
    from ._status import StatusLine

    activity = ModelActivity()
    with StatusLine(activity, enabled=not args.json):
        results = asyncio.run(_consolidate(Runtime(workspace_of(args), activity=activity), args.key))
    if args.json:
        emit_json(results)
        return 0
    table = Table(box=None, pad_edge=False)
    for column in ("session", "archived", "history entries", "tokens before → after", "stopped"):
        table.add_column(column)
    for r in results:
        table.add_row(escape(r.session_key), str(r.archived_messages), ", ".join(map(str, r.cursors)) or "—",
                      f"{r.estimate_before:,} → {r.estimate_after:,}", r.stop)
    console.print(table if results else "[dim](no sessions)[/]")
    return 0
