"""``reverie approve`` / ``reverie reject``: apply or drop the SOUL.md change Dream staged (``dream.protectSoul``)."""

from __future__ import annotations

import argparse

from ..errors import NothingPendingError
from ._common import add_json_flag, console, emit_json, open_memory
from ._render import print_diff


def configure_approve(p: argparse.ArgumentParser) -> None:
    p.add_argument("--show", action="store_true", help="only show the pending change and its diff")
    add_json_flag(p)
    p.set_defaults(func=run_approve)


def configure_reject(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run_reject)


def run_approve(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    if args.show:
        change = memory.pending_soul()
        if change is None:
            console.print("[dim]no SOUL.md change is pending[/]")
        elif args.json:
            emit_json(change)
        else:
            print_diff(change.diff())
        return 0
    try:
        result = memory.approve()
    except NothingPendingError:  # the same answer as `reject` with nothing pending
        if args.json:
            emit_json({"pending": False, "commit": None})
        else:
            console.print("[dim]no SOUL.md change is pending[/]")
        return 0
    if args.json:
        emit_json(result)
    elif result.commit is None:
        console.print("SOUL.md already held the approved change; cleared the pending record")
    else:
        how = " (merged with your later edits)" if result.merged else ""
        console.print(
            f"approved: SOUL.md +{result.added} -{result.removed}{how}, commit {result.commit[:8]}"
        )
    return 0


def run_reject(args: argparse.Namespace) -> int:
    dropped = open_memory(args).reject()
    if args.json:
        emit_json(
            {
                "pending": dropped is not None,
                "dropped": dropped is not None,
                "commit": dropped.commit if dropped else None,
                "kept": dropped.kept if dropped else None,
            }
        )
    elif dropped is None:
        console.print("[dim]no SOUL.md change is pending[/]")
    else:
        undo = (
            f"; `reverie restore {dropped.commit[:8]} --only` puts it back"
            if dropped.commit
            else ""
        )
        console.print(f"rejected the pending SOUL.md change (kept{undo})")
    return 0
