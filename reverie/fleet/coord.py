"""The fleet's coordination state in Redis: the due index, claims, workspace leases, the admission
budget, crash and failure counts, run rates, and the generation that tells a Redis which lost its
data. This docstring is the spec of the keys (prefix ``reverie:``); each score has one meaning:

- ``due`` (sorted set): workspace id → **when its Dream is due** (unix seconds). Only `make_due`
  adds to it (the one verb for "make due": append markers ingested, a job that left work, a fenced
  job, a failure's back-off, ``rebuild-due``), and `unpark`, in the same script that takes the
  workspace out of ``parked``; never over a parked workspace and never moving an entry (``NX``:
  the first due time stands until the workspace is dispatched).
- ``claims`` (sorted set): workspace id → **when its claim ends** (unix seconds). `claim` moves
  due workspaces from ``due`` to ``claims`` atomically (a workspace still claimed stays in ``due``
  for after its job); the job's lease renews the claim; a claim nobody renewed lapses, and the
  next `claim` moves it back into ``due`` (a dead worker's job is sent again after
  ``claimSeconds``). ``claims`` is what is in flight, counted against ``maxInflight``.
- ``lease:<id>`` (string, ``SET NX PX``): the job holding the workspace. Acquired, renewed and
  released by scripts that compare the holder's token and move the claim in the same step: only
  the holder renews or releases its lease and its claim (redis-py's ``Lock`` has the same token
  scripts, for one key; here each step must also move the claim, atomically, or a release would
  drop a new holder's claim). Efficiency and liveness only: safety is the workspace's fence
  (``reverie.dream.fence``).
- ``parked`` (sorted set): workspace id → when it was parked, with its reason in ``parked-why``
  (hash); ``crashes`` (hash): job starts that never finished; ``failures`` (hash): failed runs in
  a row (the back-off); ``set-aside`` (hash): batches set aside, as the last run reported.
- ``budget`` (hash): a token bucket refilled at ``tokensPerMinute``, a run's tokens reserved at
  its claim (``reserved``, hash: workspace id → tokens; a workspace claimed again while it has one
  keeps it, not debited twice) and the difference to its real use settled when it ends;
  ``estimate`` (string): the average run's tokens (``reverie.schedule.policy``); ``stats``
  (hash): runs (and ``runs:<status>``), failures and model tokens since the fleet began;
  ``rate:<t>`` (hash, expires): the same counts per 10-second window, for the rates `state` shows.
- ``paused-until`` (string): while the model is unavailable, the time before which no job is sent
  (every job would fail alike); ``outages`` (string): pauses in a row (their back-off).
- ``once:<id>`` (string, expires after ``_ONCE_SECONDS``): the reply of one write that must not
  happen twice, recorded in the same script or transaction as the write. redis-py sends a command
  again when its connection dropped before the reply came back, though the server may have run it
  already; every write that is not the same when run twice (a counter, a debit of the bucket, a
  claim, a reservation taken back) carries a fresh id, so a resent one finds its id and returns the
  first reply instead of counting again.
- ``generation`` (string): a random token a dispatcher writes once it has built the due index from
  the disk. A Redis that lost its data (restarted without persistence, flushed, failed over to an
  empty replica) has none, or another one: the dispatcher notices and rebuilds on its own.
- ``rebuilding`` and ``admitting`` (strings, ``SET NX PX``, `take`): the dispatcher rebuilding the
  due index now (another one that finds it keeps dispatching from the markers instead of scanning
  the root a second time), and the one admitting jobs now (from reading the budget and the live
  claims to reserving its claims' tokens: another one admits at its next tick, after it, so two
  dispatchers never both spend one reading of the token bucket).

Every time here is on the fleet's clock, Redis's ``TIME`` (`Coordinator.now`), not the host's: a
worker whose clock is off still writes claim ends and due times the others read alike.

Everything here is rebuildable from the workspaces (the due markers, the cursors): losing it delays
Dream, never skips it.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..schedule.policy import FAILED, next_estimate, retry_delay

if TYPE_CHECKING:
    import redis

__all__ = ["Coordinator", "check_broker_url", "redis_url", "redact_url", "FleetState"]

_P = "reverie:"
_RATE_BUCKET = 10  # seconds per rate window
_RATE_WINDOWS = 6  # windows the rates are taken over (the last minute)

#: How long a write's ``once:<id>`` outlives it: far longer than redis-py's retries of one command
#: (``Coordinator.RETRIES`` tries of at most the socket timeout and a 2 s back-off each).
_ONCE_SECONDS = 300


def _once(body: str) -> str:
    """A script run at most once per id: its last key is ``once:<id>``; a second run with that key
    (redis-py resending it after a lost reply) returns the reply of the first, recorded with the
    write in the same atomic script."""
    return (
        "local done = redis.call('GET', KEYS[#KEYS])\n"
        "if done then return cjson.decode(done) end\n"
        "local function body()\n" + body + "\nend\n"
        "local result = body()\n"
        f"redis.call('SET', KEYS[#KEYS], cjson.encode(result), 'EX', {_ONCE_SECONDS})\n"
        "return result\n"
    )


# ARGV: ws1, at1, ws2, at2, ...; a parked workspace is left out. Returns how many were added.
_MAKE_DUE = _once("""
local added = 0
for i = 1, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[2], ARGV[i]) then
    added = added + redis.call('ZADD', KEYS[1], 'NX', ARGV[i + 1], ARGV[i])
  end
end
return added
""")
# Lapsed claims go back to due; then up to ARGV[2] due members (score <= ARGV[1]) not claimed move
# from due to claims with score ARGV[3] (the claim's end), and no more than leaves ARGV[4] claims
# alive (the fleet's in-flight cap; negative: none), counted here, in the same step: two
# dispatchers that both read the count before either claimed cannot both fill the fleet. A claimed
# member stays in due.
_CLAIM = _once("""
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], id)
end
local out, skipped, limit = {}, 0, tonumber(ARGV[2])
local cap = tonumber(ARGV[4])
if cap >= 0 then limit = math.min(limit, cap - redis.call('ZCARD', KEYS[2])) end
while #out < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', skipped, limit - #out)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if redis.call('ZSCORE', KEYS[2], id) then
      skipped = skipped + 1
    else
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZADD', KEYS[2], ARGV[3], id)
      table.insert(out, id)
    end
  end
end
return out
""")
# The opening of every script on a token-held key (a lease, a dispatcher's right). KEYS[1]: the key;
# ARGV[1]: the token. Taking it (ARGV[2]: ms): taken unless another token holds it; the holder
# asking again (its request resent after a lost reply) has it. Holding it: go on only as its holder.
_TAKEN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
elseif not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
"""
_HELD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
"""
# KEYS: lease, claims. ARGV: token, lease ms, claim end, ws.
_ACQUIRE = (
    _TAKEN
    + """redis.call('ZADD', KEYS[2], 'GT', ARGV[3], ARGV[4])
return 1
"""
)
_RENEW = (
    _HELD
    + """redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'GT', ARGV[3], ARGV[4])
return 1
"""
)
# KEYS: lease, claims. ARGV: token, ws. Only the holder releases, and only then its claim.
_RELEASE = (
    _HELD
    + """redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""
)
# KEYS: a dispatcher's right (``rebuilding``, ``admitting``). ARGV: a token, ms.
_TAKE = _TAKEN + "return 1\n"
# KEYS: such a right. ARGV: its holder's token. Removed only by its holder.
_UNLOCK = _HELD + "return redis.call('DEL', KEYS[1])\n"
# Token bucket: refill at `rate` tokens/s up to `cap` since the stored time, debit `debit`; returns
# the tokens.
_REFILL = """
local function refill(key, now, rate, cap, debit)
  local t = tonumber(redis.call('HGET', key, 'tokens') or cap)
  local at = tonumber(redis.call('HGET', key, 'at') or now)
  t = math.min(cap, t + math.max(0, now - at) * rate) - debit
  redis.call('HSET', key, 'tokens', tostring(t), 'at', tostring(now))
  return t
end
"""
# KEYS: budget. ARGV: now, rate, cap, debit. A read (debit 0) may run twice: it writes what it read.
_BUCKET = (
    _REFILL
    + "return tostring(refill(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), "
    "tonumber(ARGV[4])))"
)
_DEBIT = _once(_BUCKET)
# KEYS: reserved, budget, once. ARGV: now, rate, cap, per run, ws1, ws2, ...: each claim's
# reservation noted and the bucket debited for them, once; a workspace whose reservation is still
# open (claimed again before its job settled) keeps it and is not debited again.
_RESERVE = _once(
    _REFILL
    + """
local per_run, new = tonumber(ARGV[4]), 0
for i = 5, #ARGV do new = new + redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[4]) end
local t = refill(KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), per_run * new)
return tostring(t)
"""
)
# KEYS: counts, once. ARGV: field. A counter bumped once; returns its value.
_COUNT = _once("return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)")
# KEYS: parked, parked-why, due, once. ARGV: ws, now. Unparked and due now (NX) in one step, once:
# a resent unpark answers what the first one did (1: it was parked), not "not parked".
_UNPARK = _once("""
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if removed == 1 then redis.call('ZADD', KEYS[3], 'NX', ARGV[2], ARGV[1]) end
return removed
""")


def _number(value: object) -> float:
    """A number this module stored as text (0 for none, or for a value that is not a finite
    number: a key someone else wrote over must not stop the dispatcher)."""
    try:
        number = float(cast("str | float", value)) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def redis_url(broker_url: str) -> str:
    """redis-py's URL for a kombu broker URL (``redis+socket:///p`` is kombu's spelling of
    ``unix:///p``; a password before it, ``redis+socket://:pw@/p``, is kept)."""
    if broker_url.startswith("redis+socket://"):
        rest = broker_url[len("redis+socket://") :]
        auth, at, path = rest.rpartition("@")
        return f"unix://{auth}@{path}" if at else "unix://" + rest
    return broker_url


def check_broker_url(broker_url: str) -> None:
    """Refuse a ``fleet.brokerUrl`` that is no Redis URL, in one line naming the key
    (`ConfigError`): another scheme or none, a port out of range, or a database that is not a
    number — which redis-py reads as database 0 without a word (another fleet's keys) while
    Celery's worker refuses it."""
    from urllib.parse import parse_qs, urlsplit

    from ..errors import ConfigError

    url = redis_url(broker_url)
    parts = urlsplit(url)
    shape = "redis://[:PASSWORD@]HOST[:PORT][/DB], rediss://… (TLS) or redis+socket:///PATH[?db=DB]"
    try:
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"its scheme is not redis, rediss or redis+socket ({shape})")
        try:
            parts.port  # noqa: B018 - raises for a port out of range
        except ValueError:
            raise ValueError(f"its port is not one (1-65535) ({shape})") from None
        if parts.scheme == "unix":
            db = (parse_qs(parts.query).get("db") or [""])[0]
        else:
            db = parts.path.strip("/") or (parse_qs(parts.query).get("db") or [""])[0]
        if db and not db.isdigit():
            raise ValueError(f"its database {db[:40]!r} is not a number ({shape})")
    except ValueError as exc:
        try:
            shown = redact_url(broker_url)
        except Exception:  # noqa: BLE001 - a URL kombu cannot even parse: shown by its scheme
            shown = broker_url.partition(":")[0] + ":…"
        raise ConfigError(f"config: fleet.brokerUrl {shown} is not a Redis URL: {exc}") from None


def redact_url(broker_url: str) -> str:
    """``broker_url`` as it may be shown (a log line, an error): its password masked the way Celery
    masks it (``redis://:**@host``; kombu's own helper)."""
    from kombu.utils.url import maybe_sanitize_url

    return str(maybe_sanitize_url(broker_url))


def _lease_args(
    ws: str, token: str, lease_seconds: float, claim_seconds: float, now: float
) -> list[str | int | float]:
    """The lease scripts' arguments: token, lease in ms, the claim's end (as long as the lease,
    from ``now`` by the fleet's clock), ws."""
    return [token, int(lease_seconds * 1000), now + max(claim_seconds, lease_seconds), ws]


@dataclass(frozen=True)
class FleetState:
    """What ``reverie fleet status`` shows. ``due_now``: due and not dispatched; ``waiting``: due
    later (debounce, back-off); ``inflight``: claims alive (dispatched or running); ``running``:
    live leases (workspace → seconds left); ``oldest_due_seconds``: how long the longest-waiting
    due workspace has been due; rates per minute over the last minute; ``generation``: the due
    index's generation (None: Redis has none, it lost its data or no dispatcher ran yet).
    ``paused_until``: no job is sent before it (the model was unavailable; 0: none).
    ``markers``/``markers_missing``: the due markers on disk and how many of them Redis does not
    know, ``markers_missing_oldest_seconds`` how long ago the oldest of those was marked (None when
    the disk was not read, or none is missing)."""

    due_now: int
    waiting: int
    inflight: int
    running: dict[str, float]
    parked: dict[str, str]
    set_aside: dict[str, int]
    tokens: float | None
    next_due: list[tuple[str, float]]
    oldest_due_seconds: float = 0.0
    runs_per_minute: float = 0.0
    failures_per_minute: float = 0.0
    tokens_per_minute: float = 0.0
    totals: dict[str, int] = field(default_factory=dict)
    generation: str | None = None
    markers: int | None = None
    markers_missing: int | None = None
    markers_missing_oldest_seconds: float | None = None
    paused_until: float = 0.0
    #: The fleet's clock (`Coordinator.now`) when the state was read: what its times compare with.
    now: float = 0.0

    @property
    def set_aside_batches(self) -> int:
        return sum(self.set_aside.values())


class Coordinator:
    """The Redis side of the fleet, one client per process (redis-py pools connections and is
    thread-safe). The client retries a dropped connection or a timeout itself, with exponential
    back-off (redis-py's ``Retry``), before an error reaches the caller."""

    #: redis-py's own retry of a connection error or timeout: this many times, backing off
    #: exponentially from 0.1 s up to 2 s (about 4 s in all).
    RETRIES = 3
    #: How often `now` measures the offset between this host's clock and Redis's again (seconds).
    CLOCK_SECONDS = 60.0
    #: A change of this host's wall clock against its monotonic clock by more than this (seconds)
    #: since the last measure is a step (NTP stepping, a VM resumed or migrated, a clock set by
    #: hand): `now` measures the offset again at once.
    CLOCK_STEP_SECONDS = 0.5

    def __init__(self, client: redis.Redis) -> None:
        self.r = client
        self._make_due = client.register_script(_MAKE_DUE)
        self._claim = client.register_script(_CLAIM)
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._bucket = client.register_script(_BUCKET)
        self._debit = client.register_script(_DEBIT)
        self._reserve = client.register_script(_RESERVE)
        self._count = client.register_script(_COUNT)
        self._unpark = client.register_script(_UNPARK)
        self._take = client.register_script(_TAKE)
        self._unlock = client.register_script(_UNLOCK)
        self._offset = 0.0  # Redis's clock less this host's, as last measured
        self._offset_at: float | None = None  # this host's monotonic time of that measure
        self._wall_less_mono = 0.0  # this host's wall clock less its monotonic clock, then

    def now(self) -> float:
        """The fleet's clock, unix seconds: Redis's (``TIME``), read as this host's clock plus the
        offset between them measured at most `CLOCK_SECONDS` ago, or at once after this host's
        clock stepped (`CLOCK_STEP_SECONDS`). Every due time, claim end, park time and rate
        window is on it, so machines whose clocks disagree (a worker hours ahead) still agree on
        when a claim lapses and when a workspace is due.

        Why a cached offset, and why a minute: one measure is a round trip to Redis (median 131
        µs, p99 269 µs on a unix socket on a loaded 2-core host; a network hop adds its own), and
        an idle dispatcher tick asks the time 5 times, a job 8 (counted), so reading ``TIME``
        each time would multiply the round trips for nothing. Between two measures the offset
        can only drift by the rate at which NTP slews this host's clock (at most 500 ppm: 30 ms a
        minute), far below the seconds claims, leases and back-offs are counted in. What a minute
        could not bound is a step of the clock, and that is caught without a round trip: the wall
        clock less the monotonic clock changes only when the wall clock is stepped (or the host
        was suspended)."""
        mono = time.monotonic()
        wall = time.time()
        if (
            self._offset_at is None
            or mono - self._offset_at >= self.CLOCK_SECONDS
            or abs(wall - mono - self._wall_less_mono) > self.CLOCK_STEP_SECONDS
        ):
            before = time.time()
            seconds, micros = self.r.time()
            after = time.time()
            self._offset = seconds + micros / 1e6 - (before + after) / 2
            self._offset_at = time.monotonic()
            self._wall_less_mono = after - self._offset_at
        return time.time() + self._offset

    @staticmethod
    def _once_key() -> str:
        """A fresh ``once:<id>`` for one write: redis-py resends the same arguments, so a resent
        write carries the same id."""
        return _P + "once:" + uuid.uuid4().hex

    @classmethod
    def connect(
        cls, broker_url: str, *, timeout: float = 5.0, retries: int | None = None
    ) -> Coordinator:
        """A coordinator on ``broker_url``: each command waits ``timeout`` seconds at most, and is
        tried again ``retries`` times (`RETRIES` by default) on a dropped connection or a
        timeout."""
        import redis
        from redis.backoff import ExponentialBackoff
        from redis.retry import Retry

        check_broker_url(broker_url)
        return cls(
            redis.Redis.from_url(
                redis_url(broker_url),
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                decode_responses=True,
                retry=Retry(
                    ExponentialBackoff(cap=2.0, base=0.1),
                    cls.RETRIES if retries is None else retries,
                ),
                retry_on_error=[redis.ConnectionError, redis.TimeoutError],
            )
        )

    # -- due index ---------------------------------------------------------------------------------
    def make_due(self, due: Mapping[str, float]) -> int:
        """The one verb that makes workspaces due: each at its time, unless it is due already (its
        time stands) or parked. Returns how many were added."""
        items = list(due.items())
        added = 0
        for i in range(0, len(items), 1000):
            args = [v for ws, at in items[i : i + 1000] for v in (ws, at)]
            keys = [_P + "due", _P + "parked", self._once_key()]
            added += int(self._make_due(keys=keys, args=args))
        return added

    def unmark(self, ws: str) -> None:
        """Take ``ws`` out of the due index (a job that finished; it re-checks pending after)."""
        self.r.zrem(_P + "due", ws)

    def claim(
        self,
        limit: int,
        claim_seconds: float,
        now: float | None = None,
        *,
        cap: int | None = None,
    ) -> list[str]:
        """Atomically take up to ``limit`` due, unclaimed workspaces into ``claims`` until
        ``now + claim_seconds`` (lapsed claims first go back to due), and no more than leaves
        ``cap`` claims alive (``maxInflight``), counted in the same script: a ``limit`` read
        before another dispatcher claimed cannot take the fleet past its cap."""
        if limit <= 0:
            return []
        now = self.now() if now is None else now
        keys = [_P + "due", _P + "claims", self._once_key()]
        args = [now, limit, now + claim_seconds, -1 if cap is None else cap]
        return cast(list[str], self._claim(keys=keys, args=args))

    def due(self) -> dict[str, float]:
        return dict(
            cast(list[tuple[str, float]], self.r.zrange(_P + "due", 0, -1, withscores=True))
        )

    def known(self) -> set[str]:
        """Every workspace Redis knows to be due, claimed or parked."""
        pipe = self.r.pipeline(transaction=False)
        for key in ("due", "claims", "parked"):
            pipe.zrange(_P + key, 0, -1)
        return {ws for members in pipe.execute() for ws in members}

    # -- leases and claims -------------------------------------------------------------------------
    def acquire(self, ws: str, token: str, lease_seconds: float, claim_seconds: float) -> bool:
        """Take the workspace's lease (and claim it, for as long as the lease runs) unless another
        job holds it."""
        args = _lease_args(ws, token, lease_seconds, claim_seconds, self.now())
        return bool(self._acquire(keys=[_P + "lease:" + ws, _P + "claims"], args=args))

    def renew(self, ws: str, token: str, lease_seconds: float, claim_seconds: float) -> bool:
        """Extend the lease and the claim (only the lease's holder can); False when it is not
        ours."""
        args = _lease_args(ws, token, lease_seconds, claim_seconds, self.now())
        return bool(self._renew(keys=[_P + "lease:" + ws, _P + "claims"], args=args))

    def release(self, ws: str, token: str) -> bool:
        """Release the lease and the claim if the lease is ours; False (nothing touched)
        otherwise."""
        return bool(self._release(keys=[_P + "lease:" + ws, _P + "claims"], args=[token, ws]))

    def holder(self, ws: str) -> str | None:
        return cast("str | None", self.r.get(_P + "lease:" + ws))

    def inflight(self, now: float | None = None) -> int:
        """Claims alive: jobs dispatched or running whose claim has not lapsed."""
        now = self.now() if now is None else now
        return int(self.r.zcount(_P + "claims", f"({now}", "+inf"))

    # -- budget, counters, rates -------------------------------------------------------------------
    def tokens(self, per_minute: int, debit: float = 0.0) -> float:
        """The token bucket's level after refilling (and debiting ``debit``, once)."""
        args = [self.now(), per_minute / 60.0, per_minute, debit]
        if not debit:
            return float(self._bucket(keys=[_P + "budget"], args=args))
        return float(self._debit(keys=[_P + "budget", self._once_key()], args=args))

    def record_run(self, ws: str, status: str, tokens: int, per_minute: int | None) -> None:
        """Count a finished run (by status, a failure, its model tokens) in the fleet's totals and
        in this 10-second window's rates, fold its tokens into the average run's
        (``next_estimate``) and settle the token bucket for its claim (`settle`): one optimistic
        transaction, done once (``once:<id>``) however often redis-py sends it."""
        window = _P + f"rate:{int(self.now() // _RATE_BUCKET)}"

        def count(pipe: Any) -> None:
            for key in (_P + "stats", window):
                pipe.hincrby(key, "runs", 1)
                pipe.hincrby(key, "tokens", tokens)
                if status in FAILED:
                    pipe.hincrby(key, "failures", 1)
            pipe.hincrby(_P + "stats", f"runs:{status}", 1)
            pipe.expire(window, _RATE_BUCKET * (_RATE_WINDOWS + 2))

        self._end(ws, tokens, per_minute, count)

    def settle(self, ws: str, used: int, per_minute: int | None) -> None:
        """Settle the token bucket for ``ws``'s job: its real use less what its claim reserved (a
        job that ended without a run gives the reservation back). Once per claim: the reservation
        is read and removed in one transaction (two settlements of one claim cannot both give it
        back), and once per call (``once:<id>``: a resent settlement is not a second one)."""
        self._end(ws, used, per_minute, None)

    def _end(
        self, ws: str, used: int, per_minute: int | None, count: Callable[[Any], None] | None
    ) -> None:
        """A job's end in Redis, as one optimistic transaction: the run counted (``count``), the
        average run's tokens, the reservation taken back and the bucket debited the difference,
        and this call's ``once:<id>``. Watched: the estimate and the reservations (read here, so
        two ends at once both count) and the id (a resent EXEC whose reply was lost ends in a
        WatchError from redis-py; the next try finds the id and stops)."""
        once = self._once_key()

        def end(pipe: Any) -> None:
            if pipe.exists(once):
                return
            estimate = _number(pipe.get(_P + "estimate"))
            reserved = _number(pipe.hget(_P + "reserved", ws))
            pipe.multi()
            if count is not None:
                count(pipe)
                if used > 0:
                    pipe.set(_P + "estimate", repr(next_estimate(estimate, used)))
            pipe.hdel(_P + "reserved", ws)
            if per_minute is not None and used != reserved:
                args = [self.now(), per_minute / 60.0, per_minute, used - reserved]
                self._bucket(keys=[_P + "budget"], args=args, client=pipe)
            pipe.set(once, 1, ex=_ONCE_SECONDS)

        self.r.transaction(end, once, _P + "estimate", _P + "reserved")

    def reserve(self, ids: Sequence[str], per_run: float, per_minute: int) -> None:
        """Take ``per_run`` tokens from the bucket for each workspace just claimed, and note them
        for the run's settlement (`record_run`): one script, once. A workspace claimed again while
        its reservation is open (its claim lapsed with its message still queued, or with its job
        running: the second message finds the lease and ends without settling) keeps that
        reservation, not debited again: one job's tokens are counted once, settled by the job that
        took the lease (a second message finding the lease held settles nothing; one run after
        the settlement pays what it used in full)."""
        if not ids:
            return
        self._reserve(
            keys=[_P + "reserved", _P + "budget", self._once_key()],
            args=[self.now(), per_minute / 60.0, per_minute, repr(per_run), *ids],
        )

    def tokens_per_run(self, default: int) -> float:
        """The average run's tokens (``default``, ``tokensPerRun``, until a run has used some)."""
        estimate = _number(self.r.get(_P + "estimate"))
        return estimate if estimate > 0 else float(default)

    # -- outages -----------------------------------------------------------------------------------
    def paused_until(self) -> float:
        """Before this time no job is sent: the model was unavailable (0: no pause)."""
        return _number(self.r.get(_P + "paused-until"))

    def pause(self, now: float, first: float, cap: float) -> float:
        """A run found the model unavailable: unless a pause is on already, pause every dispatch
        for the next outage back-off (``reverie.schedule.policy.retry_delay`` of the pauses in a
        row). Returns when the pause ends. Optimistic (``WATCH``): of the jobs that find the model
        down at once, one starts the pause and the others join it, as in ``serve --root``."""
        import redis

        keys = (_P + "paused-until", _P + "outages")
        with self.r.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(*keys)  # type: ignore[no-untyped-call]
                    until = _number(pipe.get(keys[0]))
                    if now < until:
                        return until
                    n = int(_number(pipe.get(keys[1]))) + 1
                    until = now + retry_delay(n, first, cap)
                    pipe.multi()
                    pipe.set(keys[0], repr(until))
                    pipe.set(keys[1], n)
                    pipe.execute()
                    return until
                except redis.WatchError:
                    continue

    def outage_over(self) -> None:
        """A run reached the model: the next outage's pause starts from the first again."""
        self.r.delete(_P + "outages")

    def totals(self) -> dict[str, int]:
        """The fleet's counters since it began: ``runs``, ``runs:<status>``, ``failures``,
        ``tokens``."""
        return {k: int(v) for k, v in cast(dict[str, str], self.r.hgetall(_P + "stats")).items()}

    def rates(self, now: float | None = None) -> tuple[float, float, float]:
        """Runs, failures and model tokens per minute over about the last minute."""
        now = self.now() if now is None else now
        current = int(now // _RATE_BUCKET)
        first = current - _RATE_WINDOWS + 1
        pipe = self.r.pipeline(transaction=False)
        for b in range(first, current + 1):
            pipe.hmget(_P + f"rate:{b}", ["runs", "failures", "tokens"])
        sums = [0, 0, 0]
        for row in pipe.execute():
            for i, v in enumerate(row):
                sums[i] += int(v or 0)
        span = max(now - first * _RATE_BUCKET, 1.0)
        runs, failures, tokens = (s * 60.0 / span for s in sums)
        return runs, failures, tokens

    # -- crashes, failures, parking ----------------------------------------------------------------
    def started(self, ws: str) -> int:
        """Count a job start (once); returns the number of earlier starts that never finished."""
        return int(self._count(keys=[_P + "crashes", self._once_key()], args=[ws])) - 1

    def finished(self, ws: str) -> None:
        self.r.hdel(_P + "crashes", ws)

    def park(self, ws: str, reason: str) -> None:
        pipe = self.r.pipeline()  # MULTI: all or nothing
        pipe.zrem(_P + "due", ws)
        pipe.zrem(_P + "claims", ws)
        pipe.zadd(_P + "parked", {ws: self.now()})
        pipe.hset(_P + "parked-why", ws, reason)
        pipe.hdel(_P + "crashes", ws)
        pipe.execute()

    def parked(self) -> dict[str, str]:
        """Parked workspaces with their reasons."""
        raw_why = cast(dict[str, str], self.r.hgetall(_P + "parked-why"))
        return {
            ws: raw_why.get(ws, "")
            for ws in cast(Sequence[str], self.r.zrange(_P + "parked", 0, -1))
        }

    def parked_why(self, ws: str) -> str | None:
        """Why ``ws`` is parked ("" when no reason was kept), or None when it is not."""
        pipe = self.r.pipeline(transaction=False)
        pipe.zscore(_P + "parked", ws)
        pipe.hget(_P + "parked-why", ws)
        score, why = pipe.execute()
        return None if score is None else str(why or "")

    def unpark(self, ws: str) -> bool:
        """Let a parked workspace be dispatched again, due now: one script, run once per call
        (``once:<id>``), so a reply lost and the command resent still says it was parked. False
        when it was not parked (nothing is made due then)."""
        keys = [_P + "parked", _P + "parked-why", _P + "due", self._once_key()]
        return bool(self._unpark(keys=keys, args=[ws, self.now()]))

    def failed(self, ws: str) -> int:
        """Count a failed run in a row (once); returns the count."""
        return int(self._count(keys=[_P + "failures", self._once_key()], args=[ws]))

    def succeeded(self, ws: str) -> None:
        self.r.hdel(_P + "failures", ws)

    def set_aside(self, ws: str, count: int) -> None:
        if count:
            self.r.hset(_P + "set-aside", ws, count)
        else:
            self.r.hdel(_P + "set-aside", ws)

    # -- forgetting --------------------------------------------------------------------------------
    def forget(self, prefix: str) -> dict[str, int]:
        """Remove every entry of the workspaces whose id starts with ``prefix`` (a user's digest:
        all the user's scopes): due, claims, parked, leases, crashes, failures, set aside,
        parked-why, reserved tokens, and the writes' replies that name them (``once``). Returns how
        many entries went, by key."""
        removed: dict[str, int] = {}
        match = prefix + "*"
        # The leases first: a job's heartbeat renews its claim only while its lease is there, so
        # once they are gone no renewal can put a claim back after it was removed.
        leases = list(self.r.scan_iter(match=_P + "lease:" + match, count=1000))
        if leases:
            removed["lease"] = int(self.r.delete(*leases))
        for key in ("due", "claims", "parked"):
            members = [m for m, _ in self.r.zscan_iter(_P + key, match=match)]
            if members:
                removed[key] = int(self.r.zrem(_P + key, *members))
        for key in ("crashes", "failures", "set-aside", "parked-why", "reserved"):
            fields = [f for f, _ in self.r.hscan_iter(_P + key, match=match)]
            if fields:
                removed[key] = int(self.r.hdel(_P + key, *fields))
        once = self._forget_once(prefix)
        if once:
            removed["once"] = once
        return removed

    def _forget_once(self, prefix: str) -> int:
        """Remove the ``once:<id>`` replies naming a workspace of ``prefix`` (a claim's reply lists
        the workspaces it claimed), read a thousand at a time."""
        gone = 0
        keys = list(self.r.scan_iter(match=_P + "once:*", count=1000))
        for i in range(0, len(keys), 1000):
            chunk = keys[i : i + 1000]
            values = cast(list["str | None"], self.r.mget(chunk))
            named = [k for k, v in zip(chunk, values, strict=True) if v and prefix in v]
            if named:
                gone += int(self.r.delete(*named))
        return gone

    # -- generation --------------------------------------------------------------------------------
    def generation(self) -> str | None:
        return cast("str | None", self.r.get(_P + "generation"))

    def set_generation(self) -> str:
        """Record a new generation unless one is there (another dispatcher's); returns the one
        kept."""
        self.r.set(_P + "generation", uuid.uuid4().hex, nx=True)
        return cast(str, self.r.get(_P + "generation"))

    def take(self, name: str, token: str, seconds: float) -> bool:
        """Take the right ``name`` (``rebuilding``, ``admitting``) for ``seconds`` (or until
        `give_back`); False when another dispatcher holds it."""
        return bool(self._take(keys=[_P + name], args=[token, max(1, int(seconds * 1000))]))

    def give_back(self, name: str, token: str) -> None:
        """Give the right ``name`` back, if it is still ``token``'s."""
        self._unlock(keys=[_P + name], args=[token])

    def evictions(self) -> tuple[int, int, str] | None:
        """Redis's keys evicted since it started (``INFO stats``), its ``maxmemory`` and its
        ``maxmemory-policy`` (``INFO memory``); None when this Redis does not say (a managed
        service that renames or refuses ``INFO``)."""
        import redis

        pipe = self.r.pipeline(transaction=False)
        pipe.info("stats")
        pipe.info("memory")
        try:
            stats, memory = cast(list[dict[str, Any]], pipe.execute())
        except redis.ResponseError:
            return None
        info = {**memory, **stats}
        if "evicted_keys" not in info:
            return None
        return (
            int(info["evicted_keys"]),
            int(info.get("maxmemory", 0) or 0),
            str(info.get("maxmemory_policy", "")),
        )

    # -- status ------------------------------------------------------------------------------------
    def state(self, tokens_per_minute: int | None, show: int = 10) -> FleetState:
        now = self.now()
        keys = list(self.r.scan_iter(match=_P + "lease:*", count=1000))
        pipe = self.r.pipeline(transaction=False)  # one round trip for every lease's time left
        for key in keys:
            pipe.pttl(key)
        running = {
            str(key)[len(_P + "lease:") :]: ttl / 1000
            for key, ttl in zip(keys, pipe.execute(), strict=True)
            if ttl > 0
        }
        parked = self.parked()
        aside = {
            k: int(v) for k, v in cast(dict[str, Any], self.r.hgetall(_P + "set-aside")).items()
        }
        head = cast(
            list[tuple[str, float]], self.r.zrange(_P + "due", 0, show - 1, withscores=True)
        )
        oldest = now - head[0][1] if head and head[0][1] <= now else 0.0
        runs, failures, tokens = self.rates(now)
        return FleetState(
            due_now=int(self.r.zcount(_P + "due", "-inf", now)),
            waiting=int(self.r.zcount(_P + "due", f"({now}", "+inf")),
            inflight=self.inflight(now),
            running=running,
            parked=parked,
            set_aside=aside,
            tokens=self.tokens(tokens_per_minute) if tokens_per_minute else None,
            next_due=[(ws, score) for ws, score in head],
            oldest_due_seconds=oldest,
            runs_per_minute=runs,
            failures_per_minute=failures,
            tokens_per_minute=tokens,
            totals=self.totals(),
            generation=self.generation(),
            paused_until=self.paused_until(),
            now=now,
        )
