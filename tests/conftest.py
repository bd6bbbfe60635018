"""Test isolation: no test touches the real ~/.reverie, the network, or a caller's REVERIE_*
settings."""

from __future__ import annotations

import compileall
import itertools
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from support import background
from support.cli import ROOT, run_cli

__all__ = ["ROOT", "run_cli"]  # several test files import them from here

# A suite started as a background job of a shell without job control inherits SIGINT ignored
# (POSIX), and so would every CLI process a test starts: the signal tests send SIGINT to real
# processes as a user's Ctrl-C, and Reverie rightly leaves an ignored SIGINT ignored
# (``reverie._start``). A Python handler here is reset to the default in every child at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: Names for the scripted models of the ``fake`` fixture (each test its own).
_FAKES = itertools.count(1)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of the tests that wait for a background check run last, those tests at their end,
    giving the checks the whole suite's time. Whole files: under pytest-xdist (``--dist loadfile``)
    a file's tests run in one worker, in their order, as in a one-process run (they may share a
    module fixture and its state), and a file is sent to a worker where it first appears."""
    waiting = {item.nodeid.split("::")[0] for item in items if background.owns(item.nodeid)}
    items.sort(  # stable: the rest keep their order
        key=lambda item: (item.nodeid.split("::")[0] in waiting, background.owns(item.nodeid))
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the slow checks that are a process of their own (support/background.py) now, beside
    the suite."""
    shared = getattr(session.config, "workerinput", {}).get("reverie_background")
    if shared:  # an xdist worker: the controller runs them
        background.attach(Path(shared))
    elif not session.config.option.collectonly:
        background.start(item.nodeid for item in session.items)


#: Set in a pytest-xdist worker's environment from its start (80 and 24), whatever the controller
#: had: they narrow rich's output and the CLI's status line in the processes tests start.
_TERMINAL_SIZE = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:  # xdist's WorkerController
    """pytest-xdist's controller: tell each worker where the checks' results will be, and the
    terminal size variables it had."""
    node.workerinput["reverie_background"] = str(background.share())
    node.workerinput["reverie_terminal_size"] = {k: os.environ.get(k) for k in _TERMINAL_SIZE}


#: What the suite's processes import from the checkout: the package and the tests' helpers (and
#: bench/'s modules, below).
_COMPILED = ("reverie", "tests/support", "tests/offline_corpus.py", "tests/offline_statements.py")


def _compile_the_checkout() -> None:
    """Write the checkout's bytecode once, before the workers start. With PYTHONDONTWRITEBYTECODE
    set (these machines' shells set it) no process caches it, so each xdist worker and each of the
    hundreds of processes the tests start (the CLI, the doc pages' scripts, the crash harness)
    compiled every module it imported from source again: 0.6 s of CPU for ``reverie demo``. A
    stale file is never read (Python checks the source's size and time); up to date, this is a
    stat a file."""
    for name in _COMPILED:
        path = ROOT / name
        if path.is_dir():
            compileall.compile_dir(path, quiet=2, workers=1)
        elif path.exists():
            compileall.compile_file(path, quiet=2)
    compileall.compile_dir(ROOT / "bench", maxlevels=0, quiet=2)  # not its peer environments


def pytest_configure(config: pytest.Config) -> None:
    """The checkout's bytecode is written once (by xdist's controller, or the one process), and the
    test modules' as pytest rewrites them; an xdist worker runs its tests in the controller's
    environment, as a one-process run does."""
    if not hasattr(config, "workerinput"):
        _compile_the_checkout()
    # pytest caches a test module with its asserts rewritten only where bytecode is written: with
    # PYTHONDONTWRITEBYTECODE each worker rewrote all ~290 modules on every run, half its
    # collection's CPU (26 s of it, 13 s with the cache).
    sys.dont_write_bytecode = False
    for name, value in getattr(config, "workerinput", {}).get("reverie_terminal_size", {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """pytest-xdist's controller: start the checks of what the workers collected (once)."""
    if not node.config.option.collectonly:
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
pytest_plugins = ["support.peers", "support.fleet_fixtures"]


@pytest.fixture
def workspace(tmp_path: Path):
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.init()
    return ws


@pytest.fixture
def store(workspace):
    from reverie import MemoryStore

    return MemoryStore(workspace)


@pytest.fixture
def fake():
    """A scripted model (``reverie.llm.scripted``) under a name of this test's own, unregistered
    after it: ``fake.model`` is what a config names, ``fake.enqueue(...)`` what it answers."""
    from reverie.llm.scripted import ScriptedModel

    model = ScriptedModel.register(f"fake{next(_FAKES)}")
    yield model
    ScriptedModel.unregister(model.name)
