"""``reverie status``: cursors, pending entries, file sizes, the model in use, and anything wrong.

Printed as plain two-column text, without rich (its import was a third of the command's start-up):
colour only on a terminal, and never with ``NO_COLOR`` set or ``TERM=dumb``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..text.safety import printable

if TYPE_CHECKING:
    from ..memory.status import StatusReport
from ._common import add_json_flag, emit_json, open_memory

#: A cell: its text in parts, each plain (None) or in a colour.
_Cell = list[tuple[str, str | None]]
_COLOURS = {"red": "\x1b[31m", "yellow": "\x1b[33m"}


def configure(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run)


def _what_is_missing(report: StatusReport, scoped: bool = False) -> str:
    """What the workspace line says after the path: nothing when initialised; "not initialised"
    only when nothing of a memory is there (for a scope, ``scoped``: "no memory yet", which its
    first write creates, as every verb does); else the memory files that are missing."""
    if report.initialised:
        return ""
    anything = (
        report.last_cursor or report.legacy_history or len(report.missing) < len(report.files)
    )
    if not anything and scoped:
        return "  (no memory yet: the scope's first write creates it)"
    if not anything:
        return "  (not initialised: run `reverie init`)"
    return f"  ({', '.join(report.missing)} missing: `reverie init` adds what is missing)"


def run(args: argparse.Namespace) -> int:
    from ..memory.status import (
        describe_model,
    )  # lazily: `reverie status --help` need not load the config

    report = open_memory(args).status()
    if args.json:
        emit_json(report.to_dict())
        return 0
    rows: list[tuple[str, _Cell]] = []

    def row(label: str, *parts: tuple[str, str | None] | str) -> None:
        rows.append((label, [(p, None) if isinstance(p, str) else p for p in parts]))

    scope = getattr(args, "scope", None)
    scoped = scope is not None and scope[1] is not None
    row("workspace", report.workspace, (_what_is_missing(report, scoped), "yellow"))
    if report.legacy_history:
        row(
            "legacy history",
            "memory/HISTORY.md (nanobot's): moved into history.jsonl on the next write",
        )
    row("history", f"last cursor {report.last_cursor}")
    dream = "corrupt" if report.dream_cursor is None else str(report.dream_cursor)
    pending = "?" if report.pending is None else str(report.pending)
    queued = f" (+{report.queued_entries} requeued)" if report.queued_entries else ""
    row("dream", f"cursor {dream}, {pending} entries pending{queued}")
    if (run := report.dream_last_run) is not None:
        why = f": {run['reason']}" if run.get("reason") else ""
        span = (
            f"history {run['first']}-{run['last']}"
            if run.get("first") is not None
            else "lifecycle only"
        )
        row("last dream", f"{run['time']} {run['status']} ({span}){why}")
    if (rej := report.dream_last_rejection) is not None:
        row(
            "last rejection",
            f"{rej['time']} (history {rej['first']}-{rej['last']}): {rej['reason']}",
        )
    if report.dream_attempts:
        row("dream attempts", f"{report.dream_attempts} failed on the pending batch")
    for d in report.dream_dead_letters[-3:]:
        row("set aside", f"history {d['first']}-{d['last']} at {d['time']}: {d['reason']}")
    for d in report.dream_queued:
        row("queued", f"history {d['first']}-{d['last']} (requeued; the next dream runs it first)")
    for rel, size in report.files.items():
        b = report.budgets.get(rel)
        use = f" of {b['limit']:,} ({b['percent']} % of its budget)" if b else ""
        row(rel, (f"{size:,} chars{use}", "yellow" if b and b["percent"] >= 100 else None))
    if report.archive.get("files"):
        a = report.archive
        row(
            "archive",
            f"{a['lines']:,} lines, {a['chars']:,} chars in {a['files']} file(s) "
            "under memory/archive/",
        )
    if down := report.dream_model_unavailable:
        state = "not answering" if down.get("kind") == "not-answering" else "unreachable"
        row(
            "model",
            report.model_description,
            (f"  model {state} since {down.get('since')}", "red"),
            " (Dream leaves batches pending; see last dream)",
        )
    else:
        row("model", report.model_description)
    if report.dream_model != report.model:
        row("dream model", describe_model(report.dream_model))
    if (kept := report.kept_replies).get("count") and (last := kept.get("last")):
        counts = ", ".join(f"{n} {v}" for v, n in sorted(kept["verdicts"].items()))
        row(
            "model replies",
            f"{counts} kept in {kept['path']}; last: {last['time']} {last['task']} "
            f"{last['verdict']}: {last['reason']} — `reverie why --reply {last['id']}`",
        )
    if p := report.pending_soul:
        cursors = (
            f", cursors {p['first_cursor']}–{p['last_cursor']}"
            if p["first_cursor"] is not None
            else ""
        )
        proposed = (
            f"+{p['added']} -{p['removed']} lines proposed by Dream {p['created_at']}{cursors}"
        )
        row("SOUL.md proposal", (proposed, "yellow"), " — `reverie approve` or `reverie reject`")
    colour = _colour_on(sys.stdout)
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {_text(cell, colour)}".rstrip() for label, cell in rows]
    lines += [_text([("problem:", "red"), (f" {p}", None)], colour) for p in report.problems]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0


def _text(cell: _Cell, colour: bool) -> str:
    """A cell's parts joined; every part through ``printable`` (recorded reasons may quote model
    output or memory text: no control character reaches the terminal)."""
    out = []
    for text, name in cell:
        shown = printable(str(text))
        out.append(f"{_COLOURS[name]}{shown}\x1b[0m" if colour and name and shown else shown)
    return "".join(out)


def _colour_on(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return (
        bool(isatty and isatty())
        and "NO_COLOR" not in os.environ
        and os.environ.get("TERM") != "dumb"
    )
