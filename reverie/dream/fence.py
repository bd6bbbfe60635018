"""Dream's write fence: a stale run can never commit a batch, or move the cursor, after another run
took over.

Dream's run lock is an ``flock``. On one host that is enough, but on a network file system a paused
or partitioned holder can lose it silently and wake up still believing it holds it; a lease in Redis
can be lost the same way. So the workspace itself checks every write of a run (Kleppmann's fencing
token, kept where the data is):

- **Epoch** (``memory/.reverie/epoch``, an integer): a distributed worker bumps it with `bump_epoch`
  when it takes a workspace's lease, and hands the value to its run (``Dream.epoch``). A run whose
  epoch is no longer the file's may not write.
- **Expected batch**: when a run starts (under the run lock, after ``reconcile``) it records the
  Dream cursor and the newest dream/restore/revert commit (its *anchor*). Before each write it
  requires both unchanged. Another run that committed this batch, moved the cursor, or a restore in
  between, changes one of them, so a batch is committed at most once and a stale run after a restore
  cannot reapply (no ABA), with or without an epoch.

- **Identity**: the workspace directory a run started in must still be the one at its path (same
  device and inode). ``forget-user`` moves a user's directories away while holding their
  ``fence.lock``, so a run that wakes up after it is refused, and so is one whose path now names a
  new, empty scope; nothing here ever creates a workspace directory (`ensure_state_dir` makes
  ``memory/.reverie`` only below a workspace that exists), so a refused run cannot bring a
  forgotten workspace back either.

Both checks and the writes themselves run inside one short critical section, ``fence.lock``, which
`bump_epoch` also takes: a bump lands either before the check (the write is refused) or after the
write. Every state write of a run is made there — the commit and the cursor, and also the status
and attempt records, the set-aside log, the salience record, a staged SOUL.md change, history
retention — so a run that may no longer write leaves no trace at all, and ``reverie status`` keeps
telling what the run that took over did. Sections nest (an inner one is part of the outer). A
refused write raises `FencedError` before anything is written; the batch stays pending for the new
holder. Residual risk (documented in docs/scale.md): a holder
that loses ``fence.lock`` itself *inside* the millisecond section, which only storage-side fencing
(CephFS blocklisting) removes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import FencedError, LockTimeoutError, ReverieError, UnsafePathError, WorkspaceError
from ..storage.fsutil import atomic_write, read_bytes_or_none
from ..storage.locking import Lock, lock_path

if TYPE_CHECKING:
    from ..gitstore import GitStore
    from ..storage.store import WorkspaceStore

__all__ = [
    "FencedError",
    "Fence",
    "bump_epoch",
    "read_epoch",
    "section_lock",
    "ensure_state_dir",
    "refuse_linked_state_dir",
    "identity",
    "still_there",
    "EPOCH_FILE",
]

EPOCH_FILE = "epoch"
#: How far back the anchor is looked for: past this many commits of other kinds it counts as "none"
#: (a refusal then only costs a retry, never a double commit).
_ANCHOR_DEPTH = 50
_ANCHOR_KINDS = ("dream", "restore", "revert")


def refuse_linked_state_dir(state_dir: Path) -> Path:
    """``state_dir`` when neither it nor ``memory`` is a symbolic link; `UnsafePathError` otherwise
    (the locks and the epoch made there would land wherever the link points, outside the
    workspace). Every creator of the state directory checks this first."""
    state_dir = Path(state_dir)
    for part in (state_dir.parent, state_dir):
        if part.is_symlink():
            raise UnsafePathError(
                f"{part} is a symbolic link; a workspace's state is never written through one"
            )
    return state_dir


def ensure_state_dir(state_dir: Path) -> Path:
    """``memory/.reverie`` of a workspace that exists, created if missing; never the workspace
    itself (`WorkspaceError` when it is gone: a removed workspace is not brought back), and never
    through a symbolic link (`UnsafePathError` when ``memory`` or ``memory/.reverie`` is one: the
    locks and the epoch made here would land wherever it points, outside the workspace)."""
    state_dir = refuse_linked_state_dir(state_dir)
    if not state_dir.is_dir():
        root = state_dir.parent.parent
        if not root.is_dir():
            raise WorkspaceError(f"workspace {root} does not exist (removed?)")
        state_dir.mkdir(parents=True, exist_ok=True)
    return state_dir


def section_lock(state_dir: Path, timeout: float = 30.0) -> Lock:
    """``fence.lock``: held by a run's write section, by `bump_epoch`, by ``dream_run_lock``'s
    holders and by ``forget-user`` while it moves a user away."""
    return Lock(lock_path(ensure_state_dir(state_dir) / "fence"), timeout=timeout)


def identity(root: Path) -> tuple[int, int] | None:
    """The workspace directory's ``(device, inode)``, or None when nothing is at its path."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


@contextmanager
def still_there(root: Path, expected: tuple[int, int] | None) -> Iterator[bool]:
    """Hold the workspace's ``fence.lock`` (when it still has one) and say whether the directory at
    ``root`` is still the one ``expected`` names: what a job checks before it records anything
    about the workspace elsewhere (Redis), so nothing of a forgotten workspace is written back."""
    if expected is None or identity(root) != expected:
        yield False
        return
    try:
        lock = section_lock(Path(root) / "memory" / ".reverie")
        lock.acquire()
    except LockTimeoutError:
        raise
    except (ReverieError, OSError):  # the directory went between the check and the lock
        yield False
        return
    try:
        yield identity(root) == expected
    finally:
        lock.release()


def read_epoch(state_dir: Path) -> int:
    """The workspace's epoch (0 before any distributed worker took it; a corrupt file reads as 0 and
    is bumped past by the next taker, which refuses every older holder)."""
    raw = read_bytes_or_none(Path(state_dir) / EPOCH_FILE)
    try:
        return int(raw.decode("ascii").strip()) if raw else 0
    except (UnicodeDecodeError, ValueError):
        return 0


def bump_epoch(state_dir: Path) -> int:
    """Increment the workspace's epoch atomically (under ``fence.lock``) and return the new
    value."""
    with section_lock(state_dir):
        value = read_epoch(state_dir) + 1
        atomic_write(Path(state_dir) / EPOCH_FILE, f"{value}\n")
        return value


def _anchor(git: GitStore) -> str | None:
    for info in git.log(limit=_ANCHOR_DEPTH):
        if info.kind in _ANCHOR_KINDS:
            return info.sha
    return None


class Fence:
    """The write guard of one Dream run. ``epoch`` None: no epoch check (a single-host run);
    ``valid``: an extra condition, e.g. "my lease still has a margin left", checked inside the
    section."""

    def __init__(
        self,
        store: WorkspaceStore,
        git: GitStore,
        epoch: int | None = None,
        valid: Callable[[], str | None] | None = None,
    ) -> None:
        self.store = store
        self.git = git
        self.epoch = epoch
        self.valid = valid
        self._state_dir = store.workspace.state_dir
        self._root = store.workspace.root
        self._identity = identity(self._root)
        self._cursor: int | None = None
        self._anchor: str | None = None
        self._head: str | None = None  # HEAD when the run began (or last wrote)
        self._depth = 0  # sections open (they nest: an inner one is part of the outer)

    def begin(self) -> None:
        """Record what this run starts from (call under the run lock, after reconcile)."""
        self._cursor = self.store.dream_cursor()
        self._anchor = _anchor(self.git)
        self._head = self.git.head()

    def _refusal(self) -> str | None:
        if identity(self._root) != self._identity:
            return "the workspace was removed (forget-user) or replaced during the run"
        if self.epoch is not None and (now := read_epoch(self._state_dir)) != self.epoch:
            return (
                f"the workspace's epoch is {now}, this run's {self.epoch}: another worker took over"
            )
        if self.valid is not None and (why := self.valid()) is not None:
            return why
        if self._cursor is not None and (cursor := self.store.dream_cursor()) != self._cursor:
            return f"the Dream cursor moved from {self._cursor} to {cursor} during the run"
        if self._cursor is not None and self._landed():
            return "another dream, restore or revert commit landed during the run"
        return None

    def _landed(self) -> bool:
        """Whether a dream, restore or revert commit landed since the run began: every commit since
        its HEAD is looked at (a web app's edits may add hundreds during one run, and a look at the
        newest few would lose the anchor among them). A HEAD no longer on the line (history
        rewritten) counts as landed."""
        if self._head is None:  # no commit when it began
            return _anchor(self.git) != self._anchor
        kinds = self.git.kinds_since(self._head)
        return kinds is None or any(kind in _ANCHOR_KINDS for kind in kinds)

    @contextmanager
    def section(self) -> Iterator[None]:
        """Hold ``fence.lock``, refuse a stale run (`FencedError`), let the block write, then record
        the new cursor and anchor as this run's starting point for its next batch. Inside another
        section of the same fence, just the block."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        if identity(self._root) != self._identity:  # checked before the lock: it is not re-made
            raise FencedError(
                "dream: write refused, nothing written: the workspace was removed (forget-user) "
                "or replaced during the run"
            )
        try:
            lock = section_lock(self._state_dir)
        except WorkspaceError as exc:
            raise FencedError(f"dream: write refused, nothing written: {exc}") from None
        with lock:
            why = self._refusal()
            if why is not None:
                raise FencedError(f"dream: write refused, nothing written: {why}")
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0
            if self._cursor is not None:
                self.begin()
