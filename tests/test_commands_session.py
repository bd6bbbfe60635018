"""/new over the real Consolidator with a scripted model: archived into history, then cleared;
kept on failure."""

from __future__ import annotations

from asyncio import run

import pytest

from reverie.chat.commands import CommandContext, CommandRouter
from reverie.memory.runtime import Runtime
from reverie.storage.config import Config


@pytest.fixture
def rt(workspace, fake) -> Runtime:
    return Runtime(
        workspace, config=Config.model_validate({"agents": {"defaults": {"model": fake.model}}})
    )


def chat(rt: Runtime, key: str, n: int):
    session = rt.sessions.get_or_create(key)
    for i in range(n):
        rt.sessions.append(session, {"role": "user", "content": f"question {i}"})
        rt.sessions.append(session, {"role": "assistant", "content": f"answer {i}"})
    return session


def test_new_archives_then_clears(rt, fake):
    fake.enqueue("- [durable] The user asked three questions")
    chat(rt, "tg:1", 3)
    reply = run(CommandRouter(rt).handle("/new", CommandContext(session_key="tg:1")))
    assert reply == "Consolidated 6 messages into 1 history entry. New session started."
    entries = rt.store.history.read_since(0)
    assert [e.content for e in entries] == ["- [durable] The user asked three questions"]
    assert entries[0].session_key == "tg:1"
    assert rt.sessions.get_or_create("tg:1").messages == []


def test_new_clears_the_live_session_object(rt, fake):
    fake.enqueue("- [durable] fact")
    session = chat(rt, "cli:x", 1)
    run(CommandRouter(rt).handle("/new", CommandContext(session_key="cli:x", session=session)))
    assert session.messages == []


def test_new_on_an_empty_session(rt):
    assert run(CommandRouter(rt).handle("/new", CommandContext(session_key="cli:empty"))) == (
        "Nothing to consolidate. New session started."
    )


def test_new_keeps_the_session_when_history_cannot_be_written(rt, fake):
    fake.enqueue("- [durable] fact")
    chat(rt, "cli:y", 2)
    rt.workspace.history_path.mkdir(
        parents=True
    )  # history.jsonl is a directory: every append fails
    reply = run(CommandRouter(rt).handle("/new", CommandContext(session_key="cli:y")))
    assert reply.startswith("The session was kept:")
    assert len(rt.sessions.get_or_create("cli:y").messages) == 4


def test_new_takes_no_arguments(rt):
    assert run(CommandRouter(rt).handle("/new now")).startswith("`/new` takes no arguments")
