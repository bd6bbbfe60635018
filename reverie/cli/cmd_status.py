"""``reverie status``: cursors, pending entries, file sizes, the model in use, and anything wrong."""

from __future__ import annotations

import argparse

from rich.markup import escape
from rich.table import Table

from ..textsafety import printable
from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..status import describe_model  # lazily: `reverie status --help` need not load the config

    report = open_memory(args).status()
    if args.json:
        emit_json(report.to_dict())
        return 0
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_row(
        "workspace",
        report.workspace
        + ("" if report.initialised else "  [yellow](not initialised: run `reverie init`)[/]"),
    )
    table.add_row("history", f"last cursor {report.last_cursor}")
    dream = "corrupt" if report.dream_cursor is None else str(report.dream_cursor)
    pending = "?" if report.pending is None else str(report.pending)
    table.add_row("dream", f"cursor {dream}, {pending} entries pending")
    if (run := report.dream_last_run) is not None:
        why = f": {_shown(run['reason'])}" if run.get("reason") else ""
        span = (
            f"history {run['first']}-{run['last']}"
            if run.get("first") is not None
            else "lifecycle only"
        )
        table.add_row("last dream", f"{run['time']} {run['status']} ({span}){why}")
    if (rej := report.dream_last_rejection) is not None:
        table.add_row(
            "last rejection",
            f"{rej['time']} (history {rej['first']}-{rej['last']}): {_shown(rej['reason'])}",
        )
    if report.dream_attempts:
        table.add_row("dream attempts", f"{report.dream_attempts} failed on the pending batch")
    for d in report.dream_dead_letters[-3:]:
        table.add_row(
            "set aside", f"history {d['first']}-{d['last']} at {d['time']}: {_shown(d['reason'])}"
        )
    for rel, size in report.files.items():
        b = report.budgets.get(rel)
        use = f" of {b['limit']:,} ({b['percent']} % of its budget)" if b else ""
        colour = "yellow" if b and b["percent"] >= 100 else ""
        table.add_row(
            rel, f"[{colour}]{size:,} chars{use}[/]" if colour else f"{size:,} chars{use}"
        )
    if report.archive.get("files"):
        a = report.archive
        table.add_row(
            "archive",
            f"{a['lines']:,} lines, {a['chars']:,} chars in {a['files']} file(s) "
            "under memory/archive/",
        )
    down = report.dream_model_unavailable
    outage = (
        f"  [red]model unreachable since {down.get('since')}[/] (Dream leaves batches pending; "
        f"see last dream)"
        if down
        else ""
    )
    table.add_row("model", report.model_description + outage)
    if report.dream_model != report.model:
        table.add_row("dream model", describe_model(report.dream_model))
    if report.pending_soul:
        p = report.pending_soul
        cursors = (
            f", cursors {p['first_cursor']}–{p['last_cursor']}"
            if p["first_cursor"] is not None
            else ""
        )
        table.add_row(
            "pending SOUL.md",
            f"[yellow]+{p['added']} -{p['removed']} lines proposed by Dream {p['created_at']}{cursors}[/]"
            " — `reverie approve` or `reverie reject`",
        )
    console.print(table)
    for problem in report.problems:
        console.print(f"[red]problem:[/] {_shown(problem)}")
    return 0


def _shown(text: object) -> str:
    """A recorded reason (it may quote model output or memory text): no markup, no control characters."""
    return escape(printable(str(text)))
