"""The one bounded executor that keeps the async verbs of every ``Memory`` off the caller's event
loop.

An ``a…`` verb's work is files, SQLite, git and the offline engine's CPU: done on the loop, it holds
every other task of an async server for as long (0.3 s for a first search of a 3,000-entry workspace
before this module). Here it runs in a worker thread instead, so the loop only waits on a future:

- ``run(fn)``: a synchronous verb in a worker thread.
- ``run_async(factory)``: a pipeline verb (Dream, the Consolidator: model calls interleaved with
file
  and git work) as a coroutine on the worker thread's own event loop. Cancelling the caller's await
  cancels it there, and the caller's await ends once it has unwound (so Dream's lock is released
  when the cancellation reaches the caller).
- ``call(memory, name, …)`` / ``call_async(memory, name, …)``: a ``Memory`` verb by name, which
  process mode (below) can run in another process.

One executor for the process, shared by every ``Memory``, created on first use and bounded
(``MAX_WORKERS`` threads): a burst of calls queues instead of starting a thread each, and few
threads also keep the loop's share of the GIL (a thread asking for the GIL waits up to the switch
interval, 5 ms by default, per thread ahead of it). A program may hand in its own with
``use_executor``. After a ``fork`` the child starts a new one (the parent's threads do not exist
there). What opens a thread closes it: when the last ``Memory`` that used the threads is closed,
they leave, with the event loop each ran pipeline verbs on (and that loop's own threads, where a
model client resolves host names); the next call starts new ones.

**Process mode** (``configure("processes")``, or ``REVERIE_OFFLOAD=processes`` in the environment):
the worker threads no longer run the verbs' Python code, which takes the GIL in turns with the
loop's thread (the loop's lag, bench/embedded.py). Each thread, when it has a verb to run, takes a
worker *process* of its own (at most one per CPU, up to ``MAX_WORKERS``, started on first need with
``sys.executable``: a fresh interpreter, never a fork of this one), sends it the verb by
name with the ``Memory`` it applies to (its class, workspace, config and scope, pickled), and waits
on the pipe with the GIL released. The worker opens that workspace with a ``Memory`` of its own
(kept for the next call) and runs the verb; several processes sharing a workspace is the ordinary
case (the CLI, apps), ordered by the workspace's locks. The result, or the exception with its type
and attributes and the worker's traceback as its ``__cause__``, is pickled back. A worker that dies
during a call (killed, out of memory) fails that call alone with ``WorkerError`` (its write is
whole or not made: every write is crash-safe), and the next call starts a new one. Cancelling a
pipeline verb's await cancels its coroutine in the worker. The workers leave with the pool: when
the last ``Memory`` that used them is closed, at the interpreter's exit, or, if this process dies
without either, when they find their pipe closed (after the call in hand).

A verb stays in the thread (process mode or not) when its work cannot be moved: a callback
(``adream``'s ``on_progress``), an argument it changes in place (``anew_session``'s session), a
``Memory`` with a model observer, a class or config that does not pickle, or a model this program
registered in-process (``reverie.llm.registry``: a fresh interpreter would not know it).

Threads stay the default: they need no start-up (a worker process imports Reverie and opens the
workspace on its first call: 0.85 s more for a first call, measured), no memory per process (about
42 MB each), and work with every ``Memory`` a program builds. An async server that must keep its
loop's lag low chooses processes (docs/threads.md, "The GIL, and worker processes"; BENCHMARKS.md,
"embedded").
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import os
import pickle
import threading
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from subprocess import Popen

__all__ = [
    "run",
    "run_async",
    "call",
    "call_async",
    "executor",
    "use_executor",
    "configure",
    "mode",
    "release",
    "MAX_WORKERS",
    "Mode",
]

T = TypeVar("T")

#: Worker threads of the shared executor (and so at most this many worker processes in process
#: mode). Measured in bench/embedded.py: with more, each thread waiting for the GIL delays the
#: loop's turn (BENCHMARKS.md, "embedded").
MAX_WORKERS = 4

#: Where the ``a…`` verbs' work runs: ``threads`` (the default) or ``processes`` (see the module
#: doc).
Mode = Literal["threads", "processes"]
_MODES = ("threads", "processes")
#: The environment variable a deployment sets to choose the mode without code.
ENV = "REVERIE_OFFLOAD"

_lock = threading.Lock()
_threads: _Threads | None = None  # the module's own executor (None: not made yet, or retired)
_given: Executor | None = None  # a program's own (``use_executor``), used instead
_local = threading.local()  # .owner: the _Threads of this worker; .runner: its event loop's Runner
_mode: Mode | None = None  # None: not chosen yet (the environment, else threads, on first use)
_pool: _Processes | None = None
_workers = 0  # worker processes ``configure`` asked for (0: one per CPU, at most MAX_WORKERS)


class Portable(Protocol):
    """What ``call`` needs of a ``Memory``: itself as a worker process rebuilds it, or None."""

    def _portable(self) -> bytes | None: ...


def mode() -> Mode:
    """How the async verbs run now: ``configure``'s choice, else ``$REVERIE_OFFLOAD``, else
    threads."""
    global _mode
    with _lock:
        if _mode is None:
            _mode = _parse_mode(os.environ.get(ENV, "").strip() or "threads", ENV)
        return _mode


def _parse_mode(value: str, where: str) -> Mode:
    if value not in _MODES:
        from ..errors import ConfigError

        raise ConfigError(f"{where} is 'threads' or 'processes', not {value!r}")
    return "threads" if value == "threads" else "processes"


def configure(how: Mode, *, workers: int | None = None) -> None:
    """Run the async verbs of this process in ``threads`` or worker ``processes``, from the next
    call on: at most ``workers`` of each (default: ``MAX_WORKERS`` threads, and one process per
    CPU up to that: more CPU-bound processes than cores only compete with the event loop's own
    process, BENCHMARKS.md "embedded"). Calls in flight finish where they are; the previous worker
    processes leave once idle."""
    global _mode, MAX_WORKERS, _workers
    chosen = _parse_mode(how, "the offload mode")
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            from ..errors import ConfigError

            raise ConfigError(f"workers must be a whole number of at least 1, not {workers!r}")
    with _lock:
        _mode = chosen
        resize = workers is not None and workers != MAX_WORKERS
        if workers is not None:
            MAX_WORKERS = _workers = workers
    if resize:
        use_executor(None)  # the next call builds one of the new size
    _stop_pool()


class _Threads:
    """The executor this module makes, the ``Memory`` objects that used it, and the event loops its
    threads run pipeline verbs on (an ``asyncio.Runner`` each, kept between calls: what a verb binds
    to its loop, an asyncio lock or a model client's connection pool, is reused by the next call).

    What opens a thread closes it: when the last of those ``Memory`` objects is closed
    (``release``), the threads leave and their loops are closed as ``asyncio.run`` closes its own
    (tasks cancelled, async generators and the loop's default executor, where a model client
    resolves host names, shut down). The next call makes new ones."""

    def __init__(self) -> None:
        import weakref

        self.pool = ThreadPoolExecutor(
            MAX_WORKERS, thread_name_prefix="reverie", initializer=self._enter
        )
        self.users: weakref.WeakSet[object] = weakref.WeakSet()
        self.idle: set[asyncio.Runner] = set()  # loops not running now: ``retire`` may close them
        self.retired = False

    def _enter(self) -> None:  # in each new worker thread
        _local.owner = self

    def retire(self) -> None:
        """Shut the threads down (queued calls still run) and close their loops: the idle ones now,
        each busy one by its thread when its call ends (``_Threads.put``)."""
        with _lock:
            self.retired = True
            idle, self.idle = self.idle, set()
        self.pool.shutdown(wait=False)
        if not idle:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop runs in this thread: close them here, now
            _close(idle)
        else:  # a synchronous close() on an event loop cannot run another loop: a thread does
            threading.Thread(target=_close, args=(idle,), name="reverie-close").start()

    @staticmethod
    def take() -> asyncio.Runner:
        """This worker thread's loop, for one pipeline verb."""
        owner: _Threads | None = getattr(_local, "owner", None)
        runner: asyncio.Runner | None = getattr(_local, "runner", None)
        if owner is not None:
            with _lock:
                if runner in owner.idle:
                    owner.idle.discard(runner)
                else:  # never made, or closed by ``retire``
                    runner = None
        if runner is None:
            # no loop_factory: the Runner would make its loop this thread's current one
            runner = _local.runner = asyncio.Runner(loop_factory=asyncio.new_event_loop)
        return runner

    @staticmethod
    def put(runner: asyncio.Runner) -> None:
        """The verb has ended: keep the loop for the next one, or close it if the threads retired.
        A program's own executor (``use_executor``) keeps it for its thread's life."""
        owner: _Threads | None = getattr(_local, "owner", None)
        if owner is None:
            return
        with _lock:
            keep = not owner.retired
            if keep:
                owner.idle.add(runner)
        if not keep:
            _local.runner = None
            runner.close()


def _close(runners: set[asyncio.Runner]) -> None:
    for runner in runners:
        runner.close()


def _current() -> _Threads:
    """The module's executor, made on first use (the caller holds ``_lock``)."""
    global _threads
    if _threads is None:
        _threads = _Threads()
    return _threads


def executor() -> Executor:
    """The shared executor, created on first use."""
    with _lock:
        return _given if _given is not None else _current().pool


def use_executor(replacement: Executor | None) -> Executor | None:
    """Run the async verbs on ``replacement`` (a program's own bounded pool), or on a new shared one
    (None). Returns the executor used before; the module's own is shut down (its queued calls still
    run)."""
    global _threads, _given
    with _lock:
        threads, previous = _threads, _given
        _threads, _given = None, replacement
    if previous is None and threads is not None:
        previous = threads.pool
    if threads is not None:
        threads.retire()
    return previous


def _submit(fn: Callable[..., T], *args: Any, user: object | None = None) -> asyncio.Future[T]:
    """``fn(*args)`` in the executor, ``user`` (a ``Memory``) recorded as one of its users. Sent
    under the lock, so never to an executor that ``release`` shut down meanwhile."""
    loop = asyncio.get_running_loop()
    with _lock:
        if _given is not None:
            return loop.run_in_executor(_given, fn, *args)
        threads = _current()
        if user is not None:
            threads.users.add(user)
        return loop.run_in_executor(threads.pool, fn, *args)


def _after_fork_in_child() -> None:
    global _threads, _given, _lock, _pool
    pool = _pool
    _threads, _given, _lock, _pool = None, None, threading.Lock(), None
    if pool is not None:
        pool.forget()  # the parent's workers: close this copy of their pipes, tell them nothing


os.register_at_fork(after_in_child=_after_fork_in_child)


async def run(fn: Callable[[], T], *, user: object | None = None) -> T:
    """``fn()`` in a worker thread; the caller's loop stays free meanwhile. ``user``: the ``Memory``
    it serves (its ``close`` lets the threads go once no other user is left: ``release``)."""
    return await _submit(fn, user=user)


class _Handle:
    """Where the caller finds the worker's task to cancel it (set by the worker once it runs)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[Any] | None = None
        self.cancelled = False

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            if self.loop is not None and self.task is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self.task.cancel)


async def run_async(
    factory: Callable[[], Coroutine[Any, Any, T]], *, user: object | None = None
) -> T:
    """The coroutine ``factory()`` makes, run to completion on a worker thread's event loop
    (``user``: as for ``run``)."""
    handle = _Handle()

    async def main() -> T:
        with handle.lock:
            handle.loop, handle.task = asyncio.get_running_loop(), asyncio.current_task()
            if handle.cancelled:
                raise asyncio.CancelledError
        return await factory()

    def work() -> T:
        runner = _Threads.take()
        try:
            return runner.run(main())
        finally:
            _Threads.put(runner)

    return await _until_unwound(_submit(work, user=user), handle.cancel)


# -- process mode ----------------------------------------------------------------------------------
async def call(
    memory: Portable, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> Any:
    """``memory.<name>(*args, **kwargs)`` off the loop: in a worker process in process mode when
    ``memory`` can be sent there, else in a worker thread (``run``)."""
    spec = memory._portable() if mode() == "processes" else None
    if spec is None:
        return await run(lambda: getattr(memory, name)(*args, **kwargs), user=memory)
    pool = _processes(memory)
    work = (spec, name, args, dict(kwargs), False)
    return await _submit(pool.call, work, None, user=memory)


async def call_async(
    memory: Portable, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> Any:
    """The coroutine ``memory.<name>(*args, **kwargs)`` off the loop: on a worker process's loop
    in process mode when ``memory`` can be sent there, else on a worker thread's (``run_async``).
    Cancelling the await cancels the coroutine where it runs, and ends once it has unwound."""
    spec = memory._portable() if mode() == "processes" else None
    if spec is None:
        return await run_async(lambda: getattr(memory, name)(*args, **kwargs), user=memory)
    pool = _processes(memory)
    handle = _Remote()
    work = (spec, name, args, dict(kwargs), True)
    return await _until_unwound(_submit(pool.call, work, handle, user=memory), handle.cancel)


async def _until_unwound(future: asyncio.Future[T], cancel: Callable[[], None]) -> T:
    """``future``'s result; a cancellation of the caller calls ``cancel`` (which stops the work
    where it runs) and ends once the work has unwound (a second cancel stops waiting)."""
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        cancel()
        try:
            await future  # until the worker has unwound (a second cancel stops waiting)
        except BaseException:  # noqa: BLE001 - its outcome is the cancellation's, raised below
            pass
        raise


def release(memory: object) -> None:
    """``memory`` was closed: the worker threads it used, and the worker processes, leave now when
    no other open ``Memory`` uses them (the next call starts new ones)."""
    global _threads
    with _lock:
        threads, pool = _threads, _pool
        if threads is None or memory not in threads.users:
            threads = None
        else:
            threads.users.discard(memory)
            if len(threads.users):
                threads = None  # another open Memory still uses them
            else:
                _threads = None
    if threads is not None:
        threads.retire()
    if pool is None:
        return
    with _lock:
        pool.users.discard(memory)
        if len(pool.users):
            return
    _stop_pool(pool)


def _processes(memory: object) -> _Processes:
    global _pool
    with _lock:
        if _pool is None:
            _pool = _Processes()
        _pool.users.add(memory)
        return _pool


def _stop_pool(only: _Processes | None = None) -> None:
    """Shut the worker processes down (``only``: if that pool is still the current one)."""
    global _pool
    with _lock:
        pool = _pool
        if pool is None or (only is not None and pool is not only):
            return
        _pool = None
    pool.shutdown()


atexit.register(_stop_pool)


class _RemoteTraceback(Exception):
    """The worker's traceback, as the ``__cause__`` of the exception it raised."""

    def __init__(self, tb: str) -> None:
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return self.tb


class _Remote:
    """Where a caller's cancellation finds the worker running its pipeline verb."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.worker: _Worker | None = None
        self.ident = 0
        self.cancelled = False

    def sent(self, worker: _Worker, ident: int) -> bool:
        """The request is with ``worker``; True if the caller cancelled meanwhile."""
        with self.lock:
            self.worker, self.ident = worker, ident
            return self.cancelled

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            worker, ident = self.worker, self.ident
        if worker is not None:
            worker.cancel(ident)


#: What a worker runs: ``sys.path`` as this process has it, then the worker's loop.
_WORKER_CODE = (
    "import sys, json; sys.path[:] = json.loads(sys.argv[2]); "
    "from reverie.memory.offload import _serve; _serve(int(sys.argv[1]))"
)


class _Worker:
    """One worker process and this side of its pipe (a socket pair: pickled messages, framed by
    ``multiprocessing.connection``)."""

    def __init__(self) -> None:
        import json
        import socket
        import subprocess
        import sys
        from multiprocessing.connection import Connection

        from ..errors import WorkerError

        if not sys.executable:
            raise WorkerError("no Python interpreter to start a worker process (sys.executable)")
        mine, theirs = socket.socketpair()
        try:
            self.proc: Popen[bytes] = subprocess.Popen(
                [sys.executable, "-c", _WORKER_CODE, str(theirs.fileno()), json.dumps(sys.path)],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=2,  # never this process's stdout (an MCP server's protocol channel)
                start_new_session=True,  # a terminal's Ctrl-C is for this process, not its workers
            )
        except OSError as exc:
            mine.close()
            raise WorkerError(f"could not start a worker process: {exc}") from None
        finally:
            theirs.close()
        self.conn: Connection = Connection(mine.detach())
        self.send_lock = threading.Lock()

    def send(self, data: bytes) -> None:
        with self.send_lock:
            self.conn.send_bytes(data)

    def cancel(self, ident: int) -> None:
        try:
            with self.send_lock:
                self.conn.send_bytes(pickle.dumps(("cancel", ident)))
        except OSError:
            pass  # it died: the waiting thread reports it

    def death(self) -> str:
        """How the process ended, once its pipe closed."""
        import signal
        import subprocess

        self.close()
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:  # its pipe broke but it lives on: end it
            self.proc.kill()
            code = self.proc.wait()
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def stop(self, wait: float = 5.0) -> None:
        """Ask it to leave (it closes its workspaces), then make sure it has."""
        import subprocess

        try:
            with self.send_lock:
                self.conn.send_bytes(pickle.dumps(("exit",)))
        except OSError:
            pass
        self.close()
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        """Close this side of the pipe, never while a cancel is being sent (its descriptor could be
        reused by then)."""
        with self.send_lock:
            self.conn.close()

    def forget(self) -> None:
        self.conn.close()


class _Processes:
    """The worker processes: started on demand, at most ``size`` at once, each serving
    one call at a time, kept idle for the next."""

    def __init__(self) -> None:
        import weakref

        self.lock = threading.Lock()
        self.idle: list[_Worker] = []
        self.busy: set[_Worker] = set()
        self.size = _workers or min(MAX_WORKERS, os.cpu_count() or 1)
        self.slots = threading.BoundedSemaphore(self.size)
        self.closed = False
        self.users: weakref.WeakSet[object] = weakref.WeakSet()  # the Memory objects served
        self.ids = itertools.count(1)

    def call(
        self, work: tuple[bytes, str, tuple[Any, ...], dict[str, Any], bool], handle: _Remote | None
    ) -> Any:
        """Run ``work`` (spec, verb, args, kwargs, coroutine?) in a worker: in an executor
        thread."""
        from ..errors import WorkerError

        spec, name, args, kwargs, coro = work
        ident = next(self.ids)
        try:
            data = pickle.dumps(("call", ident, spec, name, args, kwargs, coro), protocol=5)
        except Exception as exc:  # noqa: BLE001 - any pickling failure is the same refusal
            raise WorkerError(
                f"Memory.{name}'s arguments cannot be sent to a worker process: {exc}"
            ) from None
        if handle is not None and handle.cancelled:
            raise asyncio.CancelledError
        with self.slots:
            worker = self._take()
            healthy = False
            try:
                worker.send(data)
                if handle is not None and handle.sent(worker, ident):
                    worker.cancel(ident)  # cancelled while it was being sent
                reply = worker.conn.recv_bytes()  # the GIL is released while it waits
                healthy = True
            except (EOFError, OSError):
                raise WorkerError(
                    f"the worker process running Memory.{name} died ({worker.death()}); "
                    "a write it was making is whole or not made, and the next call starts a "
                    "new worker"
                ) from None
            finally:
                self._give(worker, healthy)
        return _outcome(name, reply)

    def _take(self) -> _Worker:
        with self.lock:
            if self.idle:
                worker = self.idle.pop()
                self.busy.add(worker)
                return worker
        worker = _Worker()  # outside the lock: an interpreter starts
        with self.lock:
            self.busy.add(worker)
        return worker

    def _give(self, worker: _Worker, healthy: bool) -> None:
        with self.lock:
            self.busy.discard(worker)
            if healthy and not self.closed:
                self.idle.append(worker)
                return
        if healthy:
            worker.stop()

    def shutdown(self) -> None:
        """Stop the idle workers now; the busy ones stop when their call ends."""
        with self.lock:
            self.closed = True
            idle, self.idle = self.idle, []
        for worker in idle:
            worker.stop()

    def forget(self) -> None:
        """In a forked child: close this copy of the parent's pipes, nothing else."""
        for worker in [*self.idle, *self.busy]:
            worker.forget()


def _outcome(name: str, reply: bytes) -> Any:
    """The result a worker sent back, or its exception raised here."""
    from ..errors import WorkerError

    try:
        message = pickle.loads(reply)
    except Exception as exc:  # noqa: BLE001 - a reply this process cannot read
        raise WorkerError(
            f"Memory.{name}'s reply from a worker process is unreadable: {exc}"
        ) from None
    kind = message[0]
    if kind == "ok":
        return message[2]
    if kind == "cancelled":
        raise asyncio.CancelledError
    if kind == "error":
        error: BaseException = message[2]
        error.__cause__ = _RemoteTraceback(message[3])
        raise error
    _, _, what, remote = message  # "failed": an exception or result that did not pickle
    raise WorkerError(f"Memory.{name} in a worker process: {what}") from _RemoteTraceback(remote)


#: Most workspaces a worker keeps open at once (a server with a scope per user): the least
#: recently used is closed first.
_OPEN_PER_WORKER = 16


def _serve(fd: int) -> None:
    """A worker process's life: answer calls until told to leave or the pipe closes."""
    from collections import OrderedDict
    from multiprocessing.connection import Connection

    conn = Connection(fd)
    memories: OrderedDict[bytes, Any] = OrderedDict()
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                message = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                return  # the caller's process is gone (or closed the pool)
            if message[0] == "exit":
                return
            if message[0] != "call":
                continue  # a cancel that arrived after its call had ended
            reply = _answer(conn, loop, memories, message)
            try:
                conn.send_bytes(reply)
            except OSError:
                return
    finally:
        for memory in memories.values():
            try:
                memory.close()
            except Exception:  # noqa: BLE001, S110 - leaving: what fails to close is closed by exit
                pass
        loop.close()
        conn.close()


def _answer(
    conn: Connection, loop: asyncio.AbstractEventLoop, memories: Any, message: tuple[Any, ...]
) -> bytes:
    import traceback

    _, ident, spec, name, args, kwargs, coro = message
    try:
        memory = memories.get(spec)
        if memory is None:
            memory = memories[spec] = pickle.loads(spec)()
            while len(memories) > _OPEN_PER_WORKER:
                memories.popitem(last=False)[1].close()
        memories.move_to_end(spec)
        verb = getattr(memory, name)
        if coro:
            result = _run_cancellable(conn, loop, ident, verb(*args, **kwargs))
        else:
            result = verb(*args, **kwargs)
    except asyncio.CancelledError:
        return pickle.dumps(("cancelled", ident))
    except Exception as exc:  # noqa: BLE001 - every error goes back to the caller, typed
        tb = traceback.format_exc()
        try:
            data = pickle.dumps(("error", ident, exc, tb), protocol=5)
            pickle.loads(data)  # it must also come back whole
            return data
        except Exception:  # noqa: BLE001 - its text, then
            what = f"{type(exc).__name__}: {exc}"
            return pickle.dumps(("failed", ident, what, tb))
    try:
        return pickle.dumps(("ok", ident, result), protocol=5)
    except Exception as exc:  # noqa: BLE001 - a result that does not pickle is a bug, said so
        what = f"its result ({type(result).__name__}) cannot be sent back: {exc}"
        return pickle.dumps(("failed", ident, what, traceback.format_exc()))


def _run_cancellable(
    conn: Connection, loop: asyncio.AbstractEventLoop, ident: int, coro: Coroutine[Any, Any, T]
) -> T:
    """Run ``coro`` on the worker's loop; a cancel for ``ident`` on the pipe cancels it (and so
    does the pipe closing: the caller is gone)."""

    async def main() -> T:
        task = asyncio.ensure_future(coro)
        fd = conn.fileno()

        def readable() -> None:
            try:
                message = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                loop.remove_reader(fd)
                task.cancel()
                return
            if message[0] == "cancel" and message[1] == ident:
                task.cancel()

        loop.add_reader(fd, readable)
        try:
            return await task
        finally:
            loop.remove_reader(fd)

    return loop.run_until_complete(main())
