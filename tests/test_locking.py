"""reverie.storage.locking: the one lock every writer takes. What a caller depends on: processes
and threads
exclude each other, a timeout is a LockTimeoutError naming the lock file, a symlinked lock file is
refused, a killed holder leaves nothing held, a forked child never shares or releases its parent's
lock, and the lock files keep the names every Reverie process (and the docs) agree on."""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reverie.errors import HistoryError, LockTimeoutError, ReverieError
from reverie.storage.locking import Lock, is_lock_file, lock_path

_HOLDER = """
import sys
from reverie.storage.locking import Lock
lock = Lock(sys.argv[1], timeout=10)
lock.acquire()
print("held", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
sys.stdin.readline()
"""


def _holder(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _held_elsewhere(path: Path) -> bool:
    """Whether some holder has the lock, as a process that does not hold it sees it (its own open
    file description, no thread lock of this process)."""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_lock_paths_follow_one_rule(tmp_path: Path) -> None:
    f = tmp_path / "sessions" / "cli_a.jsonl"
    assert lock_path(f) == tmp_path / "sessions" / "cli_a.jsonl.lock"
    assert lock_path(f, "consolidate") == tmp_path / "sessions" / "cli_a.jsonl.consolidate.lock"
    assert lock_path(tmp_path / ".reverie" / "dream") == tmp_path / ".reverie" / "dream.lock"
    assert all(
        is_lock_file(p)
        for p in (lock_path(f), lock_path(f, "consolidate"), "memory/.reverie/flush.lock")
    )
    assert not is_lock_file("memory/locks.md")
    for bad in ("Dream", "a/b", "../x", "x.lock", " "):
        with pytest.raises(ValueError, match="job name"):
            lock_path(f, bad)


def test_two_processes_exclude_each_other_and_a_timeout_names_the_lock_file(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl.lock"
    proc = _holder(path)
    try:
        mine = Lock(path, timeout=0.2)
        assert not mine.try_acquire()
        started = time.monotonic()
        with pytest.raises(LockTimeoutError, match=re.escape(str(path))):
            mine.acquire()
        assert 0.2 <= time.monotonic() - started < 5
        busy = Lock(path, busy="the history is busy")
        with pytest.raises(
            LockTimeoutError, match=r"^the history is busy \(lock file .*history\.jsonl\.lock\)$"
        ):
            busy.acquire(0)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "released\n"
        mine.acquire(5)  # free again: taken at once
        assert mine.held
        mine.release()
    finally:
        proc.kill()
        proc.wait()


def test_a_holder_killed_with_sigkill_leaves_the_lock_free(tmp_path: Path) -> None:
    path = tmp_path / "dream.lock"
    proc = _holder(path)
    assert not Lock(path).try_acquire()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    lock = Lock(path, timeout=5)
    with lock:  # nothing to clean up: the kernel dropped the dead holder's flock
        assert lock.held and _held_elsewhere(path)
    assert not _held_elsewhere(path) and path.exists()


@pytest.mark.parametrize(
    "shared", [False, True], ids=["a Lock per thread", "one kept-open Lock shared"]
)
def test_threads_exclude_each_other(tmp_path: Path, shared: bool) -> None:
    path = tmp_path / "f.lock"
    common = Lock(path, keep_open=True)
    inside, most, errors = [0], [0], []

    def worker() -> None:
        lock = common if shared else Lock(path)
        try:
            for _ in range(20):
                with lock:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                    time.sleep(0.0005)  # a window for another holder to get in, if it could
                    inside[0] -= 1
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == [] and most[0] == 1
    assert not _held_elsewhere(path)


def test_a_thread_waits_for_another_then_times_out_with_the_path(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl.lock"
    holder = Lock(path)
    holder.acquire()
    got: list[BaseException] = []
    t = threading.Thread(target=lambda: _catch(got, Lock(path, timeout=0.1).acquire))
    t.start()
    t.join(10)
    assert len(got) == 1 and isinstance(got[0], LockTimeoutError) and str(path) in str(got[0])
    second = Lock(path, timeout=10)
    waiter = threading.Thread(target=lambda: _catch(got, second.acquire))
    waiter.start()
    time.sleep(0.05)
    holder.release()  # the waiting thread wakes and takes it
    waiter.join(10)
    assert len(got) == 1 and second.held and _held_elsewhere(path)
    second.release()
    assert not _held_elsewhere(path)


def _catch(into: list[BaseException], fn: object) -> None:
    try:
        fn()  # type: ignore[operator]
    except BaseException as exc:  # noqa: BLE001
        into.append(exc)


def test_it_is_not_reentrant_and_release_is_idempotent(tmp_path: Path) -> None:
    lock = Lock(tmp_path / "x.lock")
    with lock:
        with pytest.raises(RuntimeError, match="not re-entrant"):
            lock.acquire()
        assert not Lock(
            tmp_path / "x.lock"
        ).try_acquire()  # another holder in this thread is refused, not deadlocked
    lock.release()
    Lock(tmp_path / "x.lock").acquire()  # dropped at once while held: released, not left taken
    assert Lock(tmp_path / "x.lock").try_acquire()


def test_a_symlinked_lock_file_is_refused_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    path = tmp_path / "history.jsonl.lock"
    path.symlink_to(target)
    with pytest.raises(HistoryError, match="symbolic link"):
        Lock(path, error=HistoryError).acquire()
    assert not target.exists()
    fifo = tmp_path / "f.lock"
    os.mkfifo(fifo)
    with pytest.raises(ReverieError, match="not a regular file"):
        Lock(fifo, timeout=0).acquire()


def test_a_kept_open_lock_follows_its_file_when_it_is_replaced(tmp_path: Path) -> None:
    """A descriptor kept open on a deleted lock file would lock nothing anyone else can see: the
    lock notices (the file has no links left) and locks what the path names now, or refuses a
    symlink put there."""
    path = tmp_path / "history.jsonl.lock"
    kept = Lock(path, keep_open=True)
    with kept:
        pass
    path.unlink()
    other = os.open(path, os.O_RDWR | os.O_CREAT)  # a new lock file, held by "another process"
    fcntl.flock(other, fcntl.LOCK_EX)
    try:
        assert not kept.try_acquire()
    finally:
        os.close(other)
    with kept:
        assert _held_elsewhere(path)
    path.unlink()
    path.symlink_to(tmp_path / "target")
    with pytest.raises(ReverieError, match="symbolic link"):
        kept.acquire()
    assert not (tmp_path / "target").exists()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_neither_shares_nor_releases_the_parents_lock(tmp_path: Path) -> None:
    path = tmp_path / "dream.lock"
    lock = Lock(path, keep_open=True)
    lock.acquire()
    pid = os.fork()
    if pid == 0:  # the child: the parent's hold is not ours to use or to end
        code = 1
        try:
            lock.release()
            code = (
                0
                if not lock.held and not lock.try_acquire() and not Lock(path).try_acquire()
                else 2
            )
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert lock.held and _held_elsewhere(path)
    lock.release()
    assert not _held_elsewhere(path)


def test_acquire_async_waits_without_blocking_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl.consolidate.lock"
    holder = Lock(path)
    holder.acquire()

    async def main() -> list[str]:
        seen: list[str] = []
        with pytest.raises(LockTimeoutError, match=re.escape(str(path))):
            await Lock(path).acquire_async(0.1, poll=0.01)
        waiting = asyncio.ensure_future(Lock(path).acquire_async(None, poll=0.01))
        await asyncio.sleep(0.05)
        seen.append("loop ran while waiting")
        holder.release()
        await asyncio.wait_for(waiting, 10)
        seen.append("taken")
        return seen

    assert asyncio.run(main()) == ["loop ran while waiting", "taken"]


def test_the_writers_lock_files_keep_their_names(tmp_path: Path) -> None:
    """A writer must wait for a holder of the lock file named in docs/formats.md (as an older
    Reverie process holds it): a renamed lock file would let both write."""
    from reverie import MemoryStore
    from reverie.dream.lock import RunLock
    from reverie.storage.sessions import SessionStore
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    store = MemoryStore(ws)
    store.append_history("first")
    sessions = SessionStore(ws)
    session = sessions.get_or_create("cli:a")
    sessions.append(session, {"role": "user", "content": "hi"})
    assert session.path is not None
    held = {
        "history": ws.root / "memory" / "history.jsonl.lock",
        "session": session.path.with_name(session.path.name + ".lock"),
        "dream": ws.root / "memory" / ".reverie" / "dream.lock",
    }
    store.history.lock_timeout = sessions.lock_timeout = 0.1
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    for name, path in held.items():
        fd = os.open(path, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if name == "history":
                with pytest.raises(LockTimeoutError, match="history.jsonl.lock"):
                    store.append_history("blocked")
            elif name == "session":
                with pytest.raises(LockTimeoutError, match=r"\.jsonl\.lock"):
                    sessions.append(session, {"role": "user", "content": "blocked"})
            else:
                assert not RunLock(ws.state_dir).try_acquire()
        finally:
            os.close(fd)


def test_chat_input_and_flush_locks_keep_their_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The chat input history waits for ``chat-input.jsonl.lock`` and, past its short wait, skips
    the line with a warning (the chat goes on); the flush state's lock is
    ``memory/.reverie/flush.lock``."""
    from reverie.cli import _chat_history
    from reverie.operations.memfiles import _flush_lock
    from reverie.storage.workspace import Workspace

    path = tmp_path / "chat-input.jsonl"
    hist = _chat_history.ChatInputHistory(path)
    hist.store_string("first")
    monkeypatch.setattr(_chat_history, "_LOCK_SECONDS", 0.05)
    fd = os.open(str(path) + ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        hist.store_string("while another chat writes")
    finally:
        os.close(fd)
    assert "chat-input.jsonl.lock" in caplog.text
    hist.store_string("after")
    assert list(_chat_history.ChatInputHistory(path).load_history_strings()) == ["after", "first"]
    ws = Workspace(tmp_path / "ws")
    assert _flush_lock(ws).path == ws.root / "memory" / ".reverie" / "flush.lock"
