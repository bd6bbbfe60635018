"""Binding and running the UI (one workspace's, or every scope's of a root): loopback unless told
otherwise (then only with a token file), a busy port reported in one line, the address to open
handed back before the first request is served, and the browser opened without the token on its
command line.

Sign-in (``reverie.ui.security``): without a token file, the printed address carries a one-time
token; once it is used, a fresh address is handed to ``renewed`` for the next browser. The browser
this command opens gets a one-time token of its own through a local sign-in file (``SignInFile``):
an HTML page in a private temporary folder whose form posts the token, so the browser's command
line (visible to every local user in ``ps``) and its history hold only the file's address. The
file is deleted once its token is used, and when the server stops.
"""

from __future__ import annotations

import logging
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from markupsafe import escape

from ..errors import CommandError
from ..memory import Memory
from ..serving.network import bind, is_loopback
from ..storage.fsutil import atomic_write
from ..storage.scopes import ScopeRoot
from .app import build_app
from .root import CACHED, ScopeApps, build_root_app
from .security import SIGNIN_PATH, Guard, SignIn

__all__ = [
    "serve",
    "serve_root",
    "read_token_file",
    "MIN_TOKEN_CHARS",
    "SignInFile",
    "SIGNIN_FILE_TTL",
]

log = logging.getLogger(__name__)

#: A token file's token must be at least this long (a guessable token on a network is no gate).
MIN_TOKEN_CHARS = 24
#: Seconds the browser's sign-in file stays usable (its token expires then, used or not).
SIGNIN_FILE_TTL = 600

#: Builds the app: the sign-in tokens, the accepted ``Host`` values, the port (the cookie's name).
Build = Callable[[SignIn, frozenset[str] | None, int], Guard]


def read_token_file(path: str | Path) -> str:
    try:
        token = Path(path).expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(
            f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise CommandError(
            f"the token in {path} must be one word of at least {MIN_TOKEN_CHARS} characters"
        )
    return token


def _url_host(host: str) -> str:
    return f"[{host.strip('[]')}]" if ":" in host.strip("[]") else host


_SIGNIN_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Reverie: signing in</title></head><body>
<form method="post" action="{action}" id="sign-in">
<input type="hidden" name="token" value="{token}">
<input type="hidden" name="next" value="/"><button type="submit">Sign in to Reverie</button></form>
<script>document.getElementById("sign-in").submit();</script></body></html>
"""


class SignInFile:
    """A one-time local page that signs a browser in: a form posting ``token`` to ``base``'s
    sign-in address, submitted by itself on load. It lives in a folder of its own (mode 0700, the
    file 0600: no other local user can read it); ``remove`` deletes both."""

    def __init__(self, base: str, token: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="reverie-ui-"))
        self.path = self.folder / "sign-in.html"
        html = _SIGNIN_HTML.format(action=escape(base + SIGNIN_PATH), token=escape(token))
        atomic_write(self.path, html.encode(), mode=0o600)
        self.token = token

    @property
    def url(self) -> str:
        return self.path.as_uri()

    def remove(self) -> None:
        for path in (self.path, self.folder):
            try:
                path.unlink() if path.is_file() else path.rmdir()
            except OSError:
                pass  # gone already


def _warm(memory: Memory) -> None:
    """Read the whole log once, with every commit's changed lines, in the background: the
    Timeline's filters are then served from the log's catalog (``reverie.gitstore.catalog``) from
    the first request on. A text no line holds makes ``log`` read every commit's lines."""
    try:
        with memory.sibling() as own:
            own.log(limit=1, text="\x00\x00")
    except Exception:  # noqa: BLE001 - an optimisation: a failure here is the Timeline's to report
        log.debug("the log's catalog was not warmed", exc_info=True)


def _open_browser(url: str) -> None:
    import webbrowser

    webbrowser.open(url)


def serve(
    memory: Memory,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token_file: str | Path | None = None,
    ready: Callable[[str], None] | None = None,
    renewed: Callable[[str], None] | None = None,
    browser: bool = False,
) -> None:
    """Serve the UI for ``memory`` until interrupted. A non-loopback ``host`` needs ``token_file``;
    ``ready`` gets the address to open once the socket listens (with a one-time token, unless a
    token file holds the token), ``renewed`` a fresh one each time that token is used; ``browser``:
    open a browser signed in through a local sign-in file."""

    def build(signin: SignIn, allowed: frozenset[str] | None, actual: int) -> Guard:
        return build_app(memory, signin=signin, allowed_hosts=allowed, port=actual)

    threading.Thread(target=_warm, args=(memory,), name="reverie-ui-warm", daemon=True).start()
    _serve(
        build,
        host=host,
        port=port,
        token_file=token_file,
        ready=ready,
        renewed=renewed,
        browser=browser,
    )


def serve_root(
    root: ScopeRoot,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token_file: str | Path | None = None,
    ready: Callable[[str], None] | None = None,
    renewed: Callable[[str], None] | None = None,
    browser: bool = False,
    cached: int = CACHED,
) -> None:
    """Serve every scope of ``root`` (a user picker, then each scope's screens; ``reverie.ui.root``)
    until interrupted, keeping at most ``cached`` idle scopes open. Binding and sign-in as
    ``serve``."""
    scopes = ScopeApps(root, size=cached)

    def build(signin: SignIn, allowed: frozenset[str] | None, actual: int) -> Guard:
        return build_root_app(
            root, signin=signin, allowed_hosts=allowed, scopes=scopes, port=actual
        )

    try:
        _serve(
            build,
            host=host,
            port=port,
            token_file=token_file,
            ready=ready,
            renewed=renewed,
            browser=browser,
        )
    finally:
        scopes.close()


def _serve(
    build: Build,
    *,
    host: str,
    port: int,
    token_file: str | Path | None,
    ready: Callable[[str], None] | None,
    renewed: Callable[[str], None] | None,
    browser: bool,
) -> None:
    import uvicorn

    if not is_loopback(host) and token_file is None:
        raise CommandError(
            f"refusing to serve on {host} (not a loopback address) without --token-file: "
            "anyone who can reach it could read and change this memory"
        )
    standing = read_token_file(token_file) if token_file is not None else None
    sock = bind(host, port)
    files: list[SignInFile] = []
    try:
        actual = sock.getsockname()[1]
        where = f"{_url_host(host)}:{actual}"
        base = f"http://{where}"
        allowed = (
            frozenset(
                {where.lower(), f"localhost:{actual}", f"127.0.0.1:{actual}", f"[::1]:{actual}"}
            )
            if is_loopback(host)
            else None
        )
        printed: list[str] = []

        def spent(token: str) -> None:
            for file in files:
                if file.token == token:
                    file.remove()
            if printed and token == printed[-1]:
                printed.append(signin.issue())
                if renewed is not None:
                    renewed(f"{base}/?token={printed[-1]}")

        signin = SignIn(standing, on_spent=spent)
        app = build(signin, allowed, actual)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        if standing is None:
            printed.append(signin.issue())
        if ready is not None:
            ready(f"{base}/?token={printed[-1]}" if printed else f"{base}/")
        if browser:
            file = SignInFile(base, signin.issue(ttl=SIGNIN_FILE_TTL))
            files.append(file)
            _open_browser(file.url)
        server.run(sockets=[sock])
    finally:
        for file in files:
            file.remove()
        sock.close()
