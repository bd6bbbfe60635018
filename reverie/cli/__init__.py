"""The ``reverie`` command line: a thin layer over the library.

Each command lives in its own module exposing ``register(subparsers)``, which adds a parser whose ``func``
takes the parsed arguments and returns an exit code. Exit codes: 0 ok, 1 user error (one line, no traceback),
2 internal error (traceback only with ``--debug``). Commands import heavy dependencies (litellm through
``reverie.llm``) only inside the code paths that call a model, so ``--help``, ``status`` and ``log`` stay fast.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from ..errors import ReverieError
from . import cmd_gc, cmd_history, cmd_init, cmd_log, cmd_restore, cmd_status, cmd_why
from . import cmd_index, cmd_search  # recall
from . import cmd_chat, cmd_consolidate, cmd_demo, cmd_dream, cmd_serve  # commands
from . import cmd_approve, cmd_purge  # security

__all__ = ["main", "build_parser"]

#: Command modules, in the order ``--help`` lists them.
COMMANDS = [cmd_init, cmd_status, cmd_history, cmd_log, cmd_restore, cmd_why, cmd_gc]
COMMANDS += [cmd_search, cmd_index]  # recall
COMMANDS += [cmd_consolidate, cmd_dream, cmd_serve, cmd_demo, cmd_chat]  # commands
COMMANDS += [cmd_approve, cmd_purge]  # security


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reverie",
        description="Long-term memory for AI agents, kept in plain files and versioned in git.",
    )
    parser.add_argument("-w", "--workspace", help="workspace directory (default: $REVERIE_WORKSPACE or ~/.reverie/workspace)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    parser.add_argument("--version", action="version", version=f"reverie {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMANDS:
        module.register(sub)
    return parser


def _version() -> str:
    from .. import __version__

    return __version__


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


def _configure_logging(debug: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter())
    root = logging.getLogger("reverie")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    root.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = args.debug or bool(os.environ.get("REVERIE_DEBUG"))
    _configure_logging(debug)
    try:
        return int(args.func(args) or 0)
    except ReverieError as exc:
        if debug:
            raise
        print(f"reverie: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("reverie: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the CLI boundary: anything else is a bug, reported as such
        if debug:
            import traceback

            traceback.print_exc()
        else:
            print(f"reverie: internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)", file=sys.stderr)
        return 2
