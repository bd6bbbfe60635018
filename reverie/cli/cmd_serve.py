"""``reverie serve``: run Dream on its schedule (every ``intervalH`` hours, or a legacy ``cron``) until stopped."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING

from ._common import console, workspace_of
from ._render_dream import print_dream

if TYPE_CHECKING:
    from ..dream import DreamResult


def configure(p: argparse.ArgumentParser) -> None:
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

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
