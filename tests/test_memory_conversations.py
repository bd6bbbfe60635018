"""Memory's conversation verbs (what the framework adapters call): record appends to
sessions/<key>.jsonl and consolidates under token pressure, pop_message takes the newest unarchived
message out, clear archives first."""

from __future__ import annotations

import json
from pathlib import Path

import reverie


def test_record_messages_pop_and_clear(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        result = memory.record(
            "app:alice",
            [
                {"role": "user", "content": "I moved to Lisbon.", "extra": {"id": 1}},
                {"role": "assistant", "content": "Noted."},
            ],
        )
        assert result.consolidated_messages == 0  # far under the token budget: nothing consolidated
        held = memory.messages("app:alice")
        assert [m["content"] for m in held] == ["I moved to Lisbon.", "Noted."] and held[0][
            "extra"
        ] == {"id": 1}
        lines = (tmp_path / "ws" / "sessions" / "app_alice.jsonl").read_text().splitlines()
        assert json.loads(lines[0])["_type"] == "metadata" and len(lines) == 3

        assert memory.pop_message("app:alice")["content"] == "Noted."
        assert [m["content"] for m in memory.messages("app:alice")] == ["I moved to Lisbon."]
        assert memory.pop_message("nobody") is None

        assert len(memory.messages("app:alice", archived=True)) == 1
        cleared = memory.clear("app:alice")
        assert cleared is not None and cleared.consolidated_messages == 1
        assert memory.messages("app:alice") == []
        assert "Lisbon" in "\n".join(
            e.content for e in memory.history()
        )  # archived before it was cleared
        assert memory.pop_message("app:alice") is None
        assert memory.clear("nobody") is None


def test_an_archived_message_is_not_popped(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.record("k", [{"role": "user", "content": "first"}])
        memory.consolidate("k")  # archives everything, keeps the session
        assert memory.pop_message("k") is None
        assert memory.messages("k") == [] and [
            m["content"] for m in memory.messages("k", archived=True)
        ] == ["first"]
        memory.record("k", [{"role": "user", "content": "second"}])
        assert memory.pop_message("k")["content"] == "second"
        assert memory.pop_message("k") is None


def test_a_cancelled_arecord_still_appends_its_messages(tmp_path: Path) -> None:
    """A cancellation that comes before the worker has started (here: every worker busy) still
    appends the messages: the await ends once they are in, then raises; only a consolidation is
    stopped (the chat's Ctrl-C keeps the user's message)."""
    import asyncio
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import pytest

    from reverie.memory import offload

    busy = threading.Event()
    pool = ThreadPoolExecutor(1)
    offload.use_executor(pool)
    try:
        with reverie.open(tmp_path / "ws") as memory:

            async def main() -> None:
                blocker = asyncio.get_running_loop().run_in_executor(pool, busy.wait, 10)
                message = {"role": "user", "content": "I moved to Lisbon."}
                task = asyncio.ensure_future(memory.arecord("app:alice", [message]))
                await asyncio.sleep(0.05)  # queued behind the blocker: nothing appended yet
                assert memory.messages("app:alice") == []
                task.cancel()
                await asyncio.sleep(0.05)
                assert not task.done()  # waiting for the append, not abandoning it
                busy.set()
                with pytest.raises(asyncio.CancelledError):
                    await task
                await blocker

            asyncio.run(main())
            assert [m["content"] for m in memory.messages("app:alice")] == ["I moved to Lisbon."]
    finally:
        busy.set()
        offload.use_executor(None)  # a new shared one (the one before was shut down)
        pool.shutdown()


def test_record_without_consolidating_only_appends(tmp_path: Path) -> None:
    """``consolidate=False`` (the chat agent's reply): appended, nothing consolidated even over the
    token budget; the next record consolidates."""
    import asyncio

    from reverie.operations.conversation import NOT_ASKED
    from reverie.storage.config import Config

    config = Config.model_validate(
        {"agents": {"defaults": {"contextWindowTokens": 2048, "maxTokens": 256}}}
    )
    with reverie.open(tmp_path / "ws", config=config) as memory:
        memory.init()
        said = [{"role": "user", "content": f"note {i}: " + "words " * 80} for i in range(12)]
        result = asyncio.run(memory.arecord("k", said, consolidate=False))
        assert result.stop == NOT_ASKED and result.estimate_before > result.budget
        assert len(memory.messages("k")) == 12 and memory.history() == []
        assert memory.record("k", [], consolidate=False).stop == NOT_ASKED
        assert memory.record("k", []).consolidated_messages > 0
