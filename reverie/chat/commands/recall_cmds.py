"""``/recall QUERY``: search memory, history and past conversations from the chat."""

from __future__ import annotations

from ...errors import CommandError
from .router import Command, Invocation, clip

__all__ = ["commands", "RECALL_K"]

RECALL_K = 5


async def recall(inv: Invocation) -> str:
    query = inv.raw_args.strip()
    if not query:
        raise CommandError("`/recall` needs something to look for.")
    from ...recall.tool import render_hits  # the search stack only when /recall runs

    hits = await inv.memory.arecall(query, limit=RECALL_K)
    if not hits:
        return f"Nothing in memory matches `{clip(query)}`."
    return f"**Recall** for `{clip(query)}`\n" + render_hits(hits)


def commands() -> list[Command]:
    return [
        Command(
            "recall",
            recall,
            "search memory, history and past conversations",
            "/recall QUERY",
            takes_args=True,
        )
    ]
