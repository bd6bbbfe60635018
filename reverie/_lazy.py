"""Lazy package exports (PEP 562), so importing a package for its light names never pays for its
heavy ones."""

from __future__ import annotations

import importlib

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
