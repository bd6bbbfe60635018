"""``reverie why TEXT``: which commit, and which history entries, put each matching memory line
there, and which kept model replies are behind it; ``reverie why --reply ID``: one kept reply."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from ..errors import CommandError
from ..text.safety import printable
from ._common import add_json_flag, console, emit_json, open_memory

if TYPE_CHECKING:
    from ..llm.replylog import KeptReply


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", nargs="?", help="text of a memory line (or of a history entry)")
    p.add_argument(
        "--reply",
        metavar="ID",
        help="show one model reply kept as evidence (its "
        "id is in `reverie status` or a run's reason)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..dream.archive import parse_entry, source_of

    if not args.text and not args.reply:  # a usage error, said as argparse says one
        print(
            "reverie why: error: give the TEXT of a memory line (`reverie why Lisbon`), "
            "or --reply ID",
            file=sys.stderr,
        )
        return 2
    memory = open_memory(args, existing=True)
    if args.reply:
        return _show_reply(args, memory.kept_replies(reply_id=args.reply))
    found = memory.why(args.text)
    # No line holds TEXT: a user error, as for `pin` (exit 1, one line on stderr), with --json too.
    missing = CommandError(
        f"no memory line contains {printable(repr(args.text))} "
        "(`reverie search` also looks in history and conversations)"
    )
    if args.json:
        emit_json(found)
        if not found:
            raise missing
        return 0
    _replies_behind(memory.kept_replies(args.text))
    if not found:
        raise missing
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
    ranges = [p.cursor_range for p in found if p.cursor_range]
    if ranges:
        first, last = ranges[0]
        console.print(
            f"[dim]see the entries behind the first line: reverie history show --since {first - 1} "
            f"--limit {last - first + 1}[/]"
        )
    return 0


def _replies_behind(replies: list[KeptReply]) -> None:
    """The kept model replies behind the text: a reply that was refused, repaired or taken leniently
    about it, or about a history entry holding it."""
    for r in replies[-10:]:
        console.print(
            f"[dim]model reply:[/] {escape(r.id)} {escape(r.time)} {escape(r.task)} "
            f"[yellow]{escape(r.verdict)}[/]: {escape(printable(r.reason))} "
            f"[dim](`reverie why --reply {escape(r.id)}` shows it)[/]"
        )


def _show_reply(args: argparse.Namespace, found: list[KeptReply]) -> int:
    if not found:
        console.print(f"[red]error:[/] no kept model reply {escape(printable(repr(args.reply)))}")
        return 1
    reply = found[0]
    if args.json:
        emit_json(reply.to_dict())
        return 0
    console.print(
        f"{escape(reply.id)}  {escape(reply.time)}  {escape(reply.task)}  {escape(reply.model)}  "
        f"[yellow]{escape(reply.verdict)}[/]: {escape(printable(reply.reason))}"
    )
    if reply.ref:
        console.print(f"[dim]about:[/] {escape(printable(str(reply.ref)))}")
    console.print("[dim]── request (its last user message) ──[/]")
    _lines(str(reply.request.get("user") or ""))
    console.print("[dim]── reply ──[/]")
    _lines(str(reply.reply.get("content") or ""))
    for call in reply.reply.get("tool_calls") or []:
        console.print(
            f"[dim]tool call:[/] {escape(printable(str(call.get('name'))))}"
            f"({escape(printable(str(call.get('arguments'))))})"
        )
    return 0


def _lines(text: str) -> None:
    for line in text.splitlines():
        console.print(escape(printable(line)), highlight=False)
