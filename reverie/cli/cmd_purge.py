"""``reverie purge TEXT [--yes]``: remove a leaked string from memory's files, history, sessions and
every git version (``reverie.operations.purge``). Shows the plan and asks first unless ``--yes``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from rich.table import Table

from ..errors import CommandError
from ._common import add_json_flag, console, emit_json, open_memory

if TYPE_CHECKING:
    from ..operations.purge import PurgePlan


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "text",
        help='the exact string to remove (tip: `read -rs S; reverie purge "$S"` keeps it out '
        "of shell history)",
    )
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    plan = memory.plan_purge(args.text)
    if not args.json:
        _show(plan)
    if not plan.found:
        if plan.derived:  # derived data only: nothing of memory changes, so nothing to confirm
            memory.purge(args.text)
        if args.json:
            emit_json({"found": False})
        else:
            rebuilt = " (the search index was rebuilt: it can keep deleted text)" * plan.derived
            console.print(f"{plan.description} was not found in memory: nothing to purge{rebuilt}")
        return 0
    if not args.yes:
        if not sys.stdin or not sys.stdin.isatty():
            raise CommandError(
                "purge rewrites memory's history: confirm on a terminal, or pass --yes"
            )
        if input("Remove it everywhere listed above? [y/N] ").strip().lower() not in ("y", "yes"):
            console.print("nothing changed")
            return 1
    result = memory.purge(args.text)
    if args.json:
        emit_json(
            {
                "found": True,
                "head": result.rewrite.head,
                "commits_rewritten": result.rewrite.rewritten,
                "objects_removed": len(result.rewrite.removed_objects),
                "files": result.files,
            }
        )
    else:
        console.print(
            f"purged {plan.description}: {result.rewrite.rewritten} commits "
            f"rewritten, {len(result.rewrite.removed_objects)} old objects "
            f"deleted, {len(result.files)} files cleaned; recorded as "
            f"{result.rewrite.head[:8] if result.rewrite.head else '(no commit)'}"
        )
    return 0


def _show(plan: PurgePlan) -> None:
    h = plan.history
    if not plan.found:
        return  # ``run`` says so in one line, after rebuilding the index if there is one
    table = Table(show_header=True, box=None, pad_edge=False)
    table.add_column("where")
    table.add_column("found", justify="right")
    table.add_column("action")
    if h.occurrences:
        table.add_row(
            f"git: {h.commits_affected} of {h.commits} "
            f"commits ({', '.join(h.paths) or 'messages'})",
            str(h.occurrences),
            "rewrite history, delete old objects",
        )
    for hit in plan.files:
        action = {
            "redact": "redact",
            "delete": "delete (rebuilt from the cleaned files)",
            "keep": "[yellow]not memory: left as is[/]",
        }[hit.action]
        table.add_row(hit.path, str(hit.occurrences or ""), action)
    if table.row_count:
        console.print(f"purging {plan.description}:")
        console.print(table)
