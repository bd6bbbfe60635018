"""``reverie approve`` / ``reverie reject``: apply or drop the SOUL.md change Dream staged
(``dream.protectSoul``).

Both act only on the proposal the person saw: the id ``--show`` prints (``reverie approve ID``), or
the diff shown and confirmed at a terminal. Dream may widen a waiting proposal at any time; a
proposal that changed since it was shown is refused (``PendingChangedError``), never applied unseen.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from ..errors import NothingPendingError
from ..memory import Memory
from ._common import add_json_flag, console, emit_json, open_memory
from ._render import print_diff


def _add_change(p: argparse.ArgumentParser, verb: str) -> None:
    p.add_argument(
        "change",
        nargs="?",
        help=f"the proposal's id as `reverie approve --show` prints it: {verb} only that proposal",
    )


def configure_approve(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--show", action="store_true", help="only show the SOUL.md proposal and its diff"
    )
    _add_change(p, "apply")
    add_json_flag(p)
    p.set_defaults(func=run_approve)


def configure_reject(p: argparse.ArgumentParser) -> None:
    _add_change(p, "drop")
    add_json_flag(p)
    p.set_defaults(func=run_reject)


def _chosen(memory: Memory, args: argparse.Namespace, verb: str) -> tuple[bool, str | None]:
    """Whether to go on, and the proposal the person named (its id or a prefix, checked by the verb
    under its lock) or confirmed at a terminal; None: act on whatever proposal is waiting, as a
    script that names none does. Not going on: declined at the prompt."""
    if args.change:
        return True, args.change
    change = memory.pending_soul()
    if change is None or args.json or not (sys.stdin and sys.stdin.isatty()):
        return True, None
    print_diff(change.diff())
    answer = input(f"{verb.capitalize()} this SOUL.md change ({change.id[:12]})? [y/N] ")
    return answer.strip().lower() in ("y", "yes"), change.id


def run_approve(args: argparse.Namespace) -> int:
    memory = open_memory(args, existing=True)
    if args.show:
        change = memory.pending_soul()
        if change is None:
            console.print("[dim]no SOUL.md proposal is waiting[/]")
        elif args.json:
            emit_json(dataclasses.asdict(change) | {"id": change.id})
        else:
            print_diff(change.diff())
            console.print(
                f"change {change.id[:12]}: `reverie approve {change.id[:12]}` applies it, "
                f"`reverie reject {change.id[:12]}` drops it"
            )
        return 0
    go, chosen = _chosen(memory, args, "apply")
    if not go:
        console.print("[dim]nothing applied[/]")
        return 1
    try:
        result = memory.approve(change=chosen)
    except NothingPendingError:  # the same answer as `reject` with no proposal
        if args.json:
            emit_json({"pending": False, "commit": None})
        else:
            console.print("[dim]no SOUL.md proposal is waiting[/]")
        return 0
    if args.json:
        emit_json(result)
    elif result.commit is None:
        console.print("SOUL.md already held the approved change; cleared the proposal's record")
    else:
        how = " (merged with your later edits)" if result.merged else ""
        console.print(
            f"approved: SOUL.md +{result.added} -{result.removed}{how}, commit {result.commit[:8]}"
        )
    return 0


def run_reject(args: argparse.Namespace) -> int:
    memory = open_memory(args, existing=True)
    go, chosen = _chosen(memory, args, "drop")
    if not go:
        console.print("[dim]nothing dropped[/]")
        return 1
    dropped = memory.reject(change=chosen)
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
        console.print("[dim]no SOUL.md proposal is waiting[/]")
    else:
        undo = (
            f"; `reverie restore {dropped.commit[:8]} --only` puts it back"
            if dropped.commit
            else ""
        )
        console.print(f"rejected the SOUL.md proposal (kept{undo})")
    return 0
