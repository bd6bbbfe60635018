"""``reverie init``: create the workspace layout and starter memory files."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        ws = memory.workspace
        created = memory.init()
    if args.json:
        emit_json({"workspace": str(ws.root), "created": created})
    else:
        console.print(f"workspace [bold]{ws.root}[/]")
        for rel in created:
            console.print(f"  created {rel}")
        if not created:
            console.print("  already initialised")
    return 0
