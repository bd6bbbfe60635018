"""``reverie gc``: pack the memory repo's loose objects."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    open_memory(args, existing=True).gc()
    if args.json:
        emit_json({"ok": True})
    else:
        console.print("memory repository packed")
    return 0
