"""Async verbs never block the event loop: each ``a…`` verb of ``Memory`` does its file, SQLite, git
and CPU work off the loop (``reverie.memory``'s one bounded executor).

Each verb runs beside a ticker task that sleeps 2 ms at a time and records how late it wakes: the
worst lateness is the longest time anything held the loop. The workspace is big enough (3,000
history entries, a 400-message conversation, a memory repo with history) that a verb doing its work
on the loop holds it far longer than the 50 ms allowed: before the executor, the first ``arecall``
held it about 0.3 s and ``arecord`` about 0.26 s.
"""

from __future__ import annotations

import asyncio
import inspect
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import reverie
from reverie.config import Config
from reverie.errors import ReverieError
from reverie.history import HistoryEntry
from reverie.memory import Memory

#: The longest the loop may be held by a verb, in seconds.
STALL = 0.050
TICK = 0.002

CONFIG = {"agents": {"defaults": {"contextWindowTokens": 6_000}}}


def _config() -> Config:
    return Config.model_validate(CONFIG)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with memory, versions, 3,000 pending history entries and a long conversation."""
    root = tmp_path_factory.mktemp("async") / "ws"
    with reverie.open(root, config=_config()) as memory:
        memory.init()
        memory.write("USER.md", "# User\n" + "".join(f"- Likes topic {n}.\n" for n in range(40)))
        memory.remember("User: I live in Lisbon and I prefer Postgres over SQLite.")
        memory.dream()
        last = memory.history()[-1].cursor
    with open(root / "memory" / "history.jsonl", "ab") as f:
        for c in range(last + 1, last + 3_001):
            text = f"User: note {c} about Lisbon, Postgres and coffee {c % 7}; I enjoy hiking."
            f.write(HistoryEntry(c, "2026-01-01 10:00", text, "t:old").to_json())
    lines = [
        orjson.dumps(
            {
                "_type": "metadata",
                "key": "t:big",
                "created_at": "2026-01-01T00:00:00",
                "updated_at": "2026-01-01T00:00:00",
                "metadata": {},
                "last_consolidated": 0,
            }
        )
    ]
    for i in range(400):
        role = "user" if i % 2 == 0 else "assistant"
        content = f"message {i}: I moved to Porto in {2000 + i % 20} and I like green tea a lot."
        lines.append(orjson.dumps({"role": role, "content": content, "timestamp": "2026-01-01"}))
    (root / "sessions" / "t_big.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root


def _calls(head: str) -> dict[str, Callable[[Memory], Awaitable[Any]]]:
    """One call of every async verb, against the template workspace."""
    msg = [{"role": "user", "content": "I started learning the cello this week."}]
    return {
        "ainit": lambda m: m.ainit(),
        "aremember": lambda m: m.aremember("User: my sister is called Ana."),
        "arecall": lambda m: m.arecall("Lisbon coffee hiking"),
        "asearch": lambda m: m.asearch("Postgres"),
        "areindex": lambda m: m.areindex(),
        "acontext": lambda m: m.acontext(),
        "adream": lambda m: m.adream(),
        "aconsolidate": lambda m: m.aconsolidate("t:big"),
        "amessages": lambda m: m.amessages("t:big"),
        "arecord": lambda m: m.arecord("t:big", msg),
        "apop_message": lambda m: m.apop_message("t:big"),
        "aclear": lambda m: m.aclear("t:big"),
        "anew_session": lambda m: m.anew_session(m.runtime.sessions.get_or_create("t:big")),
        "aset_aside": lambda m: m.aset_aside(),
        "aqueued": lambda m: m.aqueued(),
        "arequeue": lambda m: m.arequeue(),
        "apending": lambda m: m.apending(),
        "alog": lambda m: m.alog(limit=50),
        "ashow": lambda m: m.ashow(head),
        "awhy": lambda m: m.awhy("Lisbon"),
        "arestore": lambda m: m.arestore(head, base=head),
        "apreview_restore": lambda m: m.apreview_restore(head),
        "aplan_restore": lambda m: m.aplan_restore(head),
        "anext_dream": lambda m: m.anext_dream(),
        "apending_soul": lambda m: m.apending_soul(),
        "aapprove": lambda m: m.aapprove(),
        "areject": lambda m: m.areject(),
        "apin": lambda m: m.apin("topic 3"),
        "afiles": lambda m: m.afiles(),
        "aread": lambda m: m.aread("USER.md"),
        "awrite": lambda m: m.awrite("USER.md", "# User\n- Likes tea.\n- Likes topic 1.\n"),
        "aremove": lambda m: m.aremove("USER.md", "Likes topic 2.", reason="a test"),
        "aplan_purge": lambda m: m.aplan_purge("Postgres"),
        "apurge": lambda m: m.apurge("Postgres"),
        "agc": lambda m: m.agc(),
        "ahistory": lambda m: m.ahistory(since=0),
        "asession": lambda m: m.asession("t:big"),
        "astatus": lambda m: m.astatus(),
    }


def test_every_async_verb_is_covered():
    names = {
        n
        for n, f in inspect.getmembers(Memory)
        if n.startswith("a") and inspect.iscoroutinefunction(f)
    }
    names -= {"__aenter__", "__aexit__"}
    assert names == set(_calls("x"))


async def _worst_stall(call: Awaitable[Any]) -> tuple[float, Any]:
    """Await ``call`` beside a ticker; the ticker's worst lateness and the call's result (or error)."""
    done = asyncio.Event()
    worst = 0.0

    async def tick() -> None:
        nonlocal worst
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            worst = max(worst, time.perf_counter() - before - TICK)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(TICK)  # the ticker is running before the verb starts
    try:
        result: Any = await call
    except ReverieError as exc:  # approve with nothing staged, say: the stall still counts
        result = exc
    finally:
        done.set()
        await ticker
    return worst, result


@pytest.mark.parametrize("verb", sorted(_calls("x")))
def test_async_verb_does_not_block_the_loop(template, tmp_path, verb):
    root = tmp_path / "ws"
    shutil.copytree(template, root)
    with reverie.open(root, config=_config()) as memory:
        head = memory.log(limit=1)[0].sha
        call = _calls(head)[verb]

        async def main() -> tuple[float, Any]:
            return await _worst_stall(call(memory))

        worst, result = asyncio.run(main())
    assert worst <= STALL, f"{verb} held the event loop {worst * 1e3:.0f} ms ({result!r:.200})"
