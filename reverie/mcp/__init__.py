"""``reverie mcp``: one workspace's memory served over the Model Context Protocol.

Built on the official ``mcp`` SDK (its ``MCPServer``): the tools, resources and prompt are plain
typed functions whose JSON schemas come from their signatures. Every tool is a call on
``reverie.Memory``, the verbs the CLI and the chat commands call, so redaction, Dream's gate, the
SOUL.md approval step, locks and git history hold exactly as they do there. The SDK is imported only
by this package, and this package only by ``reverie mcp``.
"""

from __future__ import annotations

from .server import ResourceWatcher, build_server, serve_http, serve_stdio

__all__ = ["build_server", "serve_stdio", "serve_http", "ResourceWatcher"]
