"""Who may use the UI, and what a page may do once loaded. docs/ui.md ("Security") states what each
rule protects against; this module is where each is kept.

- **Every page lives under the server's own id** (``/<server id>/…``, a random 128-bit value made at
  start-up; ``Gate.prefix``). The session cookie's ``Path`` is that prefix, so the browser sends it
  to this server only: cookies are kept per host, not per port, and a cookie with ``Path=/`` would
  reach every other server on 127.0.0.1 the browser visits. The id is in no address outside this
  server's own pages (the referrer policy keeps it from other sites).
- **A one-time token, exchanged for a session.** ``SignIn`` holds the tokens that open a session:
  one-time ones (the address ``reverie ui`` prints, the local sign-in file it opens the browser
  with), each dead once used, and at most one standing token (``--token-file``: an operator's
  password, typed into the sign-in form). A token is exchanged (compared in constant time) for a
  session — a random id unrelated to it, in an ``HttpOnly``, ``SameSite=Lax`` cookie named after the
  port (``reverie_ui_<port>``), so two servers on two ports keep two sessions side by side — and a
  redirect to the page without it. The browser is opened on a local file (mode 0600, in a private
  folder, deleted once used) whose form posts the token: no token on any command line, none in any
  address the browser records.
- **Sessions expire**: ``SESSION_IDLE`` after their last request, ``SESSION_MAX`` after sign-in,
  and at sign-out (a posted form). They live in this process only: restarting the server signs
  everyone out.
- **CSRF**: each session has its own random CSRF token, put in every form; an action (any method
  but GET/HEAD) without it, or from another origin (``Origin``, when the browser sends it), is
  refused with 403 before it reaches the handler's library call. No action is reachable by GET.
  (``SameSite=Lax``: a link from another site opens a page signed in; a form posted from another
  site carries no cookie.)
- **Host**: served on a loopback address, a request naming any other host is refused (DNS
  rebinding).
- **Headers on every response**: a Content-Security-Policy allowing only this server's own script
  and styles (no inline script: a memory line reading ``<script>`` is escaped by the templates, and
  would not run even if it were not), no framing, no referrer to other sites, no caching, no MIME
  sniffing.
"""

from __future__ import annotations

import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit

from markupsafe import Markup, escape
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ..serving.auth import tokens_match

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "COOKIE",
    "cookie_name",
    "UISession",
    "Sessions",
    "SignIn",
    "SessionRef",
    "Gate",
    "Guard",
    "new_token",
    "new_server_id",
    "check_csrf",
    "CSRF_FIELD",
    "MAX_FIELD_BYTES",
    "HEADERS",
    "SESSION_IDLE",
    "SESSION_MAX",
    "SIGNIN_PATH",
    "STORAGE_KEY",
    "signed_out_page",
    "typed_back",
    "posted_form",
    "came_from",
    "TYPED_FIELDS",
]

#: The session cookie's name without a port (an app built without one: tests, benchmarks).
COOKIE = "reverie_ui"
CSRF_FIELD = "csrf"
#: A session ends this many seconds after its last request…
SESSION_IDLE = 24 * 3600
#: …and this many after its sign-in, whichever comes first.
SESSION_MAX = 7 * 24 * 3600
#: Sessions kept at once; past it the least recently used one is dropped.
MAX_SESSIONS = 256
#: Where a token is posted (outside the prefix: the sign-in form and the local sign-in file).
SIGNIN_PATH = "/signin"
#: The largest field a posted form may hold. Starlette's default, 1 MiB, refused every edit of a
#: memory file past 768 KB (a line's form carries the file as it loaded it, in base64) with an
#: error page, dropping what was typed.
MAX_FIELD_BYTES = 64 << 20
#: The key under which a page stores this server's prefix in the browser's ``localStorage`` (kept
#: per origin, so per port): a link to ``/timeline`` from elsewhere finds its way to
#: ``/<id>/timeline`` (``static/ui.js``).
STORAGE_KEY = "reverie-ui-prefix"
#: Paths served without a session: the style sheet and the script are the same for everyone and hold
#: nothing.
_PUBLIC_PREFIX = "/static/"
#: A server id's shape (``new_server_id``): how a stale one in a ``next`` address is recognised.
_SERVER_ID = re.compile(r"^/[A-Za-z0-9_-]{22}(?=/|$)")

HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    # "no-referrer" would make browsers send `Origin: null` with a form post
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
}


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_server_id() -> str:
    """A server's own id: 128 random bits, 22 URL-safe characters (the prefix of every page)."""
    return secrets.token_urlsafe(16)


def cookie_name(port: int | None) -> str:
    """The session cookie's name for a server on ``port``: one per port, so signing into a second
    server never replaces the first one's session."""
    return f"{COOKIE}_{port}" if port else COOKIE


@dataclass
class UISession:
    """One browser's session: its CSRF token, the messages to show on its next page, and when it
    was made and last used (``time.monotonic`` seconds)."""

    csrf: str = field(default_factory=new_token)
    flashes: list[tuple[str, str]] = field(default_factory=list)  # (level: ok|error, text)
    created: float = 0.0
    seen: float = 0.0

    def flash(self, level: str, text: str) -> None:
        self.flashes.append((level, text))

    def take_flashes(self) -> list[tuple[str, str]]:
        out, self.flashes = self.flashes, []
        return out


class Sessions:
    """The sessions of this server, by cookie value (random ids; nothing is derived from the
    token), each ending ``idle`` seconds after its last use or ``lifetime`` after it was made."""

    def __init__(
        self,
        *,
        idle: float = SESSION_IDLE,
        lifetime: float = SESSION_MAX,
        clock: Callable[[], float] = time.monotonic,
        limit: int = MAX_SESSIONS,
    ) -> None:
        self.idle, self.lifetime, self.clock, self.limit = idle, lifetime, clock, limit
        self._by_id: OrderedDict[str, UISession] = OrderedDict()

    def new(self) -> tuple[str, UISession]:
        now = self.clock()
        sid = new_token()
        self._by_id[sid] = session = UISession(created=now, seen=now)
        while len(self._by_id) > self.limit:
            self._by_id.popitem(last=False)
        return sid, session

    def get(self, sid: str | None) -> UISession | None:
        """The live session ``sid`` names (its use recorded), or None (unknown, expired, ended)."""
        session = self._by_id.get(sid) if sid else None
        if session is None or sid is None:
            return None
        now = self.clock()
        if now - session.seen > self.idle or now - session.created > self.lifetime:
            del self._by_id[sid]
            return None
        session.seen = now
        self._by_id.move_to_end(sid)
        return session

    def end(self, sid: str) -> None:
        self._by_id.pop(sid, None)

    def remaining(self, sid: str) -> int:
        """Seconds until the session reaches its lifetime (the cookie's ``Max-Age``)."""
        session = self._by_id.get(sid)
        if session is None:
            return 0
        return max(int(self.lifetime - (self.clock() - session.created)), 0)

    def __len__(self) -> int:
        return len(self._by_id)


class SignIn:
    """The tokens that open a session: one-time tokens (each dead once used or past its expiry) and
    an optional standing one (a token file's). ``on_spent(token)`` is called, outside any lock, when
    a one-time token is used (the server prints a fresh address, deletes a sign-in file)."""

    def __init__(
        self,
        standing: str | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_spent: Callable[[str], None] | None = None,
    ) -> None:
        self.standing = standing or None
        self.clock = clock
        self.on_spent = on_spent
        self._one_time: dict[str, float | None] = {}  # token -> expiry (None: until used)

    def issue(self, ttl: float | None = None) -> str:
        """A new one-time token, valid until used (or for ``ttl`` seconds)."""
        token = new_token()
        self._one_time[token] = None if ttl is None else self.clock() + ttl
        return token

    def revoke(self, token: str) -> None:
        self._one_time.pop(token, None)

    def redeem(self, given: str) -> bool:
        """Whether ``given`` opens a session (a one-time token is used up by it)."""
        if self.standing is not None and tokens_match(given, self.standing):
            return True
        now = self.clock()
        for token, expiry in list(self._one_time.items()):
            if expiry is not None and now > expiry:
                del self._one_time[token]
                continue
            if tokens_match(given, token):
                del self._one_time[token]
                if self.on_spent is not None:
                    self.on_spent(token)
                return True
        return False


#: The fields of the UI's forms a person types into (an edit's text, a removal's reason): shown back
#: when the form is refused (a session that ended, a CSRF token from an earlier session), so nothing
#: typed is lost.
TYPED_FIELDS = ("text", "reason")


def typed_back(form: Mapping[str, object]) -> Markup:
    """What a refused form held in its typed fields, read-only, to copy before going on; empty
    when it held none."""
    boxes = [
        Markup(
            '<label>{label} <textarea readonly class="typed" id="typed-{name}" rows="{rows}" '
            'dir="auto">\n{value}</textarea></label>'
        ).format(
            label="Text" if name == "text" else "Reason",
            name=name,
            rows=min(16, value.count("\n") + 2),
            value=value,
        )
        for name in TYPED_FIELDS
        if isinstance(value := form.get(name), str) and value.strip()
    ]
    if not boxes:
        return Markup("")
    head = Markup(
        '<section class="typed-back stack" id="typed-back"><p><strong>Nothing was saved.</strong> '
        "What you typed is below: copy it, open the form again and paste it.</p>"
    )
    return head + Markup("").join(boxes) + Markup("</section>")


def came_from(request: Request, prefix: str, *, restarted: bool = False) -> str | None:
    """The page of this server a form was posted from (its ``Referer``, which the referrer policy
    sends to this origin only), as a path and query under ``prefix``; None when it is not one.
    ``restarted``: also a page under another server id (this server's before a restart), whose
    address ``Gate.target`` moves under ``prefix``."""
    referer = urlsplit(request.headers.get("referer", ""))
    host = request.headers.get("host", "")
    ours = referer.path.startswith(prefix + "/")
    if referer.netloc != host or not (ours or restarted and _SERVER_ID.match(referer.path)):
        return None
    return referer.path + (f"?{referer.query}" if referer.query else "")


def check_csrf(session: UISession, given: object) -> bool:
    return isinstance(given, str) and tokens_match(given, session.csrf)


@dataclass(frozen=True)
class SessionRef:
    """What the ``Gate`` hands a request (``scope["state"]["ui_session_ref"]``): its session and how
    to end it (sign-out)."""

    sessions: Sessions
    sid: str
    cookie: str
    path: str

    def end(self, response: Response) -> None:
        self.sessions.end(self.sid)
        response.delete_cookie(self.cookie, path=self.path, httponly=True, samesite="lax")


_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reverie: {title}</title><link rel="stylesheet" href="/static/ui.css">
<script src="/static/ui.js" defer></script></head>
<body data-signin="{hop}" data-signed-out="{out}" data-storage-key="{key}">
<header><span class="brand">Reverie</span></header>
<main><h1>{title}</h1><p>{text}</p>{typed}{form}</main></body></html>"""

_FORM = """<form method="post" action="{action}" class="stack signin">
<label>Token <input type="password" name="token" autocomplete="off" required></label>
<input type="hidden" name="next" value="{next}">
<p><button type="submit" id="sign-in">Sign in</button></p></form>"""


def _page(
    status: int,
    title: str,
    text: str,
    *,
    next_path: str | None = None,
    signed_out: bool = False,
    typed: Markup | None = None,
) -> HTMLResponse:
    """A page outside the app (refusals, sign-in, sign-out): no session, so no templates' frame.
    With ``next_path``, a sign-in form, and the page lets ``ui.js`` find a known session's prefix
    (``signed_out``: it forgets it instead); ``typed``: a refused form's text (``typed_back``)."""
    form = _FORM.format(action=SIGNIN_PATH, next=escape(next_path)) if next_path is not None else ""
    html = _PAGE.format(
        title=escape(title),
        text=text,
        form=form,
        typed=typed or "",
        hop="1" if next_path is not None and not signed_out else "0",
        out="1" if signed_out else "0",
        key=STORAGE_KEY,
    )
    return HTMLResponse(html, status_code=status)


_NOT_SIGNED_IN = (
    "Open the address <code>reverie ui</code> printed (it signs you in once), or paste a token "
    "below: <code>reverie ui</code> prints a new address after each sign-in; with "
    "<code>--token-file</code>, the token is that file's."
)


def signed_out_page() -> HTMLResponse:
    return _page(
        200,
        "Signed out",
        "This browser's session has ended. To sign in again, open a new address "
        "<code>reverie ui</code> printed, or paste a token.",
        next_path="/",
        signed_out=True,
    )


class Gate:
    """The sign-in rules of one server: its id (every page's prefix), its sessions and tokens, its
    cookie. One gate guards a workspace's app or a root's (picker and every scope)."""

    def __init__(
        self,
        signin: SignIn,
        *,
        sessions: Sessions | None = None,
        server_id: str | None = None,
        port: int | None = None,
    ) -> None:
        self.signin = signin
        self.sessions = sessions if sessions is not None else Sessions()
        self.server_id = server_id or new_server_id()
        self.prefix = f"/{self.server_id}"
        self.cookie = cookie_name(port)

    def open_session(self, request: Request, target: str) -> Response:
        """A new session (its cookie, scoped to this server's prefix) and a redirect to
        ``target``."""
        sid, _session = self.sessions.new()
        redirect = RedirectResponse(target, status_code=303)
        redirect.set_cookie(
            self.cookie,
            sid,
            max_age=self.sessions.remaining(sid),
            path=self.prefix,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
        return redirect

    def target(self, path: str, query: str = "") -> str:
        """The address under this server's prefix for ``path`` (an address from outside it; one
        under a stale prefix — a restarted server's — loses that)."""
        if not path.startswith("/") or path.startswith(("//", "/\\")):
            path = "/"
        if path == self.prefix or path.startswith(self.prefix + "/"):
            path = path[len(self.prefix) :] or "/"
        else:
            path = _SERVER_ID.sub("", path, count=1) or "/"
        return self.prefix + path + (f"?{query}" if query else "")


class Guard:
    """ASGI middleware enforcing the rules in the module docstring, and adding the headers to every
    response. ``app`` is served under ``gate.prefix`` (its ``root_path``: it routes what
    follows)."""

    def __init__(
        self, app: ASGIApp, *, gate: Gate, allowed_hosts: frozenset[str] | None = None
    ) -> None:
        self.app = app
        self.gate = gate
        # None: any (a non-loopback bind, where the token file is the gate)
        self.allowed_hosts = allowed_hosts

    @property
    def prefix(self) -> str:
        return self.gate.prefix

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

        request = Request(scope, receive)
        response = await self._check(request)
        if response is not None:
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _check(self, request: Request) -> Response | None:
        """None when the request may go on (its session in ``scope["state"]``, its path without the
        prefix), else the response that answers it."""
        gate, scope = self.gate, request.scope
        host = request.headers.get("host", "")
        if self.allowed_hosts is not None and host.lower() not in self.allowed_hosts:
            return _page(400, "Refused", "This server answers only to its own loopback address.")
        path = request.url.path
        if path.startswith(_PUBLIC_PREFIX) and request.method in ("GET", "HEAD"):
            return None
        if path == SIGNIN_PATH:
            return await self._sign_in(request)
        inside = path == gate.prefix or path.startswith(gate.prefix + "/")
        sid = request.cookies.get(gate.cookie)
        given = request.query_params.get("token")
        if given is not None and request.method == "GET":
            if not gate.signin.redeem(given):
                if inside and gate.sessions.get(sid) is not None:  # signed in: an old link
                    query = _without_token(request)
                    return RedirectResponse(path + (f"?{query}" if query else ""), 303)
                return _page(
                    403,
                    "Not signed in",
                    "That token is not this server's, or it was used already (each address "
                    "<code>reverie ui</code> prints signs in once). " + _NOT_SIGNED_IN,
                    next_path=path,
                )
            return gate.open_session(request, gate.target(path, _without_token(request)))
        session = gate.sessions.get(sid) if inside else None
        if session is None or sid is None:
            if request.method in ("GET", "HEAD"):
                return _page(403, "Not signed in", _NOT_SIGNED_IN, next_path=path)
            # a form posted after the session ended (it expired, or signed out in another tab):
            # nothing is done; what was typed is shown back, and signing in returns to the form
            return _page(
                403,
                "Not signed in",
                "This browser's session has ended, so the form was not acted on. " + _NOT_SIGNED_IN,
                next_path=came_from(request, gate.prefix, restarted=True) or "/",
                typed=typed_back(await posted_form(request)),
            )
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            if origin is not None and origin != f"{request.url.scheme}://{host}":
                return _page(403, "Refused", "An action from another site was refused.")
        state = scope.setdefault("state", {})
        state["ui_session"] = session
        state["ui_session_ref"] = SessionRef(gate.sessions, sid, gate.cookie, gate.prefix)
        state["ui_prefix"] = gate.prefix
        scope["root_path"] = scope.get("root_path", "") + gate.prefix  # the app routes what follows
        return None

    async def _sign_in(self, request: Request) -> Response:
        """``POST /signin`` (the form, the local sign-in file): a token for a session. No CSRF token
        or origin is asked for: the token itself is the proof, and a file the browser opens posts
        from no origin."""
        if request.method != "POST":
            return _page(200, "Sign in", _NOT_SIGNED_IN, next_path="/")
        form = await request.form()
        given, next_path = form.get("token"), form.get("next")
        next_path = next_path if isinstance(next_path, str) else "/"
        if not isinstance(given, str) or not given or not self.gate.signin.redeem(given.strip()):
            return _page(
                403,
                "Not signed in",
                "That token is not this server's, or it was used already. " + _NOT_SIGNED_IN,
                next_path=next_path,
            )
        return self.gate.open_session(request, self.gate.target(next_path))


async def posted_form(request: Request) -> Mapping[str, object]:
    """A posted form's fields (each up to ``MAX_FIELD_BYTES``) read for showing back what was typed
    in it; none when the body is not a form (or cannot be parsed)."""
    try:
        return await request.form(max_part_size=MAX_FIELD_BYTES)
    except Exception:  # noqa: BLE001 (a malformed body: there is just nothing to show back)
        return {}


def _without_token(request: Request) -> str:
    return urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
