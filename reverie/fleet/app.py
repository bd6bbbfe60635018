"""The fleet's Celery application: one task, ``reverie.fleet.dream(ws)``, that calls
`Fleet.run_job`.

Settings that make a killed worker lose nothing: ``task_acks_late`` (ack after the job),
``task_reject_on_worker_ lost`` (a killed pool child's message is requeued, not acked),
``worker_prefetch_multiplier=1`` (no hoarding). Time limits come from Dream's own: soft =
``drainMaxSeconds`` + ``maxSeconds`` (a drain may finish its last batch), hard = soft + 60 s. The
broker's visibility timeout is twice the hard limit, so a long job is not redelivered while it runs;
a dead worker's job comes back sooner through the due index's claim (``claimSeconds``). A duplicate
delivery finds the lease held and does nothing.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from ..errors import cause_chain
from ..storage.config import Config, load_config

if TYPE_CHECKING:
    from celery import Celery

    from .fleet import Fleet

__all__ = ["make_app", "TASK"]

TASK = "reverie.fleet.dream"
log = logging.getLogger(__name__)

_fleet: tuple[int, Fleet] | None = None  # one Fleet (one Redis pool) per worker process


def _process_fleet(config: Config) -> Fleet:
    global _fleet
    if _fleet is None or _fleet[0] != os.getpid():
        from .fleet import Fleet

        _fleet = (os.getpid(), Fleet(config))
    return _fleet[1]


def make_app(config: Config | None = None) -> Celery:
    """The Celery app of the fleet configured by ``config`` (default: the home config and
    environment)."""
    from celery import Celery

    from .coord import check_broker_url

    config = config if config is not None else load_config()
    fc, dc = config.fleet, config.dream
    check_broker_url(fc.broker_url)
    soft = dc.drain_max_seconds + dc.max_seconds
    app = Celery("reverie.fleet", broker=fc.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=soft,
        task_time_limit=soft + 60,
        task_ignore_result=True,
        task_default_queue=fc.queue,
        broker_transport_options={"visibility_timeout": int(2 * (soft + 60))},
        broker_connection_retry_on_startup=True,
        # Celery gives up after 100 reconnects (about 46 minutes) by default; a fleet worker keeps
        # trying for as long as Redis is down, its wait capped (one line per try)
        broker_connection_max_retries=None,
        # a Redis that answers but refuses writes (``maxmemory`` reached under noeviction: OOM;
        # a replica, or ``min-replicas-to-write`` unmet: READONLY, NOREPLICAS; a failed save:
        # MISCONF) is a channel error to kombu, which Celery counted as an "Unrecoverable error":
        # the worker exited at its next ack, or at its start, and drained nothing once Redis took
        # writes again. Retried as a lost connection instead (one line per try, capped back-off)
        broker_channel_error_retry=True,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_max_tasks_per_child=200,
        worker_hijack_root_logger=False,
    )

    @app.task(name=TASK)  # type: ignore[untyped-decorator]
    def dream(ws: object = None, *extra: object, **named: object) -> dict[str, Any]:
        from .metrics import record_job

        if not isinstance(ws, str) or extra or named:
            # a message no dispatcher sends (sent by hand, or by another program on the queue):
            # one line, acked and dropped — it would fail alike each time it came back
            shown = repr((ws, *extra, *named.items()))[:120]
            log.error("fleet: a job whose arguments are not one workspace id dropped: %s", shown)
            return {"ws": None, "status": "error", "reason": "not a workspace id"}
        outcome = _process_fleet(config).run_job(ws)
        log.info(
            "fleet: %s %s%s", ws, outcome.status, f": {outcome.reason}" if outcome.reason else ""
        )
        record_job(outcome)
        return outcome.to_json()

    if fc.worker_metrics_port is not None:
        from celery import signals

        def start_exporter(**_: object) -> None:
            from .metrics import start_worker_exporter

            try:
                host, port = start_worker_exporter(fc.worker_metrics_port or 0, fc.metrics_host)
            except OSError as exc:
                log.error(
                    "fleet worker: cannot serve metrics on %s:%s (%s); running without them",
                    fc.metrics_host,
                    fc.worker_metrics_port,
                    exc.strerror or exc,
                )
                return
            log.warning("fleet worker: metrics on http://%s:%d/metrics", host, port)

        def drop_metrics(**_: object) -> None:
            from .metrics import stop_worker_exporter

            stop_worker_exporter()

        signals.worker_init.connect(start_exporter, weak=False)
        signals.worker_shutdown.connect(drop_metrics, weak=False)
    quiet_broker_tracebacks()
    return app


class _OneLine(logging.Filter):
    """Celery logs a lost or refused broker connection with its traceback; this keeps the message
    (which says what Celery will do: reconnect, and when) on one line, with the error's text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and _worker_lost(record.exc_info[1]):
            # a pool process killed under its job (the OOM killer, kill -9, the hard time limit):
            # billiard's traceback says nothing more than its message; what follows is the fleet's
            text = " ".join(record.getMessage().split())
            record.msg = (
                f"{text} (its message is requeued; its workspace is sent again once its claim "
                "lapses)"
            )
            record.args = None
            record.exc_info = None
            record.exc_text = None
            return True
        if record.exc_info and _restarts_too_often(record.exc_info[1]):
            # the consumer restarted five times in a second (a Redis that connects and refuses
            # every write): Celery waits a second and goes on; its traceback says nothing more
            text = " ".join(record.getMessage().split())
            record.msg = f"{text} (Celery waits 1 s and connects again)"
            record.args = None
            record.exc_info = None
            record.exc_text = None
            return True
        if record.exc_info and record.exc_info[1] is not None:
            exc = _broker_cause(record.exc_info[1])
            if exc is not None:
                text = " ".join(str(exc).split()) or type(exc).__name__
                record.msg = f"{record.getMessage()} ({type(exc).__name__}: {text})"
                record.args = None
                record.exc_info = None
                record.exc_text = None
        if record.name.startswith(("celery.worker.consumer", "kombu")):
            text = (
                record.getMessage()
            )  # "Cannot connect to …:\nTrying again in 2s… (1/∞)\n": one line
            if "\n" in text.strip():
                record.msg, record.args = " ".join(text.split()), None
        return True


def _worker_lost(exc: BaseException | None) -> bool:
    """Whether ``exc`` is billiard's ``WorkerLostError`` (a pool process that died), as Celery
    logs it: the error itself, or billiard's wrapper of it (``ExceptionWithTraceback``)."""
    from billiard.einfo import ExceptionWithTraceback  # type: ignore[import-untyped]
    from billiard.exceptions import WorkerLostError  # type: ignore[import-untyped]

    if isinstance(exc, ExceptionWithTraceback):
        exc = exc.exc
    return isinstance(exc, WorkerLostError)


def _restarts_too_often(exc: BaseException | None) -> bool:
    """Whether ``exc`` is billiard's ``RestartFreqExceeded`` (Celery's consumer restarting in a
    loop)."""
    from billiard.exceptions import RestartFreqExceeded

    return isinstance(exc, RestartFreqExceeded)


def _broker_cause(exc: BaseException) -> BaseException | None:
    """The broker error ``exc`` is, or was raised while handling (Celery's consumer restarting its
    steps after a lost connection fails inside kombu with an ``AttributeError`` whose context is
    the ``ConnectionError``: seen as "Error on restarting Gossip"); None if there is none."""
    import kombu.exceptions
    import redis

    broker = (redis.RedisError, kombu.exceptions.OperationalError, ConnectionError)
    return next((e for e in cause_chain(exc) if isinstance(e, broker)), None)


class _NoNotice(logging.Filter):
    """Celery 5's notice that a future default will cancel late-acked jobs on a lost connection
    (a dozen lines at every lost connection, through ``py.warnings``): this app sets
    ``worker_cancel_long_running_tasks_on_connection_loss`` itself, on purpose (the lease
    decides)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "worker_cancel_long_running_tasks_on_connection_loss" not in record.getMessage()


_FILTER = _OneLine()
_NOTICE = _NoNotice()


def quiet_broker_tracebacks() -> None:
    """Install `_OneLine` and `_NoNotice` on the handlers Celery's logging ends in (every logger's
    records pass them: Celery's consumer, kombu's timer and transport, the warnings), once Celery
    has set its logging up, and on the root logger's handlers now (idempotent)."""
    from celery import signals

    def install(logger: logging.Logger | None = None, **_: object) -> None:
        for handler in (logger or logging.getLogger()).handlers:
            for f in (_FILTER, _NOTICE):
                if f not in handler.filters:
                    handler.addFilter(f)

    signals.after_setup_logger.connect(install, weak=False)
    install()
