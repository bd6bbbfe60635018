"""``reverie requeue [FIRST ...|--all]``: list the batches Dream set aside, or put them back in
front of the queue."""

from __future__ import annotations

import argparse

from rich.markup import escape

from ._common import add_json_flag, console, emit_json, err_console, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "first",
        nargs="*",
        type=int,
        help="first history cursor of a set-aside batch (see the list)",
    )
    p.add_argument("--all", action="store_true", help="requeue every set-aside batch")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    memory = open_memory(args, existing=True)
    if not args.first and not args.all:
        aside, waiting = memory.set_aside(), memory.queued()
        if args.json:
            emit_json({"set_aside": aside, "queued": waiting})
            return 0
        for d in aside:
            console.print(f"set aside  history {d.first}–{d.last}  {d.time}  {escape(d.reason)}")
        for d in waiting:
            console.print(
                f"[green]requeued[/]   history {d.first}–{d.last}  "
                "(runs with the next `reverie dream`)"
            )
        if not aside and not waiting:
            console.print("no batch is set aside")
        elif aside:
            console.print("[dim]requeue with: reverie requeue FIRST … or --all[/]")
        return 0
    done = memory.requeue(None if args.all else args.first)
    # A FIRST that starts no set-aside batch is a user error (exit 1, its line); --all with nothing
    # set aside has nothing to do, which is not one (exit 0, and it says so).
    missing = [] if args.all else sorted(set(args.first) - {d.first for d in done})
    if args.json:
        emit_json({"requeued": done, "not_found": missing})
        return 1 if missing else 0
    for d in done:
        console.print(
            f"requeued history {d.first}–{d.last}: the next `reverie dream` runs it again"
        )
    for first in missing:
        err_console.print(f"reverie: error: no set-aside batch starts at {first}")
    if not done and not missing:
        console.print("no batch is set aside")
    return 1 if missing else 0
