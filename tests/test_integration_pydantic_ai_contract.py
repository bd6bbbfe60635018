"""Pydantic AI's capability contract on ``ReverieCapability`` (adapt6), through its own ``Agent``
and ``FunctionModel`` (no network): a run's resources are released in ``wrap_run`` however the run
ends, since ``after_run`` "is not called" for a run that fails and a cancelled run ends in
``wrap_run`` (``AbstractCapability`` in the pinned ``pydantic-ai-slim``), so a memory a function
opened for a failed or cancelled run is closed; and a session key that cannot name a conversation is
Pydantic AI's ``UserError`` before the model is asked anything, never a Reverie error after the
run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import sdk

import reverie

# The framework is imported when this file's tests run, not when the suite is collected
# (support/sdk.py).
Agent: Any = None
UserError: Any = None
ModelMessage: Any = None
ModelResponse: Any = None
TextPart: Any = None
ToolCallPart: Any = None
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
            "UserError": "pydantic_ai.exceptions:UserError",
            "ModelMessage": "pydantic_ai.messages:ModelMessage",
            "ModelResponse": "pydantic_ai.messages:ModelResponse",
            "TextPart": "pydantic_ai.messages:TextPart",
            "ToolCallPart": "pydantic_ai.messages:ToolCallPart",
            "AgentInfo": "pydantic_ai.models.function:AgentInfo",
            "FunctionModel": "pydantic_ai.models.function:FunctionModel",
            "ReverieCapability": "reverie.integrations.pydantic_ai:ReverieCapability",
        },
    )


@dataclass
class Deps:
    user: str


class Opened:
    """The memory function of a multi-user agent, keeping each memory it opened and whether it was
    closed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.closed: list[bool] = []

    def __call__(self, ctx: Any) -> reverie.Memory:
        closed, n = self.closed, len(self.closed)
        closed.append(False)

        class Tracked(reverie.Memory):
            def close(self) -> None:
                closed[n] = True
                super().close()

        return Tracked(reverie.open(root=self.root, user=ctx.deps.user).runtime)


def _remember_then(then: Callable[[], Any]) -> FunctionModel:
    """A model that calls ``remember`` first, then does ``then``."""

    async def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("remember", {"text": "Ada likes green tea."})])
        return await then()

    return FunctionModel(reply)


def test_a_failed_run_closes_the_memory_it_opened(tmp_path: Path) -> None:
    async def fail() -> ModelResponse:
        raise RuntimeError("the model went away")

    opened = Opened(tmp_path / "root")
    agent = Agent(_remember_then(fail), deps_type=Deps, capabilities=[ReverieCapability(opened)])
    with pytest.raises(RuntimeError, match="the model went away"):
        agent.run_sync("remember my tea", deps=Deps("ada"))
    assert opened.closed == [True]
    with reverie.open(root=tmp_path / "root", user="ada") as ada:  # what it did is kept
        assert [e.content for e in ada.history()] == ["Ada likes green tea."]


def test_a_cancelled_run_closes_the_memory_it_opened(tmp_path: Path) -> None:
    async def go() -> list[bool]:
        asked, never = asyncio.Event(), asyncio.Event()

        async def hang() -> ModelResponse:
            asked.set()
            await never.wait()
            raise AssertionError("not reached")

        opened = Opened(tmp_path / "root")
        capability = ReverieCapability(opened)
        agent = Agent(_remember_then(hang), deps_type=Deps, capabilities=[capability])
        run = asyncio.ensure_future(agent.run("remember my tea", deps=Deps("ada")))
        await asked.wait()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        return opened.closed

    assert asyncio.run(go()) == [True]


@pytest.mark.parametrize(
    "key, conversation",
    [
        (None, "chat\x00ada"),
        (lambda ctx: "chat\nada", None),
        (lambda ctx: "   ", None),
        (lambda ctx: 7, None),
    ],
)
def test_a_session_key_that_cannot_be_stored_is_a_user_error_before_the_model(
    tmp_path: Path, key: Any, conversation: str | None
) -> None:
    asked: list[int] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(len(messages))
        return ModelResponse(parts=[TextPart("ok")])

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        agent = Agent(
            FunctionModel(reply), capabilities=[ReverieCapability(memory, session_key=key)]
        )
        with pytest.raises(
            UserError, match="the session key .* (holds a control|is empty|must be)"
        ):
            agent.run_sync("hi", conversation_id=conversation)
    assert asked == []
    assert list((tmp_path / "ws" / "sessions").glob("*.jsonl")) == []


def test_a_session_key_given_as_a_string_is_checked_when_the_capability_is_made(
    tmp_path: Path,
) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        with pytest.raises(UserError, match="LINE FEED"):
            ReverieCapability(memory, session_key="chat\nada")


def test_a_memory_longer_than_history_keeps_is_refused_whole_not_cut(tmp_path: Path) -> None:
    """History keeps an entry up to ``memory.history.maxEntryChars`` (64,000) and cuts a longer one:
    ``remember`` says so and stores nothing, rather than answer "remembered" for a text kept only in
    part."""
    long = "Ada keeps notes. " * 60_000  # about a megabyte
    seen: list[str] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("remember", {"text": long})])
        seen.append(messages[-1].parts[0].model_response_str())  # type: ignore[union-attr]
        return ModelResponse(parts=[TextPart("ok")])

    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        agent = Agent(FunctionModel(reply), capabilities=[ReverieCapability(memory, record=False)])
        agent.run_sync("remember all of this")
        assert seen[0].startswith("Nothing remembered: the text is 1,020,000 characters")
        assert "more than one memory holds (64,000)" in seen[0]
        assert memory.history() == []


def test_the_first_run_on_a_memory_never_written_searches_nothing_and_goes_on(
    tmp_path: Path,
) -> None:
    """A new user's first conversation: the model searches before anything was written (the
    workspace does not exist yet: the first write creates it). Pydantic AI's own ``TestModel``
    calls the tool; it finds nothing, and the run is recorded."""
    from pydantic_ai.models.test import TestModel

    with reverie.open(tmp_path / "new") as memory:
        agent = Agent(
            TestModel(call_tools=["search_memory"]),
            capabilities=[ReverieCapability(memory, session_key="chat:ada")],
        )
        out = agent.run_sync("What do you know about me?").output
        assert '"memories":[]' in out.replace(" ", "")
        assert [m["role"] for m in memory.messages("chat:ada")][0] == "user"


def test_runs_of_several_users_at_once_each_use_and_close_their_own_memory(tmp_path: Path) -> None:
    """One agent serving several users at once (``asyncio.gather`` of its runs): each run's tools
    reach that user's memory only, and every memory a run opened is closed."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            said = messages[0].parts[-1].content  # type: ignore[union-attr]
            return ModelResponse(parts=[ToolCallPart("remember", {"text": said})])
        return ModelResponse(parts=[TextPart("noted")])

    opened = Opened(tmp_path / "root")
    agent = Agent(
        FunctionModel(model),
        deps_type=Deps,
        capabilities=[ReverieCapability(opened, session_key=lambda ctx: f"chat:{ctx.deps.user}")],
    )
    users = ["ada", "bob", "cyd", "dee"]

    async def go() -> None:
        await asyncio.gather(*(agent.run(f"{u} likes green tea.", deps=Deps(u)) for u in users))

    asyncio.run(go())
    assert opened.closed == [True] * len(users)
    for user in users:
        with reverie.open(root=tmp_path / "root", user=user) as memory:
            assert [e.content for e in memory.history()] == [f"{user} likes green tea."]
            assert [m["role"] for m in memory.messages(f"chat:{user}")][0] == "user"
