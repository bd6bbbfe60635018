"""Whole memory files leaving or moving: ``delete_file``, ``rename_file``, ``clear_files``.

What may go: topic files (``memory/topics/**``, ``reverie.storage.topics``) and dated notes
(``memory/YYYY-MM-DD*.md``), one by one or a folder of them. The prompt files (SOUL.md, USER.md,
memory/MEMORY.md) are loaded into every conversation and keep their names: they are never deleted
or renamed, only emptied line by line (``Memory.remove``) or, by ``clear_files``, put back to their
starter text. The archive is read only here.

Each operation is one commit (kind ``agent`` or ``manual``), made under Dream's run lock, so no run
commits over it, and undone by ``reverie restore --only <sha>`` (``Memory.restore(sha,
only=True)``). Nothing written is lost: every line a file held when it was deleted or cleared lands
in the archive with why and when (``memory/archive/files.md`` for topic files and notes, ``user.md``
/ ``memory.md`` for the prompt files, in the archive's one format, ``reverie.dream.archive``), where
``reverie why`` and search find it. A rename moves the text unchanged, so nothing leaves memory and
nothing is archived.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from ..dream.archive import append_entries, archive_path, entry_line
from ..dream.lock import dream_run_lock
from ..errors import UnsafePathError, WorkspaceError
from ..storage.topics import check_place, is_topic, topic_files
from ..storage.workspace import ARCHIVE_DIR, MEMORY, MEMORY_FILES, TOPICS_DIR, USER, starter_text
from ..text.memline import bare_line, holds_text

if TYPE_CHECKING:
    from ..gitstore import GitStore
    from ..storage.workspace import Workspace

__all__ = [
    "FilesResult",
    "FILES_ARCHIVE",
    "delete_file",
    "rename_file",
    "clear_files",
    "removable",
    "removed_lines",
    "archived_lines",
]

#: The archive file of topic files and dated notes (one for all: their names are free).
FILES_ARCHIVE = f"{ARCHIVE_DIR}/files.md"
_FILES_HEADER = (
    "# Archive: deleted memory files\n\nLines of topic files and dated notes that were deleted, "
    "under the day they left. Each ends with the file it was in, why and when.\n"
)
_WHO = {"manual": "by hand", "agent": "by an agent"}


@dataclass(frozen=True)
class FilesResult:
    """What a file operation committed: the files deleted, written, and lines archived."""

    deleted: tuple[str, ...]
    written: tuple[str, ...]
    archived: int
    commit: str | None


def _dated(rel: str) -> bool:
    name = rel.removeprefix("memory/")
    return (
        rel.startswith("memory/")
        and "/" not in name
        and name.endswith(".md")
        and len(name) >= 10
        and name[:4].isdigit()
        and name[4] == "-"
        and name[5:7].isdigit()
        and name[7] == "-"
        and name[8:10].isdigit()
    )


def removable(rel: str) -> bool:
    """Whether a workspace-relative path is a file this module may delete or move: a topic file or
    a dated note."""
    return is_topic(rel) or _dated(rel)


def _under(ws: Workspace, rel: str) -> list[str]:
    """The removable files ``rel`` names: itself, or every topic file under it when it is a
    folder."""
    if removable(rel) and (ws.root / rel).is_file():
        return [rel]
    prefix = rel.rstrip("/") + "/"
    return [f for f in topic_files(ws) if f.startswith(prefix)]


def _refuse(rel: str, verb: str) -> None:
    if rel in MEMORY_FILES:
        raise WorkspaceError(
            f"{rel} is loaded into every conversation and keeps its name: it is not {verb}d "
            "(take lines out of it instead; each goes to the archive)"
        )
    if rel == ARCHIVE_DIR or rel.startswith(ARCHIVE_DIR + "/"):
        raise UnsafePathError(f"{rel} is the archive: it keeps what left memory and is read only")


def removed_lines(before: str, after: str) -> list[str]:
    """The fact lines of ``before`` whose text (``hitlog.line_key``) ``after`` no longer has, in
    order; a line that only moved or changed its bullet is not removed."""
    from collections import Counter

    from ..text.memline import line_key

    left = Counter(line_key(raw) for raw in after.split("\n") if holds_text(raw))
    gone = []
    for raw in before.split("\n"):
        if not holds_text(raw):
            continue
        key = line_key(raw)
        if left[key] > 0:
            left[key] -= 1
        elif key:
            gone.append(raw)
    return gone


def archived_lines(
    ws: Workspace, files: Mapping[str, str], note: str, today: date
) -> tuple[dict[str, str], int]:
    """The archive files with every text line of ``files`` appended, each noted with its file and
    ``note``; and how many lines that is."""
    entries = [
        entry_line(bare_line(raw), f"{note} from {rel}")
        for rel, text in files.items()
        for raw in text.split("\n")
        if holds_text(raw) and bare_line(raw)
    ]
    if not entries:
        return {}, 0
    current = ws.read(FILES_ARCHIVE) or _FILES_HEADER
    return {FILES_ARCHIVE: append_entries(current, FILES_ARCHIVE, entries, today)}, len(entries)


def _commit(
    ws: Workspace,
    git: GitStore,
    subject: str,
    kind: str,
    changes: dict[str, str | None],
    base: dict[str, str],
) -> str | None:
    git.ensure()
    return git.commit(subject, kind=kind, files=changes, base=base)


def delete_file(
    ws: Workspace, git: GitStore, path: str, *, kind: str = "manual", reason: str = ""
) -> FilesResult:
    """Delete a topic file or dated note, or a folder of topic files: its lines go to the archive
    (``memory/archive/files.md``, each noted with the file, ``reason`` and the day), the file
    leaves, one commit. ``WorkspaceError`` for a prompt file, the archive, or a path that names
    nothing."""
    _refuse(path, "delete")
    today = date.today()
    why = " ".join(reason.split())
    note = f"deleted {today.isoformat()} {_WHO.get(kind, kind)}" + (f" ({why})" if why else "")
    with dream_run_lock(ws.state_dir, f"{kind} delete"):
        targets = _under(ws, path)
        if not targets:
            raise FileNotFoundError(path)
        texts = {rel: ws.read(rel) for rel in targets}
        changes: dict[str, str | None] = dict.fromkeys(targets)
        archive, count = archived_lines(ws, texts, note, today)
        base = {**texts, **{rel: ws.read(rel) for rel in archive}}
        changes.update(archive)
        subject = f"{kind}: delete {path}" + (f" ({why})" if why else "")
        sha = _commit(ws, git, subject, kind, changes, base)
        _prune_empty(ws, targets)
    return FilesResult(tuple(targets), tuple(archive), count, sha)


def rename_file(
    ws: Workspace, git: GitStore, old: str, new: str, *, kind: str = "manual"
) -> FilesResult:
    """Move a topic file or dated note (or a folder of topic files) to ``new``, text unchanged, in
    one commit. ``FileExistsError`` when ``new`` exists, ``FileNotFoundError`` when ``old`` names
    nothing, ``WorkspaceError`` for a prompt file or the archive on either side, or a destination
    that is not a topic file or dated note."""
    _refuse(old, "rename")
    _refuse(new, "rename")
    with dream_run_lock(ws.state_dir, f"{kind} rename"):
        sources = _under(ws, old)
        if not sources:
            raise FileNotFoundError(old)
        if new.startswith(old.rstrip("/") + "/"):
            raise UnsafePathError(f"{new} is inside {old}: a folder cannot move into itself")
        folder = sources != [old]
        head, tail = new.rstrip("/"), len(old.rstrip("/"))
        moves = {src: head + src[tail:] if folder else new for src in sources}
        for dest in moves.values():
            if dest.startswith(TOPICS_DIR + "/"):
                check_place(ws, dest)
            elif not removable(dest):
                raise UnsafePathError(
                    f"{dest} is not a topic file or a dated note: name it under memory/topics/"
                )
        if (ws.root / new).exists() or any((ws.root / d).exists() for d in moves.values()):
            raise FileExistsError(new)
        texts = {src: ws.read(src) for src in sources}
        changes: dict[str, str | None] = dict.fromkeys(sources)
        changes.update({moves[src]: texts[src] for src in sources})
        sha = _commit(ws, git, f"{kind}: rename {old} to {new}", kind, changes, texts)
        _prune_empty(ws, sources)
    return FilesResult(tuple(sources), tuple(moves.values()), 0, sha)


def clear_files(
    ws: Workspace, git: GitStore, *, kind: str = "manual", reason: str = ""
) -> FilesResult:
    """Clear the memory files in one commit: every topic file and dated note deleted, USER.md and
    memory/MEMORY.md back to their starter text, every line they held archived with ``reason``.
    SOUL.md (the agent's standing instructions) is kept: only a person changes it. History and
    conversations are not memory files and stay (``reverie purge`` / ``forget-user`` erase them)."""
    today = date.today()
    why = " ".join(reason.split()) or "all memory cleared"
    note = f"cleared {today.isoformat()} {_WHO.get(kind, kind)} ({why})"
    with dream_run_lock(ws.state_dir, f"{kind} clear"):
        gone = topic_files(ws) + _dated_notes(ws)
        texts = {rel: ws.read(rel) for rel in gone}
        changes: dict[str, str | None] = dict.fromkeys(gone)
        archive, count = archived_lines(ws, texts, note, today)
        base = dict(texts)
        for rel, after in archive.items():
            base[rel] = ws.read(rel)
            changes[rel] = after
        for rel in (USER, MEMORY):
            before, fresh = ws.read(rel), starter_text(rel)
            lines = [r for r in before.split("\n") if holds_text(r) and r not in fresh.split("\n")]
            if before == fresh or not (ws.root / rel).is_file():
                continue
            target = archive_path(rel)
            base.setdefault(rel, before)
            base.setdefault(target, ws.read(target))
            entries = [entry_line(bare_line(r), note) for r in lines if bare_line(r)]
            changes[rel] = fresh
            if entries:
                changes[target] = append_entries(base[target], rel, entries, today)
                count += len(entries)
        sha = _commit(ws, git, f"{kind}: clear memory ({why})", kind, changes, base)
        _prune_empty(ws, gone)
    deleted = tuple(rel for rel, text in changes.items() if text is None)
    written = tuple(rel for rel, text in changes.items() if text is not None)
    return FilesResult(deleted, written, count, sha)


def _dated_notes(ws: Workspace) -> list[str]:
    try:
        names = sorted(
            p.name for p in ws.memory_dir.iterdir() if p.is_file() and not p.is_symlink()
        )
    except OSError:
        return []
    return [f"memory/{name}" for name in names if _dated(f"memory/{name}")]


def _prune_empty(ws: Workspace, removed: list[str]) -> None:
    """Remove the folders under memory/topics/ that the removal left empty."""
    topics = ws.root / "memory" / "topics"
    for rel in removed:
        folder = (ws.root / rel).parent
        while folder != topics and topics in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent
