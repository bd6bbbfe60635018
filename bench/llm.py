"""Cost of the model layer's own work: token counting, the offline engine, the client's per-call
overhead.

Usage: ``python -m bench llm`` (or ``python bench/llm.py`` for the plain printout). Medians, in one
process:

- ``count_tokens`` of a 200-message session (mixed lengths, ~40 KB) with the cheap estimate
  (``reverie.llm.tokens``) against ``litellm.token_counter`` on the same messages (model
  ``openai/gpt-4o-mini``), and the estimate's error relative to litellm's count;
- the offline engine's ``respond`` per task (archive of a 40-message slice, dream-analyze of 20
  entries, dream-edit of the findings), called directly;
- ``ModelClient.complete`` on a zero-latency scripted model (in-process, as every ``scripted/…`` and
  the offline engine are since the model registry: the client's own per-call overhead, no litellm).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reverie.llm import ModelClient, ScriptedModel, load_prompt  # noqa: E402
from reverie.llm import protocol as p  # noqa: E402
from reverie.llm.offline import respond  # noqa: E402
from reverie.llm.tokens import estimate_tokens  # noqa: E402
from reverie.storage.config import Config  # noqa: E402

SAYINGS = [
    "I live in Munich and I work at Siemens as an engineer.",
    "Can you look at this stack trace? It fails in the parser when the input has tabs and the "
    "indentation is off.",
    "We decided to use Postgres for the backend. The migration is due 2026-12-01.",
    "ok thanks",
    "Please reply in German from now on, and keep your answers short.",
    "Here is the design doc: "
    + "The ingestion service batches events, deduplicates them by id and writes them. " * 8,
]


def session(n: int = 200) -> list[dict]:
    msgs = [
        {"role": "system", "content": "You are a helpful assistant.\n" + "- Lives in Munich\n" * 30}
    ]
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        msgs.append({"role": role, "content": SAYINGS[i % len(SAYINGS)] + f" (turn {i})"})
    return msgs


def median_ms(fn, repeat: int = 30) -> float:  # type: ignore[no-untyped-def]
    fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def main() -> None:
    msgs = session()
    size = sum(len(m["content"]) for m in msgs)
    est_ms = median_ms(lambda: estimate_tokens(msgs))
    from reverie.llm._litellm import get_litellm

    t0 = time.perf_counter()
    litellm = get_litellm()
    import_s = time.perf_counter() - t0
    real_ms = median_ms(
        lambda: litellm.token_counter(model="openai/gpt-4o-mini", messages=msgs), repeat=10
    )
    est, real = (
        estimate_tokens(msgs),
        litellm.token_counter(model="openai/gpt-4o-mini", messages=msgs),
    )
    print(f"session: {len(msgs)} messages, {size:,} chars; litellm import {import_s:.2f}s")
    print(f"count_tokens estimate      {est_ms:8.3f} ms  -> {est:,} tokens")
    print(
        f"litellm.token_counter      {real_ms:8.3f} ms  -> {real:,} tokens  (estimate "
        f"{100 * (est - real) / real:+.1f}%,"
        f" {real_ms / est_ms:.0f}x slower)"
    )

    conv = "\n".join(
        p.transcript_line(
            f"2026-11-20 10:{i % 60:02d}",
            "user" if i % 2 == 0 else "assistant",
            SAYINGS[i % len(SAYINGS)],
        )
        for i in range(40)
    )
    arch = [
        {"role": "system", "content": load_prompt("archive")},
        {"role": "user", "content": p.render_sections([(p.SECTION_ARCHIVE, conv)])},
    ]
    facts = respond(arch).content
    batch = "\n".join(f"{p.batch_header(i, '2026-11-21 09:00')}\n{facts}" for i in range(20))
    files = [
        ("SOUL.md", "# Soul\n\nRules.\n"),
        ("USER.md", "# User\n\n- Lives in Hamburg\n"),
        ("memory/MEMORY.md", "# Memory\n\n- Uses MySQL\n"),
    ]
    ana = [
        {"role": "system", "content": load_prompt("dream-analyze")},
        {
            "role": "user",
            "content": p.render_sections(
                [(p.SECTION_TODAY, "2026-11-22"), (p.SECTION_BATCH, batch), *files]
            ),
        },
    ]
    findings = respond(ana).content
    tools = [
        {
            "type": "function",
            "function": {"name": "edit_file", "parameters": {"type": "object", "properties": {}}},
        }
    ]
    edit = [
        {"role": "system", "content": load_prompt("dream-edit")},
        {"role": "user", "content": p.render_sections([(p.SECTION_FINDINGS, findings), *files])},
    ]
    for label, fn in (
        ("offline archive (40 msgs)", lambda: respond(arch)),
        ("offline dream-analyze (20)", lambda: respond(ana)),
        ("offline dream-edit", lambda: respond(edit, tools=tools)),
    ):
        print(f"{label:27s}{median_ms(fn):8.3f} ms")

    client = ModelClient(Config())
    direct = ScriptedModel.register("bench-direct", responder=lambda _p: "ok")
    small = msgs[:5]

    async def calls(model: str, n: int = 50) -> float:
        await client.complete(small, model=model)
        t0 = time.perf_counter()
        for _ in range(n):
            await client.complete(small, model=model)
        return (time.perf_counter() - t0) * 1000 / n

    direct_ms = asyncio.run(calls(direct.model))
    print(f"complete() scripted, in-process {direct_ms:7.3f} ms/call")


def run(ctx: Any) -> list[Any]:
    """Results for ``python -m bench``: Reverie's side against the in-process peer named in each
    row."""
    from bench._core import Result, measure

    repeat = 5 if ctx.quick else 30
    msgs = session()
    from reverie.llm._litellm import get_litellm

    litellm = get_litellm()
    est, real = (
        estimate_tokens(msgs),
        litellm.token_counter(model="openai/gpt-4o-mini", messages=msgs),
    )
    out = [
        Result(
            "llm",
            "count_tokens estimate, 200-message session",
            measure(lambda: estimate_tokens(msgs), repeat=repeat)[0],
            measure(
                lambda: litellm.token_counter(model="openai/gpt-4o-mini", messages=msgs),
                repeat=max(3, repeat // 3),
            )[0],
            "litellm.token_counter",
            target="≤ 20 ms",
            note=f"estimate {100 * (est - real) / real:+.0f}% of tiktoken",
        )
    ]
    conv = "\n".join(
        p.transcript_line(
            f"2026-11-20 10:{i % 60:02d}",
            "user" if i % 2 == 0 else "assistant",
            SAYINGS[i % len(SAYINGS)],
        )
        for i in range(40)
    )
    arch = [
        {"role": "system", "content": load_prompt("archive")},
        {"role": "user", "content": p.render_sections([(p.SECTION_ARCHIVE, conv)])},
    ]
    batch = "\n".join(
        f"{p.batch_header(i, '2026-11-21 09:00')}\n{respond(arch).content}" for i in range(20)
    )
    files = [
        ("SOUL.md", "# Soul\n\nRules.\n"),
        ("USER.md", "# User\n\n- Lives in Hamburg\n"),
        ("memory/MEMORY.md", "# Memory\n\n- Uses MySQL\n"),
    ]
    ana = [
        {"role": "system", "content": load_prompt("dream-analyze")},
        {
            "role": "user",
            "content": p.render_sections(
                [(p.SECTION_TODAY, "2026-11-22"), (p.SECTION_BATCH, batch), *files]
            ),
        },
    ]
    out.append(
        Result(
            "llm",
            "offline engine: archive of 40 messages",
            measure(lambda: respond(arch), repeat=repeat)[0],
        )
    )
    out.append(
        Result(
            "llm",
            "offline engine: dream-analyze of 20 entries",
            measure(lambda: respond(ana), repeat=repeat)[0],
        )
    )
    client = ModelClient(Config())
    direct = ScriptedModel.register("bench-direct", responder=lambda _p: "ok")
    loop = asyncio.new_event_loop()
    try:

        def one(model):
            return loop.run_until_complete(client.complete(msgs[:5], model=model))

        out.append(
            Result(
                "llm",
                "complete(), zero-latency scripted, in-process",
                measure(lambda: one(direct.model), repeat=repeat * 3)[0],
                note="in-process models never enter litellm (the model registry)",
            )
        )
    finally:
        loop.close()
    return out


if __name__ == "__main__":
    main()
