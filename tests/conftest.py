"""Test isolation: no test touches the real ~/.reverie, the network, or a caller's REVERIE_* settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.mktemp("reverie-home")
    for name in list(os.environ):
        if name.startswith("REVERIE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("REVERIE_HOME", str(home))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    return home


# The real-nanobot tests' peer environments (issue 30, item 7): support/peers.py creates them in the background
# while the rest of the suite runs, and fails those tests under CI when it cannot.
pytest_plugins = ["support.peers"]


@pytest.fixture
def workspace(tmp_path: Path):
    from reverie.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.init()
    return ws


@pytest.fixture
def store(workspace):
    from reverie import MemoryStore

    return MemoryStore(workspace)


def run_cli(
    *args: str, env: dict[str, str] | None = None, input: str | None = None, timeout: float = 60
):
    """Run ``python -m reverie`` in a subprocess, as a user would."""
    import subprocess

    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "reverie", *args],
        capture_output=True,
        text=True,
        env=full_env,
        input=input,
        timeout=timeout,
        cwd=str(ROOT),
    )
