"""``reverie export [FILE]``: the whole workspace as one bundle (see
``reverie.operations.portability``)."""

from __future__ import annotations

import argparse
import os
from datetime import date

from ._common import add_json_flag, console, emit_json, existing_workspace


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        nargs="?",
        help="where to write the bundle (default: ./reverie-<workspace>-<date>.tar.gz, or with -2, "
        "-3 … added: an earlier bundle is never overwritten)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..operations.portability import export_bundle

    ws = existing_workspace(args)
    dest = args.file or _unused(f"reverie-{ws.root.name}-{date.today().isoformat()}")
    result = export_bundle(ws, dest)
    if args.json:
        skipped = [{"item": s.item, "reason": s.reason} for s in result.skipped]
        emit_json(
            {
                "path": str(result.path),
                "files": result.files,
                "bytes": result.bytes,
                "skipped": skipped,  # as `import --json` names them; the text run warns
            }
        )
    else:
        console.print(
            f"exported {result.files} files ({result.bytes:,} bytes) to [bold]{result.path}[/]"
        )
    return 0


def _unused(stem: str) -> str:
    """``stem.tar.gz``, or the first of ``stem-2.tar.gz``, ``stem-3.tar.gz`` … that is not there: a
    second export on the same day must not replace the first (it may be the only backup)."""
    name, n = f"{stem}.tar.gz", 1
    while os.path.lexists(name):
        n += 1
        name = f"{stem}-{n}.tar.gz"
    return name
