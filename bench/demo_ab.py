"""`reverie demo` A/B: two source trees, one venv, alternating runs, a fresh directory each.

    .venv/bin/python -m bench.demo_ab OTHER_TREE [ROUNDS]     # e.g. a `git archive main` checkout

(Run by ``python -m bench`` with every area, it has no tree to compare with and says so.)

Each round runs ``python -m reverie demo DIR`` once per side, in alternating order, with
``PYTHONPATH=<tree>`` and bytecode written and read (``PYTHONDONTWRITEBYTECODE`` unset, as a
user's install runs). Each side has its own ``REVERIE_HOME`` (nothing one side leaves in the home
reaches the other) and one warm-up run first, not counted: it writes the bytecode. Figures per
side: wall time and CPU time (user + sys, from ``os.wait4``) of each run, and their medians; the
load average before and after.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from .cli import run_child

ROOT = Path(__file__).resolve().parent.parent


def one(tree: Path, home: Path, work: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one demo in ``work`` (new) with ``tree``'s sources."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), REVERIE_HOME=str(home))
    argv = [sys.executable, "-m", "reverie", "demo", str(work)]
    wall, cpu, _ = run_child(argv, env, cwd=work.parent)  # not this checkout's sources
    return wall, cpu


def main(argv: list[str] | None = None) -> None:
    args = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--quick"]
    if not args:  # ``python -m bench`` runs every area: this one needs a tree to compare with
        print("demo_ab: no other tree given; skipped (usage: python -m bench.demo_ab TREE [N])")
        return
    sides = {"this tree": ROOT, "other": Path(args[0]).resolve()}
    rounds = int(args[1]) if len(args) > 1 else 5
    print(f"load before: {os.getloadavg()[0]:.2f}; trees: {sides}")
    with tempfile.TemporaryDirectory(prefix="demo-ab-") as tmp:
        base = Path(tmp)
        homes = {name: base / f"home-{i}" for i, name in enumerate(sides)}
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        for name, tree in sides.items():
            one(tree, homes[name], base / f"warm-{len(runs[name])}-{name.replace(' ', '-')}")
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for name in order:
                work = base / f"r{r}-{name.replace(' ', '-')}"
                runs[name].append(one(sides[name], homes[name], work))
        print(f"load after: {os.getloadavg()[0]:.2f}")
        for name, got in runs.items():
            walls = " / ".join(f"{w:.2f}" for w, _ in got)
            cpus = " / ".join(f"{c:.2f}" for _, c in got)
            print(
                f"{name}: wall median {statistics.median(w for w, _ in got):.2f} s ({walls}); "
                f"CPU median {statistics.median(c for _, c in got):.2f} s ({cpus})"
            )


if __name__ == "__main__":
    main()
