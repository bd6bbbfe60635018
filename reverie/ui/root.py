"""``reverie --root DIR ui``: every scope of a root in one app, behind one sign-in.

- ``/``: the user picker. Its form (a user id, an optional agent id, checked by ``validate_id``)
  opens that scope; a bad id is a one-line error on the page, and a scope never written is said to
  have no memory yet — nothing is created: the picker only reads. Below the form, the first
  ``LISTED`` scopes found under the root (``ScopeRoot.scopes`` read lazily, so a page load never
  walks every user).
- ``/s/<name>/…``: one scope's screens — the single-workspace ``UI`` over that scope's ``Memory``,
  with ``/s/<name>`` as its base. ``<name>`` is the scope's digest name (``Scope.name``), never an
  id: it is checked against the digest format before any file is read, then must name a scope
  written under this root (its workspace's ``scope.json`` naming a scope of that name); anything
  else is 404.
- One ``Guard`` in front of all of it: one token, one session cookie and one CSRF token per session,
  for the picker and every scope alike.

Open scopes are kept by ``ScopeApps``, most recently used last: past ``size`` of them, the least
recently used *idle* one is closed (``Memory.close``). A scope with a request in flight (a search
uses its ``Memory``'s own index handle) or a Dream run started from its page is never closed under
it; the cache may then hold more than ``size`` for a while, and is trimmed as soon as one goes idle.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route

from ..errors import InvalidScopeError, UnsafePathError
from ..memory import open as open_memory
from ..serving.scopecache import ScopeCache
from ..storage.scopes import Scope, ScopeRoot, read_scope
from .app import UI, scope_app
from .pages import Pages, static_files
from .security import Gate, Guard, SignIn, posted_form, typed_back

if TYPE_CHECKING:
    from starlette.types import Receive, Send
    from starlette.types import Scope as AsgiScope

__all__ = ["build_root_app", "ScopeApps", "LISTED", "CACHED", "PICKER"]

#: Scopes listed on the picker page (the first found; the form opens any other).
LISTED = 50
#: Scopes kept open at once by default.
CACHED = 16
#: The picker's address.
PICKER = "/"
#: A scope's name: the user digest, then ``.`` and the agent digest for an agent's scope
#: (``Scope.name``).
NAME = re.compile(r"[0-9a-f]{32}(?:\.[0-9a-f]{32})?")
_UNKNOWN = "no scope of this root has that name: open it from the list of users"
_UNOPENED = "this user's memory cannot be opened"


@dataclass(eq=False)
class _Open:
    """One open scope: its ``UI`` (and so its ``Memory``) and app, and how many requests are using
    it."""

    scope: Scope
    ui: UI
    app: Starlette
    busy: int = 0
    dropped: bool = False  # taken out of the cache while busy: closed when its last request ends

    @property
    def idle(self) -> bool:
        return self.busy == 0 and not self.ui.job.state.running


class ScopeApps:
    """The ASGI app mounted at ``/s/{name}``: finds (or opens) the scope ``name`` names and hands it
    the request; keeps at most ``size`` idle scopes open (see the module docstring)."""

    def __init__(self, root: ScopeRoot, *, size: int = CACHED) -> None:
        self.root = root
        self.size = size
        # the server's prefix (``build_root_app`` sets it): a scope's base follows it
        self.prefix = ""
        self._open: ScopeCache[str, _Open] = ScopeCache(
            size, idle=lambda entry: entry.idle, close=lambda entry: entry.ui.memory.close()
        )

    @property
    def names(self) -> list[str]:
        """The names of the scopes open now, least recently used first."""
        return list(self._open)

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        try:
            entry = await self._enter(scope["path_params"]["name"])
        except HTTPException:
            # a form posted to a scope gone since its page loaded (forgotten, moved): nothing is
            # done, and the error page shows back what was typed in it
            if scope["method"] == "POST":
                form = await posted_form(Request(scope, receive))
                scope.setdefault("state", {})["ui_typed"] = typed_back(form)
            raise
        try:
            await entry.app(scope, receive, send)
        finally:
            self._leave(entry)

    def resolve(self, name: str) -> Scope | None:
        """The scope ``name`` names under this root, or None. A name not in the digest format is
        refused before any file is read; otherwise the workspace at its place must say
        (``scope.json``) it is that scope."""
        if not NAME.fullmatch(name):
            return None
        ws = self.root.workspace_of_due(name)
        found = read_scope(ws.root) if ws is not None else None
        return found if found is not None and found.name == name else None

    def open(self, scope: Scope) -> None:
        """Open ``scope`` (written, perhaps before its ``scope.json`` was) as the most recently
        used: the picker's way in, so the page it redirects to finds the scope open."""
        self._get(scope)
        self._open.trim()

    def close(self) -> None:
        """Close every open scope's ``Memory`` (the server is stopping)."""
        for entry in self._open.drain():
            entry.ui.memory.close()

    # -- the cache ---------------------------------------------------------------------------------
    async def _enter(self, name: str) -> _Open:
        if not NAME.fullmatch(name):
            raise HTTPException(404, _UNKNOWN)
        entry = self._open.get(name)
        if entry is not None and not self._written(entry.scope):
            self._drop(name)  # forgotten (``forget-user``) or moved since it was opened
            raise HTTPException(404, _UNKNOWN)
        if entry is None:
            try:
                scope = await asyncio.to_thread(self.resolve, name)
            except UnsafePathError as exc:  # a link in its place: never followed
                raise HTTPException(404, f"{_UNOPENED}: {exc}") from None
            if scope is None:
                raise HTTPException(404, _UNKNOWN)
            entry = self._get(scope)  # (another request may have opened it meanwhile)
        entry.busy += 1  # before trimming: the scope being entered is never the one closed
        self._open.trim()
        return entry

    def _written(self, scope: Scope) -> bool:
        """Whether ``scope`` is still written under the root (``ScopeRoot.exists``); a link put
        in its place since is said as such (and the scope closed), not an internal error."""
        try:
            return self.root.exists(scope)
        except UnsafePathError as exc:
            self._drop(scope.name)
            raise HTTPException(404, f"{_UNOPENED}: {exc}") from None

    def _leave(self, entry: _Open) -> None:
        entry.busy -= 1
        if entry.dropped and entry.busy == 0:
            entry.ui.memory.close()
        self._open.trim()

    def _get(self, scope: Scope) -> _Open:
        entry = self._open.get(scope.name)
        if entry is None:
            memory = open_memory(root=self.root.root, user=scope.user, agent=scope.agent)
            ui = UI(memory, base=f"{self.prefix}/s/{scope.name}", picker=self.prefix + PICKER)
            entry = self._open.put(scope.name, _Open(scope, ui, scope_app(ui)))
        return entry

    def _drop(self, name: str) -> None:
        entry = self._open.pop(name)
        entry.dropped = True
        if entry.busy == 0:
            entry.ui.memory.close()


class Picker(Pages):
    """The picker's handlers: the page, the form's post, and the root's error page."""

    def __init__(self, root: ScopeRoot, scopes: ScopeApps) -> None:
        self.root = root
        self.scopes = scopes

    def frame(self) -> dict[str, Any]:
        return {
            "workspace": str(self.root.root),
            "base": self.scopes.prefix,
            "picker": self.scopes.prefix + PICKER,
            "scope": None,
            "screens": False,
        }

    async def page(
        self,
        request: Request,
        *,
        user: str = "",
        agent: str = "",
        problem: str | None = None,
        status_code: int = 200,
    ) -> Response:
        found = await asyncio.to_thread(self._listing)
        listed = sorted(found[:LISTED], key=lambda s: (s.user, s.agent or ""))
        return await self.render(
            request,
            "picker.html",
            status_code=status_code,
            user=user,
            agent=agent,
            problem=problem,
            listed=listed,
            partial=len(found) > LISTED,
        )

    def _listing(self) -> list[Scope]:
        """The first ``LISTED`` + 1 scopes found (one more than shown: whether the list is
        partial)."""
        return [scope for scope, _ws in islice(self.root.scopes(), LISTED + 1)]

    async def pick(self, request: Request) -> Response:
        form = await self.form(request)
        user, agent = form.get("user", ""), form.get("agent", "")
        try:
            scope = Scope(user, agent or None)  # an empty agent field: the user's own scope
        except InvalidScopeError as exc:
            return await self.page(
                request, user=user, agent=agent, problem=str(exc), status_code=400
            )
        try:
            written = await asyncio.to_thread(self.root.exists, scope)
        except UnsafePathError as exc:  # a link in its place: never followed
            problem = f"{_UNOPENED}: {exc}"
            return await self.page(
                request, user=user, agent=agent, problem=problem, status_code=409
            )
        if not written:
            problem = (
                f"No memory for this user yet: {scope} was never written (nothing was created)."
            )
            return await self.page(
                request, user=user, agent=agent, problem=problem, status_code=404
            )
        self.scopes.open(scope)
        return RedirectResponse(f"{self.scopes.prefix}/s/{scope.name}/memory", status_code=303)


def build_root_app(
    root: ScopeRoot,
    *,
    signin: SignIn,
    allowed_hosts: frozenset[str] | None = None,
    scopes: ScopeApps | None = None,
    port: int | None = None,
    server_id: str | None = None,
) -> Guard:
    """The app for every scope of ``root`` under the server's own id: the picker at ``/``, each
    scope's screens under ``/s/<name>``, the static files once, all behind one ``Guard``.
    ``scopes``: the cache of open scopes (default: a new one of ``CACHED``); close it when the
    server stops. The other arguments as ``reverie.ui.app.build_app``'s."""
    gate = Gate(signin, server_id=server_id, port=port)
    scopes = scopes if scopes is not None else ScopeApps(root)
    scopes.prefix = gate.prefix
    picker = Picker(root, scopes)
    routes = [
        Route(PICKER, picker.page),
        Route(PICKER, picker.pick, methods=["POST"]),
        Route("/signout", picker.signout, methods=["POST"]),
        Mount("/s/{name}", app=scopes),
        Mount("/static", static_files(), name="static"),
    ]
    app = Starlette(
        routes=routes, exception_handlers={HTTPException: picker.error, Exception: picker.error}
    )
    return Guard(app, gate=gate, allowed_hosts=allowed_hosts)
