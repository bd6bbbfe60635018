"""``reverie serve``: run Dream on its schedule (every ``intervalH`` hours, or a legacy ``cron``)
until stopped; with ``--root``, for every scope under the root that has history pending
(``reverie.operations.serve_root``)."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import CommandError
from ._common import console, count, workspace_of
from ._render_dream import print_dream

if TYPE_CHECKING:
    from ..dream import DreamResult
    from ..scopes import ScopeRoot
    from ..workspace import Workspace


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--concurrency",
        type=count(1, 10_000),
        metavar="N",
        help="with --root: Dream runs in flight at once (default: serve.concurrency)",
    )
    p.add_argument(
        "--rescan",
        action="store_true",
        help="with --root: mark every scope with pending history due, then exit (recovery after lost "
        "markers)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    scope = getattr(args, "scope", None)
    if scope is not None and scope[1] is None:
        return _serve_root(args, scope[0])
    if args.concurrency is not None or args.rescan:
        raise CommandError("--concurrency and --rescan go with --root DIR (without --user)")
    from ..dream import serve
    from ..runtime import Runtime

    rt = Runtime(workspace_of(args))
    cfg = rt.config.dream
    every = f"cron '{cfg.cron}'" if cfg.cron else f"every {cfg.interval_h:g} h"
    console.print(f"reverie serve: Dream {every} on {rt.workspace.root} (Ctrl-C to stop)")

    def report(result: DreamResult) -> None:
        console.print(f"[dim]{datetime.now():%Y-%m-%d %H:%M:%S}[/] scheduled Dream run:")
        print_dream(result)

    asyncio.run(serve(rt.dream, on_result=report))
    console.print("reverie serve: stopped")
    return 0


def _serve_root(args: argparse.Namespace, root: ScopeRoot) -> int:
    import asyncio

    from ..operations.serve_root import serve_root

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
        if result.status not in ("ok", "no-change", "nothing-to-do"):
            console.print(
                f"[dim]{datetime.now():%Y-%m-%d %H:%M:%S}[/] {ws.root}: {result.status}"
                + (f" ({result.reason})" if result.reason else "")
            )

    def ready() -> None:
        console.print(
            f"reverie serve: Dream for every due scope under {root.root} (Ctrl-C to stop)"
        )

    sched = asyncio.run(
        serve_root(root, concurrency=args.concurrency, on_result=report, ready=ready)
    )
    console.print(
        f"reverie serve: stopped ({sched.stats.done} runs, {sched.stats.tokens:,} tokens)"
    )
    return 0
