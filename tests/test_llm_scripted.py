"""The scripted fake, through the real client and litellm: replies, tool calls, usage, errors,
records."""

from __future__ import annotations

import time
from asyncio import run

import pytest

from reverie.errors import ModelError
from reverie.llm import ModelClient, Reply, ScriptedModel, ToolCall, Usage
from reverie.llm.scripted import bad_request_error, rate_limit_error, server_error
from reverie.storage.config import Config

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "description": "edit",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
MSGS = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hello there"}]


def _client(**llm: object) -> ModelClient:
    cfg = Config()
    for k, v in llm.items():
        setattr(cfg.llm, k, v)
    return ModelClient(cfg)


def test_text_tool_calls_finish_reason_and_usage_round_trip() -> None:
    fake = ScriptedModel.register("basic")
    fake.enqueue(
        "plain text",
        [
            ToolCall("c1", "edit_file", {"path": "USER.md"}),
            ToolCall("c2", "edit_file", {"path": "SOUL.md"}),
        ],
        Reply("cut", finish_reason="length", usage=Usage(11, 7)),
    )
    client = _client()
    r1 = run(client.complete(MSGS, model=fake.model))
    r2 = run(client.complete(MSGS, model=fake.model, tools=TOOLS, tool_choice="auto"))
    r3 = run(client.complete(MSGS, model=fake.model, temperature=0.3, max_tokens=50))
    assert (r1.content, r1.finish_reason, r1.tool_calls) == ("plain text", "stop", ())
    assert r1.usage.prompt_tokens > 0 and r1.usage.completion_tokens > 0
    assert r2.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in r2.tool_calls] == [
        ("c1", "edit_file", {"path": "USER.md"}),
        ("c2", "edit_file", {"path": "SOUL.md"}),
    ]
    assert (r3.content, r3.finish_reason, r3.usage.prompt_tokens, r3.usage.completion_tokens) == (
        "cut",
        "length",
        11,
        7,
    )
    assert len(fake.prompts) == 3
    assert fake.prompts[1].tools == TOOLS and fake.prompts[1].tool_choice == "auto"
    assert fake.prompts[2].temperature == 0.3 and fake.prompts[2].max_tokens == 50
    assert fake.prompts[0].system == "sys" and fake.prompts[0].user == "hello there"


def test_malformed_tool_arguments_are_kept_raw() -> None:
    fake = ScriptedModel.register("badargs")
    fake.enqueue(ToolCall("c1", "edit_file", None, raw_arguments='{"path": "USER.md"'))
    r = run(_client().complete(MSGS, model=fake.model, tools=TOOLS))
    assert r.tool_calls[0].arguments is None
    assert r.tool_calls[0].raw_arguments == '{"path": "USER.md"'


def test_callable_reply_and_responder_see_the_prompt() -> None:
    fake = ScriptedModel.register("echo", responder=lambda p: f"echo:{p.user}")
    fake.enqueue(lambda p: p.system.upper())
    client = _client()
    assert run(client.complete(MSGS, model=fake.model)).content == "SYS"
    assert run(client.complete(MSGS, model=fake.model)).content == "echo:hello there"


def test_empty_queue_and_unknown_name_fail_clearly_without_retry() -> None:
    fake = ScriptedModel.register("empty")
    client = _client(backoff_base=0.01)
    with pytest.raises(ModelError, match="no reply queued"):
        run(client.complete(MSGS, model=fake.model))
    assert len(fake.prompts) == 1  # not retried
    with pytest.raises(ModelError, match="no scripted model registered as 'nobody'"):
        run(client.complete(MSGS, model="scripted/nobody"))


def test_rate_limit_is_retried_after_retry_after() -> None:
    fake = ScriptedModel.register("limited")
    fake.enqueue(rate_limit_error(retry_after=0.3), server_error(500), "finally")
    client = _client(backoff_base=0.01)
    t0 = time.monotonic()
    r = run(client.complete(MSGS, model=fake.model))
    assert r.content == "finally"
    assert time.monotonic() - t0 >= 0.3
    assert len(fake.prompts) == 3


def test_bad_request_is_not_retried() -> None:
    fake = ScriptedModel.register("bad")
    fake.enqueue(bad_request_error("your request is wrong"), "never")
    with pytest.raises(ModelError, match="your request is wrong"):
        run(_client().complete(MSGS, model=fake.model))
    assert fake.pending == 1


def test_direct_mode_skips_litellm_but_keeps_the_contract() -> None:
    fake = ScriptedModel.register("fast", direct=True)
    fake.enqueue("x", ToolCall("c", "edit_file", {"path": "USER.md"}))
    client = _client()
    r1 = run(client.complete(MSGS, model=fake.model))
    r2 = run(client.complete(MSGS, model=fake.model, tools=TOOLS))
    assert r1.content == "x" and r1.usage.prompt_tokens > 0
    assert r2.tool_calls[0].arguments == {"path": "USER.md"} and r2.finish_reason == "tool_calls"


@pytest.mark.parametrize("direct", [False, True])
def test_slow_reply_times_out_and_is_retried(direct: bool) -> None:
    fake = ScriptedModel.register(f"slow{direct}", direct=direct)
    fake.enqueue(Reply("too late", delay=5), Reply("in time", delay=0.05))
    client = _client(backoff_base=0.01)
    t0 = time.monotonic()
    r = run(client.complete(MSGS, model=fake.model, timeout=0.3))
    assert r.content == "in time" and len(fake.prompts) == 2
    assert time.monotonic() - t0 < 4.5  # without the timeout the first reply alone takes 5 s


def test_latency_applies_to_every_reply() -> None:
    fake = ScriptedModel.register("laggy", latency=0.2, responder=lambda p: "ok")
    t0 = time.monotonic()
    run(_client().complete(MSGS, model=fake.model))
    assert time.monotonic() - t0 >= 0.2
