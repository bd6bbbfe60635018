"""/dream-log and /dream-restore over a real memory repo (checked with the git CLI where it
matters)."""

from __future__ import annotations

import subprocess
from asyncio import run

import pytest

from reverie.chat.commands import CommandRouter
from reverie.gitstore.trailers import BATCH, CURSOR
from reverie.memory.runtime import Runtime


@pytest.fixture
def rt(workspace) -> Runtime:
    return Runtime(workspace)


@pytest.fixture
def router(rt) -> CommandRouter:
    return CommandRouter(rt)


def dream_commit(rt: Runtime, user: str, first: int, last: int) -> str:
    """A commit exactly as Dream makes one: staged files plus its batch/cursor trailers."""
    sha = rt.git.commit(
        f"dream: entries {first}-{last}",
        kind="dream",
        trailers={BATCH: f"{first}-{last}", CURSOR: str(last)},
        files={"USER.md": user},
    )
    assert sha
    return sha


def git_cli(rt: Runtime, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(rt.workspace.root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_dream_log_before_any_dream(router):
    assert run(router.handle("/dream-log")) == "Dream has not run yet."


def test_dream_log_shows_the_latest_dream_change(rt, router):
    dream_commit(rt, "# User\n- Lives in Lisbon\n", 1, 4)
    sha = dream_commit(rt, "# User\n- Lives in Porto\n", 5, 9)
    rt.git.commit(
        "manual edit", kind="manual", files={"memory/MEMORY.md": "# Memory\n- unrelated\n"}
    )
    reply = run(router.handle("/dream-log"))
    short = sha[:8]
    assert f"`{short}`" in reply
    assert "`USER.md` +1 -1" in reply
    assert "-- Lives in Lisbon" in reply and "+- Lives in Porto" in reply
    assert "```diff" in reply
    assert reply.rstrip().endswith(f"`/dream-restore {short}`")


def test_dream_log_with_a_sha_shows_any_commit(rt, router):
    dream_commit(rt, "# User\n- Lives in Lisbon\n", 1, 4)
    init = rt.git.log(limit=50)[-1]
    assert init.kind == "init"
    reply = run(router.handle(f"/dream-log {init.short[:6]}"))
    assert f"**init** `{init.short}`" in reply
    assert "/dream-restore" not in reply  # there is nothing before the first commit to restore to


def test_dream_log_errors(router, rt):
    dream_commit(rt, "# User\n- x\n", 1, 1)
    assert "at most one sha" in run(router.handle("/dream-log a b"))
    reply = run(router.handle("/dream-log deadbeef"))
    assert reply.startswith("`/dream-log` failed:")


def test_dream_restore_lists_versions(rt, router):
    dream_commit(rt, "# User\n- Lives in Lisbon\n", 1, 4)
    reply = run(router.handle("/dream-restore"))
    rows = [l for l in reply.splitlines() if l.startswith("| `")]
    assert [r.split("|")[3].strip() for r in rows] == ["dream", "init"]
    assert "/dream-restore <sha>" in reply


def test_dream_restore_then_undo(rt, router):
    before = rt.store.read_user()
    sha = dream_commit(rt, "# User\n- Lives in Lisbon\n", 1, 4)
    reply = run(router.handle(f"/dream-restore {sha[:8]}"))
    assert rt.store.read_user() == before
    head = rt.git.log(limit=1)[0]
    assert head.kind == "restore"
    assert f"as `{head.short}`" in reply and f"Undo with `/dream-restore {head.short}`" in reply
    assert "`USER.md`" in reply
    assert rt.store.dream_cursor() == 0  # restore never rewinds the cursor by default
    run(router.handle(f"/dream-restore {head.short}"))
    assert rt.store.read_user() == "# User\n- Lives in Lisbon\n"
    assert git_cli(rt, "log", "--format=%(trailers:key=Reverie-Kind,valueonly)").split() == [
        "restore",
        "restore",
        "dream",
        "init",
    ]


def test_dream_restore_only_keeps_later_changes(rt, router):
    first = dream_commit(rt, "# User\n- Lives in Lisbon\n- Likes tea\n", 1, 4)
    rt.git.commit(
        "dream: entries 5-6",
        kind="dream",
        trailers={BATCH: "5-6", CURSOR: "6"},
        files={"memory/MEMORY.md": "# Memory\n- Heron uses PostgreSQL\n"},
    )
    reply = run(router.handle(f"/dream-restore {first[:8]} --only"))
    assert reply.startswith("Reverted")
    assert "Lives in Lisbon" not in rt.store.read_user()
    assert "Heron uses PostgreSQL" in rt.store.read_long_term()
    assert rt.git.log(limit=1)[0].kind == "revert"


def test_dream_restore_replay_rewinds_the_cursor(rt, router):
    sha = dream_commit(rt, "# User\n- Lives in Lisbon\n", 5, 9)
    rt.store.set_dream_cursor(9)
    reply = run(router.handle(f"/dream-restore {sha[:8]} --replay"))
    assert rt.store.dream_cursor() == 4
    assert "cursor rewound to 4" in reply


def test_dream_restore_option_errors(router):
    assert run(router.handle("/dream-restore --only")).startswith(
        "`--only` and `--replay` need a sha."
    )
    reply = run(router.handle("/dream-restore abcd --force"))
    assert (
        "Unknown option `--force`" in reply
        and "Usage: `/dream-restore [sha] [--only] [--replay]`" in reply
    )
    assert "one sha" in run(router.handle("/dream-restore abcd ef01"))


def test_dream_log_shows_a_pending_soul_change(rt, router):
    from reverie.dream.pending import stage_soul_change

    dream_commit(rt, "# User\n- Lives in Lisbon\n", 1, 4)
    base = rt.store.read_soul()
    stage_soul_change(
        rt.store,
        base=base,
        proposed=base + "- Always answer in British English\n",
        first_cursor=1,
        last_cursor=4,
        reason="the user asked for it",
    )
    reply = run(router.handle("/dream-log"))
    assert "**Proposed** `SOUL.md` change (+1 -0)" in reply
    assert "+- Always answer in British English" in reply
    assert "the user asked for it" in reply
    assert "Always answer" not in rt.store.read_soul()
