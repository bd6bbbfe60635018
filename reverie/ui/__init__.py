"""``reverie ui``: a local web app to see, review and undo what the agent remembers (see
docs/ui.md).

``build_app`` makes the ASGI app over one ``Memory``, ``build_root_app`` the app over every scope of
a root (a user picker, then each scope's screens); ``serve`` and ``serve_root`` bind them and run
them with uvicorn. All need the ``ui`` extra (Starlette, uvicorn, Jinja2); importing this package
does not import them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import build_app
    from .root import build_root_app
    from .server import serve, serve_root

__all__ = ["build_app", "build_root_app", "serve", "serve_root"]


def __getattr__(name: str) -> Any:
    if name == "build_app":
        from .app import build_app

        return build_app
    if name == "build_root_app":
        from .root import build_root_app

        return build_root_app
    if name in ("serve", "serve_root"):
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
