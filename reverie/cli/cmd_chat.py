"""``reverie chat``: talk to an agent with memory (ChatAgent); every /command works; Dream runs on
its schedule."""

from __future__ import annotations

import argparse


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--session", default="cli:chat", metavar="KEY", help="session key (default cli:chat)"
    )
    p.add_argument(
        "--no-schedule", action="store_true", help="do not run Dream on its schedule meanwhile"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ._repl import repl

    return asyncio.run(repl(args))
