"""One writer protocol for memory files (issue 25): writers driven concurrently — Dream, pin/unpin,
SOUL.md approvals and read-change-commit writers (an MCP write, a hand-edit merge), in threads of
this process and in other processes — never lose a line another writer committed.

Every writer commits through ``GitStore.commit`` with the ``base`` it read, so a commit landing in
between is three-way merged under the writer lock, not overwritten. The check: every line any writer
reported committed is in its prompt file (pin marks aside) or in the archive, and the files on disk
are HEAD's."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.dream_helpers import MEM, edit, make_env
from support.writer_proc import append, section, toggle_pin

from reverie.dream.archive import archive_path, parse_entry
from reverie.dream.proposal import stage_soul_change
from reverie.errors import LockTimeoutError, MergeConflictError
from reverie.gitstore import GitStore
from reverie.operations.approve import approve
from reverie.storage.workspace import SOUL, USER
from reverie.text.memline import line_key

THREADS = ("a", "b")
PROCESSES = ("p", "q")
PROC = Path(__file__).parent / "support" / "writer_proc.py"


def _seed(env) -> None:
    names = THREADS + PROCESSES
    env.ws.write(
        MEM,
        "# Memory\n\n" + "".join(f"{section(n)}\n- Writer {n} section opened\n\n" for n in names),
    )
    env.ws.write(
        USER, "# User\n\n" + "".join(f"- Writer {n} likes the colour {n}{n}{n}\n" for n in names)
    )
    env.git.commit("seed", kind="manual")


def _dream_writer(env, n: int, out: list[str]) -> None:
    for i in range(n):
        line = f"- Dream learned project fact number {i:02d}"
        env.add(f"- [durable] {line[2:]}")
        env.fake.enqueue(f"[MEMORY] {line[2:]}", [edit(MEM, "", line + "\n")], "done")
        result = asyncio.run(env.dream().run(wait=True))
        if result.status == "ok":
            out.append(line)


def _approve_writer(env, n: int, out: list[str]) -> None:
    for i in range(n):
        base = env.ws.read(SOUL)
        line = f"- Standing rule number {i:02d}: answer in plain words"
        stage_soul_change(
            env.ws,
            base=base,
            proposed=base.rstrip("\n") + f"\n{line}\n",
            meta={"first": None, "last": None, "model": "test", "reason": "test", "head": None},
        )
        try:
            approve(env.store, env.git)
        except (
            MergeConflictError,
            LockTimeoutError,
        ):  # a conflict or a long wait: nothing written, not reported
            continue
        out.append(line)


def _thread_writer(root: Path, config, name: str, n: int, seed: int, out: list[str]) -> None:
    from reverie.storage.workspace import Workspace

    ws = Workspace(root)
    git = GitStore(ws, config.git)
    for i in range(n):
        line = f"- Writer {name} learned fact number {i:02d} in a thread"
        if append(ws, git, name, line):
            out.append(line)
        toggle_pin(ws, git, name, pinned=(seed + i) % 2 == 0)


def _kept(env) -> set[str]:
    keys = set()
    for rel in (MEM, USER, SOUL):
        keys |= {line_key(ln) for ln in env.read(rel).splitlines()}
        path = env.ws.root / archive_path(rel)
        if path.exists():
            keys |= {
                line_key(e[0]) for ln in path.read_text().splitlines() if (e := parse_entry(ln))
            }
    return keys


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 1000), n=st.integers(2, 4))
def test_concurrent_writers_never_lose_a_committed_line(tmp_path_factory, seed, n):
    env = make_env(tmp_path_factory.mktemp("ws") / "ws")
    _seed(env)
    committed: dict[str, list[str]] = {k: [] for k in ("dream", "approve", *THREADS)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(PROC), str(env.ws.root), name, str(n), str(seed + i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=PROC.parent,
        )
        for i, name in enumerate(PROCESSES)
    ]
    threads = [
        threading.Thread(target=_dream_writer, args=(env, n, committed["dream"])),
        threading.Thread(target=_approve_writer, args=(env, n, committed["approve"])),
    ]
    threads += [
        threading.Thread(
            target=_thread_writer,
            args=(env.ws.root, env.config, name, n, seed + i, committed[name]),
        )
        for i, name in enumerate(THREADS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, p in zip(PROCESSES, procs, strict=True):
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        committed[name] = [ln for ln in stdout.splitlines() if ln.startswith("- ")]
    kept = _kept(env)
    lost = [ln for lines in committed.values() for ln in lines if line_key(ln) not in kept]
    assert lost == []
    assert sum(len(v) for v in committed.values()) >= 2 * n  # the writers really wrote
    assert env.git_cli("status", "--porcelain").strip() == ""  # the files on disk are HEAD's
