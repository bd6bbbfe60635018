"""The library verbs the UI added: a log read page by page (``start``), a restore/revert preview
that is exactly what the operation then writes, and Dream's next scheduled run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import reverie
from reverie.errors import GitStoreError, MergeConflictError


@pytest.fixture
def memory(workspace):
    m = reverie.open(workspace.root)
    m.runtime.git.ensure()  # the init commit: the starter files
    yield m
    m.close()


def _edit(memory, rel: str, text: str) -> str:
    """Write the starter file with ``text``'s lines after its heading in place of the heading (the
    gate refuses a hand edit that drops most of a file)."""
    starter = memory.runtime.git.file_at(memory.log(limit=1, kind="init")[0].sha, rel) or ""
    result = memory.write(rel, starter.rstrip("\n") + "\n" + text.split("\n", 1)[1])
    assert result.commit
    return result.commit


def test_log_pages_join_up_without_gaps_or_repeats(memory) -> None:
    for n in range(7):
        _edit(memory, "USER.md", f"# User\n- fact {n}\n")
    everything = [c.sha for c in memory.log(limit=100)]
    pages, start = [], None
    while True:
        page = memory.log(
            limit=3 + 1, start=start
        )  # one more than shown: its sha starts the next page
        pages.extend(c.sha for c in page[:3])
        if len(page) <= 3:
            break
        start = page[3].sha
    assert pages == everything and len(everything) >= 8
    assert [c.kind for c in memory.log(limit=2, start=everything[-1])] == [
        "init"
    ]  # the oldest: one left
    assert memory.log(limit=5, kind="manual", start=everything[2])[0].sha == everything[2]


def test_preview_is_the_diff_the_restore_then_commits(memory, workspace) -> None:
    first = _edit(memory, "USER.md", "# User\n- Lives in Paris\n")
    _edit(memory, "USER.md", "# User\n- Lives in Paris\n- Works at ACME\n")
    preview = memory.preview_restore(first)
    assert (
        "\n-- Lives in Paris\n" in preview and "\n-- Works at ACME\n" in preview
    )  # back to the starter file
    starter = memory.runtime.git.file_at(memory.log(limit=1, kind="init")[0].sha, "USER.md")
    before = memory.log(limit=1)[0].sha
    result = memory.restore(first)
    assert (workspace.root / "USER.md").read_text() == starter
    committed = memory.runtime.git.diff(before, result.commit)
    assert (
        "".join(ln for ln in committed.splitlines(keepends=True) if not ln.startswith("index "))
        == preview
    )


def test_preview_of_a_revert_keeps_later_changes_and_writes_nothing(memory, workspace) -> None:
    _edit(memory, "USER.md", "# User\n- Lives in Paris\n")
    target = _edit(memory, "USER.md", "# User\n- Lives in Paris\n- Works at ACME\n")
    _edit(memory, "memory/MEMORY.md", "# Memory\n- Atlas ships Friday\n")
    head = memory.log(limit=1)[0].sha
    preview = memory.preview_restore(target, only=True)
    assert "\n-- Works at ACME\n" in preview and "MEMORY.md" not in preview
    assert memory.log(limit=1)[0].sha == head and "ACME" in (workspace.root / "USER.md").read_text()
    memory.restore(target, only=True)
    assert "ACME" not in (workspace.root / "USER.md").read_text()
    assert "Atlas" in (workspace.root / "memory/MEMORY.md").read_text()


def test_preview_raises_what_the_operation_would(memory) -> None:
    _edit(memory, "USER.md", "# User\n- Lives in Paris\n")
    target = _edit(memory, "USER.md", "# User\n- Lives in Berlin\n")
    _edit(memory, "USER.md", "# User\n- Lives in Rome\n")
    with pytest.raises(MergeConflictError):
        memory.preview_restore(target, only=True)
    oldest = memory.log(limit=100)[-1].sha
    with pytest.raises(GitStoreError, match="first commit"):
        memory.preview_restore(oldest)


def test_next_dream_counts_from_the_last_completed_run(memory) -> None:
    now = datetime.now(UTC)
    assert abs(memory.next_dream() - now) < timedelta(minutes=1)  # never ran: due now
    memory.remember("- [durable] Lives in Berlin")
    assert memory.dream().status == "ok"
    due = memory.next_dream()
    hours = memory.config.dream.interval_h
    assert (
        timedelta(hours=hours) - timedelta(minutes=1)
        < due - now
        < timedelta(hours=hours) + timedelta(minutes=1)
    )


def test_session_is_the_conversation_a_search_hit_names(memory) -> None:
    sessions = memory.runtime.sessions
    talk = sessions.get_or_create("telegram:alice")
    sessions.append(talk, {"role": "user", "content": "I adopted a cat called Miso"})
    sessions.append(talk, {"role": "assistant", "content": "Lovely name!"})
    hit = memory.recall("Miso", kinds=["session"])[0]
    found = memory.session(hit.source.session_key)
    assert (
        found is not None
        and found.messages[hit.source.message_index]["content"] == "I adopted a cat called Miso"
    )
    assert memory.session("nobody:here") is None
