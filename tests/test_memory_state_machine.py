"""A hypothesis state machine drives one shared ``Memory`` from several threads at once.

Each step draws a batch of verbs (remember, recall and its async twin, an edit that appends a line
from the state it read, a removal, a pin, Dream, a restore confirmed from its preview, log, status,
context, why) and runs them together, one thread each, released by a barrier. After every step the
model is checked: no verb failed but a write whose lines moved under it (``EditConflictError``,
retried from the new state, never lost); every acknowledged history entry is there exactly once;
every line an edit acknowledged is in MEMORY.md exactly once, unless an acknowledged removal took it
out (then it is in the archive) or an acknowledged restore's preview showed it going; no tracked
file differs from HEAD. At the end the memory repo passes ``git fsck --strict``.

Interleavings differ between runs (threads), so a failure may not replay; the examples are few and
the steps small to keep the file at seconds.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import reverie
from reverie import EditConflictError, content_id
from reverie.storage.config import Config

MEM = "memory/MEMORY.md"
CONFIG = {"agents": {"defaults": {"dream": {"memoryMaxChars": 200_000, "userMaxChars": 200_000}}}}
VERBS = (
    "remember",
    "recall",
    "arecall",
    "append",
    "remove",
    "pin",
    "dream",
    "restore",
    "log",
    "status",
    "context",
    "why",
)
_ids = itertools.count()


class SharedMemory(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(_tmp_root()) / f"ws{next(_ids)}"
        self.memory = reverie.open(self.root, config=Config.model_validate(CONFIG))
        self.memory.init()
        self.memory.write(MEM, "# Memory\n\n## Notes\n- The project is called Heron.\n")
        self.setup = {c.sha for c in self.memory.log(limit=100)}  # never restored away
        self.lock = threading.Lock()  # guards the model below, filled by the worker threads
        self.cursors: list[int] = []
        self.appended: set[str] = set()  # lines an edit acknowledged
        self.removed: set[str] = set()  # lines a removal acknowledged
        self.restored_away: set[str] = set()  # lines an acknowledged restore's preview removed
        self.claimed: set[str] = set()  # lines a removal is working on
        self.errors: list[str] = []
        self.n = itertools.count()

    # -- the verbs ---------------------------------------------------------------------------------
    def _remember(self) -> None:
        i = next(self.n)
        cursor = self.memory.remember(f"User: I worked on task {i} with Dana today.").cursor
        with self.lock:
            self.cursors.append(cursor)

    def _append(self) -> None:
        line = f"- Note {next(self.n)} of the shared run."
        for _ in range(50):
            text = self.memory.read(MEM)
            try:
                self.memory.write(MEM, text + line + "\n", base=content_id(text))
            except EditConflictError:
                continue
            with self.lock:
                self.appended.add(line)
            return
        raise AssertionError(f"{line!r}: 50 conflicts in a row")

    def _remove(self) -> None:
        with self.lock:  # each removal takes a line of its own (two at once would race for one)
            candidates = sorted(self.appended - self.removed - self.restored_away - self.claimed)
            if not candidates:
                return
            line = candidates[0]
            self.claimed.add(line)
        if line not in self.memory.read(MEM):
            return
        self.memory.remove(MEM, line.lstrip("- "), reason="the state machine removes it")
        with self.lock:
            self.removed.add(line)

    def _pin(self) -> None:
        self.memory.pin("project is called Heron", unpin=next(self.n) % 2 == 0)

    def _restore(self) -> None:
        newest = self.memory.log(limit=1)[0]
        if newest.sha in self.setup:
            return
        plan = self.memory.plan_restore(newest.sha)
        try:
            done = self.memory.restore(newest.sha, base=plan.base)
        except EditConflictError:
            return  # a change since touched the same lines: nothing written, nothing to model
        gone = {ln[1:] for ln in plan.diff.splitlines() if ln.startswith("-- Note ")}
        back = {ln[1:] for ln in plan.diff.splitlines() if ln.startswith("+- Note ")}
        if done.commit:  # (one restore a step, none beside a removal: the model's order is exact)
            with self.lock:
                self.restored_away = (self.restored_away - back) | gone
                self.removed -= back

    def _run(self, verb: str) -> None:
        m = self.memory
        if verb == "remember":
            self._remember()
        elif verb == "recall":
            m.recall("task Dana")
        elif verb == "arecall":
            asyncio.run(m.arecall("Note shared run"))
        elif verb == "append":
            self._append()
        elif verb == "remove":
            self._remove()
        elif verb == "pin":
            self._pin()
        elif verb == "dream":
            m.dream()
        elif verb == "restore":
            self._restore()
        elif verb == "log":
            m.log(limit=10)
        elif verb == "status":
            m.status()
        elif verb == "context":
            m.context()
        else:
            m.why("Heron")

    # -- the steps ---------------------------------------------------------------------------------
    @rule(verbs=st.lists(st.sampled_from(VERBS), min_size=2, max_size=4))
    def together(self, verbs: list[str]) -> None:
        if verbs.count("restore") > 1 or ("restore" in verbs and "remove" in verbs):
            verbs = [v for v in verbs if v != "restore"] + ["restore"]
            verbs = [v for v in verbs if v != "remove"] if "restore" in verbs else verbs
        start = threading.Barrier(len(verbs))

        def one(verb: str) -> None:
            start.wait()
            try:
                self._run(verb)
            except Exception as exc:  # noqa: BLE001 - every failure is the model's evidence
                with self.lock:
                    self.errors.append(f"{verb}: {type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=one, args=(v,)) for v in verbs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    # -- the model ---------------------------------------------------------------------------------
    @invariant()
    def nothing_failed(self) -> None:
        assert self.errors == []

    @invariant()
    def every_acknowledged_entry_once(self) -> None:
        cursors = [e.cursor for e in self.memory.history()]
        assert len(cursors) == len(set(cursors))
        assert set(self.cursors) <= set(cursors)

    @invariant()
    def every_acknowledged_line_where_it_belongs(self) -> None:
        text = self.memory.read(MEM)
        archive = self.memory.read("memory/archive/memory.md") if self.removed else ""
        for line in self.appended:
            count = text.count(line + "\n")
            if line in self.removed:
                assert count == 0 and line[2:] in archive, line
            elif line in self.restored_away:
                assert count == 0, line
            else:
                assert count == 1, (line, text)

    @invariant()
    def files_are_committed(self) -> None:
        assert self.memory.runtime.git.dirty() == []

    def teardown(self) -> None:
        fsck = subprocess.run(
            ["git", f"--git-dir={self.root / '.git'}", "fsck", "--strict"],
            capture_output=True,
            text=True,
        )
        self.memory.close()
        assert fsck.returncode == 0, fsck.stderr


_TMP: list[Path] = []


def _tmp_root() -> Path:
    return _TMP[-1]


@pytest.fixture(autouse=True)
def _root(tmp_path: Path) -> Any:
    _TMP.append(tmp_path)
    yield
    _TMP.pop()


TestSharedMemory = SharedMemory.TestCase
TestSharedMemory.settings = settings(
    max_examples=12,
    stateful_step_count=5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
