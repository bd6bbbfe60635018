"""Reverie's one lock: an exclusive lock file, held across processes and across the threads of one
process.

Every writer lock Reverie takes (history appends, a session file, a session's archiver, Dream's run,
the flush state, the chat input history, the memory repo's writer lock) is a `Lock`; nothing else
calls ``flock``.

**Naming rule.** A lock is a file whose name ends in ``.lock`` (`is_lock_file`), computed by
`lock_path`:

- the lock guarding a file ``F`` is ``F.lock``, beside it (``memory/history.jsonl.lock``,
  ``sessions/<s>.jsonl.lock``);
- a job's lock on ``F``, for work that must not hold up ``F``'s ordinary writers, is
  ``F.<job>.lock`` (``sessions/<s>.jsonl.consolidate.lock``);
- a job that guards no single file locks a name in the state directory:
  ``memory/.reverie/<job>.lock`` (``dream.lock``, ``flush.lock``), i.e. ``lock_path(state_dir /
  job)``.

The names are the ones Reverie used before this module existed, so processes of older versions still
exclude these ones. A lock file is empty and never deleted (deleting one while it is held would let
a second holder lock a new file), so purge, git tracking and indexing skip every ``*.lock``.

**Semantics.** ``flock(LOCK_EX)`` on a descriptor of the lock file excludes other processes; a
``threading.Lock`` per lock file (shared by every `Lock` on that path in the process) excludes
threads and lets a waiting thread sleep instead of polling. The kernel drops a ``flock`` when its
holder dies, so a killed holder (SIGKILL included) leaves nothing held and nothing to clean up. Not
re-entrant: a holder that acquires again gets ``RuntimeError`` rather than waiting for itself. A
timeout raises ``LockTimeoutError`` naming the lock file. The lock file is opened with
``O_NOFOLLOW`` (``fsutil.open_regular``): one replaced by a symlink or a FIFO is refused, never
followed. After a ``fork`` the child holds nothing its parent held and never releases the parent's
lock (it opens its own descriptor). With ``keep_open`` the descriptor stays open between
acquisitions: one ``flock`` system call each way instead of open + ``flock`` + close, for the
history append hot path.
"""

from __future__ import annotations

import enum
import errno
import fcntl
import os
import re
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType

from ..backoff import capped_backoff
from ..errors import LockTimeoutError, ReverieError
from .fsutil import open_regular

__all__ = ["Lock", "lock_path", "is_lock_file", "exclusive", "LOCK_SUFFIX"]

LOCK_SUFFIX = ".lock"
_JOB = re.compile(r"[a-z][a-z0-9-]*")


def lock_path(guarded: Path | str, job: str = "") -> Path:
    """The lock file of ``guarded`` (``F.lock``), or of a ``job`` on it (``F.<job>.lock``); see the
    naming rule."""
    if job and not _JOB.fullmatch(job):
        raise ValueError(f"a lock's job name is lowercase letters, digits and '-', not {job!r}")
    guarded = Path(guarded)
    return guarded.with_name(
        f"{guarded.name}.{job}{LOCK_SUFFIX}" if job else guarded.name + LOCK_SUFFIX
    )


def is_lock_file(name: str | Path) -> bool:
    """Whether a file name (or path) is a lock file under the naming rule."""
    return str(name).endswith(LOCK_SUFFIX)


# One threading.Lock per lock file in this process, alive while some Lock on that file is. A forked
# child starts with none: a thread lock the parent held at the fork would stay held in the child
# forever.
_thread_locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
_thread_locks_guard = threading.Lock()
# incremented in a forked child: per-process state cached under an older generation is stale
_generation = 0
# Idle descriptors of dropped `Lock`s whose lock file another `Lock` of this process held at that
# moment, by lock file: closed once no `Lock` of the process holds it (see `Lock._close_idle`).
# Guarded by _thread_locks_guard.
_deferred: dict[str, list[int]] = {}


def _after_fork_in_child() -> None:
    global _thread_locks, _thread_locks_guard, _generation, _deferred
    _thread_locks, _thread_locks_guard = weakref.WeakValueDictionary(), threading.Lock()
    _deferred = {}  # the parent's descriptors: its to close, not ours
    _generation += 1


def _close_deferred(key: str) -> None:
    """Close the idle descriptors `_close_idle` set aside for ``key`` (the caller holds its thread
    lock and no ``flock`` on it)."""
    with _thread_locks_guard:
        fds = _deferred.pop(key, None)
    for fd in fds or ():
        try:
            os.close(fd)
        except OSError:
            pass


os.register_at_fork(after_in_child=_after_fork_in_child)


def _thread_lock(key: str) -> threading.Lock:
    with _thread_locks_guard:
        lock = _thread_locks.get(key)
        if lock is None:
            lock = _thread_locks[key] = threading.Lock()
        return lock


class _Default(enum.Enum):
    TIMEOUT = 0  # "the Lock's own timeout" (None already means "wait forever")


_DEFAULT = _Default.TIMEOUT


class Lock:
    """An exclusive lock on the lock file ``path`` (see the module docstring for what it
    guarantees).

    ``timeout`` is the default wait in seconds (``None``: forever, ``0``: one try); ``busy``
    replaces the default timeout message (the lock file is appended to it); ``error`` is the
    `ReverieError` subclass raised when the lock file cannot be opened (a symlink, a directory, no
    permission). Use it as a context manager, or call `acquire` / `try_acquire` / `acquire_async`
    and `release`. The lock file's directory must exist.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        timeout: float | None = 30.0,
        busy: str | None = None,
        keep_open: bool = False,
        error: type[ReverieError] = ReverieError,
    ) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.busy = busy
        self.keep_open = keep_open
        self.error = error
        self._key = os.path.abspath(self.path)
        self._generation = -1  # the process generation the fields below belong to
        self._tlock = threading.Lock()
        self._fd: int | None = None
        self._owner: int | None = None  # the holding thread's ident
        self._refresh()

    def _refresh(self) -> None:
        """Per-process state: after a fork, forget the parent's descriptor (without closing or
        unlocking it: it is the parent's lock) and hold nothing."""
        if self._generation != _generation:
            self._tlock = _thread_lock(self._key)
            self._fd = None
            self._owner = None
            self._generation = _generation

    @property
    def held(self) -> bool:
        """Whether this `Lock` holds its lock in this process."""
        return self._generation == _generation and self._owner is not None

    def acquire(self, timeout: float | None | _Default = _DEFAULT) -> None:
        """Wait up to ``timeout`` seconds (default: the lock's) for the lock; ``LockTimeoutError``
        if it stays held."""
        wait = self.timeout if timeout is _DEFAULT else timeout
        if not self._acquire(wait):
            raise self._timeout_error(wait)

    def try_acquire(self) -> bool:
        """Take the lock if it is free now; never waits."""
        return self._acquire(0)

    async def acquire_async(
        self, timeout: float | None | _Default = _DEFAULT, poll: float = 0.05
    ) -> None:
        """`acquire` for an event loop: polls every ``poll`` seconds without blocking the loop."""
        # lazily: the CLI's fast commands import this module and never wait in an event loop
        import asyncio

        wait = self.timeout if timeout is _DEFAULT else timeout
        deadline = None if wait is None else time.monotonic() + wait
        while not self._acquire(0):
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise self._timeout_error(wait)
            await asyncio.sleep(poll if left is None else min(poll, left))

    def release(self) -> None:
        """Release the lock; a no-op when this `Lock` does not hold it in this process."""
        if not self.held:
            return
        fd, self._owner = self._fd, None
        try:
            if fd is not None:
                if self.keep_open:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                else:
                    self._fd = None
                    os.close(fd)  # closing the only descriptor releases the flock
            _close_deferred(self._key)
        finally:
            self._tlock.release()

    def __enter__(self) -> Lock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __del__(self) -> None:
        """A `Lock` dropped while held releases (as closing its descriptor would): else its thread
        lock would stay taken, with nobody left to release it."""
        try:
            if self._generation == _generation:
                self.release()
                self._close_idle()
        # A finalizer must not raise (the interpreter may be shutting down).
        except Exception:  # noqa: BLE001
            pass

    def _close_idle(self) -> None:
        """Close this (not holding) `Lock`'s descriptor, but never while another `Lock` of this
        process holds the same file: where ``flock`` is emulated with POSIX record locks (NFS),
        closing *any* descriptor of a file drops every lock the process has on it. Then the
        descriptor is set aside, and closed by the holder's release or the next acquire, under the
        file's thread lock."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if self._tlock.acquire(False):
            try:
                os.close(fd)
            finally:
                self._tlock.release()
            return
        with _thread_locks_guard:
            _deferred.setdefault(self._key, []).append(fd)

    # -- internals ---------------------------------------------------------------------------------
    def _acquire(self, wait: float | None) -> bool:
        self._refresh()
        me = threading.get_ident()
        if self._owner == me:
            raise RuntimeError(
                f"{self.path} is already held by this thread; the lock is not re-entrant"
            )
        deadline = None if wait is None else time.monotonic() + wait
        if not self._tlock.acquire(True, -1 if wait is None else max(wait, 0)):
            return False
        try:
            # no Lock of this process holds the file now: safe to close them
            _close_deferred(self._key)
            if not self._flock(deadline):
                if not self.keep_open:
                    self._close_descriptor()
                self._tlock.release()
                return False
        except BaseException:
            self._close_descriptor()
            self._tlock.release()
            raise
        self._owner = me
        return True

    def _flock(self, deadline: float | None) -> bool:
        """``flock`` the lock file, polling with backoff until ``deadline``; False when it
        passes."""
        polls = 0
        while True:
            fd = self._descriptor()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                polls += 1
                delay = capped_backoff(polls, 0.0005, 0.02)
                time.sleep(
                    delay if deadline is None else max(0.0, min(delay, deadline - time.monotonic()))
                )
                continue
            if os.fstat(fd).st_nlink:
                return True
            # The file was deleted or renamed over after we opened it: a lock on it excludes nobody
            # who opens the path now. Unlock, drop the descriptor and lock what the path names.
            fcntl.flock(fd, fcntl.LOCK_UN)
            self._close_descriptor()

    def _descriptor(self) -> int:
        if self._fd is None:
            try:
                self._fd = open_regular(self.path, os.O_RDWR | os.O_CREAT)
            except OSError as exc:
                # a workspace this user may only read (a read-only mount, another owner's files):
                # ``flock`` needs no write access, so a reader (export, a dry run) still excludes
                # the owner's writers through the lock file that is there
                if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                    with suppress(OSError):
                        self._fd = open_regular(self.path, os.O_RDONLY)
                if self._fd is None:
                    raise self.error(
                        f"cannot open the lock file {self.path}: {exc.strerror or exc}"
                    ) from exc
        return self._fd

    def _close_descriptor(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def _timeout_error(self, wait: float | None) -> LockTimeoutError:
        if self.busy:
            return LockTimeoutError(f"{self.busy} (lock file {self.path})")
        return LockTimeoutError(f"timed out after {wait:g}s waiting for the lock {self.path}")


@contextmanager
def exclusive(path: Path, timeout: float | None, busy: str | None = None) -> Iterator[None]:
    """Hold ``path``'s lock for the block, waiting up to ``timeout`` seconds; the descriptor is
    closed at the end."""
    with Lock(path, timeout=timeout, busy=busy):
        yield
