"""The cheap token estimate against litellm's real tokenizer (offline for OpenAI names), and the
client's choice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reverie.llm import ModelClient
from reverie.llm.tokens import estimate_tokens
from reverie.storage.config import Config

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = {
    "prose": (ROOT / "reverie" / "prompts" / "archive.md").read_text() * 3,
    "python": (ROOT / "reverie" / "llm" / "client.py").read_text()[:6000],
    "json": json.dumps(
        [{"id": i, "name": f"item-{i}", "tags": ["a", "b"], "score": i * 1.5} for i in range(150)]
    ),
    "german": (
        "Ich wohne in München und arbeite bei Siemens als Ingenieur. Bitte antworte kurz und"
        " bündig. " * 40
    ),
    "chinese": "我住在北京，在一家软件公司工作。请用中文回答，并保持简短。" * 60,
    "transcript": "\n".join(
        f"[2026-11-20 10:{i:02d}] USER: I live in Munich, turn {i}." for i in range(60)
    ),
}


#: The tokenizers counted against (litellm's offline tiktoken files), with how far above each the
#: estimate may be. It is fitted to cl100k (gpt-4's: what litellm before 1.108 also used for
#: "openai/gpt-4o-mini"); o200k (gpt-4o's, which litellm 1.110 uses for that name) codes CJK text
#: in ~40 % fewer tokens, so there the estimate errs higher still (+63 % on the Chinese sample),
#: on the safe side. It may never count more than 8 % under either.
TOKENIZERS = {"gpt-4": 0.35, "openai/gpt-4o-mini": 0.70}


@pytest.mark.parametrize("model", sorted(TOKENIZERS))
@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_estimate_is_close_to_tiktoken_and_errs_high(kind: str, model: str) -> None:
    from reverie.llm._litellm import get_litellm

    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": SAMPLES[kind]},
    ]
    real = get_litellm().token_counter(model=model, messages=messages)
    est = estimate_tokens(messages)
    assert -0.08 <= (est - real) / real <= TOKENIZERS[model], (kind, model, est, real)


def test_tools_tool_calls_and_parts_count() -> None:
    base = [{"role": "user", "content": "hi"}]
    tools = [
        {"type": "function", "function": {"name": "edit_file", "description": "Edit a file " * 20}}
    ]
    calls = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "edit_file", "arguments": '{"path": "USER.md"}' * 10},
                }
            ],
        }
    ]
    parts = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hello " * 100}, {"type": "image_url"}],
        }
    ]
    assert estimate_tokens(base, tools) > estimate_tokens(base) + 40
    assert estimate_tokens(base + calls) > estimate_tokens(base) + 40
    assert estimate_tokens(parts) > 100 + 85


def test_client_uses_the_estimate_for_in_process_models() -> None:
    client = ModelClient(Config())
    msgs = [{"role": "user", "content": "I live in Munich. " * 50}]
    assert client.count_tokens(msgs) == estimate_tokens(msgs)
    assert client.count_tokens(msgs, model="scripted/x") == estimate_tokens(msgs)
