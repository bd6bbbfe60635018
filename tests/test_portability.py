"""``reverie export`` / ``reverie import``: a workspace round-trips through one bundle with its git
history, and a hostile or damaged bundle is refused with one line and leaves nothing behind (other
tools' memory: tests/test_importers.py)."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from reverie import MemoryStore
from reverie.cli import main
from reverie.gitstore import GitStore
from reverie.operations.portability import MANIFEST, BundleError, export_bundle, import_bundle
from reverie.storage.workspace import Workspace


def _filled(root: Path) -> Workspace:
    """A workspace with every kind of content: versions, history, a cursor, a session, an archive
    file."""
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
