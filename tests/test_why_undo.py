"""``why`` follows a line through the undos that brought it back (restores, reverts, undos of
undos) to the commit that first wrote it, and through that commit's batch to the conversation: the
one provenance implementation (``reverie.gitstore.blame``) that ``reverie why``, ``Memory.why`` and
the UI all use."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import reverie
from reverie.chat.demo import run_demo
from reverie.cli import main
from reverie.storage.workspace import MEMORY_FILES


def _conversations(memory, rel: str, index: int, line: str) -> set[str]:  # type: ignore[no-untyped-def]
    """The conversations (session keys) behind the line at ``rel``:``index + 1``, as ``why``
    finds them."""
    keys: set[str] = set()
    for p in memory.why(line.strip()):
        if p.path != rel or p.line_no != index + 1 or p.cursor_range is None:
            continue
        first, last = p.cursor_range
        keys |= {e.session_key for e in memory.history(since=first - 1, limit=last - first + 1)}
    return keys - {None}


def test_every_line_the_demo_learned_leads_back_to_its_conversation_after_undo_and_redo(
    tmp_path: Path,
) -> None:
    report = asyncio.run(run_demo(tmp_path / "demo"))
    assert report.restore_commit and report.undo_commit  # an undo, then the undo undone
    with reverie.open(tmp_path / "demo") as memory:
        facts = [
            (rel, i, line)
            for rel in MEMORY_FILES
            for i, line in enumerate(memory.read(rel).split("\n"))
            if line.startswith("- ")  # what Dream wrote (the starter text came from no one)
        ]
        assert len(facts) >= 10
        for rel, i, line in facts:
            assert _conversations(memory, rel, i, line) == {"cli:maya"}, (rel, line)
            found = [p for p in memory.why(line) if p.path == rel and p.line_no == i + 1]
            # brought back by the redo, which put memory back as it was before the undo
            assert found[0].kind == "dream" and found[0].via == (report.undo_commit,)


def test_a_revert_and_the_revert_of_it_and_a_restore_between(tmp_path: Path) -> None:
    from tests.support.ui_workspace import seeded

    memory = seeded(tmp_path / "ws")
    try:
        first, second = memory.log(limit=2, kind="dream")[::-1]
        undo = memory.restore(second.sha, only=True).commit  # the batch 4-6 taken back…
        assert undo and "Atlas" not in memory.read("memory/MEMORY.md")
        redo = memory.restore(undo, only=True).commit  # …and the undo undone
        assert redo and "Atlas" in memory.read("memory/MEMORY.md")
        atlas = next(p for p in memory.why("Deadline for Atlas") if p.path == "memory/MEMORY.md")
        assert atlas.sha == second.sha and atlas.cursor_range == (4, 6)
        assert atlas.via == (redo,)  # the redo brought it back from the state before the undo
        again = memory.restore(first.sha).commit  # memory back to before both runs…
        back = memory.restore(again).commit  # …and forward again by undoing that
        alice = next(p for p in memory.why("Name: Alice") if p.path == "USER.md")
        assert alice.sha == first.sha and alice.via == (back,)
        text = memory.read("USER.md").replace("- Works at ACME", "- Works at ACME Robotics")
        edit = memory.write("USER.md", text).commit  # a line changed by hand is the hand's
        acme = next(p for p in memory.why("Works at ACME Robotics") if p.path == "USER.md")
        assert acme.sha == edit and acme.via == ()
    finally:
        memory.close()


def test_the_cli_names_the_undos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = asyncio.run(run_demo(tmp_path / "demo"))
    capsys.readouterr()
    assert main(["-w", str(tmp_path / "demo"), "why", "Lives in Porto", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found[0]["kind"] == "dream" and found[0]["via"] == [report.undo_commit]
    assert main(["-w", str(tmp_path / "demo"), "why", "Lives in Porto"]) == 0
    assert f"brought back by {report.undo_commit[:8]}" in capsys.readouterr().out.replace("\n", "")


def test_the_ui_shows_the_conversation_behind_a_line_brought_back(tmp_path: Path) -> None:
    from support.ui_app import signed_in

    from tests.support.ui_workspace import seeded

    memory = seeded(tmp_path / "ws")
    try:
        second = memory.log(limit=1, kind="dream")[0]
        undo = memory.restore(second.sha, only=True).commit
        assert undo
        redo = memory.restore(undo, only=True).commit
        assert redo
        rows = memory.read("memory/MEMORY.md").split("\n")
        index = next(i for i, r in enumerate(rows) if "Atlas" in r)
        with signed_in(memory, "w" * 30, "w" * 22) as c:
            html = c.get(
                "/memory/why",
                params={"path": "memory/MEMORY.md", "line": str(index), "text": rows[index]},
            ).text
        assert second.short in html and f"/commit/{redo}" in html and "4–6" in html
        assert "[durable] Deadline for Atlas: 14 March" in html  # the batch behind it
    finally:
        memory.close()
