"""What the HTTP front ends share (reverie.serving): one bearer-token check, one cache of open
scopes."""

from __future__ import annotations

import anyio
import pytest

from reverie.serving.auth import BearerAuth, bearer_token, tokens_match
from reverie.serving.scopecache import ScopeCache


def _scope(*headers: tuple[bytes, bytes]) -> dict[str, object]:
    return {"type": "http", "headers": list(headers)}


def test_the_bearer_token_is_read_from_the_first_authorization_header_in_any_case() -> None:
    assert bearer_token(_scope((b"authorization", b"Bearer abc "))) == "abc"
    assert bearer_token(_scope((b"authorization", b"bearer abc"))) == "abc"
    assert bearer_token(_scope((b"authorization", b"Basic abc"))) is None
    assert bearer_token(_scope()) is None
    assert tokens_match("abc", "abc") and not tokens_match("abc", "abd")


def test_bearer_auth_answers_401_and_never_calls_the_app_without_the_token() -> None:
    reached: list[str] = []

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        reached.append(scope["type"])

    async def go(*headers: tuple[bytes, bytes]) -> list[dict[str, object]]:
        sent: list[dict[str, object]] = []

        async def send(message: dict[str, object]) -> None:
            sent.append(message)

        await BearerAuth(app, "s3cret-token")(_scope(*headers), None, send)  # type: ignore[arg-type]
        return sent

    sent = anyio.run(go, (b"authorization", b"Bearer wrong"))
    assert sent[0]["status"] == 401 and (b"www-authenticate", b"Bearer") in sent[0]["headers"]
    assert sent[1]["body"] == b'{"error": "missing or wrong bearer token"}' and reached == []
    assert anyio.run(go, (b"authorization", b"Bearer s3cret-token")) == [] and reached == ["http"]


def test_the_scope_cache_closes_the_least_recently_used_idle_entries_never_a_busy_one() -> None:
    busy: set[str] = set()
    closed: list[str] = []
    cache: ScopeCache[str, str] = ScopeCache(2, idle=lambda v: v not in busy, close=closed.append)
    for key in "abc":
        cache.put(key, key)
    busy.add("a")
    cache.trim()
    assert closed == ["b"] and list(cache) == ["a", "c"]
    cache.put("d", "d")
    cache.get("c")  # now the most recently used: "d" is the idle one to go
    cache.trim()
    assert closed == ["b", "d"] and list(cache) == ["a", "c"]
    cache.put("e", "e")
    busy.update({"c", "e"})
    cache.trim()  # every entry busy: more than the size stay open
    assert len(cache) == 3 and closed == ["b", "d"]
    with pytest.raises(ValueError):
        ScopeCache(0, idle=bool, close=print)
