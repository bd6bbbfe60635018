"""Crash consistency: the whole pipeline SIGKILLed at 200 random moments, checked after every restart.

The harness (``tests/support/crash_harness.py``) states the invariants. This test also insists that every kind of
step actually ran, so a harness that silently stopped exercising something fails instead of passing vacuously.
Set ``REVERIE_CRASH_SEED`` to explore other schedules; a failure prints the seed and the broken invariant.
"""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from tests.conftest import ROOT


@pytest.mark.slow
def test_pipeline_survives_200_sigkills(tmp_path):
    seed = os.environ.get("REVERIE_CRASH_SEED", "2026")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.crash_harness",
            str(tmp_path),
            "--rounds",
            "200",
            "--seed",
            seed,
            "--max-delay",
            "0.8",
        ],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        env=env,
        timeout=600,
    )
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, f"seed {seed}: {last or proc.stderr[-2000:]}"
    summary = orjson.loads(last)["summary"]
    assert summary["kills"] == 200
    for op, at_least in {
        "append": 100,
        "dream-end": 20,
        "restore": 5,
        "new-end": 3,
        "manual": 5,
    }.items():
        assert summary.get(op, 0) >= at_least, f"seed {seed}: too few {op!r} steps ran: {summary}"
