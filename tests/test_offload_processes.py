"""The async verbs in worker processes (``reverie.memory.offload``'s process mode): results and
errors
come back whole, a worker killed mid-call fails that call alone and is replaced, cancelling a
pipeline verb cancels it in its worker, and no worker process outlives the pool (closed, or an
application that never closes and exits, or is killed).

Each test starts real worker processes (a fresh interpreter each, about half a second).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reverie
from reverie import offload
from reverie.errors import CommandError, EditConflictError, UnsafePathError, WorkerError
from reverie.memory import Memory, content_id


@pytest.fixture(autouse=True)
def processes() -> Iterator[None]:
    """Process mode with two workers for the test; threads (and no worker left) after it."""
    before = offload.MAX_WORKERS
    offload.configure("processes", workers=2)
    try:
        yield
    finally:
        offload.configure("threads", workers=before)
        offload._workers = 0


def _pids() -> list[int]:
    pool = offload._pool
    if pool is None:
        return []
    return sorted(w.proc.pid for w in [*pool.idle, *pool.busy])


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (our own children are reaped by the pool)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone(pids: list[int], within: float = 10.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


class SlowMemory(Memory):
    """A ``Memory`` whose ``status`` and ``_consolidate_turns`` (``arecord``'s pipeline step) wait
    where a test can find and stop them (the class is importable by the worker: it is sent by
    name)."""

    def status(self) -> Any:
        marker = self.workspace.root / "worker.pid"
        marker.write_text(str(os.getpid()))
        time.sleep(60)
        return super().status()

    async def _consolidate_turns(self, session_key: str) -> Any:
        marker = self.workspace.root / "worker.pid"
        marker.write_text(str(os.getpid()))
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            (self.workspace.root / "cancelled").write_text("yes")
            raise
        return await super()._consolidate_turns(session_key)

    def files(self) -> list[str]:
        raise _Odd("no", 3)


class _Odd(Exception):
    """An exception that does not survive pickling (its ``__init__`` wants two arguments)."""

    def __init__(self, what: str, n: int) -> None:
        super().__init__(f"{what} x{n}")


def _slow(root: Path) -> SlowMemory:
    return SlowMemory(reverie.open(root).runtime)


async def _wait_for(path: Path, seconds: float = 30.0) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text():
            return path.read_text()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def test_verbs_run_in_workers_and_bring_back_results_and_typed_errors(tmp_path):
    async def main() -> None:
        async with reverie.open(tmp_path / "ws") as memory:
            assert memory._portable() is not None
            await memory.ainit()
            got = await memory.aremember("User: I live in Lisbon.")
            hits = await memory.arecall("Lisbon")
            assert hits and hits[0].source.cursor == got.cursor
            assert len(_pids()) >= 1 and os.getpid() not in _pids()
            text = await memory.aread("USER.md")
            await memory.awrite("USER.md", text + "- Likes tea.\n", base=content_id(text))
            with pytest.raises(EditConflictError) as conflict:  # a base the file left
                await memory.awrite("USER.md", text + "- Likes coffee.\n", base=content_id("x"))
            assert conflict.value.path == "USER.md" and "Likes tea" in conflict.value.current
            assert "Traceback" in str(conflict.value.__cause__)  # the worker's own
            with pytest.raises(UnsafePathError):
                await memory.aread("../outside.md")
            with pytest.raises(CommandError):
                await memory.arecall("Lisbon", limit=0)
            done = await memory.arecord("t:1", [{"role": "user", "content": "I like tea."}])
            assert done.session_key == "t:1" and memory.messages("t:1")  # seen by this process

    asyncio.run(main())
    assert offload._pool is None  # closing the last Memory that used them stopped them


def test_an_error_that_does_not_pickle_is_named(tmp_path):
    memory = _slow(tmp_path / "ws")
    memory.init()
    with pytest.raises(WorkerError, match="_Odd: no x3"):
        asyncio.run(memory.afiles())
    memory.close()


def test_a_worker_killed_mid_call_fails_that_call_and_is_replaced(tmp_path):
    memory = _slow(tmp_path / "ws")
    memory.init()

    async def main() -> None:
        slow = asyncio.create_task(memory.astatus())
        quick = [memory.aremember(f"User: note {n}.") for n in range(20)]
        pid = int(await _wait_for(memory.workspace.root / "worker.pid"))
        assert pid in _pids()
        # the other worker goes on answering while one is stuck
        assert len(await asyncio.gather(*quick)) == 20
        began = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerError, match="died \\(killed by SIGKILL\\)"):
            await slow
        assert time.monotonic() - began < 10
        assert pid not in _pids() and not _alive(pid)
        assert (await memory.aremember("User: after the kill.")).cursor == 21
        assert await memory.arecall("after the kill")

    asyncio.run(main())
    pids = _pids()
    memory.close()
    assert _gone(pids)


def test_killing_workers_mid_write_loses_no_acknowledged_write(tmp_path):
    """Writers' workers SIGKILLed at random: every ``aremember`` acknowledged is in history exactly
    once, a failed one at most once, and the workspace shows no fault."""
    memory = reverie.open(tmp_path / "ws")
    memory.init()
    acked: list[str] = []
    failed: list[str] = []

    async def write(n: int) -> None:
        text = f"User: kill-test line {n}."
        try:
            await memory.aremember(text)
            acked.append(text)
        except WorkerError:
            failed.append(text)

    async def killer() -> None:
        for _ in range(6):
            await asyncio.sleep(0.15)
            for pid in _pids()[:1]:
                os.kill(pid, signal.SIGKILL)

    async def main() -> None:
        await memory.aremember("User: start.")  # a worker exists
        writers = asyncio.gather(*(write(n) for n in range(300)))
        await asyncio.gather(writers, killer())

    asyncio.run(main())
    texts = [e.content for e in memory.history()]
    assert failed, "no write was hit: the test did not test"
    assert all(texts.count(t) == 1 for t in acked)
    assert all(texts.count(t) <= 1 for t in failed)
    assert memory.faults() == []
    memory.close()


def test_cancelling_a_pipeline_verb_cancels_it_in_its_worker(tmp_path):
    memory = _slow(tmp_path / "ws")
    memory.init()

    async def main() -> float:
        task = asyncio.create_task(memory.arecord("t:1", [{"role": "user", "content": "hi"}]))
        await _wait_for(memory.workspace.root / "worker.pid")
        began = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - began

    assert asyncio.run(main()) < 5
    assert (memory.workspace.root / "cancelled").read_text() == "yes"
    assert asyncio.run(memory.apending()) == 0  # the worker is still there, and answers
    memory.close()


def test_what_cannot_leave_the_process_runs_in_a_thread(tmp_path):
    """A model registered by the program, a class defined in a function, an observer: the verb
    runs in the executor's thread, as in thread mode (and still off the loop)."""
    from reverie.llm import registry
    from reverie.storage.config import Config

    class Local(Memory):
        pass

    registry.register("mine", lambda request: None)  # type: ignore[arg-type,return-value]
    try:
        cfg = Config.model_validate({"agents": {"defaults": {"model": "mine/x"}}})
        with reverie.open(tmp_path / "a", config=cfg) as memory:
            assert memory._portable() is None
            memory.init()
            assert asyncio.run(memory.aremember("User: hi.")).cursor == 1
        assert Local(reverie.open(tmp_path / "b").runtime)._portable() is None
        assert offload._pool is None  # no worker was started for them
    finally:
        registry.unregister("mine")


_APP = """
import asyncio, os, sys, time
import reverie
from reverie import offload

offload.configure("processes", workers=2)

async def main():
    memory = reverie.open(sys.argv[1])
    await memory.ainit()
    await asyncio.gather(*(memory.aremember(f"User: n {n}.") for n in range(8)))
    pool = offload._pool
    print(" ".join(str(w.proc.pid) for w in [*pool.idle, *pool.busy]), flush=True)
    if sys.argv[2] == "hang":
        time.sleep(60)

asyncio.run(main())  # and never close the memory
"""


@pytest.mark.parametrize("how", ["exits", "is killed"])
def test_an_app_that_never_closes_leaves_no_worker(tmp_path, how):
    """An application that exits without closing its ``Memory`` (atexit stops the workers), or is
    SIGKILLed (the workers find their pipe closed and leave)."""
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(_APP))
    proc = subprocess.Popen(
        [sys.executable, str(app), str(tmp_path / "ws"), "hang" if how == "is killed" else ""],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert pids and all(_alive(p) for p in pids)
    if how == "is killed":
        proc.kill()
    assert proc.wait(60) in (0, -signal.SIGKILL)
    assert _gone(pids), f"workers {pids} outlived their application"


def test_configure_refuses_a_mode_it_does_not_know():
    from reverie.errors import ConfigError

    with pytest.raises(ConfigError, match="'threads' or 'processes'"):
        offload.configure("fork")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="workers"):
        offload.configure("processes", workers=0)


def test_the_environment_chooses_the_mode(monkeypatch):
    """``REVERIE_OFFLOAD`` decides when the program did not (``configure``); a wrong value is
    named."""
    from reverie.errors import ConfigError

    monkeypatch.setattr(offload, "_mode", None)
    monkeypatch.setenv("REVERIE_OFFLOAD", "processes")
    assert offload.mode() == "processes"
    monkeypatch.setattr(offload, "_mode", None)
    monkeypatch.setenv("REVERIE_OFFLOAD", "")
    assert offload.mode() == "threads"
    monkeypatch.setattr(offload, "_mode", None)
    monkeypatch.setenv("REVERIE_OFFLOAD", "fork")
    with pytest.raises(
        ConfigError, match="REVERIE_OFFLOAD is 'threads' or 'processes', not 'fork'"
    ):
        offload.mode()


def test_a_forked_child_starts_workers_of_its_own(tmp_path):
    """After ``fork`` the child never writes to the parent's workers' pipes (it closes its copies)
    and starts its own; the parent's workers go on answering."""
    import multiprocessing

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        memory.remember("User: I live in Lisbon.")
        assert asyncio.run(memory.arecall("Lisbon"))
        parents = _pids()

        def child() -> None:
            ok = asyncio.run(memory.arecall("Lisbon")) and set(_pids()).isdisjoint(parents)
            memory.close()
            raise SystemExit(0 if ok else 3)

        proc = multiprocessing.get_context("fork").Process(target=child)
        proc.start()
        proc.join(60)
        if proc.exitcode is None:
            proc.kill()
            proc.join()
        assert proc.exitcode == 0
        assert _pids() == parents and asyncio.run(memory.arecall("Lisbon"))
