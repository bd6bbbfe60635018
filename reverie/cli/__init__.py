"""The ``reverie`` command line: a thin layer over the library.

Each command lives in a module ``cmd_*`` whose ``configure(parser)`` adds the command's arguments
and sets its ``func``, which takes the parsed arguments and returns an exit code. Exit codes: 0 ok,
1 user error (one line, no traceback; a full disk, a denied permission or a read-only file system is
a user error too), 2 internal error (traceback only with ``--debug``). A run imports only the module
of the command it runs (``--help`` none): ``status`` must start in 0.1 s and ``log`` in 0.3 s, and
importing every command's module (rich, orjson, the workspace, the SOUL.md approval code) cost ≈ 80
ms of that.
"""

from __future__ import annotations

import argparse
import atexit
import errno
import gc
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from ..errors import CommandError, ReverieError

__all__ = ["main", "build_parser", "subcommands"]

#: Every command in the order ``--help`` lists them: name, "module:function" adding its arguments,
#: one-line help.
COMMANDS = [
    ("init", "cmd_init:configure", "create a workspace with starter memory files"),
    (
        "status",
        "cmd_status:configure",
        "show cursors, pending entries, memory file sizes and the model",
    ),
    ("history", "cmd_history:configure", "append to or show memory/history.jsonl"),
    ("log", "cmd_log:configure_log", "list memory's versions (or show one, like /dream-log)"),
    ("show", "cmd_log:configure_show", "show one commit of memory with its coloured diff"),
    (
        "restore",
        "cmd_restore:configure",
        "restore memory to before a commit (no sha: list recent versions)",
    ),
    (
        "why",
        "cmd_why:configure",
        "trace memory lines containing TEXT to their commit and history entries",
    ),
    ("gc", "cmd_gc:configure", "pack the memory repository's loose objects"),
    # recall
    (
        "search",
        "cmd_search:configure",
        "search memory, history and conversations (BM25, plus vectors when configured)",
    ),
    (
        "index",
        "cmd_index:configure",
        "update the search index at memory/.index.sqlite (derived, never committed)",
    ),
    # commands
    (
        "consolidate",
        "cmd_consolidate:configure",
        "consolidate a session into history (no KEY: every session over budget)",
    ),
    ("dream", "cmd_dream:configure", "turn pending history into memory now"),
    (
        "pin",
        "cmd_pin:configure",
        "pin the memory line containing TEXT so Dream never archives it (--unpin)",
    ),
    (
        "requeue",
        "cmd_requeue:configure",
        "list batches Dream set aside, or requeue them (FIRST … or --all)",
    ),
    ("serve", "cmd_serve:configure", "run Dream on its schedule until SIGTERM or Ctrl-C"),
    (
        "demo",
        "cmd_demo:configure",
        "see Reverie's main job end to end in a new "
        "workspace (DIR, else -w if empty, else a temp dir)",
    ),
    (
        "chat",
        "cmd_chat:configure",
        "chat with an agent that remembers (reads stdin; /help for commands)",
    ),
    (
        "fleet",
        "cmd_fleet:configure",
        "Dream for many workspaces on Celery workers with Redis (worker, dispatch, status)",
    ),
    (
        "mcp",
        "cmd_mcp:configure",
        "serve this workspace's memory to MCP clients (stdio; --http for HTTP)",
    ),
    (
        "ui",
        "cmd_ui:configure",
        "see, review and undo what the agent remembers, "
        "in a local web app (--root alone: every user)",
    ),
    # security
    (
        "approve",
        "cmd_approve:configure_approve",
        "apply the SOUL.md change Dream proposed (see `reverie status`)",
    ),
    ("reject", "cmd_approve:configure_reject", "drop the SOUL.md change Dream proposed"),
    (
        "purge",
        "cmd_purge:configure",
        "remove a string (a leaked secret) from memory and all its git history",
    ),
    # scopes
    (
        "forget-user",
        "cmd_forget_user:configure",
        "delete every scope of a user under --root (workspaces, git history, index)",
    ),
    (
        "legacy-ids",
        "cmd_legacy_ids:configure",
        "list users an older version recorded under ids this one changes or refuses; migrate one",
    ),
    # portability
    (
        "export",
        "cmd_export:configure",
        "write the whole workspace (memory, history, sessions, git) as one bundle",
    ),
    (
        "import",
        "cmd_import:configure",
        "restore a bundle into an empty workspace, or bring in nanobot, Claude Code or mem0 memory",
    ),
]


def _global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """``-w`` (or ``--root``/``--user``/``--agent``), ``--debug`` and ``--json``, accepted before
    the command and after it.

    On a command's parser they default to ``SUPPRESS``, so a value given before the command is not
    reset to the default by the command's parser; given after, it wins."""
    default = None if top else argparse.SUPPRESS
    parser.add_argument(
        "-w",
        "--workspace",
        default=default,
        help="workspace directory (default: $REVERIE_WORKSPACE or ~/.reverie/workspace)",
    )
    parser.add_argument(
        "--root",
        default=default,
        metavar="DIR",
        help="a root of scoped workspaces (with --user, instead of -w; see docs/scopes.md)",
    )
    parser.add_argument(
        "--user", default=default, metavar="ID", help="the scope's user id (with --root)"
    )
    parser.add_argument(
        "--agent", default=default, metavar="ID", help="the scope's agent id (with --root --user)"
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="show tracebacks and debug logs",
    )
    if top:
        parser.add_argument(
            "--json",
            action="store_true",
            default=argparse.SUPPRESS,
            help="print machine-readable JSON (every command but "
            + ", ".join(WITHOUT_JSON)
            + "; serve only with --root)",
        )


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's sub-command parsers by name (argparse has no public accessor for them)."""
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return dict(action.choices)
    return {}


def _has_option(parser: argparse.ArgumentParser, option: str) -> bool:
    return any(option in a.option_strings for a in parser._actions)  # noqa: SLF001


def _adopt_globals(parser: argparse.ArgumentParser) -> None:
    """Give a command's parser (and its own sub-commands') the global options."""
    for action in parser._actions:  # noqa: SLF001
        if "--json" in action.option_strings:
            # so `reverie --json CMD` is not undone by CMD's default
            action.default = argparse.SUPPRESS
    for nested in subcommands(parser).values():
        _adopt_globals(nested)
    _global_options(parser, top=False)


class _CommandParser(argparse.ArgumentParser):
    """A command's parser, completed by its module's ``configure`` the first time it parses (or
    shows help)."""

    target: str | None = None  # "module:function" still to call

    def _complete(self) -> None:
        if self.target is not None:
            module, function = self.target.split(":")
            self.target = None
            getattr(importlib.import_module(f".{module}", __name__), function)(self)
            _adopt_globals(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._complete()
        _MainParser.command = self  # whose options a mistyped one is compared with
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._complete()
        return super().format_help()


class _MainParser(argparse.ArgumentParser):
    """The top-level parser: a mistyped command or option gets a "did you mean"."""

    command: argparse.ArgumentParser | None = None  # the command's parser, once it has parsed

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        _MainParser.command = None
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments:") and self.command is not None:
            import difflib

            known = [
                o[2:] for a in self.command._actions for o in a.option_strings if o[:2] == "--"
            ]
            for given in message.split(":", 1)[1].split():
                name = given.split("=")[0][2:]
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
                if given.startswith("--") and close:
                    message += f"; did you mean --{close[0]}?"
                    break
            self.command.error(message)  # with the command's usage line
        if message == "the following arguments are required: COMMAND":
            message = (
                "no command given: `reverie --help` lists them; `reverie init` makes a workspace"
            )
        if "invalid choice:" in message:
            import difflib

            given = message.split("invalid choice:", 1)[1].split("'")[1] if "'" in message else ""
            close = difflib.get_close_matches(
                given, [name for name, _, _ in COMMANDS], n=1, cutoff=0.6
            )
            if close:
                message = f"unknown command {given!r}; did you mean {close[0]!r}?"
            else:
                message = f"unknown command {given!r} (`reverie --help` lists the commands)"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _MainParser(
        prog="reverie",
        description="Long-term memory for AI agents, kept in plain files and versioned in git.",
    )
    _global_options(parser, top=True)
    parser.add_argument(
        "--version", action=_ShowVersion, nargs=0, help="show program's version number and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    sub.required = True
    for name, target, help_ in COMMANDS:
        sub.add_parser(name, help=help_).target = target
    return parser


#: The commands that print no JSON (a chat, a server, a worker), exactly: ``--json`` is refused by
#: them and taken by every other command (tests/test_cli_json.py derives this from the parser).
WITHOUT_JSON = ("chat", "mcp", "ui", "fleet worker")


def _leaf(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the command ``args`` ran: ``fleet``'s ``worker``, not ``fleet``."""
    found = parser
    while True:
        nested = None
        for action in found._actions:  # noqa: SLF001
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                nested = action.choices.get(getattr(args, action.dest, None) or "")
        if nested is None:
            return found
        found = nested


#: Arguments that name a file or directory: a path may hold any bytes the file system allows.
_PATH_ARGS = frozenset({"workspace", "root", "source", "file", "dir", "token_file"})


def _refuse_undecodable(leaf: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``CommandError`` for an argument (text to record, a session key, an id) whose bytes are not
    UTF-8: Python hands them over as lone surrogates, which would be stored as escape text. Said in
    the importers' words (``reverie.text.utf8``)."""
    from ..text.utf8 import undecodable

    for action in leaf._actions:  # noqa: SLF001
        if action.dest in _PATH_ARGS:
            continue
        value = getattr(args, action.dest, None)
        for item in value if isinstance(value, list) else [value]:
            why = undecodable(item) if isinstance(item, str) else None
            if why is not None:
                name = action.option_strings[-1] if action.option_strings else action.dest.upper()
                raise CommandError(f"{name} is {why}; pass it as UTF-8")


class _ShowVersion(argparse.Action):
    """``--version``: the version is looked up only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from ..version import version

        print(f"reverie {version()}")
        parser.exit()


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to ``sys.stderr`` as it is when the record is emitted, not as it was at start-up: the
    live status line and the chat prompt swap it for a proxy that prints above them, so a warning
    never lands inside either."""

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


def _configure_logging(debug: bool) -> None:
    handler = _StderrHandler()
    handler.setFormatter(_Formatter())
    root = logging.getLogger("reverie")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    root.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code. ``argv`` None: the process's own arguments, and
    this is the process's entry point: a command stopped by SIGINT or SIGTERM (130, 143) ends the
    process by that signal once it has exited cleanly (``reverie.cli._signals.end_by``), and after
    the command both signals end the process at once, without a traceback from the interpreter's
    shutdown."""
    from . import _signals

    # At exit the interpreter would run the cycle collector over every object the imports made
    # (pydantic's schemas, rich's styles): 25-30 ms of a 0.25 s `reverie status`. Frozen objects are
    # skipped; nothing here relies on a finalizer running at exit (Python does not promise that
    # either).
    atexit.register(gc.freeze)
    with _signals.handled(restore=argv is not None):
        status = _main(argv)
    if argv is None:
        _signals.end_by(status)  # 130, 143: the process ends by the signal, after its exit handlers
    return status


def _main(argv: Sequence[str] | None) -> int:
    from ._signals import SAID, exit_status, held, last

    debug = bool(os.environ.get("REVERIE_DEBUG"))
    try:
        with held():  # parsing imports the command's module (see reverie.cli._signals)
            parser = build_parser()
            args = parser.parse_args(argv)
            if getattr(args, "json", False) and not _has_option(_leaf(parser, args), "--json"):
                parser.error(
                    f"--json is not available for "
                    f"`{_leaf(parser, args).prog.removeprefix('reverie ')}`"
                )
            args.json = getattr(args, "json", False)
            debug = args.debug or debug
            _configure_logging(debug)
        _refuse_undecodable(_leaf(parser, args), args)  # before a scope is made from --user
        if args.root is not None or args.user is not None or args.agent is not None:
            from ._common import apply_scope

            apply_scope(args)
        return int(args.func(args) or 0)
    except ReverieError as exc:
        if debug:
            raise
        print(f"reverie: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # SIGINT, or SIGTERM raised as SIGINT (reverie.cli._signals)
        print(f"reverie: {SAID[last()]}", file=sys.stderr)
        return exit_status(last())
    except BrokenPipeError:
        return 0
    except OSError as exc:
        if exc.errno not in _USER_FACING:
            return _internal_error(exc, debug)
        if debug:
            raise
        # the machine's fault, not a bug
        print(f"reverie: error: {_os_error_text(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # the CLI boundary: anything else is a bug, reported as such
        return _internal_error(exc, debug)


#: Errors of the machine, not of Reverie: a full disk, a denied permission, a read-only mount.
_USER_FACING = {
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EACCES,
    errno.EPERM,
    errno.EROFS,
    errno.EFBIG,
    errno.ELOOP,
}
_ADVICE = {
    errno.ENOSPC: "free some space and run it again",
    errno.EDQUOT: "free some space and run it again",
    errno.EACCES: "check the workspace's owner and permissions",
    errno.EPERM: "check the workspace's owner and permissions",
    errno.EROFS: "the workspace is on a read-only file system",
}


def _os_error_text(exc: OSError) -> str:
    what = exc.strerror or str(exc)
    where = f"{exc.filename}: " if exc.filename and str(exc.filename) not in what else ""
    advice = _ADVICE.get(exc.errno or 0)
    return f"{where}{what}" + (f" ({advice})" if advice else "")


def _internal_error(exc: BaseException, debug: bool) -> int:
    """Anything else is a bug, reported as such."""
    if debug:
        import traceback

        traceback.print_exception(exc)
    else:
        print(
            f"reverie: internal error: {type(exc).__name__}: "
            f"{exc} (run with --debug for a traceback)",
            file=sys.stderr,
        )
    return 2
