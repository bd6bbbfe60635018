"""Reverie beside a real nanobot 0.1.5.post3 (issue 20): both append to one history.jsonl at the
same time (item 2), both migrate the same HISTORY.md to the same entries (item 3), both name a
session's file the same (item 1).

nanobot takes no lock and numbers its entries from ``.cursor`` + 1, so it can write a cursor Reverie
already used and leave the log out of order (``100`` then ``5``). Reverie must still never issue a
cursor that is already in the log.

nanobot runs from its peer environment, ``bench/.venvs/nanobot-0.1.5.post3``, which the test run
creates from the hash-locked ``bench/locks/nanobot-0.1.5.post3.lock`` (tests/support/peers.py);
under CI a failure to create it fails these tests rather than skipping them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from reverie import MemoryStore

VERSION = "0.1.5.post3"
pytestmark = pytest.mark.nanobot_peer(VERSION)
ROOT = Path(__file__).resolve().parent.parent

NANOBOT_WRITER = r"""
import sys, time
from pathlib import Path
from loguru import logger
logger.remove()
from nanobot.agent.memory import MemoryStore
store = MemoryStore(Path(sys.argv[1]))
print("ready", flush=True)
deadline = time.monotonic() + float(sys.argv[2])
i = 0
while time.monotonic() < deadline:
    # fresh stores too, like new agent turns
    store = MemoryStore(Path(sys.argv[1])) if i % 50 == 0 else store
    store.append_history(f"nanobot-{i}")
    i += 1
print(i, flush=True)
"""


@pytest.fixture(scope="module")
def nanobot(nanobot_peer_python: Path) -> Path:
    return nanobot_peer_python


def rows(path: Path) -> list[dict]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            pass  # a line torn by the two writers' interleaving is not Reverie's concern here
    return out


@pytest.mark.parametrize("run", range(int(os.environ.get("REVERIE_NANOBOT_RUNS", "1"))))
def test_reverie_never_issues_a_cursor_already_in_the_log(tmp_path, nanobot, run):
    """One 1.5 s run in the suite (the old last-line rule failed every run tried);
    REVERIE_NANOBOT_RUNS=N for more."""
    ws = tmp_path / "ws"
    store = MemoryStore(ws)
    for i in range(20):  # a history to start from, as nanobot would find it
        store.append_history(f"seed-{i}")
    proc = subprocess.Popen(
        [str(nanobot), "-c", NANOBOT_WRITER, str(ws), "1.5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", (
            proc.stderr.read()
        )
        issued: list[int] = []
        while proc.poll() is None:
            issued.append(store.append_history(f"reverie-{len(issued)}"))
            if len(issued) % 25 == 0:
                store = MemoryStore(ws)  # fresh stores too: a new process scans the whole log
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    nanobot_count = int(out.split()[-1])
    assert nanobot_count > 50 and len(issued) > 50, (
        nanobot_count,
        len(issued),
    )  # they really overlapped

    log = rows(ws / "memory" / "history.jsonl")
    mine = [
        (i, r["cursor"])
        for i, r in enumerate(log)
        if str(r.get("content", "")).startswith(("reverie-", "seed-"))
    ]
    assert [c for _, c in mine] == sorted(set(c for _, c in mine)), (
        "Reverie reused or reordered its own cursors"
    )
    # Everything up to Reverie's previous line was in the file before Reverie chose its next cursor:
    # that one must be larger than all of them (lines in between may have been written after the
    # choice, by the lock-free nanobot).
    for (prev_pos, _), (_, cursor) in zip(mine, mine[1:]):
        before = max(r["cursor"] for r in log[: prev_pos + 1] if isinstance(r.get("cursor"), int))
        assert cursor > before, f"Reverie issued {cursor} while {before} was already in the log"
    nanobot_cursors = [r["cursor"] for r in log if str(r.get("content", "")).startswith("nanobot-")]
    out_of_order = sum(1 for a, b in zip(log, log[1:]) if b.get("cursor", 0) <= a.get("cursor", 0))
    print(
        f"run {run}: Reverie {len(issued)}, nanobot {len(nanobot_cursors)} appends, "
        f"{out_of_order} out-of-order lines written",
        file=sys.stderr,
    )


LEGACY = (
    "# History\n"
    "[2026-04-01 10:00] User prefers dark mode.\n\n"
    "[2026-04-01 10:05] [RAW] 3 messages\n"
    "[2026-04-01 10:04] USER: hello\n"
    "[2026-04-01 10:04] ASSISTANT [tools: search]: hi\n"
    "[2026-04-01 10:04] USER: [2026-01-02] is my birthday\n\n"
    "Legacy chunk without timestamp.\n"
    "continued\n"
    "[2026-04-02] date only\n"
    "[2026-04-02 09:00]\n"
    "[2026-04-03 11:00] after an empty one\r\n\r\n\r\n"
    "[2026-03-25\u20132026-04-02] Multi-day summary.\n"
    "[2026-04-05 08:00] [RAW] 1 messages\n"
    "[2026-04-05 08:00] USER: x\n"
    "[2026-04-05 08:01] Normal event after raw block.\n"
)

NANOBOT_MIGRATE = r"""
import json, sys
from pathlib import Path
from loguru import logger
logger.remove()
from nanobot.agent.memory import MemoryStore
store = MemoryStore(Path(sys.argv[1]))
print(json.dumps(store.read_unprocessed_history(0)))
"""


def test_legacy_history_migrates_to_the_same_entries_as_nanobots(tmp_path, nanobot):
    theirs, ours = tmp_path / "nanobot", tmp_path / "reverie"
    for ws in (theirs, ours):
        (ws / "memory").mkdir(parents=True)
        (ws / "memory" / "HISTORY.md").write_bytes(LEGACY.encode())
        os.utime(ws / "memory" / "HISTORY.md", (1_700_000_000, 1_700_000_000))
    out = subprocess.run(
        [str(nanobot), "-c", NANOBOT_MIGRATE, str(theirs)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},
    ).stdout
    expected = [
        (e["cursor"], e["timestamp"], e["content"]) for e in orjson.loads(out.splitlines()[-1])
    ]
    got = [
        (e["cursor"], e["timestamp"], e["content"])
        for e in MemoryStore(ours).read_unprocessed_history(0)
    ]
    assert len(expected) == 10 and got == expected
    for name in (".cursor", ".dream_cursor"):
        assert (ours / "memory" / name).read_text().strip() == (
            theirs / "memory" / name
        ).read_text().strip()


KEYS = [
    "cli:alice",
    "email:alice@example.com",
    "telegram:-100123",
    "slack:T1/C2",
    'web:"quoted" <tag>',
    "a|b?c*d",
    " spaced:key ",
    "discord:José",
    "wechat:用户",
    "x:" + "界" * 60,
    "matrix:@bob:example.org",
    "k:a.b-c_d+e#f",
]

NANOBOT_NAMES = r"""
import json, sys
from pathlib import Path
from loguru import logger
logger.remove()
from nanobot.session.manager import SessionManager
manager = SessionManager(Path(sys.argv[1]))
print(json.dumps([manager._get_session_path(k).name for k in json.loads(sys.argv[2])]))
"""


def test_session_files_have_nanobots_names(tmp_path, nanobot):
    out = subprocess.run(
        [str(nanobot), "-c", NANOBOT_NAMES, str(tmp_path), orjson.dumps(KEYS).decode()],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},
    ).stdout
    from reverie.storage.sessions import SessionStore
    from reverie.storage.workspace import Workspace

    sessions = SessionStore(Workspace(tmp_path / "ws"))
    assert [sessions.path_for(k).name for k in KEYS] == orjson.loads(out.splitlines()[-1])
