"""The fleet tests' fixtures, a pytest plugin (``pytest_plugins`` in tests/conftest.py): a real
redis-server of the test's own, and no worker or server process left behind. Kept apart from
``support.fleet``, which Celery workers import (they need no pytest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .fleet import REDIS_SERVER, RedisServer, fleet_env, stop_all

if TYPE_CHECKING:
    from reverie.fleet import Fleet

__all__ = ["needs_redis", "redis_server", "no_process_left", "fleet_for", "plain_root"]

#: A fleet test's mark: skipped, naming what is missing, on a machine without redis-server.
needs_redis = pytest.mark.skipif(
    REDIS_SERVER is None, reason="redis-server is not installed (scripts/system-deps installs it)"
)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
def no_process_left() -> Iterator[None]:
    """Stops every process the test started through ``support.fleet`` (workers, dispatchers)."""
    yield
    stop_all()


def fleet_for(
    root: Path,
    server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    *,
    model: str | None = None,
    drain_seconds: float | None = None,
    **fleet: object,
) -> Fleet:
    """A ``Fleet`` in this process on ``server``, configured through the environment as a
    deployment is: ``fleet_env``'s ``REVERIE_*`` values, Dream's model (``model``) and drain limit
    (``drain_seconds``: fleet_env's 4 s makes a busy job yield its batch) when given, then each
    ``fleet`` key as ``REVERIE_FLEET__<KEY>``."""
    from reverie.fleet import Fleet
    from reverie.storage.config import load_config

    for key, value in fleet_env(root, server).items():
        if key.startswith("REVERIE_"):
            monkeypatch.setenv(key, value)
    if model is not None:
        monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE", model)
    if drain_seconds is not None:
        monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__DREAM__DRAIN_MAX_SECONDS", str(drain_seconds))
    for key, value in fleet.items():
        monkeypatch.setenv(f"REVERIE_FLEET__{key.upper()}", str(value))
    return Fleet(load_config())


def plain_root(root: Path, *names: str) -> None:
    """A plain fleet root holding a workspace with one pending history entry per name."""
    from reverie.storage.config import Config
    from reverie.storage.scopes import write_root_kind
    from reverie.storage.store import WorkspaceStore
    from reverie.storage.workspace import Workspace

    config = Config()
    config.memory.history.fsync = False
    for name in names:
        ws = Workspace(root / name)
        ws.init()
        WorkspaceStore(ws, config=config).append_history(
            f"- [durable] {name} works at Acme", "cli:test"
        )
    write_root_kind(root, "plain")
