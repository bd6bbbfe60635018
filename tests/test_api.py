"""The curated public API: every name in ``reverie.__all__`` resolves, and the main ones are
there."""

from __future__ import annotations

import reverie
from reverie.errors import ReverieError


def test_all_names_resolve_and_are_unique():
    assert len(reverie.__all__) == len(set(reverie.__all__))
    for name in reverie.__all__:
        assert getattr(reverie, name) is not None, name


def test_core_names_are_public():
    assert {
        "open",
        "Memory",
        "MemoryStore",
        "Workspace",
        "Config",
        "load_config",
        "ReverieError",
        "ConfigError",
        "CursorError",
    } <= set(reverie.__all__)


def test_there_is_one_memory_store():
    """One class is called MemoryStore (the store proper is WorkspaceStore; nanobot's names are a
    mixin)."""
    import reverie.storage.store
    from reverie.compat.nanobot_api import NanobotStoreAPI

    assert not hasattr(reverie.storage.store, "MemoryStore")
    assert issubclass(reverie.MemoryStore, reverie.storage.store.WorkspaceStore)
    assert issubclass(reverie.MemoryStore, NanobotStoreAPI)


def test_every_public_exception_is_a_reverie_error():
    for name in reverie.__all__:
        obj = getattr(reverie, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, ReverieError), name


def test_version_is_a_string():
    assert isinstance(reverie.__version__, str) and reverie.__version__


def test_api_page_memory_store_example_runs(tmp_path):
    """docs/api-names.md's MemoryStore snippet (nanobot's names) is real code: run it on a scratch
    workspace."""
    import re

    from conftest import ROOT

    page = (ROOT / "docs" / "api-names.md").read_text("utf-8")
    section = page.split("## MemoryStore", 1)[1]
    code = next(c for c in re.findall(r"```python\n(.*?)```", section, re.S) if "MemoryStore" in c)
    assert '"~/my-agent/workspace"' in code
    namespace: dict = {}
    exec(code.replace('"~/my-agent/workspace"', repr(str(tmp_path / "ws"))), namespace)  # noqa: S102
    store = namespace["store"]
    assert store.read_long_term() == "# Memory\n- The project ships on Friday.\n"
    assert [e.content for e in store.history.read_since(0)] == ["User chose Postgres over SQLite."]


def _documented_names() -> list[str]:
    """The names docs/api-names.md's *Public names* section and docs/errors.md's tree list (the
    backticked names before each bullet's dash)."""
    import re

    from conftest import ROOT

    page = (ROOT / "docs" / "api-names.md").read_text("utf-8")
    section = page.split("## Public names", 1)[1].split("\n## ", 1)[0]
    errors = (ROOT / "docs" / "errors.md").read_text("utf-8")
    section += errors.split("## The exception tree", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for line in section.splitlines():
        if line.lstrip().startswith("- "):
            names += re.findall(r"`(\w+)`", line.lstrip()[2:].split(" — ", 1)[0])
    return names


def test_docs_api_draws_the_exception_tree_as_it_is():
    """Each error in docs/errors.md's tree is nested under its base class (issue 40: the page
    promised
    a tree and showed a flat list)."""
    import re

    from conftest import ROOT

    page = (ROOT / "docs" / "errors.md").read_text("utf-8")
    section = page.split("## The exception tree", 1)[1].split("\n## ", 1)[0]
    parents: dict[int, str] = {}
    drawn = 0
    for line in section.splitlines():
        m = re.match(r"^( *)- `(\w+Error)`", line)
        if not m:
            continue
        depth = len(m.group(1)) // 2
        parents[depth] = m.group(2)
        cls = getattr(reverie, m.group(2))
        if depth == 0:
            assert cls is reverie.ReverieError
        else:
            assert cls.__bases__ == (getattr(reverie, parents[depth - 1]),), m.group(2)
        drawn += 1
    errors = {n for n in reverie.__all__ if isinstance(getattr(reverie, n), type)}
    errors = {n for n in errors if issubclass(getattr(reverie, n), reverie.ReverieError)}
    assert drawn == len(errors)


def test_docs_api_lists_exactly_all():
    documented = _documented_names()
    assert len(documented) == len(set(documented)), "a name is listed twice"
    assert set(documented) == set(reverie.__all__), (
        f"missing from docs/api-names.md: {sorted(set(reverie.__all__) - set(documented))}; "
        f"not in __all__: {sorted(set(documented) - set(reverie.__all__))}"
    )


def test_docs_api_names_no_private_deep_paths():
    """The API pages point at public names, never at a module path inside a package
    (``reverie.a.b.c``)."""
    import re

    from conftest import ROOT

    page = "".join(
        (ROOT / "docs" / name).read_text("utf-8")
        for name in ("api.md", "api-names.md", "errors.md")
    )
    deep = re.findall(r"reverie(?:\.\w+){3,}", page)
    assert not deep, deep
    for module, name in re.findall(r"reverie\.(\w+)\.(\w+)", page):
        assert not module.startswith("_") and not name.startswith("_"), (module, name)
