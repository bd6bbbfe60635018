"""Google ADK's delete against a concurrent writer (hostile report, adapt4 item 2): the check that
no other memory shares a history text and the purge are one step under the workspace's writer locks
(``Memory.purge``'s ``check``), so a copy of the text that another thread or process makes part of
another memory is never erased with the deleted one. Real threads and a real process, through
ADK's own types."""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from support import sdk

import reverie

# The framework is imported when this file's tests run, not when the suite is collected
# (support/sdk.py).
MemoryEntry: Any = None
types: Any = None
google_adk: Any = None
ReverieMemoryService: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    sdk.load(
        globals(),
        "google.adk",
        "Google ADK (reverie[google-adk]) is not installed",
        {
            "MemoryEntry": "google.adk.memory.memory_entry:MemoryEntry",
            "types": "google.genai.types",
            "google_adk": "reverie.integrations.google_adk",
            "ReverieMemoryService": "reverie.integrations.google_adk:ReverieMemoryService",
        },
    )


TEXT = "Bob keeps the spare key under the blue pot"
OTHER = f"Eve said: {TEXT}, and so does she"


def _entry(text: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]))


def _service(tmp_path: Path) -> ReverieMemoryService:
    service = ReverieMemoryService(tmp_path / "adk")
    asyncio.run(service.add_memory(app_name="app", user_id="u1", memories=[_entry(TEXT)]))
    return service


def _checks(monkeypatch: pytest.MonkeyPatch, on_call: dict[int, Any]) -> list[int]:
    """Wrap the adapter's check: ``on_call[n]`` runs right after its n-th call (1-based)."""
    calls: list[int] = []
    original = google_adk._only_copies

    def wrapped(*args: Any) -> None:
        original(*args)
        calls.append(len(calls) + 1)
        action = on_call.get(len(calls))
        if action is not None:
            action()

    monkeypatch.setattr(google_adk, "_only_copies", wrapped)
    return calls


def _history(service: ReverieMemoryService) -> list[str]:
    with service.open("app", "u1") as memory:
        return [e.content for e in memory.history()]


def test_a_copy_appended_after_the_first_check_stops_the_delete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread (its own ``Memory`` on the same workspace) makes the text part of another
    memory between the check and the purge: the delete is refused, that memory is whole."""
    service = _service(tmp_path)
    workspace = service.open("app", "u1").workspace.root

    def append_elsewhere() -> None:
        def write() -> None:
            with reverie.open(workspace) as other:
                other.remember(OTHER)

        writer = threading.Thread(target=write)
        writer.start()
        writer.join(30)
        assert not writer.is_alive()

    _checks(monkeypatch, {1: append_elsewhere})
    with pytest.raises(ValueError, match="also part of another memory"):
        asyncio.run(service.delete_memory(app_name="app", user_id="u1", memory_id="h1"))
    assert _history(service) == [TEXT, OTHER]


def test_a_writer_waits_while_the_purge_holds_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that appends the same text while the checked purge runs waits for the history
    lock (flock) and lands after it: the deleted memory is gone, the new one is whole."""
    service = _service(tmp_path)
    workspace = service.open("app", "u1").workspace.root
    script = (
        "import sys, reverie\n"
        f"memory = reverie.open({str(workspace)!r})\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
        f"memory.remember({OTHER!r})\n"
        "print('done', flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    waited: list[bool] = []

    def go_while_held() -> None:
        proc.stdin.write("go\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        waited.append(not ready)  # still waiting for the lock a second later

    try:
        calls = _checks(monkeypatch, {2: go_while_held})
        asyncio.run(service.delete_memory(app_name="app", user_id="u1", memory_id="h1"))
        assert proc.stdout.readline().strip() == "done"
    finally:
        proc.kill()
        proc.wait(30)
    assert calls == [1, 2] and waited == [True]
    assert _history(service) == ["[REDACTED:purged]", OTHER]


def test_an_entry_that_cannot_be_stored_keeps_no_other_out(tmp_path: Path) -> None:
    """``add_memory`` with one entry Reverie refuses (an ESC, a lone surrogate): the others are
    stored, then one ``ValueError`` names each refused entry and why."""
    service = ReverieMemoryService(tmp_path / "adk")
    texts = ["Bob likes tea", "bad \x1b[8m one", "Bob lives in Oslo", "x\ud800y"]
    with pytest.raises(ValueError) as refused:
        asyncio.run(
            service.add_memory(app_name="app", user_id="u1", memories=[_entry(t) for t in texts])
        )
    said = str(refused.value)
    assert said.startswith("2 of 4 memories not stored (memory 2: ") and "\n" not in said, said
    assert "U+001B" in said and "memory 4: " in said and said.endswith("the others were")
    assert _history(service) == ["Bob likes tea", "Bob lives in Oslo"]
