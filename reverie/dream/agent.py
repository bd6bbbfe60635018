"""Phase 2: the editing agent loop — model turns with ``read_file``/``edit_file`` on the staged copy, in budget."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..llm import protocol
from ..llm.types import ToolCall, Usage
from ..workspace import MEMORY_FILES
from .batch import SECTION_BUDGETS
from .budget import Budget, budgeted_call
from .edit_tools import MemoryTools
from .result import Finding

if TYPE_CHECKING:
    from ..llm.client import ModelClient

__all__ = ["EditOutcome", "edit_message", "run_edit_loop"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EditOutcome:
    usage: Usage
    final_text: str


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
) -> EditOutcome:
    """Loop until the model answers without tool calls. Raises ``BudgetExceeded`` (any cap, or the
    same failing call ``REPEAT_LIMIT`` times) or ``ModelError``; the staged copy then holds partial
    edits the caller discards."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": edit_message(findings, tools.staged.current, budgets)},
    ]
    usage = Usage()
    while True:
        budget.start_turn()
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
            return EditOutcome(usage, (response.content or "").strip())
        messages.append(_assistant_message(response.content, response.tool_calls))
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
                budget.record_failure(_signature(call))
