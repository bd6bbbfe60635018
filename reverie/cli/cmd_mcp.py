"""``reverie mcp [--http] [--host H] [--port N]``: serve the workspace's memory over the Model
Context Protocol; ``reverie --root DIR mcp --http``: every scope of a root, routed by bearer token;
``reverie --root DIR [--user ID [--agent ID]] mcp token issue|revoke|list``: those tokens."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..errors import CommandError
from ..storage.access import MIN_TOKEN_CHARS, check_token
from ._common import add_json_flag, console, emit_json, existing_workspace, missing_extra

if TYPE_CHECKING:
    from ..memory import Memory
    from ..storage.scopes import ScopeRoot
    from ..storage.workspace import Workspace

#: The environment variable holding the HTTP transport's bearer token (never a command-line
#: argument: those are visible to every user of the machine in the process list).
TOKEN_ENV = "REVERIE_MCP_TOKEN"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP instead of stdio (loopback only unless a token is set)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help=f"address for --http (default 127.0.0.1; any other needs ${TOKEN_ENV})",
    )
    p.add_argument("--port", type=int, default=8765, help="port for --http (default 8765)")
    p.set_defaults(func=run)
    tokens = p.add_subparsers(dest="mcp_command", metavar="token")
    t = tokens.add_parser(
        "token", help="bearer tokens of `mcp --http --root`, each bound to one scope"
    )
    actions = t.add_subparsers(dest="token_command", metavar="ACTION")
    actions.required = True
    issue = actions.add_parser(
        "issue", help="bind a new token to --user/--agent's scope; prints it once"
    )
    issue.add_argument(
        "--label", default="", help="a note shown by `token list` (who or what uses it)"
    )
    issue.add_argument(
        "--stdin",
        action="store_true",
        help=f"read the token from stdin instead of making one "
        f"(at least {MIN_TOKEN_CHARS} characters)",
    )
    add_json_flag(issue)
    issue.set_defaults(func=run_token)
    revoke = actions.add_parser("revoke", help="revoke a token by its id (see `token list`)")
    revoke.add_argument("id", help="the token's id (or the token itself)")
    add_json_flag(revoke)
    revoke.set_defaults(func=run_token)
    listing = actions.add_parser(
        "list", help="the tokens issued: id, scope, label, when (never the tokens)"
    )
    add_json_flag(listing)
    listing.set_defaults(func=run_token)


def run(args: argparse.Namespace) -> int:
    try:
        from ..mcp import serve_http, serve_stdio
    except ImportError as exc:  # the optional dependency is missing
        raise CommandError(missing_extra("reverie mcp", "mcp", exc)) from None

    scope = getattr(args, "scope", None)
    if scope is not None and scope[1] is None:
        return _serve_root(args, scope[0])
    ws = existing_workspace(args)
    target: Workspace | Memory = ws
    # one scope: read empty, created by its first write
    if scope is not None and scope[1] is not None:
        from ..memory import open as open_memory

        target = open_memory(root=scope[0].root, user=scope[1].user, agent=scope[1].agent)
    if not args.http:
        if args.host != "127.0.0.1" or args.port != 8765:
            raise CommandError("--host and --port go with --http")
        if sys.stdin.isatty():  # typed at a terminal, where it would wait without a word
            print(
                f"reverie mcp: serving {ws.root} on stdin/stdout, for an MCP client to start "
                "(`reverie init --for CLIENT` prints its configuration); Ctrl-C stops it",
                file=sys.stderr,
                flush=True,
            )
        serve_stdio(target)
        return 0
    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be 1-65535, not {args.port}")
    token = os.environ.get(TOKEN_ENV) or None
    if token is not None:
        check_token(token)
    serve_http(
        target,
        host=args.host,
        port=args.port,
        token=token,
        ready=lambda url: print(
            f"reverie mcp: serving {ws.root} at {url}"
            + (" (bearer token required)" if token else ""),
            file=sys.stderr,
            flush=True,
        ),
    )
    return 0


def _serve_root(args: argparse.Namespace, root: ScopeRoot) -> int:
    from ..mcp.routing import serve_http_root

    if not args.http:
        raise CommandError(
            "--root without --user serves every scope over "
            "HTTP: add --http (or --user ID for stdio)"
        )
    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be 1-65535, not {args.port}")
    serve_http_root(
        root,
        host=args.host,
        port=args.port,
        ready=lambda url: print(
            f"reverie mcp: serving every scope under {root.root} at {url} "
            "(each bearer token reaches its own scope)",
            file=sys.stderr,
            flush=True,
        ),
    )
    return 0


def run_token(args: argparse.Namespace) -> int:
    from ..storage.access import TokenFile

    scope = getattr(args, "scope", None)
    if scope is None:
        raise CommandError(
            "tokens belong to a root of scopes: give --root DIR (and --user ID to issue)"
        )
    tokens = TokenFile(scope[0])
    if args.token_command == "issue":
        if scope[1] is None:
            raise CommandError("a token is bound to one scope: give --user ID (and --agent ID)")
        given = sys.stdin.readline().strip() if args.stdin else None
        text, record = tokens.issue(scope[1], label=args.label, token=given)
        if args.json:
            emit_json(
                {
                    "id": record.id,
                    "user": record.user,
                    "agent": record.agent,
                    "token": None if given else text,
                }
            )
        else:
            console.print(
                f"token {record.id} bound to {scope[1]}"
                + ("" if given else f":\n{text}\n(shown once; only its hash is kept)")
            )
        return 0
    if args.token_command == "revoke":
        gone = tokens.revoke(args.id)
        if args.json:
            emit_json({"revoked": [r.id for r in gone]})
        elif not gone:
            raise CommandError(f"no token {args.id!r} (see `reverie --root DIR mcp token list`)")
        else:
            console.print(f"revoked token {gone[0].id} of {gone[0].scope}")
        return 0
    records = tokens.records()
    if args.json:
        emit_json(
            [
                {
                    "id": r.id,
                    "user": r.user,
                    "agent": r.agent,
                    "label": r.label,
                    "created": r.created,
                }
                for r in records
            ]
        )
        return 0
    for r in records:
        console.print(
            f"{r.id}  {r.created}  {r.scope}" + (f"  ({r.label})" if r.label else ""), markup=False
        )
    if not records:
        console.print("no tokens issued")
    return 0
