"""litellm's process-wide logging worker across event loops (adapt4 item 8): a remote model called
from several loops at once (``serve --root`` runs each scope in its own, every synchronous verb in
a fresh one) made the worker's callbacks fail with tracebacks on stderr (upstream
BerriAI/litellm#36548); the user sees one warning line instead. A local OpenAI-compatible server,
litellm's real HTTP path, no network."""

from __future__ import annotations

import asyncio
import threading

import pytest
from support.openai_server import OpenAIServer, chat

from reverie.llm import ModelClient
from reverie.storage.config import Config, ProviderConfig

MESSAGES = [{"role": "user", "content": "hello"}]


def test_calls_from_many_event_loops_print_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    with OpenAIServer() as server:
        server.enqueue(*[chat("Hi!") for _ in range(6)])
        cfg = Config()
        cfg.agents.defaults.model = "openai/test-model"
        cfg.providers["openai"] = ProviderConfig(api_key="sk-test", api_base=server.base_url)
        client = ModelClient(cfg)
        replies: list[str | None] = []

        def calls() -> None:
            for _ in range(2):
                replies.append(asyncio.run(client.complete(MESSAGES)).content)

        threads = [threading.Thread(target=calls) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    assert replies == ["Hi!"] * 6
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    assert err.count("logging worker failed") <= 1, err
