"""``reverie mcp [--http] [--host H] [--port N]``: serve the workspace's memory over the Model Context Protocol."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import CommandError
from ._common import existing_workspace

#: The environment variable holding the HTTP transport's bearer token (never a command-line argument: those
#: are visible to every user of the machine in the process list).
TOKEN_ENV = "REVERIE_MCP_TOKEN"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--http", action="store_true",
                   help="serve streamable HTTP instead of stdio (loopback only unless a token is set)")
    p.add_argument("--host", default="127.0.0.1", help="address for --http (default 127.0.0.1; any other needs "
                                                        f"${TOKEN_ENV})")
    p.add_argument("--port", type=int, default=8765, help="port for --http (default 8765)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..mcp import serve_http, serve_stdio
    except ImportError as exc:  # the optional dependency is missing
        raise CommandError(f"the MCP server needs the `mcp` package ({exc}); install reverie with its lock file") from None

    ws = existing_workspace(args)
    if not args.http:
        if args.host != "127.0.0.1" or args.port != 8765:
            raise CommandError("--host and --port go with --http")
        serve_stdio(ws)
        return 0
    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be 1-65535, not {args.port}")
    token = os.environ.get(TOKEN_ENV) or None
    serve_http(ws, host=args.host, port=args.port, token=token,
               ready=lambda url: print(f"reverie mcp: serving {ws.root} at {url}"
                                       + (" (bearer token required)" if token else ""), file=sys.stderr, flush=True))
    return 0
