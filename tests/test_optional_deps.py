"""Optional features name the extra they need instead of failing with an ImportError."""

from __future__ import annotations

import sys

import pytest

from reverie.errors import RecallError


def test_vector_search_without_numpy_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reverie.recall import search

    monkeypatch.setitem(sys.modules, "numpy", None)  # as if the `vectors` extra were not installed
    with pytest.raises(RecallError, match=r"reverie\[vectors\]"):
        search._numpy()


def test_bm25_search_needs_no_numpy(workspace, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from reverie import MemoryStore
    from reverie.recall import Recall

    monkeypatch.setitem(sys.modules, "numpy", None)
    store = MemoryStore(workspace)
    store.append_history("User keeps bees in the garden")
    recall = Recall.for_store(store)
    try:
        assert "bees" in recall.search("bees", 3)[0].snippet
    finally:
        recall.close()


def test_the_mcp_command_needs_only_its_extra() -> None:
    import importlib.metadata as md

    extras = md.metadata("reverie").get_all("Provides-Extra") or []
    assert {"mcp", "vectors", "test"} <= set(extras)
