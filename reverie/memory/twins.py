"""A verb and its twin: each verb's ``a``-twin written once (``twin`` makes it from the verb,
``pipeline`` makes a pipeline verb and its twin from their one coroutine, ``twin_docs`` gives every
twin its verb's docstring, and a verb without one its twin's); and the event-loop plumbing of the
pipeline verbs (``run_sync``, ``on_this_loop``, ``whole``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from ..errors import CommandError

__all__ = ["twin", "pipeline", "twin_docs", "run_sync", "on_this_loop", "whole"]

T = TypeVar("T")
P = ParamSpec("P")
V = TypeVar("V", bound="_Verbs")
W = TypeVar("W", bound="_Pipeline")


class _Verbs(Protocol):
    """What a twin needs of a ``Memory``: its ways to run work off the caller's loop."""

    async def _offload(self, verb: Callable[[Any], T]) -> T: ...

    async def _call(
        self, verb: Callable[Concatenate[Any, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T: ...


class _Pipeline(Protocol):
    """What a pipeline verb's twin needs of a ``Memory``: its two ways to run a coroutine off the
    caller's loop."""

    async def _offload_async(self, work: Callable[[], Coroutine[Any, Any, T]]) -> T: ...

    async def _call_async(
        self,
        verb: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T: ...


def twin(
    verb: Callable[Concatenate[V, P], T], *, here: bool = False
) -> Callable[Concatenate[V, P], Coroutine[Any, Any, T]]:
    """``verb``'s ``a``-twin, written once for every verb: the same call, awaited, its work off the
    caller's event loop in ``reverie.memory.offload``'s executor. Sent by name, so a subclass's
    override is the one run: in a worker thread, or in process mode a worker process
    (``Memory._call``); ``here``: always in this process's worker thread. Its docstring is the
    verb's (``twin_docs``), and ``__wrapped__`` hands ``inspect.signature`` (pdoc, ``help``) the
    verb's parameters; type checkers read them from this signature."""
    name = verb.__name__

    async def call(self: V, /, *args: P.args, **kwargs: P.kwargs) -> T:
        if here:
            return await self._offload(lambda m: getattr(m, name)(*args, **kwargs))
        return await self._call(verb, *args, **kwargs)

    call.__name__ = "a" + name
    call.__qualname__ = f"{verb.__qualname__.rpartition('.')[0]}.a{name}".lstrip(".")
    call.__module__ = verb.__module__
    call.__wrapped__ = verb  # type: ignore[attr-defined]
    return call


def pipeline(
    work: Callable[Concatenate[W, P], Coroutine[Any, Any, T]],
    *,
    here: bool = False,
    callbacks: tuple[str, ...] = (),
) -> tuple[Callable[Concatenate[W, P], T], Callable[Concatenate[W, P], Coroutine[Any, Any, T]]]:
    """A pipeline verb and its ``a``-twin, both made from ``work`` (``_dream``: a coroutine that
    calls Dream, the Consolidator), so its signature is written once: type checkers read the pair's
    parameters from it, ``inspect.signature`` from ``__wrapped__``. The verb runs ``work`` to its
    end here (``run_sync``: refused inside an event loop); the twin runs it off the caller's loop on
    a worker's own loop (``Memory._call_async``: by name, so a subclass's override runs; in process
    mode in a worker process). ``here``: always in this process (``work`` changes an argument in
    place). ``callbacks``: keyword parameters that are callbacks into this process: when one is
    given, the twin runs ``work`` in this process and calls it on the caller's loop
    (``on_this_loop``). The verb takes ``work``'s docstring; ``twin_docs`` gives the twin its own.
    """
    name = work.__name__.lstrip("_")

    def verb(self: W, /, *args: P.args, **kwargs: P.kwargs) -> T:
        method: Callable[P, Coroutine[Any, Any, T]] = getattr(self, work.__name__)
        return run_sync(method(*args, **kwargs), "a" + name)

    async def call(self: W, /, *args: P.args, **kwargs: P.kwargs) -> T:
        given = [key for key in callbacks if kwargs.get(key) is not None]
        if not here and not given:
            return await self._call_async(work, *args, **kwargs)
        for key in given:  # a callback into this process: its thread runs it, on the caller's loop
            kwargs[key] = on_this_loop(cast("Callable[[Any], None]", kwargs[key]))
        method: Callable[P, Coroutine[Any, Any, T]] = getattr(self, work.__name__)
        return await self._offload_async(lambda: method(*args, **kwargs))

    owner = work.__qualname__.rpartition(".")[0]
    for made, called in ((verb, name), (call, "a" + name)):
        made.__name__, made.__qualname__ = called, f"{owner}.{called}".lstrip(".")
        made.__module__ = work.__module__
        made.__wrapped__ = work  # type: ignore[union-attr]
    verb.__doc__ = work.__doc__
    return verb, call


def twin_docs(cls: type[T]) -> type[T]:
    """Give each ``a``-twin without a docstring its verb's (and each verb its twin's): ``help()``
    shows what every verb does, however it is spelled."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = getattr(cls, name)
        if not callable(member) or member.__doc__:
            continue
        other = name[1:] if name.startswith("a") and hasattr(cls, name[1:]) else "a" + name
        twin = getattr(cls, other, None)
        if twin is None or not twin.__doc__:
            continue
        if name.startswith("a") and other == name[1:]:
            member.__doc__ = f"``{other}``, awaited (its work off the event loop). {twin.__doc__}"
        else:
            member.__doc__ = f"``{other}`` for code outside an event loop. {twin.__doc__}"
    return cls


def run_sync(coro: Coroutine[Any, Any, T], twin: str) -> T:
    """Run a pipeline verb's coroutine to completion; inside a running event loop, refuse (the twin
    is there)."""
    import asyncio  # here: `reverie status` and `log` open a Memory and must not pay for asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        # no loop: run it below, outside this handler, so the run's own errors keep their causes
        pass
    else:
        coro.close()
        raise CommandError(f"called from a running event loop: await Memory.{twin}(...) instead")
    return asyncio.run(coro)


def on_this_loop(callback: Callable[[T], None] | None) -> Callable[[T], None] | None:
    """``callback`` as a worker thread may call it: scheduled on the calling event loop, in order
    (before the awaited verb returns), where the caller expects it to run."""
    if callback is None:
        return None
    import asyncio

    loop = asyncio.get_running_loop()

    def forward(value: T) -> None:
        try:
            loop.call_soon_threadsafe(callback, value)
        except RuntimeError:  # the caller's loop has closed (it stopped waiting): nobody to tell
            pass

    return forward


async def whole(work: Awaitable[T]) -> T:
    """``work``'s result, ``work`` carried to its end even when the caller is cancelled meanwhile:
    the cancellation is raised once it has ended (a second one stops waiting). For a step that
    must not be left half-made by a Ctrl-C, such as appending a user's message."""
    import asyncio

    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        try:
            await asyncio.shield(task)  # a second cancellation stops waiting, not the work
        except BaseException:  # noqa: BLE001 - the caller's cancellation is what is raised
            pass
        raise
