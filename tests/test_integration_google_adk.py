"""Google ADK's memory service interface over Reverie (sessions from ADK's own
InMemorySessionService; no network): a session goes into history once however often it is added,
search_memory finds it through Recall, scoped by app and user, and what Dream makes of it is in
``reverie log`` and undone by ``reverie restore``; and ADK's own Runner and LlmAgent find an earlier
session through its load_memory tool."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from support import sdk

from reverie.cli import main

# The framework is imported when this file's tests run, not when the suite is collected
# (support/sdk.py).
Event: Any = None
MemoryEntry: Any = None
InMemorySessionService: Any = None
types: Any = None
ReverieMemoryService: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    sdk.load(
        globals(),
        "google.adk",
        "Google ADK (reverie[google-adk]) is not installed",
        {
            "Event": "google.adk.events.event:Event",
            "MemoryEntry": "google.adk.memory.memory_entry:MemoryEntry",
            "InMemorySessionService": "google.adk.sessions:InMemorySessionService",
            "types": "google.genai.types",
            "ReverieMemoryService": "reverie.integrations.google_adk:ReverieMemoryService",
        },
    )


def _event(author: str, text: str) -> Event:
    role = "user" if author == "user" else "model"
    return Event(
        author=author,
        invocation_id="inv-1",
        content=types.Content(role=role, parts=[types.Part(text=text)]),
    )


async def _session(app: str, user: str, *turns: tuple[str, str]):  # type: ignore[no-untyped-def]
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=app, user_id=user)
    for author, text in turns:
        await sessions.append_event(session, _event(author, text))
    return session


def test_sessions_into_history_searched_by_app_and_user_dreamed_and_restored(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service = ReverieMemoryService(tmp_path / "memory")

    async def go() -> None:
        session = await _session(
            "support",
            "ada",
            ("user", "My name is Ada and I live in Lisbon."),
            ("support_agent", "Thanks Ada, noted."),
        )
        await service.add_session_to_memory(session)
        await service.add_session_to_memory(session)  # ADK may add a session again: stored once
        found = await service.search_memory(app_name="support", user_id="ada", query="Lisbon")
        assert found.memories and any(
            "Lisbon" in (m.content.parts[0].text or "") for m in found.memories
        )
        assert found.memories[0].custom_metadata["source"]
        # scoped: another user of the app, or the same user of another app, finds nothing
        assert (
            await service.search_memory(app_name="support", user_id="bob", query="Lisbon")
        ).memories == []
        assert (
            await service.search_memory(app_name="sales", user_id="ada", query="Lisbon")
        ).memories == []
        await service.add_memory(
            app_name="support",
            user_id="ada",
            memories=[
                MemoryEntry(
                    content=types.Content(
                        parts=[types.Part(text="The user's favourite editor is Helix.")]
                    )
                )
            ],
        )
        assert (
            await service.search_memory(app_name="support", user_id="ada", query="editor")
        ).memories

    asyncio.run(go())
    with service.open("support", "ada") as memory:
        history = [e.content for e in memory.history()]
        assert sum("Lisbon" in h for h in history) == 1  # the second add stored nothing new
        result = memory.dream(all=True)
        assert result.commit is not None and "Lives in Lisbon" in memory.read("USER.md")
        ws = memory.workspace.root

    assert main(["-w", str(ws), "log", "--kind", "dream", "--json"]) == 0
    commits = json.loads(capsys.readouterr().out)
    assert main(["-w", str(ws), "restore", commits[0]["sha"]]) == 0
    assert "Lisbon" not in (ws / "USER.md").read_text()


@pytest.mark.parametrize(
    "app, user",
    [
        ("../etc", "ada"),
        ("support", "a/b"),
        ("support", ".hidden"),
        ("support", ""),
        ("x" * 200, "ada"),
    ],
)
def test_hostile_ids_are_refused(tmp_path: Path, app: str, user: str) -> None:
    service = ReverieMemoryService(tmp_path / "memory")
    with pytest.raises(ValueError, match="not a usable id"):
        asyncio.run(service.search_memory(app_name=app, user_id=user, query="x"))
    assert not (tmp_path / "memory").exists()


def test_an_adk_agent_recalls_an_earlier_session_through_load_memory(tmp_path: Path) -> None:
    """ADK's own Runner and LlmAgent with its load_memory tool (the model is a local BaseLlm that
    calls the tool with the user's words, then repeats what it returned): one session added to
    memory, found in the next."""
    from collections.abc import AsyncGenerator

    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import Runner
    from google.adk.tools import load_memory

    class LookItUp(BaseLlm):
        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            returned = [
                p.function_response
                for c in llm_request.contents
                for p in c.parts or []
                if p.function_response
            ]
            if returned:
                memories = returned[-1].response["result"].memories  # type: ignore[index]
                text = " | ".join(m.content.parts[0].text for m in memories) or "nothing"
                yield LlmResponse(
                    content=types.Content(
                        role="model", parts=[types.Part(text=f"I recall: {text}")]
                    )
                )
                return
            asked = [
                p.text
                for c in llm_request.contents
                if c.role == "user"
                for p in c.parts or []
                if p.text
            ][-1]
            call = types.FunctionCall(name="load_memory", args={"query": asked})
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(function_call=call)])
            )

    async def go() -> tuple[str, str]:
        service = ReverieMemoryService(tmp_path / "memory")
        sessions = InMemorySessionService()
        agent = LlmAgent(name="helper", model=LookItUp(model="look-it-up"), tools=[load_memory])
        runner = Runner(
            app_name="support", agent=agent, session_service=sessions, memory_service=service
        )

        async def ask(user: str, text: str) -> tuple[str, str]:
            session = await sessions.create_session(app_name="support", user_id=user)
            said = ""
            async for event in runner.run_async(
                user_id=user,
                session_id=session.id,
                new_message=types.Content(role="user", parts=[types.Part(text=text)]),
            ):
                said = (
                    "".join(
                        p.text or "" for p in (event.content.parts if event.content else None) or []
                    )
                    or said
                )
            return session.id, said

        first, _ = await ask("ada", "My name is Ada and I live in Lisbon.")
        done = await sessions.get_session(app_name="support", user_id="ada", session_id=first)
        assert done is not None
        await service.add_session_to_memory(done)
        _, ada = await ask("ada", "Lisbon")
        _, bob = await ask("bob", "Lisbon")
        return ada, bob

    ada, bob = asyncio.run(go())
    assert ada.startswith("I recall: ") and "Lives in Lisbon" in ada
    assert bob == "I recall: nothing"  # another user's memory is not searched


def test_delete_memory_purges_it_and_search_hands_only_clean_memory(tmp_path: Path) -> None:
    """ADK's delete_memory with the id a search returned: the text is gone from history, the
    conversation, the index and every git version, and adding the session again does not bring it
    back; what search returns has no internal marks and none of the agent's own replies."""
    service = ReverieMemoryService(tmp_path / "memory")
    secret = "Ada keeps the spare key under the blue flowerpot."

    async def go() -> list[MemoryEntry]:
        session = await _session(
            "support",
            "ada",
            ("user", secret),
            ("support_agent", "Noted: the spare key is under the blue flowerpot, Ada."),
        )
        await service.add_session_to_memory(session)
        with service.open("support", "ada") as memory:
            memory.runtime.store.append_history("- [durable] Ada's flowerpot is blue")
        found = (
            await service.search_memory(app_name="support", user_id="ada", query="flowerpot key")
        ).memories
        texts = [m.content.parts[0].text or "" for m in found]
        assert "Ada's flowerpot is blue" in texts and secret in texts
        for bad in ("[durable]", "[RAW]", "ASSISTANT", "Noted:"):
            assert not any(bad in t for t in texts), (bad, texts)
        assert all(0 < m.custom_metadata["score"] <= 1 for m in found)
        target = next(m for m in found if m.content.parts[0].text == secret)
        await service.delete_memory(app_name="support", user_id="ada", memory_id=target.id)
        await service.delete_memory(app_name="support", user_id="ada", memory_id="h9999")  # no-op
        await service.add_session_to_memory(session)  # ADK adds the session again
        return (
            await service.search_memory(app_name="support", user_id="ada", query="flowerpot key")
        ).memories

    after = asyncio.run(go())
    assert all(secret not in (m.content.parts[0].text or "") for m in after)
    root = tmp_path / "memory"
    leaks = [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaks == []
    with service.open("support", "ada") as memory:
        plan = memory.plan_purge(secret)  # nowhere: memory files, history, sessions, git versions
        assert plan.history.occurrences == 0 and all(f.occurrences == 0 for f in plan.files)
