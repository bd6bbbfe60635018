"""The peer environments for the tests that run a real nanobot or a framework's oldest supported
release (a pytest plugin; conftest loads it).

A test module says which release it runs with ``pytestmark = pytest.mark.nanobot_peer("0.3.5")`` and
takes the ``nanobot_peer_python`` fixture, or with
``pytest.mark.framework_peer("openai-agents-0.20.0")``
and takes ``framework_peer_python``. When tests so marked are selected, the environments they
need are created by ``bench/peerenv.py`` from the hash-locked files in ``bench/locks`` (into
``bench/.venvs``, ignored by git, reused while the lock is unchanged) in a background process from
the end of collection, and those tests are moved to the end of the run: pip's download and install
overlap the rest of the suite, and a test waits only if it gets there first.

When an environment cannot be created, its tests fail with the one-line reason under CI
(``CI=true``), where a skip would hide that they never ran; elsewhere (a developer without access to
the package registry) they are skipped with that reason.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import peerenv

MARKER = "nanobot_peer"
FRAMEWORK_MARKER = "framework_peer"
ROOT = Path(__file__).resolve().parents[2]
#: What the background process runs: bench/peerenv.py's main, one JSON line per release as it is
#: ready.
BUILD = "import sys; from bench.peerenv import main; sys.exit(main(sys.argv[1:]))"


class _Build:
    """The background process creating the selected releases' environments, one after the other.

    A process rather than a thread: the suite forks and patches the environment in its tests, and
    neither should reach pip.
    """

    def __init__(self, versions: list[str]) -> None:
        self.versions = versions
        self.reports: dict[str, dict[str, Any]] = {}
        self.output: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-c", BUILD, *versions],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # stop() ends pip with it
        )

    def report(self, version: str) -> dict[str, Any]:
        """The release's report, waiting for it if it is still being built."""
        assert self.proc.stdout is not None
        while version not in self.reports:
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                last = self.output[-1] if self.output else "no output"
                self.reports[version] = {"version": version, "error": f"exited {code}: {last}"}
                break
            try:
                found = json.loads(line)
                self.reports[found["version"]] = found
            except (ValueError, KeyError, TypeError):
                self.output.append(line.strip())
        return self.reports[version]

    def python(self, version: str) -> Path:
        """The release's python; raises PeerEnvError with the reason when it could not be
        created."""
        found = self.report(version)
        if "error" in found:
            raise peerenv.PeerEnvError(found["error"])
        return Path(found["python"])

    def finish(self) -> None:
        for version in self.versions:
            self.report(version)
        self.proc.wait()

    def stop(self) -> None:
        """End an unfinished build (an interrupted run); the next run rebuilds what has no
        marker."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait()


_KEY = pytest.StashKey[_Build]()


def _version(item: pytest.Item) -> str | None:
    """The peer environment a test runs in: a nanobot-ai version, or a framework peer's name."""
    mark = item.get_closest_marker(MARKER) or item.get_closest_marker(FRAMEWORK_MARKER)
    return str(mark.args[0]) if mark else None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(version): runs a real nanobot-ai of that release from its peer environment "
        "(created by the test run from bench/locks; tests/support/peers.py)",
    )
    config.addinivalue_line(
        "markers",
        f"{FRAMEWORK_MARKER}(name): runs an adapter's tests on a framework's oldest supported "
        "release, in its peer environment (bench/locks/<name>.lock; tests/support/peers.py)",
    )


@pytest.hookimpl(trylast=True)  # after -k/-m have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _version(item) is not None)  # stable: the peer tests run last


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    versions = list(dict.fromkeys(v for item in session.items if (v := _version(item))))
    if versions:
        session.config.stash[_KEY] = _Build(versions)


def _peer_python(request: pytest.FixtureRequest, marker: str) -> Path:
    mark = request.node.get_closest_marker(marker)
    assert mark is not None, f"mark the module with pytest.mark.{marker}(...)"
    version = str(mark.args[0])
    build = request.config.stash.get(_KEY, None)
    release = peerenv.peer(version)
    try:
        if build is None or version not in build.versions:  # not seen at collection
            return peerenv.ensure(version)
        return build.python(version)
    except peerenv.PeerEnvError as exc:
        unavailable(f"{release.dist} {release.version} peer environment: {exc}")
        raise  # unreachable: unavailable() always raises


@pytest.fixture(scope="module")
def nanobot_peer_python(request: pytest.FixtureRequest) -> Path:
    """The python of the marked release's peer environment (it imports ``nanobot``)."""
    return _peer_python(request, MARKER)


@pytest.fixture(scope="module")
def framework_peer_python(request: pytest.FixtureRequest) -> Path:
    """The python of the marked framework release's peer environment (Reverie's dependencies, the
    framework at that release, pytest; Reverie itself runs from the checkout)."""
    return _peer_python(request, FRAMEWORK_MARKER)


def unavailable(reason: str) -> None:
    """Fail under CI, where a skipped peer test would pass unseen; skip elsewhere. Always raises."""
    line = " ".join(reason.split())
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(line, pytrace=False)
    pytest.skip(line)


def _summary(build: _Build) -> str:
    """What became of each environment; the build must have finished."""
    parts = []
    for version in build.versions:
        found = build.report(version)
        state = "reused" if found.get("reused") else "created"
        if "error" in found:
            state = "unavailable"
        parts.append(f"{version} {state} in {found.get('seconds', 0.0)} s")
    return f"peer environments: {'; '.join(parts)}"


_WORKER_LINES = pytest.StashKey[list[str]]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A pytest-xdist worker, whose terminal nobody sees: finish the build and hand its line to the
    controller (``workeroutput`` goes back with the worker's end)."""
    build = session.config.stash.get(_KEY, None)
    output = getattr(session.config, "workeroutput", None)
    if build is None or output is None or exitstatus == pytest.ExitCode.INTERRUPTED:
        return
    build.finish()
    output["reverie_peers"] = _summary(build)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist's controller: keep a worker's peer-environment line for the summary."""
    line = getattr(node, "workeroutput", {}).get("reverie_peers")
    if line:
        node.config.stash.setdefault(_WORKER_LINES, []).append(line)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    for line in dict.fromkeys(config.stash.get(_WORKER_LINES, [])):  # xdist's controller
        terminalreporter.write_line(line)
    build = config.stash.get(_KEY, None)
    if build is None or exitstatus == pytest.ExitCode.INTERRUPTED:
        return  # interrupted: pytest_unconfigure stops the build
    build.finish()  # a run stopped early (-x) still completes the environments for the next one
    terminalreporter.write_line(_summary(build))


def pytest_unconfigure(config: pytest.Config) -> None:
    build = config.stash.get(_KEY, None)
    if build is not None:
        build.stop()
