"""``reverie why TEXT``: which commit, and which history entries, put each matching memory line there."""

from __future__ import annotations

import argparse

from rich.markup import escape
from rich.table import Table

from ..textsafety import printable
from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("text")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..dream.archive import parse_entry, source_of

    found = open_memory(args, existing=True).why(args.text)
    if args.json:
        emit_json(found)
        return 0
    if not found:
        console.print(f"no memory line contains {escape(printable(repr(args.text)))}")
        return 0
    table = Table(box=None, pad_edge=False)
    for column in ("file:line", "line", "commit", "kind", "time", "history"):
        table.add_column(column)
    archived, undone = [], []
    for p in found:
        cursors = f"entries {p.cursor_range[0]}–{p.cursor_range[1]}" if p.cursor_range else "—"
        if p.via:
            undos = ", ".join(v[:8] for v in p.via)
            undone.append(f"{escape(printable(p.path))}:{p.line_no} was brought back by {undos}")
        table.add_row(
            escape(printable(f"{p.path}:{p.line_no}")),
            escape(printable(p.line.strip())),
            f"[yellow]{p.short}[/]",
            escape(printable(p.kind)),
            p.time.strftime("%Y-%m-%d %H:%M"),
            cursors,
        )
        entry = parse_entry(p.line) if source_of(p.path) else None
        if entry is not None:
            archived.append(
                f"{escape(entry[0])!s} left {source_of(p.path)}: {escape(entry[1])} "
                f"(commit {p.short}; `reverie show {p.short}` has the diff)"
            )
    console.print(table)
    for line in archived:
        console.print(f"[dim]archive:[/] {line}")
    for line in undone:
        console.print(f"[dim]undo:[/] {line} (an undo; the commit above first wrote it)")
    console.print("[dim]see an entry with: reverie history show --since <first-1> --limit <n>[/]")
    return 0
