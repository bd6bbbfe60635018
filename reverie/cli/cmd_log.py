"""``reverie log [sha] [-n N] [--kind K] [--path P] [--text T] [--since D] [--until D]`` and
``reverie show sha``: memory's versions (GitStore.log / show)."""

from __future__ import annotations

import argparse
from datetime import date

from ._common import add_json_flag, console, count, emit_json, open_memory
from ._render import commit_table, print_commit


def configure_log(p: argparse.ArgumentParser) -> None:
    p.add_argument("sha", nargs="?", help="show this commit with its diff instead of the list")
    p.add_argument(
        "-n",
        "--limit",
        dest="n",
        type=count(1),
        default=20,
        metavar="N",
        help="how many commits (default 20)",
    )
    p.add_argument(
        "--kind", help="only commits of this kind (dream, restore, revert, manual, init, ...)"
    )
    p.add_argument("--path", help="only commits touching this tracked file")
    p.add_argument(
        "--text", help="only commits whose subject or a line they added or removed holds TEXT"
    )
    p.add_argument("--since", type=_day, metavar="YYYY-MM-DD", help="only commits from this day on")
    p.add_argument("--until", type=_day, metavar="YYYY-MM-DD", help="only commits up to this day")
    add_json_flag(p)
    p.set_defaults(func=run_log)


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date (YYYY-MM-DD)") from None


def configure_show(p: argparse.ArgumentParser) -> None:
    p.add_argument("sha")
    add_json_flag(p)
    p.set_defaults(func=run_show)


def run_log(args: argparse.Namespace) -> int:
    if args.sha:
        return run_show(args)
    memory = open_memory(args, existing=True)
    commits = memory.log(
        limit=max(args.n, 1),
        kind=args.kind,
        path=args.path,
        text=args.text,
        since=args.since,
        until=args.until,
    )
    if not commits and not args.json and not memory.runtime.git.exists:
        console.print("[dim](no memory repo yet: the first write creates it)[/]")
        return 0
    if args.json:
        emit_json(commits)
    elif commits:
        console.print(commit_table(commits))
    else:
        console.print("[dim](no commits)[/]")
    return 0


def run_show(args: argparse.Namespace) -> int:
    detail = open_memory(args, existing=True).show(args.sha)
    if args.json:
        emit_json(detail)
    else:
        print_commit(detail)
    return 0
