"""Lazy package exports (PEP 562), so importing a package for its light names never pays for its
heavy ones; and what keeps importing late safe in a forked child
(``_forget_unfinished_imports``)."""

from __future__ import annotations

import _thread
import importlib
import os
import sys

TYPE_CHECKING = False  # not typing's: the console entry point imports this first (reverie._start)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, table: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``package.<table[name]>`` on first access and caches
    the value."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    return __getattr__


def _forget_unfinished_imports() -> None:
    """In a forked child: forget the imports other threads of the parent had under way at the fork.

    Reverie imports late (the exports above, and heavy modules inside the functions that need
    them: tenacity in a lock's poll, the model client in Dream), often from the threads a program
    shares one ``Memory`` between. Such a thread does not exist in the child, so its import never
    ends there, and the child's next import of that module waited forever for its module lock. The
    lock is dropped and the half-run module (a package with its submodules) taken out of
    ``sys.modules``: the child imports it afresh. (importlib's own table, ``_module_locks``: the
    same shape from 3.11 to 3.13; where it is not, nothing is done.)"""
    from importlib import _bootstrap

    locks = getattr(_bootstrap, "_module_locks", None)
    if not isinstance(locks, dict):
        return
    me = _thread.get_ident()
    for name, ref in list(locks.items()):
        lock = ref() if callable(ref) else None
        owner = getattr(lock, "owner", None)
        if owner is None or owner == me:
            continue  # free, or this thread's own import (a fork made while importing)
        del locks[name]
        module = sys.modules.get(name)
        if getattr(getattr(module, "__spec__", None), "_initializing", False):
            # with its submodules: those the parent's thread had imported are attributes of the
            # half-run package only, so a fresh package would lack them
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                del sys.modules[loaded]


os.register_at_fork(after_in_child=_forget_unfinished_imports)
