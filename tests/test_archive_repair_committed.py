"""A Dream run's repair of a damaged archive file (``reverie.dream.archive_files``) is committed on
its own, under the writer lock, whether the run then commits anything or not.

Fault this was written for (found as 3 failures in 31 loops of
``test_harden_threads.py::test_pipeline_verbs_beside_edits_and_queries_from_six_threads``):
``Memory.restore()`` binds the restore to the HEAD it chose the run at, then waits for Dream's run
lock; a run committed in between that appended to an archive file the undone run had created is kept
(merged three-way), which leaves that file with the later lines alone, without its ``# Archive:``
header. The next run put the header back with a plain atomic write and, having nothing else to do,
committed nothing: the work tree stayed dirty, and the next writer's commit recorded the repair as a
``manual`` edit no person made.
"""

from __future__ import annotations

from pathlib import Path

import reverie
from reverie.dream.archive import header

ARCHIVE = "memory/archive/user.md"


def _three_runs(root: Path) -> tuple[reverie.Memory, str, str]:
    """Three runs: the second creates the archive file (Lisbon superseded by Porto), the third
    appends to it (a new job); returns the memory, the second run's sha and the HEAD it left."""
    memory = reverie.open(root)
    memory.init()
    memory.remember("User: I live in Lisbon and I work at Acme as a data engineer.")
    assert memory.dream().commit
    memory.remember("User: I moved to Porto.")
    second = memory.dream().commit
    assert second and memory.read(ARCHIVE).startswith("# Archive:")
    head = memory.runtime.git.head()
    assert head
    memory.remember("User: I now work as a pastry chef.")
    assert memory.dream().commit
    return memory, second, head


def test_a_restore_bound_to_an_older_head_then_a_run_leaves_the_tree_clean(tmp_path):
    """The race, step by step: the restore planned at the second run's HEAD lands after the third
    run, so the archive file keeps only the third run's lines; the next run (nothing pending)
    commits the header it puts back, and the tree is clean."""
    memory, second, head = _three_runs(tmp_path / "ws")
    with memory:
        done = memory.restore(second, base=head)  # what restore() does when a run lands meanwhile
        assert done.commit and done.merged
        text = memory.read(ARCHIVE)
        assert "pastry chef" in text and not text.startswith("# Archive:")  # the damage
        before = memory.log(limit=1)[0].sha
        result = memory.dream()
        assert any("had lost its header" in w for w in result.warnings)
        assert memory.runtime.git.dirty() == []  # was ['memory/archive/user.md']
        repair = memory.log(limit=1)[0]
        assert repair.sha != before and repair.kind == "dream" and "repair" in repair.subject
        assert memory.read(ARCHIVE).startswith("# Archive: USER.md")
        assert memory.read(ARCHIVE).endswith(text)  # nothing else changed
        assert memory.runtime.git.file_at("HEAD", ARCHIVE) == memory.read(ARCHIVE)


def test_a_hand_edit_that_drops_the_header_is_repaired_in_a_commit_of_its_own(tmp_path):
    """A committed archive file without its header and nothing to dream: the repair is one commit
    (not left on disk for the next writer to record as a person's edit); ``restore()`` still undoes
    the newest run, never the repair."""
    memory, _second, _head = _three_runs(tmp_path / "ws")
    with memory:
        runs = [i.sha for i in memory.log(limit=20) if i.kind == "dream"]
        body = memory.read(ARCHIVE).removeprefix(header("USER.md"))
        path = tmp_path / "ws" / ARCHIVE
        path.write_text(body, encoding="utf-8")
        memory.runtime.git.commit("manual: header dropped", kind="manual")
        assert memory.dream().status == "nothing-to-do"
        assert memory.runtime.git.dirty() == []
        kinds = [i.kind for i in memory.log(limit=3)]
        assert kinds[:2] == ["dream", "manual"]
        assert path.read_text(encoding="utf-8") == header("USER.md") + "\n" + body
        undone = memory.restore()
        assert undone.commit
        assert memory.log(limit=1)[0].subject.startswith(f"restore: memory as before {runs[0][:8]}")
