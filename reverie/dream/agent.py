"""Phase 2: the editing agent loop — model turns with ``read_file``/``edit_file`` on the staged
copy, in budget."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ContextWindowError
from ..llm import protocol
from ..llm.types import ModelResponse, ToolCall, Usage
from ..storage.workspace import MEMORY_FILES
from .batch import SECTION_BUDGETS
from .budget import Budget, budgeted_call
from .edit_tools import MemoryTools
from .result import Finding

if TYPE_CHECKING:
    from ..llm.client import ModelClient

__all__ = ["EditOutcome", "OnRefused", "edit_message", "run_edit_loop"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EditOutcome:
    """The loop's end: its usage, the model's closing text, and its last reply (the call that ended
    it, for the kept-replies log when the loop changed nothing) with the messages it answered."""

    usage: Usage
    final_text: str
    last: ModelResponse | None = None
    messages: tuple[dict[str, Any], ...] = ()


#: Called with a turn's reply, the messages it answered and why a tool call of it was refused: the
#: runner keeps such replies (``reverie.llm.replylog``).
OnRefused = Callable[[ModelResponse, Sequence[dict[str, Any]], str], None]


def edit_message(
    findings: Sequence[Finding], files: dict[str, str], budgets: str | None = None
) -> str:
    """The phase-2 user message: the findings, then each staged file under its path (so old_text can
    be exact), then the ``Budgets`` section when given."""
    lines = "\n".join(f"[{f.kind}] {f.text}" for f in findings)
    sections = [(protocol.SECTION_FINDINGS, lines)]
    sections += [(rel, files.get(rel, "")) for rel in MEMORY_FILES]
    if budgets:
        sections.append((SECTION_BUDGETS, budgets))
    return protocol.render_sections(sections)


def _assistant_message(content: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
    return {
        "role": "assistant",
        # "" rather than None: llama.cpp's chat templates (and other OpenAI-compatible servers) fail
        # with HTTP 500 on an assistant message whose content is null or absent.
        "content": content or "",
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw_arguments or json.dumps(c.arguments or {}),
                },
            }
            for c in calls
        ],
    }


_SHORTENED = "(shortened to fit the model's context window)"
_LONG_ARGUMENTS = 2_000


def _fit(
    client: ModelClient,
    model: str,
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    room_tokens: int,
    window: int | None,
) -> None:
    """Shorten the oldest tool results until the turn fits ``room_tokens``; raise
    ``ContextWindowError`` when the findings and files alone do not."""
    tokens = client.count_tokens(messages, tools=schemas, model=model)
    if tokens <= room_tokens:
        return
    for msg in messages[2:-2]:  # the task and the latest exchange stay whole
        if msg.get("role") == "tool" and msg.get("content") != _SHORTENED:
            msg["content"] = _SHORTENED
    tokens = client.count_tokens(messages, tools=schemas, model=model)
    if tokens > room_tokens:  # then long tool-call arguments (their results said what they did)
        for msg in messages[2:]:
            for call in msg.get("tool_calls") or ():
                args = call["function"]["arguments"]
                if len(args) > _LONG_ARGUMENTS:
                    call["function"]["arguments"] = args[:200] + " " + _SHORTENED
        tokens = client.count_tokens(messages, tools=schemas, model=model)
    if tokens > room_tokens:
        raise ContextWindowError(
            f"{model}: the edit prompt ({tokens} tokens) does not fit the model's context window "
            f"({window} tokens, {room_tokens} for the prompt)",
            limit=window,
        )


def _signature(call: ToolCall) -> str:
    args = (
        json.dumps(call.arguments, sort_keys=True)
        if call.arguments is not None
        else call.raw_arguments
    )
    return f"{call.name}({args})"


async def run_edit_loop(
    client: ModelClient,
    budget: Budget,
    tools: MemoryTools,
    *,
    model: str,
    system: str,
    findings: Sequence[Finding],
    progress: Callable[[], None] = lambda: None,
    budgets: str | None = None,
    max_tokens: int | None = None,
    on_refused: OnRefused | None = None,
    window: int | None = None,
    room_tokens: int | None = None,
) -> EditOutcome:
    """Loop until the model answers without tool calls. Raises ``BudgetExceeded`` (any cap, or the
    same failing call ``REPEAT_LIMIT`` times) or ``ModelError``; the staged copy then holds partial
    edits the caller discards. ``on_refused`` hears of every turn with a refused tool call.

    With ``room_tokens`` (the prompt tokens the model's ``window`` leaves), a turn whose messages
    would not fit first has its older tool results shortened; when even that is not enough,
    ``ContextWindowError`` is raised without a call (the caller makes the batch smaller)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": edit_message(findings, tools.staged.current, budgets)},
    ]
    usage = Usage()
    while True:
        budget.start_turn()
        if room_tokens is not None:
            _fit(client, model, messages, tools.box.schemas, room_tokens, window)
        response = await budgeted_call(
            client,
            budget,
            messages,
            model=model,
            tools=tools.box.schemas,
            tool_choice="auto",
            max_tokens=max_tokens,
        )
        usage = usage + response.usage
        progress()
        if not response.tool_calls:
            return EditOutcome(usage, (response.content or "").strip(), response, tuple(messages))
        asked = list(messages)
        messages.append(_assistant_message(response.content, response.tool_calls))
        refused: list[str] = []
        try:
            for call in response.tool_calls:
                budget.charge_tool_call()
                outcome = tools.box.call(call)
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "name": call.name,
                        "content": outcome.text,
                    }
                )
                progress()
                if not outcome.ok:
                    log.info("dream edit: tool call failed: %s", outcome.text[:200])
                    refused.append(f"{call.name}: {outcome.text[:200]}")
                    budget.record_failure(_signature(call))
        finally:
            if refused and on_refused is not None:
                on_refused(response, asked, "; ".join(refused))
