"""``reverie --root DIR legacy-ids [migrate ID [--to NEW]]``: the users an older version recorded
under ids this one changes (NFKC) or refuses (mixed scripts, invisible characters), and the
migration of one to an id of today (``reverie.operations.legacy_ids``). Forgetting one is
``forget-user``."""

from __future__ import annotations

import argparse
import dataclasses

from ..errors import CommandError
from ._common import add_json_flag, console, emit_json


def configure(p: argparse.ArgumentParser) -> None:
    p.set_defaults(func=run_list)
    add_json_flag(p)
    sub = p.add_subparsers(dest="legacy_command", metavar="ACTION")
    m = sub.add_parser("migrate", help="give a user recorded under an old id an id of today")
    m.add_argument("recorded", metavar="ID", help="the id as the older version recorded it")
    m.add_argument("--to", default=None, help="the new id (default: the id it reads as today)")
    add_json_flag(m)
    m.set_defaults(func=run_migrate)


def _root(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    scope = getattr(args, "scope", None)
    if scope is None or scope[1] is not None:
        raise CommandError("legacy-ids needs --root DIR (and no --user)")
    return scope[0]


def run_list(args: argparse.Namespace) -> int:
    from ..operations.legacy_ids import legacy_users

    users = legacy_users(_root(args))
    if args.json:
        emit_json({"users": [dataclasses.asdict(u) for u in users]})
        return 0
    if not users:
        console.print("no user recorded under an id this version changes or refuses")
        return 0
    for u in users:
        shown = u.user.encode("unicode_escape").decode("ascii")
        fix = (
            f"reverie --root … legacy-ids migrate '{shown}'"
            if u.now is not None
            else f"reverie --root … legacy-ids migrate '{shown}' --to NEW_ID"
        )
        console.print(f"{shown!r}  users/{u.digest[:2]}/{u.digest[2:4]}/{u.digest}  {u.problem}")
        console.print(
            f"  [dim]migrate: {fix}; or forget: reverie --root … forget-user '{shown}'[/]"
        )
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    from ..operations.legacy_ids import migrate
    from .cmd_forget_user import _fleet_hook

    root = _root(args)
    done = migrate(root, args.recorded, args.to, outside=_fleet_hook(root.root))
    if args.json:
        emit_json(dataclasses.asdict(done))
        return 0
    console.print(
        f"{done.recorded!r} is {done.user!r} now: {done.tokens} MCP token(s) rebound, "
        f"{done.markers} due marker(s) moved"
    )
    return 0
