"""Dream end to end with the offline engine (no scripted replies): a conversation over several
sessions."""

from __future__ import annotations

import asyncio
import re

from reverie import MemoryStore
from reverie.dream import Dream
from reverie.gitstore import GitStore
from reverie.llm.client import ModelClient
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace

MEM = "memory/MEMORY.md"


def setup(tmp_path, **dream_cfg):
    ws = Workspace(tmp_path / "ws")
    ws.init()
    config = Config()  # no model configured: Dream uses the offline engine
    config.memory.history.fsync = False
    for key, value in dream_cfg.items():
        setattr(config.dream, key, value)
    store = MemoryStore(ws, config=config)
    git = GitStore(ws, config.git)
    git.ensure()
    return ws, store, Dream(store, git, ModelClient(config), config), git


def test_multi_session_conversation_updates_all_three_files(tmp_path):
    ws, store, dream, git = setup(tmp_path, protect_soul=False)
    assert dream.model == "reverie/offline"
    for content in (
        "- [permanent] Name: Alice",
        "- [durable] Lives in Paris",
        "- [durable] Works at ACME",
        "- [durable] Deadline for Atlas: 14 March",
        "- [skip] talked about the weather",
    ):
        store.append_history(content, "cli:alice")
    first = asyncio.run(dream.run())
    assert first.status == "ok", first.reason
    user = (ws.root / "USER.md").read_text()
    assert "- Name: Alice" in user and "- Lives in Paris" in user and "- Works at ACME" in user
    assert re.search(
        r"^- Deadline for Atlas: 20\d\d-03-14$", (ws.root / MEM).read_text(), re.M
    )  # the next 14 March
    paris_at = user.splitlines().index("- Lives in Paris")

    # A second session a day later: a correction, a repeat, a standing instruction, and small talk.
    for content in (
        "- [correction] Lives in Berlin",
        "- [durable] Works at ACME",
        "- [permanent] Reply in British English",
        "- [skip] chatted about football",
    ):
        store.append_history(content, "telegram:alice")
    second = asyncio.run(dream.run())
    assert second.status == "ok", second.reason
    assert (second.first, second.last) == (6, 9) and store.dream_cursor() == 9
    user = (ws.root / "USER.md").read_text()
    assert (
        "Paris" not in user and user.splitlines()[paris_at] == "- Lives in Berlin"
    )  # replaced in place
    assert user.count("Works at ACME") == 1  # the repeat was skipped
    assert "Reply in British English" in (ws.root / "SOUL.md").read_text()
    everything = "".join((ws.root / p).read_text() for p in ("SOUL.md", "USER.md", MEM))
    assert (
        "weather" not in everything
        and "football" not in everything
        and "[durable]" not in everything
    )
    assert [c.kind for c in git.log(limit=2)] == ["dream", "dream"]
    assert asyncio.run(dream.run()).status == "nothing-to-do"


def test_offline_soul_rule_is_staged_when_protected(tmp_path):
    ws, store, dream, _ = setup(tmp_path)
    soul = (ws.root / "SOUL.md").read_text()
    store.append_history("- [permanent] Reply in British English", "cli:alice")
    store.append_history("- [durable] Lives in Berlin", "cli:alice")
    result = asyncio.run(dream.run())
    assert result.status == "ok"
    assert (ws.root / "SOUL.md").read_text() == soul
    assert "Reply in British English" in (result.pending_soul or "")
    assert "- Lives in Berlin" in (ws.root / "USER.md").read_text()
