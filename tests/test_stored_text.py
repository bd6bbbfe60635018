"""One check for text that is stored (``reverie.text.safety.unstorable``), applied by every way in:
``Memory.write``, nanobot's ``MemoryStore`` names, the OpenAI Agents session — a NUL or a lone
surrogate is refused with a line naming it, never stored or stored altered (hostile report F8)."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path

import pytest

import reverie
from reverie.errors import CommandError, HistoryError
from reverie.text.safety import unstorable


def test_the_one_check_names_what_cannot_be_stored() -> None:
    assert unstorable("fine\ttext\r\nwith lines") is None
    assert unstorable("a\x00b") == (
        "holds a control character (U+0000, NUL) at offset 1: remove it (only tab and newline "
        "are kept)"
    )
    assert unstorable("a\ud800b") == (
        "is not UTF-8 (a lone surrogate U+D800 at offset 1): send it as UTF-8 text"
    )
    assert unstorable("said \x1b[2J", controls=False) is None  # a conversation keeps it
    assert unstorable("said \udcfc", controls=False) is not None


@pytest.mark.parametrize(
    ("text", "said"), [("- a\x00b\n", r"U\+0000, NUL"), ("- a\ud800\n", r"lone surrogate U\+D800")]
)
def test_memory_write_refuses_and_commits_nothing(tmp_path: Path, text: str, said: str) -> None:
    with reverie.open(tmp_path) as memory:
        memory.init()
        before = [c.sha for c in memory.log()]
        with pytest.raises(CommandError, match=said):
            memory.write("memory/topics/nul.md", text)
        assert [c.sha for c in memory.log()] == before
        assert "memory/topics/nul.md" not in memory.files()


def test_the_nanobot_store_refuses_what_remember_refuses(tmp_path: Path) -> None:
    store = reverie.MemoryStore(tmp_path)
    assert store.append_history("Ada likes tea") == 1
    for bad in ("a\x00b", "a\ud800b"):
        with pytest.raises(HistoryError, match="entry (holds a control|is not UTF-8)"):
            store.append_history(bad)
        with pytest.raises(CommandError, match="content"):
            store.write_user(f"- {bad}\n")
        with pytest.raises(CommandError, match="content"):
            store.write_memory(f"- {bad}\n")  # type: ignore[misc]  # (compat's _Host self type)
    with pytest.raises(TypeError, match="entry must be str, not NoneType"):
        store.append_history(None)  # type: ignore[arg-type]
    assert [e.content for e in store.read_unprocessed_history(0)] == ["Ada likes tea"]
    assert "\x00" not in store.read_user() and store.last_cursor() == 1


def test_an_openai_agents_session_refuses_what_would_come_back_altered(tmp_path: Path) -> None:
    pytest.importorskip("agents", reason="openai-agents is not installed")
    from agents.exceptions import UserError

    from reverie.integrations.openai_agents import ReverieSession

    async def go() -> list[object]:
        with reverie.open(tmp_path) as memory:
            session = ReverieSession("chat:ada", memory)
            await session.add_items([{"role": "user", "content": "kept \x1b[1m as said"}])
            for bad, said in (
                ({"role": "user", "content": float("nan")}, "nan, not a JSON number"),
                ({"role": "user", "content": "\ud800 lone"}, "lone surrogate"),
                ({"role": "user", "content": datetime.datetime(2026, 1, 1)}, "datetime, not"),
                ("not an item", "is a str, not an item"),
            ):
                with pytest.raises(UserError, match=said):
                    await session.add_items([{"role": "user", "content": "first"}, bad])  # type: ignore[list-item]
            with pytest.raises(UserError, match="limit must be a whole number"):
                await session.get_items("3")  # type: ignore[arg-type]
            return list(await session.get_items())

    items = asyncio.run(go())
    assert items == [{"role": "user", "content": "kept \x1b[1m as said"}]  # no batch half stored
