"""Model-based fuzzing of history.jsonl (issue 8, item 4): random interleavings of appends, torn
tails, garbage lines, hint corruption, restarts, Dream-cursor moves, Dream's reads, compaction and
reads. After every step the reader returns exactly the acknowledged entries (minus those compaction
was allowed to drop, plus the copies Dream's requeue appended), and cursors are never reused.

The model knows Dream's requeue (``HistoryLog.requeue_late``, run by Dream's read and by
compaction): an entry appended after Dream's last read whose cursor the Dream cursor has passed
(here: the cursor moved by another tool, as nanobot's own Dream moves it, without Reverie's read) is
appended again with a fresh cursor and ``requeued_from``, so Dream still reads it.

The byte-level constants are shrunk so a few kilobytes already exercise bisection and chunk
boundaries.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from reverie.errors import ConfigError
from reverie.storage import appendlog
from reverie.storage import history as history_module
from reverie.storage.config import save_config, validate_config
from reverie.storage.history import HistoryEntry, HistoryLog

TEXT = st.text(max_size=120) | st.sampled_from(
    ["", "\n", "ascii line", "é" * 50, 'quote " and \\ backslash', '{"cursor": 1}', "x" * 400]
)
SESSION = st.none() | st.sampled_from(["cli:a", "telegram:42", ""])


def _is_entry(raw: bytes) -> bool:
    try:
        HistoryEntry.from_json(raw)
    except ValueError:
        return False
    return True


GARBAGE_LINE = (
    st.one_of(
        st.binary(max_size=80),
        st.sampled_from(
            [
                b"not json",
                b"[1, 2]",
                b'"str"',
                b"null",
                b'{"cursor": true, "timestamp": "t", "content": "c"}',
                b'{"cursor": -3, "timestamp": "t", "content": "c"}',
                b'{"cursor": 5, "timestamp": 1, "content": "c"}',
                b'{"cursor": 9, "content": "\xff\xfe"}',
                b"\xc3\x28\xa0\xa1",
            ]
        ),
    )
    .map(lambda b: b.replace(b"\n", b" "))
    .filter(lambda b: not _is_entry(b))
)


class HistoryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="reverie-fuzz-"))
        self.log = self._open()
        self.model: dict[
            int, tuple[str, str | None]
        ] = {}  # acknowledged entries still expected on disk
        self.issued_max = 0
        self.dream = 0
        self.torn_pending = False
        self.order: list[int] = []  # the entries' cursors in file order
        self.read_to: int | None = None  # len(order) at Dream's last read (no mark yet: None)

    def _open(self) -> HistoryLog:
        return HistoryLog(
            self.dir / "history.jsonl",
            self.dir / ".cursor",
            self.dir / ".dream_cursor",
            fsync=False,
            max_entry_chars=300,
        )

    def teardown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- writers -----------------------------------------------------------------------------------
    @rule(content=TEXT, session=SESSION)
    def append(self, content: str, session: str | None) -> None:
        cursor = self.log.append(content, session)
        assert cursor > self.issued_max, "a cursor was reused or went backwards"
        self.issued_max = cursor
        self.model[cursor] = (self.log.prepare_content(content), session)
        self.order.append(cursor)
        self.torn_pending = False

    @rule(n=st.integers(1, 30))
    def bulk_append(self, n: int) -> None:
        for i in range(n):
            self.append(f"bulk entry {i} " + "b" * (i * 7 % 90), None)

    @rule(cut=st.integers(1, 200), content=TEXT)
    def crash_mid_append(self, cut: int, content: str) -> None:
        """A writer died mid-line: a prefix of a real line (never complete) is left at the end."""
        line = HistoryEntry(self.issued_max + 1, "2026-01-01 10:00", content).to_json()
        with open(self.log.path, "ab") as f:
            f.write(line[: min(cut, len(line) - 2)])
        self.torn_pending = True

    @precondition(lambda self: not self.torn_pending)
    @rule(garbage=GARBAGE_LINE)
    def garbage_line(self, garbage: bytes) -> None:
        with open(self.log.path, "ab") as f:
            f.write(garbage + b"\n")

    @rule(
        value=st.sampled_from([b"", b"garbage", b"-1", b"1", b"0", b"\xff", b"12 34"]) | st.none()
    )
    def mangle_cursor_hint(self, value: bytes | None) -> None:
        if value is None:
            self.log.cursor_path.unlink(missing_ok=True)
        else:
            self.log.cursor_path.write_bytes(value)

    @rule()
    def restart(self) -> None:
        self.log = self._open()  # a new process: no cached tail

    @rule(step=st.integers(0, 40))
    def advance_dream(self, step: int) -> None:
        """The Dream cursor moved without Reverie's read (another tool's Dream)."""
        self.dream = min(self.issued_max, self.dream + step)
        self.log.dream_cursor_path.write_text(f"{self.dream}\n")

    def _requeued(self) -> None:
        """What ``requeue_late`` (Dream's read, compaction) just did: each entry past the last read
        whose cursor the Dream cursor passed is now a copy at the end, with a fresh cursor (above
        every cursor issued, in order) and ``requeued_from``; the whole log counts as read. (No log
        yet: nothing is read or marked.)"""
        if not self.log.path.exists():
            return
        late = [c for c in self.order[self.read_to or 0 :] if c <= self.dream]
        if self.read_to is None:  # no read yet: only entries out of order (none here)
            late = [c for i, c in enumerate(self.order) if c < max(self.order[:i], default=0)]
        copies = [e for e in self._open().read_since(self.issued_max)]
        assert [e.extra.get("requeued_from") for e in copies] == late
        for entry, old in zip(copies, late):
            assert entry.cursor > self.issued_max, "a requeued entry reused a cursor"
            assert (entry.content, entry.session_key) == self.model[old]
            self.issued_max = entry.cursor
            self.model[entry.cursor] = self.model[old]
            self.order.append(entry.cursor)
        self.read_to = len(self.order)
        self.torn_pending = False

    @rule(limit=st.none() | st.integers(1, 30))
    def dream_read(self, limit: int | None) -> None:
        """Reverie's Dream reads what it has not consumed (requeueing first)."""
        got = self.log.read_pending(self.dream, limit)
        self._requeued()
        want = [c for c in self.order if c > self.dream and c in self.model][:limit]
        assert [e.cursor for e in got] == want

    @rule(keep=st.integers(0, 25))
    def compact(self, keep: int) -> None:
        before = dict(self.model)
        dropped = self.log.compact(keep)
        self._requeued()
        present = sorted(self.model)
        excess = len(present) - keep
        expected_drop = [c for c in present[: max(0, excess)] if c <= self.dream]
        assert dropped == len(expected_drop)
        for c in expected_drop:
            del self.model[c]
        self.order = [c for c in self.order if c in self.model]
        if self.read_to is not None:
            self.read_to = len(self.order)  # the mark moved to the new file's end
        assert set(before) - set(self.model) == set(expected_drop)

    # -- readers -----------------------------------------------------------------------------------
    @rule(since=st.integers(-2, 400), limit=st.none() | st.integers(1, 30))
    def read(self, since: int, limit: int | None) -> None:
        want = [c for c in sorted(self.model) if c > since]
        if limit is not None:
            want = want[:limit]
        got = self.log.read_since(since, limit)
        assert [e.cursor for e in got] == want
        assert [(e.content, e.session_key) for e in got] == [self.model[c] for c in want]

    @invariant()
    def reader_returns_exactly_the_acknowledged_entries(self) -> None:
        got = self._open().read_since(0)
        assert [e.cursor for e in got] == sorted(self.model)
        assert all((e.content, e.session_key) == self.model[e.cursor] for e in got)
        assert self._open().last_cursor() >= self.issued_max


@pytest.mark.slow
def test_history_log_model_based(monkeypatch):
    monkeypatch.setattr(history_module, "_LINEAR_SCAN_BYTES", 48)
    monkeypatch.setattr(appendlog, "CHUNK", 64)
    run_state_machine_as_test(
        HistoryMachine,
        settings=settings(
            max_examples=60,
            stateful_step_count=40,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )


# -- random config documents -----------------------------------------------------------------------
_KEYS = st.sampled_from(
    [
        "agents",
        "defaults",
        "dream",
        "intervalH",
        "cron",
        "model",
        "modelOverride",
        "maxBatchSize",
        "maxIterations",
        "providers",
        "openai",
        "apiKey",
        "memory",
        "history",
        "fsync",
        "retention",
        "maxEntryChars",
        "git",
        "trackedFiles",
        "x",
        "INTERVAL_H",
        "max_tokens",
    ]
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(_KEYS | st.text(max_size=6), children, max_size=5)
    ),
    max_leaves=25,
)
_NESTED = st.fixed_dictionaries(
    {},
    optional={
        "agents": st.fixed_dictionaries(
            {}, optional={"defaults": st.dictionaries(_KEYS, _JSON, max_size=6)}
        ),
        "memory": st.dictionaries(_KEYS, _JSON, max_size=3),
        "providers": st.dictionaries(st.text(max_size=6), _JSON, max_size=3),
    },
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(doc=_NESTED | st.dictionaries(_KEYS, _JSON, max_size=5))
def test_random_config_documents_load_or_fail_with_a_config_error(doc):
    try:
        cfg = validate_config(doc)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("config: ")
        return
    assert isinstance(cfg.model, str) and isinstance(cfg.dream_model, str)
    out = Path(tempfile.mkdtemp(prefix="reverie-cfg-")) / "config.json"
    try:
        save_config(cfg, out)  # written back, it loads to the same config
        assert validate_config(json.loads(out.read_bytes())).dump() == cfg.dump()
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
