"""``reverie index [--rebuild] [--json]``: bring the search index up to date (or rebuild it from the
files)."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, console, emit_json, open_memory


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rebuild", action="store_true", help="drop the index and rebuild it from the files"
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_memory(args, existing=True) as memory:
        done = memory.reindex(rebuild=args.rebuild)
    stats, embedded, total = done.stats, done.embedded, done.chunks
    data = {
        "added": stats.added,
        "removed": stats.removed,
        "history_entries": stats.history_entries,
        "files_changed": stats.files_changed,
        "rebuilt": stats.rebuilt,
        "embedded": embedded,
        "chunks": total,
    }
    if args.json:
        emit_json(data)
        return 0
    verb = "rebuilt" if stats.rebuilt else "updated"
    console.print(
        f"index {verb}: +{stats.added} −{stats.removed} chunks ({total:,} in all)"
        + (f", {embedded} embedded" if embedded else "")
    )
    return 0
