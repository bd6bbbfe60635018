"""Reverie beside a real nanobot 0.3.5 (the current nanobot) on one workspace, both ways.

Issue 20 imitated a 0.3.5 workspace with the git CLI (tests/test_nanobot_workspace.py); here
nanobot-ai 0.3.5 itself writes and reads it: its ``MemoryStore`` (``append_history``,
``read_unprocessed_history``, the cursor files) and its ``GitStore`` (``init``, ``auto_commit``,
``log``, ``show_commit_diff``) run in a subprocess from their own virtual environment, and Reverie
runs in-process through its CLI (``reverie.cli.main``, ``--json``) and the offline engine.

nanobot runs from its peer environment, ``bench/.venvs/nanobot-0.3.5``, which the test run creates
from the hash-locked ``bench/locks/nanobot-0.3.5.lock`` (tests/support/peers.py); under CI a failure
to create it fails these tests rather than skipping them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import gitcli

from reverie import MemoryStore
from reverie.cli import main
from reverie.storage.sessions import SessionStore
from reverie.storage.workspace import Workspace

VERSION = "0.3.5"
pytestmark = pytest.mark.nanobot_peer(VERSION)
ROOT = Path(__file__).resolve().parent.parent

#: Runs nanobot's own API on a workspace: ``argv[1]`` the workspace, ``argv[2]`` a JSON list of
#: ``[op, *args]``; prints one JSON list with each op's answer. Only what nanobot 0.3.5 exposes
#: publicly.
NANOBOT = r"""
import json, sys
from pathlib import Path
from loguru import logger
logger.remove()
from nanobot.agent.memory import MemoryStore

store = MemoryStore(Path(sys.argv[1]))
git = store.git
out = []
for op, *args in json.loads(sys.argv[2]):
    if op == "init":
        out.append(git.init())
    elif op == "append":
        out.append(store.append_history(args[0], session_key=args[1] if len(args) > 1 else None))
    elif op == "write":  # memory, user or soul
        getattr(store, "write_" + args[0])(args[1])
        out.append(None)
    elif op == "read":
        out.append(getattr(store, "read_" + args[0])())
    elif op == "set_dream_cursor":
        store.set_last_dream_cursor(args[0])
        out.append(None)
    elif op == "dream_cursor":
        out.append(store.get_last_dream_cursor())
    elif op == "latest_cursor":
        out.append(store.get_latest_cursor())
    elif op == "unprocessed":
        out.append(store.read_unprocessed_history(since_cursor=args[0]))
    elif op == "commit":
        out.append(git.auto_commit(args[0]))
    elif op == "log":
        out.append([[c.sha, c.message] for c in git.log(max_entries=50)])
    elif op == "revert":
        out.append(git.revert(args[0]))
    elif op == "show":
        found = git.show_commit_diff(args[0], max_entries=50)
        out.append(None if found is None else [found[0].sha, found[0].message, found[1]])
    elif op == "compact":  # its retention, as MemoryStore(max_history_entries=) sets it
        store.max_history_entries = args[0]
        store.compact_history()
        out.append(None)
    elif op == "session":  # its SessionManager on this workspace, then one conversation by key
        from nanobot.session.manager import SessionManager
        manager = SessionManager(store.workspace)
        where = str(manager.sessions_dir)
        out.append({"dir": where, "messages": manager.get_or_create(args[0]).messages})
    else:
        raise SystemExit(f"unknown op {op!r}")
print(json.dumps(out))
"""


@pytest.fixture
def nanobot(nanobot_peer_python: Path, tmp_path: Path):
    """``nanobot(ws, [op, *args], ...)``: the answers of a real nanobot 0.3.5 process, in order."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REVERIE_", "PYTHON"))}
    env["HOME"] = str(tmp_path / "nanobot-home")

    def run(ws: Path, *ops: list[Any]) -> list[Any]:
        proc = subprocess.run(
            [str(nanobot_peer_python), "-c", NANOBOT, str(ws), json.dumps(list(ops))],
            capture_output=True,
            text=True,
            env=env,
            cwd=str(tmp_path),
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        answers: list[Any] = json.loads(proc.stdout.splitlines()[-1])
        return answers

    return run


@pytest.fixture
def reverie(capsys):
    """``reverie(ws, *args)``: Reverie's CLI in this process, its ``--json`` answer parsed; it
    must succeed."""

    def run(ws: Path, *args: str) -> Any:
        capsys.readouterr()
        rc = main(["-w", str(ws), "--json", *args])
        out = capsys.readouterr()
        assert rc == 0, out.err
        return json.loads(out.out)

    return run


def git(ws: Path, *args: str) -> str:
    return gitcli.git(ws, *args).strip()


def files(ws: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(ws)): p.read_bytes()
        for p in sorted(ws.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(ws).parts[:1]
    }


PORTO = "- [durable] Lives in Porto"
HERON = "- [durable] Decided: use PostgreSQL for Heron"
TEA = "- [durable] Prefers tea over coffee"


def test_a_nanobot_035_workspace_opens_in_reverie_as_is(tmp_path, nanobot, reverie):
    ws = tmp_path / "ws"
    # nanobot 0.3.5: its repo, three entries (one without a session key), and its Dream's edit of
    # entry 1 committed together with its cursor, as its own Dream does
    made = nanobot(
        ws,
        ["init"],
        ["append", PORTO],
        ["append", HERON, "cli:direct"],
        ["append", TEA, "telegram:42"],
        ["write", "memory", "# Memory\n- Lives in Porto\n"],
        ["set_dream_cursor", 1],
        ["commit", "dream: Porto"],
        ["log"],
    )
    assert made[:4] == [True, 1, 2, 3]
    nano_dream, nano_log = made[-2], made[-1]
    assert [m for _, m in nano_log] == ["dream: Porto", "init: nanobot memory store"]
    head, before = git(ws, "rev-parse", "HEAD"), files(ws)
    assert before["memory/.dream_cursor"] == b"1" and before["memory/.cursor"] == b"3"

    # queries: every nanobot entry and commit found, nothing written (no commit, no file of
    # nanobot's touched)
    status = reverie(ws, "status")
    assert (
        status["last_cursor"],
        status["dream_cursor"],
        status["pending"],
        status["problems"],
    ) == (3, 1, 2, [])
    log = reverie(ws, "log")
    assert [(c["short"], c["subject"]) for c in log] == [(s, m) for s, m in nano_log]
    shown = reverie(ws, "show", nano_dream)
    assert shown["info"]["subject"] == "dream: Porto" and "+- Lives in Porto" in shown["diff"]
    hits = reverie(ws, "search", "PostgreSQL Heron")
    assert {
        "kind": "history",
        "path": "memory/history.jsonl",
        "cursor": 2,
        "session_key": "cli:direct",
    } in [h["ref"] for h in hits]
    assert any(
        h["ref"].get("cursor") == 1 and "session_key" not in h["ref"]
        for h in reverie(ws, "search", "Porto")
    )
    after = files(ws)
    assert git(ws, "rev-parse", "HEAD") == head
    assert {
        k: v for k, v in after.items() if k in before
    } == before  # nothing of nanobot's changed or renamed

    # Dream (offline engine) takes only what nanobot's Dream had not: entries 2-3, committed on top
    # of nanobot's
    dreamed = reverie(ws, "dream", "--all")
    assert (dreamed["status"], dreamed["first"], dreamed["last"]) == ("ok", 2, 3)
    assert git(ws, "rev-parse", "HEAD") == dreamed["commit"]
    assert (
        git(ws, "merge-base", "--is-ancestor", head, dreamed["commit"]) == ""
    )  # nanobot's history kept
    assert git(ws, "fsck", "--no-progress") == ""
    memory, user = (ws / "memory" / "MEMORY.md").read_text(), (ws / "USER.md").read_text()
    assert "Decided: use PostgreSQL for Heron" in memory and "Prefers tea over coffee" in user
    assert (
        memory.count("Porto") == 1 and "Porto" not in user
    )  # entry 1, dreamed by nanobot, not dreamed again
    # nanobot's files are all there under their names; its .gitignore tightened (docs/nanobot.md,
    # "The memory repo"): its tracked memory files still tracked, .dream_cursor out of the tree but
    # on disk, the tree clean
    assert set(before) <= set(files(ws))
    assert git(ws, "ls-files").split() == [".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"]
    assert git(ws, "status", "--porcelain", "--untracked-files=all") == ""
    assert (ws / "memory" / "history.jsonl").read_bytes() == before["memory/history.jsonl"]

    # nanobot opens it again: Reverie's cursor and commits, and it carries on writing
    (
        inited,
        cursor,
        past_1,
        past_3,
        memory_md,
        log2,
        shown,
        reverted,
        after_revert,
        appended,
        _,
        soul,
        top,
    ) = nanobot(
        ws,
        ["init"],
        ["dream_cursor"],
        ["unprocessed", 1],
        ["unprocessed", 3],
        ["read", "memory"],
        ["log"],
        ["show", dreamed["commit"][:8]],
        ["revert", dreamed["commit"][:8]],
        ["read", "memory"],
        ["append", "- small talk", "cli:direct"],
        ["write", "soul", "I am nanobot.\n"],
        ["commit", "soul: nanobot edit"],
        ["log"],
    )
    assert inited is False and cursor == 3  # its repo found as is; Reverie's Dream cursor
    assert [(e["cursor"], e.get("session_key")) for e in past_1] == [
        (2, "cli:direct"),
        (3, "telegram:42"),
    ]
    assert past_3 == [] and "PostgreSQL" in memory_md
    assert log2[0][0] == dreamed["commit"][:8] and log2[-2:] == nano_log
    assert shown[0] == dreamed["commit"][:8] and "+- Decided: use PostgreSQL for Heron" in shown[2]
    # nanobot's own undo of Reverie's Dream commit: its parent's memory back, the Dream cursor
    # untouched
    assert reverted and after_revert == "# Memory\n- Lives in Porto\n"
    assert appended == 4 and soul and [s for s, _ in top[:2]] == [soul, reverted]
    assert git(ws, "rev-parse", "HEAD~2") == dreamed["commit"]
    assert git(ws, "ls-files").split() == [".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"]
    assert git(ws, "status", "--porcelain", "--untracked-files=all") == ""
    status = reverie(ws, "status")
    assert (status["last_cursor"], status["dream_cursor"], status["pending"]) == (4, 3, 1)
    subjects = [c["subject"] for c in reverie(ws, "log")[:2]]
    assert subjects == ["soul: nanobot edit", f"revert: undo {dreamed['commit'][:8]}"]


def test_what_reverie_writes_nanobot_035_reads_back(tmp_path, nanobot, reverie):
    ws = tmp_path / "ws"
    assert main(["-w", str(ws), "init"]) == 0
    assert [
        reverie(ws, "history", "append", *a)["cursor"]
        for a in ([PORTO], ["--session", "telegram:42", TEA], ["--session", "cli:direct", HERON])
    ] == [1, 2, 3]
    dreamed = reverie(ws, "dream", "--all")
    assert (dreamed["status"], dreamed["last"]) == ("ok", 3)
    assert (
        reverie(ws, "history", "append", "--session", "cli:direct", "- weather talk")["cursor"] == 4
    )
    restored = reverie(ws, "restore", dreamed["commit"])  # memory as before the Dream commit
    assert "PostgreSQL" not in (ws / "memory" / "MEMORY.md").read_text()
    ours = [(c["short"], c["subject"]) for c in reverie(ws, "log")]
    assert [s for s, _ in ours[:2]] == [restored["commit"][:8], dreamed["commit"][:8]]

    seen = nanobot(
        ws,
        ["init"],
        ["dream_cursor"],
        ["latest_cursor"],
        ["unprocessed", 0],
        ["unprocessed", 3],
        ["log"],
        ["show", dreamed["commit"][:8]],
        ["show", restored["commit"][:8]],
        ["read", "memory"],
        ["write", "memory", "# Memory\n- Heron ships in May\n"],
        ["commit", "nanobot: Heron date"],
        ["append", "- [durable] Heron ships in May", "telegram:42"],
        ["latest_cursor"],
        ["log"],
    )
    assert seen[0] is False and (seen[1], seen[2]) == (3, 4)
    assert [(e["cursor"], e["content"], e.get("session_key")) for e in seen[3]] == [
        (1, PORTO, None),
        (2, TEA, "telegram:42"),
        (3, HERON, "cli:direct"),
        (4, "- weather talk", "cli:direct"),
    ]
    assert [e["cursor"] for e in seen[4]] == [4]
    assert [(s, m.splitlines()[0]) for s, m in seen[5]] == ours
    assert "+- Decided: use PostgreSQL for Heron" in seen[6][2]
    assert "-- Decided: use PostgreSQL for Heron" in seen[7][2] and "PostgreSQL" not in seen[8]
    nano_commit = seen[10]
    assert (
        nano_commit
        and seen[13][0] == [nano_commit, "nanobot: Heron date"]
        and seen[13][1][0] == restored["commit"][:8]
    )
    assert (seen[11], seen[12]) == (5, 5)  # nanobot's cursor continues Reverie's sequence
    # nanobot's auto_commit stages only what Reverie's ignore rules let through (not its
    # .dream_cursor)
    assert git(ws, "ls-files").split() == [".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"]
    assert git(ws, "fsck", "--no-progress") == ""

    # and Reverie carries on after nanobot: the next cursor past nanobot's, no duplicate, Dream on
    # top of its commit
    status = reverie(ws, "status")
    assert (status["last_cursor"], status["dream_cursor"], status["pending"]) == (5, 3, 2)
    assert reverie(ws, "log")[0]["subject"] == "nanobot: Heron date"
    assert reverie(ws, "history", "append", "- [durable] Decided: Heron uses Rust")["cursor"] == 6
    cursors = [
        json.loads(line)["cursor"]
        for line in (ws / "memory" / "history.jsonl").read_text().splitlines()
    ]
    assert cursors == [1, 2, 3, 4, 5, 6]
    again = reverie(ws, "dream", "--all")
    assert (again["status"], again["first"], again["last"]) == ("ok", 4, 6)
    assert git(ws, "rev-parse", f"{again['commit']}~1").startswith(nano_commit)
    memory = (ws / "memory" / "MEMORY.md").read_text()
    assert "Heron ships in May" in memory and "Decided: Heron uses Rust" in memory
    assert nanobot(ws, ["dream_cursor"], ["unprocessed", 3])[0] == 6


def test_a_fresh_nanobot_035_workspace_its_empty_dream_cursor_is_no_corruption(
    tmp_path, nanobot, reverie
):
    """nanobot's GitStore.init creates memory/.dream_cursor empty (it reads that as 0). Reverie said
    "cursor corrupt" and Dream refused to run in every such workspace until a person wrote a number
    into it."""
    ws = tmp_path / "ws"
    assert nanobot(ws, ["init"], ["append", PORTO], ["append", HERON, "cli:direct"])[1:] == [1, 2]
    assert (ws / "memory" / ".dream_cursor").read_bytes() == b""
    status = reverie(ws, "status")
    assert (status["dream_cursor"], status["pending"], status["problems"]) == (0, 2, [])
    dreamed = reverie(ws, "dream", "--all")
    assert (dreamed["status"], dreamed["first"], dreamed["last"]) == ("ok", 1, 2)
    back = nanobot(ws, ["dream_cursor"], ["unprocessed", 2], ["log"])
    assert back[:2] == [2, []] and back[2][0][0] == dreamed["commit"][:8]


def test_legacy_history_migrates_to_the_same_entries_as_nanobot_035s(tmp_path, nanobot):
    from test_nanobot_concurrent import LEGACY

    theirs, ours = tmp_path / "nanobot", tmp_path / "reverie"
    for ws in (theirs, ours):
        (ws / "memory").mkdir(parents=True)
        (ws / "memory" / "HISTORY.md").write_bytes(LEGACY.encode())
        os.utime(ws / "memory" / "HISTORY.md", (1_700_000_000, 1_700_000_000))
    expected = [
        (e["cursor"], e["timestamp"], e["content"]) for e in nanobot(theirs, ["unprocessed", 0])[0]
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


def test_nanobot_035_takes_the_workspace_conversations_into_its_own_store(tmp_path, nanobot):
    """A known difference, not shared (docs/nanobot.md, "Sessions"): nanobot 0.3.5 keeps
    conversations outside the workspace (``~/.nanobot/sessions/<workspace id>/<base64url
    key>.jsonl``) and, when its SessionManager starts, moves ``<workspace>/sessions/*.jsonl`` there
    under their old names, which it never looks up by key. The conversation is kept byte for byte,
    but neither tool finds it by its key afterwards. Fails when nanobot changes that, so the
    documentation gets updated."""
    ws = Workspace(tmp_path / "ws")
    ws.init()
    sessions = SessionStore(ws)
    session = sessions.get_or_create("cli:direct")
    sessions.append(session, {"role": "user", "content": "hello from Reverie"})
    data = session.path.read_bytes()
    seen = nanobot(ws.root, ["session", "cli:direct"])[0]
    assert seen["messages"] == [] and not session.path.exists()
    assert (Path(seen["dir"]) / session.path.name).read_bytes() == data  # moved, not lost
    assert SessionStore(ws).get_or_create("cli:direct").messages == []


def test_nanobot_035_compacting_the_log_under_reverie(tmp_path, nanobot):
    """nanobot's compact_history replaces history.jsonl (a new file, fewer lines, past Reverie's
    cursor checkpoint history.jsonl.maxcursor): it keeps every entry past Reverie's Dream cursor,
    and Reverie's next cursor is still past the largest ever issued."""
    ws = tmp_path / "ws"
    store = MemoryStore(ws)
    assert [store.append_history(f"entry {i}") for i in range(6)] == [1, 2, 3, 4, 5, 6]
    store.set_dream_cursor(4)
    assert (ws / "memory" / "history.jsonl.maxcursor").exists()
    kept = nanobot(ws, ["compact", 1], ["unprocessed", 0])[1]
    assert [(e["cursor"], e["content"]) for e in kept] == [(5, "entry 4"), (6, "entry 5")]
    assert [e["cursor"] for e in store.read_unprocessed_history(0)] == [5, 6]
    assert store.append_history("after nanobot's compaction") == 7
    assert MemoryStore(ws).append_history("a fresh process") == 8
