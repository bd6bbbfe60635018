"""What every command shares: opening the workspace, JSON output, the rich console.

The consoles are made on first use (``console``, ``err_console``): importing rich is a third of a
fast command's start-up, and `reverie status` prints without it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..storage.workspace import Workspace

if TYPE_CHECKING:
    from rich.console import Console

    from ..llm.activity import ModelActivity
    from ..memory import Memory
    from ..storage.scopes import Scope, ScopeRoot

__all__ = [
    "console",
    "err_console",
    "open_memory",
    "workspace_of",
    "existing_workspace",
    "emit_json",
    "add_json_flag",
    "count",
    "apply_scope",
    "missing_extra",
]

if TYPE_CHECKING:
    console: Console
    err_console: Console


def __getattr__(name: str) -> Any:
    """``console`` (stdout) and ``err_console``, made on first use and kept."""
    if name not in ("console", "err_console"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rich.console import Console

    made = (
        Console(highlight=False, soft_wrap=True)
        if name == "console"
        else Console(stderr=True, highlight=False)
    )
    globals()[name] = made
    return made


def missing_extra(what: str, extra: str, exc: ImportError) -> str:
    """The one-line error for a command whose optional dependencies are not installed: what is
    missing, and the command that installs it."""
    missing = exc.name.split(".")[0] if exc.name else str(exc)  # the package, not a module of it
    return (
        f"{what} needs the `{extra}` extra ({missing} is missing): pip install 'reverie[{extra}]'"
    )


def workspace_of(args: argparse.Namespace) -> Workspace:
    return Workspace(args.workspace) if getattr(args, "workspace", None) else Workspace()


#: The commands that create a scope's workspace on their first write; every other command reads a
#: scope that was never written as empty (or refuses, having nothing to act on) and creates nothing.
_CREATING = {("init", None), ("history", "append"), ("chat", None)}
#: Queries that read a never-written scope as empty through the ordinary code path (a missing
#: workspace reads as empty there, and nothing is created).
_QUERIES = {"status", "log", "show", "why", "history", "restore", "requeue", "search"}
#: The commands that serve every scope of a root themselves (``--root`` without ``--user``).
_ROOT_WIDE = {"serve", "mcp", "forget-user", "legacy-ids", "fleet", "ui", "import"}


def apply_scope(args: argparse.Namespace) -> None:
    """Resolve ``--root``/``--user``/``--agent`` to the scope's workspace (``args.workspace``),
    creating it only for a command that writes to it first. ``args.scope`` keeps the `ScopeRoot` and
    `Scope`."""
    from ..errors import CommandError
    from ..storage.scopes import Scope, ScopeRoot

    if args.root is None:
        raise CommandError("--user and --agent need --root DIR (the root of the scoped workspaces)")
    if args.workspace is not None:
        raise CommandError(
            "-w and --root are exclusive: -w names one workspace, --root a root of scoped ones"
        )
    if args.user is None and args.agent is not None:
        raise CommandError("--agent needs --user")
    if args.command == "fleet":
        if args.user is not None:
            raise CommandError(
                "`fleet` serves every workspace of a root: give --root without --user"
            )
        args.scope = None  # a fleet root may be plain: its kind is the fleet's to read (cmd_fleet)
        return
    root = ScopeRoot(args.root)
    if args.command == "forget-user" and args.user is not None:
        raise CommandError("forget-user takes the user id as its argument, not --user")
    if args.user is None:
        if args.command not in _ROOT_WIDE:
            raise CommandError(f"`{args.command}` acts on one scope: give --user ID with --root")
        args.scope = (root, None)
        return
    scope = Scope(args.user, args.agent)
    args.scope = (root, scope)
    if (args.command, getattr(args, "history_command", None)) in _CREATING:
        args.workspace = str(root.ensure(scope).root)
        return
    args.workspace = str(root.path(scope))
    if root.exists(scope):
        return
    if args.command in ("demo", "import"):
        # the demo and an import make the workspace themselves; the scope's own files follow it
        args.func = _then_ensure(args.func, root, scope)
        return
    if args.command == "mcp":
        return  # a token for a scope not yet written, or a server whose first write creates it
    if args.command not in _QUERIES or _acts(args):
        raise CommandError(f"{scope} has no memory yet: nothing to {args.command}")


def _then_ensure(
    func: Callable[[argparse.Namespace], int], root: ScopeRoot, scope: Scope
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        code = func(args)
        if root.exists(scope):
            root.ensure(scope)
        return code

    return run


def _acts(args: argparse.Namespace) -> bool:
    """Whether a listing command was asked to change something (``restore SHA``, ``requeue
    --all``)."""
    return bool(
        getattr(args, "sha", None)
        if args.command == "restore"
        else args.command == "requeue" and (args.first or args.all)
    )


def existing_workspace(args: argparse.Namespace) -> Workspace:
    """The workspace, which must exist: read-only commands never create one by accident. A scope
    never written is returned as it is (missing): queries read it as empty."""
    from ..errors import CommandError

    ws = workspace_of(args)
    if getattr(args, "scope", None) is not None:
        return ws
    if not ws.root.is_dir():
        raise CommandError(f"no workspace at {ws.root} (create one with `reverie init`)")
    return ws


def open_memory(
    args: argparse.Namespace, *, existing: bool = False, activity: ModelActivity | None = None
) -> Memory:
    """The workspace's ``Memory`` (built through ``reverie.memory.wrap``, so a registered class is
    used), every command's one way to its verbs. ``existing``: the workspace must exist (read-only
    commands); ``activity`` observes the model calls for a status line."""
    from ..memory import wrap
    from ..memory.runtime import Runtime

    ws = existing_workspace(args) if existing else workspace_of(args)
    scope = getattr(args, "scope", None)
    return wrap(
        Runtime(
            ws,
            activity=activity,
            scope=scope if scope is not None and scope[1] is not None else None,
        )
    )


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def emit_json(data: Any) -> None:
    sys.stdout.buffer.write(
        orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n"
    )
    sys.stdout.flush()


def count(minimum: int = 1, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number in ``[minimum, maximum]``: ``-k -1`` or ``-n 0`` is
    refused with a usage error that says what is allowed, instead of meaning something surprising.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            allowed = (
                f"from {minimum} to {maximum:,}" if maximum is not None else f"at least {minimum}"
            )
            raise argparse.ArgumentTypeError(f"must be {allowed}, not {value}")
        return value

    parse.__name__ = "count"
    return parse
