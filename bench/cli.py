"""CLI start-up and the demo: wall time, CPU time and peak memory of `reverie --help`, `status`,
`log`; `reverie demo`.

    python -m bench cli             # 10,000-commit memory repo, 10 runs per command, 3 demo runs
    python -m bench --quick cli     # 1,000 commits, 3 runs, 1 demo run

The fast commands run as child processes, as a user runs them, on a workspace whose memory repo
holds 10,000 commits (90 % Dream commits with their trailers, every tenth a manual edit; built by
the gitstore benchmark's `git fast-import` builder). Figures: median wall time, median CPU time
(user + sys, less sensitive to the other jobs on a shared machine), and the child's peak RSS
(``ru_maxrss`` from ``os.wait4``; the repo is built in a separate child so this process stays small,
since a forked child's ``ru_maxrss`` starts from its parent's). Peers in the same run: nanobot-ai
0.3.5's own CLI (`nanobot --help`, `nanobot status`) and `python -c pass`, the floor every Python
CLI pays. `status` runs twice: as a fresh install runs it (no config key set: no pydantic), and with
a key set by a variable (the config is then validated through the pydantic models). The demo runs in
a fresh directory each time on the offline engine, which is called in-process (the model registry),
so no litellm import.

Reverie's modules are byte-compiled before the timed runs, as ``pip install`` leaves them (the
peers' are, too). The fast commands are also timed once from source, without ``.pyc`` files, as a
checkout runs when ``PYTHONDONTWRITEBYTECODE`` is set (this repository's shells set it): every run
then recompiles each module it imports; that figure is in the note.
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ._core import ROOT, Context, Result, ensure_nanobot, stats_of
from .peerenv import PeerEnvError

AREA = "cli"
KEY_SET = "status, a config key set (REVERIE_MODEL)"


def run_child(
    argv: list[str], env: dict[str, str], cwd: Path | None = None
) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one run of ``argv``; raises if it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.stderr and proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def sample(  # type: ignore[no-untyped-def]
    argv: list[str], env: dict[str, str], runs: int, cwd: Path | None = None
):
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        w, c, r = run_child(argv, env, cwd)
        walls.append(w)
        cpus.append(c)
        rss.append(r)
    return stats_of(walls), stats_of(cpus), max(rss)


def byte_compile(on: bool) -> None:
    """Give Reverie's modules ``.pyc`` files (``on``) or remove them (the ``__pycache__`` folders
    are gitignored)."""
    for cache in (ROOT / "reverie").rglob("__pycache__"):
        shutil.rmtree(cache)
    if on:
        compileall.compile_dir(ROOT / "reverie", quiet=1)


def build_workspace(root: Path, commits: int, env: dict[str, str]) -> Path:
    """The gitstore benchmark's repo builder, run in a child process (see the module docstring)."""
    ws = root / "ws"
    code = (
        "from pathlib import Path; from bench.gitstore import build_workspace; "
        f"build_workspace(Path({str(ws)!r}), {commits}, 0)"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=str(ROOT))
    return ws


def run(ctx: Context) -> list[Result]:
    commits, runs, demo_runs = (1_000, 3, 1) if ctx.quick else (10_000, 10, 3)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env["REVERIE_HOME"] = str(ctx.tmpdir("cli-home-"))
    env["PYTHONPATH"] = str(ROOT)
    tmp = ctx.tmpdir("cli-")
    ws = build_workspace(tmp, commits, env)
    py = [sys.executable]
    reverie = py + ["-m", "reverie", "-w", str(ws)]
    try:
        nanobot = ensure_nanobot("0.3.5").parent / "nanobot"
    except (PeerEnvError, OSError) as exc:  # the comparison is skipped, never invented
        print(
            f"[bench] cli: nanobot-ai 0.3.5 unavailable ({exc}); no nanobot peer", file=sys.stderr
        )
        nanobot = None
    nano_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    nano_env["HOME"] = str(ctx.tmpdir("cli-nanobot-home-"))
    floor = sample(py + ["-c", "pass"], env, runs)
    rows = [
        (
            "--help",
            reverie + ["--help"],
            [str(nanobot), "--help"] if nanobot else None,
            "nanobot-ai 0.3.5 --help",
        ),
        (
            "status",
            reverie + ["status"],
            [str(nanobot), "status"] if nanobot else None,
            "nanobot-ai 0.3.5 status",
        ),
        # a key set (here by a variable): the config is validated through the pydantic models, as it
        # must be
        (KEY_SET, reverie + ["status"], None, ""),
        (f"log ({commits:,}-commit repo)", reverie + ["log"], None, ""),
    ]
    envs = {name: dict(env) for name, _, _, _ in rows}
    envs[KEY_SET]["REVERIE_MODEL"] = "openai/gpt-4o-mini"
    byte_compile(False)
    from_source = {name: sample(argv, envs[name], runs)[0] for name, argv, _, _ in rows}
    byte_compile(True)
    results = []
    for name, argv, peer_argv, peer_name in rows:
        wall, cpu, rss = sample(argv, envs[name], runs)
        peer = sample(peer_argv, nano_env, runs, cwd=tmp) if peer_argv else None
        peer_note = (
            f"; peer peak RSS {peer[2]:.0f} MiB, CPU {peer[1].median * 1e3:.0f} ms" if peer else ""
        )
        results.append(
            Result(
                AREA,
                f"reverie {name}",
                wall,
                peer[0] if peer else floor[0],
                peer_name or "python -c pass (floor)",
                target={"status": "≤ 0.1 s", KEY_SET: "—"}.get(name, "≤ 0.3 s"),
                note=f"CPU {cpu.median * 1e3:.0f} ms, peak RSS {rss:.0f} MiB{peer_note}; "
                "python -c pass: "
                f"{floor[0].median * 1e3:.0f} ms wall, {floor[2]:.0f} MiB; from source (no .pyc): "
                f"{from_source[name].median * 1e3:.0f} ms ({from_source[name].spread})",
            )
        )
    walls, cpus, peak = [], [], 0.0
    for n in range(demo_runs):
        w, c, r = run_child(py + ["-m", "reverie", "demo", str(tmp / f"demo-{n}")], env)
        walls.append(w)
        cpus.append(c)
        peak = max(peak, r)
    results.append(
        Result(
            AREA,
            "reverie demo (offline engine, in-process: no litellm import)",
            stats_of(walls),
            target="≤ 1.5 s",
            note=f"CPU {stats_of(cpus).median:.1f} s, peak RSS {peak:.0f} MiB",
        )
    )
    byte_compile(False)  # leave the checkout as it was
    return results
