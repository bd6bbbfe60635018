"""Prometheus metrics of the fleet and of ``serve --root`` (prometheus-client, the ``fleet`` extra),
each served over HTTP in Prometheus's text format (``/metrics``):

- ``serve --root --metrics-port N``: the scheduler's `Backlog`, read at each scrape;
- ``reverie fleet dispatch --metrics-port N``: the fleet's state in Redis, fleet-wide, read at each
  scrape (``reverie_redis_up`` 0 while Redis does not answer), and how it compares with the due
  markers on disk;
- ``reverie fleet worker --metrics-port N`` (or ``fleet.workerMetricsPort``): that worker's own
  jobs; its pool processes share the counters through prometheus-client's multiprocess mode (a fresh
  directory per worker, named by ``PROMETHEUS_MULTIPROC_DIR``, set before any pool process starts).

The names, one meaning each (the dispatcher's and ``serve --root``'s mean the same; docs/scale.md
lists the alerts on them):

====================================  =======  ===================================================
``reverie_due_workspaces``            gauge    due now, not yet running
``reverie_waiting_workspaces``        gauge    due later (debounce, back-off, interval)
``reverie_in_flight_runs``            gauge    runs dispatched or running
``reverie_parked_workspaces``         gauge    parked after repeated crashes (fleet)
``reverie_set_aside_batches``         gauge    batches set aside after repeated failures
``reverie_oldest_due_age_seconds``    gauge    how long the longest-waiting due workspace waited
``reverie_runs_total{status}``        counter  runs finished, by status
``reverie_run_failures_total``        counter  runs failed (failed, rejected, error)
``reverie_model_tokens_total``        counter  model tokens the runs used
``reverie_model_paused``              gauge    1 while runs wait out a provider outage
``reverie_redis_up``                  gauge    1 when Redis answered this scrape (dispatcher)
``reverie_redis_rebuilds_total``      counter  due index rebuilt after Redis lost its data
``reverie_due_markers``               gauge    due markers on disk (dispatcher)
``reverie_due_markers_missing``       gauge    of those, unknown to Redis
``reverie_due_missing_age_seconds``   gauge    how long ago the oldest of those was marked
``reverie_worker_jobs_total{status}`` counter  a worker's jobs, by outcome
``reverie_worker_job_seconds``        hist.    a worker's job durations
``reverie_worker_model_tokens_total`` counter  model tokens a worker's runs used
====================================  =======  ===================================================
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..schedule.backlog import Backlog
from .coord import FleetState

if TYPE_CHECKING:
    from prometheus_client.registry import Collector

    from .fleet import Fleet
    from .job import JobOutcome

__all__ = [
    "backlog_of",
    "BacklogCollector",
    "FleetCollector",
    "serve_metrics",
    "start_worker_exporter",
    "stop_worker_exporter",
    "record_job",
]

#: Set in a worker's environment when its exporter runs: jobs then count themselves.
_WORKER_FLAG = "REVERIE_WORKER_METRICS"


def backlog_of(state: FleetState) -> Backlog:
    """The fleet's state as a `Backlog` (the same view ``serve --root`` gives of itself)."""
    runs = {k[5:]: v for k, v in state.totals.items() if k.startswith("runs:")}
    return Backlog(
        due=state.due_now,
        waiting=state.waiting,
        in_flight=state.inflight,
        parked=len(state.parked),
        set_aside=state.set_aside_batches,
        oldest_due_seconds=state.oldest_due_seconds,
        runs_per_minute=state.runs_per_minute,
        failures_per_minute=state.failures_per_minute,
        tokens_per_minute=state.tokens_per_minute,
        runs=runs,
        failures=state.totals.get("failures", 0),
        tokens=state.totals.get("tokens", 0),
        paused=(state.now or time.time()) < state.paused_until,
    )


def _families(b: Backlog) -> Iterator[Any]:
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    for name, doc, value in (
        ("reverie_due_workspaces", "Workspaces due now and not yet running.", b.due),
        ("reverie_waiting_workspaces", "Workspaces due later (debounce, back-off).", b.waiting),
        ("reverie_in_flight_runs", "Dream runs dispatched or running.", b.in_flight),
        ("reverie_parked_workspaces", "Workspaces parked after repeated crashes.", b.parked),
        ("reverie_set_aside_batches", "Batches set aside after repeated failures.", b.set_aside),
        (
            "reverie_oldest_due_age_seconds",
            "How long the longest-waiting due workspace has been due.",
            b.oldest_due_seconds,
        ),
        ("reverie_model_paused", "1 while runs wait out a provider outage.", int(b.paused)),
    ):
        yield GaugeMetricFamily(name, doc, value=value)
    runs = CounterMetricFamily("reverie_runs", "Dream runs finished, by status.", labels=["status"])
    for status, n in sorted(b.runs.items()):
        runs.add_metric([status], n)
    yield runs
    yield CounterMetricFamily(
        "reverie_run_failures", "Dream runs failed (failed, rejected, error).", value=b.failures
    )
    yield CounterMetricFamily("reverie_model_tokens", "Model tokens the runs used.", value=b.tokens)


class BacklogCollector:
    """Metrics of a `Backlog` read at each scrape (``serve --root``: the scheduler's snapshot)."""

    def __init__(self, source: Callable[[], Backlog]) -> None:
        self.source = source

    def collect(self) -> Iterator[Any]:
        yield from _families(self.source())


class FleetCollector:
    """The dispatcher's metrics: the fleet's state in Redis at each scrape, or ``reverie_redis_up``
    0 when Redis does not answer."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet

    def collect(self) -> Iterator[Any]:
        import redis
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        yield CounterMetricFamily(
            "reverie_redis_rebuilds",
            "Due index rebuilt from the disk after Redis lost its data.",
            value=self.fleet.rebuilds,
        )
        try:
            state = self.fleet.status()
        except redis.RedisError:
            yield GaugeMetricFamily("reverie_redis_up", "1 when Redis answered.", value=0)
            return
        yield GaugeMetricFamily("reverie_redis_up", "1 when Redis answered.", value=1)
        yield from _families(backlog_of(state))
        if state.markers is not None:
            yield GaugeMetricFamily(
                "reverie_due_markers", "Due markers on disk.", value=state.markers
            )
            yield GaugeMetricFamily(
                "reverie_due_markers_missing",
                "Due markers on disk that Redis does not know.",
                value=state.markers_missing or 0,
            )
            yield GaugeMetricFamily(
                "reverie_due_missing_age_seconds",
                "How long ago the oldest due marker Redis does not know was marked.",
                value=state.markers_missing_oldest_seconds or 0.0,
            )


def serve_metrics(collector: Collector, port: int, host: str) -> tuple[str, int]:
    """Serve ``collector``'s metrics on ``host:port`` (0: any free port) in a daemon thread;
    returns the address bound."""
    from prometheus_client import CollectorRegistry, start_http_server

    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    server, _thread = start_http_server(port, host, registry)
    return host, int(server.server_port)


def start_worker_exporter(port: int, host: str) -> tuple[str, int]:
    """In a worker's main process, before its pool starts: count the jobs of every pool process
    (prometheus-client's multiprocess mode, in a fresh directory) and serve them."""
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server, values

    registry = CollectorRegistry(auto_describe=False)
    server, _thread = start_http_server(port, host, registry)  # a port in use fails here, first
    path = tempfile.mkdtemp(prefix="reverie-worker-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    os.environ[_WORKER_FLAG] = "1"
    # multiprocess values
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
    multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    return host, int(server.server_port)


def stop_worker_exporter() -> None:
    """At a worker's shutdown: remove its multiprocess directory (it holds only this run's
    counts)."""
    import shutil

    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if os.environ.get(_WORKER_FLAG) == "1" and os.path.basename(path).startswith(
        "reverie-worker-metrics-"
    ):
        shutil.rmtree(path, ignore_errors=True)


_job_metrics: tuple[Any, Any, Any] | None = None


def record_job(outcome: JobOutcome) -> None:
    """Count a finished job in this worker's metrics (a no-op when the worker exports none)."""
    global _job_metrics
    if os.environ.get(_WORKER_FLAG) != "1":
        return
    if _job_metrics is None:
        from prometheus_client import Counter, Histogram

        _job_metrics = (
            Counter("reverie_worker_jobs", "This worker's jobs, by outcome.", ["status"]),
            Histogram(
                "reverie_worker_job_seconds",
                "This worker's job durations.",
                buckets=(0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600),
            ),
            Counter("reverie_worker_model_tokens", "Model tokens this worker's runs used."),
        )
    jobs, seconds, tokens = _job_metrics
    jobs.labels(outcome.status).inc()
    seconds.observe(outcome.seconds)
    tokens.inc(outcome.tokens)
