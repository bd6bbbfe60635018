"""Git objects for the tracked files: read blobs by path from a tree, build a new tree that changes
only those paths (every other entry of the base tree is kept as is), and make commits. No I/O beyond
the object store.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta, timezone
from typing import Protocol

from dulwich.errors import ChecksumMismatch, ObjectFormatException
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree

from ..errors import GitStoreError

__all__ = [
    "FILE_MODE",
    "ObjectReader",
    "CachedStore",
    "read_commit",
    "read_tree",
    "blob_id",
    "read_blob_ids",
    "read_blob",
    "list_files",
    "build_tree",
    "make_commit",
    "commit_time",
    "identity",
    "commit_datetime",
]

FILE_MODE = 0o100644
DIR_MODE = 0o040000


class ObjectReader(Protocol):
    """What the readers here need of an object store: dulwich's ``DiskObjectStore`` and
    ``CachedStore`` both are."""

    def __getitem__(self, sha: ObjectID, /) -> ShaFile: ...

    def get_raw(self, name: ObjectID, /) -> tuple[int, bytes]: ...


class CachedStore:
    """A read-through view of an object store that keeps parsed objects. Git objects are immutable,
    so a cache can never be stale: within one operation HEAD's trees are read several times, and
    across the operations of one GitStore the objects the last commit wrote are exactly what the
    next commit reads (no loose-object reads, no pack-directory rescans). Bounded: the oldest
    entries are dropped first, and large blobs are never kept. ``disk`` is the store itself, for
    anything but reading objects."""

    LIMIT = 512
    BIG_BLOB = 1 << 20

    def __init__(
        self, store: DiskObjectStore, cache: dict[ObjectID, ShaFile] | None = None
    ) -> None:
        self.disk = store
        self._cache: dict[ObjectID, ShaFile] = cache if cache is not None else {}

    def __getitem__(self, sha: ObjectID) -> ShaFile:
        """The object ``sha``: ``KeyError`` when it is missing, ``GitStoreError`` when it is there
        but cannot be read (truncated, overwritten, not zlib data)."""
        obj = self._cache.get(sha)
        if obj is None:
            try:
                obj = self.disk[sha]
            except (ChecksumMismatch, ObjectFormatException, zlib.error) as exc:
                raise GitStoreError(
                    f"object {sha.decode(errors='replace')} of the memory repo is damaged "
                    f"({type(exc).__name__})"
                ) from None
            self.remember(obj, sha)
        return obj

    def get_raw(self, name: ObjectID) -> tuple[int, bytes]:
        return self.disk.get_raw(name)

    def remember(self, obj: ShaFile, sha: ObjectID | None = None) -> None:
        """Keep ``obj`` (one just written, or just read as ``sha``)."""
        if isinstance(obj, Blob) and obj.raw_length() > self.BIG_BLOB:
            return
        cache = self._cache
        while len(cache) >= self.LIMIT:
            del cache[next(iter(cache))]
        cache[sha or obj.id] = obj


def read_commit(store: ObjectReader, sha: ObjectID) -> Commit:
    """The commit ``sha`` (``GitStoreError`` when the object is something else; ``KeyError`` when
    missing)."""
    obj = store[sha]
    if not isinstance(obj, Commit):
        raise GitStoreError(f"{sha.decode()} is not a commit")
    return obj


def read_tree(store: ObjectReader, sha: ObjectID) -> Tree:
    """The tree ``sha`` (``GitStoreError`` when the object is something else; ``KeyError`` when
    missing)."""
    obj = store[sha]
    if not isinstance(obj, Tree):
        raise GitStoreError(f"{sha.decode()} is not a tree")
    return obj


def blob_id(data: bytes) -> ObjectID:
    """The hex sha git gives ``data`` as a blob (no write)."""
    return Blob.from_string(data).id


def identity(name: str, email: str) -> bytes:
    def clean(text: str) -> str:
        return " ".join(text.replace("<", "").replace(">", "").split())

    return f"{clean(name) or 'Reverie'} <{clean(email) or 'reverie@localhost'}>".encode()


def _subtree(
    store: ObjectReader, tree_id: ObjectID | None, cache: dict[str, Tree | None], prefix: str
) -> Tree | None:
    """The tree at directory ``prefix`` ('' = root), memoised in ``cache``; None when absent."""
    if prefix in cache:
        return cache[prefix]
    tree: ShaFile | None
    if not prefix:
        tree = store[tree_id] if tree_id else None
    else:
        parent_prefix, _, name = prefix.rpartition("/")
        parent = _subtree(store, tree_id, cache, parent_prefix)
        tree = None
        if parent is not None:
            try:
                mode, sha = parent[name.encode()]
            except KeyError:
                mode, sha = 0, None
            if sha is not None and mode == DIR_MODE:
                tree = store[sha]
    if tree is not None and not isinstance(tree, Tree):
        raise GitStoreError(f"object at {prefix or '/'} is not a tree")
    cache[prefix] = tree
    return tree


def read_blob_ids(
    store: ObjectReader, tree_id: ObjectID | None, paths: Iterable[str]
) -> dict[str, ObjectID | None]:
    """Blob sha of each path in the tree (None where absent or not a regular file)."""
    cache: dict[str, Tree | None] = {}
    out: dict[str, ObjectID | None] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        tree = _subtree(store, tree_id, cache, folder)
        sha = None
        if tree is not None:
            try:
                mode, entry = tree[name.encode()]
            except KeyError:
                mode, entry = 0, None
            if entry is not None and mode != DIR_MODE:
                sha = entry
        out[path] = sha
    return out


def list_files(store: ObjectReader, tree_id: ObjectID | None, directory: str) -> list[str]:
    """Names of the regular files directly in ``directory`` ('' = root) of the tree; [] when
    absent."""
    if not tree_id:
        return []
    tree = _subtree(store, tree_id, {}, directory)
    if tree is None:
        return []
    return [
        item.path.decode("utf-8", "replace") for item in tree.iteritems() if item.mode != DIR_MODE
    ]


def list_tree(store: ObjectReader, tree_id: ObjectID | None, directory: str) -> list[str]:
    """Every regular file under ``directory`` at any depth (paths relative to it; [] when
    absent)."""
    if not tree_id:
        return []
    tree = _subtree(store, tree_id, {}, directory)
    out: list[str] = []
    stack: list[tuple[str, Tree]] = [("", tree)] if tree is not None else []
    while stack:
        prefix, here = stack.pop()
        for item in here.iteritems():
            name = prefix + item.path.decode("utf-8", "replace")
            if item.mode == DIR_MODE:
                sub = store[item.sha]
                if isinstance(sub, Tree):
                    stack.append((name + "/", sub))
            else:
                out.append(name)
    return sorted(out)


def read_blob(store: ObjectReader, sha: ObjectID | None) -> bytes | None:
    if sha is None:
        return None
    obj = store[sha]
    if not isinstance(obj, Blob):
        raise GitStoreError(f"{sha.decode()} is not a blob")
    return obj.as_raw_string()


def build_tree(
    store: ObjectReader, base_tree_id: ObjectID | None, changes: Mapping[str, ObjectID | None]
) -> tuple[ObjectID, list[ShaFile]]:
    """A new root tree equal to the base except for ``changes`` (path → blob sha, or None to
    delete).

    Returns the root tree id and the new tree objects (not yet written). Directories left empty are
    dropped.
    """
    cache: dict[str, Tree | None] = {}
    edited: dict[str, Tree] = {}

    def editable(prefix: str) -> Tree:
        if prefix not in edited:
            base = _subtree(store, base_tree_id, cache, prefix)
            tree = Tree()
            if base is not None:
                for item in base.iteritems():
                    tree.add(item.path, item.mode, item.sha)
            edited[prefix] = tree
            if prefix:
                editable(prefix.rpartition("/")[0])  # every ancestor must be rewritten too
        return edited[prefix]

    editable("")  # the root, even with no change (a record that changes no file)
    for path, sha in changes.items():
        folder, _, name = path.rpartition("/")
        tree = editable(folder)
        key = name.encode()
        if sha is None:
            if key in tree:
                del tree[key]
        else:
            tree.add(key, FILE_MODE, sha)
    new_objects: list[ShaFile] = []
    # deepest first, so each parent links its child's final id
    for prefix in sorted(edited, key=lambda p: p.count("/") + (1 if p else 0), reverse=True):
        tree = edited[prefix]
        if prefix:
            parent = edited[prefix.rpartition("/")[0]]
            key = prefix.rpartition("/")[2].encode()
            if len(tree) == 0:
                if key in parent:
                    del parent[key]
                continue
            parent.add(key, DIR_MODE, tree.id)
        new_objects.append(tree)
    return edited[""].id, new_objects


def commit_time(when: datetime | None = None) -> tuple[int, int]:
    """(unix seconds, UTC offset seconds) of ``when`` (default now), in the local timezone if
    naive."""
    moment = (when or datetime.now(UTC)).astimezone()
    offset = moment.utcoffset() or timedelta(0)
    return int(moment.timestamp()), int(offset.total_seconds())


def make_commit(
    tree_id: ObjectID,
    parents: list[ObjectID],
    message: str,
    who: bytes,
    when: datetime | None = None,
) -> Commit:
    c = Commit()
    c.tree = tree_id
    c.parents = parents
    c.author = c.committer = who
    seconds, offset = commit_time(when)
    c.author_time = c.commit_time = seconds
    c.author_timezone = c.commit_timezone = offset
    c.message = message.encode("utf-8")
    return c


def commit_datetime(commit: Commit) -> datetime:
    """The commit time as a timezone-aware datetime in the commit's own offset."""
    tz = timezone(timedelta(seconds=commit.commit_timezone))
    return datetime.fromtimestamp(commit.commit_time, tz)
