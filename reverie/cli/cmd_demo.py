"""``reverie [-w WS] demo [DIR]``: replay a built-in conversation, consolidate, dream, inspect and
restore (run_demo).

Where: DIR; else WS when it is new or empty; else a new temporary directory — never into a workspace
with content. The model: the one configured for WS (``-w``, else ``$REVERIE_WORKSPACE`` or the
default workspace), else offline.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ._common import add_json_flag, console, emit_json, workspace_of
from ._render import markdown


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        help="a new or empty directory for the demo workspace "
        "(default: -w's when new or empty, else a temp dir)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from rich.rule import Rule

    from ..chat.demo import is_free, run_demo
    from ..llm.activity import ModelActivity
    from ._status import StatusLine

    ws = workspace_of(args)
    ws.check()  # -w naming a file: the same one-line error as every command
    source = ws.root
    if args.dir is not None:
        root = args.dir
    elif args.workspace and is_free(source):
        root = source
    else:
        root = Path(tempfile.mkdtemp(prefix="reverie-demo-")) / "workspace"
    # The source workspace's configuration, unless the demo runs in it (then it is the demo's own,
    # loaded there).
    borrowed = source.is_dir() and not is_free(source) and source.resolve() != root.resolve()
    config = None
    if borrowed:
        from ..storage.config import load_config

        config = load_config(source)

    def say(title: str, text: str) -> None:
        if not args.json:
            console.print(Rule(title, align="left", style="cyan"))
            console.print(markdown(text), soft_wrap=False)

    activity = ModelActivity()
    with StatusLine(activity, enabled=not args.json):
        report = asyncio.run(
            run_demo(
                root,
                say,
                config=config,
                config_from=str(source) if borrowed else None,
                activity=activity,
            )
        )
    if args.json:
        emit_json(report)
    else:
        console.print(Rule(style="cyan"))
        me = invocation()
        console.print(
            f"Done in {report.seconds:.1f} s. The workspace stays at [bold]{report.workspace}[/]. "
            f"In a shell: `{me} -w {report.workspace} log` or `{me} -w {report.workspace} chat` "
            "(in the chat, /dream-log and /dream-restore are the commands used above)."
        )
    return 0


def invocation() -> str:
    """How the person can run this same ``reverie`` again from where they are: ``reverie`` when
    that name on PATH is this program, else the path they ran (``.venv/bin/reverie``, with no
    activated environment), or ``python -m reverie``."""
    ran = Path(sys.argv[0])
    if ran.name == "__main__.py":
        return f"{_shown(Path(sys.executable))} -m reverie"
    on_path = shutil.which("reverie")
    if on_path and Path(on_path).resolve() == ran.resolve():
        return "reverie"
    return _shown(ran)


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path) if not path.is_absolute() else str(path)
    except ValueError:
        return str(path)
