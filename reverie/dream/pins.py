"""A person's pin: a prompt-file line ending in ``[pinned]`` is never archived automatically (see
``reverie.dream.salience``). ``pin`` adds or removes the marker on the one line containing some text
and commits the change as the person's own (``manual``), so it is versioned and undoable like any
edit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import DreamError, MergeConflictError
from ..storage.workspace import MEMORY_FILES, Workspace
from ..text.memline import PIN_MARK, is_pinned, unpin

if TYPE_CHECKING:
    from ..gitstore import GitStore

__all__ = ["PinResult", "pin"]

_TRIES = 3  # a pin that conflicts with a concurrent Dream commit is re-read and tried again


@dataclass(frozen=True)
class PinResult:
    path: str
    line: str  # the line as it now reads
    changed: bool
    commit: str | None


def pin(workspace: Workspace, git: GitStore, text: str, *, pinned: bool = True) -> PinResult:
    """Pin (or unpin) the single memory-file line containing ``text`` (case-insensitive). Raises
    ``DreamError`` when no line or several lines match.

    Follows the memory-file writers' protocol: the new content is committed with the text it was
    computed from (``GitStore.commit``'s ``base``), so a Dream commit that lands between the read
    and the commit is merged, not overwritten; should that merge conflict (Dream changed the very
    line), the pin is tried again on the new text.
    """
    needle = " ".join(text.split()).lower()
    if not needle:
        raise DreamError("say which line: give some of its words")
    conflicts = 0
    while True:
        rel, rows, i = _find(workspace, text, needle)
        raw = rows[i]
        if is_pinned(raw) == pinned:
            return PinResult(rel, raw.strip(), False, None)
        original = "\n".join(rows)
        rows[i] = f"{raw.rstrip()} {PIN_MARK}" if pinned else unpin(raw)
        verb = "pin" if pinned else "unpin"
        try:
            sha = git.commit(
                f"manual: {verb} a line of {rel}",
                kind="manual",
                files={rel: "\n".join(rows)},
                base={rel: original},
            )
        except MergeConflictError:
            conflicts += 1
            if conflicts == _TRIES:
                raise
            continue
        return PinResult(rel, rows[i].strip(), True, sha)


def _find(workspace: Workspace, text: str, needle: str) -> tuple[str, list[str], int]:
    matches = []
    for rel in MEMORY_FILES:
        rows = workspace.read(rel).split("\n")
        for i, raw in enumerate(rows):
            body = raw.strip()
            if body and not body.startswith("#") and needle in " ".join(raw.split()).lower():
                matches.append((rel, rows, i))
    if not matches:
        raise DreamError(f"no memory line contains {text!r}")
    if len(matches) > 1:
        shown = "; ".join(f"{rel}: {rows[i].strip()[:60]}" for rel, rows, i in matches[:5])
        raise DreamError(f"{len(matches)} lines contain {text!r} ({shown}); give more of the line")
    return matches[0]
