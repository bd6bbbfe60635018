"""The disk refusing a write (a file size limit, ``RLIMIT_FSIZE``: the same failed ``write`` as a
full disk) while a verb writes the memory repo or the search index: the verb fails with one typed,
one-line error — never the raw ``OSError`` or ``sqlite3`` error — the index is not taken for a
damaged one (moved aside, rebuilt: more writes the disk refuses), and once the disk has room the
same verbs work and lose nothing. ``tests/test_disk_full.py`` covers the appends and a memory file
written after its commit.

In a process of its own: the limit and ``SIGXFSZ`` ignored are the whole process's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.gitcli import git_run

CHILD = r"""
import json, os, resource, signal, sys
from pathlib import Path
import reverie
from reverie import content_id
from reverie.errors import ReverieError

root = Path(sys.argv[1])
m = reverie.open(root)
m.init()
m.remember("User: I live in Lisbon.")
m.dream()
m.reindex()
for i in range(300):
    m.remember(f"User: note {i} about the garden shed and the blue bicycle number {i * 7}.")
m.remember("User: I prefer green tea.")
index = root / "memory" / ".index.sqlite"
notes = m.read("memory/MEMORY.md")
out = {}

def attempt(name, verb):
    try:
        verb()
        out[name] = "ok"
    except ReverieError as exc:
        out[name] = [type(exc).__name__, str(exc)]
    except Exception as exc:
        out[name] = ["not a ReverieError: " + type(exc).__name__, str(exc)]

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = lambda n: resource.setrlimit(resource.RLIMIT_FSIZE, (n, resource.RLIM_INFINITY))
limit(index.stat().st_size + 4096)  # the index's sync needs more
attempt("reindex", m.reindex)
# no object, ref or intent marker of a commit fits: the marker, rewritten in place, is cut inside
# its first commit id, the rest of it still the last commit's (recovery must not trust it)
limit(32)
attempt("write", lambda: m.write("memory/MEMORY.md", notes + "- Deploys on Fridays\n"))
out["set aside"] = sorted(p.name for p in (root / "memory").iterdir() if "corrupt" in p.name)
out["memory file unchanged"] = m.read("memory/MEMORY.md") == notes
limit(resource.RLIM_INFINITY)
m.write("memory/MEMORY.md", notes + "- Deploys on Fridays\n", base=content_id(notes))
out["dream after"] = m.dream().status
out["found"] = [h.snippet for h in m.recall("blue bicycle number 2093")]
out["memory file"] = m.read("memory/MEMORY.md")
print(json.dumps(out))
"""


def test_a_refused_repo_or_index_write_is_one_typed_error_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ws)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["reindex"][0] == "RecallError" and "left as it was" in out["reindex"][1]
    assert out["write"][0] == "GitStoreError" and "could not be written" in out["write"][1]
    for name in ("reindex", "write"):
        assert "\n" not in out[name][1], out[name]
    assert out["set aside"] == []  # the index was not taken for a damaged one
    assert out["memory file unchanged"]
    assert out["memory file"].endswith("- Deploys on Fridays\n")  # written once there is room
    assert out["dream after"] in ("ok", "no-change")
    assert any("2093" in s for s in out["found"])
    assert git_run(ws, "fsck", "--full").returncode == 0
    assert git_run(ws, "status", "--porcelain").stdout == ""
