"""Model access: the only package that imports litellm (lazily, only when a model is called)."""

from .types import ModelResponse, ToolCall, Usage

__all__ = ["ModelResponse", "ToolCall", "Usage"]
