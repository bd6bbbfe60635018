"""``reverie --root DIR forget-user ID [--yes]``: delete every scope of a user (workspaces, git
history, sessions, search index, due markers) and say what was removed."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CommandError, ReverieError
from ._common import add_json_flag, console, emit_json

if TYPE_CHECKING:
    from ..storage.scopes import ForgetResult


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the user id whose memory is deleted")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..operations.forget import ForgetIncomplete, forget_targets, forget_user

    scope = getattr(args, "scope", None)
    if scope is None or scope[1] is not None:
        raise CommandError(
            "forget-user needs --root DIR and takes the user id as its argument, not --user"
        )
    now, legacy = forget_targets(scope[0], args.id)  # a refused id naming no legacy user stops here
    user = now if now is not None else args.id
    outside = _fleet_hook(scope[0].root)  # before anything is deleted: a missing extra stops here
    if not args.yes:
        if not sys.stdin or not sys.stdin.isatty():
            raise CommandError(
                "forget-user deletes a user's memory for good: confirm on a terminal, or pass --yes"
            )
        also = f" (and {len(legacy)} older id(s) recorded for it)" if legacy else ""
        if input(f"Delete all memory of user {user!r}{also}? [y/N] ").strip().lower() not in (
            "y",
            "yes",
        ):
            console.print("nothing changed")
            return 1
    try:
        result = forget_user(scope[0], args.id, outside=outside)
    except ForgetIncomplete as exc:
        _report(args, exc.result, scope[0].root)
        raise
    _report(args, result, scope[0].root)
    return 0


def _fleet_hook(root: Path) -> Callable[[str], dict[str, int]] | None:
    """The fleet's Redis clean-up when this root is the configured fleet's (``fleet.root``, compared
    by real path: another spelling of the same directory is the same root)."""
    from ..storage.config import load_config

    cfg = load_config().fleet
    if not cfg.root or os.path.realpath(Path(cfg.root).expanduser()) != os.path.realpath(root):
        return None
    try:
        import redis as redis_py
    except ImportError:
        raise CommandError(
            f"{root} is the fleet's root (fleet.root): forget-user needs the `fleet` extra to "
            "remove the user's entries in Redis: pip install 'reverie[fleet]'"
        ) from None
    from ..fleet.coord import Coordinator, redact_url

    coord = Coordinator.connect(cfg.broker_url)

    def outside(user_digest: str) -> dict[str, int]:
        try:
            return coord.forget(user_digest)
        except redis_py.RedisError as exc:
            raise ReverieError(f"Redis at {redact_url(cfg.broker_url)} failed: {exc}") from None

    return outside


_REDIS = {
    "cleaned": "searched, {entries} removed",
    "failed": "not reached (run forget-user again once it answers)",
    "none": "not searched: this root is not fleet.root on this machine (if a fleet runs on it, "
    "run forget-user where fleet.root and fleet.brokerUrl name it)",
}


def _report(args: argparse.Namespace, result: ForgetResult, root: Path) -> None:
    if args.json:
        emit_json(
            {
                "user": result.user,
                "found": result.found,
                "files": result.files,
                "bytes": result.bytes,
                "due_markers": result.due_markers,
                "tokens_revoked": result.tokens,
                "index_files": list(result.index_files),
                "redis": result.redis,
                "redis_entries": result.redis_entries,
                "legacy_ids": list(result.legacy),
                "scopes": [{"user": s.user, "agent": s.agent} for s in result.scopes],
            }
        )
        return
    entries = ", ".join(f"{k} {n}" for k, n in sorted(result.redis_entries.items())) or "none"
    redis = "  fleet entries in Redis: " + _REDIS[result.redis].format(entries=entries)
    if not result.found and not result.redis_entries and not result.tokens:
        console.print(f"user {result.user!r} has no memory under {root}: nothing removed there")
        console.print(redis)
        return
    agents = [s.agent for s in result.scopes if s.agent is not None]
    which = f"{len(result.scopes)} scope(s)" + (f" (agents: {', '.join(agents)})" if agents else "")
    lines = [
        f"removed user {result.user!r}: {which}",
        f"  files: {result.files} ({result.bytes:,} bytes: workspaces, git history, sessions, "
        "search index)",
        f"  due markers: {result.due_markers}",
        f"  MCP tokens revoked: {result.tokens}",
    ]
    if result.legacy:
        shown = ", ".join(repr(u) for u in result.legacy)
        lines.append(f"  recorded by an older version under: {shown}")
    if result.index_files:
        lines.append(f"  search index outside the root: {', '.join(result.index_files)}")
    lines.append(redis)
    for line in lines:
        console.print(line)
