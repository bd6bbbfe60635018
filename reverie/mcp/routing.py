"""``reverie mcp --http --root DIR``: one HTTP endpoint serving every scope of a root, each request
routed by its bearer token to the one scope the token is bound to (``reverie.storage.access``).

Each scope gets the ordinary single-workspace MCP server (``build_server`` over the scope's
``Memory``), built on its first request. A scope's server stops when it has been idle for
``idle_seconds``, or when more than ``max_scopes`` are open and it is the least recently used of the
idle ones; a scope with a request in flight is never stopped under it (the count may exceed
``max_scopes`` while every open scope is busy). A client of a stopped server reconnects and gets a
new session. A request reaches only the server of its token's scope: a token for one scope never
names a path, a session or a tool call of another (an MCP session id belongs to the scope's own
session manager, so another scope's id is unknown there). A missing, unknown or revoked token gets
401 before any scope is opened.

Each scope server's Starlette app needs its lifespan running (its session manager's task group) for
as long as it serves; anyio requires a task group to be entered and left by one task, so each runs
in a task of its own, started in the router's task group and stopped through an event.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from ..memory import open as open_memory
from ..serving.auth import bearer_token, unauthorized
from ..serving.network import bind
from ..serving.scopecache import ScopeCache
from ..storage.access import TokenFile
from ..storage.scopes import Scope, ScopeRoot

if TYPE_CHECKING:
    from starlette.types import Receive, Send
    from starlette.types import Scope as AsgiScope

__all__ = ["ScopeRouter", "serve_http_root"]

log = logging.getLogger(__name__)


class _Served:
    """One scope's running MCP app, with its requests in flight and the time it was last used."""

    def __init__(self, app: Any, memory: Any, handler: Any = None) -> None:
        self.app = app  # its lifespan runs as long as it serves
        self.handler = handler or app  # what answers its requests (``app`` behind AnswerInvalid)
        self.memory = memory
        self.ready = anyio.Event()
        self.stop = anyio.Event()
        self.done = anyio.Event()
        self.in_flight = 0
        self.last_used = time.monotonic()


class ScopeRouter:
    """The ASGI app: authenticate, find the token's scope, hand the request to that scope's MCP
    app."""

    def __init__(
        self,
        root: ScopeRoot,
        *,
        host: str = "127.0.0.1",
        max_scopes: int = 256,
        idle_seconds: float = 600.0,
    ) -> None:
        self.root = root
        self.tokens = TokenFile(root)
        self.host = host
        self.max_scopes = max_scopes
        self.idle_seconds = idle_seconds
        self._served: ScopeCache[Scope, _Served] = ScopeCache(
            max_scopes, idle=lambda served: served.in_flight == 0, close=_stop
        )
        self._tg: TaskGroup | None = None
        self._guard = anyio.Lock()
        self._closing = anyio.Event()

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        token = bearer_token(scope)
        bound = self.tokens.lookup(token) if token else None
        if bound is None:
            await unauthorized(send, "missing, unknown or revoked bearer token")
            return
        served = await self._app_for(bound)
        try:
            await served.handler(scope, receive, send)
        finally:
            served.in_flight -= 1
            served.last_used = time.monotonic()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._sweep_idle)
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    for served in self._served.drain():
                        _stop(served)
                    self._closing.set()  # the sweeper ends; each scope's task ends through its stop
                    break
        await send({"type": "lifespan.shutdown.complete"})

    async def _app_for(self, scope: Scope) -> _Served:
        """The scope's running app, started if need be, counted as in use until the caller's
        request ends (the caller decrements ``in_flight``)."""
        async with self._guard:
            served = self._served.get(scope)
            if served is None:
                served = self._served.put(scope, self._start(scope))
            served.in_flight += 1
            served.last_used = time.monotonic()
            self._served.trim()
        await served.ready.wait()
        return served

    def evict_idle(self, now: float | None = None) -> int:
        """Stop every scope idle for ``idle_seconds`` with no request in flight; how many
        stopped."""
        now = time.monotonic() if now is None else now
        idle = [
            key
            for key, served in self._served.items()
            if served.in_flight == 0 and now - served.last_used >= self.idle_seconds
        ]
        for key in idle:
            _stop(self._served.pop(key))
        return len(idle)

    async def _sweep_idle(self) -> None:
        while True:
            with anyio.move_on_after(max(1.0, min(60.0, self.idle_seconds / 4))):
                await self._closing.wait()
            if self._closing.is_set():
                return
            async with self._guard:
                self.evict_idle()

    def _start(self, scope: Scope) -> _Served:
        from .server import AnswerInvalid, build_server

        if self._tg is None:
            raise RuntimeError("the router serves only while its ASGI lifespan runs")
        memory = open_memory(root=self.root.root, user=scope.user, agent=scope.agent)
        server = build_server(memory)
        app = server.streamable_http_app(host=self.host)
        served = _Served(app, memory, AnswerInvalid(app))
        self._tg.start_soon(self._run, served)
        return served

    @staticmethod
    async def _run(served: _Served) -> None:
        try:
            async with served.app.router.lifespan_context(served.app):
                served.ready.set()
                await served.stop.wait()
        finally:
            served.ready.set()
            served.memory.close()
            served.done.set()


def _stop(served: _Served) -> None:
    served.stop.set()  # its clients reconnect and get a new session on a new server


def serve_http_root(
    root: ScopeRoot,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve every scope of ``root`` over streamable HTTP at ``http://host:port/mcp``; every request
    needs a bearer token issued for one scope (``reverie mcp token issue``), on any address,
    loopback included."""
    import uvicorn

    # before announcing: a busy port is one line naming it, and nothing is served
    sock = bind(host, port)
    try:
        router = ScopeRouter(root, host=host)
        config = uvicorn.Config(router, host=host, port=port, log_level="warning", lifespan="on")
        if ready is not None:
            ready(f"http://{host}:{port}/mcp")
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
