"""The MCP server: a ``search_memory`` tool call's round trip over stdio, against the same search
called in-process.

    python -m bench mcp             # 20,000 history entries, 300 calls each side
    python -m bench --quick mcp     # 2,000 entries, 60 calls

``reverie mcp`` runs as a child process driven by the official SDK's client (what a desktop client
does); the floor is ``Recall.search`` on the same workspace in this process, interleaved call by
call with the tool calls, so the difference is what MCP adds: JSON-RPC framing, validation, the
pipe, result serialisation. Goal (issue 18): at most 20 ms p95 beyond the search itself.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time

from ._core import ROOT, Context, Result, stats_of

AREA = "mcp"
WORDS = (
    "porto lisbon postgres sqlite deadline tea coffee heron dashboard python rust berlin siemens "
    "migration invoice kafka garden piano marathon sister"
).split()


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(sorted(samples), n=20, method="inclusive")[-1]


def run(ctx: Context) -> list[Result]:
    from mcp import Client, StdioServerParameters

    from reverie import MemoryStore
    from reverie.recall import Recall
    from reverie.storage.workspace import Workspace

    entries, calls = (2_000, 60) if ctx.quick else (20_000, 300)
    ws = Workspace(ctx.tmpdir() / "ws")
    ws.init()
    store = MemoryStore(ws)
    for i in range(entries):
        a, b, c = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)], WORDS[(i * 13) % len(WORDS)]
        store.append_history(f"note {i}: talked about {a} and {b}, then {c}")
    recall = Recall.for_store(store)
    recall.sync()
    queries = [f"{WORDS[i % len(WORDS)]} {WORDS[(i * 3) % len(WORDS)]}" for i in range(calls)]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reverie", "-w", str(ws.root), "mcp"], env=env
    )

    async def go() -> tuple[list[float], list[float]]:
        tool, direct = [], []
        async with Client(params) as client:
            for q in queries[:5]:  # warm both sides (index opened, modules imported)
                await client.call_tool("search_memory", {"query": q})
                recall.search(q, 10)
            for q in queries:
                t = time.perf_counter()
                result = await client.call_tool("search_memory", {"query": q})
                tool.append(time.perf_counter() - t)
                if result.is_error:
                    raise RuntimeError(result.content)
                t = time.perf_counter()
                recall.search(q, 10)
                direct.append(time.perf_counter() - t)
        return tool, direct

    tool, direct = asyncio.run(go())
    recall.close()
    overhead = _p95(tool) - _p95(direct)
    note = (
        f"{entries:,} history entries, {calls} calls; p95 tool call {_p95(tool) * 1000:.1f} ms, "
        "p95 search "
        f"in-process {_p95(direct) * 1000:.1f} ms: MCP adds {overhead * 1000:.1f} ms at p95"
    )
    return [
        Result(
            AREA,
            "search_memory over stdio vs Recall.search in-process",
            stats_of(tool),
            peer=stats_of(direct),
            peer_name="the same search in-process (floor)",
            target="≤ 20 ms p95 beyond the search",
            note=note,
        )
    ]
