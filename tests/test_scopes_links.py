"""No link is followed in a root of scopes (issue 35 item 1): a symbolic link at any component of a
scope's path — the root, a bucket, a user's directory, ``workspace``, ``agents`` or an agent's
directory, ``due`` or a due bucket, ``trash`` — is refused with one line naming it, and nothing is
read or written through it: not another scope's memory, not anything outside the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import reverie
from reverie.cli import main
from reverie.errors import UnsafePathError
from reverie.operations.forget import forget_user
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore


def _tree(path: Path) -> dict[str, bytes | None]:
    """Every entry under ``path`` with its bytes (None for a directory): what must not change."""
    out: dict[str, bytes | None] = {}
    for base, dirs, files in os.walk(path):
        for d in dirs:
            out[os.path.relpath(os.path.join(base, d), path)] = None
        for f in files:
            p = os.path.join(base, f)
            out[os.path.relpath(p, path)] = None if os.path.islink(p) else Path(p).read_bytes()
    return out


@pytest.fixture
def root(tmp_path: Path) -> ScopeRoot:
    r = ScopeRoot(tmp_path / "root")
    WorkspaceStore(r.ensure(Scope("alice"))).append_history("- [durable] alice's secret plan")
    WorkspaceStore(r.ensure(Scope("alice", "bot"))).append_history("alice tells the bot")
    return r


def _link(path: Path, target: Path) -> None:
    """Replace ``path`` (a directory, possibly missing) with a symbolic link to ``target``."""
    if path.exists():
        path.rename(path.with_name(path.name + ".moved"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target, target_is_directory=True)


def _components(root: ScopeRoot, outside: Path) -> dict[str, tuple[Path, Path]]:
    """For bob's scope (own and agent), each component of its path made a link: (link, target)."""
    bob = Scope("bob", "bot")
    alice_ws = root.path(Scope("alice"))
    alice_agent = root.path(Scope("alice", "bot"))
    parts = root.path(bob).relative_to(root.root).parts  # users ab cd <u> agents <a>
    users = root.root / "users"
    return {
        "bucket": (users / parts[1], outside),
        "bucket2": (users / parts[1] / parts[2], outside),
        "user": (root.root.joinpath(*parts[:4]), alice_ws.parent),
        "agents": (root.root.joinpath(*parts[:5]), alice_agent.parent),
        "agent": (root.root.joinpath(*parts), alice_agent),
        "workspace": (root.root.joinpath(*parts[:4], "workspace"), alice_ws),
    }


@pytest.mark.parametrize("component", ["bucket", "bucket2", "user", "agents", "agent", "workspace"])
def test_a_link_in_a_scopes_path_is_refused_and_nothing_crosses_it(
    root: ScopeRoot, tmp_path: Path, component: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    link, target = _components(root, outside)[component]
    _link(link, target)
    before_root, before_out = _tree(root.root / "users"), _tree(outside)
    scope_args = ["--user", "bob"] + (["--agent", "bot"] if component != "workspace" else [])
    base = ["--root", str(root.root), *scope_args]
    for argv in (["history", "show"], ["history", "append", "bob's text"], ["status"], ["init"]):
        code = main([*base, *argv])
        err = capsys.readouterr().err
        assert code == 1, (argv, err)
        assert "symbolic link" in err and str(link) in err and err.count("\n") == 1, err
    agent = None if component == "workspace" else "bot"
    with pytest.raises(UnsafePathError, match="symbolic link"):
        reverie.open(root=root.root, user="bob", agent=agent).remember("bob writes")
    assert _tree(root.root / "users") == before_root and _tree(outside) == before_out
    contents = [
        e.content for e in WorkspaceStore(root.workspace(Scope("alice"))).history.read_since(0)
    ]
    assert contents == ["- [durable] alice's secret plan"]


def test_the_root_itself_may_not_be_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert main(["--root", str(tmp_path / "link"), "--user", "bob", "init"]) == 1
    assert "link is a symbolic link" in capsys.readouterr().err
    assert list((tmp_path / "real").iterdir()) == []


def test_a_linked_due_directory_gets_no_marker_and_the_append_stays(
    root: ScopeRoot, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    _link(root.root / "due", outside)
    store = WorkspaceStore(root.ensure(Scope("carol")))
    store.append_history("carol's entry")  # durable; the mark is refused with a warning
    assert store.pending_count() == 1
    assert list(outside.iterdir()) == []
    assert "symbolic link" in caplog.text
    assert root.due_names() == []  # a linked due directory is not listed either


def test_a_linked_due_bucket_is_skipped(root: ScopeRoot, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / Scope("zed").name).mkdir(parents=True)  # what the link would have listed
    bucket = root.due_path(Scope("zed").name).parent
    if bucket.exists():
        for p in bucket.iterdir():
            p.unlink()
        bucket.rmdir()
    bucket.symlink_to(outside)
    assert Scope("zed").name not in root.due_names()


def test_forget_user_refuses_a_linked_trash_and_deletes_nothing_outside(
    root: ScopeRoot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: with <root>/trash a link, forget-user deleted every subdirectory of its target."""
    victim = tmp_path / "victim"
    (victim / "precious" / "deep").mkdir(parents=True)
    (victim / "precious" / "deep" / "data.txt").write_text("keep me")
    (root.root / "trash").symlink_to(victim)
    before = _tree(victim)
    code = main(["--root", str(root.root), "forget-user", "anyone", "--yes"])
    err = capsys.readouterr().err
    assert code == 1 and "trash is a symbolic link" in err and err.count("\n") == 1, err
    assert _tree(victim) == before
    code = main(["--root", str(root.root), "forget-user", "alice", "--yes"])
    assert code == 1 and _tree(victim) == before


def test_forget_user_refuses_a_linked_user_directory(
    root: ScopeRoot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: a user directory that was a link ended in `internal error: OSError: Cannot call
    rmtree on a symbolic link`."""
    victim = tmp_path / "victim"
    (victim / "workspace" / "memory").mkdir(parents=True)
    (victim / "workspace" / "memory" / "history.jsonl").write_text("{}\n")
    _link(_user_dir(root, "mallory"), victim)
    before = _tree(victim)
    code = main(["--root", str(root.root), "forget-user", "mallory", "--yes"])
    err = capsys.readouterr().err
    assert code == 1 and "symbolic link" in err and "internal error" not in err, err
    assert _tree(victim) == before
    with pytest.raises(UnsafePathError):
        forget_user(root, "mallory")


def _user_dir(root: ScopeRoot, user: str) -> Path:
    d = Scope(user).user_digest
    return root.root / "users" / d[:2] / d[2:4] / d


def test_listing_and_rescans_skip_links(root: ScopeRoot, tmp_path: Path) -> None:
    """A user directory linked to another user's is not listed as a second copy of it."""
    _link(_user_dir(root, "bob"), _user_dir(root, "alice"))
    users = sorted({s.user for s, _ in root.scopes()})
    assert users == ["alice"]


def test_serve_root_never_follows_a_link_and_backs_off(
    root: ScopeRoot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    import asyncio
    import time

    from reverie.memory.runtime import Runtime
    from reverie.schedule.root import RootScheduler
    from reverie.storage.config import load_config

    def open_dream(ws):
        return Runtime(ws).dream

    monkeypatch.setenv("REVERIE_SERVE__JITTER_SECONDS", "0")
    monkeypatch.setenv("REVERIE_SERVE__POLL_SECONDS", "0.05")
    monkeypatch.setenv("REVERIE_SERVE__BUSY_RETRY_SECONDS", "0.1")
    bob = Scope("bob")
    WorkspaceStore(root.ensure(bob)).append_history("bob's entry")
    link = root.path(bob)
    link.rename(link.with_name("moved"))
    _link(link, root.path(Scope("alice")))  # bob's workspace a link to alice's, marked due
    for name in root.due_names():
        if name != bob.name:
            root.unmark_due(name)
    before = _tree(root.path(Scope("alice")))
    sched = RootScheduler(root, open_dream, config=load_config(), max_inflight=1)

    async def serve() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(sched.run(stop))
        await asyncio.sleep(1.0)
        stop.set()
        await task

    started = time.monotonic()
    asyncio.run(serve())
    assert time.monotonic() - started < 10
    assert _tree(root.path(Scope("alice"))) == before  # not dreamed through the link
    lines = [r.getMessage() for r in caplog.records if "symbolic link" in r.getMessage()]
    assert lines and "failure(s) in a row" in lines[0] and len(lines) <= 5
