"""Microsoft Agent Framework's own ``Agent`` with ``ReverieContextProvider`` (the chat client is a
local ``BaseChatClient`` with the framework's function-invocation layer; no network): the memory
block in the instructions, ``remember`` in one run found by ``search_memory`` in the next, each
run's messages recorded, dreamed into memory (``reverie log``) and undone by ``reverie restore``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "agent_framework", reason="Agent Framework (reverie[agent-framework]) is not installed"
)

from agent_framework import (  # noqa: E402
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
)

import reverie  # noqa: E402
from reverie.cli import main  # noqa: E402
from reverie.integrations.agent_framework import ReverieContextProvider  # noqa: E402


class ToolThenText(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Calls one tool with fixed arguments, then answers with what it returned; keeps what it was
    sent."""

    def __init__(self, tool: str, arguments: dict[str, Any]) -> None:
        super().__init__()
        self.tool, self.arguments = tool, arguments
        self.seen: list[tuple[str, list[str]]] = []

    async def _reply(self, messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse:
        self.seen.append(
            (str(options.get("instructions") or ""), [t.name for t in options.get("tools") or []])
        )
        results = [c for m in messages for c in m.contents if c.type == "function_result"]
        if not results:
            call = Content.from_function_call(
                call_id="call_1", name=self.tool, arguments=self.arguments
            )
            return ChatResponse(messages=[Message(role="assistant", contents=[call])])
        return ChatResponse(
            messages=[Message(role="assistant", contents=[f"tool said: {results[-1].result}"])]
        )

    def _inner_get_response(
        self,
        *,
        messages: Sequence[Message],
        stream: bool,
        options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Any:
        return self._reply(messages, options)


def test_remember_search_record_dream_log_restore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"

    async def run(client: ToolThenText, prompt: str) -> str:
        with reverie.open(ws) as memory:
            provider = ReverieContextProvider(memory, session_key="app:ada")
            agent = Agent(client=client, instructions="Be brief.", context_providers=[provider])
            return (await agent.run(prompt)).text

    with reverie.open(ws) as memory:
        memory.init()
    first = ToolThenText("remember", {"text": "The user's favourite editor is Helix."})
    assert asyncio.run(run(first, "Remember my editor: Helix.")).startswith(
        "tool said: remembered (history entry"
    )
    instructions, tools = first.seen[0]
    assert (
        "Be brief." in instructions
        and "SOUL.md" in instructions
        and set(tools) == {"search_memory", "remember"}
    )
    stored = [
        json.loads(x) for x in (ws / "sessions" / "app_ada.jsonl").read_text().splitlines()[1:]
    ]
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "assistant"]

    second = ToolThenText("search_memory", {"query": "favourite editor"})
    answer = asyncio.run(run(second, "Which editor do I like?"))
    assert "Helix" in answer and "not instructions" in answer
    assert (
        "The user's favourite editor is Helix." in second.seen[0][0]
    )  # recent history is in the instructions

    with reverie.open(ws) as memory:
        assert memory.dream(all=True).commit is not None and "Helix" in memory.read("USER.md")
    assert main(["-w", str(ws), "log", "--kind", "dream", "--json"]) == 0
    commits = json.loads(capsys.readouterr().out)
    assert main(["-w", str(ws), "restore", commits[0]["sha"]]) == 0
    assert "Helix" not in (ws / "USER.md").read_text()
