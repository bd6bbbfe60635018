"""The commit transaction and its crash recovery — the one place that moves the memory repo's HEAD.

Crash-safe order of one transaction (the caller holds the repo lock)::

    1. build blobs, trees and the commit in memory (ids known, nothing written)
    2. write the intent marker <git dir>/reverie/pending = "<old head> <new commit> <path>... END"
       and a second line "pid <pid> host <hostname> boot <boot id> at <unix time> <object id>...
       END" naming the writer and the lock files this transaction may take (the ref's,
       ``index.lock``, and those of the listed objects; older writers wrote "pid <pid> <object
       id>... END"), overwriting the file in place (no create, rename or fsync: the file is reused
       by every commit); a marker without its END tokens can only come from a kill during this step,
       when HEAD has not moved and no lock was taken: recovery drops it. Not fsynced: after a power
       loss without it, an unfinished file write is committed later as ``manual`` instead of rolled
       forward — attributed differently, never lost
    3. write the objects (each loose object: lock file + rename; see reverie.gitstore.plumbing)
    4. move the branch ref old → new (git's lock file + fsync, reflog entry, rename; same module)
    5. write the changed tracked files (``write_workspace_file`` each: a person's save made in
       between is merged in, never overwritten); a file left unwritten (held open for writing in
       another program) is recorded in ``LEFT_BUSY`` for the next write to finish
    6. mark the marker done (its first byte becomes ``#``)

A kill before 4 leaves HEAD at the old commit (new objects are merely dangling); after 4, HEAD is
the new commit. ``recover_transaction`` (run on open) finishes a transaction cut short: when HEAD is
the marker's new commit, every listed file whose disk content is still the old commit's version is
rolled forward to the new one (a file that is neither is a person's edit: left alone, committed
later as ``manual``). A lock file is removed only when the marker names it as this transaction's and
its writer is known to be gone:

- written on this host since its last boot: the recorded pid is dead and no live process has the
  lock open (a ``git`` command's locks are never touched);
- written on this host before a reboot (another boot id): every process of that boot is gone;
- written on another host (a workspace on a shared file system): a pid or ``/proc`` says nothing
  there, so the lock file must be older than ``STALE_LOCK_SECONDS`` (its mtime, set by the file
  server). Recovery runs under the repo's writer lock, so the recorded writer no longer holds the
  repo; what the age rules out is a ``git`` command on that host working in the repo right now (they
  hold such locks for milliseconds to seconds).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.index import (
    ConflictedIndexEntry,
    Index,
    IndexEntry,
    index_entry_from_stat,
    write_index_dict,
)
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import Ref

from ..errors import GitStoreError, MergeConflictError, WorkspaceError
from ..storage.fsutil import (
    Seen,
    held_open,
    open_regular,
    read_bytes_or_none,
    read_seen,
    remove_if_unchanged,
    remove_stale_temps,
    replace_if_unchanged,
)
from ..storage.repostate import LEFT_BUSY, read_left_busy, state_dir, write_left_busy
from ..storage.signals import deferred_signals
from ..storage.workspace import Workspace
from .merge import merge3
from .objects import (
    FILE_MODE,
    blob_id,
    build_tree,
    make_commit,
    read_blob,
    read_blob_ids,
    read_commit,
)
from .plumbing import compare_and_swap, open_lock, replace_from_lock, write_loose

if TYPE_CHECKING:
    from dulwich.repo import Repo

    from .repo import MemoryRepo

log = logging.getLogger(__name__)

__all__ = [
    "transact",
    "recover_transaction",
    "state_dir",
    "write_workspace_file",
    "clean_temp_files",
    "write_in_place",
    "remove_stale_locks",
    "update_index",
    "ResolvedPaths",
    "merge_save",
    "write_tracked",
    "LEFT_BUSY",
    "read_left_busy",
    "write_left_busy",
]

#: The intent marker's file name (on disk since the first writers: kept).
INTENT_MARKER = "pending"


def write_in_place(path: Path, data: bytes, *, pad: int = 256, truncate: bool = True) -> None:
    """Overwrite a small state file in place from its start, without rename or fsync (for state
    whose torn form is detected or harmless). The content is space-padded to a multiple of ``pad``
    so the file's size rarely changes; ``truncate=False`` overwrites only the first bytes and keeps
    the rest."""
    if pad:
        data = data.ljust(-(-len(data) // pad) * pad, b" ")
    fd = open_regular(path, os.O_WRONLY | os.O_CREAT)
    try:
        done = 0
        while done < len(data):  # a short write (a file size limit) goes on, and so raises
            wrote = os.pwrite(fd, data[done:], done)
            if wrote <= 0:
                raise OSError(f"nothing was written to {path}")
            done += wrote
        if truncate and os.fstat(fd).st_size != len(data):
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def _record_left_busy(
    git_dir: Path,
    left: Mapping[str, bytes | None],
    wanted: Mapping[str, ObjectID | None],
    keep: Callable[[Blob], None],
) -> None:
    """Record the files a commit could not write: ``left`` (path → what stayed on disk: the version
    a save on top of it is made on) and ``wanted`` (path → its blob in the commit). ``keep``
    stores a version left that is in no commit (a save merged by the commit that could not write
    it), for the next write to merge from."""
    records = read_left_busy(git_dir)
    for rel, disk in left.items():
        blob = Blob.from_string(disk) if disk is not None else None
        if blob is not None:
            keep(blob)
        records[rel] = (blob.id if blob is not None else None, wanted.get(rel))
    write_left_busy(git_dir, records)


def _marker_done(marker: Path) -> None:
    write_in_place(marker, b"#", pad=0, truncate=False)  # the first byte alone says "done"


class ResolvedPaths:
    """``Workspace.resolve`` memoised for one operation: each tracked path's safety checks (a chain
    of lstat calls) run once per commit instead of at every step. Accepted wherever this module
    takes a workspace.

    ``based_on``: for the commit being written, each path's content in its parent commit — what the
    writer expects to find on disk when it replaces the file (``write_workspace_file``).
    ``left``: for this write, the files still left unwritten by an earlier commit (``LEFT_BUSY``)
    → the version they hold, what a commit finds there instead of its parent's."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._memo: dict[str, Path] = {}
        self.based_on: dict[str, bytes | None] = {}
        self.left: dict[str, bytes | None] = {}

    def resolve(self, rel: str) -> Path:
        path = self._memo.get(rel)
        if path is None:
            path = self._memo[rel] = self.workspace.resolve(rel)
        return path


#: How many times one write reads the file, merges and tries again while saves keep landing, before
#: it leaves the person's latest version on disk as it is.
MAX_ROUNDS = 8


def write_workspace_file(
    workspace: Workspace | ResolvedPaths, path: str, data: bytes | None
) -> bytes | None:
    """Atomically replace (or delete, for None) a tracked file, never over a person's save; returns
    what the file holds afterwards.

    The commit being written was based on the file's content in its parent commit
    (``ResolvedPaths.based_on``; without it, the file as first read here). The file is read again
    just before the replace: when it is no longer that base, a person saved it after Reverie read
    it, and what goes on disk is their version with this commit's change three-way merged in (as
    they saved it where the two overlap) — differing from HEAD, so the next write commits it as
    their ``manual`` edit (the manual-edit protocol). The replace happens only if the file is
    still what that read found (``replace_if_unchanged``, which puts back a save landing in
    between); otherwise the file is read and merged again. A person who deleted the file meanwhile
    loses only the deletion; a deletion never removes a save."""
    return write_tracked(workspace, path, data)[0]


def write_tracked(
    workspace: Workspace | ResolvedPaths, path: str, data: bytes | None
) -> tuple[bytes | None, bool]:
    """``write_workspace_file``, and whether Reverie's version (or a merge of it) was written:
    False when the file was left as it was (open for writing in another program, or saves kept
    landing)."""
    based_on = workspace.based_on if isinstance(workspace, ResolvedPaths) else {}
    return _write_keeping_saves(workspace.resolve(path), path, data, based_on)


def _write_keeping_saves(
    target: Path, path: str, data: bytes | None, based_on: Mapping[str, bytes | None]
) -> tuple[bytes | None, bool]:
    """``write_tracked`` of the resolved ``target``."""
    seen = read_seen(target)
    base = based_on[path] if path in based_on else seen.data
    if data is None:
        return _delete_keeping_saves(target, path, base, seen)
    # saves that came off the file in the instant between an exchange and its undoing, each with
    # the version the file showed then (what it was saved on top of): merged into the next round
    kept: list[Path] = []
    shown: dict[Path, bytes] = {}
    done: bytes | None = None
    why = "kept changing while Reverie was writing it"
    for round_no in range(MAX_ROUNDS):
        seen = seen if round_no == 0 else read_seen(target)
        theirs = _with_kept(seen.data, kept, shown, path)
        saved = theirs not in (None, base, data)  # a save Reverie never read
        if saved and round_no == 0:
            _warn_saved(path)
        wanted = merge_save(base, data, theirs, path) if saved else data
        assert wanted is not None
        before = len(kept)
        outcome = "replaced" if wanted == seen.data else None
        outcome = outcome or replace_if_unchanged(target, wanted, seen, kept=kept)
        if outcome == "replaced":
            done = wanted
            break
        shown.update((extra, wanted) for extra in kept[before:])
        if outcome == "busy":
            why = "is open for writing in another program"
            break
    if done is None:
        log.warning(
            "%s %s; the version on disk stays as it is (the next write finishes this one, merged "
            "with any save made on top of it)",
            path,
            why,
        )
    for extra in kept:
        if done is not None and extra in shown:  # merged into what is on disk now
            extra.unlink(missing_ok=True)
        else:
            log.warning("%s: a version of it saved in the same instant is kept in %s", path, extra)
    return (done, True) if done is not None else (read_bytes_or_none(target), False)


def _warn_saved(path: str) -> None:
    log.warning(
        "%s was saved while Reverie was writing it; the saved version is kept "
        "(the next write commits it as a manual edit)",
        path,
    )


def _delete_keeping_saves(
    target: Path, path: str, base: bytes | None, seen: Seen
) -> tuple[bytes | None, bool]:
    """Delete ``target`` unless it holds a save Reverie never read (``base``: what it expected);
    returns what is left (None: nothing) and whether the deletion is done — False when the file
    stays as it was (open for writing in another program, or saves kept landing): the caller
    records it for the next write to finish (``LEFT_BUSY``). A save kept is done: a deletion never
    removes a save."""
    for round_no in range(MAX_ROUNDS):
        seen = seen if round_no == 0 else read_seen(target)
        if seen.stamp is None:
            return None, True
        if seen.data not in (None, base):
            _warn_saved(path)
            return seen.data, True
        outcome = remove_if_unchanged(target, seen)
        if outcome == "replaced":
            return None, True
        if outcome == "busy":
            log.warning(
                "%s is open for writing in another program; it is not deleted yet (the next write "
                "finishes the deletion)",
                path,
            )
            break
    return read_bytes_or_none(target), False


def _with_kept(
    now: bytes | None, kept: list[Path], shown: dict[Path, bytes], path: str
) -> bytes | None:
    """``now`` (the file's bytes) with the change each kept save made to the version it was saved
    on merged in. Where the two overlap the kept save wins: it is the newer (it landed on the file
    after the version now on it had been taken off, and was put back)."""
    for extra in kept:
        save = read_bytes_or_none(extra)
        if extra not in shown or save is None:
            continue
        if now is None:
            now = save
            continue
        try:
            texts = [b.decode("utf-8", "surrogateescape") for b in (shown[extra], now, save)]
            now = merge3(*texts, path=path).encode("utf-8", "surrogateescape")
        except MergeConflictError:
            now = save
    return now


def merge_save(base: bytes | None, ours: bytes, theirs: bytes | None, path: str) -> bytes | None:
    """``theirs`` (a person's save made on top of ``base``) with the change base → ours merged in,
    or ``theirs`` alone when the two changes overlap."""
    if base is None or theirs is None:
        return theirs
    try:
        texts = [b.decode("utf-8", "surrogateescape") for b in (base, theirs, ours)]
        merged = merge3(*texts, path=path)
    except MergeConflictError:
        log.warning(
            "%s: Reverie's change overlaps the saved edit; the saved version is kept as it is",
            path,
        )
        return theirs
    return merged.encode("utf-8", "surrogateescape")


def transact(
    repo: MemoryRepo,
    git_dir: Path,
    workspace: Workspace | ResolvedPaths,
    ref: Ref,
    old_head: ObjectID | None,
    changes: Mapping[str, bytes | None],
    message: str,
    who: bytes,
    *,
    write_files: bool = True,
    on_disk: dict[str, bytes | None] | None = None,
    untrack: Iterable[str] = (),
    allow_empty: bool = False,
) -> ObjectID | None:
    """Commit ``changes`` (path → new content, None = delete) on top of ``old_head`` and bring the
    files on disk to match. Returns the new commit id, or None when the tree would not change (no
    empty commits). ``on_disk`` holds files the caller already read in this operation (path →
    bytes); it is kept up to date. ``untrack``: paths dropped from the tree and the index but never
    touched on disk (not in the marker either, so recovery cannot roll a deletion forward).
    ``allow_empty``: commit even when the tree does not change (a record with no change to the
    files, such as a rejected SOUL.md proposal)."""
    store = repo.objects
    base_tree: ObjectID | None = read_commit(store, old_head).tree if old_head else None
    blobs = {path: Blob.from_string(data) for path, data in changes.items() if data is not None}
    entries: dict[str, ObjectID | None] = {
        p: (blobs[p].id if p in blobs else None) for p in changes
    }
    entries.update({p: None for p in untrack if p not in changes})
    tree_id, trees = build_tree(store, base_tree, entries)
    if tree_id == base_tree and not allow_empty:
        return None
    commit: Commit = make_commit(tree_id, [old_head] if old_head else [], message, who)
    # a signal is handled before the marker is written, or once it is done (never in between)
    with deferred_signals():
        marker = state_dir(git_dir) / INTENT_MARKER
        old_text = (old_head or b"-").decode()
        objects = [*blobs.values(), *trees, commit]
        owner = " ".join([*_owner_fields(), *(o.id.decode() for o in objects), "END"])
        try:
            write_in_place(
                marker,
                (
                    " ".join([old_text, commit.id.decode(), *changes, "END"]) + "\n" + owner + "\n"
                ).encode(),
            )
        except OSError:
            # cut short, its first bytes new and the rest the last transaction's, recovery would
            # read a commit that never was: nothing is begun yet, so it says "done" (one byte)
            try:
                _marker_done(marker)
            except OSError:
                pass  # then recovery finds the objects it names missing, as before
            raise
        objects_dir = Path(repo.object_store.path)
        for obj in objects:
            write_loose(objects_dir, obj)
            store.remember(obj)  # the next commit reads these back
        subject = message.split("\n", 1)[0]
        reflog = (b"commit: " if old_head else b"commit (initial): ") + subject.encode(
            "utf-8", "replace"
        )[:200]
        try:
            moved = compare_and_swap(repo, git_dir, ref, old_head, commit.id, who, reflog)
        except GitStoreError:
            # refused before HEAD moved: nothing to recover, and the lock is not ours
            _marker_done(marker)
            raise
        if not moved:
            _marker_done(marker)
            raise GitStoreError(
                f"{ref.decode()} moved while Reverie was committing; nothing was changed"
            )
        if write_files:
            seen = on_disk if on_disk is not None else {}
            left: dict[str, bytes | None] = {}
            for path, data in changes.items():
                current = (
                    seen[path] if path in seen else read_bytes_or_none(workspace.resolve(path))
                )
                if current == data:
                    continue  # a file committed from disk is already right: no rewrite, no fsync
                try:
                    seen[path], written = write_tracked(workspace, path, data)
                except OSError as exc:
                    # HEAD has moved: the marker stays, so the next write finishes this one
                    # (``recover_transaction``) once the disk lets it
                    raise GitStoreError(
                        f"committed as {commit.id.decode()[:8]}, but {path} could not be written "
                        f"({exc.strerror or exc}); it still holds the previous version until the "
                        "next write finishes the commit"
                    ) from exc
                if not written:
                    left[path] = seen[path]
            update_index(git_dir, workspace, entries)
            if left:

                def keep(blob: Blob) -> None:
                    write_loose(objects_dir, blob)
                    store.remember(blob)

                try:
                    _record_left_busy(git_dir, left, entries, keep)
                except OSError as exc:
                    # the marker stays: the next write's recovery rolls the files forward
                    log.warning("%s not recorded as left unwritten (%s)", ", ".join(left), exc)
                    return commit.id
        _marker_done(marker)
        return commit.id


#: The last index each process wrote, by path: (inode, size, mtime) of the file → its entries. While
#: the file is unchanged (nobody else wrote it), the next update starts from these instead of
#: parsing the file again.
_IndexTable = dict[bytes, IndexEntry | ConflictedIndexEntry]
_index_cache: dict[str, tuple[tuple[int, int, int], _IndexTable]] = {}


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def update_index(
    git_dir: Path, workspace: Workspace | ResolvedPaths, entries: Mapping[str, ObjectID | None]
) -> None:
    """Keep git's index in step with HEAD for the committed paths, so ``git status`` in the
    workspace is clean (a file on disk that is not HEAD's version, a person's edit, shows as
    modified). The index is only git's cache: failing to update it is logged, never fatal.
    """
    path = git_dir / "index"
    try:
        key = _stat_key(path)
        cached = _index_cache.get(str(path))
        if cached is not None and key is not None and cached[0] == key:
            table = dict(cached[1])
        else:
            index = Index(str(path))
            table = {name: index[name] for name in index}
        for rel, sha in entries.items():
            name = rel.encode()
            if sha is None:
                table.pop(name, None)
                continue
            target = workspace.resolve(rel)
            entry = index_entry_from_stat(os.stat(target), sha, FILE_MODE)
            if blob_id(read_bytes_or_none(target) or b"") != sha:
                # a person's version is on disk (a save made during the commit): a size git
                # cannot trust makes `git status` compare the content and show their edit
                entry = dataclasses.replace(entry, size=0)
            table[name] = entry
        table = dict(sorted(table.items()))
        buf = BytesIO()
        write_index_dict(buf, table)
        payload = buf.getvalue()
        # git's own protocol: exclusive index.lock, then rename over the index (a cache, so no
        # fsync). A git command holding the lock right now wins; a lock a crash left is removed by
        # recover_transaction.
        lock = str(path) + ".lock"
        fd = open_lock(lock, 0o644)
        if fd is None:
            log.warning("git index not updated: %s exists (a git command is running)", lock)
            return
        # ends with its SHA-1
        replace_from_lock(fd, lock, str(path), payload + hashlib.sha1(payload).digest())
        written = _stat_key(path)
        if written is not None:
            _index_cache.clear()  # one repo per process is the common case; never grow
            _index_cache[str(path)] = (written, table)
    except (OSError, ValueError, KeyError) as exc:
        log.warning("git index not updated (%s); `git status` may show stale changes", exc)


#: How old (by its mtime) a lock file recorded by a writer on another host must be before recovery
#: removes it.
STALE_LOCK_SECONDS = 600.0


def _boot_id() -> str:
    """This boot's id (Linux), or "-" where the system does not say: a pid is only meaningful within
    one boot."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip() or "-"
    except OSError:
        return "-"


def _owner_fields() -> list[str]:
    host = socket.gethostname().replace(" ", "_") or "-"
    return ["pid", str(os.getpid()), "host", host, "boot", _BOOT_ID, "at", str(int(time.time()))]


_BOOT_ID = _boot_id()


class _Owner:
    """The marker's second line, parsed: the writer (pid, and host, boot id and start time when
    recorded) and the object ids whose lock files it may have taken. ``valid`` is False for a
    missing or torn line."""

    def __init__(self, fields: list[str]) -> None:
        self.valid = (
            len(fields) >= 3 and fields[0] == "pid" and fields[1].isdigit() and fields[-1] == "END"
        )
        self.pid = int(fields[1]) if self.valid else 0
        tags: dict[str, str] = {}
        rest = fields[2:-1] if self.valid else []
        while len(rest) >= 2 and rest[0] in ("host", "boot", "at"):
            tags[rest[0]] = rest[1]
            rest = rest[2:]
        self.host = tags.get("host")  # None: an older writer (always this host, then)
        self.boot = tags.get("boot")
        self.ids = [i for i in rest if len(i) == 40]

    def where(self) -> str:
        """ "here", "rebooted" (this host, an earlier boot) or "elsewhere" (another host)."""
        if self.host is not None and self.host != (socket.gethostname().replace(" ", "_") or "-"):
            return "elsewhere"
        if self.boot not in (None, "-") and _BOOT_ID != "-" and self.boot != _BOOT_ID:
            return "rebooted"
        return "here"


def remove_stale_locks(
    git_dir: Path, ref: Ref | None, owner: list[str], *, stale_seconds: float = STALE_LOCK_SECONDS
) -> None:
    """Remove the lock files an interrupted transaction left, and only those: ``owner`` is the
    marker's second line (see the module docstring for when its writer counts as gone). Nothing is
    removed when that line is missing or torn, when the recorded writer is still alive (this host),
    or — lock by lock — when a live process here has the lock open (a git command at work) or, for
    another host's writer, the lock is younger than ``stale_seconds``; what stays is named in a
    warning, since it blocks the writes it guards."""
    record = _Owner(owner)
    candidates = [git_dir / "index.lock"]
    if ref:
        candidates.append(git_dir / (ref.decode() + ".lock"))
    candidates.extend(git_dir / "objects" / i[:2] / (i[2:] + ".lock") for i in record.ids)
    present = [p for p in candidates if p.exists()]
    if not present:
        return
    where = record.where() if record.valid else "here"
    if not record.valid or (where == "here" and record.pid != os.getpid() and _alive(record.pid)):
        why = (
            "not recorded as this transaction's"
            if not record.valid
            else f"its writer (pid {record.pid}) is still running"
        )
        for path in present:
            log.warning(
                "lock %s left alone: %s; remove it once no git command is running", path, why
            )
        return
    held = held_open(present, others=True) or set()  # this host's processes only
    now = time.time()
    for path in present:
        if path in held:
            log.warning("lock %s left alone: a running process holds it open", path)
            continue
        if where == "elsewhere":
            age = _age(path, now)
            if age is not None and age < stale_seconds:
                log.warning(
                    "lock %s left alone: written by host %s "
                    "%.0fs ago (removed once older than %.0fs)",
                    path,
                    record.host,
                    age,
                    stale_seconds,
                )
                continue
        log.warning(
            "removing stale lock %s left by an interrupted write%s",
            path,
            f" on host {record.host}" if where == "elsewhere" else "",
        )
        path.unlink(missing_ok=True)


def _age(path: Path, now: float) -> float | None:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def recover_transaction(
    repo: Repo, git_dir: Path, workspace: Workspace | ResolvedPaths, ref: Ref | None
) -> None:
    """Finish or discard a transaction a crash interrupted (see the module docstring). Caller holds
    the lock."""
    marker = state_dir(git_dir) / INTENT_MARKER
    try:
        text = marker.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return
    if not text.strip() or text.startswith("#"):
        return  # no transaction was cut short (the marker brackets every object and ref write)
    lines = text.split("\n")
    parts = lines[0].split()
    remove_stale_locks(
        git_dir, ref, lines[1].split() if len(lines) > 1 and parts[-1:] == ["END"] else []
    )
    head = repo.refs.read_ref(ref) if ref else None
    complete = len(parts) >= 3 and parts[-1] == "END" and len(parts[1]) == 40
    if complete and head is not None and parts[1].encode() == head:
        old = None if parts[0] == "-" else ObjectID(parts[0].encode())
        store = repo.object_store
        paths = parts[2:-1]
        new_ids = read_blob_ids(store, read_commit(store, ObjectID(head)).tree, paths)
        old_ids = (
            read_blob_ids(store, read_commit(store, old).tree, paths)
            if old
            else dict.fromkeys(paths)
        )
        objects_dir = Path(store.path)

        def keep(blob: Blob) -> None:
            write_loose(objects_dir, blob)

        for path in paths:
            try:
                disk_path = workspace.resolve(path)
            except WorkspaceError:
                continue
            _recover_swaps(
                disk_path, path, read_blob(store, old_ids[path]), read_blob(store, new_ids[path])
            )
            disk = disk_path.read_bytes() if disk_path.is_file() else None
            disk_id = blob_id(disk) if disk is not None else None
            if disk_id == new_ids[path]:
                continue
            if disk_id == old_ids[path]:
                log.warning(
                    "finishing an interrupted commit: %s rolled forward to %s",
                    path,
                    head.decode()[:8],
                )
                after, written = write_tracked(workspace, path, read_blob(store, new_ids[path]))
                if not written:
                    try:
                        _record_left_busy(git_dir, {path: after}, new_ids, keep)
                    except OSError as exc:
                        log.warning("%s not recorded as left unwritten (%s)", path, exc)
            else:
                log.warning(
                    "%s changed during an interrupted commit; "
                    "kept (it will be committed as manual)",
                    path,
                )
        # git's index too (the cut may have come before its update): staged is HEAD's version, so
        # `git status` shows nothing staged, and a person's edit as the edit it is
        update_index(git_dir, workspace, _present(workspace, new_ids))
    _marker_done(marker)


def _recover_swaps(target: Path, path: str, old: bytes | None, new: bytes | None) -> None:
    """The ``.<name>.swap-*`` files an interrupted ``write_workspace_file`` of ``path`` left (one
    is only ever made under the writer lock, which the caller holds: none is in use): the
    transaction's own bytes, or what its exchange took off the file — the old version, or a
    person's save. Its own bytes and the old version are removed; a save is put back with the
    commit's change merged in, as the write would have; one that cannot be (a newer save is on
    disk too) stays, named in a warning."""
    for kept in sorted(target.parent.glob(f".{target.name}.swap-*")):
        data, disk = read_bytes_or_none(kept), read_bytes_or_none(target)
        if data is None or data in (old, new, disk):
            kept.unlink(missing_ok=True)
            continue
        if new is not None and disk != new and new.startswith(data):
            # its own bytes, cut short by a kill before the exchange (the file was never replaced)
            kept.unlink(missing_ok=True)
            continue
        wanted = merge_save(old, new, data, path) if new is not None else data
        if disk == new or (new is None and disk == old):  # the exchange took it off the file
            log.warning(
                "finishing an interrupted commit: a save of %s it had taken off the file is put "
                "back (it will be committed as manual)",
                path,
            )
            _write_keeping_saves(target, path, wanted, {})
        elif new is None or merge_save(old, new, disk, path) != wanted:
            log.warning(
                "%s holds a version of %s an interrupted write took off it; "
                "compare the two and remove it",
                kept,
                path,
            )
            continue
        kept.unlink(missing_ok=True)


def _present(
    workspace: Workspace | ResolvedPaths, ids: Mapping[str, ObjectID | None]
) -> dict[str, ObjectID | None]:
    """``ids`` without the paths whose file is missing though HEAD has it (a person deleted it: its
    index entry stays as it is, and `git status` shows the deletion)."""
    out: dict[str, ObjectID | None] = {}
    for path, sha in ids.items():
        try:
            there = workspace.resolve(path).is_file()
        except WorkspaceError:
            continue
        if sha is None or there:
            out[path] = sha
    return out


def clean_temp_files(workspace: Workspace, paths: list[str]) -> None:
    """Remove temp files an interrupted ``atomic_write`` of a tracked file left next to it (older
    than a minute, so a concurrent writer's temp file is never pulled from under it).

    A ``.<name>.swap-*`` file (``write_workspace_file``) that a crash left may hold the bytes a
    replace took off the file — a person's save among them — so it is removed only when the file
    holds the same bytes; otherwise it stays, named in a warning."""
    now = time.time()
    for path in paths:
        try:
            target = workspace.resolve(path)
        except WorkspaceError:
            continue
        try:
            names = os.listdir(target.parent)
        except OSError:
            continue
        remove_stale_temps(target.parent, names, older_than=60, of=target.name.__eq__)
        for kept in target.parent.glob(f".{target.name}.swap-*"):
            try:
                if now - kept.lstat().st_ctime <= 60:
                    continue  # a replace in progress
                if read_bytes_or_none(kept) == read_bytes_or_none(target):
                    kept.unlink(missing_ok=True)
                else:
                    log.warning(
                        "%s holds a version of %s an interrupted write took off it; "
                        "compare the two and remove it",
                        kept,
                        path,
                    )
            except OSError:
                continue
