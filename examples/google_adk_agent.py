"""Reverie as a Google ADK agent's memory service, one workspace per (app, user).

    pip install "reverie[google-adk]"
    python examples/google_adk_agent.py [ROOT]

A conversation from ADK's own session service goes into the user's memory (history, where Recall and
Dream find it); search_memory is what ADK's load_memory tool calls. To give an agent this memory,
pass the service to its runner: ``Runner(agent=agent, app_name="support", session_service=sessions,
memory_service=service)`` and add ``google.adk.tools.load_memory`` to the agent's tools. This
example drives the service directly, so it runs offline.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile

from google.adk.events.event import Event
from google.adk.sessions import InMemorySessionService
from google.genai import types

from reverie.integrations.google_adk import ReverieMemoryService


def said(author: str, text: str) -> Event:
    role = "user" if author == "user" else "model"
    return Event(
        author=author,
        invocation_id="example",
        content=types.Content(role=role, parts=[types.Part(text=text)]),
    )


async def run(root: str) -> None:
    service = ReverieMemoryService(root)
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name="support", user_id="ada")
    for event in (
        said("user", "My name is Ada and I live in Lisbon."),
        said("helpdesk", "Thanks Ada, noted."),
    ):
        await sessions.append_event(session, event)
    await service.add_session_to_memory(session)

    found = await service.search_memory(
        app_name="support", user_id="ada", query="where does Ada live"
    )
    for entry in found.memories[:3]:
        print(f"ada's memory: {entry.content.parts[0].text!r}  ({entry.custom_metadata['source']})")
    other = await service.search_memory(app_name="support", user_id="bob", query="Lisbon")
    print(f"bob's memory finds {len(other.memories)} result(s) about Lisbon")

    with service.open("support", "ada") as memory:  # Dream, log and restore on ada's workspace
        result = await memory.adream(all=True)
        print(
            f"Dream: {result.status}; USER.md: "
            f"{[ln for ln in memory.read('USER.md').splitlines() if ln.startswith('- ')]}"
        )
        for commit in memory.log(limit=3):
            print(f"  {commit.sha[:8]}  {commit.kind:<6} {commit.subject}")


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="reverie-adk-")))
