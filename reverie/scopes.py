"""Scopes: many workspaces under one root directory, addressed by a user id and an optional agent
id. This docstring is the layout's spec.

::

    <root>/
      users/<u:2>/<u2:4>/<u>/           one directory per user; u = the user id's digest (32 hex digits)
        user.json                       {"user": "<id>"}: whose directory this is (for people and rescans)
        workspace/                      the user's own scope (no agent): an ordinary workspace
        agents/<a>/                     the scope (user, agent); a = the agent id's digest
      due/<u:2>/<name>                  empty marker: the scope has history Dream has not consumed
                                        (<name> = <u> or <u>.<a>; see `due_hook`)
      trash/<u>.<ns>                    a user's directory being deleted by `forget_user`

Every scope workspace holds ``memory/.reverie/scope.json`` (``{"user": …, "agent": …}``), written
when the workspace is created (what a rescan and ``forget_user`` read). A history append in a
workspace at a scope's place in this layout marks the scope due (`due_hook`).

**Ids.** An id is normalised to Unicode NFC (the composed and decomposed forms of "é" name one user)
and must be 1–128 characters of letters, marks, digits and ``_ - . @ + : = ~ #``; it may not start
with ``.`` or ``-``, nor contain ``..``. Anything else (a separator, white space, a control or
invisible formatting character, a NUL) is refused with `InvalidScopeError`, never repaired: two ids
that would repair to the same text would share a memory. Ids are case-sensitive: ``Alice`` and
``alice`` are two users, because the services whose ids these are (chat platforms, auth providers)
often are, and merging two users' memories is the one mistake a scope must never make. Directory
names are digests, not ids, so no id can name a path, collide on a case-insensitive file system, or
make a name too long.

**Fan-out.** Two levels of 256 directories above the user directories: a million users put about 15
entries in each leaf directory. The due directory has one level: it holds only the scopes currently
due.

**Created on first write.** `ScopeRoot.workspace` only computes a path; `ScopeRoot.ensure` creates
the directories and ``scope.json`` (idempotent, safe to race). Queries on a scope never written
create nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidScopeError, WorkspaceError
from .fsutil import atomic_write, fsync_dir
from .workspace import Workspace

__all__ = [
    "Scope",
    "ScopeRoot",
    "ForgetResult",
    "validate_id",
    "due_hook",
    "due_jitter",
    "MAX_ID_CHARS",
    "SCOPE_FILE",
]

MAX_ID_CHARS = 128
#: The file naming a workspace's scope, relative to the workspace.
SCOPE_FILE = "memory/.reverie/scope.json"
_PUNCTUATION = frozenset("_-.@+:=~#")
_DIGEST = re.compile(r"[0-9a-f]{32}")
_TRUSTED_AGE_NS = 2_000_000_000
_DUE_NAME = re.compile(r"([0-9a-f]{32})(?:\.([0-9a-f]{32}))?")


def validate_id(value: object, what: str = "user id") -> str:
    """``value`` as a scope id (NFC), or `InvalidScopeError` saying in one line what is wrong with it."""
    if not isinstance(value, str):
        raise InvalidScopeError(f"{what} must be a string, not {type(value).__name__}")
    text = unicodedata.normalize("NFC", value)
    if not text:
        raise InvalidScopeError(f"{what} is empty")
    if len(text) > MAX_ID_CHARS:
        raise InvalidScopeError(
            f"{what} is {len(text)} characters long; the limit is {MAX_ID_CHARS}"
        )
    for ch in text:
        if ch in _PUNCTUATION or unicodedata.category(ch)[0] in "LMN":
            continue
        shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
        raise InvalidScopeError(
            f"{what} {_shown(text)} contains {shown}: only letters, digits and _-.@+:=~# are "
            "allowed"
        )
    if text[0] in ".-":
        raise InvalidScopeError(f"{what} {_shown(text)} may not start with {text[0]!r}")
    if ".." in text:
        raise InvalidScopeError(f"{what} {_shown(text)} may not contain '..'")
    return text


def _shown(text: str) -> str:
    """An id quoted for an error message: printable, and short."""
    safe = text.encode("unicode_escape").decode("ascii")
    return repr(safe if len(safe) <= 40 else safe[:37] + "...")


def _digest(kind: str, ident: str) -> str:
    return hashlib.sha256(f"{kind}\x00{ident}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Scope:
    """One scope: a user, and optionally one of the user's agents. Ids are validated on creation."""

    user: str
    agent: str | None = None
    user_digest: str = field(init=False, repr=False, compare=False)
    agent_digest: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "user", validate_id(self.user, "user id"))
        if self.agent is not None:
            object.__setattr__(self, "agent", validate_id(self.agent, "agent id"))
        object.__setattr__(self, "user_digest", _digest("user", self.user))
        object.__setattr__(
            self, "agent_digest", _digest("agent", self.agent) if self.agent is not None else None
        )

    @property
    def name(self) -> str:
        """The scope's name in the due directory: the user digest, then ``.`` and the agent digest."""
        return self.user_digest + (f".{self.agent_digest}" if self.agent_digest else "")

    def __str__(self) -> str:
        return f"user {self.user!r}" + (f" agent {self.agent!r}" if self.agent is not None else "")


@dataclass(frozen=True)
class ForgetResult:
    """What `ScopeRoot.forget_user` removed: the user's scopes and how many files (workspace, git
    history, sessions, search index) went with them, the due markers dropped, and the MCP tokens
    revoked."""

    user: str
    scopes: tuple[Scope, ...]
    files: int
    bytes: int
    due_markers: int
    found: bool
    tokens: int = 0  # MCP bearer tokens revoked (reverie.operations.forget)


class ScopeRoot:
    """A root directory of scope workspaces (see the module docstring for the layout)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser().absolute()
        if self.root.exists() and not self.root.is_dir():
            raise WorkspaceError(f"scope root {self.root} exists and is not a directory")

    # -- where things are ---------------------------------------------------------------------------------
    def user_dir(self, user: str) -> Path:
        d = _digest("user", validate_id(user, "user id"))
        return self._user_dir(d)

    def _user_dir(self, digest: str) -> Path:
        return self.root / "users" / digest[:2] / digest[2:4] / digest

    def path(self, scope: Scope) -> Path:
        """The scope's workspace directory (which may not exist)."""
        base = self._user_dir(scope.user_digest)
        return (
            base / "workspace"
            if scope.agent_digest is None
            else base / "agents" / scope.agent_digest
        )

    def workspace(self, scope: Scope) -> Workspace:
        """The scope's workspace; nothing is created (see `ensure`)."""
        return Workspace(self.path(scope))

    def exists(self, scope: Scope) -> bool:
        """Whether the scope was ever written (its workspace directory exists)."""
        return self.path(scope).is_dir()

    def due_path(self, name: str) -> Path:
        return self.root / "due" / name[:2] / name

    # -- creating -----------------------------------------------------------------------------------------
    def ensure(self, scope: Scope) -> Workspace:
        """The scope's workspace, created if it is not yet: directories, ``user.json`` and
        ``scope.json``. Idempotent and safe when several processes create the same scope at once
        (each file is written atomically with the same content)."""
        ws = self.workspace(scope)
        marker = ws.root / SCOPE_FILE
        if marker.is_file():
            return ws  # (a workspace first written another way, a session say, gets its files here)
        user_dir = self._user_dir(scope.user_digest)
        try:
            (ws.root / "memory" / ".reverie").mkdir(parents=True, exist_ok=True)
            (ws.root / "sessions").mkdir(exist_ok=True)
            if not (user_dir / "user.json").is_file():
                atomic_write(
                    user_dir / "user.json",
                    json.dumps({"user": scope.user}, ensure_ascii=False) + "\n",
                )
            atomic_write(
                marker,
                json.dumps({"user": scope.user, "agent": scope.agent}, ensure_ascii=False) + "\n",
            )
        except OSError as exc:
            raise WorkspaceError(
                f"cannot create the workspace of {scope} under {self.root}: {exc.strerror or exc}"
            ) from exc
        return ws

    # -- listing ------------------------------------------------------------------------------------------
    def scopes(self) -> Iterator[tuple[Scope, Workspace]]:
        """Every scope under the root, read from the workspaces' ``scope.json`` (a full scan: for
        recovery and tools, never on a hot path). A directory whose file is missing or does not
        match its path is skipped."""
        users = self.root / "users"
        for first in _subdirs(users):
            for second in _subdirs(first):
                for user_dir in _subdirs(second):
                    if not _DIGEST.fullmatch(user_dir.name):
                        continue
                    candidates = [user_dir / "workspace", *_subdirs(user_dir / "agents")]
                    for ws_dir in candidates:
                        scope = read_scope(ws_dir)
                        if scope is not None and self.path(scope) == ws_dir:
                            yield scope, Workspace(ws_dir)

    def scopes_of(self, user: str) -> list[Scope]:
        """The scopes of one user that exist (the user's own, then one per agent)."""
        user_dir = self.user_dir(user)
        found = [read_scope(d) for d in [user_dir / "workspace", *_subdirs(user_dir / "agents")]]
        return [s for s in found if s is not None and s.user == unicodedata.normalize("NFC", user)]

    # -- due markers (mark on write) ------------------------------------------------------------------------
    def mark_due(self, scope: Scope | str) -> None:
        """Mark a scope (or the scope a due name names) due; a no-op when it is."""
        _touch(self.due_path(scope if isinstance(scope, str) else scope.name))

    def unmark_due(self, name: str) -> None:
        self.due_path(name).unlink(missing_ok=True)

    def due_names(self) -> list[str]:
        """The names of every scope marked due (one directory listing per bucket)."""
        return [name for _bucket, names in self.due_buckets({}) for name in names]

    def due_buckets(self, seen: dict[str, int]) -> list[tuple[str, list[str]]]:
        """``(bucket, marker names)`` for each due bucket whose directory changed since ``seen``
        (bucket → mtime in ns, updated in place): a poll lists only the buckets something was marked
        or unmarked in."""
        out = []
        now = time.time_ns()
        for bucket in _subdirs(self.root / "due"):
            try:
                mtime = bucket.stat().st_mtime_ns
            except OSError:
                continue
            if seen.get(bucket.name) == mtime:
                continue
            # A directory's mtime has the kernel's coarse clock tick (or the file server's): a
            # marker made in the same tick just after this listing would leave it unchanged. A
            # recent mtime is not remembered, so the bucket is listed again until its mtime is old
            # enough to be trusted (git's "racy" rule).
            seen[bucket.name] = mtime if now - mtime > _TRUSTED_AGE_NS else -1
            try:
                names = [n for n in os.listdir(bucket) if _DUE_NAME.fullmatch(n)]
            except OSError:
                continue
            out.append((bucket.name, names))
        return out

    def workspace_of_due(self, name: str) -> Workspace | None:
        """The workspace a due marker names, or None for a name that is not a scope's."""
        m = _DUE_NAME.fullmatch(name)
        if m is None:
            return None
        base = self._user_dir(m.group(1))
        return Workspace(base / "workspace" if m.group(2) is None else base / "agents" / m.group(2))

    def rescan(self, pending: Callable[[Workspace], int]) -> int:
        """Mark due every scope whose workspace has history pending (``pending(ws)`` > 0): the
        recovery path when markers were lost (a restore from backup, a crash before a marker reached
        the disk). Returns the number marked."""
        marked = 0
        for scope, ws in self.scopes():
            if pending(ws) > 0:
                self.mark_due(scope)
                marked += 1
        return marked

    # -- forgetting a user ----------------------------------------------------------------------------------
    def forget_user(
        self, user: str, *, extra: Callable[[Scope], None] | None = None
    ) -> ForgetResult:
        """Delete every scope of ``user``: the workspaces with their git history, sessions and
        search index (all inside the user's directory), and the due markers. ``extra`` is called for
        each scope first, for state kept elsewhere (an index on local disk, tokens).

        Crash-safe order: the user's directory is renamed into ``trash/`` in one step (from then on
        the user has no memory: a new write starts an empty one), then deleted; a crash mid-delete
        leaves only a trash entry, which the next `forget_user` (of anyone) finishes deleting."""
        user = validate_id(user, "user id")
        user_dir = self.user_dir(user)
        scopes = self.scopes_of(user)
        self._empty_trash()
        for scope in scopes:
            if extra is not None:
                extra(scope)
        markers = 0
        digest = user_dir.name  # every scope directory counts, with or without its scope.json
        for name in [digest, *(f"{digest}.{d.name}" for d in _subdirs(user_dir / "agents"))]:
            path = self.due_path(name)
            if path.exists():
                path.unlink(missing_ok=True)
                markers += 1
        if not user_dir.exists():
            return ForgetResult(user, tuple(scopes), 0, 0, markers, found=bool(scopes))
        trash = self.root / "trash"
        trash.mkdir(exist_ok=True)
        aside = trash / f"{user_dir.name}.{time.time_ns()}"
        try:
            os.rename(user_dir, aside)
        except OSError as exc:
            raise WorkspaceError(
                f"cannot remove the memory of user {user!r}: {exc.strerror or exc}"
            ) from exc
        fsync_dir(user_dir.parent)
        fsync_dir(trash)
        files, size = _tree_size(aside)
        shutil.rmtree(aside)
        return ForgetResult(user, tuple(scopes), files, size, markers, found=True)

    def _empty_trash(self) -> None:
        for entry in _subdirs(self.root / "trash"):
            shutil.rmtree(entry, ignore_errors=True)


def read_scope(ws_dir: Path) -> Scope | None:
    """The scope a workspace directory belongs to (its ``scope.json``), or None."""
    try:
        data = json.loads((ws_dir / SCOPE_FILE).read_text("utf-8"))
        return Scope(data["user"], data.get("agent"))
    except (OSError, ValueError, KeyError, TypeError, InvalidScopeError):
        return None


def due_jitter(key: str, window: float) -> float:
    """A fixed delay in ``[0, window)`` for ``key`` (a scope's name or a workspace id), from its
    digest: when a mass event makes every scope due at once, their runs spread over the window, and
    each keeps its place across restarts and processes. The one rule of ``reverie serve --root`` and
    the fleet alike."""
    h = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")
    return h / 2**64 * window


def due_hook(workspace: Workspace) -> Callable[[], None] | None:
    """For a scope's workspace (recognised by its place in the layout: no file is read), the
    function that marks it due, called after each durable history append; None for any other
    workspace."""
    name_and_root = _due_name_of(workspace.root)
    if name_and_root is None:
        return None
    name, root = name_and_root
    marker = root / "due" / name[:2] / name
    return lambda: _touch(marker)


def _due_name_of(ws: Path) -> tuple[str, Path] | None:
    """``(due name, root)`` for a path at a scope workspace's place in the layout, else None."""
    if ws.name == "workspace":
        user_dir, name = ws.parent, ws.parent.name
    elif ws.parent.name == "agents" and _DIGEST.fullmatch(ws.name):
        user_dir, name = ws.parent.parent, f"{ws.parent.parent.name}.{ws.name}"
    else:
        return None
    users = user_dir.parent.parent.parent
    digest = user_dir.name
    if (
        users.name != "users"
        or not _DIGEST.fullmatch(digest)
        or user_dir.parent.name != digest[2:4]
        or user_dir.parent.parent.name != digest[:2]
    ):
        return None
    return name, users.parent


def _touch(marker: Path) -> None:
    """Create an empty marker if absent (``O_CREAT``; cheap when it exists). A new one is made
    durable (its directory fsynced) so a crash does not forget that a scope is due."""
    if marker.exists():
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        return
    except FileNotFoundError:
        marker.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return
    os.close(fd)
    fsync_dir(marker.parent)


def _subdirs(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as it:
            return sorted(Path(e.path) for e in it if e.is_dir(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _tree_size(directory: Path) -> tuple[int, int]:
    files = size = 0
    for base, _dirs, names in os.walk(directory):
        for name in names:
            files += 1
            try:
                size += os.lstat(os.path.join(base, name)).st_size
            except OSError:
                pass
    return files, size
