"""A writer killed between ``atomic_write``'s temporary file and its rename leaves
``.<name>.tmp-<pid>-<hex>`` beside the file. Dream's read mark (``history.jsonl.dreamed``) is
rewritten on every run, and such a file beside it stayed forever (fleet8 found one after a kill
-9); now the write of the mark sweeps what a crashed writer left, through the one sweeper
(``fsutil.remove_stale_temps``) the tracked files and the due markers use too."""

from __future__ import annotations

import os
import time
from pathlib import Path

import reverie
from reverie.storage.fsutil import remove_stale_temps


def _aged(path: Path, seconds: float) -> Path:
    path.write_bytes(b"half a mark")
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_a_dream_sweeps_a_crashed_writers_temp_file_of_its_read_mark(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as m:
        m.remember("I live in Porto.")
        m.dream()
        state = tmp_path / "ws" / "memory" / ".reverie"
        assert (state / "history.jsonl.dreamed").exists()
        old = _aged(state / ".history.jsonl.dreamed.tmp-4242-0badcafe", 3600)
        live = _aged(state / ".history.jsonl.dreamed.tmp-4343-0ddba11a", 1)  # a writer at work
        other = _aged(state / ".dream-status.json.tmp-4242-0badcafe", 3600)  # not the mark's
        m.remember("I have a cat called Miso.")
        m.dream()
        assert not old.exists() and live.exists() and other.exists()


def test_the_sweeper_takes_only_old_temp_files_of_the_names_asked(tmp_path: Path) -> None:
    names = {
        ".a.tmp-1-ab12": 3600,
        ".a.tmp-2-cd34": 1,
        ".b.tmp-1-ab12": 3600,
        ".a.swap-1-ab12": 3600,  # a displaced version: never this sweeper's
        "a.tmp-1-ab12": 3600,  # not hidden: not atomic_write's
        ".a.tmp-x-ab12": 3600,
    }
    for name, age in names.items():
        _aged(tmp_path / name, age)
    removed = remove_stale_temps(tmp_path, sorted(names), older_than=60, of="a".__eq__)
    assert removed == [tmp_path / ".a.tmp-1-ab12"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(set(names) - {".a.tmp-1-ab12"})
    assert remove_stale_temps(tmp_path, [".gone.tmp-1-ab12"], older_than=0) == []
