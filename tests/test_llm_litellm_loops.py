"""litellm's process-wide logging worker across event loops (adapt4 item 8): a remote model called
from several loops at once (``serve --root`` runs each scope in its own, every synchronous verb in
a fresh one) made the worker's callbacks fail with tracebacks on stderr (upstream
BerriAI/litellm#36548); the user sees one warning line instead. A local OpenAI-compatible server,
litellm's real HTTP path, no network."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer, Step, chat

import reverie
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


class _Always:
    """A server script that never runs out: every request gets ``step``."""

    def __init__(self, step: Step) -> None:
        self.step = step

    def __bool__(self) -> bool:
        return True

    def popleft(self) -> Step:
        return self.step

    def extend(self, steps: object) -> None:
        pass


def test_an_app_mixing_sync_and_async_verbs_on_a_remote_model_sees_one_line_at_most(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An application sharing one ``Memory`` between its threads (each synchronous verb runs on a
    fresh loop) and its event loop (the async verbs run on a worker's loop) while the model is a
    remote one: the loops' calls overlap, and every loop that closed with litellm's logging worker
    task pending made asyncio print "Task was destroyed but it is pending!" with the task, four
    lines a time (or "Task exception was never retrieved"). Every conversation still reaches
    history; what the application's logging gets is the one warning line at most."""
    with OpenAIServer() as server:
        server.steps = _Always(chat("- [durable] Moved to a new city and works at a new firm"))  # type: ignore[assignment]
        cfg = Config.model_validate(
            {
                "agents": {"defaults": {"model": "openai/test-model"}},
                "providers": {"openai": {"apiKey": "sk-test", "apiBase": server.base_url}},
                "memory": {"history": {"fsync": False}},
            }
        )
        said = [f"I moved to city {n} and I work at firm {n} now." for n in range(6)]
        with reverie.open(tmp_path / "ws", config=cfg) as memory:
            memory.init()

            def conversation(key: str, text: str) -> None:
                memory.record(key, [{"role": "user", "content": text}], consolidate=False)
                memory.clear(key)

            async def app() -> None:
                for n, text in enumerate(said):
                    if n % 2 == 0:  # on a worker's loop, which stays open for the next verb
                        await memory.arecord("a", [{"role": "user", "content": text}])
                        await memory.aclear("a")
                    else:  # on a fresh loop, in a thread of the application's
                        await asyncio.to_thread(conversation, f"t{n}", text)
                    gc.collect()  # a task nothing holds any more is reported when collected

            asyncio.run(app())
            kept = [entry.content for entry in memory.history()]
    assert len(kept) == len(said)
    told = [r.getMessage() for r in caplog.records if r.name in ("asyncio", "LiteLLM")]
    assert not any("Task was destroyed" in m or "never retrieved" in m for m in told), told
    assert all("\n" not in m for m in told), told
    assert sum("logging worker failed" in m for m in told) <= 1, told


def test_asyncio_reports_about_other_litellm_work_reach_the_application(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Only the logging worker's tasks are folded into the one line: asyncio's debug mode timing a
    slow litellm call is the application's to see, word for word."""
    from reverie.llm._litellm import get_litellm

    get_litellm()  # installs the filter on asyncio's logger
    slow = (
        "Executing <Task pending name='Task-3' coro=<acompletion() running at "
        "/venv/lib/python3.11/site-packages/litellm/chat_completions/dispatch.py:129>> took 0.3 "
        "seconds"
    )
    logging.getLogger("asyncio").warning(slow)
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == [slow]
