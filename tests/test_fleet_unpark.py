"""``reverie fleet unpark`` answers what it did even when its reply is lost: a proxy on 127.0.0.1
in front of a real redis-server lets the unpark reach the server, then drops the reply; redis-py
sends it again on a new connection. The resent unpark must find the first one's answer ("it was
parked", and the workspace due) instead of "not parked"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.fleet import RedisServer
from support.fleet_fixtures import needs_redis
from support.redis_proxy import CuttingProxy

pytestmark = [needs_redis]
pytest.importorskip("redis", reason="the `fleet` extra (celery, redis) is not installed")


@pytest.fixture
def proxy(redis_server: RedisServer) -> Iterator[CuttingProxy]:
    p = CuttingProxy(redis_server)
    yield p
    p.close()


def _coords(proxy: CuttingProxy, redis_server: RedisServer):
    import redis

    from reverie.fleet.coord import Coordinator

    direct = redis.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    c = Coordinator.connect(proxy.url)
    for script in vars(c).values():  # loaded first: a cut reply is the write's, not a NOSCRIPT's
        if isinstance(script, redis.commands.core.Script):
            direct.script_load(script.script)
    return c, direct


def test_an_unpark_whose_reply_is_lost_still_says_it_unparked(proxy, redis_server):
    c, direct = _coords(proxy, redis_server)
    c.park("w1", "3 jobs died mid-run")
    assert "w1" in c.parked()
    before = proxy.connections
    proxy.arm(b"reverie:parked-why")
    assert c.unpark("w1") is True, "a resent unpark answered 'not parked'"
    assert proxy.cuts == 1, "the proxy did not cut the reply"
    assert proxy.connections > before, "redis-py did not send the unpark again"
    assert direct.zscore("reverie:parked", "w1") is None
    assert direct.hget("reverie:parked-why", "w1") is None
    assert direct.zscore("reverie:due", "w1") is not None, "unparked but never made due"
    # a second, separate unpark is honest: it was not parked any more
    assert c.unpark("w1") is False


def test_unparking_a_workspace_never_parked_makes_nothing_due(proxy, redis_server):
    c, direct = _coords(proxy, redis_server)
    assert c.unpark("ghost") is False
    assert direct.zscore("reverie:due", "ghost") is None


def test_the_cli_reports_unparked_through_a_lost_reply(tmp_path, proxy, redis_server):
    """The user's command, in process, through the proxy: exit 0 and 'unparked', not 'not
    parked' with exit 1."""
    import json

    from support.cli import invoke

    c, _ = _coords(proxy, redis_server)
    c.park("team/alpha", "3 jobs died mid-run")
    proxy.arm(b"reverie:parked-why")
    env = {"REVERIE_FLEET__BROKER_URL": proxy.url, "REVERIE_FLEET__ROOT": str(tmp_path)}
    result = invoke("fleet", "unpark", "team/alpha", "--json", env=env)
    assert proxy.cuts == 1
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"unparked": ["team/alpha"], "not_parked": []}
