"""The benchmark framework's arithmetic and discovery (the benchmarks themselves never run under
pytest)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

from bench import Result, stats_of
from bench.__main__ import discover


def test_stats_median_and_deciles():
    s = stats_of([float(x) for x in range(1, 102)])
    assert (s.median, s.p10, s.p90, s.n) == (51.0, 11.0, 91.0, 101)
    assert stats_of([3.0]).median == 3.0


def test_ratio_is_above_one_when_reverie_is_better():
    fast, slow = stats_of([0.001] * 3), stats_of([0.1] * 3)
    assert Result("a", "latency", fast, slow).ratio == 100.0
    assert (
        Result("a", "throughput", stats_of([500.0]), stats_of([100.0]), unit="ops/s").ratio == 5.0
    )
    assert Result("a", "alone", fast).ratio is None
    assert Result("a", "row", fast, slow, peer_name="p").row().count("|") == 9


def test_areas_are_discovered_from_module_names():
    areas = discover()
    assert "history" in areas and not any(name.startswith("_") for name in areas)
    listed = subprocess.run(
        [sys.executable, "-m", "bench", "--list"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert listed.returncode == 0 and "history" in listed.stdout.split()
