"""/dream over the real Dream (offline engine, or a scripted model for failures) and `reverie
dream` end to end."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess

import pytest
from support.cli import invoke

from reverie.chat.commands import CommandContext, CommandRouter, dream_cmds
from reverie.dream.lock import RunLock
from reverie.llm.scripted import ScriptedModel, bad_request_error
from reverie.memory.runtime import Runtime
from reverie.storage.config import Config

FACTS = [
    "- [durable] Lives in Porto\n- [durable] Prefers Python for everything",
    "- [durable] Decided: use PostgreSQL for Heron",
]
_counter = itertools.count()


def kinds(rt: Runtime) -> list[str]:
    return [c.kind for c in rt.git.log(limit=50)]


def with_history(rt: Runtime, entries: list[str] = FACTS) -> Runtime:
    for text in entries:
        rt.store.append_history(text, session_key="cli:t")
    return rt


@pytest.fixture
def rt(workspace) -> Runtime:
    return Runtime(workspace)


async def dream_with_notify(rt: Runtime) -> tuple[str, list[str]]:
    router = CommandRouter(rt)
    notes: list[str] = []

    async def notify(text: str) -> None:
        notes.append(text)

    reply = await router.handle("/dream", CommandContext(notify=notify))
    await router.wait_idle(timeout=60)
    return reply, notes


def test_nothing_to_process(rt):
    reply, notes = asyncio.run(dream_with_notify(rt))
    assert reply == "Nothing to process: no history entries are waiting for Dream."
    assert notes == [] and "dream" not in kinds(
        rt
    )  # no repo yet, or only its init commit: nothing dreamed


def test_background_run_reports_when_it_ends(rt, monkeypatch):
    monkeypatch.setattr(dream_cmds, "QUICK_REPLY_SECONDS", 0)
    with_history(rt)
    reply, notes = asyncio.run(dream_with_notify(rt))
    assert reply == "Dreaming over 2 pending entries in the background; I will report when it ends."
    assert len(notes) == 1
    head = rt.git.log(limit=1)[0]
    assert head.kind == "dream"
    assert notes[0].startswith("Dream processed entries 1–2 and changed")
    assert f"`{head.short}`" in notes[0] and "`USER.md` +" in notes[0]
    assert "Lives in Porto" in rt.store.read_user()
    assert rt.store.pending_count() == 0


def test_a_quick_run_is_reported_in_the_reply(rt, monkeypatch):
    monkeypatch.setattr(dream_cmds, "QUICK_REPLY_SECONDS", 120)
    with_history(rt)
    reply, notes = asyncio.run(dream_with_notify(rt))
    assert reply.startswith("Dream processed entries 1–2") and notes == []
    assert f"`/dream-restore {rt.git.log(limit=1)[0].short}`" in reply


def test_dream_while_a_run_is_in_flight_waits_for_it_and_reports_once(rt, monkeypatch):
    monkeypatch.setattr(dream_cmds, "QUICK_REPLY_SECONDS", 0)
    with_history(rt)
    notes: list[str] = []

    async def twice() -> tuple[str, str, str]:
        async def notify(text: str) -> None:
            notes.append(text)

        router = CommandRouter(rt)
        first = await router.handle("/dream", CommandContext(notify=notify))
        second = await router.handle("/dream", CommandContext(notify=notify))
        log = await router.handle("/dream-log")  # right after: it agrees with the reply
        await router.wait_idle(timeout=60)
        return first, second, log

    first, second, log = asyncio.run(twice())
    assert first.startswith("Dreaming over 2 pending entries")
    head = rt.git.log(limit=1)[0]
    assert second.startswith(
        "A Dream run was already in progress; it has ended.\nDream processed entries 1–2"
    )
    assert f"`{head.short}`" in second and head.short in log
    assert notes == []  # the first /dream's background notice is not sent too: one report
    assert kinds(rt).count("dream") == 1


def test_already_running_elsewhere(rt):
    with_history(rt)
    lock = RunLock(rt.workspace.state_dir)  # another process's run, as far as this Dream can tell
    assert lock.try_acquire()
    try:
        reply, _ = asyncio.run(dream_with_notify(rt))
    finally:
        lock.release()
    assert reply.startswith("Dream is already running (a scheduled run or another process)")
    assert "dream" not in kinds(rt) and rt.store.pending_count() == 2


def test_more_pending_than_one_batch(workspace):
    cfg = Config.model_validate({"agents": {"defaults": {"dream": {"maxBatchSize": 1}}}})
    rt = with_history(Runtime(workspace, config=cfg))
    reply, notes = asyncio.run(dream_with_notify(rt))
    text = "\n".join([reply, *notes])
    assert "entry 1" in text and "1 more entry is pending: send `/dream` again." in text


def test_a_failed_run_writes_nothing(workspace):
    fake = ScriptedModel.register(f"dreamfail{next(_counter)}")
    try:
        fake.enqueue(bad_request_error("the model refused"))
        cfg = Config.model_validate({"agents": {"defaults": {"model": fake.model}}})
        rt = with_history(Runtime(workspace, config=cfg))
        reply, notes = asyncio.run(dream_with_notify(rt))
    finally:
        ScriptedModel.unregister(fake.name)
    text = "\n".join([reply, *notes])
    assert "Dream failed on entries 1–2" in text and "Nothing was written" in text
    assert "dream" not in kinds(rt) and rt.store.pending_count() == 2


def test_dream_takes_no_arguments(rt):
    assert asyncio.run(CommandRouter(rt).handle("/dream now")).startswith(
        "`/dream` takes no arguments"
    )


def test_cli_dream_dry_run_then_real(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    for text in FACTS:
        assert invoke("-w", str(ws), "history", "append", text).returncode == 0
    dry = invoke("-w", str(ws), "dream", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert plan["dry_run"] and plan["commit"] is None and "+- Lives in Porto" in plan["diff"]
    assert "Porto" not in (ws / "USER.md").read_text()
    real = invoke("-w", str(ws), "dream", "--all", "--json")
    assert real.returncode == 0, real.stderr
    result = json.loads(real.stdout)
    assert result["status"] == "ok" and result["commit"]
    log = subprocess.run(
        ["git", "-C", str(ws), "log", "-1", "--format=%H"], capture_output=True, text=True
    ).stdout
    assert log.strip() == result["commit"]
    again = invoke("-w", str(ws), "dream")
    assert again.returncode == 0 and "nothing-to-do" in again.stdout
