"""Markdown renderings of the library's structured results, for chat replies.

Presentation lives here, not in the result types: GitStore, Dream and the Consolidator return values
(``CommitInfo``, ``DreamResult``, ...) and every front-end decides how they look. The CLI renders
the same values with rich; these functions are for transports that show Markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...consolidator.consolidator import ConsolidationResult
    from ...dream.proposal import SoulProposal
    from ...dream.result import DreamResult
    from ...gitstore.types import CommitDetail, CommitInfo, FileChange, OperationResult

__all__ = [
    "files_line",
    "commit_detail",
    "versions_table",
    "operation_reply",
    "fence",
    "when",
    "dream_result",
    "consolidation_reply",
    "pending_soul",
]

#: Diffs longer than this many characters are cut in chat replies (the CLI shows them whole).
MAX_DIFF_CHARS = 6_000


def when(info: CommitInfo) -> str:
    """A commit's time, local to its own timezone, to the minute."""
    return info.time.strftime("%Y-%m-%d %H:%M")


def files_line(files: Iterable[FileChange]) -> str:
    """``USER.md +2 -1, memory/MEMORY.md +1`` (FileChange values)."""
    parts = []
    for f in files:
        counts = " ".join(
            x for x in (f"+{f.added}" if f.added else "", f"-{f.removed}" if f.removed else "") if x
        )
        parts.append(f"`{f.path}` {counts or '±0'}")
    return ", ".join(parts) if parts else "no file changes"


def fence(text: str, lang: str = "") -> str:
    """A fenced block that survives backticks inside ``text``."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def commit_detail(detail: CommitDetail, *, undo_hint: bool = True) -> str:
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
            diff = (
                diff[:MAX_DIFF_CHARS]
                + f"\n… ({len(detail.diff) - MAX_DIFF_CHARS} more characters; "
                f"`reverie show {info.short}`)"
            )
        lines.append(fence(diff, "diff"))
    if undo_hint and info.kind != "init":
        lines.append(f"Undo it with `/dream-restore {info.short}`")
    return "\n".join(lines)


def versions_table(commits: Sequence[CommitInfo]) -> str:
    if not commits:
        return "No versions yet: memory has no commits."
    rows = ["| sha | time | kind | summary |", "|---|---|---|---|"]
    for c in commits:
        subject = c.subject.replace("|", "\\|")
        rows.append(f"| `{c.short}` | {when(c)} | {c.kind} | {subject} |")
    rows.append("")
    rows.append(
        "Restore memory to before a change with `/dream-restore <sha>`; undo only that change "
        "with `--only`."
    )
    return "\n".join(rows)


def operation_reply(verb: str, target: str, result: OperationResult) -> str:
    """The reply to a restore or revert (an ``OperationResult``)."""
    if result.commit is None:
        return f"Nothing to do: memory already matches the state {verb} `{target}` would give."
    short = result.commit[:8]
    lines = [
        f"{verb.capitalize()} `{target}` as `{short}`.",
        f"Changed: {files_line(result.files)}",
    ]
    if result.cursor_rewound_to is not None:
        lines.append(
            f"Dream cursor rewound to {result.cursor_rewound_to}: "
            "those entries will be dreamed again."
        )
    lines.append(f"Undo with `/dream-restore {short}`")
    return "\n".join(lines)


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _batch(result: DreamResult) -> str:
    if result.first is None:
        return ""
    return (
        f"entries {result.first}–{result.last}"
        if result.last != result.first
        else f"entry {result.first}"
    )


def dream_result(result: DreamResult) -> str:
    """The report of a finished Dream run (a ``DreamResult``)."""
    status, batch = result.status, _batch(result)
    if status == "nothing-to-do":
        return "Nothing to process: no history entries are waiting for Dream."
    if result.first is None and status == "ok":  # nothing was pending: the lifecycle step ran alone
        short = (result.commit or "")[:8]
        return (
            "No history entries were pending; to keep memory current Dream "
            f"{result.lifecycle_summary}"
            + (f" as `{short}`." if short else " (dry run: nothing written).")
        )
    if status == "already-running":
        return (
            "Dream is already running (a scheduled run or another process); try again when it ends."
        )
    if status == "failed":
        return (
            f"Dream failed on {batch or 'its batch'}: {result.reason}. Nothing was written; "
            "the entries stay pending."
        )
    if status == "rejected":
        return (
            f"Dream's edits for {batch or 'its batch'} were rejected: {result.reason}. "
            "Nothing was written."
        )
    if status == "paused" and result.commit is None:
        return f"Dream {result.reason}."
    if status == "dead-lettered":
        return (
            f"Dream set {batch} aside after repeated failures ({result.reason}); "
            "later entries will be processed."
        )
    tokens = result.usage.total_tokens
    stats = (
        f"{_n(result.iterations, 'model turn')}, {_n(result.tool_calls, 'tool call')}, "
        f"{_n(tokens, 'token')}"
    )
    lines: list[str] = []
    if result.dry_run:
        lines.append(f"Dream dry run over {batch}: nothing written ({stats}).")
        lines.append(
            fence(result.diff, "diff") if result.diff.strip() else "It would change nothing."
        )
    elif status == "no-change" or not result.files:
        lines.append(f"Dream processed {batch}: nothing worth keeping changed memory ({stats}).")
    else:
        short = (result.commit or "")[:8]
        lines.append(
            f"Dream processed {batch} and changed {files_line(result.files)} "
            f"as `{short}` ({stats})."
        )
        lines.append(f"See it with `/dream-log {short}`; undo it with `/dream-restore {short}`.")
    if result.lifecycle_summary and result.archive_tracked:
        lines.append(
            f"To stay within budget Dream {result.lifecycle_summary} (kept in memory/archive/, "
            "found by `/recall`)."
        )
    elif result.lifecycle_summary:
        lines.append(
            f"Dream {result.lifecycle_summary} "
            "(named in the commit; memory/archive/ is not tracked)."
        )
    lines += [f"Warning: {w}" for w in result.warnings]
    if result.pending_soul:
        lines.append("A change to SOUL.md is waiting for approval (`/dream-log` shows it).")
    if len(result.batches) > 1:
        lines.append(f"({len(result.batches)} batches.)")
    if status == "paused":
        lines.append(f"Then Dream {result.reason}.")
    return "\n".join(lines)


def consolidation_reply(result: ConsolidationResult | None) -> str:
    """What a ``/new`` (or any Consolidator call) consolidated (a ``ConsolidationResult``; None:
    there was no such session)."""
    n = 0 if result is None else result.consolidated_messages
    if result is None or n == 0:
        return "Nothing to consolidate."
    noun = "message" if n == 1 else "messages"
    entries = len(result.cursors)
    text = (
        f"Consolidated {n} {noun} into {entries} history {'entry' if entries == 1 else 'entries'}"
    )
    if result.raw_fallbacks:
        text += " (the model's summary failed, so the raw transcript was kept)"
    return text + "."


def pending_soul(change: SoulProposal) -> str:
    """A SOUL.md change Dream staged for approval (``reverie.dream.proposal.SoulProposal``)."""
    added, removed = change.counts()
    lines = [
        f"**Proposed** `{change.path}` change (+{added} -{removed}), waiting for approval:",
        fence(change.diff(), "diff"),
    ]
    if change.reasons:
        lines.append("Why: " + "; ".join(change.reasons))
    short = change.id[:12]
    lines.append(
        f"Approve it with `/dream-approve {short}`, drop it with `/dream-reject {short}` "
        f"(or `reverie approve {short}` / `reverie reject {short}`)."
    )
    return "\n".join(lines)
