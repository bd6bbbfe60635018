"""``reverie status`` says what is there and what is missing, and writes nothing: a workspace an
import left without USER.md is not "not initialised" (it names USER.md), and a nanobot
``memory/HISTORY.md`` stays where it is until a write migrates it (a hostile tester saw status
rename it to HISTORY.md.bak)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.cli import invoke


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(dirpath) / name
            st = path.lstat()
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def test_status_names_what_is_missing_and_writes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "SOUL.md").write_text("# Soul\n")
    (ws / "memory" / "MEMORY.md").write_text("# Memory\n- Works at Initech\n")
    (ws / "memory" / "HISTORY.md").write_text("[2026-01-01 10:00] User moved to Lyon.\n")
    before = _tree(ws)
    done = invoke("-w", str(ws), "status")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert "not initialised" not in first and "USER.md missing" in first, first
    assert "memory/HISTORY.md" in done.stdout and "next write" in done.stdout
    report = json.loads(invoke("-w", str(ws), "status", "--json").stdout)
    assert report["missing"] == ["USER.md"] and report["legacy_history"] is True
    assert _tree(ws) == before  # a query: no migration, no lock file, no cursor, nothing
    # the first write migrates it, as before
    assert invoke("-w", str(ws), "history", "append", "User likes tea").returncode == 0
    assert (ws / "memory" / "HISTORY.md.bak").exists()
    shown = invoke("-w", str(ws), "history", "show").stdout
    assert "Lyon" in shown and "tea" in shown
    # nothing at all: still "not initialised"
    bare = invoke("-w", str(tmp_path / "bare"), "status").stdout.splitlines()[0]
    assert "not initialised: run `reverie init`" in bare
