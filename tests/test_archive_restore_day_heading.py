"""A restore's three-way merge that keeps an archive file's later entries (a run committed after the
one undone appended them) drops the file's opening with the undone run's lines: the ``# Archive:``
header and the ``## <day>`` heading the kept entries sat under. The repair (race7) put the header
back but not the day heading, so the kept entries stayed under no day. The repair now puts back
both, in its own commit, and ``why`` on a kept entry still finds the run that archived it."""

from __future__ import annotations

import re

from test_archive_repair_committed import ARCHIVE, _three_runs


def test_the_day_heading_of_entries_a_restore_kept_is_put_back(tmp_path):
    memory, second, head = _three_runs(tmp_path / "ws")
    with memory:
        memory.restore(second, base=head)
        kept = memory.read(ARCHIVE)
        assert "pastry chef" in kept and not re.search("^##? ", kept, re.M)  # no header, no day
        result = memory.dream()
        assert any("day heading" in w for w in result.warnings)
        text = memory.read(ARCHIVE)
        assert memory.runtime.git.dirty() == []
        assert memory.runtime.git.file_at("HEAD", ARCHIVE) == text
        lines = text.splitlines()
        day = next(i for i, line in enumerate(lines) if re.fullmatch(r"## \d{4}-\d{2}-\d{2}", line))
        entry = next(i for i, line in enumerate(lines) if line.startswith("### "))
        assert lines[0] == "# Archive: USER.md" and day < entry
        assert text.endswith(kept)  # nothing else changed
        found = [p for p in memory.why("data engineer") if p.path == ARCHIVE]
        assert found and found[0].kind == "dream" and found[0].cursor_range == (3, 3)


def test_dream_log_shows_the_last_run_not_an_archive_repair(tmp_path):
    """A run with nothing to dream that only repaired an archive file commits the repair on its
    own: ``/dream-log`` (and the Review page) used to show that repair as "the last Dream", while
    ``/dream-restore`` would undo the run under it."""
    from asyncio import run

    from reverie.chat.commands import CommandRouter
    from reverie.dream.archive import header

    memory, _second, _head = _three_runs(tmp_path / "ws")
    with memory:
        last_run = memory.log(limit=1)[0]
        path = tmp_path / "ws" / ARCHIVE
        path.write_text(path.read_text().removeprefix(header("USER.md")), encoding="utf-8")
        memory.runtime.git.commit("manual: header dropped", kind="manual")
        assert memory.dream().status == "nothing-to-do"
        assert "repair" in memory.log(limit=1)[0].subject
        found = memory.last_dream_commit()
        assert found is not None and found.sha == last_run.sha
        reply = run(CommandRouter(memory.runtime).handle("/dream-log"))
        assert f"`{last_run.sha[:8]}`" in reply and "repair" not in reply.split("\n")[0]
