"""The real client path — litellm's OpenAI provider over HTTP — against a local scripted server:
retries, timeouts, dropped connections, errors that must not be retried, malformed replies, the
retry budget, and key hygiene."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from asyncio import run

import pytest
from support.openai_server import OpenAIServer, Step, anthropic_message, chat, tool_call_reply

from reverie.errors import ModelError
from reverie.llm import ModelClient
from reverie.storage.config import Config, ProviderConfig

KEY = "sk-test-SECRETKEY1234567890abcdef"
MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "description": "edit a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


@pytest.fixture
def server():
    with OpenAIServer() as srv:
        yield srv


def client_for(srv: OpenAIServer, **llm: float) -> ModelClient:
    cfg = Config()
    cfg.agents.defaults.model = "openai/test-model"
    cfg.providers["openai"] = ProviderConfig(api_key=KEY, api_base=srv.base_url)
    settings = {"backoff_base": 0.05, "backoff_max": 0.2, "timeout": 5.0, **llm}
    for k, v in settings.items():
        setattr(cfg.llm, k, v)
    return ModelClient(cfg)


def test_reply_usage_and_request_shape(server: OpenAIServer) -> None:
    server.enqueue(chat("Hi!", prompt_tokens=21, completion_tokens=3))
    r = run(
        client_for(server).complete(
            MSGS, tools=TOOLS, tool_choice="auto", temperature=0.2, max_tokens=64
        )
    )
    assert (r.content, r.finish_reason, r.usage.prompt_tokens, r.usage.completion_tokens) == (
        "Hi!",
        "stop",
        21,
        3,
    )
    assert r.model == "openai/test-model"
    [req] = server.chat_requests
    assert req.json["model"] == "test-model" and req.json["messages"] == MSGS
    assert req.json["tools"] == TOOLS and req.json["tool_choice"] == "auto"
    assert req.json["temperature"] == 0.2 and req.json["max_tokens"] == 64
    assert req.headers.get("authorization") == f"Bearer {KEY}"


def test_per_call_model_override(server: OpenAIServer) -> None:
    server.enqueue(chat("from other"))
    r = run(client_for(server).complete(MSGS, model="openai/other-model"))
    assert r.content == "from other" and server.chat_requests[0].json["model"] == "other-model"


def test_429_with_retry_after_is_honoured(server: OpenAIServer) -> None:
    server.enqueue(Step(429, headers={"Retry-After": "1"}), chat("after wait"))
    client = client_for(server)
    waits: list[float] = []

    async def sleep(delay: float) -> None:  # the client's one wait, timed as it decides it
        waits.append(delay)
        await asyncio.sleep(delay)

    client._sleep = sleep
    r = run(client.complete(MSGS))
    assert r.content == "after wait"
    first, second = server.chat_requests
    assert second.at - first.at >= 1.0
    # what it chose to wait, whatever the machine's load: the server's second, plus a jitter under
    # a tenth of the backoff base (not its own backoff, nor an hour)
    assert len(waits) == 1 and 1.0 <= waits[0] <= 1.0 + 0.1 * 0.05


def test_retry_after_is_capped(server: OpenAIServer) -> None:
    server.enqueue(Step(429, headers={"Retry-After": "3600"}), chat("soon"))
    t0 = time.monotonic()
    r = run(client_for(server, retry_after_max=0.3).complete(MSGS))
    assert r.content == "soon" and time.monotonic() - t0 < 15  # uncapped would wait 3,600 s


def test_5xx_is_retried_with_backoff(server: OpenAIServer) -> None:
    server.enqueue(Step(500), Step(503), Step(502), chat("third time lucky"))
    r = run(client_for(server).complete(MSGS))
    assert r.content == "third time lucky" and len(server.chat_requests) == 4


def test_4xx_is_not_retried(server: OpenAIServer) -> None:
    server.enqueue(
        Step(400, body={"error": {"message": "bad tool schema", "type": "invalid_request_error"}}),
        chat(),
    )
    with pytest.raises(ModelError, match="bad tool schema"):
        run(client_for(server).complete(MSGS))
    assert len(server.chat_requests) == 1


@pytest.mark.parametrize("status", [401, 404, 422])
def test_other_client_errors_are_final(server: OpenAIServer, status: int) -> None:
    server.enqueue(Step(status), chat())
    with pytest.raises(ModelError):
        run(client_for(server).complete(MSGS))
    assert len(server.chat_requests) == 1


def test_a_hang_past_the_timeout_is_retried(server: OpenAIServer) -> None:
    server.enqueue(Step(delay=3.0), chat("woke up"))
    r = run(client_for(server, timeout=0.5).complete(MSGS))
    # the second request's reply: the first, hung, was cut by the timeout and retried (without the
    # timeout: one request, answered after 3 s)
    assert r.content == "woke up" and len(server.chat_requests) == 2


def test_a_dropped_connection_is_retried(server: OpenAIServer) -> None:
    server.enqueue(Step(close=True), chat("reconnected"))
    r = run(client_for(server).complete(MSGS))
    assert r.content == "reconnected" and len(server.chat_requests) == 2


def test_total_retry_time_is_bounded(server: OpenAIServer) -> None:
    server.enqueue(*[Step(500) for _ in range(100)])
    t0 = time.monotonic()
    with pytest.raises(ModelError, match="gave up"):
        run(
            client_for(
                server, max_retries=50, retry_budget=1.0, backoff_base=0.1, backoff_max=0.4
            ).complete(MSGS)
        )
    assert time.monotonic() - t0 < 8  # unbounded: ~50 retries × 0.4 s ≈ 20 s
    assert 2 <= len(server.chat_requests) < 20


def test_a_hang_cannot_outlive_the_budget(server: OpenAIServer) -> None:
    server.enqueue(*[Step(delay=5.0) for _ in range(5)])
    t0 = time.monotonic()
    with pytest.raises(ModelError):
        run(client_for(server, timeout=30, retry_budget=1.0).complete(MSGS))
    assert time.monotonic() - t0 < 8  # unbounded: 5 hangs × 5 s = 25 s


def test_retry_after_beyond_the_budget_gives_up_at_once(server: OpenAIServer) -> None:
    server.enqueue(Step(429, headers={"Retry-After": "30"}), chat())
    t0 = time.monotonic()
    with pytest.raises(ModelError, match="429"):
        run(client_for(server, retry_budget=2.0, retry_after_max=60).complete(MSGS))
    assert (
        time.monotonic() - t0 < 8 and len(server.chat_requests) == 1
    )  # obeying it would wait 30 s


def test_malformed_tool_arguments(server: OpenAIServer) -> None:
    server.enqueue(
        tool_call_reply("edit_file", '{"path": "USER.md", "old_text": '),
        tool_call_reply("edit_file", '["not", "an", "object"]'),
        tool_call_reply("edit_file", '{"path": "USER.md"}'),
    )
    client = client_for(server)
    r1, r2, r3 = (run(client.complete(MSGS, tools=TOOLS)) for _ in range(3))
    assert r1.finish_reason == "tool_calls"
    assert (
        r1.tool_calls[0].arguments is None
        and r1.tool_calls[0].raw_arguments == '{"path": "USER.md", "old_text": '
    )
    assert r2.tool_calls[0].arguments is None
    assert r3.tool_calls[0].arguments == {"path": "USER.md"} and r3.tool_calls[0].id == "call_1"


def test_empty_reply(server: OpenAIServer) -> None:
    server.enqueue(chat(None), chat(""))
    client = client_for(server)
    assert run(client.complete(MSGS)).content in (None, "")
    assert run(client.complete(MSGS)).content in (None, "")


def test_garbage_body_is_a_model_error(server: OpenAIServer) -> None:
    server.enqueue(*[Step(200, body=b"<html>not json</html>") for _ in range(10)])
    with pytest.raises(ModelError):
        run(client_for(server, retry_budget=2.0).complete(MSGS))


@pytest.mark.parametrize(
    "body", [{"choices": [{"index": 0}]}, {"choices": [{"message": 5}]}], ids=["no-message", "bad"]
)
def test_a_reply_litellm_cannot_read_is_not_called_the_requests_fault(
    server: OpenAIServer, body: dict[str, object]
) -> None:
    """litellm reports a 200 it cannot read as its own 500 "Invalid response object"; the error said
    "the server blamed the request twice", which sent a user looking at their prompt."""
    server.enqueue(*[Step(200, body=json.dumps(body).encode()) for _ in range(10)])
    with pytest.raises(ModelError) as raised:
        run(client_for(server, retry_budget=2.0).complete(MSGS))
    assert "Invalid response object" in str(raised.value)
    assert "blamed" not in str(raised.value)
    assert str(raised.value).endswith("(the same error twice; not retried again)")


def test_api_key_never_in_errors_or_logs(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = {
        "error": {
            "message": f"Incorrect API key provided: {KEY}. Bearer {KEY}",
            "type": "invalid_request_error",
        }
    }
    server.enqueue(Step(500, body=echo), Step(401, body=echo))
    with pytest.raises(ModelError) as info:
        run(client_for(server).complete(MSGS))
    text = str(info.value)
    assert "Incorrect API key" in text
    assert KEY not in text and KEY[10:] not in text
    assert KEY not in caplog.text and KEY[10:] not in caplog.text
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_env_var_key_when_config_has_none(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-KEY99999999999999")
    server.enqueue(chat("env ok"))
    cfg = Config()
    cfg.providers["openai"] = ProviderConfig(api_base=server.base_url)
    r = run(ModelClient(cfg).complete(MSGS, model="openai/test-model"))
    assert r.content == "env ok"
    assert server.chat_requests[0].headers.get("authorization") == "Bearer sk-env-KEY99999999999999"


def test_local_server_without_any_key(server: OpenAIServer) -> None:
    server.enqueue(chat("keyless"))
    cfg = Config()
    cfg.providers["openai"] = ProviderConfig(api_base=server.base_url)
    r = run(ModelClient(cfg).complete(MSGS, model="openai/test-model"))
    assert (
        r.content == "keyless"
        and server.chat_requests[0].headers.get("authorization") == "Bearer no-key"
    )


def test_nanobot_custom_provider_routes_to_openai_compatible_server(server: OpenAIServer) -> None:
    server.enqueue(chat("custom one"), chat("custom two"))
    cfg = Config.model_validate(
        {
            "agents": {"defaults": {"model": "my-local-llama"}},
            "providers": {"custom": {"apiKey": KEY, "apiBase": server.base_url}},
        }
    )
    client = ModelClient(cfg)
    assert run(client.complete(MSGS)).content == "custom one"
    assert run(client.complete(MSGS, model="custom/other")).content == "custom two"
    assert [r.json["model"] for r in server.chat_requests] == ["my-local-llama", "other"]


def test_reply_with_lone_surrogates_is_made_safe(server: OpenAIServer) -> None:
    server.enqueue(
        Step(body=json.dumps(chat("x").body).replace('"x"', '"bad \\ud800 text"').encode())
    )
    r = run(client_for(server).complete(MSGS))
    assert r.content == "bad \ufffd text"
    r.content.encode("utf-8")


def test_cost_when_litellm_knows_the_price(server: OpenAIServer) -> None:
    server.enqueue(
        chat("priced", prompt_tokens=1000, completion_tokens=1000, model="gpt-4o-mini"),
        chat("unpriced"),
    )
    client = client_for(server)
    priced = run(client.complete(MSGS, model="openai/gpt-4o-mini"))
    unknown = run(client.complete(MSGS, model="openai/no-such-model-xyz"))
    assert priced.usage.cost is not None and 0 < priced.usage.cost < 0.01
    assert unknown.usage.cost is None and unknown.usage.prompt_tokens == 12


def test_retry_after_as_http_date_and_409(server: OpenAIServer) -> None:
    import email.utils

    when = email.utils.formatdate(time.time() + 2, usegmt=True)
    server.enqueue(Step(429, headers={"Retry-After": when}), Step(409), chat("done"))
    t0 = time.monotonic()
    r = run(client_for(server).complete(MSGS))
    assert r.content == "done" and len(server.chat_requests) == 3
    assert 0.5 <= time.monotonic() - t0 < 12


def test_a_reply_cut_mid_body_is_retried(server: OpenAIServer) -> None:
    cut = chat("never seen")
    cut.truncate = 30
    server.enqueue(cut, chat("whole"))
    r = run(client_for(server).complete(MSGS))
    assert r.content == "whole" and len(server.chat_requests) == 2


def test_anthropic_prefix_takes_the_anthropic_provider_settings(server: OpenAIServer) -> None:
    anthropic_key = "sk-ant-api03-SECRETSECRETSECRET123456"
    cfg = Config()
    cfg.providers["openai"] = ProviderConfig(api_key=KEY, api_base="http://127.0.0.1:9/never")
    cfg.providers["anthropic"] = ProviderConfig(
        api_key=anthropic_key, api_base=f"http://127.0.0.1:{server.port}"
    )
    server.enqueue(
        anthropic_message("Bonjour", input_tokens=40, output_tokens=2),
        Step(
            401,
            body={
                "type": "error",
                "error": {
                    "type": "authentication_error",
                    "message": f"invalid x-api-key {anthropic_key}",
                },
            },
        ),
    )
    client = ModelClient(cfg)
    r = run(client.complete(MSGS, model="anthropic/claude-3-5-haiku-20241022"))
    assert (r.content, r.usage.prompt_tokens, r.usage.completion_tokens) == ("Bonjour", 40, 2)
    req = server.chat_requests[0]
    assert req.path.endswith("/v1/messages") and req.headers.get("x-api-key") == anthropic_key
    with pytest.raises(ModelError) as info:
        run(client.complete(MSGS, model="anthropic/claude-3-5-haiku-20241022"))
    assert anthropic_key not in str(info.value) and "SECRETSECRET" not in str(info.value)
