"""``reverie --root DIR forget-user ID [--yes]``: delete every scope of a user (workspaces, git
history, sessions, search index, due markers) and say what was removed."""

from __future__ import annotations

import argparse
import sys

from ..errors import CommandError
from ._common import add_json_flag, console, emit_json


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the user id whose memory is deleted")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..operations.forget import forget_user
    from ..scopes import validate_id

    scope = getattr(args, "scope", None)
    if scope is None or scope[1] is not None:
        raise CommandError(
            "forget-user needs --root DIR and takes the user id as its argument, not --user"
        )
    user = validate_id(args.id)
    if not args.yes:
        if not sys.stdin or not sys.stdin.isatty():
            raise CommandError(
                "forget-user deletes a user's memory for good: confirm on a terminal, or pass --yes"
            )
        if input(f"Delete all memory of user {user!r}? [y/N] ").strip().lower() not in ("y", "yes"):
            console.print("nothing changed")
            return 1
    result = forget_user(scope[0], user)
    if args.json:
        emit_json(
            {
                "user": result.user,
                "found": result.found,
                "files": result.files,
                "bytes": result.bytes,
                "due_markers": result.due_markers,
                "tokens_revoked": result.tokens,
                "scopes": [{"user": s.user, "agent": s.agent} for s in result.scopes],
            }
        )
    elif not result.found:
        console.print(f"user {user!r} has no memory under {scope[0].root}: nothing removed")
    else:
        agents = [s.agent for s in result.scopes if s.agent is not None]
        which = f"{len(result.scopes)} scope(s)" + (
            f" (agents: {', '.join(agents)})" if agents else ""
        )
        console.print(
            f"removed user {user!r}: {which}, {result.files} files ({result.bytes:,} bytes: workspaces, "
            f"git history, sessions, search index), {result.due_markers} due marker(s), "
            f"{result.tokens} MCP token(s)"
        )
    return 0
