"""Microsoft Agent Framework's context-provider contract on ``ReverieContextProvider`` (adapt6),
through its own ``Agent`` and ``AgentSession`` (the chat client is a local ``BaseChatClient``; no
network): a session whose id cannot name a conversation is refused in ``before_run`` with the
framework's error for a request an integration cannot take (``IntegrationInvalidRequestException``),
before the model is asked and before a tool stores anything, never a Reverie error out of
``after_run`` once the run is done; a streamed run is recorded as a plain one; runs of several
sessions at once keep to their own conversations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "agent_framework", reason="Agent Framework (reverie[agent-framework]) is not installed"
)

from agent_framework import (  # noqa: E402
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ResponseStream,
)
from agent_framework.exceptions import IntegrationInvalidRequestException  # noqa: E402
from test_integration_agent_framework import ToolThenText  # noqa: E402

import reverie  # noqa: E402
from reverie.integrations.agent_framework import ReverieContextProvider  # noqa: E402


@pytest.fixture
def memory(tmp_path: Path) -> Any:
    opened = reverie.open(tmp_path / "ws")
    opened.init()
    yield opened
    opened.close()


@pytest.mark.parametrize("session_id", ["chat\x00ada", "chat\nada", "chat\udcffada"])
def test_a_session_id_that_cannot_be_stored_is_refused_before_the_model(
    memory: reverie.Memory, session_id: str
) -> None:
    client = ToolThenText("remember", {"text": "Ada's favourite editor is Helix."})
    agent = Agent(client=client, context_providers=[ReverieContextProvider(memory)])
    with pytest.raises(IntegrationInvalidRequestException, match="session key .* (control|UTF-8)"):
        asyncio.run(agent.run("hi", session=AgentSession(session_id=session_id)))
    assert client.seen == []  # the model was never asked
    assert memory.history() == []  # and no tool stored anything
    assert list((memory.workspace.root / "sessions").glob("*.jsonl")) == []


def test_a_session_key_given_is_checked_when_the_provider_is_made(memory: reverie.Memory) -> None:
    with pytest.raises(IntegrationInvalidRequestException, match="LINE FEED"):
        ReverieContextProvider(memory, session_key="chat\nada")


class _Streams(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers each prompt with "noted: <the prompt>", streamed in two updates or whole."""

    def _inner_get_response(
        self,
        *,
        messages: Sequence[Message],
        stream: bool,
        options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Any:
        said = [m.text for m in messages if str(m.role) == "user"][-1]
        if not stream:

            async def whole() -> ChatResponse:
                return ChatResponse(
                    messages=[Message(role="assistant", contents=[f"noted: {said}"])]
                )

            return whole()

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            for piece in ("noted: ", said):
                yield ChatResponseUpdate(role="assistant", contents=[Content.from_text(piece)])

        return ResponseStream(updates(), finalizer=ChatResponse.from_updates)


def test_streamed_and_concurrent_runs_each_keep_their_own_conversation(
    memory: reverie.Memory,
) -> None:
    agent = Agent(client=_Streams(), context_providers=[ReverieContextProvider(memory)])

    async def streamed(session: AgentSession, text: str) -> str:
        stream = agent.run(text, session=session, stream=True)
        async for _ in stream:
            pass
        return (await stream.get_final_response()).text

    async def go() -> list[str]:
        sessions = [AgentSession(session_id=f"s{n}") for n in range(4)]
        runs = [
            streamed(s, f"I am user {n}.") if n % 2 else agent.run(f"I am user {n}.", session=s)
            for n, s in enumerate(sessions)
        ]
        done = await asyncio.gather(*runs)
        return [d if isinstance(d, str) else d.text for d in done]

    assert asyncio.run(go()) == [f"noted: I am user {n}." for n in range(4)]
    for n in range(4):
        assert [(m["role"], m["content"]) for m in memory.messages(f"maf:s{n}")] == [
            ("user", f"I am user {n}."),
            ("assistant", f"noted: I am user {n}."),
        ]


def test_a_query_of_a_megabyte_is_answered_with_what_to_send(memory: reverie.Memory) -> None:
    """A query is a few words (the MCP server bounds it at 2,000 characters); Recall's work grows
    with its length, so a megabyte is answered with an error the model can act on, at once."""
    memory.remember("Ada's favourite editor is Helix.")
    client = ToolThenText("search_memory", {"query": "editor " * 150_000})
    agent = Agent(client=client, context_providers=[ReverieContextProvider(memory, record=False)])
    said = asyncio.run(agent.run("Which editor?")).text
    assert "query is 1,050,000 characters: say what to look for in a few words" in said
    assert '"memories":[]' in said
