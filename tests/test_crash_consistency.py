"""Crash consistency: the whole pipeline SIGKILLed after every distinct step it takes, checked after
each restart.

A step is one change the pipeline makes to the disk (an open for writing, a rename, a remove, a
mkdir; named by the operation, the kind of change, the path's shape and Reverie's line that made it)
or an acknowledgement it records. The harness (``tests/support/crash_harness.py``) states the
invariants and enumerates the steps through Python's audit hooks: each round kills a worker right
after the first step no round has killed after yet, until a worker completes every operation three
times without a new one. That covers every step 200 kills at random moments reach (BENCHMARKS.md,
"test suite"), in a fifth of the time. This test also insists that every kind of operation ran and
that the steps that matter most were among the kills, so a harness that silently stopped seeing
something fails instead of passing vacuously. ``REVERIE_CRASH_SEED`` explores other schedules (a
failure prints the seed, the step and the broken invariant); the harness's ``--rounds N`` kills at
random moments instead.
"""

from __future__ import annotations

import orjson
import pytest
from support import background

from reverie.storage import fsutil

#: Steps a kill must have followed: the acknowledgements and the commit points of each operation.
MUST_KILL_AFTER = [
    "append: open memory/history.jsonl at storage/fsutil.py",
    "append: journal append",
    "session: open sessions/cli_crash.jsonl at storage/fsutil.py",
    "new: os.rename sessions/cli_crash.jsonl at storage/fsutil.py",
    "new: open memory/history.jsonl at storage/fsutil.py",
    "dream: os.rename .git/refs/heads/main at gitstore/plumbing.py",
    "dream: os.rename memory/.dream_cursor at storage/fsutil.py",
    # the memory files' replace: an exchange (Linux renameat2), or the plain rename elsewhere
    (
        "dream: reverie.renameat2 memory/MEMORY.md at storage/fsutil.py"
        if fsutil._renameat2 is not None
        else "dream: os.rename memory/MEMORY.md at storage/fsutil.py"
    ),
    "dream: journal dream-end",
    "restore: os.rename .git/refs/heads/main at gitstore/plumbing.py",
    "manual: os.rename USER.md at storage/fsutil.py",
]


@pytest.mark.slow
def test_pipeline_survives_a_sigkill_after_every_step():
    """The harness runs from the end of collection beside the rest of the suite
    (support/background.py)."""
    done = background.result("crash")
    seed = done.argv[-1]
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, f"seed {seed}: {last or done.stderr[-2000:]}"
    summary = orjson.loads(last)["summary"]
    steps = (done.workdir / "steps.txt").read_text().splitlines()
    assert summary["kills"] == summary["steps"] == len(steps) >= 80, summary
    for op, at_least in {
        "append": 100,
        "dream-end": 20,
        "restore": 5,
        "new-end": 3,
        "manual": 5,
    }.items():
        assert summary.get(op, 0) >= at_least, f"seed {seed}: too few {op!r} steps ran: {summary}"
    missing = [s for s in MUST_KILL_AFTER if not any(k.startswith(s) for k in steps)]
    assert not missing, f"seed {seed}: no kill after {missing}"
