"""A nanobot workspace brought into a new Reverie workspace (``reverie import DIR --from nanobot``).

Reverie keeps nanobot's layout, so most of it comes across as it is; every text is redacted of
credentials on the way (history entries, conversations, memory files, nanobot's own files), and
everything the source holds is either brought in or named in the result with the reason:

- ``memory/history.jsonl``: entry by entry, cursors and timestamps kept, text fields redacted; a
  line that is not an entry (not JSON, not UTF-8, wrong fields) is named and left out;
  ``memory/HISTORY.md`` (nanobot's legacy log, migrated on first open) and the cursors likewise;
- ``sessions/*.jsonl``: line by line, every string value redacted; a line that is not JSON is named;
- ``SOUL.md``, ``USER.md``, ``memory/MEMORY.md``, and other Markdown under ``memory/`` (dated notes
  as they are, anything else as a topic file under ``memory/topics/``), and the topic files and
  archive a workspace Reverie used in place holds (``memory/topics/**``, ``memory/archive/*.md``):
  committed, redacted, as one version whose message names the source;
- nanobot's own files, which Reverie does not read but a nanobot pointed at the new workspace does
  (``AGENTS.md``, ``TOOLS.md``, ``HEARTBEAT.md``, any other top-level Markdown, ``skills/``):
  copied, redacted, and listed as kept;
- anything else (the agent's working files, nanobot's own ``.git``, which keeps its history): named
  as not imported.

A file that is not UTF-8 is named and left out, never decoded with replacements. The import, memory
repository and its commit included, is made beside the target and renamed into place as the last
step (``portability.staging_for``); a non-empty target is refused unless ``replace``.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from ...errors import WorkspaceError
from ...operations.files import removable
from ...operations.portability import (
    AGENT_FILES,
    ImportResult,
    check_target,
    commit_import,
    head_of,
    move_into_place,
    staging_for,
)
from ...security.scrub import redact_many
from ...storage.history import BadLine, HistoryEntry
from ...storage.migrate import MIGRATED_KEY
from ...storage.workspace import (
    ARCHIVE_DIR,
    MEMORY,
    MEMORY_FILES,
    SOUL,
    TOPICS_DIR,
    USER,
    Workspace,
)
from ._read import Intake

__all__ = ["import_nanobot", "NANOBOT_FILES"]

#: nanobot's own top-level files (its context builder's bootstrap files and the heartbeat's task
#: list): copied as they are, not memory Reverie reads.
NANOBOT_FILES = ("AGENTS.md", "TOOLS.md", "HEARTBEAT.md", "IDENTITY.md", "BOOTSTRAP.md")
_HISTORY = "memory/history.jsonl"
_LEGACY = "memory/HISTORY.md"
_CURSORS = ("memory/.cursor", "memory/.dream_cursor")
#: Most bytes of one file copied (a history of years is far smaller).
_MAX_COPY = 1 << 30


def import_nanobot(
    source: str | os.PathLike[str],
    workspace: Workspace | str | os.PathLike[str],
    *,
    replace: bool = False,
) -> ImportResult:
    """Bring the nanobot workspace at ``source`` into a new Reverie workspace at ``workspace`` (see
    the module doc); ``replace`` moves a non-empty target aside first."""
    src = Path(source).expanduser().absolute()
    if not src.is_dir():
        raise WorkspaceError(f"no nanobot workspace at {src}")
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    if not any((src / rel).is_file() for rel in (*MEMORY_FILES, _HISTORY, _LEGACY)):
        raise WorkspaceError(
            f"{src} holds no nanobot memory (no SOUL.md, USER.md, memory/MEMORY.md or history)"
        )
    check_target(ws, replace)
    intake = Intake()
    memory: dict[str, str] = {}
    kept: list[str] = []
    with staging_for(ws) as staging:
        entries = _history(src, staging, intake)
        _legacy_and_cursors(src, staging, intake, entries)
        _sessions(src, staging, intake)
        for name in sorted(os.listdir(src)):
            _top_level(src, staging, name, intake, memory, kept)
        # the memory files and their repository too: the rename is the one step that publishes
        # the import, so a kill before it leaves no half-imported workspace
        commit = commit_import(Workspace(staging), f"import: nanobot workspace from {src}", memory)
        moved = move_into_place(staging, ws.root, replace)
    files = sorted(
        str(p.relative_to(ws.root))
        for p in ws.root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    size = sum((ws.root / rel).stat().st_size for rel in files)
    return ImportResult(
        ws.root,
        len(files),
        size,
        moved,
        head_of(ws),
        [commit] if commit else [],
        items=entries,
        skipped=tuple(intake.skipped),
        kept=tuple(kept),
        redacted=intake.redacted,
    )


def _write(staging: Path, rel: str, data: bytes) -> None:
    out = staging.joinpath(*rel.split("/"))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _present(src: Path, rel: str) -> bool:
    path = src.joinpath(*rel.split("/"))
    return path.exists() or path.is_symlink()


def _lines(src: Path, rel: str, intake: Intake) -> list[tuple[int, bytes]] | None:
    """The file's lines (numbered from 1, without their newline); None when it cannot be copied (a
    link anywhere on the way, not a regular file, too large: named)."""
    if not _present(src, rel):
        return None
    data = intake.read_bytes(src.joinpath(*rel.split("/")), rel, limit=_MAX_COPY, root=src)
    if data is None:
        return None
    return [
        (n, raw.rstrip(b"\r")) for n, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()
    ]


def _history(src: Path, staging: Path, intake: Intake) -> int:
    """history.jsonl entry by entry, redacted; the number of entries brought in."""
    lines = _lines(src, _HISTORY, intake)
    if lines is None:
        return 0
    kept: list[dict[str, object]] = []
    for n, raw in lines:
        try:
            entry = HistoryEntry.from_json(raw)
        except BadLine as bad:
            intake.skip(f"{_HISTORY} line {n}", f"not a history entry ({bad.kind})")
            continue
        kept.append(entry.to_dict())
    cleaned, found = redact_many(kept)
    intake.redacted += found
    out = [orjson.dumps(entry) + b"\n" for entry in cleaned]
    if out:
        _write(staging, _HISTORY, b"".join(out))
    return len(out)


def _legacy_and_cursors(src: Path, staging: Path, intake: Intake, entries: int) -> None:
    if _present(src, _LEGACY):
        text = intake.read(src / _LEGACY, _LEGACY, limit=_MAX_COPY, root=src)
        if text is not None:
            _write(staging, _LEGACY, text.encode("utf-8"))
            if entries and not _migrated_from_legacy(staging):
                # migrated only into an empty log (nanobot's rule too): say so, never guess
                intake.skip(
                    f"{_LEGACY} entries",
                    "the file is copied, but its entries are not in history: history.jsonl already "
                    "holds entries, so it is never migrated; merge what it holds by hand if needed",
                )
    for rel in _CURSORS:
        if not _present(src, rel):
            continue
        data = intake.read_bytes(src / rel, rel, root=src)
        if data is None:
            continue
        raw = data.strip()
        if raw.isdigit():
            _write(staging, rel, raw + b"\n")
        else:
            intake.skip(rel, "not a cursor (one whole number); Reverie recovers it from history")


def _migrated_from_legacy(staging: Path) -> bool:
    """Whether the staged log starts with the legacy migration's output (a leftover HISTORY.md)."""
    with open(staging.joinpath(*_HISTORY.split("/")), "rb") as handle:
        first = HistoryEntry.from_json(handle.readline())
    return first.extra.get(MIGRATED_KEY) == "HISTORY.md"


def _sessions(src: Path, staging: Path, intake: Intake) -> None:
    folder = src / "sessions"
    if folder.is_symlink():
        intake.skip("sessions/", "a symbolic link, not followed")
        return
    if not folder.is_dir():
        return
    for name in sorted(os.listdir(folder)):
        rel = f"sessions/{name}"
        if name.endswith(".lock") and not name.startswith("."):
            continue  # a session's or a consolidation's lock: state of the source, not content
        if not name.endswith(".jsonl") or name.startswith("."):
            intake.skip(rel, "not a conversation (sessions/*.jsonl)")
            continue
        lines = _lines(src, rel, intake)
        if lines is None:
            continue
        values: list[object] = []
        for n, raw in lines:
            try:
                values.append(orjson.loads(raw))
            except orjson.JSONDecodeError:
                intake.skip(f"{rel} line {n}", "not JSON (or not UTF-8)")
        cleaned, found = redact_many(values)
        intake.redacted += found
        out = [orjson.dumps(value) + b"\n" for value in cleaned]
        _write(staging, rel, b"".join(out))


def _top_level(
    src: Path,
    staging: Path,
    name: str,
    intake: Intake,
    memory: dict[str, str],
    kept: list[str],
) -> None:
    """One entry of the source's top level: memory, nanobot's own files, or named as left out."""
    path = src / name
    if name in ("memory", "sessions"):
        if name == "memory":
            _memory_dir(src, intake, memory)
        return
    if name in (SOUL, USER):
        text = intake.read(path, name)
        if text is not None:
            memory[name] = text
        return
    if name in AGENT_FILES and path.is_dir() and not path.is_symlink():
        for rel, text in _tree(src, name, intake):
            _write(staging, rel, text.encode("utf-8"))
            kept.append(rel)
        return
    if name.endswith(".md") and not name.startswith("."):
        text = intake.read(path, name)
        if text is not None:
            _write(staging, name, text.encode("utf-8"))
            kept.append(name)
        return
    if name in (".git", ".gitignore"):
        intake.skip(name, "nanobot's own memory repository: its history stays with the source")
        return
    what = "a folder" if path.is_dir() and not path.is_symlink() else "a file"
    intake.skip(name if what == "a file" else f"{name}/", f"{what} that is not memory")


def _memory_dir(src: Path, intake: Intake, memory: dict[str, str]) -> None:
    folder = src / "memory"
    if folder.is_symlink():
        intake.skip("memory/", "a symbolic link, not followed")
        return
    if not folder.is_dir():
        intake.skip("memory", "not a folder")
        return
    handled = {"history.jsonl", "HISTORY.md", ".cursor", ".dream_cursor"}
    # a workspace Reverie kept in place (or a nanobot shared with it) holds these two: versioned
    # memory, imported whole and committed
    for sub in (TOPICS_DIR, ARCHIVE_DIR):
        place = src.joinpath(*sub.split("/"))
        if place.is_symlink() or not place.is_dir():
            continue
        for found, content in _tree(src, sub, intake):
            leaf = found.rsplit("/", 1)[-1]
            if leaf.startswith("."):
                intake.skip(found, "a hidden file (Reverie never versions one)")
            elif sub == ARCHIVE_DIR and ("/" in found[len(sub) + 1 :] or not leaf.endswith(".md")):
                intake.skip(found, f"not an archive file ({ARCHIVE_DIR}/*.md)")
            else:
                memory[found] = content
    for name in sorted(os.listdir(folder)):
        rel = f"memory/{name}"
        if name in handled or rel in (TOPICS_DIR, ARCHIVE_DIR) and not (folder / name).is_symlink():
            continue
        path = folder / name
        if path.is_symlink():
            intake.skip(f"{rel}/" if path.is_dir() else rel, "a symbolic link, not followed")
            continue
        if rel == MEMORY or (name.endswith(".md") and path.is_file()):
            text = intake.read(path, rel, root=src)
            if text is None:
                continue
            target = rel if rel == MEMORY or removable(rel) else f"{TOPICS_DIR}/{name}"
            if target in memory:
                intake.skip(rel, f"{target} is in the source too, and is the one imported")
                continue
            memory[target] = text
            continue
        if name.startswith(".") or name.endswith(".lock") or name.startswith("history.jsonl."):
            # nanobot's and Reverie's state (.reverie/, locks, the log's hints): rebuilt
            if name.endswith(".torn"):
                intake.skip(rel, "torn lines a crash left beside the log: not entries")
            continue
        intake.skip(f"{rel}/" if path.is_dir() else rel, "not a memory file")


def _tree(src: Path, prefix: str, intake: Intake) -> list[tuple[str, str]]:
    """Every file under ``src/prefix`` as ``(path, redacted text)``; links (any on the way),
    non-UTF-8 and other non-text files named and left out."""
    base = src.joinpath(*prefix.split("/"))
    out: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        here = Path(dirpath)
        for d in sorted(dirnames):
            if (here / d).is_symlink():
                rel = (here / d).relative_to(src).as_posix()
                intake.skip(f"{rel}/", "a symbolic link, not followed")
        dirnames[:] = sorted(d for d in dirnames if not (here / d).is_symlink())
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(src).as_posix()
            text = intake.read(path, rel, root=src)
            if text is not None:
                out.append((rel, text))
    return out
