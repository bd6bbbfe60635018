"""A preview is what will happen: ``dream --dry-run`` on a prompt file over its budget shows the
trim a real run commits first (on its own, before the model is asked), then the run's own change
made from the trimmed files, and writes nothing."""

from __future__ import annotations

import asyncio

from support.dream_helpers import MEM, edit, make_env


def _changed_lines(diff: str) -> set[str]:
    return {ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))}


def test_a_dry_run_over_budget_shows_the_trim_a_real_run_commits_first(tmp_path):
    env = make_env(tmp_path / "ws", token_budget=30_000, max_attempts=1)
    big = "# User\n\n" + "".join(
        f"- Hand-written note {i:05d} on topic {i % 97} with detail\n" for i in range(6200)
    )
    env.ws.write("USER.md", big)
    env.git.commit("hand-grown", kind="manual")
    head = env.git.head()
    env.add("- [durable] Uses Kafka for events")
    for _ in range(2):  # the dry run, then the real run: the same script
        env.fake.enqueue(
            "[MEMORY] Uses Kafka for events", [edit(MEM, "", "- Uses Kafka for events\n")], "done"
        )

    dry = asyncio.run(env.dream().run(dry_run=True))
    assert dry.status == "ok" and dry.dry_run, dry.reason
    assert dry.trim is not None and dry.trim.archived > 0 and dry.trim.commit is None
    assert any("a real run first commits the lifecycle" in w for w in dry.warnings)
    assert dry.diff.startswith(dry.trim.diff) and "+- Uses Kafka for events" in dry.diff
    assert all(len(str(p)) < 60_000 for p in env.fake.prompts)  # the model saw the trimmed file
    assert env.git.head() == head and env.read("USER.md") == big  # nothing written

    real = asyncio.run(env.dream().run())
    assert real.status == "ok" and real.trim is not None and real.trim.commit
    trim_commit = env.git.show(real.trim.commit)
    assert _changed_lines(trim_commit.diff) == _changed_lines(dry.trim.diff)
    assert _changed_lines(env.git.show(real.commit).diff) == _changed_lines(
        dry.diff[len(dry.trim.diff) :]
    )


def test_a_dry_run_within_budget_has_no_trim(tmp_path):
    env = make_env(tmp_path / "ws")
    env.add("- [durable] Uses Kafka for events")
    env.fake.enqueue(
        "[MEMORY] Uses Kafka for events", [edit(MEM, "", "- Uses Kafka for events\n")], "done"
    )
    dry = asyncio.run(env.dream().run(dry_run=True))
    assert dry.status == "ok" and dry.trim is None


def test_a_dry_run_shows_a_soul_change_as_staged_like_the_real_run(tmp_path):
    """Issue 40: the preview listed SOUL.md among the files it would write, while a real run (with
    protectSoul, the default) only stages it for approval. Both now agree, through the CLI too."""
    from support.cli import invoke

    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    said = "User: Please always keep your answers short. I live in Lisbon."
    assert invoke("-w", str(ws), "history", "append", said).returncode == 0
    dry = invoke("-w", str(ws), "dream", "--dry-run")
    assert dry.returncode == 0
    assert "files    USER.md +2 -0" in dry.stdout
    assert "a real run stages this change for approval" in dry.stdout
    assert "+- Keep answers short" in dry.stdout  # the proposal is still shown
    real = invoke("-w", str(ws), "dream")
    assert "files    USER.md +2 -0" in real.stdout and "waiting for approval" in real.stdout
    assert "Keep answers short" not in (ws / "SOUL.md").read_text()
