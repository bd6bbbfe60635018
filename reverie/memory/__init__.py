"""The front door: ``reverie.open(path) -> Memory``, and what ``Memory`` stands on.

Lowest first: ``runtime`` (one workspace's services, built on first use), ``offload`` (the one
executor the async verbs run in), ``status``, ``verbs`` (the mem0 and whole-file verbs and the
argument checks every verb shares), ``core`` (``Memory``, ``open``, ``wrap``), then what takes a
``Memory``: ``session_jobs`` (``/new`` and idle archiving as jobs) and ``importers``. The actions on
the store and the repo that the verbs delegate to are ``reverie.operations``, one floor down.
"""

from __future__ import annotations

from .core import *  # noqa: F403 (its __all__: the names listed once, in core.py)
from .core import __all__ as __all__
