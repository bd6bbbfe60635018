"""rich renderings of a Dream run: its phase for the live status line while it runs and the report
when it ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from ..text.safety import printable
from ._common import console
from ._render import files_text, print_diff

if TYPE_CHECKING:
    from ..dream.result import DreamResult, Progress

__all__ = ["progress_text", "print_dream"]


def progress_text(p: Progress) -> str:
    """Dream's phase for the status line (phase, batch, iteration, tool calls, tokens), from
    ``on_progress``."""
    batch = f" entries {p.first}–{p.last}" if p.first is not None else ""
    text = (
        f"dream: {p.phase}{batch} · turn {p.iteration} · "
        f"{p.tool_calls} tool calls · {p.tokens:,} tokens"
    )
    return f"{text} · {p.message}" if p.message else text


def print_dream(result: DreamResult) -> None:
    """A finished Dream run: outcome, batch, changed files, commit, usage (and the diff of a dry
    run)."""
    ok = result.status in ("ok", "no-change", "nothing-to-do")
    colour = "green" if ok else "yellow" if result.status == "paused" else "red"
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_row(
        "status",
        f"[{colour}]{result.status}[/]" + (" (dry run: nothing written)" if result.dry_run else ""),
    )
    if result.first is not None:
        table.add_row("batch", f"entries {result.first}–{result.last}")
    if result.reason:
        table.add_row("reason", escape(printable(result.reason)))
    if result.files:
        table.add_row("files", files_text(result.files))
    if result.lifecycle_summary:
        where = (
            "see memory/archive/"
            if result.archive_tracked
            else "named in the commit; nothing is archived"
        )
        table.add_row("lifecycle", escape(result.lifecycle_summary) + f" [dim]({where})[/]")
    if result.commit:
        table.add_row(
            "commit",
            f"[yellow]{result.commit[:8]}[/]  [dim](undo: reverie restore {result.commit[:8]})[/]",
        )
    if result.status not in ("nothing-to-do", "already-running"):
        u = result.usage
        cost = f", ${u.cost:.4f}" if u.cost else ""
        table.add_row(
            "usage",
            f"{result.iterations} turns, {result.tool_calls} tool calls, "
            f"{u.prompt_tokens:,}+{u.completion_tokens:,} tokens{cost} ({escape(result.model)})",
        )
    if len(result.batches) > 1:
        table.add_row("batches", str(len(result.batches)))
    if result.pending_soul and result.dry_run:
        table.add_row(
            "SOUL.md",
            "[yellow]a real run stages this change for "
            "approval (reverie approve), not writes it[/]",
        )
    elif result.pending_soul:
        table.add_row(
            "SOUL.md", "[yellow]a change is waiting for approval (reverie approve / reject)[/]"
        )
    for warning in result.warnings:
        table.add_row("[yellow]warning[/]", escape(printable(warning)))
    console.print(table)
    if result.dry_run:
        print_diff(result.diff)
