"""What every command shares: opening the workspace, JSON output, the rich console."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from rich.console import Console

from ..workspace import Workspace

if TYPE_CHECKING:
    from ..activity import ModelActivity
    from ..memory import Memory

__all__ = ["console", "err_console", "open_memory", "workspace_of", "existing_workspace", "emit_json",
           "add_json_flag", "count"]

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False)


def workspace_of(args: argparse.Namespace) -> Workspace:
    return Workspace(args.workspace) if getattr(args, "workspace", None) else Workspace()


def existing_workspace(args: argparse.Namespace) -> Workspace:
    """The workspace, which must exist: read-only commands never create one by accident."""
    from ..errors import CommandError

    ws = workspace_of(args)
    if not ws.root.is_dir():
        raise CommandError(f"no workspace at {ws.root} (create one with `reverie init`)")
    return ws


def open_memory(args: argparse.Namespace, *, existing: bool = False, activity: ModelActivity | None = None) -> Memory:
    """The workspace's ``Memory`` (built through ``reverie.memory.wrap``, so a registered class is used), every
    command's one way to its verbs. ``existing``: the workspace must exist (read-only commands); ``activity``
    observes the model calls for a status line."""
    from ..memory import wrap
    from ..runtime import Runtime

    ws = existing_workspace(args) if existing else workspace_of(args)
    return wrap(Runtime(ws, activity=activity))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def emit_json(data: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n")
    sys.stdout.flush()


def count(minimum: int = 1, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number in ``[minimum, maximum]``: ``-k -1`` or ``-n 0`` is refused with a
    usage error that says what is allowed, instead of meaning something surprising."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            allowed = f"from {minimum} to {maximum:,}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {allowed}, not {value}")
        return value

    parse.__name__ = "count"
    return parse
