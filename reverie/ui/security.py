"""Who may use the UI, and what a page may do once loaded.

- **A token, then a cookie** (as Jupyter does): the command prints ``http://host:port/?token=…``;
  the first request carrying the right token (compared in constant time) gets a session — an
  ``HttpOnly``, ``SameSite=Strict`` cookie holding a random id — and a redirect to the same page
  without the token, so the token leaves the address bar and the browser history. Every other
  request needs the cookie: without it, 403.
- **CSRF**: each session has its own random CSRF token, put in every form; an action (any method but
  GET/HEAD) without the session's token, or from another origin (``Origin``, when the browser sends
  it), is refused with 403 before it reaches the handler's library call. No action is reachable by
  GET.
- **Host**: served on a loopback address, a request naming any other host is refused (DNS
  rebinding).
- **Headers on every response**: a Content-Security-Policy allowing only this server's own script
  and styles (no inline script: a memory line reading ``<script>`` is escaped by the templates, and
  would not run even if it were not), no framing, no referrer to other sites, no caching, no MIME
  sniffing.

Sessions live in this process only: restarting ``reverie ui`` logs everyone out (the new token is
printed).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "COOKIE",
    "UISession",
    "Sessions",
    "Guard",
    "new_token",
    "check_csrf",
    "CSRF_FIELD",
    "HEADERS",
]

COOKIE = "reverie_ui"
CSRF_FIELD = "csrf"
#: Paths served without a session: the style sheet and the script are the same for everyone and hold
#: nothing.
_PUBLIC_PREFIX = "/static/"

HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",  # "no-referrer" would make browsers send `Origin: null` with a form post
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
}


def new_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass
class UISession:
    """One browser's session: its CSRF token and the messages to show on its next page."""

    csrf: str = field(default_factory=new_token)
    flashes: list[tuple[str, str]] = field(default_factory=list)  # (level: ok|error, text)

    def flash(self, level: str, text: str) -> None:
        self.flashes.append((level, text))

    def take_flashes(self) -> list[tuple[str, str]]:
        out, self.flashes = self.flashes, []
        return out


class Sessions:
    """The sessions of this server, by cookie value (random ids; nothing is derived from the token)."""

    def __init__(self) -> None:
        self._by_id: dict[str, UISession] = {}

    def new(self) -> tuple[str, UISession]:
        sid = new_token()
        session = self._by_id[sid] = UISession()
        return sid, session

    def get(self, sid: str | None) -> UISession | None:
        return self._by_id.get(sid) if sid else None


def check_csrf(session: UISession, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), session.csrf.encode())


_REFUSED = """<!doctype html><meta charset="utf-8"><title>Reverie: not signed in</title>
<h1>Not signed in</h1><p>{text}</p>"""


def _refuse(status: int, text: str) -> Response:
    return HTMLResponse(_REFUSED.format(text=text), status_code=status)


class Guard:
    """ASGI middleware enforcing the rules in the module docstring, and adding the headers to every response."""

    def __init__(
        self, app: ASGIApp, *, token: str, sessions: Sessions, allowed_hosts: frozenset[str] | None
    ) -> None:
        self.app = app
        self.token = token.encode()
        self.sessions = sessions
        self.allowed_hosts = (
            allowed_hosts  # None: any (a non-loopback bind, where the token file is the gate)
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in HEADERS.items():
                    headers.setdefault(key, value)
            await send(message)

        response = self._check(scope)
        if response is not None:
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _check(self, scope: Scope) -> Response | None:
        """None when the request may go on (its session put in ``scope["state"]``), else the refusal."""
        request = Request(scope)
        host = request.headers.get("host", "")
        if self.allowed_hosts is not None and host.lower() not in self.allowed_hosts:
            return _refuse(400, "This server answers only to its own loopback address.")
        if request.url.path.startswith(_PUBLIC_PREFIX) and request.method in ("GET", "HEAD"):
            return None
        session = self.sessions.get(request.cookies.get(COOKIE))
        given = request.query_params.get("token")
        if given is not None and request.method == "GET":
            if not hmac.compare_digest(given.encode(), self.token):
                return _refuse(
                    403, "That token is not this server's. Open the address `reverie ui` printed."
                )
            if session is None:
                sid, session = self.sessions.new()
            else:
                sid = request.cookies[COOKIE]
            redirect = RedirectResponse(_without_token(request), status_code=303)
            redirect.set_cookie(
                COOKIE,
                sid,
                httponly=True,
                samesite="strict",
                path="/",
                secure=request.url.scheme == "https",
            )
            return redirect
        if session is None:
            return _refuse(
                403, "Open the address `reverie ui` printed (it carries this server's token)."
            )
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            if origin is not None and origin != f"{request.url.scheme}://{host}":
                return _refuse(403, "An action from another site was refused.")
        scope.setdefault("state", {})["ui_session"] = session
        return None


def _without_token(request: Request) -> str:
    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
    return request.url.path + (f"?{query}" if query else "")
