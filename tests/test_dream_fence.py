"""Dream's write fence (reverie.dream.fence): a stale run writes nothing; a current one commits
as before."""

from __future__ import annotations

import asyncio
import os

import pytest
from support.dream_helpers import MEM, edit, make_env

from reverie.dream.fence import bump_epoch, read_epoch
from reverie.errors import FencedError


def _dream_shas(env) -> list[str]:
    return [c.sha for c in env.git.log(limit=50, kind="dream")]


def test_current_epoch_commits(tmp_path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] fact")
    env.fake.enqueue("[MEMORY] fact", [edit(MEM, "", "- fact\n")], "done")
    dream = env.dream()
    dream.epoch = bump_epoch(env.ws.state_dir)
    assert dream.epoch == 1 == read_epoch(env.ws.state_dir)
    result = asyncio.run(dream.run())
    assert result.status == "ok" and env.store.dream_cursor() == 1 and len(_dream_shas(env)) == 1


def test_epoch_bumped_during_the_run_refuses_the_commit(tmp_path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] fact")
    dream = env.dream()
    dream.epoch = bump_epoch(env.ws.state_dir)

    def taken_over(prompt):  # another worker takes the lease while this one waits for the model
        bump_epoch(env.ws.state_dir)
        return "[MEMORY] fact"

    env.fake.enqueue(taken_over, [edit(MEM, "", "- fact\n")], "done")
    with pytest.raises(FencedError, match="epoch is 2, this run's 1"):
        asyncio.run(dream.run())
    assert env.store.dream_cursor() == 0 and _dream_shas(env) == []
    assert "- fact" not in env.read(MEM)
    assert env.git_cli("status", "--porcelain").strip() == ""


def test_batch_committed_by_another_run_is_not_committed_again(tmp_path):
    """No epoch at all (two single-host runs whose run lock failed them, as on a network file
    system): the expected-batch check alone keeps the batch to one commit."""
    env = make_env(tmp_path / "ws")
    env.add("- [durable] fact")
    stale = env.dream()

    def meanwhile(
        prompt,
    ):  # the other run commits the same batch while this one waits for the model
        env.store.set_dream_cursor(1)
        return "[MEMORY] fact"

    env.fake.enqueue(meanwhile, [edit(MEM, "", "- fact\n")], "done")
    with pytest.raises(FencedError, match="cursor moved from 0 to 1"):
        asyncio.run(stale.run())
    assert _dream_shas(env) == [] and "- fact" not in env.read(MEM)


def test_no_change_cursor_move_is_fenced_too(tmp_path):
    """A stale run that found nothing to change must not move the cursor back over a newer run's
    work."""
    env = make_env(tmp_path / "ws")
    env.add("- a", "- b")
    stale = env.dream()

    def meanwhile(prompt):
        env.store.set_dream_cursor(2)
        return "[SKIP]"

    env.fake.enqueue(meanwhile)
    with pytest.raises(FencedError):
        asyncio.run(stale.run())
    assert env.store.dream_cursor() == 2


def test_lease_check_refuses(tmp_path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] fact")
    env.fake.enqueue("[MEMORY] fact", [edit(MEM, "", "- fact\n")], "done")
    dream = env.dream()
    dream.lease_check = lambda: "the lease has 0.0 s left, under the 1 s margin"
    with pytest.raises(FencedError, match="lease has"):
        asyncio.run(dream.run())
    assert env.store.dream_cursor() == 0 and _dream_shas(env) == []


def test_corrupt_epoch_reads_zero_and_is_bumped_past(tmp_path):
    env = make_env(tmp_path / "ws")
    env.ws.state_dir.mkdir(parents=True, exist_ok=True)
    (env.ws.state_dir / "epoch").write_bytes(b"\xff garbage")
    assert read_epoch(env.ws.state_dir) == 0
    assert bump_epoch(env.ws.state_dir) == 1


def test_operations_holding_the_run_lock_exclude_a_write_section(tmp_path):
    """restore, revert, approve and purge hold ``fence.lock`` with the run lock (Memory writes hold
    ``fence.lock`` alone), so a run whose run lock was lost (a network file system; simulated by
    entering its section directly)
    waits for them."""
    import threading

    from reverie.dream.fence import Fence
    from reverie.dream.lock import dream_run_lock

    env = make_env(tmp_path / "ws")
    fence = Fence(env.store, env.git)
    order: list[str] = []
    entered = threading.Event()

    def stale_writer() -> None:
        entered.set()
        with fence.section():
            order.append("stale write")

    with dream_run_lock(env.ws.state_dir, "restore"):
        thread = threading.Thread(target=stale_writer)
        thread.start()
        entered.wait()
        thread.join(0.3)  # it must still be waiting for fence.lock
        order.append("restore done")
    thread.join()
    assert order == ["restore done", "stale write"]


def _records(env) -> dict[str, bytes | None]:
    """The run's state records as bytes (None: absent)."""
    out: dict[str, bytes | None] = {}
    for name in ("dream-status.json", "dream-attempts.json", "salience.json"):
        path = env.ws.state_dir / name
        out[name] = path.read_bytes() if path.exists() else None
    return out


def test_a_run_that_lost_its_lock_ends_fenced_and_records_nothing(tmp_path):
    """Issue 35: a job whose lock was lost (another worker took over and wrote meanwhile) met an
    edit conflict and ended `failed`, writing the status and attempt records outside the fence, so
    `status` said "last dream failed … 1 failed on the pending batch" with nothing pending. Now the
    failure's bookkeeping is fenced too: the run ends fenced and every record is what the other
    worker left."""
    from reverie.dream.records import Attempts, StatusRecord

    env = make_env(tmp_path / "ws")
    env.add("- [durable] fact")
    stale = env.dream()
    stale.epoch = bump_epoch(env.ws.state_dir)
    before = _records(env)

    def taken_over(prompt):  # the other worker takes the lease and edits USER.md meanwhile
        bump_epoch(env.ws.state_dir)
        (env.ws.root / MEM).write_text("- something else entirely\n")
        return "[MEMORY] fact"

    env.fake.enqueue(taken_over, [edit(MEM, "", "- fact\n")], "done")
    with pytest.raises(FencedError, match="epoch is 2, this run's 1"):
        asyncio.run(stale.run())
    assert _records(env) == before
    assert StatusRecord.load(env.ws.state_dir).last_run is None
    assert Attempts.load(env.ws.state_dir).count == 0


def test_a_fenced_gate_rejection_counts_no_attempt(tmp_path):
    """A stale run whose batch the gate would reject: no attempt counted, no status written."""
    from reverie.dream.deadletter import deadletter_path
    from reverie.dream.records import Attempts

    env = make_env(tmp_path / "ws", max_attempts=1)
    env.add("- [durable] fact")
    stale = env.dream()
    lost: list[str] = []
    stale.lease_check = lambda: lost[0] if lost else None

    def lease_lost(prompt):  # the lease is lost while the model answers
        lost.append("the lease was taken over")
        return "[MEMORY] fact"

    env.fake.enqueue(lease_lost, [edit(MEM, "", "x" * 50_000)], "done")
    with pytest.raises(FencedError, match="taken over"):
        asyncio.run(stale.run())
    assert lost, "the model was asked (the refusal came after it)"
    assert Attempts.load(env.ws.state_dir).count == 0
    assert not deadletter_path(env.ws.memory_dir).exists()
    assert env.store.dream_cursor() == 0


def test_a_run_whose_workspace_was_removed_writes_nothing_and_recreates_nothing(tmp_path):
    """forget-user moves a workspace away while a run waits for the model: the run is refused at
    its first write and no directory of the workspace comes back."""
    import shutil

    env = make_env(tmp_path / "ws")
    env.add("- [durable] fact")
    dream = env.dream()
    aside = tmp_path / "trash"

    def forgotten(prompt):
        shutil.move(env.ws.root, aside)
        return "[MEMORY] fact"

    env.fake.enqueue(forgotten, [edit(MEM, "", "- fact\n")], "done")
    with pytest.raises(FencedError, match="removed"):
        asyncio.run(dream.run())
    assert not env.ws.root.exists()


@pytest.mark.parametrize("link", ["memory/.reverie", "memory"])
def test_a_state_directory_that_is_a_link_is_refused_and_nothing_written_through_it(tmp_path, link):
    """Was: ``memory/.reverie`` (or ``memory``) replaced by a link out of the workspace, the fence
    lock of an edit (``Memory.write``), of an epoch bump and of a fleet job's bookkeeping was
    created wherever the link pointed, and the write went on. Now the state directory is never
    made or locked through a link: `UnsafePathError`, one line, nothing outside."""
    import shutil

    import reverie
    from reverie.dream.fence import section_lock
    from reverie.errors import UnsafePathError

    ws, outside = tmp_path / "ws", tmp_path / "outside"
    with reverie.open(ws) as mem:
        mem.init()
    (ws / "memory" / ".reverie").mkdir(exist_ok=True)
    target = ws / link
    shutil.copytree(target, outside)
    shutil.rmtree(target)
    target.symlink_to(outside)
    before = sorted(p.name for p in outside.rglob("*"))
    with pytest.raises(UnsafePathError, match="symbolic link") as raised:
        bump_epoch(ws / "memory" / ".reverie")
    assert "\n" not in str(raised.value)
    with pytest.raises(UnsafePathError):
        section_lock(ws / "memory" / ".reverie")
    assert sorted(p.name for p in outside.rglob("*")) == before


@pytest.mark.parametrize("link", ["memory/.reverie", "memory"])
def test_the_run_lock_of_a_restore_or_purge_is_not_made_through_a_link(tmp_path, link):
    """Was: the operations that hold Dream's run lock (restore, revert, approve, purge) created
    ``memory/.reverie`` and its ``dream.lock`` through a link out of the workspace. Now they are
    refused as the fence is: `UnsafePathError`, one line, nothing made outside."""
    import shutil

    import reverie
    from reverie.dream.lock import dream_run_lock
    from reverie.errors import UnsafePathError

    ws, outside = tmp_path / "ws", tmp_path / "outside"
    with reverie.open(ws) as mem:
        mem.init()
    (ws / "memory" / ".reverie").mkdir(exist_ok=True)
    target = ws / link
    shutil.copytree(target, outside)
    shutil.rmtree(target)
    if link == "memory":
        shutil.rmtree(outside / ".reverie")  # the run lock would make it again, outside
    else:
        for child in list(outside.iterdir()):
            (shutil.rmtree if child.is_dir() else os.unlink)(child)
    target.symlink_to(outside)
    before = sorted(p.name for p in outside.rglob("*"))
    with pytest.raises(UnsafePathError, match="symbolic link") as raised:
        with dream_run_lock(ws / "memory" / ".reverie", "purge"):
            pass
    assert "\n" not in str(raised.value)
    assert sorted(p.name for p in outside.rglob("*")) == before
