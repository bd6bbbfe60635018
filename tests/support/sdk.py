"""An agent framework's names for a test module, imported when its tests run rather than when it is
collected: under pytest-xdist every worker collects every test file, and only one runs a given
file, so a framework imported at a module's top (openai-agents, Google ADK, Pydantic AI, anthropic:
about 10 s of CPU together) was paid by each worker for files it never ran. A module declares the
names (``Event: Any = None``) and an autouse module fixture calls ``load``."""

from __future__ import annotations

import importlib
from typing import Any

import pytest


def load(namespace: dict[str, Any], package: str, reason: str, names: dict[str, str]) -> None:
    """``pytest.importorskip(package)``, then each ``namespace[name]`` set to what ``names`` gives
    it: ``"module"`` or ``"module:attribute"``."""
    pytest.importorskip(package, reason=reason)
    for name, where in names.items():
        module, _, attribute = where.partition(":")
        found: Any = importlib.import_module(module)
        namespace[name] = getattr(found, attribute) if attribute else found
