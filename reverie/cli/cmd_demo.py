"""``reverie demo [DIR]``: replay a built-in conversation, consolidate, dream, inspect and restore (run_demo)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ._common import add_json_flag, console, emit_json
from ._render import markdown


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", type=Path, help="a new or empty directory for the demo workspace")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from rich.rule import Rule

    from ..demo import run_demo

    root = args.dir or Path(tempfile.mkdtemp(prefix="reverie-demo-")) / "workspace"

    def say(title: str, text: str) -> None:
        if not args.json:
            console.print(Rule(title, align="left", style="cyan"))
            console.print(markdown(text), soft_wrap=False)

    report = asyncio.run(run_demo(root, say))
    if args.json:
        emit_json(report)
    else:
        console.print(Rule(style="cyan"))
        console.print(f"Done in {report.seconds:.1f} s. The workspace stays at [bold]{report.workspace}[/]: try "
                      f"`reverie -w {report.workspace} log` or `reverie -w {report.workspace} chat`.")
    return 0
