"""``reverie consolidate [KEY]``: consolidate one session into history now, or every session over
its budget."""

from __future__ import annotations

import argparse

from rich.markup import escape
from rich.table import Table

from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "key",
        nargs="?",
        help="session key (e.g. cli:alice): consolidate all of it, keeping the session",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..llm.activity import ModelActivity
    from ._status import StatusLine

    activity = ModelActivity()
    with StatusLine(activity, enabled=not args.json):
        results = open_memory(args, existing=True, activity=activity).consolidate(args.key)
    if args.json:
        emit_json(results)
        return 0
    table = Table(box=None, pad_edge=False)
    for column in ("session", "archived", "history entries", "tokens before → after", "stopped"):
        table.add_column(column)
    for r in results:
        table.add_row(
            escape(r.session_key),
            str(r.consolidated_messages),
            ", ".join(map(str, r.cursors)) or "—",
            f"{r.estimate_before:,} → {r.estimate_after:,}",
            r.stop,
        )
    console.print(table if results else "[dim](no sessions)[/]")
    return 0
