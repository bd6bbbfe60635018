"""One ``Memory`` shared by threads, attacked as an embedding application would: every verb's first
call at once, the pipeline verbs (dream, record, clear, restore) beside the edits and queries, and
"undo the newest Dream run" asked twice.

Faults these were written for:

- the first calls of two verbs at once ended in ``ImportError: cannot import name 'Recall' from
  partially initialized module``, ``KeyError: 'reverie.recall'`` or ``_DeadlockError``: a package
  whose ``__init__`` imported its own modules was entered by one thread through the package and by
  another through one of its modules (each holds the import lock the other needs);
- ``restore()`` (the newest Dream commit) chose its target at one state and restored at another: a
  Dream run or an edit committed in between was wiped, and a second ``restore()`` (a retry, a second
  thread) undid the same run again, wiping every edit made since the first.

The thread cases run in a process of their own so a crash fails the test, not the runner.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import reverie
from reverie.errors import NothingPendingError

PACKAGE = Path(reverie.__file__).parent
MEM = "memory/MEMORY.md"

# Import cycles left, each entered by one way only, so two threads can never meet in it from two
# sides: the root and ``reverie.memory`` are loaded by ``import reverie`` / ``reverie.open`` before
# any verb runs; the front ends by a process's start; the offline engine only through its package
# (``reverie.llm.registry``), checked below.
ENTERED_ONCE = {
    "reverie": "loaded before any of its code runs",
    "reverie.memory": "loaded by reverie.open, before any verb",
    "reverie.memory.importers": "entered only through its package",
    "reverie.llm.offline": "entered only through its package",
    "reverie.chat.commands": "a front end: loaded at its start",
    "reverie.fleet": "a front end: loaded at its start",
    "reverie.mcp": "a front end: loaded at its start",
}


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _imports(name: str, path: Path, is_package: bool, mods: dict, *, top: bool) -> set[str]:
    """The reverie modules ``name`` imports: at load time (``top``: module level, outside
    ``TYPE_CHECKING``), else anywhere (function-level imports included)."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            elif isinstance(node, ast.ImportFrom):
                base = (
                    ".".join(
                        here[: len(here) - node.level + 1] + ([node.module] if node.module else [])
                    )
                    if node.level
                    else node.module or ""
                )
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found.add(sub if sub in mods else base)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif not top or isinstance(node, (ast.If, ast.Try, ast.With)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for child in getattr(node, field, []):
                        visit([child] if isinstance(child, ast.stmt) else child.body)

    visit(_parsed(path).body)
    return {m for m in found if m in mods}


def _cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_two_threads_can_enter_from_two_sides():
    """Loading a module loads its parent packages first, so a package whose ``__init__`` imports
    its own modules is a cycle: a thread entering through the package and one entering through a
    module each hold the lock the other waits for. Every such cycle is gone but those entered one
    way only (``ENTERED_ONCE``), and nothing outside those enters them through a module."""
    mods = _modules()
    edges = {n: _imports(n, p, pkg, mods, top=True) for n, (p, pkg) in mods.items()}
    for name in mods:
        parts = name.split(".")
        edges[name] |= {".".join(parts[:i]) for i in range(1, len(parts))}
    cycles = {min(c, key=len): c for c in _cycles(edges)}
    assert set(cycles) <= set(ENTERED_ONCE), sorted(set(cycles) - set(ENTERED_ONCE))
    for root in ("reverie.llm.offline", "reverie.memory.importers"):
        for name, (path, pkg) in mods.items():
            if name == root or name.startswith(root + "."):
                continue
            inside = {
                m for m in _imports(name, path, pkg, mods, top=False) if m.startswith(root + ".")
            }
            assert not inside, f"{name} enters {root} through {sorted(inside)}"


FIRST_USE = """
import sys, threading, traceback
import reverie
from reverie.errors import ReverieError
memory = reverie.open(sys.argv[1])
verbs = [lambda: memory.recall("Lisbon"), lambda: memory.search_memory("Lisbon"),
         memory.dream, memory.status, lambda: memory.log(limit=3), lambda: memory.why("Lisbon"),
         lambda: memory.record("t1", [{"role": "user", "content": "I live in Lisbon"}]),
         memory.faults, memory.context, lambda: memory.get_all(user_id="u"),
         lambda: memory.plan_purge("zzz"), memory.kept_replies, memory.pending_soul]
start = threading.Barrier(len(verbs))
errors = []
def one(verb):
    start.wait()
    try:
        verb()
    except ReverieError:
        pass
    except BaseException:
        errors.append(traceback.format_exc(limit=-4))
threads = [threading.Thread(target=one, args=(v,)) for v in verbs]
[t.start() for t in threads]
[t.join() for t in threads]
memory.close()
print("".join(errors))
"""


@pytest.mark.parametrize("run", range(2))
def test_every_verbs_first_call_at_once_in_a_fresh_process(tmp_path, run):
    """Thirteen verbs called for the first time at once, each in a thread (before: 2 fresh
    processes in 8 failed with an import error)."""
    root = tmp_path / "ws"
    with reverie.open(root) as memory:
        memory.init()
        memory.remember("User: I live in Lisbon.")
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_USE, str(root)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "", proc.stdout + proc.stderr[-3000:]


MIXED = """
import json, random, sys, threading, traceback
import reverie
from reverie.errors import EditConflictError, NothingPendingError
FACTS = ["I live in Lisbon", "I work at Acme as a data engineer", "I prefer Postgres over SQLite",
         "My dog is called Rex", "I moved to Porto", "I am allergic to peanuts"]
memory = reverie.open(sys.argv[1])
lock = threading.Lock()
out = {"errors": [], "cursors": [], "lines": []}
def worker(i):
    rnd = random.Random(i)
    for r in range(16):
        verb = rnd.choice(["remember", "record", "recall", "dream", "restore", "write", "clear",
                           "search", "status"])
        try:
            if verb == "remember":
                cursor = memory.remember(f"User: {rnd.choice(FACTS)} ({i}-{r})").cursor
                with lock: out["cursors"].append(cursor)
            elif verb == "record":
                memory.record(f"t{i}", [{"role": "user", "content": f"{rnd.choice(FACTS)} {i}-{r}"},
                                        {"role": "assistant", "content": "noted"}])
            elif verb == "clear":
                memory.clear(f"t{i}")
            elif verb == "recall":
                memory.recall("Lisbon")
            elif verb == "search":
                memory.search_memory("Postgres")
            elif verb == "dream":
                memory.dream()
            elif verb == "status":
                memory.status()
            elif verb == "restore":
                try:
                    memory.restore()
                except (NothingPendingError, EditConflictError):
                    pass
            else:
                line = f"- Note {i}-{r} of the shared run."
                for _ in range(50):
                    text = memory.read("memory/MEMORY.md")
                    try:
                        memory.write("memory/MEMORY.md", text + line + "\\n",
                                     base=reverie.content_id(text))
                        break
                    except EditConflictError:
                        continue
                with lock: out["lines"].append(line)
        except BaseException:
            with lock: out["errors"].append(verb + ": " + traceback.format_exc(limit=-4))
threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
[t.start() for t in threads]
[t.join() for t in threads]
memory.close()
print(json.dumps(out))
"""


def test_pipeline_verbs_beside_edits_and_queries_from_six_threads(tmp_path):
    """dream, restore (the newest Dream run), record, clear, remember, write, recall, search and
    status from six threads at once: no error; every acknowledged entry once; every acknowledged
    line in MEMORY.md once, or taken out by a restore to before a run it was written after (what a
    restore is: the state before that run); the repo clean and ``git fsck`` happy."""
    root = tmp_path / "ws"
    with reverie.open(root) as memory:
        memory.init()
    proc = subprocess.run(
        [sys.executable, "-c", MIXED, str(root)], capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["errors"] == []
    with reverie.open(root) as memory:
        cursors = [e.cursor for e in memory.history()]
        assert len(cursors) == len(set(cursors)) and set(out["cursors"]) <= set(cursors)
        text = memory.read(MEM)
        for line in out["lines"]:  # there once, or taken by a restore (to before a run it followed)
            if text.count(line + "\n") != 1:
                last = memory.log(limit=1, text=line.lstrip("- "))
                assert text.count(line) == 0 and last and last[0].kind == "restore", line
        assert memory.runtime.git.dirty() == []
    fsck = subprocess.run(
        ["git", f"--git-dir={root / '.git'}", "fsck", "--strict"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr


def _dreamed(root: Path) -> reverie.Memory:
    memory = reverie.open(root)
    memory.init()
    memory.remember("User: I live in Lisbon and I work at Acme as a data engineer.")
    assert memory.dream().commit
    return memory


def test_restore_twice_undoes_the_run_once_and_keeps_the_edit_between(tmp_path):
    """``restore()`` is "undo the newest Dream run": asked again after an edit, it says the run is
    undone already and writes nothing (before: it restored to before that run again, and the edit
    made in between was gone)."""
    memory = _dreamed(tmp_path / "ws")
    with memory:
        first = memory.restore()
        assert "Lisbon" not in memory.read("USER.md")
        text = memory.read(MEM)
        memory.write(MEM, text + "- Deadline is 2027-03-14.\n", base=reverie.content_id(text))
        head = memory.log(limit=1)[0].sha
        with pytest.raises(NothingPendingError, match=f"undone already \\(by {first.commit[:8]}"):
            memory.restore()
        assert memory.log(limit=1)[0].sha == head
        assert "- Deadline is 2027-03-14." in memory.read(MEM)
        # undoing the undo brings the run back, and it is again the one restore() undoes
        memory.restore(first.commit)
        assert "Lisbon" in memory.read("USER.md")
        memory.restore()
        assert "Lisbon" not in memory.read("USER.md")


def test_restores_at_once_undo_the_newest_run_once(tmp_path):
    """Four threads asking ``restore()`` at once: one undo commit; the others say it is undone
    already (or that the state moved)."""
    memory = _dreamed(tmp_path / "ws")
    with memory:
        before = len(memory.log(limit=100))
        start = threading.Barrier(4)
        outcomes: list[str] = []

        def undo() -> None:
            start.wait()
            try:
                memory.restore()
                outcomes.append("restored")
            except reverie.ReverieError as exc:
                outcomes.append(type(exc).__name__)

        threads = [threading.Thread(target=undo) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        kinds = [c.kind for c in memory.log(limit=100)[: len(memory.log(limit=100)) - before]]
        assert kinds.count("restore") == 1, (kinds, outcomes)
        assert "Lisbon" not in memory.read("USER.md")
        # the others found it undone, or applied the same change again (no commit)
        assert set(outcomes) <= {"restored", "NothingPendingError", "EditConflictError"}
