"""The open scopes of a server over a root (``reverie ui --root``, ``reverie mcp --http --root``):
kept by name, least recently used first, at most ``size`` of them while idle.

An entry in use (a request in flight, a job running) is never closed under its user: the cache may
hold more than ``size`` while every entry is busy, and the excess idle ones close as soon as
`trim` finds them. ``cachetools``' caches evict whatever is least recently used, busy or not, so
this small one is Reverie's own."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

__all__ = ["ScopeCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ScopeCache(Generic[K, V]):
    """Open entries by key: ``idle(entry)`` says whether one may close, ``close(entry)`` closes
    it."""

    def __init__(self, size: int, *, idle: Callable[[V], bool], close: Callable[[V], None]) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, not {size}")
        self.size = size
        self._idle = idle
        self._close = close
        self._open: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._open)

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first."""
        return iter(list(self._open))

    def items(self) -> list[tuple[K, V]]:
        return list(self._open.items())

    def get(self, key: K) -> V | None:
        """The entry of ``key``, now the most recently used, or None."""
        entry = self._open.get(key)
        if entry is not None:
            self._open.move_to_end(key)
        return entry

    def put(self, key: K, entry: V) -> V:
        """Keep ``entry`` as the most recently used (the caller trims when it is ready to)."""
        self._open[key] = entry
        self._open.move_to_end(key)
        return entry

    def pop(self, key: K) -> V:
        """Take ``key``'s entry out without closing it (the caller decides when)."""
        return self._open.pop(key)

    def trim(self) -> None:
        """Close the least recently used idle entries until at most ``size`` are open."""
        excess = len(self._open) - self.size
        for key, entry in list(self._open.items()):
            if excess <= 0:
                return
            if self._idle(entry):
                del self._open[key]
                self._close(entry)
                excess -= 1

    def drain(self) -> list[V]:
        """Take every entry out (the server is stopping); the caller closes them."""
        entries = list(self._open.values())
        self._open.clear()
        return entries
