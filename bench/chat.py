"""`reverie chat` at a terminal: time to the first prompt, and what observing model calls costs per
call.

    python -m bench chat            # 10 starts each way, 2,000 calls each way
    python -m bench --quick chat    # 3 starts, 200 calls

Start-up: ``reverie chat --no-schedule`` (offline engine, a fresh workspace each run, byte-compiled)
in a pty until prompt-toolkit's prompt is up (it turns bracketed paste on), then Ctrl-D; peer: the
same command with stdin from /dev/null and stdout to a pipe (the line loop, no prompt-toolkit),
start to exit. Per call: ``ObservedClient.complete`` (what the CLI's status line reads) against the
bare ``ModelClient.complete``, on a scripted model answered in-process (``direct``), so the figure
is Reverie's own work.
"""

from __future__ import annotations

import asyncio
import compileall
import os
import subprocess
import sys
import time

from ._core import ROOT, Context, Result, stats_of

AREA = "chat"
_READY = "\x1b[?2004h"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")


def _to_prompt(ctx: Context) -> float:
    import pexpect

    ws = ctx.tmpdir("bench-chat-") / "ws"
    start = time.perf_counter()
    child = pexpect.spawn(
        sys.executable,
        ["-m", "reverie", "-w", str(ws), "chat", "--no-schedule"],
        env=_env(),
        encoding="utf-8",
        dimensions=(24, 120),
        timeout=60,
    )
    child.expect_exact(_READY)
    took = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    if child.exitstatus != 0:
        raise RuntimeError(f"chat exited {child.exitstatus}")
    return took


def _piped(ctx: Context) -> float:
    ws = ctx.tmpdir("bench-chat-") / "ws"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "chat", "--no-schedule"],
        env=_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def _per_call(calls: int) -> tuple[list[float], list[float]]:
    from reverie.llm.activity import ModelActivity, ObservedClient
    from reverie.llm.client import ModelClient
    from reverie.llm.scripted import ScriptedModel
    from reverie.storage.config import Config

    fake = ScriptedModel.register("bench-chat", responder=lambda p: "ok", direct=True)
    try:
        config = Config()
        config.agents.defaults.model = fake.model
        bare = ModelClient(config)
        observed = ObservedClient(ModelClient(config), ModelActivity())
        messages = [
            {"role": "system", "content": "# Reverie task: archive\n"},
            {"role": "user", "content": "hi"},
        ]

        async def timed(client) -> list[float]:  # type: ignore[no-untyped-def]
            out = []
            for _ in range(calls):
                t0 = time.perf_counter()
                await client.complete(messages)
                out.append(time.perf_counter() - t0)
            return out

        async def both() -> tuple[list[float], list[float]]:
            await timed(bare)  # warm-up
            return await timed(observed), await timed(bare)

        return asyncio.run(both())
    finally:
        ScriptedModel.unregister(fake.name)


def run(ctx: Context) -> list[Result]:
    compileall.compile_dir(str(ROOT / "reverie"), quiet=1)
    runs = 3 if ctx.quick else 10
    _to_prompt(ctx)  # warm the page cache
    prompt = stats_of([_to_prompt(ctx) for _ in range(runs)])
    piped = stats_of([_piped(ctx) for _ in range(runs)])
    observed, bare = _per_call(200 if ctx.quick else 2_000)
    return [
        Result(
            AREA,
            "reverie chat: start to the first prompt at a terminal (offline engine)",
            prompt,
            piped,
            "piped chat, start to exit (no prompt-toolkit)",
            note=f"{runs} runs, fresh workspace each",
        ),
        Result(
            AREA,
            "one model call observed for the status line (scripted model, in-process)",
            stats_of(observed),
            stats_of(bare),
            "the same call, unobserved",
            note="ObservedClient + ModelActivity around complete()",
        ),
    ]
