"""The README's Quickstart and .ci/run cannot drift apart, and .ci/run fails when no test ran or
one failed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CI_RUN = ROOT / ".ci" / "run"


def quickstart_command(kind: str) -> str:
    """The single command line in the fenced block right after ``<!-- quickstart:<kind> ...
    -->``."""
    text = (ROOT / "README.md").read_text("utf-8")
    m = re.search(rf"<!-- quickstart:{kind}\b[^>]*-->\s*```[a-z]*\n(.*?)\n```", text, re.S)
    assert m, f"README.md has no quickstart:{kind} block"
    lines = [line for line in m.group(1).splitlines() if line.strip()]
    assert len(lines) == 1, f"the quickstart:{kind} block must hold exactly one command line"
    return lines[0].strip()


def ci_command() -> str:
    m = re.search(r"^TEST_COMMAND='([^']*)'$", CI_RUN.read_text("utf-8"), re.M)
    assert m, ".ci/run must define TEST_COMMAND='...'"
    return m.group(1)


def test_ci_runs_exactly_the_readme_test_command():
    assert ci_command() == quickstart_command("test")
    script = CI_RUN.read_text("utf-8")
    assert 'bash -c "$TEST_COMMAND"' in script
    assert os.access(CI_RUN, os.X_OK)


def test_quickstart_has_exactly_two_commands_using_the_locks():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(re.findall(r"<!-- quickstart:", readme)) == 2
    run, test = quickstart_command("run"), quickstart_command("test")
    assert "--require-hashes -r requirements.lock" in run and ".venv/bin/reverie" in run
    assert "--require-hashes -r requirements-dev.lock" in test and "-m pytest" in test
    assert test.endswith(
        "-m pytest -n 2"
    )  # two processes (pytest-xdist): the suite's time on 2 cores
    for cmd in (run, test):
        shlex.split(cmd)  # well-formed shell


def _ci_copy(tmp_path: Path, command: str) -> Path:
    """A copy of .ci/run in a scratch project whose TEST_COMMAND is ``command``: tests the
    exit-code logic."""
    (tmp_path / ".ci").mkdir()
    script = re.sub(
        r"^TEST_COMMAND='[^']*'$",
        lambda _: f"TEST_COMMAND={shlex.quote(command)}",
        CI_RUN.read_text("utf-8"),
        flags=re.M,
    )
    target = tmp_path / ".ci" / "run"
    target.write_text(script, "utf-8")
    return target


@pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("timeout") is None, reason="needs bash"
)
@pytest.mark.parametrize(
    ("tests", "ok"),
    [
        ({}, False),  # pytest exit 5: nothing collected
        ({"test_a.py": "def test_ok():\n    assert True\n"}, True),
        ({"test_a.py": "def test_ok():\n    pass\n\ndef test_bad():\n    assert False\n"}, False),
        (
            {"test_a.py": "import pytest\n\n@pytest.mark.skip\ndef test_s():\n    pass\n"},
            False,
        ),  # ran none
    ],
)
def test_ci_script_fails_unless_tests_ran_and_passed(tmp_path, tests, ok):
    for name, body in tests.items():
        (tmp_path / name).write_text(body, "utf-8")
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\n", "utf-8"
    )  # stop rootdir discovery at the scratch dir
    # no plugin autoload: the installed plugins (faker's, hypothesis's) cost ~3 s of CPU a start and
    # play no part in .ci/run's exit-code logic
    script = _ci_copy(
        tmp_path,
        f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q "
        "-p no:cacheprovider",
    )
    proc = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert (proc.returncode == 0) is ok, proc.stdout + proc.stderr
    assert ("OK" in proc.stdout.splitlines()[-1]) is ok


def test_guarantees_name_tests_that_exist():
    """Every test docs/guarantees.md names is a real test function (so the claims cannot drift)."""
    checked = 0
    for page in sorted((ROOT / "docs").glob("guarantees*.md")):
        checked += _check_test_names(page.read_text("utf-8"))
    assert checked >= 5


def _check_test_names(section: str) -> int:
    refs = re.findall(r"`((?:tests/[\w/]+\.py)?)(?:::(\w+))?`", section)
    current = None
    checked = 0
    for path, name in refs:
        if path:
            current = ROOT / path
            assert current.is_file(), path
        if name:
            assert current is not None, name
            assert re.search(rf"^def {name}\(", current.read_text("utf-8"), re.M), (
                f"{current.name}::{name}"
            )
            checked += 1
    return checked
