"""The curated public API: every name in ``reverie.__all__`` resolves, and the main ones are there."""

from __future__ import annotations

import reverie
from reverie.errors import ReverieError


def test_all_names_resolve_and_are_unique():
    assert len(reverie.__all__) == len(set(reverie.__all__))
    for name in reverie.__all__:
        assert getattr(reverie, name) is not None, name


def test_core_names_are_public():
    assert {"MemoryStore", "Workspace", "Config", "load_config", "ReverieError", "ConfigError", "CursorError"} <= set(
        reverie.__all__
    )


def test_every_public_exception_is_a_reverie_error():
    for name in reverie.__all__:
        obj = getattr(reverie, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, ReverieError), name


def test_version_is_a_string():
    assert isinstance(reverie.__version__, str) and reverie.__version__
