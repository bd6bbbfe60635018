"""Markdown renderings of the library's structured results, for chat replies.

Presentation lives here, not in the result types: GitStore, Dream and the Consolidator return values
(``CommitInfo``, ``DreamResult``, ...) and every front-end decides how they look. The CLI renders the same values
with rich; these functions are for transports that show Markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["files_line", "commit_line", "commit_detail", "versions_table", "operation_reply", "fence", "when"]

#: Diffs longer than this many characters are cut in chat replies (the CLI shows them whole).
MAX_DIFF_CHARS = 6_000


def when(info: Any) -> str:
    """A commit's time, local to its own timezone, to the minute."""
    return info.time.strftime("%Y-%m-%d %H:%M")


def files_line(files: Iterable[Any]) -> str:
    """``USER.md +2 -1, memory/MEMORY.md +1`` (FileChange values)."""
    parts = []
    for f in files:
        counts = " ".join(x for x in (f"+{f.added}" if f.added else "", f"-{f.removed}" if f.removed else "") if x)
        parts.append(f"`{f.path}` {counts or '±0'}")
    return ", ".join(parts) if parts else "no file changes"


def fence(text: str, lang: str = "") -> str:
    """A fenced block that survives backticks inside ``text``."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def commit_line(info: Any) -> str:
    return f"`{info.short}` {when(info)} **{info.kind}** {info.subject}"


def commit_detail(detail: Any, *, undo_hint: bool = True) -> str:
    """A commit with its files, diff and the command that would undo it."""
    info = detail.info
    lines = [
        f"**{info.kind}** `{info.short}` · {when(info)}",
        info.subject,
        f"Files: {files_line(info.files)}",
    ]
    diff = detail.diff or ""
    if diff.strip():
        if len(diff) > MAX_DIFF_CHARS:
            diff = diff[:MAX_DIFF_CHARS] + f"\n… ({len(detail.diff) - MAX_DIFF_CHARS} more characters; `reverie show {info.short}`)"
        lines.append(fence(diff, "diff"))
    if undo_hint and info.kind != "init":
        lines.append(f"Undo it with `/dream-restore {info.short}`")
    return "\n".join(lines)


def versions_table(commits: Sequence[Any]) -> str:
    if not commits:
        return "No versions yet: memory has no commits."
    rows = ["| sha | time | kind | summary |", "|---|---|---|---|"]
    for c in commits:
        subject = c.subject.replace("|", "\\|")
        rows.append(f"| `{c.short}` | {when(c)} | {c.kind} | {subject} |")
    rows.append("")
    rows.append("Restore memory to before a change with `/dream-restore <sha>`; undo only that change with `--only`.")
    return "\n".join(rows)


def operation_reply(verb: str, target: str, result: Any) -> str:
    """The reply to a restore or revert (an ``OperationResult``)."""
    if result.commit is None:
        return f"Nothing to do: memory already matches the state {verb} `{target}` would give."
    short = result.commit[:8]
    lines = [f"{verb.capitalize()} `{target}` as `{short}`.", f"Changed: {files_line(result.files)}"]
    if result.cursor_rewound_to is not None:
        lines.append(f"Dream cursor rewound to {result.cursor_rewound_to}: those entries will be dreamed again.")
    lines.append(f"Undo with `/dream-restore {short}`")
    return "\n".join(lines)
