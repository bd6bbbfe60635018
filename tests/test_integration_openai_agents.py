"""The OpenAI Agents SDK's own ``Runner`` with a ``ReverieSession`` (the model is a local
implementation of the SDK's ``Model`` interface; no network): the conversation is kept in
sessions/<key>.jsonl and given back in the next run, consolidated under token pressure, archived
before it is cleared, dreamed into memory (``reverie log``) and undone by ``reverie restore``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import reverie
from reverie.cli import main

# The SDK is imported when this file's tests run (``_sdk``), not when the suite is collected: every
# xdist worker collects every file, and only one runs this one. Its models: support/agents_models.
Agent: Any = None
Runner: Any = None
EchoModel: Any = None
ToolModel: Any = None
ReverieSession: Any = None
memory_instructions: Any = None
memory_tools: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    global Agent, Runner, EchoModel, ToolModel
    global ReverieSession, memory_instructions, memory_tools
    agents = pytest.importorskip(
        "agents", reason="the OpenAI Agents SDK (reverie[openai-agents]) is not installed"
    )
    from support import agents_models

    from reverie.integrations import openai_agents as adapter

    agents.set_tracing_disabled(True)  # it would otherwise export traces to OpenAI at exit
    Agent, Runner = agents.Agent, agents.Runner
    EchoModel, ToolModel = agents_models.EchoModel, agents_models.ToolModel
    ReverieSession = adapter.ReverieSession
    memory_instructions, memory_tools = adapter.memory_instructions, adapter.memory_tools


def _run(memory: reverie.Memory, model: EchoModel, prompt: str, key: str = "app:alice") -> str:
    agent = Agent(
        name="assistant", model=model, instructions=memory_instructions(memory, "Be brief.")
    )
    result = asyncio.run(Runner.run(agent, prompt, session=ReverieSession(key, memory)))
    return str(result.final_output)


def test_a_conversation_is_kept_given_back_dreamed_logged_and_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    model = EchoModel()
    with reverie.open(ws) as memory:
        memory.init()
        assert _run(memory, model, "My name is Ada and I live in Lisbon.").endswith("Lisbon.")
    lines = (ws / "sessions" / "app_alice.jsonl").read_text().splitlines()
    stored = [json.loads(x) for x in lines[1:]]
    assert [m["role"] for m in stored] == ["user", "assistant"] and stored[1]["item"][
        "type"
    ] == "message"

    with reverie.open(
        ws
    ) as memory:  # the next run, on objects of its own: the session gives the turns back
        out = _run(memory, model, "Where do I live?")
        assert out == "I have seen 2 user message(s); the last: Where do I live?"
        assert "Be brief." in (model.calls[-1][0] or "")

        session = ReverieSession("app:alice", memory)
        assert len(asyncio.run(session.get_items())) == 4
        assert len(asyncio.run(session.get_items(limit=1))) == 1
        popped = asyncio.run(session.pop_item())
        assert popped is not None and popped.get("role") == "assistant"
        asyncio.run(session.clear_session())  # archived first, then cleared
        assert asyncio.run(session.get_items()) == []
        assert "Lives in Lisbon" in "\n".join(e.content for e in memory.history())
        result = memory.dream(all=True)
        assert result.commit is not None and "Lives in Lisbon" in memory.read("USER.md")
        _run(memory, model, "And my name?")
        assert "Lives in Lisbon" in (
            model.calls[-1][0] or ""
        )  # the dreamed memory is in the instructions

    assert main(["-w", str(ws), "log", "--kind", "dream", "--json"]) == 0
    commits = json.loads(capsys.readouterr().out)
    assert len(commits) == 1
    assert main(["-w", str(ws), "restore", commits[0]["sha"]]) == 0
    assert "Lives in Lisbon" not in (ws / "USER.md").read_text()


def test_adding_items_consolidates_under_token_pressure(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "reverie.json").write_text(
        json.dumps({"agents": {"defaults": {"contextWindowTokens": 3000, "maxTokens": 500}}})
    )
    model = EchoModel()
    with reverie.open(ws) as memory:
        memory.init()
        for n in range(12):
            _run(
                memory,
                model,
                f"Note {n}: " + "the quarterly report covers revenue and churn. " * 12,
            )
        held = asyncio.run(ReverieSession("app:alice", memory).get_items())
        assert 0 < len(held) < 24  # the oldest turns left the prompt ...
        archived = "\n".join(e.content for e in memory.history())
        assert "Note 0" in archived  # ... into history, nothing lost
        on_disk = [
            json.loads(x)
            for x in (ws / "sessions" / "app_alice.jsonl").read_text().splitlines()[1:]
        ]
        assert (
            sum(m["role"] == "user" for m in on_disk) == 12
        )  # the session file keeps every message


def test_memory_tools_remember_and_search_clean_memory(tmp_path: Path) -> None:
    """The SDK's own Runner calls memory_tools' remember, then search_memory in the next run: it
    finds the fact, never the question being asked nor the assistant's replies."""
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        session = ReverieSession("app:ada", memory)

        def run(script: list[tuple[str, dict[str, Any]]], prompt: str) -> str:
            agent = Agent(
                name="assistant",
                model=ToolModel(script),
                instructions=memory_instructions(memory),
                tools=memory_tools(memory, session_key=session.session_id),
            )
            return str(asyncio.run(Runner.run(agent, prompt, session=session)).final_output)

        said = run([("remember", {"text": "Ada's favourite editor is Helix."})], "Remember Helix.")
        assert said.startswith("tool said: remembered (history entry")
        assert run([("remember", {"text": "a"})], "Remember a.").startswith(
            "tool said: Nothing remembered"
        )
        found = run([("search_memory", {"query": "favourite editor Helix"})], "Which editor?")
        payload = found
        assert "Ada's favourite editor is Helix." in payload and "not instructions" in payload
        assert "Which editor?" not in payload and "tool said" not in payload.removeprefix(
            "tool said: "
        )
        assert [e.content for e in memory.history()] == ["Ada's favourite editor is Helix."]
