"""``reverie search QUERY [-k N] [--json] [--kind K] [--session KEY] [--since D] [--until D]``."""

from __future__ import annotations

import argparse

from rich.markup import escape

from ._common import add_json_flag, console, count, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", nargs="+", help="what to look for")
    p.add_argument(
        "-k",
        "--limit",
        dest="k",
        type=count(1, 1000),
        default=10,
        help="how many hits (default 10)",
    )
    p.add_argument(
        "--kind",
        action="append",
        choices=["memory", "history", "dated", "session"],
        help="only this source kind",
    )
    p.add_argument("--session", help="only this session key")
    p.add_argument("--since", help="only items at or after this ISO date")
    p.add_argument("--until", help="only items before this ISO date")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_memory(args, existing=True) as memory:
        hits = memory.recall(
            " ".join(args.query),
            limit=args.k,
            kinds=args.kind,
            session=args.session,
            since=args.since,
            until=args.until,
        )
    if args.json:
        emit_json([h.to_dict() for h in hits])
        return 0
    if not hits:
        console.print("[dim]no matches[/]")
    for n, h in enumerate(hits, 1):
        when = f" · {h.timestamp:%Y-%m-%d %H:%M}" if h.timestamp else ""
        console.print(
            f"[bold]{n}.[/] [cyan]{escape(str(h.source))}[/][dim]{when} · {h.score:.4f}[/]"
        )
        console.print(f"   {escape(h.snippet)}")
    return 0
