"""Queries never write and take no writer lock: every query verb (the command line's and
``Memory``'s) leaves a workspace as it found it, its search index included, whether the index is
missing, in step or stale; a workspace the caller may only read is searched all the same; and the
results are those of the files on disk even when a file was edited behind the index's back.
Writers keep the index in step (Dream after its commit, a ``Memory`` that wrote when it closes).

``reverie status`` says what is there and what is missing, and writes nothing: a workspace an
import left without USER.md is not "not initialised" (it names USER.md), and a nanobot
``memory/HISTORY.md`` stays where it is until a write migrates it (a hostile tester saw status
rename it to HISTORY.md.bak)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from support.cli import ROOT, invoke

import reverie
from reverie.memory.runtime import Runtime
from reverie.recall import Recall
from reverie.recall.index import INDEX_NAME

#: The one file a query appends to, by design: Recall's hit log for Dream's salience (advisory, no
#: lock, skipped where it cannot be written; ``reverie.storage.hitlog``).
HIT_LOG = "memory/.reverie/recall-hits.jsonl"


def _snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for path in [root, *root.rglob("*")]:
        st = path.lstat()
        out[str(path.relative_to(root))] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return out


def _changes(before: dict[str, tuple[int, int, int]], root: Path) -> list[str]:
    after = _snapshot(root)
    changed = sorted(set(after) ^ set(before))
    changed += sorted(p for p in before if p in after and before[p] != after[p])
    return [p for p in changed if p not in (HIT_LOG, "memory/.reverie")]


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon and I prefer Postgres over SQLite.")
        memory.dream()
        memory.record("cli_a", [{"role": "user", "content": "the heron sensor reads 14 degrees"}])
    return ws


CLI_QUERIES = [
    ["search", "Postgres"],
    ["search", "--json", "heron"],
    ["status"],
    ["log"],
    ["show", "HEAD"],
    ["why", "Lisbon"],
    ["history", "show"],
    ["restore"],
    ["requeue"],
]
MEMORY_QUERIES: dict[str, Callable[[reverie.Memory], object]] = {
    "recall": lambda m: m.recall("Postgres"),
    "search": lambda m: m.search("Postgres"),
    "search_memory": lambda m: m.search_memory("heron"),
    "status": lambda m: m.status(),
    "why": lambda m: m.why("Lisbon"),
    "context": lambda m: m.context(),
    "get_all": lambda m: m.get_all(),
}


def _edit_behind_the_index(ws: Path) -> None:
    user = ws / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Keeps bees on the roof\n", "utf-8")


@pytest.mark.parametrize("index", ["missing", "in step", "stale"])
def test_no_query_verb_writes_anything_in_the_workspace(tmp_path: Path, index: str) -> None:
    ws = _workspace(tmp_path)
    if index == "missing":
        (ws / "memory" / INDEX_NAME).unlink(missing_ok=True)
    else:
        assert invoke("-w", str(ws), "index").returncode == 0  # a writer's step
    if index == "stale":
        _edit_behind_the_index(ws)
    for argv in CLI_QUERIES:
        before = _snapshot(ws)
        result = invoke("-w", str(ws), *argv)
        assert result.returncode == 0, (argv, result.stderr)
        assert _changes(before, ws) == [], argv
    for name, query in MEMORY_QUERIES.items():
        before = _snapshot(ws)
        with reverie.open(ws) as memory:
            query(memory)
        assert _changes(before, ws) == [], name
    assert (ws / "memory" / INDEX_NAME).exists() == (index != "missing")


def test_a_stale_index_still_answers_from_the_files_and_is_not_written(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with reverie.open(ws) as memory:
        memory.reindex()
        index_files = lambda: {p.name: p.read_bytes() for p in ws.glob(f"memory/{INDEX_NAME}*")}  # noqa: E731
        indexed = index_files()
        user = ws / "USER.md"
        text = user.read_text(encoding="utf-8")
        assert "Lisbon" in text
        # the same size, within the mtime's granularity: only the content tells
        user.write_text(text.replace("Lisbon", "Moscow"), "utf-8")
        _edit_behind_the_index(ws)
        (ws / "sessions" / "cli_a.jsonl").unlink()
        assert [h.snippet for h in memory.recall("bees")] == ["- Keeps bees on the roof"]
        assert any("Moscow" in h.snippet for h in memory.recall("Moscow"))
        assert not any("Lisbon" in h.snippet for h in memory.recall("Lisbon", kinds="memory"))
        assert memory.recall("heron sensor") == []  # a deleted conversation is not found
        user.write_text(text, "utf-8")  # and back: the private copy follows the files again
        assert any("Lisbon" in h.snippet for h in memory.recall("Lisbon", kinds="memory"))
        assert memory.recall("bees") == []
        assert index_files() == indexed  # nor its journal files


def test_a_read_only_workspace_is_searched(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    # outside pytest's own (mode 700) folder, which another user may not enter
    where = Path(tempfile.mkdtemp(prefix="reverie-read-only-"))
    where.chmod(0o755)
    try:
        _search_read_only_copies(ws, where)
    finally:
        for path in [where, *where.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
        shutil.rmtree(where)


def _search_read_only_copies(ws: Path, where: Path) -> None:
    for with_index in (False, True):
        copy = where / f"ro-{with_index}"
        shutil.copytree(ws, copy)
        if with_index:
            assert invoke("-w", str(copy), "index").returncode == 0
            _edit_behind_the_index(copy)
        for path in [copy, *copy.rglob("*")]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        before = _snapshot(copy)
        result = _as_another_user("-w", str(copy), "search", "Postgres")
        assert result.returncode == 0, result.stderr
        assert "Postgres" in result.stdout
        if with_index:
            found = _as_another_user("-w", str(copy), "search", "bees")
            assert "Keeps bees on the roof" in found.stdout, found.stderr
        # the readers that hold Dream's run lock for a consistent view take it through the lock
        # file that is there (flock needs no write access), not refused for opening it to write
        dry = _as_another_user("-w", str(copy), "dream", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        out = Path(tempfile.mkdtemp(prefix="reverie-export-"))
        out.chmod(0o777)
        try:
            exported = _as_another_user("-w", str(copy), "export", str(out / "bundle.tar.gz"))
            assert exported.returncode == 0, exported.stderr
            assert (out / "bundle.tar.gz").stat().st_size > 0
        finally:
            shutil.rmtree(out)
        assert _changes(before, copy) == []


def _as_another_user(*args: str) -> subprocess.CompletedProcess[str]:
    """``reverie *args`` in a process that may not write the workspace: as ``nobody`` when this
    runs as root (root writes through any mode), else as this user (the files' modes forbid it)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), REVERIE_HOME=str(Path(args[1]).parent / "home"))
    env.pop("REVERIE_WORKSPACE", None)
    cmd = [sys.executable, "-m", "reverie", *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot read as another user")
        cmd = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]
        env["HOME"] = "/tmp"
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/", timeout=120)


def test_writers_keep_the_index_in_step(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)  # its Memory remembered, dreamed and recorded, then closed
    recall = Recall(ws)
    try:
        recall.search("Postgres")
        assert recall.index._copy is None  # read from the file: it was in step
        with reverie.open(ws) as memory:
            memory.remember("User: I work at Acme as a data engineer.")
        recall.search("Acme")
        assert recall.index._copy is None
        # Dream, however it is started (here as `reverie serve` starts it), syncs after its commit
        import asyncio

        dream = Runtime(ws).dream
        assert asyncio.run(dream.run()).commit is not None
        dream.git.close()
        hits = recall.search("Acme", filters={"kinds": ["memory"]})
        assert recall.index._copy is None and hits
    finally:
        recall.close()


# -- status ----------------------------------------------------------------------------------------


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
