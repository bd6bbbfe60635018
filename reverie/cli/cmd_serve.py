"""``reverie serve``: run Dream on its schedule (every ``intervalH`` hours, or a legacy ``cron``) until stopped."""

from __future__ import annotations

import argparse

from ._common import console, workspace_of


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="run Dream on its schedule until SIGTERM or Ctrl-C")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ..dream import serve
    from ..runtime import Runtime

    rt = Runtime(workspace_of(args))
    cfg = rt.config.dream
    every = f"cron '{cfg.cron}'" if cfg.cron else f"every {cfg.interval_h:g} h"
    console.print(f"reverie serve: Dream {every} on {rt.workspace.root} (Ctrl-C to stop)")
    asyncio.run(serve(rt.dream))
    console.print("reverie serve: stopped")
    return 0
