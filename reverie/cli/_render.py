"""rich renderings of the library's structured results (the CLI's counterpart of
``reverie.chat.commands.render``).

Text from memory, history or git goes through ``reverie.text.safety.printable`` before it reaches
the terminal.

Dream's live status line and run report are in ``_render_dream`` (they need rich's ``Table``, which
`reverie log` would otherwise import for nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.text import Text

from ..text.diff import DiffLineKind, diff_line_kinds
from ..text.safety import printable
from ._common import console

if TYPE_CHECKING:
    from rich.markdown import Markdown

    from ..gitstore.types import CommitDetail, CommitInfo, FileChange, OperationResult

__all__ = ["print_diff", "commit_table", "print_commit", "files_text", "print_operation"]


#: git's colours for each kind of diff line (its no-newline marker is shown as context).
_DIFF_STYLES: dict[DiffLineKind, str] = {
    "file": "bold",
    "meta": "bold",
    "hunk": "cyan",
    "add": "green",
    "del": "red",
    "no-newline": "",
    "context": "",
}


def diff_text(diff: str) -> Text:
    """A unified diff coloured the way git colours it."""
    out = Text()
    lines = printable(diff).splitlines()
    for line, kind in zip(lines, diff_line_kinds(lines), strict=True):
        out.append(line + "\n", style=_DIFF_STYLES[kind])
    return out


def print_diff(diff: str) -> None:
    if diff.strip():
        console.print(diff_text(diff), end="")


def files_text(files: Iterable[FileChange]) -> str:
    parts = []
    for f in files:
        parts.append(f"{escape(printable(f.path))} [green]+{f.added}[/] [red]-{f.removed}[/]")
    return ", ".join(parts) or "[dim]no file changes[/]"


def commit_table(commits: Sequence[CommitInfo]) -> Text:
    """One line per commit: sha, time, kind, subject, per-file +/- counts.

    Plain aligned columns rather than a rich ``Table``: measuring a table's cells cost ~0.1 s for 20
    rows, a third of `reverie log`'s start-up budget.
    """
    out = Text()
    if not commits:
        return out
    kind_w = max(len(c.kind) for c in commits)
    subj_w = min(max(len(c.subject) for c in commits), 60)
    for n, c in enumerate(commits):
        if n:
            out.append("\n")
        subject = printable(
            c.subject if len(c.subject) <= subj_w else c.subject[: subj_w - 1] + "…"
        )
        out.append(c.short, style="yellow")
        out.append(f"  {c.time.strftime('%Y-%m-%d %H:%M')}  ", style="dim")
        out.append(f"{printable(c.kind):<{kind_w}}  ", style="bold")
        out.append(f"{subject:<{subj_w}}  ")
        for i, f in enumerate(c.files):
            out.append((", " if i else "") + printable(f.path) + " ")
            out.append(f"+{f.added}", style="green")
            out.append(" ")
            out.append(f"-{f.removed}", style="red")
    return out


def print_commit(detail: CommitDetail) -> None:
    info = detail.info
    console.print(
        f"[yellow]commit {info.sha}[/]  [bold]{escape(printable(info.kind))}[/]  "
        f"[dim]{info.time.isoformat()}[/]"
    )
    console.print(escape(printable(info.message.rstrip())), highlight=False)
    console.print(f"files: {files_text(info.files)}")
    console.print()
    print_diff(detail.diff)


def print_operation(verb: str, target: str, result: OperationResult) -> None:
    if result.commit is None:
        console.print(
            "nothing to do: memory already matches what "
            f"{verb} {escape(printable(target))} would give"
        )
        return
    console.print(
        f"{verb} [yellow]{escape(printable(target))}[/] as "
        f"[yellow]{result.commit[:8]}[/]: {files_text(result.files)}"
    )
    if result.cursor_rewound_to is not None:
        console.print(f"dream cursor rewound to {result.cursor_rewound_to}")
    console.print(f"[dim]undo with: reverie restore {result.commit[:8]}[/]")


def markdown(text: str) -> Markdown:
    """A chat reply for the terminal: rich Markdown that keeps the reply's line breaks (outside code
    fences)."""
    from rich.markdown import Markdown

    out, fenced = [], False
    for line in printable(text).split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append(
            line
            if fenced or not line.strip() or line.lstrip().startswith(("|", "- ", "#"))
            else line + "  "
        )
    return Markdown("\n".join(out))
