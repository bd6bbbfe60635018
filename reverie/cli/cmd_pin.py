"""``reverie pin TEXT [--unpin]``: keep the memory line containing TEXT in the prompt files (never
archived)."""

from __future__ import annotations

import argparse

from rich.markup import escape

from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", help="some words of the line (they must match exactly one line)")
    p.add_argument("--unpin", action="store_true", help="take the pin off instead")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = open_memory(args, existing=True).pin(args.text, unpin=args.unpin)
    if args.json:
        emit_json(result)
        return 0
    state = "unpinned" if args.unpin else "pinned"
    note = f" as {result.commit[:8]}" if result.commit else " (it already was)"
    console.print(f"{state} in {result.path}{note}: {escape(result.line)}")
    return 0
