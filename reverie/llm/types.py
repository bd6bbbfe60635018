"""The model boundary's value types: what every model call returns, whatever answered it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolCall", "Usage", "ModelResponse", "Request"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call from a model. ``arguments`` is None when ``raw_arguments`` was not a JSON
    object."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # USD, when litellm knows the model's price

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost is None and other.cost is None
            else (self.cost or 0.0) + (other.cost or 0.0)
        )
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
        )


@dataclass(frozen=True, slots=True)
class ModelResponse:
    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    #: What a reasoning model thought before answering (its ``reasoning_content``, or the
    #: ``<think>`` blocks taken out of ``content``): never read as the answer, kept to explain an
    #: empty one.
    reasoning: str = ""


@dataclass(frozen=True)
class Request:
    """One chat request as an in-process model receives it."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    temperature: float | None = None
    max_tokens: int | None = None
