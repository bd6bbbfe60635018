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
