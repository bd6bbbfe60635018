"""``reverie fleet init|worker|dispatch|status|rebuild-due|mark|unpark``: Dream across machines
(docs/scale.md).

The root of the workspaces is ``--root DIR`` or the config's ``fleet.root``; Redis is
``fleet.brokerUrl``. Each command parses, calls one `reverie.fleet.Fleet` method (or starts Celery's
worker) and renders the result.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import CommandError, ReverieError
from ._common import add_json_flag, console, emit_json, err_console
from ._signals import SAID, exit_status, stopping

if TYPE_CHECKING:
    from ..fleet import Fleet
    from ..fleet.coord import FleetState
    from ..schedule.backlog import Backlog
    from ..storage.config import Config


def configure(p: argparse.ArgumentParser) -> None:
    fs = p.add_subparsers(dest="fleet_command", metavar="ACTION")
    fs.required = True
    w = fs.add_parser("worker", help="run a Celery worker that runs Dream jobs (until SIGTERM)")
    w.add_argument(
        "--concurrency",
        "-c",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: the CPU count)",
    )
    w.add_argument(
        "--pool", choices=["prefork", "threads", "solo"], default="prefork", help="Celery pool"
    )
    w.add_argument("--name", default=None, help="the worker's node name (default: reverie@<host>)")
    w.add_argument(
        "--no-supervise",
        action="store_true",
        help="run Celery in this process (under systemd or Kubernetes, which restart it); by "
        "default a worker that exits by itself is started again",
    )
    _metrics_flag(w, "fleet.workerMetricsPort")
    w.set_defaults(func=run_worker)
    i = fs.add_parser("init", help="record the root's kind (a root of scopes, or plain workspaces)")
    i.add_argument("--kind", choices=["scopes", "plain"], required=True, help="the root's kind")
    i.add_argument(
        "--force", action="store_true", help="replace a kind already recorded (a wrong migration)"
    )
    add_json_flag(i)
    i.set_defaults(func=run_init)
    d = fs.add_parser(
        "dispatch",
        help="admit due workspaces and send their jobs, every fleet.dispatchEverySeconds",
    )
    d.add_argument("--once", action="store_true", help="one tick, then exit")
    _metrics_flag(d, "fleet.dispatchMetricsPort")
    add_json_flag(d)
    d.set_defaults(func=run_dispatch)
    s = fs.add_parser(
        "status", help="backlog, rates, running, set-aside and parked workspaces; Redis vs the disk"
    )
    s.add_argument(
        "--watch",
        action="store_true",
        help="keep showing the backlog and rates (a live line on a terminal; with --json, one "
        "object a line) until Ctrl-C",
    )
    s.add_argument(
        "--every",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="with --watch off a terminal: seconds between lines (default 10)",
    )
    add_json_flag(s)
    s.set_defaults(func=run_status)
    r = fs.add_parser(
        "rebuild-due",
        help="re-derive the due index from the workspaces (after Redis lost its data)",
    )
    add_json_flag(r)
    r.set_defaults(func=run_rebuild)
    m = fs.add_parser(
        "mark", help="make workspaces due (after appending history from outside Reverie)"
    )
    m.add_argument(
        "ids",
        nargs="+",
        metavar="WS",
        help="workspace id: a path under the root, or a scope's name",
    )
    add_json_flag(m)
    m.set_defaults(func=run_mark)
    u = fs.add_parser("unpark", help="let a parked workspace be dispatched again")
    u.add_argument("ids", nargs="+", metavar="WS")
    add_json_flag(u)
    u.set_defaults(func=run_unpark)


def _seconds(text: str) -> float:
    """A period for --every: a finite number of seconds, at least 0.1 (0, negative, nan or inf
    would busy-loop or never print)."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0.1:
        raise argparse.ArgumentTypeError(f"{text} is not a period: give 0.1 seconds or more")
    return value


def _metrics_flag(p: argparse.ArgumentParser, key: str) -> None:
    p.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        metavar="N",
        help=f"serve Prometheus metrics on this port (0: any free one; default: {key})",
    )


def _broker_errors(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Redis down or refusing: one line naming the URL, never a traceback."""

    @functools.wraps(run)
    def wrapped(args: argparse.Namespace) -> int:
        _need_extra()
        import redis

        from ..errors import ReverieError

        try:
            return run(args)
        except redis.RedisError as exc:
            from ..fleet.coord import redact_url

            url = redact_url(_config(args).fleet.broker_url)
            raise ReverieError(f"fleet: Redis at {url} failed: {exc}") from None

    return wrapped


def _need_extra() -> None:
    from ..errors import CommandError

    try:
        import celery  # noqa: F401
        import redis  # noqa: F401
    except ImportError as exc:
        raise CommandError(
            f"reverie fleet needs the `fleet` extra ({exc.name} is missing): "
            "pip install 'reverie[fleet]'"
        ) from None


def _config(args: argparse.Namespace) -> Config:
    from ..storage.config import load_config

    _need_extra()
    config = load_config()
    if getattr(args, "root", None):
        config.fleet.root = str(args.root)
    return config


def _fleet(args: argparse.Namespace) -> Fleet:
    from ..fleet import Fleet

    return Fleet(_config(args))


def run_worker(args: argparse.Namespace) -> int:
    import os
    import socket
    import sys

    from ..fleet.app import make_app
    from ..fleet.supervise import CHILD_ENV, follow_supervisor, supervise

    config = _config(args)
    # fails early, in one line: no fleet.root, a broker URL that is none, a root of scopes that is
    # a link (ScopeRoot refuses it)
    _ = _fleet(args).scopes
    if args.metrics_port is not None and not 0 <= args.metrics_port < 65536:
        raise CommandError(f"--metrics-port {args.metrics_port} is not a port (1-65535)")
    if not args.no_supervise and os.environ.get(CHILD_ENV) != "1":
        argv = [sys.executable, "-m", "reverie", "fleet", "worker", *_worker_flags(args)]
        return supervise(argv, dict(os.environ), say=lambda line: err_console.print(line))
    if os.environ.get(CHILD_ENV) == "1":
        follow_supervisor()
    argv = [
        "worker",
        "-Q",
        config.fleet.queue,
        "--pool",
        args.pool,
        "-l",
        "INFO",
        "-n",
        args.name or f"reverie@{socket.gethostname()}",
    ]
    if args.concurrency:
        argv += ["-c", str(args.concurrency)]
    if args.metrics_port is not None:
        config.fleet.worker_metrics_port = args.metrics_port or None
        if args.metrics_port == 0:
            raise CommandError("a worker's --metrics-port needs a fixed port, not 0")
    return _run_celery(make_app(config), argv)


def _run_celery(app: Any, argv: list[str]) -> int:
    """Run the Celery worker in this process; a worker stopped by a signal ends with the shell's
    status for it (130, 143: a shell or systemd sees the stop it asked for), not Celery's 0."""
    import signal

    from celery.signals import worker_init, worker_shutting_down

    told: list[int] = []

    def note(sig: object = None, **_: object) -> None:
        signum = getattr(signal, str(sig), None)
        if isinstance(signum, int):
            told.append(signum)

    workers: list[Any] = []

    def keep(sender: object = None, **_: object) -> None:
        workers.append(sender)

    worker_shutting_down.connect(note, weak=False)
    worker_init.connect(keep, weak=False)
    try:
        app.worker_main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        worker_shutting_down.disconnect(note)
        worker_init.disconnect(keep)
    # `worker_main` drops the worker's own exit code (Celery's click command exits with it, and
    # the app's `start` swallows that): a worker ended by an "Unrecoverable error" (1) exited 0,
    # and systemd's Restart=on-failure left it dead. Read from the worker itself.
    ended = getattr(workers[-1], "exitcode", None) if workers else None
    if code == 0 and isinstance(ended, int):
        code = ended
    return exit_status(told[0]) if told and code == 0 else code


def _worker_flags(args: argparse.Namespace) -> list[str]:
    out = ["--pool", args.pool]
    if args.concurrency:
        out += ["-c", str(args.concurrency)]
    if args.name:
        out += ["--name", args.name]
    if args.metrics_port is not None:
        out += ["--metrics-port", str(args.metrics_port)]
    if getattr(args, "root", None):
        out = ["--root", str(args.root), *out]
    return out


def run_init(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..storage.scopes import read_root_kind, write_root_kind

    root = Path(_config(args).fleet.root or "")
    if not str(root) or str(root) == ".":
        raise CommandError("fleet init needs --root DIR or fleet.root")
    root.mkdir(parents=True, exist_ok=True)
    try:
        before = read_root_kind(root)
    except ReverieError:
        if not args.force:
            raise
        before = None  # a damaged file: --force replaces it
    kind = write_root_kind(root, args.kind, replace=args.force)
    if kind != args.kind:
        raise CommandError(
            f"{root} is a {kind} root already ({root / 'reverie-root.json'}); --force replaces it"
        )
    said = "already" if before == kind else "now"
    if args.json:
        emit_json({"root": str(root), "kind": kind, "changed": before != kind})
        return 0
    console.print(f"{root} is {said} a {'root of scopes' if kind == 'scopes' else 'plain root'}")
    return 0


@_broker_errors
def run_dispatch(args: argparse.Namespace) -> int:
    import threading

    from ..fleet.app import TASK, make_app

    config = _config(args)
    fleet = _fleet(args)
    app = make_app(config)

    def send(ws: str) -> None:
        app.send_task(TASK, args=[ws], queue=config.fleet.queue)

    if args.once:
        sent = fleet.dispatch_once(send)
        emit_json({"sent": sent}) if args.json else console.print(f"sent {len(sent)} job(s)")
        return 0
    port = (
        args.metrics_port if args.metrics_port is not None else config.fleet.dispatch_metrics_port
    )
    if port is not None:
        from ..fleet.metrics import FleetCollector, serve_metrics

        try:
            host, bound = serve_metrics(FleetCollector(fleet), port, config.fleet.metrics_host)
        except OSError as exc:
            raise CommandError(
                f"cannot serve metrics on {config.fleet.metrics_host}:{port}: {exc.strerror or exc}"
            ) from None
        console.print(f"reverie fleet dispatch: metrics on http://{host}:{bound}/metrics")
    console.print(
        f"reverie fleet dispatch: {fleet.root} every {config.fleet.dispatch_every_seconds:g}s "
        "(Ctrl-C to stop)"
    )
    stop = threading.Event()
    with stopping(stop.set) as caught:  # a tick in flight ends; then one line and 130 or 143
        fleet.serve_dispatch(send, stop)
    if not caught:
        return 0
    err_console.print(f"reverie fleet dispatch: stopped ({SAID[caught[0]]})")
    return exit_status(caught[0])


@_broker_errors
def run_status(args: argparse.Namespace) -> int:
    from ..fleet.metrics import backlog_of
    from ._backlog import backlog_line

    if args.watch:
        return _watch(args)
    fleet = _fleet(args)
    state = fleet.status()
    if args.json:
        emit_json({**dataclasses.asdict(state), "backlog": dataclasses.asdict(backlog_of(state))})
        return 0
    console.print(backlog_line(backlog_of(state)))
    for ws, left in sorted(state.running.items()):
        console.print(f"running  {ws}  (lease {left:.0f}s left)")
    for ws, n in sorted(state.set_aside.items()):
        console.print(f"set aside  {ws}  {n} batch(es) (reverie --root … --user … requeue)")
    for ws, why in sorted(state.parked.items()):
        console.print(f"[yellow]parked[/]  {ws}  {why} (reverie fleet unpark {ws})")
    if state.tokens is not None:
        console.print(f"token budget: {state.tokens:,.0f} tokens")
    now = state.now or time.time()
    if state.paused_until > now:
        console.print(
            f"[yellow]no job is sent for {state.paused_until - now:.0f}s[/]: a run found the "
            "model unavailable (fleet.outageBackoffSeconds, doubling while it stays down)"
        )
    for ws, at in state.next_due[:5]:
        console.print(f"[dim]next  {ws}  in {max(at - now, 0):.0f}s[/]")
    for line in _disagreements(state):
        console.print(f"[yellow]{line}[/]")
    return 0


def _disagreements(state: FleetState) -> list[str]:
    """What Redis and the disk disagree on, each with what will happen about it."""
    out = []
    if state.generation is None:
        out.append(
            "Redis holds no due index generation: it lost its data, or no dispatcher ran yet; a "
            "running dispatcher rebuilds the index from the disk at its next tick (reverie fleet "
            "rebuild-due does it now)"
        )
    if state.markers_missing:
        oldest = state.markers_missing_oldest_seconds
        out.append(
            f"Redis and the disk disagree: {state.markers_missing} of {state.markers} workspace(s) "
            "marked due on disk are unknown to Redis"
            + (f", the oldest marked {oldest:.0f}s ago" if oldest is not None else "")
            + " (new marks wait one dispatcher tick; more, or for longer, means Redis lost data: "
            "the dispatcher takes every marker in within one claim period, reverie fleet "
            "rebuild-due at once)"
        )
    return out


#: How long one read of `fleet status --watch` waits for Redis, untried again: a Redis that hangs
#: holds a tick (and a stop) for this long at most.
WATCH_READ_SECONDS = 1.0


def _watch(args: argparse.Namespace) -> int:
    """Show the backlog until SIGINT or SIGTERM: either sets ``stop`` (it ends the loop at its next
    wait, within `WATCH_READ_SECONDS`: a read never waits longer nor is tried again), then one line
    says it stopped. Handled here rather than as KeyboardInterrupt, which a shell starting the watch
    in the background has ignored (it never stopped) and which landed anywhere, inside a Redis
    read or at the exit. Redis failing: one line when it stops answering, one when it is back."""
    import sys
    import threading

    import redis

    from ..fleet import Fleet
    from ..fleet.coord import Coordinator, redact_url
    from ..fleet.metrics import backlog_of
    from ._backlog import watch

    config = _config(args)
    url = config.fleet.broker_url
    coord = Coordinator.connect(url, timeout=WATCH_READ_SECONDS, retries=0)
    fleet = Fleet(config, coord)
    stop = threading.Event()
    last: list[Backlog] = []
    down: list[str] = []

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def source() -> Backlog:
        try:
            last[:] = [backlog_of(fleet.status(markers=False))]
        except redis.RedisError as exc:
            if not last:
                raise
            if not down:
                down.append(" ".join(str(exc).split()) or type(exc).__name__)
                say(
                    f"reverie fleet status: Redis at {redact_url(url)} is not answering "
                    f"({down[0]}); showing the last state, trying again every "
                    f"{1.0 if sys.stdout.isatty() and not args.json else args.every:g}s"
                )
            return last[0]
        if down:
            down.clear()
            say(f"reverie fleet status: Redis at {redact_url(url)} answers again")
        return last[0]

    with stopping(stop.set) as caught:
        watch(source, stop, as_json=args.json, every=args.every)
    say("reverie fleet status: stopped" + (f" ({SAID[caught[0]]})" if caught else ""))
    return exit_status(caught[0]) if caught else 0


@_broker_errors
def run_rebuild(args: argparse.Namespace) -> int:
    report = _fleet(args).rebuild_due()
    if args.json:
        emit_json(report)
        return 0
    console.print(
        f"scanned {report.scanned} workspace(s): {report.pending} with pending history, "
        f"{report.added} newly due"
        + (f", {report.unreadable} unreadable" if report.unreadable else "")
    )
    return 0


@_broker_errors
def run_mark(args: argparse.Namespace) -> int:
    fleet = _fleet(args)
    marked = {ws: fleet.mark_dirty(ws) for ws in args.ids}
    if args.json:
        emit_json(
            {
                "due": [ws for ws, new in marked.items() if new],
                "already": [ws for ws, new in marked.items() if not new],
            }
        )
        return 0
    for ws, new in marked.items():
        old = "already due or parked (or, Redis down, its mark kept on the disk)"
        console.print(f"{ws}: {'due' if new else old}")
    return 0


@_broker_errors
def run_unpark(args: argparse.Namespace) -> int:
    fleet = _fleet(args)
    missing = [ws for ws in args.ids if not fleet.unpark(ws)]
    if args.json:
        emit_json({"unparked": [ws for ws in args.ids if ws not in missing], "not_parked": missing})
        return 1 if missing else 0
    for ws in missing:
        console.print(f"[yellow]{ws} is not parked[/]")
    return 1 if missing else 0
