"""``reverie restore [sha] [--only] [--replay]``: the CLI face of ``/dream-restore`` (the same
Memory verbs)."""

from __future__ import annotations

import argparse

from ..errors import CommandError
from ._common import add_json_flag, console, emit_json, open_memory
from ._render import commit_table, print_operation


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("sha", nargs="?")
    p.add_argument(
        "--only", action="store_true", help="undo just that commit, keeping later changes (revert)"
    )
    p.add_argument(
        "--replay",
        action="store_true",
        help="also rewind the Dream cursor so the batch is re-dreamed",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..chat.commands.memory_cmds import VERSIONS_SHOWN

    if args.sha is None and (args.only or args.replay):
        raise CommandError("--only and --replay need a sha")
    memory = open_memory(args, existing=True)
    if args.sha is None:
        commits = memory.log(limit=VERSIONS_SHOWN)
        if args.json:
            emit_json(commits)
        else:
            console.print(commit_table(commits))
        return 0
    result = memory.restore(args.sha, only=args.only, replay=args.replay)
    if args.json:
        emit_json(result)
    else:
        print_operation("reverted" if args.only else "restored to before", args.sha, result)
    return 0
