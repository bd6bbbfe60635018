"""A cheap, dependency-free token estimate, for budgets that must not import litellm or wait for a
tokenizer.

Rule, fitted against ``litellm.token_counter`` (tiktoken's cl100k, gpt-4's; o200k, gpt-4o's, codes
CJK text in fewer tokens, where the estimate errs higher still) on prose, Python, JSON,
German, Chinese, chat and transcript text: letters and spaces ≈ 4.5 characters per token; digits and
punctuation ≈ 0.6 token each (JSON and code are dense in them); each extra UTF-8 byte of a non-ASCII
character ≈ 0.35 token (a CJK character ≈ 0.7, an accented letter ≈ 0.35 more); plus 4 tokens of
framing per message and 3 for the reply's priming, as OpenAI's chat format costs. The total is
scaled by 1.1 so that it errs high: measured -3 % to +27 % across those samples
(``tests/test_llm_tokens.py``). A budget check that fires a little early is harmless; one that fires
late overflows a context window. Speed: ~1 µs per KB (``bench/bench_llm.py``).
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


_DENSE = "{}[]()<>\"':;,.!?=+-*/\\|&%$#@^~`_0123456789"
_DROP_DENSE = str.maketrans("", "", _DENSE)


def _text_units(text: str) -> float:
    if not text:
        return 0.0
    n_chars = len(text)
    dense = n_chars - len(text.translate(_DROP_DENSE))
    units = (n_chars - dense) / 4.5 + dense * 0.6
    if not text.isascii():
        units += (len(text.encode("utf-8", "surrogatepass")) - n_chars) * 0.35
    return units


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


def estimate_tokens(
    messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None = None
) -> int:
    """Estimated prompt tokens of chat ``messages`` (+ ``tools`` schemas) — microseconds per
    message."""
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
                units += (
                    3
                    + _text_units(str(fn.get("name") or ""))
                    + _text_units(str(fn.get("arguments") or ""))
                )
    if tools:
        units += 12 + _text_units(_dumps(tools))
    return math.ceil((units + count * _PER_MESSAGE + _PRIMING) * _SAFETY)
