"""Test isolation: no test touches the real ~/.reverie, the network, or a caller's REVERIE_*
settings."""

from __future__ import annotations

import compileall
import itertools
import os
import signal
import sys
from collections.abc import Iterator
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


#: The test files that took longest, heaviest first: ``--junitxml`` of a run of the whole suite
#: under ``-n 2`` (main at 5730e3e, 2026-11-29; each file's tests' times summed, 20 s and more
#: under that run's load; test_memory_async, 46 s there, took 361 s in the run before at a higher
#: load, its retries). A file not named here is lighter; a file named but gone is ignored.
HEAVIEST = (
    "test_offline_gates", "test_frameworks_oldest", "test_fleet", "test_memory_async",
    "test_ui_browser", "test_history_fuzz", "test_mcp", "test_fault_injection",
    "test_offline_locomo", "test_signals", "test_offline_kinds", "test_ui_display_browser",
    "test_model_replies_end_to_end", "test_nanobot_035", "test_harden_threads",
    "test_reply_corpus", "test_doc_pages", "test_fleet_operator", "test_chat_terminal",
    "test_examples", "test_processes_one_workspace", "test_schedule_root", "test_llm_lazy_import",
    "test_model_replies", "test_queries_write_nothing", "test_offline_corrections",
    "test_fleet_outage", "test_doc_snippets", "test_memory_properties", "test_mcp_wire",
    "test_offload_processes", "test_fleet_watch", "test_history_late_entries",
    "test_dream_recovery", "test_fleet_hostile", "test_offline_round10_ordinary",
    "test_offline_corpus", "test_embedded_stress", "test_gitstore_crash", "test_commit_signals",
    "test_memory_mem0", "test_nanobot_concurrent", "test_importers_nanobot", "test_bench_peerenv",
    "test_memory_file_not_regular",
)  # fmt: skip


#: The test files whose tests import litellm or an agent SDK in the test process (a remote model
#: called through litellm, a provider's error type, its tokenizer or cost table; openai-agents,
#: anthropic, Google ADK, Pydantic AI): 2.5-8.5 s of CPU each, paid once per process. Under
#: pytest-xdist they are one unit of work (``pytest_xdist_make_scheduler``), so one worker imports
#: each, not both; the unit, the heaviest there is, runs first (``_file_order``). Found by recording
#: what each file's tests add to ``sys.modules`` (2026-11-29): a file missing here costs that import
#: again, nothing else.
HEAVY_IMPORTS = {
    "litellm": (
        "test_chat", "test_commands_dream", "test_consolidator", "test_consolidator_estimate",
        "test_consolidator_seed", "test_dream_run", "test_fault_injection", "test_llm_client_http",
        "test_llm_errors", "test_llm_litellm_loops", "test_llm_output", "test_llm_scripted",
        "test_llm_tokens", "test_model_replies", "test_model_replies_end_to_end",
        "test_processes_one_workspace", "test_recall_memfiles", "test_recall_rank",
        "test_security_untrusted",
    ),
    "agents": (
        "test_frameworks_contracts", "test_integration_openai_agents",
        "test_integrations_tool_arguments", "test_stored_text",
    ),
    "anthropic": (
        "test_integration_anthropic", "test_integration_anthropic_bad_input",
        "test_integration_anthropic_contract", "test_memory_base",
    ),
    "google.adk": (
        "test_integration_google_adk", "test_integration_google_adk_contract",
        "test_integration_google_adk_delete", "test_integration_google_adk_delete_concurrent",
    ),
    "pydantic_ai": (
        "test_integration_pydantic_ai", "test_integration_pydantic_ai_contract",
        "test_integrations_tool_arguments",
    ),
}  # fmt: skip
IMPORTING_FILES = frozenset(name for names in HEAVY_IMPORTS.values() for name in names)
#: The unit's name in xdist's schedule (not a file: no file's scope is spelled so).
_IMPORTING_UNIT = "heavy-imports"


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".py")


def _file_order(items: list[pytest.Item]) -> dict[str, tuple[int, int, int]]:
    """Each test file's place in the run: the heaviest files first, then the files of the tests in
    a peer environment (``support/peers.py``: built in the background meanwhile), then the lighter
    files, most tests first, and last the files of the tests that wait for a background check
    (``support/background.py``), giving the checks the whole suite's time. Under pytest-xdist
    (``--dist loadfile``, ``--no-loadscope-reorder``: the order given here) a worker takes the next
    file when it is nearly done, so heaviest first keeps the two workers ending together: xdist's
    own order (most tests first) left the files of one slow test, a peer environment's among
    them, for the end, one worker running them while the other had nothing left. The files of
    ``IMPORTING_FILES`` run together, first."""
    from support import peers  # here: pytest_plugins has loaded it (its asserts rewritten)

    rank = {name: i for i, name in enumerate(HEAVIEST)}
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = {}
    for path, tests in files.items():
        name = _name(path)
        if any(background.owns(t.nodeid) for t in tests):
            group = 3
        elif any(
            t.get_closest_marker(peers.MARKER) or t.get_closest_marker(peers.FRAMEWORK_MARKER)
            for t in tests
        ):
            group = 1
        else:
            group = 0 if name in rank else 2
        if name in IMPORTING_FILES and group in (0, 2):
            group, rank[name] = 0, -1
        order[path] = (group, rank.get(name, len(rank)), -len(tests))
    return order


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Whole files in ``_file_order``, after every other plugin's order and selection: under
    pytest-xdist (``--dist loadfile``) a file's tests run in one worker, in their order, as in a
    one-process run (they may share a module fixture and its state), and a file is sent to a
    worker in the order given here. The tests that wait for a background check run at the end of
    their file."""
    yield
    order = _file_order(items)
    items.sort(  # stable: a file's other tests keep their order
        key=lambda item: (order[item.nodeid.split("::")[0]], background.owns(item.nodeid))
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's controller, under ``--dist loadfile``: its schedule by file, but the files of
    ``IMPORTING_FILES`` one unit (xdist's loadfile and loadgroup schedules are this class with their
    own ``_split_scope``, the unit of work a test id belongs to)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class _Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return _IMPORTING_UNIT if _name(scope) in IMPORTING_FILES else scope

    return _Scheduling(config, log)


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
