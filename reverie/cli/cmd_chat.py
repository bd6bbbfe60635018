"""``reverie chat``: talk to an agent with memory (ChatAgent); every /command works; Dream runs on its schedule."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("chat", help="chat with an agent that remembers (reads stdin; /help for commands)")
    p.add_argument("--session", default="cli:chat", metavar="KEY", help="session key (default cli:chat)")
    p.add_argument("--no-schedule", action="store_true", help="do not run Dream on its schedule meanwhile")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ._repl import repl

    return asyncio.run(repl(args))
