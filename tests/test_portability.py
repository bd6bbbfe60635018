"""``reverie export`` / ``reverie import``: a workspace round-trips through one bundle with its git
history, a hostile or damaged bundle is refused with one line and leaves nothing behind, and a
nanobot workspace comes in as one commit naming its source."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from pathlib import Path

import pytest

import reverie
from reverie import MemoryStore
from reverie.cli import main
from reverie.gitstore import GitStore
from reverie.operations.portability import MANIFEST, BundleError, export_bundle, import_bundle
from reverie.workspace import Workspace


def _filled(root: Path) -> Workspace:
    """A workspace with every kind of content: versions, history, a cursor, a session, an archive file."""
    ws = Workspace(root)
    ws.init()
    git = GitStore(ws)
    git.ensure()
    git.commit(
        "dream: learn the user's editor",
        kind="dream",
        files={"USER.md": ws.read("USER.md") + "\n- Uses Helix as their editor.\n"},
    )
    git.commit(
        "dream: archive a line",
        kind="dream",
        files={"memory/archive/MEMORY.md": "# Archive of memory/MEMORY.md\n\n- An old fact.\n"},
    )
    git.close()
    store = MemoryStore(ws)
    store.append_history("User prefers tabs over spaces.", session_key="cli:alice")
    store.set_dream_cursor(1)
    (ws.sessions_dir / "cli_alice.jsonl").write_text(
        json.dumps(
            {
                "_type": "metadata",
                "key": "cli:alice",
                "created_at": "2026-11-01T10:00:00",
                "updated_at": "2026-11-01T10:00:00",
                "metadata": {},
                "last_consolidated": 0,
            }
        )
        + "\n"
        + json.dumps({"role": "user", "content": "hi", "timestamp": "2026-11-01T10:00:01"})
        + "\n"
    )
    return ws


def _contents(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock") and ".index.sqlite" not in p.name
    }


def _git_log(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "--git-dir", str(root / ".git"), "log", "--format=%H %s"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


def test_round_trip_keeps_every_file_and_every_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _filled(tmp_path / "ws")
    bundle = tmp_path / "out" / "memory.tar.gz"
    assert main(["-w", str(ws.root), "export", str(bundle), "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["files"] > 10 and bundle.is_file()

    copy = tmp_path / "copy"
    assert main(["-w", str(copy), "import", str(bundle)]) == 0
    assert "imported" in capsys.readouterr().out
    assert _contents(copy) == _contents(ws.root)
    assert _git_log(copy) == _git_log(ws.root)  # real git reads the copy's history
    assert len(_git_log(copy)) == 3
    # the copy is a working workspace: log, why and restore work on it
    assert main(["-w", str(copy), "why", "Helix", "--json"]) == 0
    assert "Uses Helix" in capsys.readouterr().out
    head = _git_log(copy)[1].split()[0]  # the commit that added the Helix line
    assert main(["-w", str(copy), "restore", head]) == 0
    assert "Helix" not in (copy / "USER.md").read_text()
    assert "Helix" in (ws.root / "USER.md").read_text()  # the original is untouched
    assert (
        MemoryStore(Workspace(copy)).history.read_since(0)[0].content
        == "User prefers tabs over spaces."
    )


def test_a_non_empty_workspace_is_refused_unless_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _filled(tmp_path / "ws")
    bundle = export_bundle(ws, tmp_path / "b.tar.gz").path
    other = Workspace(tmp_path / "other")
    other.init()
    (other.root / "USER.md").write_text("# User\n- Mine, not the bundle's.\n")
    assert main(["-w", str(other.root), "import", str(bundle)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not empty" in err
    assert "Mine" in (other.root / "USER.md").read_text()

    result = import_bundle(bundle, other, replace=True)
    assert result.moved_aside is not None and "Mine" in (result.moved_aside / "USER.md").read_text()
    assert _contents(other.root) == _contents(ws.root)


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _manifest(files: dict[str, bytes]) -> tuple[tarfile.TarInfo, bytes]:
    import hashlib

    body = {
        "format": "reverie-bundle",
        "version": 1,
        "files": {
            k: {"size": len(v), "sha256": hashlib.sha256(v).hexdigest()} for k, v in files.items()
        },
    }
    return _file(MANIFEST, json.dumps(body).encode())


def _link(name: str, target: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


@pytest.mark.parametrize(
    "members, message",
    [
        ([_file("../evil.md"), _manifest({"../evil.md": b"x"})], "unsafe path"),
        ([_file("/etc/evil.md"), _manifest({"/etc/evil.md": b"x"})], "unsafe path"),
        ([_link("memory", "/etc", tarfile.SYMTYPE), _manifest({})], "is a symlink"),
        ([_link("USER.md", "/etc/passwd", tarfile.LNKTYPE), _manifest({})], "is a hard link"),
        ([_link("fifo", "", tarfile.FIFOTYPE), _manifest({})], "device or FIFO"),
        ([_file("USER.md", b"x" * 5000), _manifest({"USER.md": b"x" * 5000})], "at most 4,096"),
        ([_file("USER.md", b"tampered"), _manifest({"USER.md": b"original"})], "does not match"),
        ([_file("USER.md"), _manifest({"USER.md": b"x", "SOUL.md": b"y"})], "missing 'SOUL.md'"),
        ([_file("USER.md")], "no reverie-bundle.json"),
        ([_manifest({"USER.md": b"x"}), _file("USER.md")], "after the manifest"),
        ([_file("USER.md"), _file("USER.md"), _manifest({"USER.md": b"x"})], "appears twice"),
    ],
)
def test_a_hostile_or_damaged_bundle_is_refused_and_leaves_nothing(
    tmp_path: Path,
    members: list[tuple[tarfile.TarInfo, bytes | None]],
    message: str,
) -> None:
    bundle = _tar(tmp_path / "bad.tar.gz", members)
    target = tmp_path / "target"
    with pytest.raises(BundleError, match=message) as caught:
        import_bundle(bundle, target, max_member_bytes=4096)
    assert "\n" not in str(caught.value)
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir()] == [
        "bad.tar.gz"
    ]  # no staging directory left behind
    assert not (tmp_path.parent / "evil.md").exists()


def test_not_a_bundle_is_one_line_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b not really gzip")
    assert main(["-w", str(tmp_path / "t"), "import", str(junk)]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("reverie: error:") and err.count("\n") == 1 and "not a Reverie bundle" in err
    )


def test_a_bundle_over_the_total_limit_is_refused(tmp_path: Path) -> None:
    files = {f"memory/2026-01-0{i}.md": b"y" * 3000 for i in range(1, 4)}
    bundle = _tar(
        tmp_path / "big.tar.gz", [*(_file(k, v) for k, v in files.items()), _manifest(files)]
    )
    with pytest.raises(BundleError, match="holds more than 5,000 bytes"):
        import_bundle(bundle, tmp_path / "t", max_total_bytes=5000)


def test_a_nanobot_workspace_comes_in_as_one_commit_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nano = tmp_path / "nanobot"
    (nano / "memory").mkdir(parents=True)
    (nano / "sessions").mkdir()
    (nano / "SOUL.md").write_text("# Soul\n- Answer briefly.\n")
    (nano / "USER.md").write_text(
        "# User\n- Name: Ada.\n- api key sk-ant-api03-AbCdEf1234567890AbCdEf1234567890"
        "AbCdEf1234567890AbCdEf12345"
        "67890abcdEFGH12345678-xyzAA\n"
    )
    (nano / "memory" / "MEMORY.md").write_text("# Memory\n- The launch is in March.\n")
    (nano / "memory" / "history.jsonl").write_text(
        json.dumps({"cursor": 1, "timestamp": "2026-03-01 10:00", "content": "Ada chose Postgres."})
        + "\n"
    )
    (nano / "memory" / ".cursor").write_text("1")
    (nano / "sessions" / "cli_ada.jsonl").write_text(
        json.dumps({"_type": "metadata", "key": "cli:ada", "last_consolidated": 0})
        + "\n"
        + json.dumps({"role": "user", "content": "hello"})
        + "\n"
    )
    target = tmp_path / "ws"
    assert main(["-w", str(target), "import", "--from", "nanobot", str(nano)]) == 0
    assert "committed" in capsys.readouterr().out
    log = _git_log(target)
    assert log[0].endswith(f"import: nanobot workspace from {nano}")
    user = (target / "USER.md").read_text()
    assert "Name: Ada." in user and "sk-ant-api03" not in user  # redacted on the way in
    assert (target / "memory" / "MEMORY.md").read_text() == "# Memory\n- The launch is in March.\n"
    assert MemoryStore(Workspace(target)).history.read_since(0)[0].content == "Ada chose Postgres."
    assert (target / "sessions" / "cli_ada.jsonl").is_file()
    assert (
        main(["-w", str(target), "import", "--from", "nanobot", str(nano)]) == 1
    )  # not empty any more


def test_claude_code_auto_memory_comes_in_as_a_commit_and_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "claude" / "projects" / "-home-ada-app"
    (project / "memory").mkdir(parents=True)
    (project / "memory" / "MEMORY.md").write_text(
        "# Memory index\n\n- My favourite editor is Helix.\n"
        "- See debugging.md for the flaky test.\n"
    )
    (project / "memory" / "debugging.md").write_text(
        "# Debugging\n\n```sh\nmake test\n```\n- The payments test is flaky on CI.\n"
    )
    (project / "memory" / "link.md").symlink_to("/etc/hostname")
    ws = tmp_path / "ws"
    assert main(["-w", str(ws), "import", "--from", "claude-code", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == 2 and len(report["commits"]) == 1
    log = _git_log(ws)
    assert (
        log[0].split(" ", 1)[1].startswith(f"import: claude-code memory from {project / 'memory'}")
    )
    notes = list((ws / "memory").glob("*-claude-code.md"))
    assert (
        len(notes) == 1
        and "## debugging.md" in notes[0].read_text()
        and "hostname" not in notes[0].read_text()
    )
    history = [e.content for e in MemoryStore(Workspace(ws)).history.read_since(0)]
    assert history == [
        "My favourite editor is Helix.",
        "See debugging.md for the flaky test.",
        "The payments test is flaky on CI.",
    ]
    # again: nothing new (no commit, nothing remembered twice)
    assert main(["-w", str(ws), "import", "--from", "claude-code", str(project / "memory")]) == 0
    assert (
        len(_git_log(ws)) == len(log) and len(MemoryStore(Workspace(ws)).history.read_since(0)) == 3
    )
    # Dream takes what it is sure of into the prompt files; restore of the import commit takes the
    # note out
    with reverie.open(ws) as memory:
        memory.dream(all=True)
        assert "Favourite editor: Helix" in memory.read("USER.md")
    assert main(["-w", str(ws), "restore", "--only", log[0].split()[0]]) == 0
    assert not notes[0].exists()  # the note the import added is gone again


def test_a_mem0_export_comes_in_redacted_with_its_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "mem0.json"
    export.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "id": "1",
                        "memory": "Prefers tea over coffee",
                        "user_id": "ada",
                        "created_at": "2026-03-01T10:00:00",
                    },
                    {
                        "id": "2",
                        "memory": "Uses the key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD for tests",
                        "user_id": "ada",
                    },
                    {"id": "3", "memory": "   "},
                    "not a memory",
                ],
                "relations": [],
            }
        )
    )
    ws = tmp_path / "ws"
    assert main(["-w", str(ws), "import", "--from", "mem0", str(export)]) == 0
    assert "committed" in capsys.readouterr().out
    assert _git_log(ws)[0].split(" ", 1)[1] == f"import: mem0 memory from {export} (2 item(s))"
    note = next((ws / "memory").glob("*-mem0.md")).read_text()
    assert "- Prefers tea over coffee (user_id ada, 2026-03-01)" in note and "sk-proj" not in note
    history = "\n".join(e.content for e in MemoryStore(Workspace(ws)).history.read_since(0))
    assert "Prefers tea over coffee" in history and "sk-proj" not in history


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "is not JSON"),
        ('{"results": 3}', "not a mem0 export"),
        ('{"results": []}', "holds no mem0 memories"),
    ],
)
def test_a_bad_mem0_export_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    export = tmp_path / "mem0.json"
    export.write_text(content)
    assert main(["-w", str(tmp_path / "ws"), "import", "--from", "mem0", str(export)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
