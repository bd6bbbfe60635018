"""What the agent's next prompt costs: system prompt with memory, unarchived messages, tool schemas.

The system prompt is approximated by the memory Reverie contributes to it (SOUL.md, USER.md and
``MemoryStore.get_memory_context()``) plus any extra text the embedding agent names; the messages are those
past ``last_consolidated``, reduced to the keys a model sees. Tokens come from ``ModelClient.count_tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..llm.client import ModelClient
from ..store import MemoryStore
from .sessions import Session

__all__ = ["system_prompt", "prompt_messages", "estimate_prompt_tokens", "MODEL_KEYS"]

#: The message keys a model sees; the rest (``timestamp``, channel extras) are not sent.
MODEL_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


def system_prompt(store: MemoryStore, extra: str = "") -> str:
    parts = [extra, store.read_soul(), store.read_user(), store.get_memory_context()]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def model_view(message: Mapping[str, Any]) -> dict[str, Any]:
    return {k: message[k] for k in MODEL_KEYS if k in message}


def prompt_messages(store: MemoryStore, session: Session, *, extra_system: str = "") -> list[dict[str, Any]]:
    out = [{"role": "system", "content": system_prompt(store, extra_system)}]
    out.extend(model_view(m) for m in session.unconsolidated)
    return out


def estimate_prompt_tokens(
    client: ModelClient,
    store: MemoryStore,
    session: Session,
    *,
    tools: list[dict[str, Any]] | None = None,
    extra_system: str = "",
    model: str | None = None,
) -> int:
    """Prompt tokens the agent would send now for ``session`` (the Consolidator's trigger)."""
    return client.count_tokens(prompt_messages(store, session, extra_system=extra_system), tools=tools, model=model)
