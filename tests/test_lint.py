"""Lint and types run with the tests (so CI runs them): ruff over the code, tests, benchmarks and
examples, and mypy --strict over the package (the paths listed in pyproject's [tool.mypy]
``files``)."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT
from support import background


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_finds_nothing() -> None:
    pytest.importorskip("ruff", reason="ruff is in the test extra (requirements-dev.lock)")
    proc = _run("ruff", "check", "--no-cache", "reverie", "tests", "bench", "examples")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_leaves_everything_as_it_is() -> None:
    """``ruff format`` decides layout (line length in pyproject's [tool.ruff]); run it before
    committing."""
    pytest.importorskip("ruff", reason="ruff is in the test extra (requirements-dev.lock)")
    paths = ("reverie", "tests", "bench", "examples", "scripts")
    proc = _run("ruff", "format", "--check", "--no-cache", *paths)
    assert proc.returncode == 0, proc.stdout + proc.stderr


#: Packages not in mypy's ``files`` yet, each with its reason. Remove an entry when its package is
#: listed.
NOT_YET_STRICT: dict[str, str] = {}


def test_mypy_strict_on_the_package() -> None:
    """mypy runs from the end of collection beside the rest of the suite (support/background.py),
    with its incremental cache in .mypy_cache: ≈45 s of CPU cold, ≈3 s warm on this machine."""
    pytest.importorskip("mypy", reason="mypy is in the test extra (requirements-dev.lock)")
    done = background.result("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_covers_every_package() -> None:
    """A new module or package is type-checked from its first commit: nothing under reverie/ is left
    out of [tool.mypy] ``files`` unless NOT_YET_STRICT says why."""
    files = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"])
    packages = {f"reverie/{init.parent.name}" for init in (ROOT / "reverie").glob("*/__init__.py")}
    assert "reverie/*.py" in files
    assert sorted(packages - files - set(NOT_YET_STRICT)) == []
