"""A cheap, dependency-free token estimate, for budgets that must not import litellm or wait for a tokenizer.

Rule: ASCII text ≈ 4 characters per token (what tiktoken's cl100k/o200k give on English prose and code), each
non-ASCII character ≈ ½ token per extra UTF-8 byte (so a 3-byte CJK character ≈ 1 token, an accented Latin letter
≈ ½), plus 4 tokens of framing per message and 3 for the reply's priming, as OpenAI's chat format costs. The total
is rounded up and scaled by 1.1 so that it errs high: a budget check that fires slightly early is harmless, one
that fires late overflows a context window. Measured against ``litellm.token_counter`` in the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

__all__ = ["estimate_tokens", "estimate_text_tokens"]

_PER_MESSAGE = 4
_PRIMING = 3
_SAFETY = 1.1


def _text_units(text: str) -> float:
    if not text:
        return 0.0
    n_chars = len(text)
    if text.isascii():
        return n_chars / 4
    extra = len(text.encode("utf-8", "surrogatepass")) - n_chars
    return n_chars / 4 + extra / 2


def estimate_text_tokens(text: str) -> int:
    """Tokens of a bare string (no message framing)."""
    return math.ceil(_text_units(text) * _SAFETY)


def _content_units(content: Any) -> float:
    if content is None:
        return 0.0
    if isinstance(content, str):
        return _text_units(content)
    if isinstance(content, list):  # multimodal parts: count text, a flat 85 per image
        total = 0.0
        for part in content:
            if isinstance(part, Mapping):
                if part.get("type") == "text":
                    total += _text_units(str(part.get("text") or ""))
                elif part.get("type") in ("image_url", "image"):
                    total += 85
                else:
                    total += _text_units(_dumps(part))
            else:
                total += _text_units(str(part))
        return total
    return _text_units(str(content))


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, default=str).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)


def estimate_tokens(messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """Estimated prompt tokens of chat ``messages`` (+ ``tools`` schemas) — microseconds per message."""
    units = 0.0
    count = 0
    for msg in messages:
        count += 1
        units += _content_units(msg.get("content"))
        name = msg.get("name")
        if name:
            units += _text_units(str(name)) + 1
        calls = msg.get("tool_calls")
        if calls:
            for call in calls:
                fn = call.get("function", call) if isinstance(call, Mapping) else {}
                units += 3 + _text_units(str(fn.get("name") or "")) + _text_units(str(fn.get("arguments") or ""))
    if tools:
        units += 12 + _text_units(_dumps(tools))
    return math.ceil((units + count * _PER_MESSAGE + _PRIMING) * _SAFETY)
