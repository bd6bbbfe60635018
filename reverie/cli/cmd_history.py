"""``reverie history append|show``: write to and read the history log (memory/history.jsonl)."""

from __future__ import annotations

import argparse

from rich.markup import escape

from ..text.safety import printable
from ._common import add_json_flag, console, count, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    hs = p.add_subparsers(dest="history_command", metavar="ACTION")
    hs.required = True
    a = hs.add_parser("append", help="append an entry and print its cursor")
    a.add_argument("text")
    a.add_argument("--session", metavar="KEY", help="session key to record with the entry")
    add_json_flag(a)
    a.set_defaults(func=run_append)
    s = hs.add_parser("show", help="show entries")
    s.add_argument(
        "--since",
        type=count(0),
        default=0,
        metavar="N",
        help="only entries with a cursor greater than N",
    )
    s.add_argument("--limit", type=count(1), default=None, metavar="N", help="at most N entries")
    add_json_flag(s)
    s.set_defaults(func=run_show)


def run_append(args: argparse.Namespace) -> int:
    cursor = open_memory(args).remember(args.text, session_key=args.session).cursor
    if args.json:
        emit_json({"cursor": cursor})
    else:
        print(cursor)
    return 0


def run_show(args: argparse.Namespace) -> int:
    entries = open_memory(args, existing=True).history(since=args.since, limit=args.limit)
    if args.json:
        emit_json(
            [
                {
                    "cursor": e.cursor,
                    "timestamp": e.timestamp,
                    "content": e.content,
                    "session_key": e.session_key,
                }
                for e in entries
            ]
        )
        return 0
    for e in entries:
        session = f" [dim]{escape(printable(e.session_key))}[/]" if e.session_key else ""
        console.print(f"[bold cyan]{e.cursor}[/] [dim]{escape(printable(e.timestamp))}[/]{session}")
        console.print(escape(printable(e.content)), highlight=False)
    if not entries:
        console.print("[dim](no entries)[/]")
    return 0
