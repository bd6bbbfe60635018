"""``reverie approve`` / ``reverie reject``: apply or drop the SOUL.md change Dream staged (``dream.protectSoul``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..dream.pending import load_pending
from ..errors import NothingPendingError
from ..operations.approve import approve, reject
from ._common import add_json_flag, console, emit_json, workspace_of
from ._render import print_diff

if TYPE_CHECKING:
    from ..runtime import Runtime


def configure_approve(p: argparse.ArgumentParser) -> None:
    p.add_argument("--show", action="store_true", help="only show the pending change and its diff")
    add_json_flag(p)
    p.set_defaults(func=run_approve)


def configure_reject(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run_reject)


def _runtime(args: argparse.Namespace) -> Runtime:
    from ..runtime import Runtime

    return Runtime(workspace_of(args))


def run_approve(args: argparse.Namespace) -> int:
    rt = _runtime(args)
    if args.show:
        change = load_pending(rt.store)
        if change is None:
            console.print("[dim]no SOUL.md change is pending[/]")
        elif args.json:
            emit_json(change)
        else:
            print_diff(change.diff())
        return 0
    try:
        result = approve(rt.store, rt.git)
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
        console.print(f"approved: SOUL.md +{result.added} -{result.removed}{how}, commit {result.commit[:8]}")
    return 0


def run_reject(args: argparse.Namespace) -> int:
    dropped = reject(_runtime(args).store)
    if args.json:
        emit_json({"pending": dropped is not None, "dropped": dropped is not None})
    else:
        console.print("dropped the pending SOUL.md change" if dropped else "[dim]no SOUL.md change is pending[/]")
    return 0
