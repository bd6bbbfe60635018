"""Lint and types run with the tests (so CI runs them): ruff over the code, tests and benchmarks, and mypy --strict
over the bottom layer (the files listed in pyproject's [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing() -> None:
    pytest.importorskip("ruff", reason="ruff is in the test extra (requirements-dev.lock)")
    proc = _run("ruff", "check", "--no-cache", "reverie", "tests", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_on_the_bottom_layer() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra (requirements-dev.lock)")
    proc = _run("mypy", "--cache-dir", "/dev/null")
    assert proc.returncode == 0, proc.stdout + proc.stderr
