"""Test isolation: no test touches the real ~/.reverie, the network, or a caller's REVERIE_* settings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support import background
from support.cli import ROOT, run_cli

__all__ = ["ROOT", "run_cli"]  # several test files import them from here


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: background.owns(item.nodeid))  # stable: the rest keep their order


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the slow checks that are a process of their own (support/background.py) now, beside the suite."""
    shared = getattr(session.config, "workerinput", {}).get("reverie_background")
    if shared:  # an xdist worker: the controller runs them
        background.attach(Path(shared))
    elif not session.config.option.collectonly:
        background.start(item.nodeid for item in session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:  # xdist's WorkerController
    """pytest-xdist's controller: tell each worker where the checks' results will be."""
    node.workerinput["reverie_background"] = str(background.share())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """pytest-xdist's controller: start the checks of what the workers collected (once)."""
    background.start(ids)


def pytest_sessionfinish(session: pytest.Session) -> None:
    background.stop_all()


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


# The real-nanobot tests' peer environments (issue 30, item 7): support/peers.py creates them in the
# background while the rest of the suite runs, and fails those tests under CI when it cannot.
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
