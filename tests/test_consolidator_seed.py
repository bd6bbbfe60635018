"""The seed API ``MemoryStore.consolidate``: success, and every failure branch leaving session
and files untouched."""

from __future__ import annotations

import asyncio
import os

import pytest

from reverie import MemoryStore
from reverie.consolidator import SessionStore
from reverie.consolidator.seed import SAVE_MEMORY_TOOL
from reverie.llm import protocol
from reverie.llm.client import ModelClient
from reverie.llm.replylog import read_replies
from reverie.llm.scripted import bad_request_error
from reverie.llm.types import ToolCall
from reverie.storage.config import Config

OLD_MEMORY = "# Memory\n- Lives in Berlin\n"


@pytest.fixture
def setup(workspace, fake):
    config = Config.model_validate({"agents": {"defaults": {"model": fake.model}}})
    store = MemoryStore(workspace, config=config)
    store.write_long_term(OLD_MEMORY)
    sessions = SessionStore(workspace)
    session = sessions.get_or_create("cli:alice")
    for i in range(30):
        sessions.append(
            session, {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"}
        )
    return store, session, ModelClient(config)


def save(
    entry="- [durable] Moved to Bonn", update="# Memory\n- Lives in Bonn\n", raw=None
) -> ToolCall:
    args = {"history_entry": entry, "memory_update": update}
    args = {k: v for k, v in args.items() if v is not ...}
    return ToolCall("c1", "save_memory", None if raw is not None else args, raw or "")


def snapshot(store: MemoryStore, session):
    mem = store.workspace.root / "memory" / "MEMORY.md"
    return (
        mem.read_bytes(),
        os.stat(mem).st_ino,
        store.history.path.exists() and store.history.path.read_bytes(),
        session.last_consolidated,
    )


def consolidate(store, session, provider, **kw):
    return asyncio.run(store.consolidate(session, provider, kw.pop("model", None), **kw))


def test_success_appends_entry_rewrites_memory_and_sets_offset(setup, fake):
    store, session, client = setup
    fake.enqueue(save())
    assert consolidate(store, session, client, memory_window=10) is True
    assert store.read_long_term() == "# Memory\n- Lives in Bonn\n"
    (entry,) = store.history.read_since(0)
    assert entry.content == "- [durable] Moved to Bonn" and entry.session_key == "cli:alice"
    assert session.last_consolidated == 30 - 5
    prompt = fake.prompts[0]
    assert prompt.tools == [SAVE_MEMORY_TOOL]
    assert prompt.tool_choice == {"type": "function", "function": {"name": "save_memory"}}
    sections = protocol.parse_sections(prompt.user)
    assert sections["memory/MEMORY.md"] == OLD_MEMORY.strip()
    sent = sections[protocol.SECTION_ARCHIVE]
    assert "message 0" in sent and "message 24" in sent and "message 25" not in sent
    assert prompt.system.startswith("# Reverie task: archive")


def test_second_call_archives_only_new_messages(setup, fake):
    store, session, client = setup
    session.last_consolidated = 20
    fake.enqueue(save())
    assert consolidate(store, session, client, memory_window=10)
    sent = protocol.parse_sections(fake.prompts[0].user)[protocol.SECTION_ARCHIVE]
    assert "message 19" not in sent and "message 20" in sent and "message 24" in sent


def test_archive_all_sets_offset_zero_and_sends_everything(setup, fake):
    store, session, client = setup
    session.last_consolidated = 20
    fake.enqueue(save())
    assert consolidate(store, session, client, archive_all=True)
    assert session.last_consolidated == 0
    assert "message 0" in fake.prompts[0].user and "message 29" in fake.prompts[0].user


def test_unchanged_memory_is_not_rewritten(setup, fake):
    store, session, client = setup
    mem = store.workspace.root / "memory" / "MEMORY.md"
    inode = os.stat(mem).st_ino
    fake.enqueue(save(update=OLD_MEMORY))
    assert consolidate(store, session, client)
    assert os.stat(mem).st_ino == inode and len(store.history.read_since(0)) == 1


def test_empty_memory_update_never_wipes_memory(setup, fake):
    store, session, client = setup
    fake.enqueue(save(update="   "))
    assert consolidate(store, session, client)
    assert store.read_long_term() == OLD_MEMORY


def test_provider_may_be_a_model_string(setup, fake):
    store, session, _ = setup
    fake.enqueue(save())
    assert consolidate(store, session, fake.model)
    assert len(fake.prompts) == 1


def test_nothing_to_archive_returns_true_without_a_call(setup, fake):
    store, session, client = setup
    assert consolidate(store, session, client, memory_window=100)
    session.last_consolidated = 25
    assert consolidate(store, session, client, memory_window=10)
    assert fake.prompts == [] and store.history.read_since(0) == []


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(bad_request_error, id="model-error"),
        pytest.param("- [durable] I answered in text", id="no-tool-call"),
        pytest.param(
            ToolCall("c1", "edit_file", {"history_entry": "x", "memory_update": "y"}),
            id="wrong-tool",
        ),
        pytest.param(save(raw="{not json"), id="malformed-arguments"),
        pytest.param(save(entry=...), id="missing-history-entry"),
        pytest.param(save(entry="  "), id="empty-history-entry"),
        pytest.param(save(entry=7), id="history-entry-a-number"),
        pytest.param(save(update=7), id="memory-update-a-number"),
        pytest.param(save(raw="[]"), id="empty-argument-list"),
        pytest.param(save(raw='["string", "content"]'), id="argument-list-without-an-object"),
    ],
)
def test_every_failure_returns_false_and_touches_nothing(setup, fake, reply):
    store, session, client = setup
    session.last_consolidated = 4
    before = snapshot(store, session)
    fake.enqueue(reply() if reply is bad_request_error else reply)
    assert consolidate(store, session, client) is False
    assert snapshot(store, session) == before


def test_history_write_failure_puts_memory_back(setup, fake):
    store, session, client = setup
    store.workspace.history_path.mkdir()
    fake.enqueue(save())
    assert consolidate(store, session, client) is False
    assert store.read_long_term() == OLD_MEMORY and session.last_consolidated == 0


def test_nothing_entry_moves_the_offset_without_a_history_line(setup, fake):
    store, session, client = setup
    fake.enqueue(save(entry="(nothing)", update=OLD_MEMORY))
    assert consolidate(store, session, client, memory_window=10)
    assert store.history.read_since(0) == [] and session.last_consolidated == 25


def test_nothing_for_a_conversation_that_says_something_is_not_believed(setup, fake):
    store, session, client = setup
    session.messages[2]["content"] = "My sister Ewa lives in Berlin and visits every May."
    fake.enqueue(save(entry="(nothing)", update=OLD_MEMORY))
    before = snapshot(store, session)
    assert consolidate(store, session, client, memory_window=10) is False
    assert snapshot(store, session) == before  # the offset stays: nothing is lost
    (kept,) = read_replies(store.workspace.state_dir)  # and the reply is kept, to be read
    assert kept.verdict == "refused" and "(nothing)" in kept.reason


def test_secrets_in_the_update_are_redacted_before_memory_is_written(setup, fake):
    store, session, client = setup
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    fake.enqueue(
        save(entry=f"- [durable] Token is {key}", update=f"# Memory\n- GitHub token {key}\n")
    )
    assert consolidate(store, session, client)
    assert key not in store.read_long_term() and "[REDACTED:" in store.read_long_term()
    assert key not in store.history.read_since(0)[0].content
