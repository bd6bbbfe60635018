"""The agent-facing side of Recall: the ``search_memory`` tool and auto-recall for ``reverie chat``.

``search_memory`` is the one name of the search tool a model is handed, here as in the MCP server
and the framework adapters; a call by its old name here, ``memory_search``, is still answered (a
model may have it from an earlier conversation)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import Field

from ..errors import RecallError
from ..llm.tools import function_schema
from .search import Recall
from .types import Hit, SearchFilters, SourceKind

if TYPE_CHECKING:
    from ..llm.client import ModelClient
    from ..llm.types import ModelResponse

__all__ = [
    "SEARCH_MEMORY_TOOL",
    "run_search_memory_tool",
    "recall_context",
    "render_hits",
    "complete_with_search_memory",
    "MAX_TOOL_ROUNDS",
]

#: The search tool's name, and the old name a call may still use.
SEARCH_TOOL = "search_memory"
_OLD_NAMES = ("memory_search",)
#: Model turns that may call ``search_memory`` before the answer is requested without tools.
MAX_TOOL_ROUNDS = 3


# The ``search_memory`` tool's schema (what the model sees) comes from this signature and docstring;
# a call is executed by ``run_search_memory_tool``. The one-shot Python search is
# ``reverie.recall.memory_search``.
def _search_memory_signature(
    query: str,
    k: Annotated[int, Field(ge=1, le=50)] = 10,
    kinds: list[SourceKind] | None = None,
    session: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> None:
    """Search long-term memory (SOUL.md, USER.md, MEMORY.md, dated memory notes, the history log and
    past conversations) for facts relevant to a query. Returns ranked snippets with their source and
    time.

    Args:
        query: what to look for, in natural language or keywords
        k: how many hits
        kinds: only these source kinds
        session: only this session key
        since: only items at or after this ISO date (YYYY-MM-DD)
        until: only items before this ISO date (YYYY-MM-DD)
    """


#: An OpenAI-style function tool an agent loop can register; execute calls with
#: ``run_search_memory_tool``.
SEARCH_MEMORY_TOOL: dict[str, Any] = function_schema(_search_memory_signature, name=SEARCH_TOOL)


async def run_search_memory_tool(recall: Recall, arguments: Mapping[str, Any] | None) -> str:
    """Execute a ``search_memory`` tool call; returns the JSON text to send back as the tool result.

    Bad arguments come back as ``{"error": ...}`` so the model can correct itself; they never raise.
    """
    args = dict(arguments or {})
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return _json({"error": "query must be a non-empty string"})
    k = args.get("k", 10)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
        return _json({"error": "k must be an integer from 1 to 50"})
    try:
        filters = SearchFilters.from_mapping(
            {n: args[n] for n in ("kinds", "session", "since", "until") if n in args}
        )
        hits = await recall.asearch(query, k, filters)
    except RecallError as exc:
        return _json({"error": str(exc)})
    return _json({"hits": [h.to_dict() for h in hits]})


async def recall_context(recall: Recall, message: str, *, now: datetime | None = None) -> str:
    """Auto-recall for chat: a system-prompt block with the top hits for ``message``, or ``""`` when
    the switch ``memory.search.autoRecall`` is off (the default) or nothing matches."""
    settings = recall.settings
    if not settings.auto_recall or not message.strip():
        return ""
    hits = await recall.asearch(message, settings.auto_recall_k, now=now)
    if not hits:
        return ""
    return "## Recalled memory (may be relevant; verify before relying on it)\n" + render_hits(hits)


def render_hits(hits: list[Hit]) -> str:
    """Plain-text lines ``- [source · date] snippet`` for prompts and chat replies."""
    lines = []
    for h in hits:
        when = f" · {h.timestamp:%Y-%m-%d}" if h.timestamp else ""
        lines.append(f"- [{h.source}{when}] {h.snippet}")
    return "\n".join(lines)


def _json(data: Any) -> str:
    return orjson.dumps(data).decode()


async def complete_with_search_memory(
    client: ModelClient,
    recall: Recall,
    messages: list[dict[str, Any]],
    *,
    max_tokens: int | None = None,
    rounds: int = MAX_TOOL_ROUNDS,
) -> ModelResponse:
    """A chat completion in which the model may call ``search_memory`` (at most ``rounds`` times)
    before answering.

    ``client`` is a ``ModelClient``; ``messages`` is extended in place with the tool exchange.
    Returns the final ``ModelResponse``. A call to any other tool gets an error result, so the model
    can recover.
    """
    for _ in range(rounds):
        response = await client.complete(
            messages, tools=[SEARCH_MEMORY_TOOL], max_tokens=max_tokens
        )
        if not response.tool_calls:
            return response
        messages.append(
            {
                "role": "assistant",
                "content": response.content or "",
                "tool_calls": [  # "" not null: some servers 500 on null
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": c.raw_arguments or _json(c.arguments or {}),
                        },
                    }
                    for c in response.tool_calls
                ],
            }
        )
        for call in response.tool_calls:
            if call.name in (SEARCH_TOOL, *_OLD_NAMES):
                result = await run_search_memory_tool(recall, call.arguments)
            else:
                result = _json(
                    {"error": f"unknown tool {call.name!r}; the only tool is {SEARCH_TOOL}"}
                )
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result}
            )
    return await client.complete(messages, max_tokens=max_tokens)
