"""Staged SOUL.md changes: the pending file, and approve/reject through a real GitStore."""

from __future__ import annotations

import orjson
import pytest
from support import gitcli

from reverie.dream.proposal import load_proposal, proposal_path, stage_soul_change
from reverie.errors import MergeConflictError, WorkspaceError
from reverie.operations.approve import approve, reject


def test_stage_writes_the_documented_file_and_leaves_soul_alone(store) -> None:  # type: ignore[no-untyped-def]
    base = store.read_soul()
    proposed = base + "\n- Answer in French when the user writes in French.\n"
    change = stage_soul_change(
        store,
        base=base,
        proposed=proposed,
        first_cursor=3,
        last_cursor=9,
        reason="user asked",
        model="m",
    )
    assert store.read_soul() == base
    data = orjson.loads(proposal_path(store).read_bytes())
    assert data["version"] == 1 and data["path"] == "SOUL.md"
    assert data["base"] == base and data["proposed"] == proposed
    assert (data["first_cursor"], data["last_cursor"]) == (3, 9)
    assert load_proposal(store) == change
    assert change.counts() == (2, 0)  # a blank line and the rule
    assert "+- Answer in French" in change.diff()


def test_stage_accepts_a_meta_dict(store) -> None:  # type: ignore[no-untyped-def]
    change = stage_soul_change(
        store.workspace, base="a\n", proposed="b\n", meta={"first": 5, "last": 7, "model": "m"}
    )
    assert (change.first_cursor, change.last_cursor, change.model) == (5, 7, "m")


def test_reject_drops_it(store) -> None:  # type: ignore[no-untyped-def]
    from reverie.gitstore import GitStore

    git = GitStore(store.workspace)
    base = store.read_soul()
    stage_soul_change(store, base=base, proposed=base + "x\n")
    dropped = reject(store, git)
    assert dropped is not None and dropped.change is not None
    assert dropped.change.proposed == base + "x\n"
    assert load_proposal(store) is None
    assert store.read_soul() == base
    assert reject(store, git) is None


def test_a_corrupt_pending_file_is_an_error_not_a_guess_and_reject_clears_it(store) -> None:  # type: ignore[no-untyped-def]
    path = proposal_path(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"version": 1, "base": "a", "proposed": ')
    with pytest.raises(WorkspaceError, match="reverie reject"):
        load_proposal(store)
    from reverie.gitstore import GitStore

    dropped = reject(store, GitStore(store.workspace))
    assert dropped is not None and dropped.change is None  # dropped, and kept as it was
    assert not path.exists()
    kept = store.workspace.state_dir / "rejected" / dropped.kept
    assert kept.read_bytes() == b'{"version": 1, "base": "a", "proposed": '


def test_a_hand_edited_base_is_refused(store) -> None:  # type: ignore[no-untyped-def]
    stage_soul_change(store, base="a\n", proposed="b\n")
    path = proposal_path(store)
    data = orjson.loads(path.read_bytes())
    data["base"] = "something else\n"
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(WorkspaceError, match="base_sha256"):
        load_proposal(store)


def test_approve_with_nothing_pending_is_a_clear_error(store) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WorkspaceError, match="no SOUL.md proposal is waiting"):
        approve(store, object())  # type: ignore[arg-type]


def test_approve_commits_through_gitstore_with_the_approved_trailer(store) -> None:  # type: ignore[no-untyped-def]
    from reverie.gitstore import GitStore

    git = GitStore(store.workspace)
    git.ensure()
    base = store.read_soul()
    proposed = base + "\n- Prefer short answers.\n"
    stage_soul_change(store, base=base, proposed=proposed, first_cursor=1, last_cursor=4)
    result = approve(store, git)
    assert result.commit is not None and not result.merged
    assert store.read_soul() == proposed
    assert load_proposal(store) is None
    info = git.log(limit=1)[0]
    assert info.kind == "dream" and "Reverie-Approved" in info.trailers
    assert info.trailers.get("Reverie-Batch") == "1-4"
    assert "Reverie-Approved:" in gitcli.git(store.workspace.root, "log", "-1", "--format=%B")


def test_approve_merges_over_a_later_edit_or_refuses_a_conflict(store) -> None:  # type: ignore[no-untyped-def]
    from reverie.gitstore import GitStore

    git = GitStore(store.workspace)
    git.ensure()
    base = "# Soul\n\nline one\nline two\nline three\n"
    git.commit("manual: base", kind="manual", files={"SOUL.md": base})
    stage_soul_change(store, base=base, proposed=base + "added by dream\n")
    # The person edits the top meanwhile: the two changes do not overlap, so approve merges them.
    store.write_soul(base.replace("line one", "line ONE"))
    result = approve(store, git)
    assert result.merged
    assert store.read_soul() == base.replace("line one", "line ONE") + "added by dream\n"

    current = store.read_soul()
    stage_soul_change(store, base=current, proposed=current.replace("line two", "line 2 (dream)"))
    store.write_soul(current.replace("line two", "line 2 (person)"))
    with pytest.raises(MergeConflictError, match="changed since Dream proposed"):
        approve(store, git)
    assert store.read_soul() == current.replace("line two", "line 2 (person)")
    assert load_proposal(store) is not None


def test_an_approval_interrupted_after_its_commit_is_finished_by_the_next_approve(store) -> None:  # type: ignore[no-untyped-def]
    from reverie.gitstore import GitStore

    git = GitStore(store.workspace)
    git.ensure()
    base = store.read_soul()
    proposed = base + "- new rule\n"
    stage_soul_change(store, base=base, proposed=proposed)
    git.commit(
        "dream: approved change to SOUL.md", kind="dream", files={"SOUL.md": proposed}
    )  # crash after this
    change = load_proposal(store)
    assert change is not None and change.applied
    head = git.head()
    result = approve(store, git)
    assert result.commit is None and git.head() == head
    assert load_proposal(store) is None


def test_cli_status_shows_it_and_approve_reject_apply_or_drop_it(workspace) -> None:  # type: ignore[no-untyped-def]
    from support.cli import invoke

    from reverie import MemoryStore

    store = MemoryStore(workspace)
    base = store.read_soul()
    stage_soul_change(
        store, base=base, proposed=base + "- Be brief.\n", first_cursor=2, last_cursor=5
    )
    ws = str(workspace.root)
    status = invoke("-w", ws, "status")
    assert status.returncode == 0, status.stderr
    assert "SOUL.md proposal" in status.stdout and "reverie approve" in status.stdout
    as_json = orjson.loads(invoke("-w", ws, "status", "--json").stdout)
    assert as_json["pending_soul"]["added"] == 1 and as_json["pending_soul"]["last_cursor"] == 5
    shown = invoke("-w", ws, "approve", "--show")
    assert "+- Be brief." in shown.stdout
    done = invoke("-w", ws, "approve")
    assert done.returncode == 0, done.stderr
    assert "approved: SOUL.md +1 -0" in done.stdout
    assert store.read_soul() == base + "- Be brief.\n"
    assert "Reverie-Approved:" in gitcli.git(workspace.root, "log", "-1", "--format=%B")
    again = invoke("-w", ws, "approve")
    assert (
        again.returncode == 0 and "no SOUL.md proposal is waiting" in again.stdout
    )  # as `reject` says it

    stage_soul_change(store, base=store.read_soul(), proposed="# replaced\n")
    rejected = invoke("-w", ws, "reject")
    assert rejected.returncode == 0 and "rejected the SOUL.md proposal" in rejected.stdout
    assert store.read_soul() == base + "- Be brief.\n"
    assert "SOUL.md proposal" not in invoke("-w", ws, "status").stdout


def test_chat_commands_show_approve_and_reject(workspace) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from reverie.chat.commands import CommandRouter
    from reverie.memory.runtime import Runtime

    router = CommandRouter(Runtime(workspace))
    store = router.runtime.store
    base = store.read_soul()
    stage_soul_change(store, base=base, proposed=base + "- Use metric units.\n")
    log_reply = asyncio.run(router.handle("/dream-log"))
    assert (
        log_reply is not None
        and "waiting for approval" in log_reply
        and "+- Use metric units." in log_reply
    )
    assert "Approved" in (asyncio.run(router.handle("/dream-approve")) or "")
    assert store.read_soul().endswith("- Use metric units.\n")
    stage_soul_change(store, base=store.read_soul(), proposed="nope\n")
    assert "Dropped" in (asyncio.run(router.handle("/dream-reject")) or "")
    assert "waiting for approval" not in (asyncio.run(router.handle("/dream-log")) or "")
    # with nothing pending, approve answers as reject does (a NothingPendingError, rendered, never a
    # failure)
    assert asyncio.run(router.handle("/dream-approve")) == "No SOUL.md proposal was waiting."
    assert asyncio.run(router.handle("/dream-reject")) == "No SOUL.md proposal was waiting."


def test_nothing_pending_is_its_own_error(store) -> None:  # type: ignore[no-untyped-def]
    from reverie.errors import NothingPendingError

    with pytest.raises(NothingPendingError):
        approve(store, object())  # type: ignore[arg-type]


def test_cli_approve_and_reject_act_only_on_the_proposal_shown(workspace) -> None:  # type: ignore[no-untyped-def]
    """`approve --show` names the proposal; `approve ID` applies that one or nothing: a proposal
    Dream widened after it was shown is refused in one line and left waiting."""
    from support.cli import invoke

    from reverie import MemoryStore

    store = MemoryStore(workspace)
    ws = str(workspace.root)
    base = store.read_soul()
    shown_change = stage_soul_change(store, base=base, proposed=base + "- Be brief.\n")
    shown = invoke("-w", ws, "approve", "--show")
    short = shown_change.id[:12]
    assert f"reverie approve {short}" in shown.stdout
    assert orjson.loads(invoke("-w", ws, "approve", "--show", "--json").stdout)["id"] == (
        shown_change.id
    )
    # Dream widens the proposal after the person looked at it
    widened = stage_soul_change(store, base=base, proposed=base + "- Be brief.\n- Swear a lot.\n")
    refused = invoke("-w", ws, "approve", short)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert widened.id[:12] in refused.stderr and "show it again" in refused.stderr
    assert store.read_soul() == base and load_proposal(store) == widened
    assert invoke("-w", ws, "reject", short).returncode != 0  # nor dropped unseen
    assert load_proposal(store) == widened
    too_short = invoke("-w", ws, "approve", widened.id[:4])
    assert too_short.returncode != 0 and store.read_soul() == base
    done = invoke("-w", ws, "approve", widened.id[:12].upper())
    assert done.returncode == 0, done.stderr
    assert store.read_soul() == base + "- Be brief.\n- Swear a lot.\n"
    nothing = invoke("-w", ws, "approve", widened.id[:12])
    assert nothing.returncode == 0 and "no SOUL.md proposal is waiting" in nothing.stdout


def test_chat_approve_and_reject_take_the_id_dream_log_shows(workspace) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from reverie.chat.commands import CommandRouter
    from reverie.memory.runtime import Runtime

    router = CommandRouter(Runtime(workspace))
    store = router.runtime.store
    base = store.read_soul()
    first = stage_soul_change(store, base=base, proposed=base + "- Use metric units.\n")
    log_reply = asyncio.run(router.handle("/dream-log")) or ""
    assert f"/dream-approve {first.id[:12]}" in log_reply
    widened = stage_soul_change(store, base=base, proposed=base + "- Use imperial units.\n")
    for verb in ("/dream-approve", "/dream-reject"):
        reply = asyncio.run(router.handle(f"{verb} {first.id[:12]}")) or ""
        assert widened.id[:12] in reply and "Nothing was applied or dropped" in reply
    assert store.read_soul() == base and load_proposal(store) == widened
    assert "Dropped" in (asyncio.run(router.handle(f"/dream-reject {widened.id[:12]}")) or "")
    assert load_proposal(store) is None and store.read_soul() == base


@pytest.mark.parametrize("answer", ["y", "n"])
def test_approve_at_a_terminal_shows_the_diff_and_applies_what_it_showed(workspace, answer) -> None:  # type: ignore[no-untyped-def]
    import os
    import sys

    import pexpect
    from conftest import ROOT

    from reverie import MemoryStore

    store = MemoryStore(workspace)
    base = store.read_soul()
    change = stage_soul_change(store, base=base, proposed=base + "- Be brief.\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="dumb", NO_COLOR="1")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "reverie", "-w", str(workspace.root), "approve"],
        env=env,
        encoding="utf-8",
        timeout=30,
    )
    child.expect_exact(f"Apply this SOUL.md change ({change.id[:12]})? [y/N]")
    assert "+- Be brief." in (child.before or "")
    # Dream widens the proposal while the person reads it: a yes applies only what was shown
    stage_soul_change(store, base=base, proposed=base + "- Be brief.\n- Swear a lot.\n")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus != 0  # refused (changed since shown) or declined
    assert store.read_soul() == base and load_proposal(store) is not None


def test_the_first_names_still_answer() -> None:
    """``reverie.dream.pending`` and ``reverie.PendingChange`` were the proposal's names before the
    glossary kept "pending" for history Dream has not read: code written against them still runs."""
    import reverie
    from reverie.dream import pending, proposal

    assert pending.PendingChange is proposal.SoulProposal is reverie.PendingChange
    assert reverie.SoulProposal is proposal.SoulProposal
    assert pending.load_pending is proposal.load_proposal
    assert pending.pending_path is proposal.proposal_path
    assert pending.stage_soul_change is proposal.stage_soul_change
