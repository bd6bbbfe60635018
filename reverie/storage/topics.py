"""Topic files: the memory an agent keeps by name beyond the three prompt files. This docstring is
their spec.

``memory/topics/<path>`` — any file name at any depth (an agent names them: ``progress.md``,
``customer_service_guidelines.xml``, ``projects/acme/notes.md``), UTF-8 text, no hidden part
(``.x``), no ``..``. What makes them memory rather than loose files:

- **versioned**: the memory repo tracks the tree (``git.trackedFiles`` holds ``memory/topics/**``),
  so every change is a commit that ``reverie log`` lists and ``reverie restore`` undoes;
- **indexed** by Recall as evergreen memory (``reverie search`` finds their sections);
- **within a budget**: each at most ``memory.topics.maxFileChars`` characters (16,000: what Claude's
  memory tool shows of a file at a time), at most ``memory.topics.maxFiles`` files; a write past
  either is refused with a message saying what to do (``check_budget``);
- **listed in the prompt by name** (``listing``: path, size and the front matter's
  ``description`` when it has one), never loaded whole: the agent reads the one it needs;
- **leaving only into the archive**: deleting, renaming or clearing one is a commit whose removed
  lines land in ``memory/archive/files.md`` with the reason (``reverie.operations.files``), so
  ``reverie why`` finds them and ``reverie restore`` undoes it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UnsafePathError, WorkspaceError
from .workspace import TOPICS_DIR, Workspace, check_relative

__all__ = [
    "TOPICS_DIR",
    "is_topic",
    "topic_path",
    "walk_tree",
    "topic_files",
    "check_topic",
    "check_place",
    "problem",
    "listing",
    "description",
    "LISTING_MAX_CHARS",
]

#: Most characters of the prompt's topic list; past it, the rest are counted, not named.
LISTING_MAX_CHARS = 4_000
#: A name's most bytes (a file system's limit) and a path's most folders.
MAX_NAME_BYTES = 255
MAX_DEPTH = 16
_DESCRIPTION_MAX = 120


def is_topic(rel: str) -> bool:
    """Whether a workspace-relative path is a topic file's (under ``memory/topics/``, no hidden
    part, names a file system takes)."""
    return rel.startswith(TOPICS_DIR + "/") and problem(rel) is None


def problem(rel: str) -> str | None:
    """What is wrong with ``rel`` as a topic file's path (under ``memory/topics/``), or None."""
    inner = rel[len(TOPICS_DIR) + 1 :] if rel.startswith(TOPICS_DIR + "/") else ""
    parts = inner.split("/")
    if not inner or any(p in ("", ".", "..") for p in parts):
        return "it names no file"
    if any(p[0] == "." for p in parts):
        return "a hidden (dot) name is not memory"
    if any(len(p.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for p in parts):
        return f"a name is longer than {MAX_NAME_BYTES} bytes"
    if len(parts) > MAX_DEPTH:
        return f"it is more than {MAX_DEPTH} folders deep"
    return None


def topic_path(name: str) -> str:
    """The workspace-relative path of the topic file ``name`` (relative to ``memory/topics/``);
    ``UnsafePathError`` for a name that leaves it, names a hidden file or nothing."""
    inner = check_relative(name)
    rel = f"{TOPICS_DIR}/{inner}"
    if not is_topic(rel):
        raise UnsafePathError(f"{name!r} is not a topic file name (no hidden parts, no '..')")
    return rel


def walk_tree(base: Path) -> list[tuple[str, Path]]:
    """(relative POSIX path, path) of every regular file under ``base`` at any depth, sorted; hidden
    names and symlinks skipped (one directory read per folder, no stat per file)."""
    found: list[tuple[str, Path]] = []
    stack = [("", base)]
    while stack:
        prefix, here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = [e for e in it if not e.name.startswith(".")]
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append((f"{prefix}{entry.name}/", Path(entry.path)))
            elif entry.is_file(follow_symlinks=False):
                found.append((prefix + entry.name, Path(entry.path)))
    return sorted(found)


def topic_files(workspace: Workspace) -> list[str]:
    """Every topic file of the workspace, workspace-relative, sorted."""
    base = workspace.root / TOPICS_DIR
    if base.is_symlink():
        return []
    return [f"{TOPICS_DIR}/{rel}" for rel, _ in walk_tree(base)]


def check_place(workspace: Workspace, rel: str) -> None:
    """Refuse (``UnsafePathError`` / ``WorkspaceError``, saying what to do) a topic file's path that
    is not one, has a file where a folder goes, or names a folder."""
    found = problem(rel)
    if found is not None:
        raise UnsafePathError(f"{rel} cannot be a topic file: {found}")
    target = workspace.root / rel
    parent = target.parent
    while parent != workspace.root and parent != parent.parent:
        if parent.is_file():
            shown = parent.relative_to(workspace.root).as_posix()
            raise WorkspaceError(
                f"{shown} is a file, so {rel} cannot be inside it: choose another name"
            )
        parent = parent.parent
    if target.is_dir():
        raise WorkspaceError(f"{rel} is a folder: name a file under it")


def check_topic(
    workspace: Workspace, rel: str, text: str, *, max_chars: int, max_files: int
) -> None:
    """Refuse (``WorkspaceError``, saying what to do) a topic file over ``max_chars`` characters,
    a new one past ``max_files`` files, or one ``check_place`` refuses."""
    check_place(workspace, rel)
    if len(text) > max_chars:
        raise WorkspaceError(
            f"{rel} would hold {len(text):,} characters; a topic file holds at most "
            f"{max_chars:,}: keep what matters, or split it into several files"
        )
    if not (workspace.root / rel).is_file():
        count = len(topic_files(workspace))
        if count >= max_files:
            raise WorkspaceError(
                f"{count:,} topic files already (at most {max_files:,}): add to an existing one, "
                "or delete one that is no longer needed"
            )


def description(text: str) -> str | None:
    """The ``description:`` of a file's front matter (``---`` lines at its top), one line, or
    None."""
    lines = text.split("\n", 40)
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            return None
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == "description":
            found = " ".join(value.strip().strip("\"'").split())
            return found[:_DESCRIPTION_MAX] or None
    return None


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KB"


def listing(workspace: Workspace, *, max_chars: int = LISTING_MAX_CHARS) -> str:
    """The prompt's list of topic files: one line each (path, size, description), or "" when there
    are none. The files themselves are not loaded: the agent reads the one it needs."""
    base = workspace.root / TOPICS_DIR
    if base.is_symlink():
        return ""
    files = walk_tree(base)
    if not files:
        return ""
    lines: list[str] = []
    used = 0
    for n, (rel, path) in enumerate(files):
        try:
            size = path.stat().st_size
            with path.open("rb") as handle:
                head = handle.read(4096).decode("utf-8", errors="replace")
        except OSError:
            continue
        about = description(head)
        line = f"- {TOPICS_DIR}/{rel} ({_size(size)})" + (f": {about}" if about else "")
        if used + len(line) > max_chars:
            lines.append(f"- … and {len(files) - n} more (search finds them)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
