"""The nanobot-ai peer environments for the tests that run a real nanobot (a pytest plugin; conftest loads it).

A test module says which release it runs with ``pytestmark = pytest.mark.nanobot_peer("0.3.5")`` and takes the
``nanobot_peer_python`` fixture. When tests so marked are selected, the environments they need are created by
``bench/peerenv.py`` from the hash-locked files in ``bench/locks`` (into ``bench/.venvs``, ignored by git, reused
while the lock is unchanged) in a background thread from the end of collection, and those tests are moved to the
end of the run: pip's download and install overlap the rest of the suite, and a test waits only if it gets there
first.

When an environment cannot be created, its tests fail with the one-line reason under CI (``CI=true``), where a
skip would hide that they never ran; elsewhere (a developer without access to the package registry) they are
skipped with that reason.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench import peerenv

MARKER = "nanobot_peer"


@dataclass
class _Build:
    """The background creation of the selected releases' environments, one after the other."""

    versions: list[str]
    python: dict[str, Path] = field(default_factory=dict)
    error: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    reused: set[str] = field(default_factory=set)
    done: dict[str, threading.Event] = field(default_factory=dict)
    thread: threading.Thread | None = None

    def start(self) -> None:
        self.done = {v: threading.Event() for v in self.versions}
        self.thread = threading.Thread(target=self._run, name="nanobot-peer-envs", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for version in self.versions:
            t0 = time.monotonic()
            try:
                if peerenv.ready(version):
                    self.reused.add(version)
                self.python[version] = peerenv.ensure(version)
            except (peerenv.PeerEnvError, OSError) as exc:
                self.error[version] = str(exc)
            finally:
                self.seconds[version] = time.monotonic() - t0
                self.done[version].set()

    def wait(self, version: str) -> Path:
        """The release's python; raises PeerEnvError with the reason when it could not be created."""
        self.done[version].wait()
        if version in self.error:
            raise peerenv.PeerEnvError(self.error[version])
        return self.python[version]


_KEY = pytest.StashKey[_Build]()


def _version(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker(MARKER)
    return str(mark.args[0]) if mark else None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(version): runs a real nanobot-ai of that release from its peer environment "
        "(created by the test run from bench/locks; tests/support/peers.py)",
    )


@pytest.hookimpl(trylast=True)  # after -k/-m have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _version(item) is not None)  # stable: the peer tests run last


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    versions = list(dict.fromkeys(v for item in session.items if (v := _version(item))))
    if versions:
        build = _Build(versions)
        session.config.stash[_KEY] = build
        build.start()


@pytest.fixture(scope="module")
def nanobot_peer_python(request: pytest.FixtureRequest) -> Path:
    """The python of the marked release's peer environment (it imports ``nanobot``)."""
    mark = request.node.get_closest_marker(MARKER)
    assert mark is not None, f"mark the module with pytest.mark.{MARKER}(version)"
    version = str(mark.args[0])
    build = request.config.stash.get(_KEY, None)
    if (
        build is None or version not in build.done
    ):  # not selected at collection (cannot happen in a plain run)
        build = _Build([version])
        build.start()
    try:
        return build.wait(version)
    except peerenv.PeerEnvError as exc:
        unavailable(f"nanobot-ai {version} peer environment: {exc}")
        raise  # unreachable: unavailable() always raises


def unavailable(reason: str) -> None:
    """Fail under CI, where a skipped peer test would pass unseen; skip elsewhere. Always raises."""
    line = " ".join(reason.split())
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(line, pytrace=False)
    pytest.skip(line)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    build = config.stash.get(_KEY, None)
    if build is None:
        return
    if build.thread is not None:
        build.thread.join()  # never leave pip half-way through an environment the next run would rebuild
    parts = []
    for version in build.versions:
        state = "reused" if version in build.reused else "created"
        if version in build.error:
            state = "unavailable"
        parts.append(f"{version} {state} in {build.seconds.get(version, 0.0):.1f} s")
    terminalreporter.write_line(f"nanobot-ai peer environments: {'; '.join(parts)}")
