"""Each adapter against the oldest release of its framework that its extra allows, where that is
not the release the dev lock pins (the newest, which the rest of the suite runs): the adapter's own
tests and its example run unchanged in that release's peer environment (bench/locks/<name>.lock,
built by the test run through bench/peerenv.py; under CI a failure to build it fails this test).

Today that is the OpenAI Agents SDK: ``reverie[openai-agents]`` allows 0.20 (on openai 2) to 0.24
(on openai 3). tests/test_integrations_boundary.py holds every other extra's lower bound to the dev
lock's pin, so no adapter is left with an untested oldest release."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from bench import peerenv

NAME = "openai-agents-0.20.0"
#: What runs in the peer environment: the adapter's integration tests and its example's test.
TESTS = ["tests/test_integration_openai_agents.py", "tests/test_examples.py"]
SELECT = "openai or every_example"
ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.framework_peer(NAME)


def test_the_adapter_and_its_example_pass_on_the_oldest_release(
    framework_peer_python: Path,
) -> None:
    release = peerenv.peer(NAME)
    probe = subprocess.run(
        [str(framework_peer_python), "-c", release.probe], capture_output=True, text=True
    )
    assert probe.stdout.strip() == release.version, probe.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REVERIE_", "PYTEST_"))}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [
            str(framework_peer_python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=-rs",
            *TESTS,
            "-k",
            SELECT,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    tail = done.stdout[-4000:]
    assert done.returncode == 0, tail + done.stderr[-2000:]
    summary = tail.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= 4, summary
    assert "skipped" not in summary, tail  # every test ran, on this release
