"""``reverie fleet worker|dispatch|status|rebuild-due|mark|unpark``: Dream across machines
(docs/scale.md).

The root of the workspaces is ``--root DIR`` or the config's ``fleet.root``; Redis is
``fleet.brokerUrl``. Each command parses, calls one `reverie.fleet.Fleet` method (or starts Celery's
worker) and renders the result.
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ._common import add_json_flag, console, emit_json

if TYPE_CHECKING:
    from ..config import Config
    from ..fleet import Fleet


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
    w.set_defaults(func=run_worker)
    d = fs.add_parser(
        "dispatch",
        help="admit due workspaces and send their jobs, every fleet.dispatchEverySeconds",
    )
    d.add_argument("--once", action="store_true", help="one tick, then exit")
    add_json_flag(d)
    d.set_defaults(func=run_dispatch)
    s = fs.add_parser("status", help="due, running, set-aside and parked workspaces")
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
    m.set_defaults(func=run_mark)
    u = fs.add_parser("unpark", help="let a parked workspace be dispatched again")
    u.add_argument("ids", nargs="+", metavar="WS")
    u.set_defaults(func=run_unpark)


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
            url = _config(args).fleet.broker_url
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
    from ..config import load_config

    _need_extra()
    config = load_config()
    if getattr(args, "root", None):
        config.fleet.root = str(args.root)
    return config


def _fleet(args: argparse.Namespace) -> Fleet:
    from ..fleet import Fleet

    return Fleet(_config(args))


def run_worker(args: argparse.Namespace) -> int:
    import socket

    from ..fleet.app import make_app

    config = _config(args)
    _fleet(args)  # fails early, in one line, without fleet.root
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
    make_app(config).worker_main(argv)
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
    console.print(
        f"reverie fleet dispatch: {fleet.root} every {config.fleet.dispatch_every_seconds:g}s "
        "(Ctrl-C to stop)"
    )
    stop = threading.Event()
    try:
        fleet.serve_dispatch(send, stop)
    except KeyboardInterrupt:
        stop.set()
    return 0


@_broker_errors
def run_status(args: argparse.Namespace) -> int:
    state = _fleet(args).status()
    if args.json:
        emit_json(state)
        return 0
    console.print(
        f"due now {state.due_now}, due later or dispatched {state.waiting}, in flight {state.inflight}"
    )
    for ws, left in sorted(state.running.items()):
        console.print(f"running  {ws}  (lease {left:.0f}s left)")
    for ws, n in sorted(state.set_aside.items()):
        console.print(f"set aside  {ws}  {n} batch(es) (reverie --root … --user … requeue)")
    for ws, why in sorted(state.parked.items()):
        console.print(f"[yellow]parked[/]  {ws}  {why} (reverie fleet unpark {ws})")
    if state.tokens is not None:
        console.print(f"token budget: {state.tokens:,.0f} tokens")
    now = time.time()
    for ws, at in state.next_due[:5]:
        console.print(f"[dim]next  {ws}  in {max(at - now, 0):.0f}s[/]")
    return 0


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
    for ws in args.ids:
        console.print(f"{ws}: {'due' if fleet.mark_dirty(ws) else 'already due (or parked)'}")
    return 0


@_broker_errors
def run_unpark(args: argparse.Namespace) -> int:
    fleet = _fleet(args)
    missing = [ws for ws in args.ids if not fleet.unpark(ws)]
    for ws in missing:
        console.print(f"[yellow]{ws} is not parked[/]")
    return 1 if missing else 0
