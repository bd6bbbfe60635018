"""The offline engine (skeleton): replaced by the rule-based engine in the next commit."""

from __future__ import annotations

from typing import Any

from .tokens import estimate_tokens
from .types import ModelResponse, Usage

OFFLINE_REPLY = "This is Reverie's offline rule-based engine: it maintains memory but cannot chat."


def respond(messages: list[dict[str, Any]], *, tools: Any = None, tool_choice: Any = None) -> ModelResponse:
    return ModelResponse(content=OFFLINE_REPLY, usage=Usage(estimate_tokens(messages, tools), 20, 0.0), model="reverie/offline")
