"""Model-based fuzzing of session files: appends, torn tails, garbage lines, offsets, clears and
restarts.

Invariant after every step, read back from disk by a fresh store (a restart): the messages are
exactly the ones appended and not cleared, in order — torn writes and garbage never hide or reorder
a message — and the offset is the last one saved (0 after a clear).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from reverie.storage.sessions import SessionStore
from reverie.storage.workspace import Workspace

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


class SessionFiles(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="sessions-fuzz-"))
        self.ws = Workspace(self.dir / "ws")
        self.ws.init()
        self.store = SessionStore(self.ws, fsync=False)
        self.session = self.store.get_or_create("fuzz:1")
        self.live: list[str] = []
        self.offset = 0
        self.counter = 0

    def teardown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    @rule(text=TEXT, role=st.sampled_from(["user", "assistant", "tool"]))
    def append(self, text: str, role: str) -> None:
        self.counter += 1
        content = f"{self.counter}:{text}"
        self.store.append(self.session, {"role": role, "content": content})
        self.live.append(content)

    @precondition(lambda self: self.session.path is not None and self.session.path.exists())
    @rule(junk=st.binary(max_size=30))
    def crash_mid_append(self, junk: bytes) -> None:
        with open(self.session.path, "ab") as f:  # a torn line: the process died inside a write
            f.write(b'{"role": "user", "content": "torn' + junk.replace(b"\n", b""))

    @precondition(lambda self: self.session.path is not None and self.session.path.exists())
    @rule(junk=st.binary(min_size=1, max_size=30))
    def garbage_line(self, junk: bytes) -> None:
        self.store.append(
            self.session, {"role": "user", "content": "before garbage"}
        )  # repairs any torn tail
        self.counter += 1
        self.live.append("before garbage")
        with open(self.session.path, "ab") as f:
            f.write(b"\x00garbage " + junk.replace(b"\n", b"") + b"\n")

    @rule(data=st.data())
    def save_offset(self, data: st.DataObject) -> None:
        if not self.live:
            return
        value = data.draw(st.integers(0, len(self.live)))
        self.store.save_offset(self.session, value)
        self.offset = value

    @rule(data=st.data())
    def clear(self, data: st.DataObject) -> None:
        if self.session.path is None or not self.session.path.exists():
            return
        consolidated = data.draw(st.integers(0, len(self.live)))
        self.store.clear(self.session, consolidated=consolidated)
        self.live = self.live[consolidated:]
        self.offset = 0

    @rule()
    def restart(self) -> None:
        self.store = SessionStore(self.ws, fsync=False)
        self.session = self.store.get_or_create("fuzz:1")

    @invariant()
    def disk_matches_the_model(self) -> None:
        loaded = SessionStore(self.ws, fsync=False).get_or_create("fuzz:1")
        assert [m["content"] for m in loaded.messages] == self.live
        assert loaded.last_consolidated == self.offset


TestSessionFiles = SessionFiles.TestCase
TestSessionFiles.settings = settings(
    max_examples=40,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
