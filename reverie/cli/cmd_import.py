"""``reverie import SOURCE [--from KIND] [--replace]``: restore a bundle, or bring memory in from
another tool (``reverie.importers.import_from``); every item left out is named with the reason."""

from __future__ import annotations

import argparse
import dataclasses

from ._common import add_json_flag, console, emit_json, workspace_of

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
        help="what SOURCE is: a Reverie bundle (default) or a nanobot workspace, each into an "
        "empty workspace; Claude Code memory (CLAUDE.md, a project folder, ~/.claude or "
        "an auto-memory folder) or a mem0 JSON export (get_all()), each added to this "
        "workspace; a mem0 export with --root and no --user goes into one scope per user",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="import a bundle or nanobot workspace over a non-empty workspace (moved aside first)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..memory.importers import import_from

    scope = getattr(args, "scope", None)
    root = scope[0].root if scope is not None else None
    result = import_from(
        args.source,
        args.kind,
        workspace=None if root is not None else workspace_of(args).root,
        root=root,
        user=args.user if root is not None else None,
        agent=args.agent if root is not None else None,
        replace=args.replace,
    )
    if args.json:
        out = dataclasses.asdict(result)
        out.update(
            workspace=str(result.workspace),
            moved_aside=str(result.moved_aside) if result.moved_aside else None,
            scopes=[{**s, "workspace": str(s["workspace"])} for s in out["scopes"]],
        )
        emit_json(out)
        return 0
    what = f"{result.files} files ({result.bytes:,} bytes)" if result.files else ""
    items = f"{result.items} memories" if result.items else ""
    console.print(
        f"imported {' and '.join(x for x in (what, items) if x) or 'nothing new'} from "
        f"{args.source} into [bold]{result.workspace}[/]"
    )
    if result.user is not None:
        console.print(f"  mem0 user {result.user}'s memories: this workspace is now theirs")
    for scope_import in result.scopes:
        agent = f" agent {scope_import.agent}" if scope_import.agent else ""
        console.print(f"  user {scope_import.user}{agent}: {scope_import.items} memories")
    if result.moved_aside is not None:
        console.print(f"  the workspace that was there is now {result.moved_aside}")
    for sha in result.commits:
        console.print(f"  committed {sha[:8]} (`reverie show {sha[:8]}`)")
    if result.head is not None and not result.commits:
        console.print(
            f"  memory repository at {result.head[:8]} (`reverie log` lists its versions)"
        )
    if result.redacted:
        console.print(f"  {result.redacted} credential(s) redacted on the way in")
    if result.kept:
        console.print(
            f"  kept as they are, not memory ({len(result.kept)}): " + ", ".join(result.kept),
            markup=False,
        )
    if result.skipped:
        console.print(f"  not imported ({len(result.skipped)}):")
        for skipped in result.skipped:
            console.print(f"    {skipped}", markup=False)
    return 0
