"""The fleet tests' fixtures, a pytest plugin (``pytest_plugins`` in tests/conftest.py): a real
redis-server of the test's own, and no worker or server process left behind. Kept apart from
``support.fleet``, which Celery workers import (they need no pytest)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fleet import REDIS_SERVER, RedisServer, stop_all

__all__ = ["needs_redis", "redis_server", "no_process_left"]

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
