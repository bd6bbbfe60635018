"""Bearer tokens over HTTP, checked one way: the token a request carries (``Authorization: Bearer
<token>``, the scheme in any case, RFC 9110), compared in constant time, and the one 401 answer.

``reverie mcp --http`` checks one token (`BearerAuth`), ``mcp --http --root`` looks the token up
in the root's token file (``reverie.storage.access``) to find its scope, and the UI compares a
sign-in token with `tokens_match`."""

from __future__ import annotations

import hmac
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BearerAuth", "bearer_token", "tokens_match", "unauthorized"]


def bearer_token(scope: Scope) -> str | None:
    """The token of the request's first ``Authorization`` header when its scheme is Bearer."""
    for name, value in scope.get("headers") or []:
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if kind.lower() == "bearer" else None
    return None


def tokens_match(given: str, expected: str) -> bool:
    """Whether ``given`` is ``expected``, in time that does not tell how much of it matched."""
    return hmac.compare_digest(given.encode(), expected.encode())


async def unauthorized(send: Send, message: str) -> None:
    """401 with ``WWW-Authenticate: Bearer`` and a one-line JSON error."""
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b"Bearer"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``token`` as its bearer token; anything else
    gets 401 and never reaches ``app``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = bearer_token(scope)
            if given is None or not tokens_match(given, self.token):
                await unauthorized(send, "missing or wrong bearer token")
                return
        await self.app(scope, receive, send)
