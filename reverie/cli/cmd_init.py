"""``reverie init``: create the workspace layout and starter memory files."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, console, emit_json, workspace_of


def configure(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..gitstore import GitStore

    ws = workspace_of(args)
    created = ws.init()
    git = GitStore(ws, load_config(ws.root).git)
    git.ensure()  # the memory repo and its first commit: every later change is versioned from the start
    git.close()
    if args.json:
        emit_json({"workspace": str(ws.root), "created": created})
    else:
        console.print(f"workspace [bold]{ws.root}[/]")
        for rel in created:
            console.print(f"  created {rel}")
        if not created:
            console.print("  already initialised")
    return 0
