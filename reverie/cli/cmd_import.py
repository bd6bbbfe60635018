"""``reverie import SOURCE [--from KIND] [--replace]``: restore a bundle, or bring memory in from another tool."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, console, emit_json, open_memory, workspace_of

SOURCES = ("bundle", "nanobot", "claude-code", "mem0")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source",
        help="a bundle from `reverie export`, or with --from the directory or file to bring in",
    )
    p.add_argument(
        "--from",
        dest="kind",
        choices=SOURCES,
        default="bundle",
        help="what SOURCE is: a Reverie bundle (default) or a nanobot workspace, each into an empty "
        "workspace; a Claude Code auto-memory directory or a mem0 JSON export (get_all()), each "
        "added to this workspace as one commit naming it",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="import a bundle or nanobot workspace over a non-empty workspace (moved aside first)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ws = workspace_of(args)
    if args.kind in ("bundle", "nanobot"):
        from ..operations.portability import import_bundle, import_nanobot

        load = import_bundle if args.kind == "bundle" else import_nanobot
        result = load(args.source, ws, replace=args.replace)
    else:
        from ..importers import import_claude_code, import_mem0

        bring = import_claude_code if args.kind == "claude-code" else import_mem0
        with open_memory(args) as memory:
            result = bring(memory, args.source)
    if args.json:
        moved = result.moved_aside
        emit_json(
            {
                "workspace": str(result.workspace),
                "files": result.files,
                "bytes": result.bytes,
                "moved_aside": str(moved) if moved else None,
                "head": result.head,
                "commits": result.commits,
            }
        )
        return 0
    console.print(
        f"imported {result.files} files ({result.bytes:,} bytes) from {args.source} into [bold]{ws.root}[/]"
    )
    if result.moved_aside is not None:
        console.print(f"  the workspace that was there is now {result.moved_aside}")
    for sha in result.commits:
        console.print(f"  committed {sha[:8]} (`reverie show {sha[:8]}`)")
    if result.head is not None and not result.commits:
        console.print(
            f"  memory repository at {result.head[:8]} (`reverie log` lists its versions)"
        )
    return 0
