"""Proof under load: a real ASGI app (Starlette under uvicorn, on 127.0.0.1) serves one ``Memory``
to synchronous endpoints (Starlette's thread pool) and asynchronous ones (the ``a…`` verbs) at once,
64 concurrent clients for a while, as a CLI ``reverie dream`` runs in a loop beside it and a second
process appends to history (``tests/support/embedded.py``).

Goals checked: no crash (the server stops cleanly), no error and no "busy" answer, every
acknowledged history entry (the app's and the other process's), appended line and recorded message
present exactly once, every tracked file committed, ``git fsck --strict`` clean.

The suite runs it for 6 seconds; the issue's long runs (20 runs of 60 s) are
``python -m bench.embedded stress --runs 20 --seconds 60``, recorded in BENCHMARKS.md ("embedded").
"""

from __future__ import annotations

import pytest
from support import embedded

pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

SECONDS = 6.0


def test_one_memory_in_a_web_app_under_load(tmp_path):
    root = tmp_path / "ws"
    embedded.prepare(root)
    report = embedded.run(root, SECONDS)
    assert report["error_count"] == 0, report["errors"]
    assert report["busy"] == 0
    assert report["problems"] == [], report["problems"]
    acked = report["acknowledged"]
    assert acked["remember"] and acked["append"] and acked["record"] and acked["side"], report
    assert sum(report["dream_runs"].values()) >= 1, report
    assert report["dream_runs"].get("ok", 0) >= 1, (
        report
    )  # the CLI's Dream committed beside the load
    assert set(report["by_route"]) == {route for route, _weight in embedded.ROUTES}, report
