"""Where `reverie status`'s start-up goes: the CPU time of a child that imports one more layer per
step.

    python -m bench startup_ledger            # 15 interleaved rounds
    python -m bench --quick startup_ledger    # 5 rounds

Each step is a child process that imports everything the previous step did plus one layer of what
`status` imports (the interpreter alone, rich's console, pydantic's ``BaseModel``, pydantic's plugin
discovery, Reverie's file modules, the config models, the status modules), then the real `reverie
status` on a fresh workspace, and two variants of it: without pydantic's plugin scan, and with the
cyclic GC off from the start; and, last, the imports of `status` other than rich and pydantic on
their own. The steps run interleaved, one round after another, so a busy machine shifts them alike;
the figure is the child's CPU time (user + sys from ``os.wait4``), less sensitive to the other jobs
on a shared machine than wall time. A step's increment over the one before is what that layer costs;
the first two steps after the floor together are the floor of any `status` that imports rich and
pydantic. Every step after the floor freezes the GC at exit, as the CLI does. Since issue 30,
`status` imports neither rich nor pydantic unless a config file or variable sets a key: its own row
sits near the last one, not the layered steps.
"""

from __future__ import annotations

import os
import subprocess
import sys

from ._core import ROOT, Context, Result, stats_of
from .cli import byte_compile

AREA = "startup_ledger"

_STEPS = [
    ("python -c pass", "pass"),
    # the CLI freezes the GC at exit (reverie.cli.main), so every step after the floor does too
    (
        "+ rich.console",
        "import atexit, gc; atexit.register(gc.freeze); import rich.console, rich.table, "
        "rich.markup",
    ),
    ("+ pydantic BaseModel", "from pydantic import BaseModel, Field"),
    (
        "+ importlib.metadata and the pydantic entry-point scan (pydantic's plugin discovery)",
        "import importlib.metadata as m; m.entry_points(group='pydantic')",
    ),
    (
        "+ orjson, reverie.storage.workspace, reverie.storage.fsutil",
        "import orjson, reverie.storage.workspace, reverie.storage.fsutil",
    ),
    (
        "+ reverie.storage.config (the 16 model classes) and load_config",
        "import reverie.storage.config as c; c.load_config(None)",
    ),
    (
        "+ reverie.memory.status, reverie.memory, reverie.cli.cmd_status",
        "import reverie.memory.status, reverie.memory, reverie.cli.cmd_status",
    ),
]


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.stderr and proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} failed: {err[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def run(ctx: Context) -> list[Result]:
    rounds = 5 if ctx.quick else 15
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env["REVERIE_HOME"] = str(ctx.tmpdir("ledger-home-"))
    env["PYTHONPATH"] = str(ROOT)
    ws = ctx.tmpdir("ledger-") / "ws"
    subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(ws), "init"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    argvs: list[tuple[str, list[str]]] = []
    code = ""
    for name, step in _STEPS:
        code = f"{code}; {step}" if code else step
        argvs.append((name, [sys.executable, "-c", code]))
    status = [sys.executable, "-m", "reverie", "-w", str(ws), "status"]
    argvs.append(("reverie status (the command itself)", status))
    # two cheap-looking levers, timed beside it: skip pydantic's entry-point scan; no cyclic GC
    # during start-up
    argvs.append(("reverie status, PYDANTIC_DISABLE_PLUGINS=1", status))
    main = (
        f"import sys; from reverie.cli import main; sys.exit(main(['-w', {str(ws)!r}, 'status']))"
    )
    no_gc = [sys.executable, "-c", f"import gc; gc.disable(); {main}"]
    argvs.append(("reverie status, gc.disable() before its imports", no_gc))
    # what would be left with neither rich nor pydantic: the stdlib and Reverie modules status reads
    # files with
    rest = (
        "import atexit, gc; atexit.register(gc.freeze); import argparse, logging, orjson, "
        "reverie.cli, "
        "reverie.storage.workspace, reverie.storage.fsutil, reverie.storage.history, "
        "reverie.dream.records, reverie.dream.deadletter, "
        "reverie.dream.proposal"
    )
    argvs.append(
        ("status's other imports alone (no rich, no pydantic)", [sys.executable, "-c", rest])
    )
    byte_compile(True)
    samples: dict[str, list[float]] = {name: [] for name, _ in argvs}
    try:
        for _ in range(rounds):
            for name, argv in argvs:
                extra = {"PYDANTIC_DISABLE_PLUGINS": "1"} if "PYDANTIC" in name else {}
                samples[name].append(_cpu(argv, {**env, **extra}))
    finally:
        byte_compile(False)  # leave the checkout as it was
    floor = stats_of(samples[argvs[0][0]])
    results, before = [], 0.0
    for name, _ in argvs:
        stats = stats_of(samples[name])
        layer = not name.startswith(("reverie status", "status's"))
        step = f"; this layer {(stats.median - before) * 1e3:+.0f} ms" if layer else ""
        results.append(
            Result(
                AREA,
                f"CPU: {name}",
                stats,
                floor,
                "python -c pass (floor)",
                target="status ≤ 0.1 s",
                note=f"cumulative {stats.median * 1e3:.0f} ms{step}",
            )
        )
        before = stats.median if layer else before
    return results
