"""The frameworks' own contracts (adapt5 item 3), checked through their own code paths: the OpenAI
Agents SDK's ``Runner`` given a ``ReverieSession`` it cannot use gets the SDK's ``UserError`` (its
error for a misuse), never a Reverie error from inside its run; its settings given as the SDK's
own sessions take them (a dict) work through ``Runner.run``; mem0's metadata filter keeps the
memory lines learnt from the ``add`` calls that carried it, not only their history entries; and
``reverie export --json`` names what the bundle left out, as its text run does."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.cli import invoke

import reverie


def _agents() -> Any:
    return pytest.importorskip(
        "agents", reason="the OpenAI Agents SDK (reverie[openai-agents]) is not installed"
    )


@pytest.mark.parametrize("key", ["", "   ", "chat\nalice", 42])
def test_a_session_id_reverie_cannot_store_is_the_sdks_user_error(tmp_path: Path, key: Any) -> None:
    agents = _agents()
    from agents.exceptions import UserError

    from reverie.integrations.openai_agents import ReverieSession

    with reverie.open(tmp_path / "ws") as memory:
        with pytest.raises(UserError, match="session_id"):
            session = ReverieSession(key, memory)
            agent = agents.Agent(name="a", model=_Echo())
            asyncio.run(agents.Runner.run(agent, "hi", session=session))
        assert not (tmp_path / "ws" / "sessions").exists()  # nothing stored under any name


class _Echo:
    """The SDK's ``Model`` interface, answering how many input items it was given."""

    def __new__(cls) -> Any:
        from agents import Model, ModelResponse, Usage
        from openai.types.responses import ResponseOutputMessage, ResponseOutputText

        class Echo(Model):
            seen: list[int] = []

            async def get_response(
                self, system_instructions: Any, input: Any, *a: Any, **k: Any
            ) -> Any:
                items = [input] if isinstance(input, str) else input
                self.seen.append(len(items))
                text = ResponseOutputText(type="output_text", text=f"{len(items)}", annotations=[])
                out = ResponseOutputMessage(
                    id=f"msg_{len(self.seen)}",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[text],
                )
                return ModelResponse(output=[out], usage=Usage(), response_id=None)

            def stream_response(self, *a: Any, **k: Any) -> Any:
                raise NotImplementedError

        return Echo()


def test_session_settings_given_as_a_dict_limit_what_the_runner_reads(tmp_path: Path) -> None:
    """The SDK's own sessions take ``session_settings`` as a ``SessionSettings`` or a dict of its
    fields; its ``Runner`` resolves a run's settings against the session's with
    ``SessionSettings.resolve``, which a dict does not have."""
    agents = _agents()
    from agents.memory import SessionSettings

    from reverie.integrations.openai_agents import ReverieSession

    model = _Echo()
    agent = agents.Agent(name="a", model=model)
    config = agents.RunConfig(session_settings=SessionSettings())
    with reverie.open(tmp_path / "ws") as memory:
        session = ReverieSession("chat:ada", memory, settings={"limit": 2})
        assert session.session_settings == SessionSettings(limit=2)
        for said in ("one", "two", "three"):
            asyncio.run(agents.Runner.run(agent, said, session=session, run_config=config))
    # each run: at most the 2 newest stored items, then the new input
    assert model.seen == [1, 3, 3]


def _init(path: Path) -> reverie.Memory:
    memory = reverie.open(path)
    memory.init()
    return memory


def test_a_metadata_filter_keeps_the_memory_lines_learnt_from_what_carried_it(
    tmp_path: Path,
) -> None:
    with _init(tmp_path / "ws") as m:
        m.add("I live in Lisbon.", user_id="alex", metadata={"category": "home"})
        m.add("I prefer Postgres over SQLite.", user_id="alex", metadata={"category": "tech"})
        home = m.search("Lisbon", user_id="alex", filters={"category": "home"})
        tech = m.search("Lisbon", user_id="alex", filters={"category": "tech"})
        listed = m.get_all(user_id="alex", filters={"category": "tech"})
    assert [(i.memory, i.state) for i in home][0] == ("Lives in Lisbon", "active")
    assert tech == []
    assert [(i.memory, i.state) for i in listed] == [
        ("Prefers Postgres over SQLite", "active"),
        ("I prefer Postgres over SQLite.", "dreamed"),
    ]


def test_a_line_learnt_from_adds_with_different_metadata_carries_neither(tmp_path: Path) -> None:
    """One Dream run read both entries: which one the line came from cannot be told, so a filter
    on either leaves it out (precision first), while each entry is still found by its own."""
    with _init(tmp_path / "ws") as m:
        m.add("I live in Lisbon.", user_id="alex", metadata={"run": "a"}, infer=False)
        m.add("I live in Lisbon, really.", user_id="alex", metadata={"run": "b"}, infer=False)
        m.dream(all=True)
        assert [i.memory for i in m.get_all(user_id="alex")][:1] == ["Lives in Lisbon"]
        for run in ("a", "b"):
            found = m.search("Lisbon", user_id="alex", filters={"run": run})
            assert [i.state for i in found] == ["dreamed"], found


def test_export_json_names_what_it_left_out(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _init(ws).close()
    (ws / "notes.txt").write_text("the agent's own file\n")
    os.symlink(ws / "USER.md", ws / "memory" / "link.md")
    done = invoke("-w", str(ws), "export", str(tmp_path / "b.tar.gz"), "--json")
    assert done.returncode == 0, done.stderr
    skipped = json.loads(done.stdout)["skipped"]
    assert {s["item"] for s in skipped} == {"notes.txt", "memory/link.md"}, skipped
    assert all(s["reason"] for s in skipped)
