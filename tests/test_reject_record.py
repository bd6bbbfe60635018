"""Reject is recorded and can be undone: the proposal is kept (``memory/.reverie/rejected/``), a
``reject`` commit in memory's log says so (its body the proposal's diff), undoing that commit puts
the proposal back on Review, and undoing the undo rejects it again — from the library, the CLI and
the UI alike."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.ui_app import signed_in

from reverie.cli import main
from reverie.errors import WorkspaceError
from tests.support.ui_workspace import seeded


@pytest.fixture
def memory(tmp_path: Path):  # type: ignore[no-untyped-def]
    m = seeded(tmp_path / "ws")
    yield m
    m.close()


def test_a_rejection_is_kept_recorded_and_undone(memory) -> None:
    proposal = memory.pending_soul()
    assert proposal is not None
    soul, head = memory.read("SOUL.md"), memory.log(limit=1)[0].sha
    dropped = memory.reject()
    assert dropped is not None and dropped.change == proposal and dropped.commit
    assert memory.pending_soul() is None and memory.read("SOUL.md") == soul
    record = memory.log(limit=1)[0]
    assert record.sha == dropped.commit and record.kind == "reject" and record.files == []
    assert memory.log(limit=2)[1].sha == head  # one commit, on top; the files unchanged
    assert "\n+- Reply in British English\n" in record.message  # the proposal's diff, in the log
    kept = memory.workspace.state_dir / "rejected" / dropped.kept
    assert json.loads(kept.read_bytes())["proposed"] == proposal.proposed
    assert memory.log(limit=5, kind="reject")[0].sha == record.sha
    back = memory.restore(record.sha, only=True)  # the Timeline's "undo just this change"
    assert memory.pending_soul() == proposal and not kept.exists()
    undo = memory.log(limit=1)[0]
    assert undo.sha == back.commit and undo.kind == "revert"
    assert undo.trailers["Reverie-Revert-Of"] == record.sha
    again = memory.restore(undo.sha, only=True)  # undoing the undo rejects it again
    assert memory.pending_soul() is None and memory.log(limit=1)[0].kind == "reject"
    assert again.commit == memory.log(limit=1)[0].sha


def test_purge_reaches_a_kept_proposal(memory) -> None:
    dropped = memory.reject()
    assert dropped is not None
    kept = memory.workspace.state_dir / "rejected" / dropped.kept
    assert b"British English" in kept.read_bytes()
    memory.purge("British English")
    assert b"British English" not in kept.read_bytes()
    assert all("British English" not in c.message for c in memory.log(limit=50))


def test_an_unreadable_proposal_is_rejected_and_kept_as_it_was(memory) -> None:
    path = memory.workspace.state_dir / "pending-soul.json"
    path.write_bytes(b"{not json \xff")
    dropped = memory.reject()
    assert dropped is not None and dropped.change is None and not path.exists()
    kept = memory.workspace.state_dir / "rejected" / dropped.kept
    assert kept.read_bytes() == b"{not json \xff"
    assert "unreadable" in memory.log(limit=1)[0].subject
    memory.restore(dropped.commit, only=True)
    assert path.read_bytes() == b"{not json \xff"  # back exactly as it was


def test_an_undo_is_refused_while_another_proposal_waits(memory) -> None:
    first = memory.reject()
    assert first is not None
    from reverie.dream.pending import stage_soul_change

    stage_soul_change(memory.workspace, base=memory.read("SOUL.md"), proposed="# Soul\n- new\n")
    with pytest.raises(WorkspaceError, match="another SOUL.md change waits"):
        memory.restore(first.commit, only=True)
    assert memory.pending_soul().proposed == "# Soul\n- new\n"


def test_the_cli_says_how_to_undo_it(memory, capsys: pytest.CaptureFixture[str]) -> None:
    ws = str(memory.workspace.root)
    assert main(["-w", ws, "reject", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dropped"] and out["commit"] and out["kept"].endswith(".json")
    assert main(["-w", ws, "restore", out["commit"][:8], "--only"]) == 0
    capsys.readouterr()
    assert main(["-w", ws, "reject"]) == 0
    assert "reverie restore" in capsys.readouterr().out


def test_the_ui_rejects_shows_the_proposal_and_puts_it_back(memory) -> None:
    with signed_in(memory, "r" * 30, "r" * 22) as c:

        def csrf(page: str) -> str:
            found = re.search(r'name="csrf" value="([^"]+)"', c.get(page).text)
            assert found
            return found.group(1)

        c.post("/review/reject", data={"csrf": csrf("/review")})
        sha = memory.log(limit=1)[0].sha
        review = c.get("/review").text
        assert "Rejected proposals" in review and sha[:8] in review
        page = c.get(f"/commit/{sha}").text
        assert "The proposal it rejected" in page and "Reply in British English" in page
        assert "Put this proposal back on Review" in page
        assert "reject" in c.get("/timeline?kind=reject").text
        confirm = c.get(f"/commit/{sha}/confirm?action=revert").text
        assert "goes back on Review" in confirm and 'id="confirm"' in confirm
        base = re.search(r'name="base" value="([0-9a-f]{40})"', confirm)
        assert base  # the state the confirmation previewed
        r = c.post(
            f"/commit/{sha}/restore",
            data={"csrf": csrf("/review"), "action": "revert", "base": base.group(1)},
        )
        assert r.status_code == 303
        assert memory.pending_soul() is not None
        assert 'id="soul-badge"' in c.get("/memory").text


def test_a_crash_between_the_record_and_the_move_loses_nothing(memory, monkeypatch) -> None:
    """Reject records first, then moves the file: killed in between, the proposal is still pending
    (and the log says rejected); rejecting it again finishes the job. The undo the same way
    round."""
    from reverie.operations import approve

    proposal = memory.pending_soul()
    real = approve._move

    def crash(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(approve, "_move", crash)
    with pytest.raises(KeyboardInterrupt):
        memory.reject()
    monkeypatch.setattr(approve, "_move", real)
    assert memory.pending_soul() == proposal and memory.log(limit=1)[0].kind == "reject"
    done = memory.reject()
    assert done is not None and done.change == proposal and memory.pending_soul() is None
    monkeypatch.setattr(approve, "_move", crash)
    with pytest.raises(KeyboardInterrupt):
        memory.restore(done.commit, only=True)
    monkeypatch.setattr(approve, "_move", real)
    assert memory.pending_soul() is None  # still kept, not lost
    memory.restore(done.commit, only=True)
    assert memory.pending_soul() == proposal
