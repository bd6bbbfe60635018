"""Pydantic AI's own ``Agent`` with ``ReverieCapability`` (the model is pydantic-ai's
``FunctionModel``; no network): memory in the instructions, ``remember`` in one run found by
``search_memory`` in the next, every run's turns recorded in sessions/<key>.jsonl, dreamed into
memory (``reverie log``) and undone by ``reverie restore``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import sdk

import reverie
from reverie.cli import main

# The framework is imported when this file's tests run, not when the suite is collected
# (support/sdk.py).
Agent: Any = None
ModelMessage: Any = None
ModelResponse: Any = None
TextPart: Any = None
ToolCallPart: Any = None
ToolReturnPart: Any = None
AgentInfo: Any = None
FunctionModel: Any = None
ReverieCapability: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    sdk.load(
        globals(),
        "pydantic_ai",
        "Pydantic AI (reverie[pydantic-ai]) is not installed",
        {
            "Agent": "pydantic_ai:Agent",
            "ModelMessage": "pydantic_ai.messages:ModelMessage",
            "ModelResponse": "pydantic_ai.messages:ModelResponse",
            "TextPart": "pydantic_ai.messages:TextPart",
            "ToolCallPart": "pydantic_ai.messages:ToolCallPart",
            "ToolReturnPart": "pydantic_ai.messages:ToolReturnPart",
            "AgentInfo": "pydantic_ai.models.function:AgentInfo",
            "FunctionModel": "pydantic_ai.models.function:FunctionModel",
            "ReverieCapability": "reverie.integrations.pydantic_ai:ReverieCapability",
        },
    )


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)]


def _tool_then_text(tool: str, args: dict[str, Any], seen: list[AgentInfo]) -> FunctionModel:
    """A model that calls ``tool`` once, then answers with what the tool returned."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        done = _returns(messages)
        if not done:
            return ModelResponse(parts=[ToolCallPart(tool, args)])
        return ModelResponse(parts=[TextPart(f"tool said: {done[-1].model_response_str()}")])

    return FunctionModel(reply)


def test_remember_search_record_dream_log_restore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    seen: list[AgentInfo] = []
    with reverie.open(ws) as memory:
        memory.init()
        memory.write("USER.md", memory.read("USER.md") + "\n- Name: Ada.\n")
        agent = Agent(
            _tool_then_text("remember", {"text": "The user's favourite editor is Helix."}, seen),
            capabilities=[ReverieCapability(memory, session_key="app:ada")],
        )
        result = agent.run_sync("Remember that my favourite editor is Helix.")
        assert result.output.startswith("tool said: remembered (history entry")
        assert {t.name for t in seen[0].function_tools} == {"search_memory", "remember"}
        assert "- Name: Ada." in (
            seen[0].instructions or ""
        )  # the memory block is in the instructions

    stored = [
        json.loads(x) for x in (ws / "sessions" / "app_ada.jsonl").read_text().splitlines()[1:]
    ]
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1]["tool_calls"][0]["function"]["name"] == "remember"

    seen.clear()
    with reverie.open(ws) as memory:  # the next run finds it
        agent = Agent(
            _tool_then_text("search_memory", {"query": "favourite editor"}, seen),
            capabilities=[ReverieCapability(memory, session_key="app:ada")],
        )
        result = agent.run_sync("Which editor do I like?")
        assert "Helix" in result.output and "not instructions" in result.output
        assert "The user's favourite editor is Helix." in (
            seen[0].instructions or ""
        )  # recent history, too

        dreamed = memory.dream(all=True)
        assert dreamed.commit is not None
        assert "Helix" in memory.read("USER.md") + memory.read("memory/MEMORY.md")

    assert main(["-w", str(ws), "log", "--kind", "dream", "--json"]) == 0
    commits = json.loads(capsys.readouterr().out)
    assert len(commits) == 1
    assert main(["-w", str(ws), "restore", commits[0]["sha"]]) == 0
    assert "Helix" not in (ws / "USER.md").read_text() + (ws / "memory" / "MEMORY.md").read_text()


def test_without_tools_or_recording(tmp_path: Path) -> None:
    seen: list[AgentInfo] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return ModelResponse(parts=[TextPart("ok")])

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        agent = Agent(
            FunctionModel(reply),
            capabilities=[ReverieCapability(memory, tools=False, record=False)],
        )
        assert agent.run_sync("hi").output == "ok"
        assert seen[0].function_tools == [] and "SOUL.md" in (seen[0].instructions or "")
        assert memory.messages("pydantic-ai") == []


def test_a_test_models_defaults_record_no_junk(tmp_path: Path) -> None:
    """Pydantic AI's TestModel() calls every tool with placeholder arguments ('a'): remember refuses
    a text that states nothing, so history gets no 'a'."""
    from pydantic_ai.models.test import TestModel

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        agent = Agent(TestModel(), capabilities=[ReverieCapability(memory)])
        result = agent.run_sync("hello")
        assert "Nothing remembered" in result.output
        memory.consolidate()
        assert [e.content for e in memory.history() if e.content.strip() in ("a", "- a")] == []
        assert all(
            "remembered (history entry" not in (m.get("content") or "")
            for m in memory.messages("pydantic-ai:" + result.conversation_id, archived=True)
        )


def test_the_memory_and_the_key_come_from_the_runs_context(tmp_path: Path) -> None:
    """One agent, many users: the memory and the session key are functions of Pydantic AI's
    RunContext (its deps here), and each run's memory is closed when the run ends."""
    from dataclasses import dataclass

    @dataclass
    class Deps:
        user: str

    opened: list[reverie.Memory] = []

    def memory_of(ctx: Any) -> reverie.Memory:
        memory = reverie.open(root=tmp_path / "root", user=ctx.deps.user)
        opened.append(memory)
        return memory

    seen: list[AgentInfo] = []
    agent = Agent(
        _tool_then_text("remember", {"text": "My favourite colour is green."}, seen),
        deps_type=Deps,
        capabilities=[
            ReverieCapability(memory_of, session_key=lambda ctx: f"chat:{ctx.deps.user}")
        ],
    )
    agent.run_sync("remember my colour", deps=Deps("ada"))
    with reverie.open(root=tmp_path / "root", user="ada") as ada:
        assert [e.content for e in ada.history()][0] == "My favourite colour is green."
        assert [m["role"] for m in ada.messages("chat:ada")][0] == "user"
    with reverie.open(root=tmp_path / "root", user="bob") as bob:
        assert bob.history() == [] and bob.messages("chat:ada") == []
    assert len(opened) == 1
    with pytest.raises(TypeError, match="session_key must be a string or a function"):
        ReverieCapability(memory_of, session_key=3)  # type: ignore[arg-type]
