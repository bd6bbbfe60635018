"""The fleet's coordination state in Redis: the due index, workspace leases, the admission budget,
crash counts.

Keys (prefix ``reverie:``), each a small structure Celery lacks:

- ``due`` (sorted set): workspace id → when its Dream is due (unix seconds). A dispatched workspace
  stays in it, its score pushed to ``now + claimSeconds`` (its *claim*) and renewed by the job's
  heartbeat; a dead job's claim lapses and the dispatcher sends the workspace again. The index is
  rebuildable from the workspaces (`Fleet`'s ``rebuild_due``): losing it delays Dream, never skips
  it.
- ``lease:<id>`` (string, ``SET NX PX``): the job holding the workspace; renewed and released only
  by its holder (compare-and-set scripts). Efficiency and liveness only: safety is the workspace's
  fence (``reverie.dream.fence``).
- ``inflight`` (sorted set): workspace id → expiry of its dispatch claim or lease; counted against
  ``maxInflight``.
- ``budget`` (hash): a token bucket refilled at ``tokensPerMinute`` and debited by each run's usage;
  ``stats`` (hash): runs and tokens, for the tokens-per-run estimate.
- ``crashes`` (hash): jobs of a workspace that started and never finished; at ``crashParkAfter`` it
  is moved from ``due`` to ``parked`` (sorted set, time parked) with its reason in ``parked-why``.
  ``failures`` (hash): failed runs in a row, for the backoff. ``set-aside`` (hash): batches set
  aside per workspace, as the last run reported.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import redis

__all__ = ["Coordinator", "redis_url", "FleetState"]

_P = "reverie:"

# Claim up to ARGV[2] members due by ARGV[1]; push each to ARGV[3] (the claim's end) in due and
# inflight.
_CLAIM = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], id)
  redis.call('ZADD', KEYS[2], ARGV[3], id)
end
return ids
"""
# Renew a lease held by ARGV[1] for ARGV[2] ms; keep the claim (due, XX) and the inflight entry
# alive to ARGV[3].
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', 'GT', ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
return 1
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""
# Token bucket: refill at ARGV[2] tokens/s up to ARGV[3] since the stored time; debit ARGV[4];
# return the tokens.
_BUCKET = """
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local t = tonumber(redis.call('HGET', KEYS[1], 'tokens') or ARGV[3])
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or ARGV[1])
t = math.min(cap, t + math.max(0, now - at) * rate) - tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'tokens', tostring(t), 'at', ARGV[1])
return tostring(t)
"""


def redis_url(broker_url: str) -> str:
    """redis-py's URL for a kombu broker URL (``redis+socket:///p`` is kombu's spelling of ``unix:///p``)."""
    if broker_url.startswith("redis+socket://"):
        return "unix://" + broker_url[len("redis+socket://") :]
    return broker_url


@dataclass(frozen=True)
class FleetState:
    """What ``reverie fleet status`` shows. ``due_now``: due and not dispatched; ``waiting``: due
    later; ``running``: live leases (workspace → seconds left)."""

    due_now: int
    waiting: int
    inflight: int
    running: dict[str, float]
    parked: dict[str, str]
    set_aside: dict[str, int]
    tokens: float | None
    next_due: list[tuple[str, float]]


class Coordinator:
    """The Redis side of the fleet, one client per process (redis-py pools connections and is thread-safe)."""

    def __init__(self, client: redis.Redis) -> None:
        self.r = client
        self._claim = client.register_script(_CLAIM)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._bucket = client.register_script(_BUCKET)

    @classmethod
    def connect(cls, broker_url: str, *, timeout: float = 5.0) -> Coordinator:
        import redis

        return cls(
            redis.Redis.from_url(
                redis_url(broker_url),
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                decode_responses=True,
            )
        )

    # -- due index ----------------------------------------------------------------------------------------
    def mark(self, ws: str, due_at: float) -> bool:
        """Make ``ws`` due at ``due_at`` unless it is due (or claimed) already; parked workspaces stay parked."""
        if self.r.zscore(_P + "parked", ws) is not None:
            return False
        return bool(self.r.zadd(_P + "due", {ws: due_at}, nx=True))

    def mark_many(self, due: dict[str, float]) -> int:
        """Bulk `mark` (rebuild-due): returns how many were added."""
        parked = set(self.r.zrange(_P + "parked", 0, -1))
        due = {k: v for k, v in due.items() if k not in parked}
        return int(cast(int, self.r.zadd(_P + "due", due, nx=True))) if due else 0

    def set_due(self, ws: str, due_at: float) -> None:
        """Re-mark ``ws`` due at ``due_at`` whatever its score (the end of a job that left work)."""
        self.r.zadd(_P + "due", {ws: due_at})

    def unmark(self, ws: str) -> None:
        self.r.zrem(_P + "due", ws)

    def claim(self, limit: int, claim_seconds: float, now: float | None = None) -> list[str]:
        """Atomically take up to ``limit`` due workspaces, pushing their score to the end of their claim."""
        if limit <= 0:
            return []
        now = time.time() if now is None else now
        keys = [_P + "due", _P + "inflight"]
        return cast(list[str], self._claim(keys=keys, args=[now, limit, now + claim_seconds]))

    def due(self) -> dict[str, float]:
        return dict(
            cast(list[tuple[str, float]], self.r.zrange(_P + "due", 0, -1, withscores=True))
        )

    # -- leases -------------------------------------------------------------------------------------------
    def acquire(self, ws: str, token: str, lease_seconds: float) -> bool:
        ok = bool(self.r.set(_P + "lease:" + ws, token, nx=True, px=int(lease_seconds * 1000)))
        if ok:
            self.r.zadd(_P + "inflight", {ws: time.time() + lease_seconds})
        return ok

    def renew(self, ws: str, token: str, lease_seconds: float, claim_seconds: float) -> bool:
        """Extend the lease (only its holder can) and the workspace's claim; False when the lease is not ours."""
        now = time.time()
        keys = [_P + "lease:" + ws, _P + "due", _P + "inflight"]
        args: list[str | int | float] = [
            token,
            int(lease_seconds * 1000),
            now + max(claim_seconds, lease_seconds),
            ws,
        ]
        return bool(self._renew(keys=keys, args=args))

    def release(self, ws: str, token: str) -> None:
        self._release(keys=[_P + "lease:" + ws, _P + "inflight"], args=[token, ws])

    def holder(self, ws: str) -> str | None:
        return cast("str | None", self.r.get(_P + "lease:" + ws))

    def inflight(self, now: float | None = None) -> int:
        """Jobs dispatched or running whose claim or lease has not lapsed (expired entries are dropped)."""
        now = time.time() if now is None else now
        self.r.zremrangebyscore(_P + "inflight", "-inf", now)
        return int(self.r.zcard(_P + "inflight"))

    # -- budget -------------------------------------------------------------------------------------------
    def tokens(self, per_minute: int, debit: float = 0.0) -> float:
        """The token bucket's level after refilling (and debiting ``debit``)."""
        return float(
            self._bucket(
                keys=[_P + "budget"], args=[time.time(), per_minute / 60.0, per_minute, debit]
            )
        )

    def record_usage(self, tokens: int, per_minute: int | None) -> None:
        pipe = self.r.pipeline()
        pipe.hincrby(_P + "stats", "runs", 1)
        pipe.hincrby(_P + "stats", "tokens", tokens)
        pipe.execute()
        if per_minute is not None and tokens:
            self.tokens(per_minute, debit=tokens)

    def tokens_per_run(self, default: int) -> float:
        runs, tokens = self.r.hmget(_P + "stats", ["runs", "tokens"])
        return (
            int(tokens) / int(runs)
            if runs and tokens and int(runs) > 0 and int(tokens) > 0
            else float(default)
        )

    # -- crashes, failures, parking -----------------------------------------------------------------------
    def started(self, ws: str) -> int:
        """Count a job start; returns the number of earlier starts that never finished."""
        return int(self.r.hincrby(_P + "crashes", ws, 1)) - 1

    def finished(self, ws: str) -> None:
        self.r.hdel(_P + "crashes", ws)

    def park(self, ws: str, reason: str) -> None:
        pipe = self.r.pipeline()
        pipe.zrem(_P + "due", ws)
        pipe.zadd(_P + "parked", {ws: time.time()})
        pipe.hset(_P + "parked-why", ws, reason)
        pipe.hdel(_P + "crashes", ws)
        pipe.execute()

    def unpark(self, ws: str) -> bool:
        pipe = self.r.pipeline()
        pipe.zrem(_P + "parked", ws)
        pipe.hdel(_P + "parked-why", ws)
        removed, _ = pipe.execute()
        return bool(removed)

    def failed(self, ws: str) -> int:
        """Count a failed run in a row; returns the count."""
        return int(self.r.hincrby(_P + "failures", ws, 1))

    def succeeded(self, ws: str) -> None:
        self.r.hdel(_P + "failures", ws)

    def set_aside(self, ws: str, count: int) -> None:
        if count:
            self.r.hset(_P + "set-aside", ws, count)
        else:
            self.r.hdel(_P + "set-aside", ws)

    # -- status -------------------------------------------------------------------------------------------
    def state(self, tokens_per_minute: int | None, show: int = 10) -> FleetState:
        now = time.time()
        keys = list(self.r.scan_iter(match=_P + "lease:*", count=1000))
        pipe = self.r.pipeline(transaction=False)  # one round trip for every lease's time left
        for key in keys:
            pipe.pttl(key)
        running = {
            str(key)[len(_P + "lease:") :]: ttl / 1000
            for key, ttl in zip(keys, pipe.execute(), strict=True)
            if ttl > 0
        }
        raw_why = cast(dict[str, str], self.r.hgetall(_P + "parked-why"))
        parked = {
            ws: raw_why.get(ws, "")
            for ws in cast(Sequence[str], self.r.zrange(_P + "parked", 0, -1))
        }
        aside = {
            k: int(v) for k, v in cast(dict[str, Any], self.r.hgetall(_P + "set-aside")).items()
        }
        head = cast(
            list[tuple[str, float]], self.r.zrange(_P + "due", 0, show - 1, withscores=True)
        )
        return FleetState(
            due_now=int(self.r.zcount(_P + "due", "-inf", now)),
            waiting=int(self.r.zcount(_P + "due", f"({now}", "+inf")),
            inflight=self.inflight(now),
            running=running,
            parked=parked,
            set_aside=aside,
            tokens=self.tokens(tokens_per_minute) if tokens_per_minute else None,
            next_due=[(ws, score) for ws, score in head],
        )
