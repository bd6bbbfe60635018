"""The scope router's bookkeeping (reverie.mcp.routing): a scope with a request in flight is never
stopped under it, the least recently used idle scope goes first past ``max_scopes``, and a scope
idle for ``idle_seconds`` is stopped. Requests go through the router's own ASGI entry with a real
bearer token; each scope's MCP app is replaced by one that holds the request until told to end
(the served app itself is tested end to end in test_mcp_scopes.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of reverie mcp) is not installed")

from reverie.mcp import routing  # noqa: E402
from reverie.storage.access import TokenFile  # noqa: E402
from reverie.storage.scopes import Scope, ScopeRoot  # noqa: E402


class _HeldApp:
    """An ASGI app that answers 200 once ``release`` is set, so a test decides how long a
    request stays in flight."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _router(tmp_path: Path, **kw: Any) -> tuple[routing.ScopeRouter, dict[str, str]]:
    root = ScopeRoot(tmp_path / "root")
    router = routing.ScopeRouter(root, **kw)
    tokens = {u: TokenFile(root).issue(Scope(u))[0] for u in ("ann", "ben", "cal")}

    def start(scope: Scope) -> routing._Served:
        served = routing._Served(_HeldApp(), memory=None)
        served.ready.set()
        return served

    router._start = start  # type: ignore[method-assign]
    return router, tokens


async def _request(router: routing.ScopeRouter, token: str) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(b"authorization", f"Bearer {token}".encode())],
    }
    await router(scope, receive, send)
    return sent


def _open(router: routing.ScopeRouter) -> dict[str, routing._Served]:
    return {s.user: served for s, served in router._served.items()}


def test_a_scope_with_a_request_in_flight_is_not_stopped_past_the_limit(tmp_path: Path) -> None:
    router, tokens = _router(tmp_path, max_scopes=1)

    async def go() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_request, router, tokens["ann"])
            await anyio.wait_all_tasks_blocked()
            ann = _open(router)["ann"]
            assert ann.in_flight == 1
            tg.start_soon(_request, router, tokens["ben"])
            await anyio.wait_all_tasks_blocked()
            # two open, both busy: over the limit, and neither stopped under its request
            assert set(_open(router)) == {"ann", "ben"} and not ann.stop.is_set()
            ben = _open(router)["ben"]
            ann.app.release.set()
            await anyio.wait_all_tasks_blocked()
            assert ann.in_flight == 0
            tg.start_soon(_request, router, tokens["cal"])
            await anyio.wait_all_tasks_blocked()
            # ann, idle and least recently used, goes; ben is still busy and stays
            assert ann.stop.is_set() and not ben.stop.is_set()
            assert set(_open(router)) == {"ben", "cal"}
            ben.app.release.set()
            _open(router)["cal"].app.release.set()

    anyio.run(go)


def test_an_idle_scope_is_stopped_after_idle_seconds_and_a_busy_one_is_not(
    tmp_path: Path,
) -> None:
    router, tokens = _router(tmp_path, idle_seconds=30)

    async def go() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_request, router, tokens["ann"])
            tg.start_soon(_request, router, tokens["ben"])
            await anyio.wait_all_tasks_blocked()
            ann, ben = _open(router)["ann"], _open(router)["ben"]
            ann.app.release.set()
            await anyio.wait_all_tasks_blocked()
            assert router.evict_idle(now=ann.last_used + 29) == 0  # not idle long enough
            later = max(ann.last_used, ben.last_used) + 3600
            assert router.evict_idle(now=later) == 1  # ben's request is still in flight
            assert ann.stop.is_set() and not ben.stop.is_set()
            assert set(_open(router)) == {"ben"}
            ben.app.release.set()
        # a request to a stopped scope starts a new server for it
        async with anyio.create_task_group() as tg:
            tg.start_soon(_request, router, tokens["ann"])
            await anyio.wait_all_tasks_blocked()
            again = _open(router)["ann"]
            assert again is not ann and not again.stop.is_set()
            again.app.release.set()

    anyio.run(go)


def test_the_in_flight_count_ends_even_when_the_app_fails(tmp_path: Path) -> None:
    router, tokens = _router(tmp_path)

    class Boom(_HeldApp):
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            raise RuntimeError("the scope's app failed")

    def start(scope: Scope) -> routing._Served:
        served = routing._Served(Boom(), memory=None)
        served.ready.set()
        return served

    router._start = start  # type: ignore[method-assign]

    async def go() -> None:
        with pytest.raises(RuntimeError):
            await _request(router, tokens["ann"])
        assert _open(router)["ann"].in_flight == 0

    anyio.run(go)


def test_an_unknown_token_opens_no_scope(tmp_path: Path) -> None:
    router, _ = _router(tmp_path)

    async def go() -> None:
        sent = await _request(router, "x" * 40)
        assert sent[0]["status"] == 401 and len(router._served) == 0

    anyio.run(go)


def test_the_lifespan_sweeps_idle_scopes_and_shuts_down_promptly(tmp_path: Path) -> None:
    router, tokens = _router(tmp_path, idle_seconds=0.2)  # swept every second (the floor)

    async def go() -> None:
        shutdown = anyio.Event()
        said: list[str] = []

        async def receive() -> dict[str, Any]:
            if not said:
                said.append("startup")
                return {"type": "lifespan.startup"}
            await shutdown.wait()
            return {"type": "lifespan.shutdown"}

        async def send(message: dict[str, Any]) -> None:
            said.append(message["type"])

        async with anyio.create_task_group() as tg:
            tg.start_soon(router, {"type": "lifespan"}, receive, send)
            await anyio.wait_all_tasks_blocked()
            tg.start_soon(_request, router, tokens["ann"])
            await anyio.wait_all_tasks_blocked()
            ann = _open(router)["ann"]
            ann.app.release.set()
            with anyio.fail_after(5):
                await ann.stop.wait()  # stopped by the sweeper, not by the test
            assert _open(router) == {}
            shutdown.set()
            with anyio.fail_after(5):
                while "lifespan.shutdown.complete" not in said:
                    await anyio.sleep(0.01)

    anyio.run(go)
