"""Chat: the reference agent with memory (``agent``: ``ChatAgent``, what ``reverie chat`` runs), the
slash commands any agent can embed (``commands``), and the scripted demo conversation (``demo``).
All of it stands on ``reverie.memory``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .agent import OFFLINE_NOTICE, ChatAgent, agent_preamble

# Loaded on first use: the MCP server and the CLI import the commands' renderers alone.
__getattr__ = lazy_exports(
    __name__,
    {"ChatAgent": "agent", "OFFLINE_NOTICE": "agent", "agent_preamble": "agent"},
    globals(),
)

__all__ = ["ChatAgent", "OFFLINE_NOTICE", "agent_preamble"]
