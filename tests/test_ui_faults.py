"""Faults as banners: every file of a workspace a person (or a tool, or a full disk) can damage,
damaged one at a time, then every page of ``reverie ui`` requested. No page answers 500; a fault
names its file, and what to do, on every page; the pages still show what they can."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from html import unescape
from pathlib import Path

import pytest
from support.ui_app import signed_in

import reverie
from tests.support.ui_workspace import seeded

TOKEN = "t0k3n-" + "f" * 30
PREFIX = "/" + "f" * 22


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded workspace (two Dream runs, a SOUL.md proposal), an archive file, a set-aside
    batch and a conversation: every file there is to damage."""
    from reverie.dream.deadletter import append_dead_letter, deadletter_path

    memory = seeded(tmp_path_factory.mktemp("faults") / "ws")
    memory.remove("USER.md", "- Works at ACME", reason="a test")
    append_dead_letter(deadletter_path(memory.workspace.memory_dir), 4, 6, "kept failing", 3)
    talk = memory.runtime.sessions.get_or_create("cli:alice")
    memory.runtime.sessions.append(talk, {"role": "user", "content": "I live in Berlin"})
    memory.recall("Berlin")
    memory.close()
    return memory.workspace.root


def _head_object(ws: Path) -> Path:
    sha = (ws / ".git/refs/heads/main").read_text().strip()
    return ws / ".git/objects" / sha[:2] / sha[2:]


def _rewrite(path: Path, data: bytes) -> None:
    os.chmod(path, 0o644)
    path.write_bytes(data)


def _replace_with_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "inside").write_text("x")


Damage = Callable[[Path], None]

#: (name, what to do to the workspace, the file the banner must name — None: read around silently).
DAMAGES: list[tuple[str, Damage, str | None]] = [
    (
        "SOUL.md proposal not JSON",
        lambda ws: (ws / "memory/.reverie/pending-soul.json").write_text("{not json"),
        "memory/.reverie/pending-soul.json",
    ),
    (
        "SOUL.md proposal of another version",
        lambda ws: (ws / "memory/.reverie/pending-soul.json").write_text('{"version": 9}'),
        "memory/.reverie/pending-soul.json",
    ),
    (
        "SOUL.md proposal binary",
        lambda ws: (ws / "memory/.reverie/pending-soul.json").write_bytes(b"\xff\xfe\x00"),
        "memory/.reverie/pending-soul.json",
    ),
    ("config not JSON", lambda ws: (ws / "reverie.json").write_text("{oops"), "reverie.json"),
    ("config a list", lambda ws: (ws / "reverie.json").write_text("[1, 2]"), "reverie.json"),
    (
        "config a bad value",
        lambda ws: (ws / "reverie.json").write_text('{"memory": {"history": {"fsync": "maybe"}}}'),
        "reverie.json",
    ),
    ("config binary", lambda ws: (ws / "reverie.json").write_bytes(b"\xff\xfe"), "reverie.json"),
    (
        "archive invalid UTF-8",
        lambda ws: _rewrite(ws / "memory/archive/user.md", b"# Archive: USER.md\n\xff\xfe\n"),
        "memory/archive/user.md",
    ),
    (
        "archive a directory",
        lambda ws: _replace_with_directory(ws / "memory/archive/user.md"),
        "memory/archive/user.md",
    ),
    (
        "archive without its header",
        lambda ws: (ws / "memory/archive/user.md").write_text("- a line\n"),
        "memory/archive/user.md",
    ),
    (
        "USER.md invalid UTF-8",
        lambda ws: (ws / "USER.md").write_bytes(b"# User\n- Lives in \xff\xfe Berlin\n"),
        "USER.md",
    ),
    ("USER.md a directory", lambda ws: _replace_with_directory(ws / "USER.md"), "USER.md"),
    (
        "SOUL.md a symlink out",
        lambda ws: ((ws / "SOUL.md").unlink(), (ws / "SOUL.md").symlink_to("/etc/hostname")),
        "SOUL.md",
    ),
    (
        "MEMORY.md with control characters",
        lambda ws: (ws / "memory/MEMORY.md").write_text("# Memory\n- \x1b[8mhidden\x1b[0m x\n"),
        "memory/MEMORY.md",
    ),
    ("MEMORY.md gone", lambda ws: (ws / "memory/MEMORY.md").unlink(), None),
    (
        "history with garbage lines",
        lambda ws: (ws / "memory/history.jsonl").open("ab").write(b'{"cursor": oops\n\xff\n'),
        "memory/history.jsonl",
    ),
    (
        "history torn at its end",
        lambda ws: (ws / "memory/history.jsonl").open("ab").write(b'{"cursor": 99, "tim'),
        None,
    ),
    ("cursor hint garbage", lambda ws: (ws / "memory/.cursor").write_text("abc"), None),
    (
        "Dream cursor garbage",
        lambda ws: (ws / "memory/.dream_cursor").write_text("abc"),
        "memory/.dream_cursor",
    ),
    (
        "Dream cursor garbage, no record",
        lambda ws: (
            (ws / "memory/.dream_cursor").write_text("abc"),
            (ws / "memory/.reverie/dream-cursor.json").unlink(),
        ),
        "memory/.dream_cursor",
    ),
    (
        "Dream status record garbage",
        lambda ws: (ws / "memory/.reverie/dream-status.json").write_text("{"),
        "memory/.reverie/dream-status.json",
    ),
    (
        "set-aside log garbage",
        lambda ws: (ws / "memory/dream-deadletter.jsonl").write_bytes(b"{garbage\n"),
        "memory/dream-deadletter.jsonl",
    ),
    (
        "search index garbage",
        lambda ws: (ws / "memory/.index.sqlite").write_bytes(b"garbage" * 100),
        None,
    ),
    (
        "conversation garbage",
        lambda ws: (ws / "sessions/cli_alice.jsonl").write_bytes(b"\xff{garbage\n"),
        None,
    ),
    (
        "HEAD commit truncated",
        lambda ws: _rewrite(_head_object(ws), _head_object(ws).read_bytes()[:40]),
        ".git/refs/heads/main",
    ),
    ("HEAD commit missing", lambda ws: _head_object(ws).unlink(), ".git/refs/heads/main"),
    (
        "branch ref garbage",
        lambda ws: (ws / ".git/refs/heads/main").write_text("nonsense\n"),
        ".git/refs/heads/main",
    ),
    ("HEAD file garbage", lambda ws: (ws / ".git/HEAD").write_text("garbage"), ".git"),
    ("HEAD file gone", lambda ws: (ws / ".git/HEAD").unlink(), ".git/HEAD"),
    (".gitignore garbage", lambda ws: (ws / ".gitignore").write_bytes(b"\xff\xfe"), None),
]


def _pages(sha: str) -> list[str]:
    return [
        "/memory",
        "/timeline",
        "/timeline?kind=dream",
        "/review",
        "/search?q=Berlin",
        "/status",
        "/dream",
        f"/commit/{sha}",
        f"/commit/{sha}/confirm?action=revert",
        f"/commit/{sha}/confirm?action=restore",
        "/history?first=1&last=6",
        "/memory/why?path=USER.md&line=4&text=-+Name:+Alice",
        "/memory/edit?path=USER.md&line=4&text=-+Name:+Alice",
        "/memory/remove?path=USER.md&line=4&text=-+Name:+Alice",
        "/memory/file?path=USER.md",
        "/file?path=memory/archive/user.md",
        "/session?key=cli:alice",
    ]


def _banners(html: str) -> list[str]:
    found = re.findall(r'<p class="fault[^"]*"[^>]*>(.*?)</p>', html, re.S)
    return [unescape(re.sub(r"<[^>]+>", "", f)) for f in found]


@pytest.mark.parametrize(("name", "damage", "named"), DAMAGES, ids=[d[0] for d in DAMAGES])
def test_no_page_fails_on_a_damaged_file_and_each_says_which(
    source: Path, tmp_path: Path, name: str, damage: Damage, named: str | None
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(source, ws, symlinks=True)
    with reverie.open(ws) as memory:
        sha = memory.log(limit=1, kind="dream")[0].sha
    damage(ws)
    memory = reverie.open(ws)
    try:
        with signed_in(memory, TOKEN, PREFIX[1:], raise_server_exceptions=False) as c:
            for page in _pages(sha):
                r = c.get(page)
                assert r.status_code in (200, 404), (name, page, r.status_code, r.text[-800:])
                assert "Traceback" not in r.text and "internal error" not in r.text, (name, page)
                banners = _banners(r.text)
                if named is None:
                    assert not banners, (name, page, banners)
                    continue
                assert any(b.startswith(named + " ") for b in banners), (name, page, banners)
                assert all("What to do:" in b for b in banners if b.startswith(named)), banners
    finally:
        memory.close()


def test_a_page_shows_what_it_can_beside_the_fault(source: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(source, ws, symlinks=True)
    _replace_with_directory(ws / "USER.md")
    (ws / "memory/.reverie/pending-soul.json").write_text("{not json")
    with reverie.open(ws) as memory:
        with signed_in(memory, TOKEN, PREFIX[1:]) as c:
            page = c.get("/memory").text
            assert "Deadline for Atlas" in page  # MEMORY.md is still shown…
            assert "USER.md cannot be read: see the problem above" in page  # …USER.md is not
            review = c.get("/review").text
            assert "Nothing is waiting" not in review  # a damaged SOUL.md proposal is no "nothing"
            assert "cannot be read" in review and 'id="reject"' in review
            assert 'id="soul-badge"' not in review
