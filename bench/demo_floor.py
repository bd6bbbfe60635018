"""Where `reverie demo`'s time goes: the CPU of children that each do one more layer of it.

    .venv/bin/python -m bench.demo_floor [ROUNDS] [TREE ...]   # 5 rounds; this checkout

(Run by ``python -m bench`` with every area: this checkout, 5 rounds; 3 with ``--quick``.)

A demo first runs once per tree in a child that records what it did: the modules it imported, the
regular expressions it compiled (source and flags, each compile ``re`` made) and its fsyncs
(count and seconds). Then, per round and tree, in alternating order, children measure (CPU time:
user + sys from ``os.wait4``, as ``bench.demo_ab``; bytecode written and read, a fresh
``REVERIE_HOME`` per tree):

1. ``python -c pass``: the interpreter;
2. ``import reverie``;
3. every module the demo imported, in its order: the imports' share;
4. the same, then compiling every pattern the demo compiled: the patterns' share (those its imports
   compiled are counted in 3; ``re``'s cache makes them free here);
5. the demo itself (``python -m reverie demo DIR``, a new DIR each time): what is left is its own
   work (the engine's matching, the files, git, the rendering), and its wall time.

Medians per step, and the increments. The floor of a demo that imports and compiles what it does
now is step 4; the fsyncs' time is wall time on top of the CPU (the disk's, not the process's).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from .cli import run_child

ROOT = Path(__file__).resolve().parent.parent

#: Run in a child: a demo, recording its modules, its compiled patterns and its fsyncs.
_RECORD = r"""
import atexit, json, os, re, runpy, sys, time
import re._compiler as compiler
out, work = sys.argv[1], sys.argv[2]
patterns, fsyncs = [], [0, 0.0]
real_compile, real_fsync = compiler.compile, os.fsync
def compile(p, flags=0):
    if isinstance(p, str):
        patterns.append((p, int(flags)))
    return real_compile(p, flags)
def fsync(fd):
    start = time.perf_counter()
    try:
        return real_fsync(fd)
    finally:
        fsyncs[0] += 1
        fsyncs[1] += time.perf_counter() - start
compiler.compile, os.fsync = compile, fsync
def dump():
    modules = [m for m in sys.modules if m != "__main__" and not m.endswith(".__main__")]
    data = {"modules": modules, "patterns": patterns, "fsyncs": fsyncs}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f)
atexit.register(dump)
sys.argv = ["reverie", "demo", work]
try:
    runpy.run_module("reverie", run_name="__main__")
except SystemExit:
    pass
"""

#: Run in a child: import the recorded modules, then (with "compile") compile the patterns.
_REPLAY = r"""
import importlib, json, re, sys
data = json.load(open(sys.argv[1], encoding="utf-8"))
for name in data["modules"]:
    try:
        importlib.import_module(name)
    except Exception:
        pass  # a module of another platform's, or one that needs its parent's state
if sys.argv[2] == "compile":
    for source, flags in data["patterns"]:
        re.compile(source, flags)
"""

_STEPS = ("interpreter", "import reverie", "+ the demo's imports", "+ its patterns", "the demo")


def _env(tree: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), REVERIE_HOME=str(home))
    return env


def _argv(step: str, record: Path, work: Path) -> list[str]:
    py = sys.executable
    if step == "interpreter":
        return [py, "-c", "pass"]
    if step == "import reverie":
        return [py, "-c", "import reverie"]
    if step == "the demo":
        return [py, "-m", "reverie", "demo", str(work)]
    return [py, "-c", _REPLAY, str(record), "compile" if step == "+ its patterns" else "import"]


def main(argv: list[str] | None = None) -> None:
    given = sys.argv[1:] if argv is None else argv
    args = [a for a in given if a != "--quick"]
    rounds = int(args.pop(0)) if args and args[0].isdigit() else (3 if "--quick" in given else 5)
    trees = [Path(a).resolve() for a in args] or [ROOT]
    print(f"load before: {os.getloadavg()[0]:.2f}; trees: {[str(t) for t in trees]}")
    with tempfile.TemporaryDirectory(prefix="demo-floor-") as tmp:
        base = Path(tmp)
        records: dict[Path, Path] = {}
        for i, tree in enumerate(trees):
            home = base / f"home-{i}"
            record = records[tree] = base / f"record-{i}.json"
            run_child(
                [sys.executable, "-c", _RECORD, str(record), str(base / f"rec-{i}" / "ws")],
                _env(tree, home),
                cwd=base,
            )
            data = json.loads(record.read_text(encoding="utf-8"))
            chars = sum(len(s) for s, _ in data["patterns"])
            n, secs = data["fsyncs"]
            print(
                f"{tree}: {len(data['modules'])} modules, {len(data['patterns'])} patterns "
                f"compiled ({chars:,} characters), {n} fsyncs ({secs:.2f} s in the recording run)"
            )
        cpu: dict[tuple[int, str], list[float]] = {}
        wall: dict[int, list[float]] = {}
        for r in range(rounds):
            order = list(enumerate(trees)) if r % 2 == 0 else list(reversed(list(enumerate(trees))))
            for i, tree in order:
                for step in _STEPS:
                    work = base / f"r{r}-{i}" / "ws"
                    w, c, _ = run_child(
                        _argv(step, records[tree], work), _env(tree, base / f"home-{i}"), cwd=base
                    )
                    cpu.setdefault((i, step), []).append(c)
                    if step == "the demo":
                        wall.setdefault(i, []).append(w)
        print(f"load after: {os.getloadavg()[0]:.2f}; {rounds} rounds, CPU medians (increment)")
        for i, tree in enumerate(trees):
            print(f"{tree}:")
            before = 0.0
            for step in _STEPS:
                got = statistics.median(cpu[(i, step)])
                print(f"  {step:24s} {got:6.2f} s  (+{got - before:.2f})")
                before = got
            walls = " / ".join(f"{w:.2f}" for w in wall[i])
            print(f"  the demo's wall time: median {statistics.median(wall[i]):.2f} s ({walls})")


if __name__ == "__main__":
    main()
