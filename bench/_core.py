"""The benchmark framework's values and helpers: timing statistics, results, the run context, peer
venvs."""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import peerenv

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
CACHE = BENCH_DIR / ".cache"
PEERS = BENCH_DIR / "peers"
NANOBOT_VERSIONS = peerenv.NANOBOT_VERSIONS


@dataclass(frozen=True)
class Stats:
    """Summary of timing samples (seconds per operation, or operations per second for
    throughput)."""

    median: float
    p10: float
    p90: float
    n: int

    @property
    def spread(self) -> str:
        return f"{fmt(self.p10)}–{fmt(self.p90)}"


def stats_of(samples: list[float]) -> Stats:
    if not samples:
        raise ValueError("no samples")
    s = sorted(samples)
    if len(s) == 1:
        return Stats(s[0], s[0], s[0], 1)
    deciles = statistics.quantiles(s, n=10, method="inclusive")
    return Stats(statistics.median(s), deciles[0], deciles[-1], len(s))


def measure(fn: Callable[[], Any], *, repeat: int, warmup: int = 1) -> tuple[Stats, list[float]]:
    """Time ``fn`` ``repeat`` times after ``warmup`` untimed calls; returns the stats and the raw
    samples."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return stats_of(samples), samples


def fmt(value: float, unit: str = "s") -> str:
    """A human figure: seconds as µs/ms/s, throughput as a plain number."""
    if unit != "s":
        return f"{value:,.0f}"
    if value < 1e-3:
        return f"{value * 1e6:.1f} µs"
    if value < 1:
        return f"{value * 1e3:.2f} ms"
    return f"{value:.2f} s"


@dataclass
class Result:
    """One figure: Reverie's stats, the peer's, and what the issue asks for."""

    area: str
    name: str
    reverie: Stats
    peer: Stats | None = None
    peer_name: str = ""
    # "s" = seconds per operation (lower is better); anything else = throughput (higher is better)
    unit: str = "s"
    target: str = ""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """> 1 means Reverie is better."""
        if self.peer is None or self.peer.median == 0 or self.reverie.median == 0:
            return None
        if self.unit == "s":
            return self.peer.median / self.reverie.median
        return self.reverie.median / self.peer.median

    def row(self) -> str:
        peer = (
            f"{fmt(self.peer.median, self.unit)} "
            f"({self.peer.spread if self.unit == 's' else _tp_spread(self.peer)})"
            if self.peer
            else "—"
        )
        rev_spread = self.reverie.spread if self.unit == "s" else _tp_spread(self.reverie)
        ratio = f"{self.ratio:,.1f}×" if self.ratio is not None else "—"
        unit = "" if self.unit == "s" else f" {self.unit}"
        cells = [
            self.area,
            self.name,
            f"{fmt(self.reverie.median, self.unit)}{unit} ({rev_spread})",
            self.peer_name or "—",
            peer,
            ratio,
            self.target or "—",
            self.note,
        ]
        return "| " + " | ".join(cells) + " |"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ratio"] = self.ratio
        return d


def _tp_spread(s: Stats) -> str:
    return f"{s.p10:,.0f}–{s.p90:,.0f}"


TABLE_HEADER = (
    "| area | workload | Reverie median (p10–p90) | peer | peer median (p10–p90) | ratio (>1: "
    "Reverie better) "
    "| target | note |\n|---|---|---|---|---|---|---|---|"
)


def machine_info() -> dict[str, str]:
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return {
        "load": load,
        "cpus": str(os.cpu_count()),
        "cpu": cpu,
        "memory": mem,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


@dataclass
class Context:
    """What an area gets: the size mode, folders, and the peer runner."""

    quick: bool = False
    cache: Path = CACHE
    _tmp: list[Path] = field(default_factory=list)

    def tmpdir(self, prefix: str = "bench-") -> Path:
        """A scratch folder on the cache's filesystem (so fsync figures are the workspace's),
        removed at exit."""
        self.cache.mkdir(parents=True, exist_ok=True)
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=self.cache))
        self._tmp.append(path)
        return path

    def cleanup(self) -> None:
        for path in self._tmp:
            shutil.rmtree(path, ignore_errors=True)
        self._tmp.clear()

    def peer(
        self, version: str, script: str, args: dict[str, Any], *, timeout: float = 1800
    ) -> dict[str, Any]:
        """Run ``bench/peers/<script>.py`` with ``args`` (JSON) inside the nanobot-ai ``version``
        venv."""
        python = ensure_nanobot(version)
        path = PEERS / f"{script}.py"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("REVERIE_", "PYTHON"))}
        env["HOME"] = str(self.tmpdir("peer-home-"))
        proc = subprocess.run(
            [str(python), str(path), json.dumps(args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=str(self.cache),
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"peer {script} (nanobot-ai {version}) failed:\n{proc.stderr[-3000:]}"
            )
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise RuntimeError(
                f"peer {script} printed no JSON:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )
        return json.loads(lines[-1])


def ensure_nanobot(version: str) -> Path:
    """The python of the nanobot-ai ``version`` peer environment (or any peer's, by name), created
    from its hash-locked file when missing."""
    if peerenv.ready(version) is None:
        print(
            f"[bench] creating {peerenv.venv_dir(version).relative_to(ROOT)} (once; reused)",
            file=sys.stderr,
        )
    return peerenv.ensure(version)
