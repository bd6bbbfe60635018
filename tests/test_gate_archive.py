"""The gate judges what reaches the git-tracked archive too: a credential given as the reason a line
leaves memory is refused before anything is written or committed (the archive is history ``why``
shows, and git keeps it)."""

from __future__ import annotations

import pytest

import reverie
from reverie.errors import GateError

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0L1m2N3p4Q5r6"
ARCHIVE = "memory/archive/memory.md"


@pytest.fixture
def mem(tmp_path):
    with reverie.open(tmp_path / "ws") as memory:
        memory.write("memory/MEMORY.md", "# Memory\n- Uses the staging server.\n- Uses Postgres.\n")
        yield memory


def test_a_key_in_an_archive_reason_is_refused_and_nothing_is_written(mem):
    before = [c.sha for c in mem.log()]
    with pytest.raises(GateError, match=f"{ARCHIVE} would introduce a credential"):
        mem.remove(
            "memory/MEMORY.md", "uses the staging server", reason=f"rotated, the new key is {KEY}"
        )
    assert [c.sha for c in mem.log()] == before
    assert "staging server" in mem.read("memory/MEMORY.md")
    assert not (mem.workspace.root / ARCHIVE).exists()


def test_a_plain_reason_is_archived(mem):
    """The control: the same removal with a reason free of credentials goes through."""
    removed = mem.remove(
        "memory/MEMORY.md", "uses the staging server", reason="the server was retired"
    )
    assert removed.commit and "the server was retired" in mem.read(ARCHIVE)
