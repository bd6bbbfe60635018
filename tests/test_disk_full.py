"""A disk that fills up (here a file size limit, ``RLIMIT_FSIZE``: the same ``write`` failing part
way as on a full disk) while a ``Memory`` verb writes: the verb fails with one typed error. An
append leaves its file as it was — no torn line for the next append to move aside, no entry half
written. A memory file that cannot be written once its commit moved HEAD keeps its previous
version, the error says so, and the next write finishes the commit before its own.

In a process of its own: the limit and ``SIGXFSZ`` ignored are the whole process's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, resource, signal, sys
from pathlib import Path
import reverie
from reverie import content_id
from reverie.errors import ReverieError

root = Path(sys.argv[1])
m = reverie.open(root)
m.init()
m.remember("I like green tea")
m.record("chat", [{"role": "user", "content": "hello there"}])
history = root / "memory" / "history.jsonl"
session = next((root / "sessions").rglob("*.jsonl"))
before = {"history": history.read_bytes(), "session": session.read_bytes()}
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
room = max(len(v) for v in before.values()) + 200
resource.setrlimit(resource.RLIMIT_FSIZE, (room, resource.RLIM_INFINITY))
out = {}

def attempt(name, verb):
    try:
        verb()
        out[name] = "ok"
    except ReverieError as exc:
        out[name] = [type(exc).__name__, str(exc)]
    except Exception as exc:
        out[name] = ["not a ReverieError: " + type(exc).__name__, str(exc)]

attempt("remember", lambda: m.remember("I live in Lyon " + "x" * 600))
attempt("record", lambda: m.record("chat", [{"role": "user", "content": "y" * 600}]))
attempt("record new", lambda: m.record("other", [{"role": "user", "content": "z" * 600}]))
notes = m.read("memory/MEMORY.md")
facts = "".join(f"- fact {i} about the garden shed\n" for i in range(60))
# room for the commit's intent marker and its objects, not for the memory file (a marker cut short
# is refused before anything is committed: tests/test_disk_refuses_repo_and_index.py)
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))
attempt("write", lambda: m.write("memory/MEMORY.md", notes + facts, base=content_id(notes)))
out["memory file unchanged"] = m.read("memory/MEMORY.md") == notes
out["history unchanged"] = history.read_bytes() == before["history"]
out["session unchanged"] = session.read_bytes() == before["session"]
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
m.remember("I live in Paris")
read = m.read("memory/MEMORY.md")  # queries never write: still the previous version
m.write("memory/MEMORY.md", read + "- one more\n", base=content_id(read))  # finishes the commit
out["memory file"] = m.read("memory/MEMORY.md")
out["committed"] = m.committed("memory/MEMORY.md")
out["expected"] = notes + facts + "- one more\n"
m.record("chat", [{"role": "user", "content": "bye"}])
out["left aside"] = sorted(p.name for p in root.rglob("*.torn"))
out["history"] = [e.content for e in m.history()]
out["messages"] = [x["content"] for x in m.messages("chat")]
print(json.dumps(out))
"""


def test_a_failed_append_leaves_the_file_as_it_was_and_says_so_in_one_typed_error(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["write"][0] == "GitStoreError" and "committed as" in out["write"][1]
    assert out["memory file unchanged"]
    assert out["memory file"] == out["committed"]  # the failed commit finished, this one over it
    assert sorted(out["memory file"].splitlines()) == sorted(out["expected"].splitlines())
    assert out["remember"][0] == "HistoryError"
    assert out["record"][0] == "SessionError"
    assert out["record new"][0] == "SessionError"
    for name in ("remember", "record", "record new", "write"):
        assert "File too large" in out[name][1] and "\n" not in out[name][1]
    assert out["history unchanged"] and out["session unchanged"]
    assert out["left aside"] == []  # nothing torn was left for the next append to move aside
    assert out["history"] == ["I like green tea", "I live in Paris"]
    assert out["messages"] == ["hello there", "bye"]
