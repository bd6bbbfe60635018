"""The workspace layout (nanobot v0.1.5's, so an existing nanobot workspace opens as is) and path
safety.

::

    <workspace>/
      SOUL.md  USER.md            durable knowledge, tracked by git
      memory/MEMORY.md            durable knowledge, tracked by git
      memory/history.jsonl        append-only history log (see reverie.storage.history)
      memory/.cursor              last history cursor issued (a hint; the log's tail is the truth)
      memory/.dream_cursor        last history cursor Dream consumed
      memory/HISTORY.md           nanobot's legacy log, migrated once to history.jsonl
      memory/archive/*.md         lines Dream moved out of the prompt files (tracked by git,
                                  indexed by Recall)
      memory/topics/**            topic files an agent keeps by name (tracked, indexed, listed
                                  in the prompt)
      sessions/*.jsonl            conversations (see reverie.storage.sessions)
      reverie.json                optional per-workspace config

Every path a tool or a write names goes through ``Workspace.resolve``: inside the workspace, no
symlink out of it, no NUL, no '..', not absolute.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import UnsafePathError, WorkspaceError
from .fsutil import atomic_write, decode_lossy, swap_links_only

__all__ = [
    "Workspace",
    "MEMORY_FILES",
    "default_home",
    "default_workspace",
    "starter_text",
    "content_id",
]

SOUL = "SOUL.md"
USER = "USER.md"
#: What a root of workspaces holds at its top (``reverie.storage.scopes``): never a workspace.
ROOT_FILE = "reverie-root.json"
MEMORY = "memory/MEMORY.md"
#: The durable memory files, as workspace-relative POSIX paths: what Dream edits and GitStore tracks
#: by default.
MEMORY_FILES: tuple[str, ...] = (SOUL, USER, MEMORY)
#: Dated memory files (session-end summaries, flushed facts; see reverie.operations.memfiles), as
#: a glob GitStore tracks.
DATED_MEMORY_GLOB = "memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.md"
#: Dream's curated archive (reverie.dream.archive): lines moved out of the prompt files, one file
#: per source file.
ARCHIVE_DIR = "memory/archive"
#: Where a workspace's memory repo can be, in the order ``gitstore.location.choose`` tries them
#: (a separate git dir first): a reader that must not load git looks here.
REPO_DIRS = (".reverie-git", ".git")
ARCHIVE_GLOB = f"{ARCHIVE_DIR}/*.md"
#: Topic files (reverie.storage.topics): any other memory an agent keeps by name, at any depth under
#: memory/topics/, versioned as a tree (``**``: every file but hidden ones).
TOPICS_DIR = "memory/topics"
TOPICS_GLOB = f"{TOPICS_DIR}/**"
_TEMPLATES = {SOUL: "SOUL.md", USER: "USER.md", MEMORY: "MEMORY.md"}


def starter_text(rel: str) -> str:
    """The starter text a prompt file is created with (``init``), and cleared back to."""
    return resources.files("reverie").joinpath("templates", _TEMPLATES[rel]).read_text("utf-8")


@functools.cache
def starter_prose(rel: str) -> frozenset[str]:
    """The starter text's own lines under its heading ("Who the user is: …"): Reverie's words
    about the file, no memory of anyone's, so Recall leaves them out. Empty for other files."""
    if rel not in _TEMPLATES:
        return frozenset()
    lines = (line.strip() for line in starter_text(rel).splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def content_id(text: str) -> str:
    """A memory file's content id: the git blob id of ``text`` as UTF-8 (what ``git hash-object``
    prints for the file). A write names the state it was made from with it (``Memory.write(...,
    base=content_id(text_read))``): equal ids, same text; and the memory repo finds that text again
    by the id to merge over what changed since."""
    data = text.encode("utf-8", "surrogateescape")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def default_home() -> Path:
    """Reverie's home (config, default workspace): ``$REVERIE_HOME`` or ``~/.reverie``."""
    env = os.environ.get("REVERIE_HOME")
    return Path(env).expanduser() if env else Path.home() / ".reverie"


def default_workspace() -> Path:
    """``$REVERIE_WORKSPACE``, else ``<home>/workspace``."""
    env = os.environ.get("REVERIE_WORKSPACE")
    return Path(env).expanduser() if env else default_home() / "workspace"


def check_relative(rel: str) -> str:
    """Validate the shape of a workspace-relative path and return it normalised to POSIX form.

    Refused: empty, NUL or other control characters, absolute paths (``/x``, ``C:\\x``, ``C:x``,
    ``\\\\server``), any ``..`` segment (either slash), and ``:`` inside a name (Windows drive and
    stream syntax).
    """
    if not isinstance(rel, str) or not rel:
        raise UnsafePathError("path must be a non-empty string")
    if "\x00" in rel:
        raise UnsafePathError(f"path contains a NUL byte: {rel!r}")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in rel):
        raise UnsafePathError(f"path contains a control character: {rel!r}")
    norm = rel.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        raise UnsafePathError(f"absolute paths are not allowed: {rel!r}")
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise UnsafePathError(f"'..' is not allowed in a path: {rel!r}")
    if not parts:
        raise UnsafePathError(f"path names no file: {rel!r}")
    if any(":" in p for p in parts):
        raise UnsafePathError(f"':' is not allowed in a file name: {rel!r}")
    return "/".join(parts)


#: Directories and fixed files Reverie writes besides the memory files; ``check_layout`` vets them
#: all.
_LAYOUT = (
    "memory",
    "sessions",
    "prompts",
    "memory/.reverie",
    "memory/history.jsonl",
    "memory/.cursor",
    "memory/.dream_cursor",
    "memory/HISTORY.md",
)


@dataclass(frozen=True)
class Workspace:
    """A workspace directory and where each of its files lives."""

    root: Path

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        base = Path(root).expanduser() if root is not None else default_workspace()
        object.__setattr__(self, "root", base.absolute())

    # -- layout ------------------------------------------------------------------------------------
    @property
    def memory_dir(self) -> Path:
        """``<workspace>/memory``: the history log, cursors, dated notes, topic files, the
        archive."""
        return self.root / "memory"

    @property
    def sessions_dir(self) -> Path:
        """``<workspace>/sessions``: the conversations, one JSONL file each."""
        return self.root / "sessions"

    @property
    def history_path(self) -> Path:
        """``memory/history.jsonl``: the append-only history log."""
        return self.memory_dir / "history.jsonl"

    @property
    def cursor_path(self) -> Path:
        """``memory/.cursor``: the last cursor issued (a hint; the log's tail is the truth)."""
        return self.memory_dir / ".cursor"

    @property
    def dream_cursor_path(self) -> Path:
        """``memory/.dream_cursor``: the last cursor Dream consumed."""
        return self.memory_dir / ".dream_cursor"

    @property
    def legacy_history_path(self) -> Path:
        """``memory/HISTORY.md``: nanobot's legacy log, migrated once to history.jsonl."""
        return self.memory_dir / "HISTORY.md"

    @property
    def config_path(self) -> Path:
        """``reverie.json``: the workspace's own configuration (optional)."""
        return self.root / "reverie.json"

    @property
    def state_dir(self) -> Path:
        """Reverie's private, rebuildable-or-small state (locks, status records); ignored by git."""
        return self.memory_dir / ".reverie"

    def check(self) -> None:
        """Refuse a workspace path that exists but is not a directory (a missing one is fine: it
        reads as empty)."""
        if self.root.exists() and not self.root.is_dir():
            raise WorkspaceError(f"workspace {self.root} exists and is not a directory")
        if os.path.lexists(self.root / ROOT_FILE):
            raise WorkspaceError(
                f"{self.root} is a root of workspaces ({ROOT_FILE}), not a workspace: "
                f"give --root {self.root} --user ID (a user's memory in it), or -w another folder"
            )

    def marks(self) -> list[str]:
        """What makes this directory a workspace already (its memory files, history, identity):
        a root of scopes is never made inside one (``reverie.storage.scopes.ScopeRoot``)."""
        found = (*MEMORY_FILES, "memory", WORKSPACE_ID_FILE)
        return [rel for rel in found if os.path.lexists(self.root / rel)]

    # -- path safety -------------------------------------------------------------------------------
    def resolve(self, rel: str, *, allow_missing: bool = True) -> Path:
        """The absolute path of ``rel`` inside the workspace, refusing anything that would leave it.

        Symlinks are not followed out of the workspace: if any existing component resolves outside
        the root, the path is refused rather than written through. The named entry itself may not be
        a symlink at all (even one pointing inside), nor a FIFO, socket or device (reading one would
        hang or leak).
        """
        norm = check_relative(rel)
        parts = norm.split("/")
        candidate = self.root.joinpath(*parts)
        # One lstat per component below the root (the common case: no symlinks). A symlinked
        # directory on the way is allowed only if it resolves inside the workspace, which the full
        # resolve below decides.
        here = str(self.root)
        st: os.stat_result | None = None
        for i, part in enumerate(parts):
            here = os.path.join(here, part)
            try:
                st = os.lstat(here)
            except FileNotFoundError:
                st = None
                break  # nothing below a missing component exists either
            except OSError as exc:
                raise UnsafePathError(f"{rel!r} cannot be checked: {exc.strerror}") from None
            if stat.S_ISLNK(st.st_mode):
                root_real = self.root.resolve()
                real = candidate.resolve(strict=False)
                if real != root_real and root_real not in real.parents:
                    raise UnsafePathError(
                        f"{rel!r} resolves outside the workspace "
                        "(through a symlink); refusing to follow it"
                    )
                if i == len(parts) - 1:
                    raise UnsafePathError(
                        f"{rel!r} is a symlink; memory files must be regular files"
                    )
        if st is not None:
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                raise UnsafePathError(
                    f"{rel!r} in {self.root} is not a regular file (a FIFO, socket or device): "
                    "move it aside"
                )
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and not swap_links_only(candidate, st):
                # a hard link shares the file with another place (another user's workspace):
                # reading or appending through it would cross that boundary
                raise UnsafePathError(
                    f"{rel!r} has {st.st_nlink} hard links; a workspace file must not be shared"
                )
        elif not allow_missing:
            raise WorkspaceError(f"{rel!r} does not exist in the workspace")
        return candidate

    def check_layout(self) -> None:
        """Refuse a workspace whose own directories or fixed files lead out of it (e.g. ``memory/``
        a symlink).

        Called when a store opens, so history, cursors, sessions and state are never written through
        a link.
        """
        for rel in _LAYOUT:
            self.resolve(rel)

    # -- memory files ------------------------------------------------------------------------------
    def read(self, rel: str) -> str:
        """Text of a workspace file; missing reads as empty, invalid UTF-8 as U+FFFD with one
        warning."""
        path = self.resolve(rel)
        return decode_lossy(self.read_bytes(rel, path), origin=str(path))

    def read_bytes(self, rel: str, path: Path | None = None) -> bytes:
        """The bytes of a workspace file (``b""`` when missing), through ``resolve``; the one place
        a file that cannot be read becomes a Reverie error: a folder where the file goes is
        ``UnsafePathError`` ("is a folder, not a regular file"), any other failure
        ``WorkspaceError``, each naming the file."""
        path = self.resolve(rel) if path is None else path
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return b""
        except IsADirectoryError:
            raise UnsafePathError(
                f"{rel!r} in {self.root} is a folder, not a regular file: move it aside"
            ) from None
        except OSError as exc:
            raise WorkspaceError(
                f"cannot read {rel} in {self.root}: {exc.strerror or exc}"
            ) from None

    def write(self, rel: str, content: str, *, fsync: bool = True) -> None:
        """Atomically replace a workspace file (see ``reverie.storage.fsutil.atomic_write``)."""
        path = self.resolve(rel)
        try:
            atomic_write(path, content, fsync=fsync)
        except OSError as exc:
            raise WorkspaceError(
                f"cannot write {rel} in {self.root}: {exc.strerror or exc}"
            ) from exc

    def init(self) -> list[str]:
        """Create the layout and any missing memory file from its starter template; returns what was
        created."""
        created: list[str] = []
        self.check()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.check_layout()
            self.memory_dir.mkdir(exist_ok=True)
            self.sessions_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise WorkspaceError(
                f"cannot create the workspace at {self.root}: {exc.strerror or exc}"
            ) from exc
        for rel in _TEMPLATES:
            path = self.resolve(rel)
            if not path.exists():
                atomic_write(path, starter_text(rel))
                created.append(rel)
        return created


#: A workspace's identity: a random id written once, when Reverie creates the workspace as a scope
#: (``reverie.storage.scopes``), never changed. What is derived from a workspace and kept elsewhere
#: (a search index under ``memory.search.indexDir``) records it, so a new workspace at a path where
#: a removed one was (a user forgotten, then back) is never taken for the old one.
WORKSPACE_ID_FILE = "memory/.reverie/workspace-id"


def workspace_id(workspace: Workspace) -> str | None:
    """The workspace's identity (`WORKSPACE_ID_FILE`), or None when it has none (made before
    identities, or not as a scope) or it cannot be read."""
    try:
        with open(workspace.root / WORKSPACE_ID_FILE, "rb") as f:
            raw = f.read(65)
    except OSError:
        return None
    text = raw.decode("ascii", "replace").strip()
    return text if 0 < len(text) <= 64 and text.isalnum() else None


def ensure_workspace_id(workspace: Workspace) -> str:
    """The workspace's identity, written now if it has none (its ``memory/.reverie`` must exist).
    Safe to race: the file is linked into place, so the first writer's id stands."""
    found = workspace_id(workspace)
    if found is not None:
        return found
    import secrets

    path = workspace.root / WORKSPACE_ID_FILE
    tmp = path.with_name(f".workspace-id.{os.getpid()}.{secrets.token_hex(4)}")
    atomic_write(tmp, secrets.token_hex(16) + "\n")
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return workspace_id(workspace) or ""
