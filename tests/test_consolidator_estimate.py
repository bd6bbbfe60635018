"""The incremental prompt estimate equals a full count in every state a session goes through."""

from __future__ import annotations

import pytest

from reverie import MemoryStore
from reverie.consolidator import SessionStore
from reverie.consolidator.estimate import PromptEstimator, prompt_messages
from reverie.llm.client import ModelClient
from reverie.storage.config import Config

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


@pytest.mark.parametrize("model", ["reverie/offline", "openai/gpt-4o-mini"])
def test_incremental_estimate_matches_a_full_count(workspace, model):
    if model.startswith("openai/"):
        from reverie.llm._litellm import get_litellm

        get_litellm()  # count_tokens uses the model's real tokenizer once litellm is loaded
    config = Config.model_validate({"agents": {"defaults": {"model": model}}})
    client = ModelClient(config)
    store = MemoryStore(workspace, config=config)
    sessions = SessionStore(workspace, fsync=False)
    est = PromptEstimator(client)
    s = sessions.get_or_create("k")

    def check() -> None:
        full = client.count_tokens(prompt_messages(store, s), tools=TOOLS, model=model)
        got = est.estimate(store, s, tools=TOOLS, model=model)
        if exact:
            assert got == full
        # the cheap estimate rounds up per call: summing per-message counts may differ by 1 per
        # message
        else:
            assert abs(got - full) <= len(s.unconsolidated) + 2

    exact = model.startswith("openai/")

    check()  # empty session
    for i in range(30):
        sessions.append(
            s, {"role": "user", "content": f"question {i} about the déploiement " * (i % 5 + 1)}
        )
        sessions.append(
            s,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "x.md"}'},
                    }
                ],
            },
        )
        sessions.append(
            s,
            {"role": "tool", "tool_call_id": f"c{i}", "name": "read_file", "content": "数据 " * i},
        )
        check()
    sessions.save_offset(s, 40)
    check()  # archived
    store.write_long_term("# Memory\n- new fact\n")
    check()  # the system prompt changed
    sessions.save_offset(s, 10)
    check()  # offset moved back (a reset)
    sessions.clear(s)
    for i in range(3):
        sessions.append(s, {"role": "user", "content": f"fresh {i}"})
    check()  # replaced, not extended
    s.messages[0]["content"] = "edited in place, so much longer than before " * 20
    s2 = sessions.get_or_create("k")
    est.estimate(store, s2, tools=TOOLS, model=model)
    check()
