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


def test_readme_library_api_example_runs(tmp_path):
    """The README's Library API snippet is real code: run it on a scratch workspace."""
    import re

    from conftest import ROOT

    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Library API", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert '"~/my-agent/workspace"' in code
    namespace: dict = {}
    exec(code.replace('"~/my-agent/workspace"', repr(str(tmp_path / "ws"))), namespace)  # noqa: S102
    store = namespace["store"]
    assert store.read_long_term() == "# Memory\n- The project ships on Friday.\n"
    assert [e.content for e in store.history.read_since(0)] == ["User chose Postgres over SQLite."]
