"""Consolidator costs: estimating a session's prompt, and the Consolidator's own work per archived
slice.

Usage: ``python -m bench consolidator`` (``--quick`` for fewer repetitions), or ``python
bench/consolidator.py``.

1. Estimate (target ≤ 20 ms): ``Consolidator.estimate_tokens`` on a 200-message session (user /
   assistant with tool calls / tool results, 300–1,500 characters each) with ~3 KB of memory files
   and 8 tool schemas.
   - offline engine configured (the cheap estimate), first estimate of the session — peer:
     nanobot-ai 0.3.5's own prompt estimate (``estimate_prompt_tokens``, tiktoken) on the same
     messages;
   - a hosted model name with litellm loaded (``litellm.token_counter``, the model's tokenizer),
     first estimate and per turn (+2 messages, the agent loop's case: incremental) — peer:
     ``litellm.token_counter`` alone on the whole prompt, which is what a non-incremental estimate
     pays every turn.
2. Per archived slice (target ≤ 5 ms): ``maybe_consolidate`` on over-budget sessions with a
   zero-latency scripted model (``direct=True``: answered without entering litellm); the time inside
   ``ModelClient.complete`` is measured and subtracted, so what remains is Reverie's work:
   estimating (warm, as in the agent loop, which estimates every turn), slicing, rendering the
   prompt, the durable history append and the atomic rewrite of the session file. Once on the
   workspace's disk with fsync, once on tmpfs without fsync (the CPU work alone). Peer, same run:
   the bare I/O floor of one slice — one ``HistoryLog.append`` plus one ``atomic_write`` of a
   same-sized session file, same durability, same disk.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._core import Context, Result, stats_of  # noqa: E402
from reverie import MemoryStore  # noqa: E402
from reverie.consolidator import Consolidator, SessionStore  # noqa: E402
from reverie.consolidator.estimate import prompt_messages  # noqa: E402
from reverie.llm.client import ModelClient  # noqa: E402
from reverie.llm.scripted import ScriptedModel  # noqa: E402
from reverie.storage.config import Config  # noqa: E402
from reverie.storage.fsutil import atomic_write  # noqa: E402
from reverie.storage.workspace import Workspace  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "description": "Does a useful thing. " * 6,
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "a path"},
                    "text": {"type": "string", "description": "some text"},
                },
                "required": ["path"],
            },
        },
    }
    for i in range(8)
]
WORDS = (
    "the deploy moved to friday because alice prefers tea and the staging cluster runs on berlin "
    "hardware"
).split()


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
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"c{turn}",
                            "type": "function",
                            "function": {
                                "name": "tool_1",
                                "arguments": '{"path": "notes/today.md"}',
                            },
                        }
                    ],
                }
            )
            msgs.append(
                {
                    "role": "tool",
                    "tool_call_id": f"c{turn}",
                    "name": "tool_1",
                    "content": _text(1500, turn + 1),
                }
            )
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


def _timed(fn, clock=time.perf_counter) -> float:  # type: ignore[no-untyped-def]
    t0 = clock()
    fn()
    return clock() - t0


class _TimedClient(ModelClient):
    """Measures the time spent inside ``complete`` (the model's share, excluded from Reverie's)."""

    model_seconds = 0.0
    clock = staticmethod(time.perf_counter)

    async def complete(self, messages, **kw):  # type: ignore[no-untyped-def,override]
        t0 = self.clock()
        try:
            return await super().complete(messages, **kw)
        finally:
            self.model_seconds += self.clock() - t0


def _estimates(root: Path, reps: int) -> dict[str, list[float]]:
    ws = _workspace(root / "estimate")
    sessions = SessionStore(ws, fsync=False)
    session = _session(sessions, "bench:estimate", 200)
    offline = Config()
    hosted = Config.model_validate({"agents": {"defaults": {"model": "openai/gpt-4o-mini"}}})
    from reverie.llm._litellm import get_litellm

    litellm = get_litellm()  # loaded: count_tokens now uses the model's tokenizer for hosted names
    stores = {id(c): MemoryStore(ws, config=c) for c in (offline, hosted)}

    def fresh(config: Config) -> Consolidator:
        return Consolidator(
            stores[id(config)], ModelClient(config), config, sessions=sessions, tools=TOOLS
        )

    looping = fresh(hosted)
    looping.estimate_tokens(session)
    turn = _messages(2)
    msgs = prompt_messages(stores[id(hosted)], session)
    out: dict[str, list[float]] = {}

    def timed(name: str, fn) -> None:  # type: ignore[no-untyped-def]
        w, c = time.perf_counter(), time.process_time()
        fn()
        out.setdefault(name, []).append(time.perf_counter() - w)
        out.setdefault(name + " cpu", []).append(time.process_time() - c)

    for _ in range(reps):  # interleaved, so drift on a shared machine hits every side
        timed("offline first", lambda: fresh(offline).estimate_tokens(session))
        timed("litellm first", lambda: fresh(hosted).estimate_tokens(session))
        session.messages.extend(turn)
        timed("litellm per turn", lambda: looping.estimate_tokens(session))
        timed(
            "peer litellm",
            lambda: litellm.token_counter(model="openai/gpt-4o-mini", messages=msgs, tools=TOOLS),
        )
    del session.messages[200:]
    (root / "messages.json").write_text(json.dumps(prompt_messages(stores[id(offline)], session)))
    (root / "tools.json").write_text(json.dumps(TOOLS))
    return out


def _slices(  # type: ignore[no-untyped-def]
    root: Path, *, durable: bool, sessions_n: int, clock=time.perf_counter
):
    """Per-slice own time (one sample per session), the I/O floor's samples, and the mean model time
    per slice, by ``clock``: wall time, or this process's CPU time (``time.process_time``), which a
    busy machine's run queue does not inflate."""
    fake = ScriptedModel.register(
        "bench-consolidator", responder=lambda p: "- [durable] Deploy moved to Friday", direct=True
    )
    try:
        config = Config.model_validate(
            {
                "agents": {
                    "defaults": {
                        "model": fake.model,
                        "contextWindowTokens": 16_384,
                        "maxTokens": 2_048,
                    }
                },
                "memory": {"history": {"fsync": durable}},
            }
        )
        ws = _workspace(root / "slices")
        store = MemoryStore(ws, config=config)
        sessions = SessionStore(ws, fsync=durable)
        client = _TimedClient(config)
        client.clock = clock
        cons = Consolidator(store, client, config, sessions=sessions, tools=TOOLS)
        targets = [_session(sessions, f"bench:{i}", 200) for i in range(sessions_n)]
        body = targets[0].path.read_bytes()
        own: list[float] = []
        floor: list[float] = []
        model_total = 0.0
        slices = 0
        for s in (
            targets
        ):  # the agent loop estimates every turn: the turn that archives finds the estimate warm
            cons.estimate_tokens(s)
        for i, s in enumerate(targets):
            before = client.model_seconds
            t0 = clock()
            result = asyncio.run(cons.maybe_consolidate(s))
            elapsed = clock() - t0
            model = client.model_seconds - before
            own.append((elapsed - model) / max(1, result.rounds))
            model_total += model
            slices += result.rounds

            def one_floor() -> None:
                store.history.append("- [durable] Deploy moved to Friday", "bench:floor")
                atomic_write(root / "slices" / f"floor-{i}.jsonl", body, fsync=durable)

            floor.append(_timed(one_floor, clock))
        return own, floor, model_total / max(1, slices)
    finally:
        ScriptedModel.unregister(fake.name)


def run(ctx: Context) -> list[Result]:
    reps = 10 if ctx.quick else 30
    sessions_n = 6 if ctx.quick else 20
    root = ctx.tmpdir("consolidator-")
    est = _estimates(root, reps)
    results: list[Result] = []
    try:
        peer = ctx.peer(
            "0.3.5",
            "nanobot_estimate",
            {
                "messages": str(root / "messages.json"),
                "tools": str(root / "tools.json"),
                "reps": reps,
            },
        )
        peer_stats, peer_name = stats_of(peer["samples"]), "nanobot-ai 0.3.5 estimate_prompt_tokens"
    except Exception as exc:  # noqa: BLE001 — no registry access: report without the peer
        print(f"[bench] consolidator: nanobot peer unavailable ({exc})", file=sys.stderr)
        peer_stats, peer_name = None, ""
    results.append(
        Result(
            "consolidator",
            "estimate 200-msg session, offline engine, first",
            stats_of(est["offline first"]),
            peer_stats,
            peer_name,
            target="≤ 20 ms",
        )
    )
    token_counter = stats_of(est["peer litellm"])
    results.append(
        Result(
            "consolidator",
            "estimate 200-msg session, litellm tokenizer, first",
            stats_of(est["litellm first"]),
            token_counter,
            "litellm.token_counter alone",
            target="≤ 20 ms",
        )
    )
    results.append(
        Result(
            "consolidator",
            "estimate, litellm tokenizer, per turn (+2 msgs)",
            stats_of(est["litellm per turn"]),
            token_counter,
            "litellm.token_counter alone",
            target="≤ 20 ms",
            note="incremental",
        )
    )
    cpu_peer = stats_of(est["peer litellm cpu"])
    for key, name in (
        ("offline first", "offline engine, first"),
        ("litellm first", "litellm tokenizer, first"),
    ):
        results.append(
            Result(
                "consolidator",
                f"estimate 200-msg session, {name} (CPU time)",
                stats_of(est[key + " cpu"]),
                cpu_peer,
                "litellm.token_counter alone (CPU time)",
                target="≤ 20 ms",
            )
        )
    shm = Path("/dev/shm")
    runs = [
        (True, time.perf_counter, "disk, fsync on, wall"),
        (False, time.perf_counter, "tmpfs, fsync off, wall"),
        (False, time.process_time, "tmpfs, fsync off, CPU time"),
    ]
    for durable, clock, label in runs:
        base = (
            root
            if durable or not shm.is_dir()
            else Path(tempfile.mkdtemp(prefix="bench-cons-", dir=shm))
        )
        try:
            own, floor, model = _slices(
                base / f"run-{label[:4]}-{clock.__name__}",
                durable=durable,
                sessions_n=sessions_n,
                clock=clock,
            )
        finally:
            if base != root:
                shutil.rmtree(base, ignore_errors=True)
        if base == root:
            label = label.replace("tmpfs", "disk")
        results.append(
            Result(
                "consolidator",
                f"own work per archived slice ({label})",
                stats_of(own),
                stats_of(floor),
                "I/O floor: history append + session rewrite",
                target="≤ 5 ms",
                note=f"model time {model * 1e3:.2f} ms/slice excluded",
            )
        )
    return results


def main() -> None:
    from bench._core import TABLE_HEADER

    ctx = Context(quick="--quick" in sys.argv)
    try:
        print(TABLE_HEADER)
        for result in run(ctx):
            print(result.row())
    finally:
        ctx.cleanup()


if __name__ == "__main__":
    main()
