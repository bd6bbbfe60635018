"""Dream's schedulers: one policy (``policy``: when a workspace is due, what a finished run means
for the next, the back-off, admission under ``maxInflight`` and the token budget) and the drivers
that keep its state where they run: ``workspace`` (``reverie serve`` and ``reverie chat``: one
workspace, APScheduler), ``root`` (``reverie serve --root``: every scope under a root, one
process), and the fleet's dispatcher and jobs (``reverie.fleet``: Redis and Celery, a front end of
its own above this layer, since its workers are a way in). ``backlog`` is the shape in which
``serve --root`` and ``reverie fleet status`` show what they are doing.

Every name loads lazily, so reading the policy imports neither APScheduler nor Dream's runner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .backlog import Backlog
    from .root import RootScheduler, serve_root
    from .workspace import DreamScheduler, serve

__all__ = ["DreamScheduler", "serve", "RootScheduler", "serve_root", "Backlog"]

_LAZY = {
    "DreamScheduler": "workspace",
    "serve": "workspace",
    "RootScheduler": "root",
    "serve_root": "root",
    "Backlog": "backlog",
}

__getattr__ = lazy_exports(__name__, _LAZY, globals())
