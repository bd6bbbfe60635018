"""Google ADK's ``BaseMemoryService`` contract on ``ReverieMemoryService`` (adapt6), through ADK's
own objects: a session "may be added multiple times", from several tasks or threads at once (ADK's
own services are thread-safe), and each event is still stored once; ``load_memory`` called by the
model with an empty query is answered as ADK's own service answers it (no memories), never with a
traceback from Reverie's argument checks."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from support import sdk

# The framework is imported when this file's tests run, not when the suite is collected
# (support/sdk.py); its local models: support/adk_models.py.
LlmAgent: Any = None
Event: Any = None
MemoryEntry: Any = None
Runner: Any = None
InMemorySessionService: Any = None
Session: Any = None
load_memory: Any = None
types: Any = None
ReverieMemoryService: Any = None
_AsksWith: Any = None
_Reads: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    sdk.load(
        globals(),
        "google.adk",
        "Google ADK (reverie[google-adk]) is not installed",
        {
            "LlmAgent": "google.adk.agents:LlmAgent",
            "Event": "google.adk.events.event:Event",
            "MemoryEntry": "google.adk.memory.memory_entry:MemoryEntry",
            "Runner": "google.adk.runners:Runner",
            "InMemorySessionService": "google.adk.sessions:InMemorySessionService",
            "Session": "google.adk.sessions:Session",
            "load_memory": "google.adk.tools:load_memory",
            "types": "google.genai.types",
            "ReverieMemoryService": "reverie.integrations.google_adk:ReverieMemoryService",
            "_AsksWith": "support.adk_models:_AsksWith",
            "_Reads": "support.adk_models:_Reads",
        },
    )


TURNS = [
    ("user", "I moved to Lisbon last spring."),
    ("helper", "Noted: Lisbon."),
    ("user", "My sister Ana lives in Porto."),
]


async def _session() -> Session:
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name="support", user_id="ada")
    for author, text in TURNS:
        role = "user" if author == "user" else "model"
        content = types.Content(role=role, parts=[types.Part(text=text)])
        await sessions.append_event(
            session, Event(author=author, invocation_id="inv-1", content=content)
        )
    return session


def _stored(service: ReverieMemoryService, session: Session) -> list[str]:
    with service.open("support", "ada") as memory:
        return [m["content"] for m in memory.messages(f"adk:{session.id}", archived=True)]


def test_a_session_added_from_several_tasks_at_once_is_stored_once(tmp_path: Path) -> None:
    service = ReverieMemoryService(tmp_path / "memory")

    async def go() -> Session:
        session = await _session()
        await asyncio.gather(*(service.add_session_to_memory(session) for _ in range(4)))
        return session

    session = asyncio.run(go())
    assert _stored(service, session) == [text for _, text in TURNS]


def test_a_session_added_from_several_threads_at_once_is_stored_once(tmp_path: Path) -> None:
    service = ReverieMemoryService(tmp_path / "memory")
    session = asyncio.run(_session())
    start = threading.Barrier(3)
    failed: list[BaseException] = []

    def add() -> None:
        start.wait()
        try:
            asyncio.run(service.add_session_to_memory(session))
        except BaseException as exc:  # noqa: BLE001 (reported below)
            failed.append(exc)

    threads = [threading.Thread(target=add) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    assert _stored(service, session) == [text for _, text in TURNS]


@pytest.mark.parametrize("query", ["", "   "])
def test_load_memory_with_an_empty_query_finds_nothing(tmp_path: Path, query: str) -> None:
    service = ReverieMemoryService(tmp_path / "memory")
    note = MemoryEntry(content=types.Content(parts=[types.Part(text="Ada lives in Lisbon.")]))

    async def go() -> str:
        await service.add_memory(app_name="support", user_id="ada", memories=[note])
        sessions = InMemorySessionService()
        agent = LlmAgent(
            name="helper", model=_AsksWith(model="local", query=query), tools=[load_memory]
        )
        runner = Runner(
            app_name="support", agent=agent, session_service=sessions, memory_service=service
        )
        session = await sessions.create_session(app_name="support", user_id="ada")
        said = ""
        message = types.Content(role="user", parts=[types.Part(text="What do you recall?")])
        async for event in runner.run_async(
            user_id="ada", session_id=session.id, new_message=message
        ):
            parts = event.content.parts if event.content and event.content.parts else []
            said = "".join(p.text or "" for p in parts) or said
        return said

    assert asyncio.run(go()) == "0 memories"
    found = asyncio.run(service.search_memory(app_name="support", user_id="ada", query=query))
    assert found.memories == []


def test_add_memory_refuses_an_entry_history_would_cut_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    service = ReverieMemoryService(tmp_path / "memory")
    entries = [
        MemoryEntry(content=types.Content(parts=[types.Part(text=text)]))
        for text in ("Ada lives in Lisbon.", "Ada keeps notes. " * 60_000, "Ada likes tea.")
    ]
    with pytest.raises(ValueError, match=r"1 of 3 memories not stored \(memory 2: the text is"):
        asyncio.run(service.add_memory(app_name="support", user_id="ada", memories=entries))
    with service.open("support", "ada") as memory:
        assert [e.content for e in memory.history()] == ["Ada lives in Lisbon.", "Ada likes tea."]


def test_preload_memory_hands_the_model_iso_8601_times(tmp_path: Path) -> None:
    """``MemoryEntry.timestamp`` is "forwarded to LLM. Preferred format is ISO 8601" (ADK's own
    services give ``datetime.isoformat()``); ADK's ``preload_memory`` puts it in the prompt."""
    from datetime import datetime

    from google.adk.tools.preload_memory_tool import PreloadMemoryTool

    service = ReverieMemoryService(tmp_path / "memory")
    note = MemoryEntry(content=types.Content(parts=[types.Part(text="Ada lives in Lisbon.")]))
    model = _Reads(model="local")

    async def go() -> None:
        await service.add_memory(app_name="support", user_id="ada", memories=[note])
        await service.add_session_to_memory(await _session())
        sessions = InMemorySessionService()
        agent = LlmAgent(name="helper", model=model, tools=[PreloadMemoryTool()])
        runner = Runner(
            app_name="support", agent=agent, session_service=sessions, memory_service=service
        )
        session = await sessions.create_session(app_name="support", user_id="ada")
        message = types.Content(
            role="user", parts=[types.Part(text="Where does Ada live, Lisbon?")]
        )
        async for _ in runner.run_async(user_id="ada", session_id=session.id, new_message=message):
            pass

    asyncio.run(go())
    times = [
        line[len("Time: ") :] for line in model.seen[-1].splitlines() if line.startswith("Time: ")
    ]
    assert len(times) >= 2, model.seen[-1]  # the remembered entry and the conversation's turns
    for when in times:
        assert "T" in when and datetime.fromisoformat(when), when
