"""``python -m bench [--quick] [--json PATH] [--list] [--peers] [AREA ...]``: run benchmark areas
(see bench/__init__.py)."""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import sys
import tempfile
import time
from types import ModuleType

from . import peerenv
from ._core import (
    BENCH_DIR,
    ROOT,
    TABLE_HEADER,
    Context,
    Result,
    ensure_nanobot,
    machine_info,
)


def discover() -> dict[str, ModuleType | str]:
    """Area name -> module path, for every ``bench/<name>.py`` not starting with ``_``."""
    return {
        info.name: f"bench.{info.name}"
        for info in pkgutil.iter_modules([str(BENCH_DIR)])
        if not info.name.startswith("_") and not info.ispkg
    }


def run_area(name: str, module_path: str, ctx: Context) -> list[Result]:
    module = importlib.import_module(module_path)
    if hasattr(module, "run"):
        return list(module.run(ctx))
    if hasattr(module, "main"):  # an older standalone script: it prints its own figures
        params = inspect.signature(module.main).parameters
        module.main(["--quick"] if ctx.quick else []) if params else module.main()
        return []
    print(f"[bench] {name}: no run(ctx) or main(); skipped", file=sys.stderr)
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("areas", nargs="*", metavar="AREA", help="areas to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="small sizes and fewer repetitions")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--list", action="store_true", help="list the areas and exit")
    parser.add_argument(
        "--peers",
        action="store_true",
        help="create the peer venvs (the nanobot-ai releases, the frameworks' oldest supported "
        "releases) from their hash-locked files (bench/locks -> bench/.venvs; the test run creates "
        "them too) and exit",
    )
    args = parser.parse_args(argv)
    areas = discover()
    if args.list:
        print("\n".join(sorted(areas)))
        return 0
    if args.peers:
        for name in peerenv.PEERS:
            print(f"{name}: {ensure_nanobot(name)}")
        return 0
    unknown = [a for a in args.areas if a not in areas]
    if unknown:
        parser.error(f"unknown area(s) {', '.join(unknown)}; known: {', '.join(sorted(areas))}")
    chosen = args.areas or sorted(areas)
    # Benchmarks never read the user's config or workspace.
    for key in [k for k in os.environ if k.startswith("REVERIE_")]:
        del os.environ[key]
    os.environ["REVERIE_HOME"] = tempfile.mkdtemp(prefix="reverie-bench-home-")
    sys.path.insert(0, str(ROOT))

    info = machine_info()
    command = (
        "python -m bench"
        + (" --quick" if args.quick else "")
        + "".join(f" {a}" for a in args.areas)
    )
    print(f"# {command}")
    print(
        f"machine: {info['cpus']} CPUs ({info['cpu']}), {info['memory']} RAM, Python "
        f"{info['python']}, "
        f"{info['os']}, {info['date']}, load average at start {info['load']}\n",
        flush=True,
    )
    ctx = Context(quick=args.quick)
    results: list[Result] = []
    failed: list[str] = []
    try:
        for name in chosen:
            t0 = time.perf_counter()
            print(f"[bench] {name} ...", file=sys.stderr, flush=True)
            try:
                results += run_area(name, areas[name], ctx)
            except Exception as exc:  # one broken area must not hide the others' figures
                failed.append(name)
                print(
                    f"[bench] {name} FAILED: {type(exc).__name__}: {exc}",
                    file=sys.stderr,
                    flush=True,
                )
            print(
                f"[bench] {name} done in {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    finally:
        ctx.cleanup()
    if results:
        print(f"\nload average at end {machine_info()['load']}\n")
        print(TABLE_HEADER)
        for r in results:
            print(r.row())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "command": command,
                    "machine": info,
                    "results": [r.to_dict() for r in results],
                    "failed": failed,
                },
                f,
                indent=2,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
