"""Binding and running the UI (one workspace's, or every scope's of a root): loopback unless told
otherwise (then only with a token file), a busy port reported in one line, the address with its
token handed back before the first request is served."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import CommandError
from ..memory import Memory
from ..scopes import ScopeRoot
from ..security.network import bind, is_loopback
from .app import build_app
from .root import CACHED, ScopeApps, build_root_app
from .security import Guard, new_token

__all__ = ["serve", "serve_root", "read_token_file", "MIN_TOKEN_CHARS"]

#: A token file's token must be at least this long (a guessable token on a network is no gate).
MIN_TOKEN_CHARS = 24


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


def serve(
    memory: Memory,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token_file: str | Path | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the UI for ``memory`` until interrupted. A non-loopback ``host`` needs ``token_file``;
    ``ready`` gets the URL to open (with its token) once the socket listens."""

    def build(token: str, allowed: frozenset[str] | None) -> Guard:
        return build_app(memory, token=token, allowed_hosts=allowed)

    _serve(build, host=host, port=port, token_file=token_file, ready=ready)


def serve_root(
    root: ScopeRoot,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token_file: str | Path | None = None,
    ready: Callable[[str], None] | None = None,
    cached: int = CACHED,
) -> None:
    """Serve every scope of ``root`` (a user picker, then each scope's screens; ``reverie.ui.root``)
    until interrupted, keeping at most ``cached`` idle scopes open. Binding and sign-in as
    ``serve``."""
    scopes = ScopeApps(root, size=cached)

    def build(token: str, allowed: frozenset[str] | None) -> Guard:
        return build_root_app(root, token=token, allowed_hosts=allowed, scopes=scopes)

    try:
        _serve(build, host=host, port=port, token_file=token_file, ready=ready)
    finally:
        scopes.close()


def _serve(
    build: Callable[[str, frozenset[str] | None], Guard],
    *,
    host: str,
    port: int,
    token_file: str | Path | None,
    ready: Callable[[str], None] | None,
) -> None:
    import uvicorn

    if not is_loopback(host) and token_file is None:
        raise CommandError(
            f"refusing to serve on {host} (not a loopback address) without --token-file: "
            "anyone who can reach it could read and change this memory"
        )
    token = read_token_file(token_file) if token_file is not None else new_token()
    sock = bind(host, port)
    try:
        actual = sock.getsockname()[1]
        where = f"{_url_host(host)}:{actual}"
        allowed = (
            frozenset(
                {where.lower(), f"localhost:{actual}", f"127.0.0.1:{actual}", f"[::1]:{actual}"}
            )
            if is_loopback(host)
            else None
        )
        app = build(token, allowed)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        if ready is not None:
            ready(f"http://{where}/?token={token}")
        server.run(sockets=[sock])
    finally:
        sock.close()
