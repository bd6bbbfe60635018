"""Moving a workspace between machines: one self-contained bundle out (``export_bundle``), the same
workspace back in (``import_bundle``); and what every importer shares (the result types, the
target's checks, the move into place, the import commit; ``reverie.memory.importers`` holds the
importers of other tools' memory). This docstring is the bundle's spec.

A bundle is a gzip-compressed tar of the workspace's own files, each under its workspace-relative
path:

- the memory files (``SOUL.md``, ``USER.md``, everything under ``memory/``: ``MEMORY.md``, dated
  notes, the archive, ``history.jsonl``, the cursors, Reverie's state), the conversations
  (``sessions/``), the workspace's config (``reverie.json``) and ``.gitignore``;
- the memory repository's git directory (``.git/`` or ``.reverie-git/``) whole, so every version,
  ``reverie log``, ``why`` and ``restore`` work in the copy as in the original. Refs are written
  before objects are read, so a commit landing mid-export can only be missing from the copy, never
  half in it;
- last, ``reverie-bundle.json``: ``{"format": "reverie-bundle", "version": 1, "created": ISO time,
  "reverie": version, "files": {path: {"size": bytes, "sha256": hex}}}``.

- the files nanobot reads from a workspace it shares with Reverie (``AGENT_FILES``: any top-level
  Markdown, such as ``AGENTS.md``, ``TOOLS.md``, ``HEARTBEAT.md``, and ``skills/``), the ones a
  nanobot import keeps;

Left out: lock files (``*.lock``) and the derived search index (``memory/.index.sqlite*``, rebuilt
on the first search), which are not content; and, each named in ``ExportResult.skipped`` with the
reason and said in one warning line, symlinks (a bundle holds regular files only) and any other
top-level entry (the agent's working files: not memory, left where they are).

Import is all or nothing: members are checked (regular files and directories only, a relative path
without ``..``, each at most ``max_member_bytes`` and all together at most ``max_total_bytes``, at
most ``MAX_MEMBERS``), written to a new directory beside the target, checked against the manifest
(every file present, size and sha256 equal, nothing extra), and only then moved into place. A bundle
that fails any check is refused with one line and leaves nothing behind. A non-empty target is
refused unless ``replace=True``, which moves it aside to ``<target>.before-import-<time>`` first:
nothing is deleted. The copy is made in a hidden folder beside the target (``.<name>.import-*``),
locked (``flock``) while its import runs; a run that finds one nobody holds (an import killed before
its rename) removes it and says so.

No credential comes in whatever a bundle holds: before the checked copy is moved into place, every
text in it — its files and every version in its memory repository — is scanned
(``reverie.security.secrets``), and each credential found is purged from all of them
(``reverie.operations.purge``: the string replaced by ``[REDACTED:purged]``, the repository's
history rewritten). A bundle Reverie exported holds none (it redacts on the way in), so it comes
back byte for byte.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import logging
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import orjson

from ..dream.lock import dream_run_lock
from ..errors import UnsafePathError, WorkspaceError
from ..gitstore.location import locate
from ..security.secrets import scan
from ..storage.fsutil import fsync_dir
from ..storage.workspace import Workspace, check_relative
from ..text.safety import CONTROL
from ..version import version

__all__ = [
    "BundleError",
    "ExportResult",
    "ImportResult",
    "Skipped",
    "ScopeImport",
    "export_bundle",
    "import_bundle",
    "purge_credentials",
    "check_target",
    "staging_for",
    "move_into_place",
    "head_of",
    "commit_import",
    "MANIFEST",
    "FORMAT",
    "VERSION",
    "MAX_MEMBER_BYTES",
    "MAX_TOTAL_BYTES",
    "MAX_MEMBERS",
]

log = logging.getLogger(__name__)

MANIFEST = "reverie-bundle.json"
FORMAT = "reverie-bundle"
VERSION = 1
#: Largest single file a bundle may carry, and all of them together (a history of years is well
#: under this).
MAX_MEMBER_BYTES = 1 << 30
MAX_TOTAL_BYTES = 8 << 30
#: Most members a bundle may hold (a git directory of loose objects is the large one).
MAX_MEMBERS = 200_000
_MAX_MANIFEST_BYTES = 64 << 20
_CHUNK = 1 << 20
#: The workspace's own top-level entries a bundle carries (the git directory is added by name).
_TOP = ("SOUL.md", "USER.md", "reverie.json", ".gitignore", "memory", "sessions")
#: nanobot's own files in a workspace it shares (top-level Markdown besides these, and this folder):
#: carried by an export, kept by a nanobot import.
AGENT_FILES = ("skills",)


class BundleError(WorkspaceError):
    """A bundle that cannot be imported: not a bundle, damaged, or hostile (a link, a path out, too
    large)."""


@dataclass(frozen=True)
class ExportResult:
    path: Path
    files: int
    bytes: int
    #: What the bundle does not carry, each with the reason (symlinks, files that are not memory).
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class Skipped:
    """Something an import did not bring in, and why (one line): every such item is named."""

    item: str
    reason: str

    def __str__(self) -> str:
        return f"{self.item}: {self.reason}"


@dataclass(frozen=True)
class ScopeImport:
    """What an import into a root of scoped workspaces brought into one scope."""

    user: str
    agent: str | None
    workspace: Path
    items: int


@dataclass(frozen=True)
class ImportResult:
    workspace: Path
    files: int
    bytes: int
    #: Where a replaced workspace was moved (None when the target was empty or missing).
    moved_aside: Path | None = None
    #: The memory repository's head after the import (None when the bundle has no repository).
    head: str | None = None
    commits: list[str] = field(default_factory=list)
    #: Memories, notes or history entries brought in (beyond whole files).
    items: int = 0
    #: What was not brought in, each named with the reason (never dropped silently).
    skipped: tuple[Skipped, ...] = ()
    #: Files copied as they are that are not memory (nanobot's AGENTS.md, skills/, …).
    kept: tuple[str, ...] = ()
    #: Credentials found in what came in and redacted (or purged) on the way.
    redacted: int = 0
    #: An import into a root: what each scope received.
    scopes: tuple[ScopeImport, ...] = ()
    #: A mem0 import into one workspace: whose memories came in (now the workspace's user).
    user: str | None = None


# -- export ----------------------------------------------------------------------------------


def _skipped(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.endswith(".lock") or name.startswith(".index.sqlite")


def _shown(rel: str) -> str:
    """``rel`` on one printable line: bytes that are not UTF-8 and control characters (a newline
    too) as ``\\xNN``."""
    text = rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\n", "\\x0a"))


def _unbundlable(rel: str) -> str | None:
    """Why a name cannot be a bundle's member (an import would refuse the whole bundle), or
    None."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not UTF-8 text: rename it"
    try:
        check_relative(rel)
    except UnsafePathError:
        return "its name holds a control character or a ':': rename it"
    return None


def _walk(root: Path, rel: str, skipped: list[Skipped]) -> Iterator[str]:
    """Regular files under ``root/rel`` (workspace-relative, sorted); a symlink, a name a bundle
    cannot hold and what is not a regular file are named in ``skipped``."""
    path = root / rel
    why = _unbundlable(rel)
    if why is not None:
        skipped.append(Skipped(_shown(rel), why))
        return
    if path.is_symlink():
        skipped.append(Skipped(rel, "a symbolic link: a bundle carries regular files only"))
        return
    if path.is_file():
        if not _skipped(rel):
            yield rel
        return
    if not path.is_dir():
        if path.exists():  # a FIFO, a socket, a device: nothing a bundle can hold
            skipped.append(Skipped(rel, "not a regular file (a FIFO, socket or device)"))
        return
    for child in sorted(os.listdir(path)):
        yield from _walk(root, f"{rel}/{child}", skipped)


def _git_order(rel: str) -> tuple[int, str]:
    """Refs before objects (see the module doc): HEAD, packed-refs and refs/ first, objects/
    last."""
    parts = rel.split("/")
    if len(parts) > 1 and parts[1] == "objects":
        return (2, rel)
    return (0 if len(parts) > 1 and parts[1] in ("HEAD", "packed-refs", "refs") else 1, rel)


def _carried(name: str) -> bool:
    """Whether a top-level entry is one a bundle carries (besides the git directory)."""
    if name in _TOP or name in AGENT_FILES:
        return True
    return name.endswith(".md") and not name.startswith(".")


def _members(ws: Workspace, skipped: list[Skipped]) -> list[str]:
    root = ws.root
    repo = locate(root)
    git_rel = repo.git_dir.relative_to(root).as_posix() if repo is not None else None
    files: list[str] = []
    for name in sorted(os.listdir(root)):
        if name == git_rel:
            continue
        if _carried(name):
            files.extend(_walk(root, name, skipped))
        elif (root / name).is_symlink():
            skipped.append(
                Skipped(_shown(name), "a symbolic link: a bundle carries regular files only")
            )
        elif not _skipped(name) and (root / name).exists():
            shown = f"{_shown(name)}/" if (root / name).is_dir() else _shown(name)
            skipped.append(Skipped(shown, "not memory: the agent's own files stay where they are"))
    if git_rel is not None:
        files.extend(sorted(_walk(root, git_rel, skipped), key=_git_order))
    return files


class _Hashing(io.RawIOBase):
    """Reads exactly ``size`` bytes of a file (what its tar header promised) and hashes them."""

    def __init__(self, handle: IO[bytes], size: int) -> None:
        self.handle, self.left, self.digest = handle, size, hashlib.sha256()

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.handle.read(n)
        if (
            len(data) < n
        ):  # shrank under us (every writer replaces or appends, so this is an outside edit)
            log.warning(
                "export: a file shrank while it was copied; the bundle holds it zero-padded"
            )
            data += b"\0" * (n - len(data))
        self.left -= len(data)
        self.digest.update(data)
        return data


def export_bundle(
    workspace: Workspace | str | os.PathLike[str], dest: str | os.PathLike[str]
) -> ExportResult:
    """Write ``workspace`` as one bundle at ``dest`` (atomically: a temp file renamed into place).

    Holds Dream's run lock meanwhile, so no Dream, restore or edit commit lands half-copied."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    if not ws.root.is_dir():
        raise WorkspaceError(f"no workspace at {ws.root} (nothing to export)")
    target = Path(dest).expanduser().absolute()
    if target == ws.root or ws.root in target.parents:
        raise WorkspaceError(f"write the bundle outside the workspace, not to {target}")
    target.parent.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict[str, Any]] = {}
    total = 0
    skipped: list[Skipped] = []
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as raw, dream_run_lock(ws.state_dir, "export"):
            with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
                for rel in _members(ws, skipped):
                    sent = _add_file(tar, ws.root / rel, rel)
                    if sent is not None:
                        manifest[rel] = sent
                        total += sent["size"]
                body = orjson.dumps(
                    {
                        "format": FORMAT,
                        "version": VERSION,
                        "created": datetime.now().isoformat(),
                        "reverie": version(),
                        "files": manifest,
                    },
                    option=orjson.OPT_INDENT_2,
                )
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mtime, info.mode = len(body), int(datetime.now().timestamp()), 0o644
                tar.addfile(info, io.BytesIO(body))
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if skipped:
        named = "; ".join(str(item) for item in skipped[:5])
        more = f"; and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        log.warning("export: left out %d: %s%s", len(skipped), named, more)
    return ExportResult(target, len(manifest), total, tuple(skipped))


def _add_file(tar: tarfile.TarFile, path: Path, rel: str) -> dict[str, Any] | None:
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below; the size is the open file's)
    except FileNotFoundError:  # removed since the walk (a lock file, a temp file): nothing to carry
        return None
    with handle:
        st = os.fstat(handle.fileno())
        info = tarfile.TarInfo(rel)
        info.size, info.mtime, info.mode = st.st_size, int(st.st_mtime), st.st_mode & 0o777
        reader = _Hashing(handle, st.st_size)
        tar.addfile(info, reader)
    return {"size": st.st_size, "sha256": reader.digest.hexdigest()}


# -- import ----------------------------------------------------------------------------------


def _is_empty(root: Path) -> bool:
    return not root.exists() or (root.is_dir() and not any(root.iterdir()))


def check_target(ws: Workspace, replace: bool) -> None:
    """Refuse a target that is a symlink, a file, or (without ``replace``) not empty."""
    if ws.root.is_symlink():
        raise WorkspaceError(f"{ws.root} is a symlink; import into a real directory")
    if ws.root.exists() and not ws.root.is_dir():
        raise WorkspaceError(f"{ws.root} exists and is not a directory")
    if not replace and not _is_empty(ws.root):
        raise WorkspaceError(
            f"{ws.root} is not empty: import into an empty directory, or replace it with "
            "--replace (replace=True in Python; the current contents are moved aside, not deleted)"
        )


def _member_path(member: tarfile.TarInfo) -> str:
    name = member.name
    kind = (
        "a symlink"
        if member.issym()
        else "a hard link"
        if member.islnk()
        else "a device or FIFO"
        if not (member.isreg() or member.isdir())
        else None
    )
    if kind:
        raise BundleError(f"bundle member {name!r} is {kind}: refused")
    try:
        rel = check_relative(name.rstrip("/")) if name.rstrip("/") else ""
    except UnsafePathError as exc:
        raise BundleError(f"bundle member {name!r} has an unsafe path ({exc}): refused") from None
    if not rel:
        raise BundleError(f"bundle member {name!r} has an empty path: refused")
    return rel


def import_bundle(
    bundle: str | os.PathLike[str],
    workspace: Workspace | str | os.PathLike[str],
    *,
    replace: bool = False,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> ImportResult:
    """Restore the workspace in ``bundle`` at ``workspace`` (see the module doc for the checks and
    ``replace``)."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    source = Path(bundle).expanduser()
    if source.is_dir():  # what another tool keeps is a folder: say how to bring it in
        raise WorkspaceError(
            f"{source} is a folder, not a bundle: to bring in another tool's memory, name it "
            "with --from (nanobot, claude-code, mem0)"
        )
    if not source.is_file():
        raise WorkspaceError(f"no bundle at {source}")
    check_target(ws, replace)
    with staging_for(ws) as staging:
        files, total = _extract(source, staging, max_member_bytes, max_total_bytes)
        purged = purge_credentials(staging)
        moved = move_into_place(staging, ws.root, replace)
    return ImportResult(ws.root, files, total, moved, head_of(ws), redacted=purged)


def _credentials(text: str) -> set[str]:
    return {text[m.start : m.end] for m in scan(text)}


def _text_of(path: Path, rel: str) -> str:
    """The text a file holds as a purge sees it: a JSON file's string values (one per line), else
    the whole; scanned in one piece."""
    data = path.read_bytes()
    if not rel.endswith((".jsonl", ".json")):
        return data.decode("utf-8", errors="replace")
    texts: list[str] = []
    for raw in data.splitlines():
        try:
            stack = [orjson.loads(raw)]
        except orjson.JSONDecodeError:
            texts.append(raw.decode("utf-8", errors="replace"))
            continue
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())
    return "\n".join(texts)


def purge_credentials(root: Path) -> int:
    """Purge every credential found in the workspace at ``root`` — in its files and in every
    version its memory repository holds — from all of them (``reverie.operations.purge``). Returns
    how many distinct values were purged."""
    from ..gitstore import GitStore
    from ..gitstore.purge import reachable_texts
    from ..storage.config import load_config
    from ..storage.store import WorkspaceStore
    from .purge import MIN_LENGTH, REPLACEMENT, purge

    ws = Workspace(root)
    found: set[str] = set()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink() or not path.is_file() or rel.startswith((".git/", ".reverie-git/")):
            continue
        found |= _credentials(_text_of(path, rel))
    git = GitStore(ws, load_config(root).git) if locate(root) is not None else None
    try:
        if git is not None:
            joined = b"\n".join(reachable_texts(git))
            found |= _credentials(joined.decode("utf-8", errors="replace"))
        values = sorted(v for v in found if len(v) >= MIN_LENGTH and v not in REPLACEMENT)
        if not values:
            return 0
        if git is None:
            git = GitStore(ws, load_config(root).git)
        store = WorkspaceStore(ws)
        for value in values:
            purge(store, git, value)
        return len(values)
    finally:
        if git is not None:
            git.close()


def _extract(source: Path, staging: Path, max_member: int, max_total: int) -> tuple[int, int]:
    seen: dict[str, tuple[int, str]] = {}
    manifest: dict[str, Any] | None = None
    total = 0
    try:
        tar = tarfile.open(source, mode="r:gz")
    except (tarfile.TarError, OSError) as exc:
        raise BundleError(
            f"{source} is not a Reverie bundle (not a gzip-compressed tar file: {_one_line(exc)})"
        ) from None
    with tar:
        try:
            for n, member in enumerate(tar):
                if n >= MAX_MEMBERS:
                    raise BundleError(f"{source} has more than {MAX_MEMBERS:,} members: refused")
                if manifest is not None:
                    raise BundleError(
                        f"{source}: member {member.name!r} after the manifest: refused"
                    )
                rel = _member_path(member)
                if member.isdir():
                    continue
                if member.size > max_member:
                    raise BundleError(
                        f"bundle member {rel!r} is {member.size:,} bytes (at most {max_member:,}): "
                        "refused"
                    )
                total += member.size
                if total > max_total:
                    raise BundleError(f"{source} holds more than {max_total:,} bytes: refused")
                if rel == MANIFEST:
                    manifest = _read_manifest(tar, member, source)
                    continue
                if rel in seen:
                    raise BundleError(f"bundle member {rel!r} appears twice: refused")
                seen[rel] = _write_member(tar, member, staging, rel)
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            if (
                isinstance(exc, OSError)
                and not isinstance(exc, (tarfile.TarError, EOFError))
                and exc.errno
            ):
                raise
            raise BundleError(
                f"{source} is damaged ({type(exc).__name__}: {_one_line(exc)})"
            ) from None
    if manifest is None:
        raise BundleError(f"{source} is not a Reverie bundle (no {MANIFEST})")
    _check_manifest(manifest, seen, source)
    return len(seen), sum(size for size, _ in seen.values())


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _read_manifest(tar: tarfile.TarFile, member: tarfile.TarInfo, source: Path) -> dict[str, Any]:
    if member.size > _MAX_MANIFEST_BYTES:
        raise BundleError(f"{source}: the manifest is {member.size:,} bytes: refused")
    handle = tar.extractfile(member)
    assert handle is not None  # a regular file (checked by _member_path)
    try:
        data = orjson.loads(handle.read())
    except orjson.JSONDecodeError:
        raise BundleError(f"{source}: the manifest is not JSON") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or not isinstance(data.get("files"), dict)
    ):
        raise BundleError(
            f"{source} is not a Reverie bundle (its manifest is not a {FORMAT} manifest)"
        )
    if data.get("version") != VERSION:
        raise BundleError(
            f"{source} is a version {data.get('version')!r} bundle; this Reverie reads version "
            f"{VERSION}"
        )
    return data


def _write_member(
    tar: tarfile.TarFile, member: tarfile.TarInfo, staging: Path, rel: str
) -> tuple[int, str]:
    handle = tar.extractfile(member)
    assert handle is not None
    path = staging.joinpath(*rel.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    with handle, open(path, "xb") as out:
        while chunk := handle.read(_CHUNK):
            size += len(chunk)
            if size > member.size:  # cannot happen with a sane tar reader; the header is the bound
                raise BundleError(f"bundle member {rel!r} is longer than its header says: refused")
            digest.update(chunk)
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(path, (member.mode & 0o755) | 0o600)
    return size, digest.hexdigest()


def _check_manifest(
    manifest: dict[str, Any], seen: dict[str, tuple[int, str]], source: Path
) -> None:
    listed = manifest["files"]
    missing = sorted(set(listed) - set(seen))
    extra = sorted(set(seen) - set(listed))
    if missing or extra:
        what = f"missing {missing[0]!r}" if missing else f"{extra[0]!r} is not in the manifest"
        raise BundleError(f"{source} is damaged: {what}")
    for rel, (size, sha) in seen.items():
        entry = listed[rel]
        if not isinstance(entry, dict) or entry.get("size") != size or entry.get("sha256") != sha:
            raise BundleError(f"{source} is damaged: {rel!r} does not match its manifest entry")


@contextmanager
def staging_for(ws: Workspace) -> Iterator[Path]:
    """A new hidden folder beside ``ws`` for an import to fill and then ``move_into_place``, held
    (``flock``) while the import runs and removed if it fails; folders a killed import left are
    removed first (``clear_stale_staging``)."""
    ws.root.parent.mkdir(parents=True, exist_ok=True)
    clear_stale_staging(ws)
    staging = Path(tempfile.mkdtemp(prefix=f".{ws.root.name}.import-", dir=ws.root.parent))
    fd = os.open(staging, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield staging
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    finally:
        os.close(fd)


def clear_stale_staging(ws: Workspace) -> list[Path]:
    """Remove the staging folders of imports into ``ws`` that were killed before their rename (no
    process holds their lock), each with a warning; returns them. One still held is another import
    running now, and is left alone."""
    removed: list[Path] = []
    prefix = f".{ws.root.name}.import-"
    try:
        names = sorted(n for n in os.listdir(ws.root.parent) if n.startswith(prefix))
    except OSError:
        return removed
    for name in names:
        path = ws.root.parent / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue  # not a folder (or a link): not ours
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # an import running now
            size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)
        log.warning(
            "removed %s (%s bytes): the copy of an import into %s that was interrupted before it "
            "was moved into place",
            path,
            f"{size:,}",
            ws.root,
        )
        removed.append(path)
    return removed


def move_into_place(staging: Path, root: Path, replace: bool) -> Path | None:
    """Rename the checked copy to ``root``; a non-empty ``root`` (with ``replace``) is renamed aside
    first."""
    moved: Path | None = None
    if root.is_dir() and not any(root.iterdir()):
        root.rmdir()
    elif root.exists():
        if not replace:  # filled since the check: never merge into it
            raise WorkspaceError(f"{root} is not empty")
        moved = root.with_name(f"{root.name}.before-import-{datetime.now():%Y%m%d-%H%M%S}")
        os.rename(root, moved)
    os.rename(staging, root)
    fsync_dir(root.parent)
    return moved


def head_of(ws: Workspace) -> str | None:
    from ..gitstore import GitStore

    if locate(ws.root) is None:
        return None
    git = GitStore(ws)
    try:
        return git.head()
    finally:
        git.close()


# -- what importers share --------------------------------------------------------------------------


def commit_import(
    ws: Workspace, message: str, files: dict[str, str], *, base: dict[str, str] | None = None
) -> str | None:
    """Create the memory repo, then write and commit the imported memory files as one version whose
    message names the source (kind ``manual``: a person brought them in). What importers share.
    ``base``: what an import into a workspace in use read of the files it replaces (the writers'
    protocol, ``GitStore.commit``): a change committed since is merged, never overwritten."""
    from ..gitstore import GitStore
    from ..storage.config import load_config

    git = GitStore(ws, load_config(ws.root).git)
    try:
        git.ensure()
        return git.commit(message, kind="manual", files=files, base=base) if files else None
    finally:
        git.close()
