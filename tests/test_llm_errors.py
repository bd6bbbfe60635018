"""Error classes against a real HTTP path (litellm's OpenAI provider → a loopback server): faults of
the provider fail on the first attempt with one line naming provider, model, endpoint and what to
set; only transient faults are retried; a Dream run on an unavailable model leaves its batch pending
without counting an attempt; the CLI prints the error once."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import pytest
from support.cli import invoke
from support.dream_helpers import make_env
from support.openai_server import OpenAIServer, Step, chat, tool_call_reply

from reverie.dream import Dream
from reverie.dream.records import Attempts, StatusRecord
from reverie.errors import ModelError, ModelUnavailableError
from reverie.llm import ModelClient
from reverie.memory.status import collect_status
from reverie.storage.config import Config, ProviderConfig

KEY = "sk-test-SECRETKEY1234567890abcdef"
MSGS = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server():
    with OpenAIServer() as srv:
        yield srv


def _config(base: str, key: str | None = KEY, **llm: float) -> Config:
    cfg = Config()
    cfg.agents.defaults.model = "openai/test-model"
    cfg.providers["openai"] = ProviderConfig(api_key=key, api_base=base)
    for k, v in {
        "backoff_base": 0.05,
        "backoff_max": 0.2,
        "timeout": 5.0,
        "max_retries": 5,
        **llm,
    }.items():
        setattr(cfg.llm, k, v)
    return cfg


def _fail(cfg: Config, model: str | None = None) -> tuple[ModelUnavailableError, float]:
    t0 = time.monotonic()
    with pytest.raises(ModelUnavailableError) as info:
        asyncio.run(ModelClient(cfg).complete(MSGS, model=model))
    return info.value, time.monotonic() - t0


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed on exit: nothing listens there


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_fails_on_the_first_attempt_and_says_what_to_set(
    server: OpenAIServer, status: int
) -> None:
    server.enqueue(
        Step(
            status,
            body={"error": {"message": f"Incorrect API key provided: {KEY}", "type": "auth"}},
        ),
        chat("never"),
    )
    err, _ = _fail(_config(server.base_url))
    assert len(server.chat_requests) == 1
    text = str(err)
    assert (err.kind, err.provider, err.model, err.endpoint) == (
        "auth",
        "openai",
        "openai/test-model",
        server.base_url,
    )
    assert (
        "OPENAI_API_KEY" in text and "providers.openai.apiKey" in text and server.base_url in text
    )
    assert "refused the API key" in text and KEY not in text and "\n" not in text


def test_a_missing_key_fails_at_once_without_a_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key anywhere for a hosted model: the SDK refuses before any request (no network is
    touched)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    err, spent = _fail(Config(), model="openai/gpt-4o-mini")
    assert err.kind == "auth" and "no API key for openai" in str(err)
    assert "https://api.openai.com/v1" in str(
        err
    ) and "set OPENAI_API_KEY or providers.openai.apiKey" in str(err)
    assert spent < 15  # before: 29-33 s of retries ("gave up after 6 attempts")


def test_an_unknown_model_fails_on_the_first_attempt(server: OpenAIServer) -> None:
    server.enqueue(
        Step(
            404,
            body={
                "error": {"message": "The model `nope` does not exist", "type": "invalid_request"}
            },
        ),
        chat("never"),
    )
    err, _ = _fail(_config(server.base_url), model="openai/nope")
    assert err.kind == "not-found" and len(server.chat_requests) == 1
    assert (
        "openai/nope" in str(err)
        and server.base_url in str(err)
        and "agents.defaults.model" in str(err)
    )


def test_a_name_no_provider_serves_is_not_found_without_a_request() -> None:
    err, _ = _fail(Config(), model="no-such-model-xyz")
    assert err.kind == "not-found" and "no-such-model-xyz" in str(err)


def test_connection_refused_fails_on_the_first_attempt_naming_the_url() -> None:
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    err, spent = _fail(_config(base))
    assert err.kind == "unreachable" and err.endpoint == base
    assert str(err) == (
        f"openai/test-model: cannot reach {base} (connection refused); start the server or set "
        "providers.openai.apiBase"
    )
    assert spent < 15  # before: 33 s of retries


def test_unreachable_is_told_apart_from_a_dropped_connection() -> None:
    from reverie.llm.client import _unreachable

    def chained(outer: BaseException, inner: BaseException) -> BaseException:
        outer.__cause__ = inner
        return outer

    assert _unreachable(
        chained(RuntimeError("Connection error."), socket.gaierror(-2, "Name or service not known"))
    )
    assert _unreachable(
        chained(RuntimeError("Connection error."), ConnectionRefusedError(111, "refused"))
    )
    assert not _unreachable(
        chained(RuntimeError("Connection error."), ConnectionResetError(104, "reset by peer"))
    )


def test_a_500_blaming_the_request_is_retried_once(server: OpenAIServer) -> None:
    """llama.cpp's template error on a null content is deterministic: one retry, then final (not
    5 × 7 s)."""
    malformed = {
        "error": {"message": "'dict object' has no attribute 'content'", "type": "server_error"}
    }
    server.enqueue(Step(500, body=malformed), Step(500, body=malformed), chat("never"))
    with pytest.raises(ModelError) as info:
        asyncio.run(ModelClient(_config(server.base_url)).complete(MSGS))
    assert not isinstance(info.value, ModelUnavailableError)  # the request's fault: Dream counts it
    assert len(server.chat_requests) == 2 and "has no attribute 'content'" in str(info.value)


def test_transient_faults_are_retried_and_past_the_budget_the_model_is_unavailable(
    server: OpenAIServer,
) -> None:
    server.enqueue(Step(429), Step(503), Step(close=True), chat("ok"))
    assert asyncio.run(ModelClient(_config(server.base_url)).complete(MSGS)).content == "ok"
    assert len(server.chat_requests) == 4
    server.enqueue(*[Step(503) for _ in range(20)])
    err, _ = _fail(_config(server.base_url, max_retries=2))
    assert err.kind == "overloaded" and "gave up after 3 attempts" in str(err)


def test_every_call_sends_max_tokens_and_the_configured_temperature(server: OpenAIServer) -> None:
    server.enqueue(chat("a"))
    cfg = _config(server.base_url)
    cfg.agents.defaults.temperature = 0.35
    asyncio.run(ModelClient(cfg).complete(MSGS))
    sent = server.chat_requests[0].json
    assert sent["temperature"] == 0.35 and sent["max_tokens"] == cfg.agents.defaults.max_tokens


# -- Dream over an unavailable model ---------------------------------------------------------------
def _dream_env(tmp_path: Path, base: str):
    env = make_env(tmp_path / "ws", max_attempts=2)
    env.config.dream.model_override = "openai/test-model"
    env.config.providers["openai"] = ProviderConfig(api_key=KEY, api_base=base)
    env.config.llm.max_retries = 5
    env.config.llm.backoff_base = 0.05
    return env


def test_an_unreachable_model_never_costs_a_batch(tmp_path: Path) -> None:
    env = _dream_env(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    env.add("- [durable] Lives in Berlin")
    for _ in range(4):  # twice max_attempts: an outage never sets the batch aside
        result = asyncio.run(Dream(env.store, env.git, ModelClient(env.config), env.config).run())
        assert (
            result.status == "failed" and "cannot reach" in result.reason and result.attempts == 0
        )
    assert env.store.dream_cursor() == 0 and env.store.pending_count() == 1
    assert Attempts.load(env.ws.state_dir).count == 0
    down = StatusRecord.load(env.ws.state_dir).model_unavailable
    assert down is not None and down["since"]
    assert collect_status(env.store).dream_model_unavailable == down


def test_a_refused_key_leaves_the_batch_pending_and_a_good_run_clears_the_outage(
    server: OpenAIServer, tmp_path: Path
) -> None:
    env = _dream_env(tmp_path, server.base_url)
    env.add("- [durable] Lives in Berlin")
    server.enqueue(Step(401))
    result = asyncio.run(Dream(env.store, env.git, ModelClient(env.config), env.config).run())
    assert result.status == "failed" and result.attempts == 0 and len(server.chat_requests) == 1
    assert StatusRecord.load(env.ws.state_dir).model_unavailable is not None
    server.enqueue(chat("[SKIP]"))
    assert (
        asyncio.run(Dream(env.store, env.git, ModelClient(env.config), env.config).run()).status
        == "no-change"
    )
    assert StatusRecord.load(env.ws.state_dir).model_unavailable is None


def test_the_edit_loop_sends_tool_call_turns_with_empty_content(
    server: OpenAIServer, tmp_path: Path
) -> None:
    env = _dream_env(tmp_path, server.base_url)
    env.add("- [durable] Lives in Berlin")
    user = (env.ws.root / "USER.md").read_text()
    last_line = user.rstrip("\n").splitlines()[-1]
    args = json.dumps(
        {"path": "USER.md", "old_text": last_line, "new_text": last_line + "\n- Lives in Berlin"}
    )
    server.enqueue(
        chat("[USER] Lives in Berlin"), tool_call_reply("edit_file", args), chat("Done.")
    )
    result = asyncio.run(Dream(env.store, env.git, ModelClient(env.config), env.config).run())
    assert result.status == "ok", result.reason
    analyze, first_edit, second_edit = (r.json for r in server.chat_requests)
    assistant = [m for m in second_edit["messages"] if m["role"] == "assistant"]
    assert assistant and assistant[0]["content"] == "" and assistant[0]["tool_calls"]
    assert analyze["max_tokens"] == 1_536 and first_edit["max_tokens"] == 2_048
    assert all(
        r["temperature"] == env.config.agents.defaults.temperature
        for r in (analyze, first_edit, second_edit)
    )


def test_the_cli_prints_a_provider_error_once(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    (ws / "reverie.json").write_text(
        json.dumps(
            {
                "agents": {"defaults": {"model": "openai/test-model"}},
                "providers": {"openai": {"apiBase": base, "apiKey": "k"}},
            }
        )
    )
    assert invoke("-w", str(ws), "history", "append", "- [durable] Lives in Berlin").returncode == 0
    t0 = time.monotonic()
    out = invoke("-w", str(ws), "dream")
    assert out.returncode == 1
    both = out.stdout + out.stderr
    assert both.count("cannot reach") == 1 and base in both, both
    assert time.monotonic() - t0 < 60
    status = invoke("-w", str(ws), "status")
    assert "model unreachable since" in status.stdout and status.stdout.count("cannot reach") == 1


def test_new_during_an_outage_warns_about_it_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """/new meets the same outage in the archive call and the session summary: the user reads it
    once."""
    from reverie.chat import ChatAgent
    from reverie.memory.runtime import Runtime
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.init()
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    cfg = _config(base)
    rt = Runtime(ws, config=cfg)
    agent = ChatAgent(rt, session_key="cli:t")
    session = rt.sessions.get_or_create("cli:t")
    for text in ("I live in Lisbon", "I work at Santa Maria", "I prefer green tea"):
        rt.sessions.append(session, {"role": "user", "content": text})
    with caplog.at_level("INFO"):
        reply = asyncio.run(agent.respond("/new"))
    assert "raw transcript was kept" in reply
    warned = [
        r for r in caplog.records if r.levelname == "WARNING" and "cannot reach" in r.getMessage()
    ]
    assert len(warned) == 1, [r.getMessage() for r in caplog.records]
    text = next((ws.root / "memory").glob("20*-*.md")).read_text()
    assert "(raw excerpt: the model was unavailable)" in text


def test_a_scripted_fake_raising_a_providers_auth_error_is_classified_the_same() -> None:
    from reverie.llm import ScriptedModel
    from reverie.llm._litellm import get_litellm

    litellm = get_litellm()
    fake = ScriptedModel.register("auth-fail")
    fake.enqueue(
        litellm.AuthenticationError("invalid key", llm_provider="openai", model="x"), "never"
    )
    with pytest.raises(ModelUnavailableError) as info:
        asyncio.run(ModelClient(Config()).complete(MSGS, model=fake.model))
    assert info.value.kind == "auth" and fake.pending == 1  # not retried
    ScriptedModel.unregister("auth-fail")
