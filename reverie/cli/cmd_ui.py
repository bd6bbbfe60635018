"""``reverie ui [--port N] [--no-browser] [--host H --token-file F]``: the local web app
(``reverie.ui``), for one workspace, or with ``--root DIR`` (no ``--user``) for every scope of the
root behind a user picker."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import CommandError
from ._common import missing_extra, open_memory

DEFAULT_PORT = 8766


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to listen on (default {DEFAULT_PORT}; 0: any free one)",
    )
    p.add_argument(
        "--no-browser", action="store_true", help="print the address; do not open a browser"
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any non-loopback one needs --token-file)",
    )
    p.add_argument(
        "--token-file",
        metavar="F",
        help="file holding the access token (one word, 24+ characters) instead of a random one",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401  (the server imports it when it starts: check it now)

        from ..ui import serve, serve_root
    except ImportError as exc:  # the optional dependencies are missing
        raise CommandError(missing_extra("reverie ui", "ui", exc)) from None

    if not 0 <= args.port < 65536:
        raise CommandError(f"--port must be 0-65535, not {args.port}")
    root, scope = getattr(args, "scope", None) or (None, None)
    if root is not None and scope is None:  # --root without --user: every scope, behind a picker
        what = f"every scope under {root.root}"
        if not root.root.is_dir():  # a typo shows an empty picker: say why it is empty
            what += " (none yet: that folder does not exist; a scope's first write creates it)"
        serve_root(root, **_options(args, what))
        return 0
    with open_memory(args, existing=True) as memory:
        serve(memory, **_options(args, str(memory.workspace.root)))
    return 0


def _options(args: argparse.Namespace, what: str) -> dict[str, Any]:
    """What ``serve`` / ``serve_root`` take from the command line, and what they print."""

    def ready(url: str) -> None:
        how = (
            f"sign in with the token in {args.token_file}"
            if args.token_file
            else "it signs one browser in, once"
        )
        _say(f"reverie ui: serving {what}\n  open {url}  ({how})\n  (Ctrl-C stops it)")

    def renewed(url: str) -> None:
        _say(f"reverie ui: a browser signed in; to sign in another, open {url}")

    return {
        "host": args.host,
        "port": args.port,
        "token_file": args.token_file,
        "ready": ready,
        "renewed": renewed,
        "browser": not args.no_browser,
    }


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
