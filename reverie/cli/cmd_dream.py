"""``reverie dream [--all] [--dry-run]``: run Dream now, with a live status line (Dream.run; the
model and its wait)."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, emit_json, open_memory
from ._render_dream import print_dream, progress_text
from ._status import StatusLine

#: Outcomes that are not a success: the command exits 1 so scripts notice. A drain "paused" at its
#: own budget (``drainTokenBudget`` / ``drainMaxSeconds``) exits 0: it did what it was allowed to;
#: run it again to go on.
_FAILED = {"failed", "rejected", "already-running", "dead-lettered"}


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--all", action="store_true", help="process every pending batch, not just the next one"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="show the diff it would commit; write nothing"
    )
    p.add_argument(
        "--wait", action="store_true", help="wait for a run in progress instead of giving up"
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..llm.activity import ModelActivity

    activity = ModelActivity()
    memory = open_memory(args, existing=True, activity=activity)
    with StatusLine(activity, enabled=not args.json) as line:
        line.update("dream: starting")
        result = memory.dream(
            all=args.all,
            wait=args.wait,
            dry_run=args.dry_run,
            on_progress=lambda p: line.update(progress_text(p)),
        )
    if args.json:
        emit_json(result)
    else:
        print_dream(result)
    return 1 if result.status in _FAILED else 0
