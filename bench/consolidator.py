"""Consolidator costs: estimating a session's prompt, and the Consolidator's own work per archived slice.

Usage: ``python bench/consolidator.py`` (or through ``python -m bench`` when that runner is present).

1. ``estimate``: ``Consolidator.estimate_tokens`` on a 200-message session (user / assistant with tool calls /
   tool results, 300–1,500 characters each) with 3 KB memory files and 8 tool schemas. Twice: with the offline
   engine configured (the cheap estimate) and with a hosted model name and litellm loaded (``litellm.token_counter``,
   the real tokenizer). Peer, same process: ``token_counter`` called directly on the same messages.
   Target: ≤ 20 ms.
2. ``per slice``: ``maybe_consolidate`` on over-budget sessions with a zero-latency scripted model
   (``direct=True``: answered without entering litellm); the time spent inside ``ModelClient.complete`` is measured
   and subtracted, so what remains is Reverie's work: estimating, slicing, rendering, the durable history append
   (fsync) and the atomic rewrite of the session file (fsync), once on the disk and once on tmpfs without fsync (CPU work alone). Peer, same process: the bare I/O floor — one
   fsynced ``HistoryLog.append`` plus one ``atomic_write`` of a same-sized session file. Target: ≤ 5 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reverie.config import Config  # noqa: E402
from reverie.consolidator import Consolidator, SessionStore  # noqa: E402
from reverie.fsutil import atomic_write  # noqa: E402
from reverie.llm.client import ModelClient  # noqa: E402
from reverie.llm.scripted import ScriptedModel  # noqa: E402
from reverie.store import MemoryStore  # noqa: E402
from reverie.workspace import Workspace  # noqa: E402

TOOLS = [
    {"type": "function", "function": {"name": f"tool_{i}", "description": "Does a useful thing. " * 6, "parameters": {
        "type": "object", "properties": {"path": {"type": "string", "description": "a path"},
                                         "text": {"type": "string", "description": "some text"}},
        "required": ["path"]}}}
    for i in range(8)
]
WORDS = "the deploy moved to friday because alice prefers tea and the staging cluster runs on berlin hardware".split()


def _text(n: int, seed: int) -> str:
    out = []
    i = seed
    while sum(len(w) + 1 for w in out) < n:
        out.append(WORDS[i % len(WORDS)])
        i = i * 7 + 3
    return " ".join(out)


def _messages(n: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    turn = 0
    while len(msgs) < n:
        msgs.append({"role": "user", "content": _text(300 + 40 * (turn % 10), turn)})
        if turn % 3 == 0:
            msgs.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{turn}", "type": "function",
                         "function": {"name": "tool_1", "arguments": '{"path": "notes/today.md"}'}}]})
            msgs.append({"role": "tool", "tool_call_id": f"c{turn}", "name": "tool_1", "content": _text(1500, turn + 1)})
        msgs.append({"role": "assistant", "content": _text(600 + 50 * (turn % 7), turn + 2)})
        turn += 1
    return msgs[:n]


def _workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.init()
    ws.write("memory/MEMORY.md", "# Memory\n" + "".join(f"- {_text(60, i)}\n" for i in range(45)))
    ws.write("USER.md", "# User\n" + "".join(f"- {_text(50, i)}\n" for i in range(12)))
    return ws


def _session(sessions: SessionStore, key: str, n: int):  # type: ignore[no-untyped-def]
    s = sessions.get_or_create(key)
    for m in _messages(n):
        sessions.append(s, m)
    return s


def _median_ms(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def bench_estimate(root: Path) -> dict[str, float]:
    ws = _workspace(root / "est")
    sessions = SessionStore(ws, fsync=False)
    session = _session(sessions, "bench:estimate", 200)
    out: dict[str, float] = {}
    turn = _messages(2)
    for label, model in (("offline engine", None), ("openai/gpt-4o-mini, litellm", "openai/gpt-4o-mini")):
        config = Config.model_validate({"agents": {"defaults": {"model": model}}} if model else {})
        if model:
            from reverie.llm._litellm import get_litellm

            litellm = get_litellm()
        store = MemoryStore(ws, config=config)

        def cold() -> None:  # a fresh Consolidator: the whole session is counted
            Consolidator(store, ModelClient(config), config, sessions=sessions, tools=TOOLS).estimate_tokens(session)

        cons = Consolidator(store, ModelClient(config), config, sessions=sessions, tools=TOOLS)
        cons.estimate_tokens(session)

        def per_turn() -> None:  # the agent loop: two messages more than last time
            session.messages.extend(turn)
            cons.estimate_tokens(session)

        out[f"{label}, first estimate"] = _median_ms(cold, 30)
        out[f"{label}, per turn (+2 messages)"] = _median_ms(per_turn, 30)
        del session.messages[200:]
    from reverie.consolidator.estimate import prompt_messages

    msgs = prompt_messages(store, session)
    out["peer: litellm.token_counter alone"] = _median_ms(
        lambda: litellm.token_counter(model="openai/gpt-4o-mini", messages=msgs, tools=TOOLS), 30
    )
    return out


class _TimedClient(ModelClient):
    """Measures the time spent inside ``complete`` (the model's share, excluded from Reverie's)."""

    model_seconds = 0.0

    async def complete(self, messages, **kw):  # type: ignore[no-untyped-def,override]
        t0 = time.perf_counter()
        try:
            return await super().complete(messages, **kw)
        finally:
            self.model_seconds += time.perf_counter() - t0


def bench_slices(root: Path, *, durable: bool, sessions_n: int = 20) -> dict[str, float]:
    fake = ScriptedModel.register("bench-consolidator", responder=lambda p: "- [durable] Deploy moved to Friday",
                                  direct=True)
    config = Config.model_validate({
        "agents": {"defaults": {"model": fake.model, "contextWindowTokens": 16_384, "maxTokens": 2_048}},
        "memory": {"history": {"fsync": durable}},
    })
    ws = _workspace(root / f"slices-{durable}")
    store = MemoryStore(ws, config=config)
    sessions = SessionStore(ws, fsync=durable)
    client = _TimedClient(config)
    cons = Consolidator(store, client, config, sessions=sessions, tools=TOOLS)
    targets = [_session(sessions, f"bench:{i}", 200) for i in range(sessions_n)]
    total = 0.0
    slices = 0
    for s in targets:
        t0 = time.perf_counter()
        result = asyncio.run(cons.maybe_consolidate(s))
        total += time.perf_counter() - t0
        slices += result.rounds
    ScriptedModel.unregister(fake.name)
    # The I/O floor: one history append + one atomic rewrite of a 200-message session file, same durability.
    body = targets[0].path.read_bytes()

    def floor() -> None:
        store.history.append("- [durable] Deploy moved to Friday", "bench:floor")
        atomic_write(root / f"floor-{durable}.jsonl", body, fsync=durable)

    return {
        "slices": float(slices),
        "model": client.model_seconds * 1000 / slices,
        "own": (total - client.model_seconds) * 1000 / slices,
        "floor": _median_ms(floor, 30),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        est = bench_estimate(root)
        for label, ms in est.items():
            print(f"estimate, 200-message session, {label:48} {ms:7.2f} ms (median of 30)")
        print(f"  ratio first estimate with litellm / token_counter alone: "
              f"{est['openai/gpt-4o-mini, litellm, first estimate'] / est['peer: litellm.token_counter alone']:.2f}x")
        # Durable, on the workspace's kind of disk; then on tmpfs without fsync, where what remains is CPU work.
        shm = Path("/dev/shm")
        for durable, base in ((True, root), (False, shm if shm.is_dir() else root)):
            with tempfile.TemporaryDirectory(dir=base) as where:
                r = bench_slices(Path(where), durable=durable)
            kind = "fsync on, disk" if durable else f"fsync off, {base}"
            print(f"per archived slice ({kind}): Reverie's own work {r['own']:6.2f} ms (model time "
                  f"{r['model']:.2f} ms excluded, {int(r['slices'])} slices); peer I/O floor {r['floor']:5.2f} ms, "
                  f"ratio {r['own'] / r['floor']:.2f}x")


if __name__ == "__main__":
    main()
