"""``reverie serve``: run Dream on its schedule (every ``intervalH`` hours, or a legacy ``cron``)
until stopped; with ``--root``, for every scope under the root that has history pending
(``reverie.schedule.root``)."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import CommandError
from ._common import add_json_flag, console, count, workspace_of
from ._render_dream import print_dream
from ._signals import SAID, exit_status, stopping

if TYPE_CHECKING:
    from ..dream import DreamResult
    from ..schedule.root import RootScheduler
    from ..storage.scopes import ScopeRoot
    from ..storage.workspace import Workspace


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-inflight",
        type=count(1, 10_000),
        metavar="N",
        help="with --root: Dream runs in flight at once (default: serve.maxInflight)",
    )
    # The old name of --max-inflight (one name per knob, as in the config): still taken, not shown.
    p.add_argument(
        "--concurrency", type=count(1, 10_000), dest="max_inflight", help=argparse.SUPPRESS
    )
    p.add_argument(
        "--rescan",
        action="store_true",
        help="with --root: mark every scope with pending history "
        "due, then exit (recovery after lost markers)",
    )
    p.add_argument(
        "--metrics-port",
        type=count(0, 65535),
        metavar="N",
        help="with --root: serve Prometheus metrics on this port (0: any free one; default: "
        "serve.metricsPort; needs the fleet extra)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    scope = getattr(args, "scope", None)
    if scope is not None and scope[1] is None:
        return _serve_root(args, scope[0])
    if args.max_inflight is not None or args.rescan or args.metrics_port is not None or args.json:
        raise CommandError(
            "--max-inflight, --rescan, --metrics-port and --json go with --root DIR "
            "(without --user)"
        )
    from ..memory.runtime import Runtime
    from ..schedule.workspace import serve

    rt = Runtime(workspace_of(args))
    cfg = rt.config.dream
    every = f"cron '{cfg.cron}'" if cfg.cron else f"every {cfg.interval_h:g} h"

    def report(result: DreamResult) -> None:
        console.print(f"[dim]{datetime.now():%Y-%m-%d %H:%M:%S}[/] scheduled Dream run:")
        print_dream(result)

    async def until_stopped() -> list[int]:
        loop, stop = asyncio.get_running_loop(), asyncio.Event()
        with stopping(lambda: loop.call_soon_threadsafe(stop.set)) as caught:
            console.print(f"reverie serve: Dream {every} on {rt.workspace.root} (Ctrl-C to stop)")
            await serve(rt.dream, stop=stop, handle_signals=False, on_result=report)
        return caught

    caught = asyncio.run(until_stopped())
    console.print("reverie serve: stopped" + (f" ({SAID[caught[0]]})" if caught else ""))
    return exit_status(caught[0]) if caught else 0


def _serve_root(args: argparse.Namespace, root: ScopeRoot) -> int:
    import asyncio
    import threading

    from ..memory.runtime import Runtime
    from ..schedule.root import check_root, serve_root
    from ._backlog import watch

    check_root(root)  # a missing root, or a workspace: one line, before anything is served
    if args.rescan:
        from ..memory import open as open_memory

        def pending(ws: Workspace) -> int:
            with open_memory(ws) as memory:
                return memory.pending()

        marked = root.rescan(pending)
        console.print(
            f"reverie serve: {marked} scope(s) with pending history marked due under {root.root}"
        )
        return 0

    def report(ws: Workspace, result: DreamResult) -> None:
        if result.status not in ("ok", "no-change", "nothing-to-do") and not args.json:
            console.print(
                f"[dim]{datetime.now():%Y-%m-%d %H:%M:%S}[/] {ws.root}: {result.status}"
                + (f" ({result.reason})" if result.reason else "")
            )

    def ready() -> None:
        if not args.json:
            console.print(
                f"reverie serve: Dream for every due scope under {root.root} (Ctrl-C to stop)"
            )

    watching = threading.Event()
    threads: list[threading.Thread] = []

    def started(sched: RootScheduler) -> None:
        _export_metrics(args, sched)
        every = sched.settings.progress_seconds
        thread = threading.Thread(
            target=watch,
            args=(lambda: sched.snapshot, watching),
            kwargs={"as_json": args.json, "every": every},
            name="reverie-serve-progress",
            daemon=True,
        )
        thread.start()
        threads.append(thread)

    async def until_stopped() -> tuple[RootScheduler, list[int]]:
        loop, stop = asyncio.get_running_loop(), asyncio.Event()
        with stopping(lambda: loop.call_soon_threadsafe(stop.set)) as caught:
            sched = await serve_root(
                root,
                lambda ws: Runtime(ws).dream,
                max_inflight=args.max_inflight,
                stop=stop,
                handle_signals=False,
                on_result=report,
                ready=ready,
                started=started,
            )
        return sched, caught

    try:
        sched, caught = asyncio.run(until_stopped())
    finally:
        watching.set()
        for thread in threads:
            thread.join(5)
    if not args.json:
        console.print(
            f"reverie serve: stopped ({sched.stats.done} runs, {sched.stats.tokens:,} tokens"
            + (f"; {SAID[caught[0]]})" if caught else ")")
        )
    return exit_status(caught[0]) if caught else 0


def _export_metrics(args: argparse.Namespace, sched: RootScheduler) -> None:
    port = args.metrics_port if args.metrics_port is not None else sched.settings.metrics_port
    if port is None:
        return
    try:
        from ..fleet.metrics import BacklogCollector, serve_metrics
    except ImportError as exc:  # pragma: no cover - the module itself is always there
        raise CommandError(str(exc)) from None
    try:
        host, bound = serve_metrics(
            BacklogCollector(lambda: sched.snapshot), port, sched.settings.metrics_host
        )
    except ImportError:
        raise CommandError(
            "--metrics-port needs prometheus-client (the `fleet` extra): "
            "pip install 'reverie[fleet]'"
        ) from None
    except OSError as exc:
        raise CommandError(
            f"cannot serve metrics on {sched.settings.metrics_host}:{port}: {exc.strerror or exc}"
        ) from None
    if not args.json:
        console.print(f"reverie serve: metrics on http://{host}:{bound}/metrics")
