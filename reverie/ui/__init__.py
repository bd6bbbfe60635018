"""``reverie ui``: a local web app to see, review and undo what the agent remembers (see docs/ui.md).

``build_app`` makes the ASGI app over one ``Memory``; ``serve`` binds it and runs it with uvicorn. Both need the
``ui`` extra (Starlette, uvicorn, Jinja2); importing this package does not import them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import build_app
    from .server import serve

__all__ = ["build_app", "serve"]


def __getattr__(name: str) -> Any:
    if name == "build_app":
        from .app import build_app

        return build_app
    if name == "serve":
        from .server import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
