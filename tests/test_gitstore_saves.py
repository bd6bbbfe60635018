"""A person saving a memory file while Reverie commits it: the save is never overwritten, and the
file never shows a version without it while Reverie writes.

Reverie reads the file, commits, moves HEAD and only then replaces the file; a save landing between
the read and the replace used to be overwritten (and was in no commit). The file is now read again
just before the replace, and the replace happens only if it is still what that read found: a save
is merged with the commit's change first, and one landing in the last instant is put back by a
second exchange (``fsutil.replace_if_unchanged``). The save stays on disk and is committed as the
person's ``manual`` edit."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reverie.errors import UnsafePathError
from reverie.gitstore import GitStore
from reverie.gitstore import writer as writer_module
from reverie.storage import fsutil
from reverie.storage.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git CLI not installed")

USER = "USER.md"
BASE = "# User\n- likes tea\n- lives in Lyon\n"
DREAMT = "# User\n- likes tea\n- lives in Lyon\n- works as a baker\n"
HAND = "- typed by hand\n"
EXCHANGES = fsutil._renameat2 is not None


def save_by_rename(path: Path, text: str) -> None:
    """Save the way most editors do: a new file, renamed over the old one."""
    tmp = path.with_name(path.name + ".editor~")
    tmp.write_text(text)
    os.replace(tmp, path)


def save_in_place(path: Path, text: str) -> None:
    """Save the way some editors (and ``>>`` in a shell) do: the same file, rewritten."""
    with open(path, "r+") as f:
        f.truncate(0)
        f.write(text)


def git_log_p(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "log", "-p"], capture_output=True, text=True, check=True
    ).stdout


def swap_files(path: Path) -> list[Path]:
    return list(path.parent.glob(f".{path.name}.swap-*"))


@pytest.fixture
def gs(workspace: Workspace) -> GitStore:
    (workspace.root / USER).write_text(BASE)
    g = GitStore(workspace)
    g.ensure()
    return g


def after_head_moves(monkeypatch: pytest.MonkeyPatch, then: Callable[[], None]) -> None:
    """Run ``then`` once, right after the next commit moves HEAD (before it writes the files):
    the point where Reverie has read the file and committed, and a save used to be overwritten."""
    real_swap = writer_module.compare_and_swap

    def move_head_then(*args: Any, **kwargs: Any) -> bool:
        moved = real_swap(*args, **kwargs)
        monkeypatch.setattr(writer_module, "compare_and_swap", real_swap)
        then()
        return moved

    monkeypatch.setattr(writer_module, "compare_and_swap", move_head_then)


def around_exchanges(
    monkeypatch: pytest.MonkeyPatch,
    before: Callable[[Path, int], None] = lambda dst, n: None,
    after: Callable[[Path, int], None] = lambda dst, n: None,
) -> list[int]:
    """Call ``before(dst, n)`` and ``after(dst, n)`` around the n-th renameat2 exchange; returns
    the flags of every renameat2 call."""
    real = fsutil._rename2
    calls: list[int] = []

    def spy(src: Path, dst: Path, flags: int) -> None:
        calls.append(flags)
        n = calls.count(fsutil._RENAME_EXCHANGE)
        if flags == fsutil._RENAME_EXCHANGE:
            before(Path(dst), n)
        real(src, dst, flags)
        if flags == fsutil._RENAME_EXCHANGE:
            after(Path(dst), n)

    monkeypatch.setattr(fsutil, "_rename2", spy)
    return calls


@pytest.mark.parametrize("save", [save_by_rename, save_in_place], ids=["rename", "in-place"])
def test_save_between_commit_and_replace_is_kept_and_committed_as_manual(
    gs: GitStore,
    workspace: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    save: Callable[[Path, str], None],
) -> None:
    path = workspace.root / USER
    after_head_moves(monkeypatch, lambda: save(path, BASE + HAND))
    gs.commit("dream: learn a fact", kind="dream", files={USER: DREAMT}, base={USER: BASE})

    # the save is on disk, with Dream's change merged in (the two do not overlap)
    merged = BASE + HAND + "- works as a baker\n"
    assert path.read_text() == merged
    assert gs.file_at("HEAD", USER) == DREAMT  # Dream's commit is what it computed
    assert gs.dirty() == [USER]
    # git's own view agrees: the person's edit shows as modified, nothing is staged
    status = subprocess.run(
        ["git", "-C", str(workspace.root), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert " M USER.md" in status.splitlines()
    # the next write commits the save as the person's own edit, then its own change
    gs.commit("dream: another", kind="dream", files={"SOUL.md": "soul\n"})
    manual = gs.log(2)[1]
    assert manual.kind == "manual" and [f.path for f in manual.files] == [USER]
    assert gs.file_at(manual.sha, USER) == merged
    assert "+- typed by hand" in git_log_p(workspace.root)
    assert not swap_files(path)  # nothing left behind


def test_overlapping_save_is_kept_as_saved(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = workspace.root / USER
    hand = "# User\n- likes coffee now\n- lives in Lyon\n"  # the same line Dream changes
    dreamt = "# User\n- likes green tea\n- lives in Lyon\n"
    after_head_moves(monkeypatch, lambda: save_by_rename(path, hand))
    gs.commit("dream: change", kind="dream", files={USER: dreamt}, base={USER: BASE})
    assert path.read_text() == hand  # the person's version, as saved
    assert gs.file_at("HEAD", USER) == dreamt  # Dream's version, in history
    gs.commit("manual", kind="manual")
    assert gs.file_at("HEAD", USER) == hand and gs.log(1)[0].kind == "manual"


def test_the_file_never_shows_a_version_without_the_save(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving that still lost a line under load: the exchange put Reverie's version (no
    save in it) on the file, and only a second exchange brought the save back, merged. A person
    (or their editor reloading the file) reading it in between and saving again lost their first
    save. Now every version the file shows while Reverie writes holds the save."""
    path = workspace.root / USER
    after_head_moves(monkeypatch, lambda: save_by_rename(path, BASE + HAND))
    shown: list[str] = []
    around_exchanges(monkeypatch, after=lambda dst, n: shown.append(dst.read_text()))
    real_replace = os.replace

    def replace_then_look(src: Any, dst: Any, **kwargs: Any) -> None:  # the fallback's rename
        real_replace(src, dst, **kwargs)
        if Path(dst) == path:
            shown.append(path.read_text())

    monkeypatch.setattr(fsutil.os, "replace", replace_then_look)
    gs.commit("dream: learn a fact", kind="dream", files={USER: DREAMT}, base={USER: BASE})
    monkeypatch.undo()

    assert shown and all(HAND in text for text in shown), shown
    # the person saves again on top of what they read at the first of those instants
    save_by_rename(path, shown[0] + "- typed later\n")
    gs.commit("manual", kind="manual")
    everything = path.read_text() + git_log_p(workspace.root)
    assert HAND in path.read_text() and "- typed later\n" in path.read_text()
    assert "works as a baker" in everything
    assert not swap_files(path)


@pytest.mark.skipif(not EXCHANGES, reason="no renameat2 here")
def test_a_save_landing_at_the_exchange_is_put_back(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last instants: a save lands after Reverie's last read, as it exchanges, and a second
    one as it puts the first back. The exchange hands the first back, the second exchange puts it
    on the file and takes the second off, and the next round merges both and Dream's change."""
    path = workspace.root / USER
    saves = [BASE + "- one\n", BASE + "- one\n- two\n"]

    def save_first(dst: Path, n: int) -> None:
        if saves and dst == path:
            save_by_rename(path, saves.pop(0))

    calls = around_exchanges(monkeypatch, before=save_first)
    gs.commit("dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE})
    assert path.read_text() == BASE + "- one\n- two\n- works as a baker\n"
    assert gs.file_at("HEAD", USER) == DREAMT  # Dream's change is in its commit
    # the exchange, the put-back, and the next round's exchange
    assert calls.count(fsutil._RENAME_EXCHANGE) == 3
    assert not swap_files(path)


def test_a_save_landing_as_the_temp_file_is_written_is_merged(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save landing after the read, while the temp file is written: seen before any rename."""
    path = workspace.root / USER
    real = fsutil._write_temp
    saves = [BASE + HAND]

    def save_while_writing(*args: Any, **kwargs: Any) -> Path:
        if saves and args[0] == path:
            save_by_rename(path, saves.pop())
        return real(*args, **kwargs)

    monkeypatch.setattr(fsutil, "_write_temp", save_while_writing)
    calls = around_exchanges(monkeypatch)
    gs.commit("dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE})
    assert path.read_text() == BASE + HAND + "- works as a baker\n"
    assert calls.count(fsutil._RENAME_EXCHANGE) == 1  # one replace, at once right
    assert not swap_files(path)


@pytest.mark.skipif(not EXCHANGES, reason="no renameat2 here")
def test_an_in_place_writer_still_writing_keeps_its_file(tmp_path: Path) -> None:
    """A program that opened the file before the replace and writes after it: its file goes back
    on the name (it is waited for, then its bytes differ from what was read), so its bytes are not
    written into a file nobody reads."""
    path = tmp_path / "USER.md"
    path.write_text("old\n")
    seen = fsutil.read_seen(path)
    f = open(path, "a")  # noqa: SIM115 (held open across the replace on purpose)
    gate = threading.Event()

    def finish() -> None:
        gate.wait()
        f.write("appended in place\n")
        f.close()

    t = threading.Thread(target=finish)
    t.start()
    real = fsutil._lease

    def opened_then_wait(fd: int, timeout: float) -> bool | None:
        gate.set()  # the writer goes on while the replace waits for it
        return real(fd, timeout)

    fsutil._lease = opened_then_wait  # type: ignore[assignment]
    try:
        outcome = fsutil.replace_if_unchanged(path, b"new\n", seen)
    finally:
        fsutil._lease = real  # type: ignore[assignment]
        t.join()
    assert outcome == "changed"
    assert path.read_bytes() == b"old\nappended in place\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["USER.md"]


@pytest.mark.skipif(
    not EXCHANGES or not hasattr(fcntl, "F_SETLEASE"), reason="needs renameat2 and leases"
)
def test_a_writer_opening_the_file_during_the_final_read_keeps_its_file(tmp_path: Path) -> None:
    """A program that looked the file up before the exchange and opens it for writing while
    Reverie reads what the exchange took off (the lease is held through the read, so the open
    waits, and breaks the lease): the file is put back, so what it writes lands on the name."""
    path = tmp_path / "USER.md"
    path.write_text("old\n")
    seen = fsutil.read_seen(path)
    writers: list[threading.Thread] = []
    real = fsutil._lease

    def open_while_leased(fd: int, timeout: float) -> bool | None:
        leased = real(fd, timeout)
        displaced = os.readlink(f"/proc/self/fd/{fd}")

        def write() -> None:
            with open(displaced, "a") as f:  # waits until the lease is dropped
                f.write("appended in place\n")

        writers.append(threading.Thread(target=write))
        writers[0].start()
        while fcntl.fcntl(fd, fcntl.F_GETLEASE) == fcntl.F_RDLCK:  # until the open breaks it
            time.sleep(0.001)
        return leased

    fsutil._lease = open_while_leased  # type: ignore[assignment]
    try:
        outcome = fsutil.replace_if_unchanged(path, b"new\n", seen)
    finally:
        fsutil._lease = real  # type: ignore[assignment]
        for t in writers:
            t.join()
    assert outcome == "changed"
    assert path.read_bytes() == b"old\nappended in place\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["USER.md"]


@pytest.mark.skipif(not EXCHANGES, reason="no renameat2 here")
def test_a_file_held_open_for_writing_stays_where_its_writes_land(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program holding the file open for writing through the whole commit (``cat >> USER.md``
    typed by hand): after a wait its file goes back on the name and the write stops there, so
    what it writes afterwards is in USER.md, not in a file nobody reads. Dream's change is in
    its commit; the next write commits the person's file with Dream's change merged in (the
    commit's write was left unwritten: ``writer.LEFT_BUSY``), never Dream's lines taken out."""
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    path = workspace.root / USER
    held = open(path, "a")  # noqa: SIM115 (held open across the commit on purpose)
    try:
        gs.commit("dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE})
        held.write(HAND)
    finally:
        held.close()
    assert path.read_text() == BASE + HAND
    assert gs.file_at("HEAD", USER) == DREAMT
    assert not swap_files(path)
    gs.commit("manual", kind="manual")
    assert gs.file_at("HEAD", USER) == BASE + HAND + "- works as a baker\n"
    assert path.read_text() == BASE + HAND + "- works as a baker\n"


def no_lease(fd: int, timeout: float) -> None:
    """``fsutil._lease`` where none is granted: not the file's owner, NFS, a FUSE file system."""
    return None


def no_exchange(*args: Any) -> int:
    """``fsutil._renameat2`` on an old kernel (or macOS, where the C library has no such call)."""
    ctypes.set_errno(errno.ENOSYS)
    return -1


@pytest.mark.parametrize(
    "where",
    ["no lease", "no exchange", "neither"],
)
def test_a_writer_holding_the_file_open_keeps_its_save_without_a_lease_or_the_exchange(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """An editor that opened the file in place before the commit (``r+``: nothing written yet, so
    its bytes are still the ones Reverie read) and writes after it. Where no read lease is
    granted, ``/proc`` says the file is still open for writing; where the exchange is not
    available, a second name is kept on the replaced file until that is known. Either way its
    file goes back on the name and its save lands there, not in a file nobody reads (it was lost
    on both paths); the next write merges Dream's change into it."""
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    if where in ("no lease", "neither"):
        monkeypatch.setattr(fsutil, "_lease", no_lease)
    if where in ("no exchange", "neither"):
        monkeypatch.setattr(fsutil, "_renameat2", no_exchange)
    path = workspace.root / USER
    editor = open(path, "r+")  # noqa: SIM115 (held open across the commit on purpose)
    try:
        gs.commit("dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE})
        editor.seek(0, os.SEEK_END)
        editor.write(HAND)
    finally:
        editor.close()
    assert path.read_text() == BASE + HAND
    assert gs.file_at("HEAD", USER) == DREAMT
    assert not swap_files(path)
    gs.commit("manual", kind="manual")
    assert gs.file_at("HEAD", USER) == BASE + HAND + "- works as a baker\n"
    assert path.read_text() == BASE + HAND + "- works as a baker\n"


def test_without_the_exchange_a_save_renamed_over_the_put_back_keeps_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the exchange, the displaced file is renamed back only while the name still holds
    Reverie's version: a save renamed over it in that instant stays on the name, and the displaced
    file (where the in-place writer's bytes land) stays beside it, named in a warning."""
    monkeypatch.setattr(fsutil, "SETTLE_SECONDS", 0.05)
    monkeypatch.setattr(fsutil, "_renameat2", no_exchange)
    path = tmp_path / USER
    path.write_text(BASE)
    seen = fsutil.read_seen(path)
    real_compare = fsutil._compare

    def compare_then_save(displaced: Path, seen: fsutil.Seen) -> fsutil.Outcome:
        found = real_compare(displaced, seen)
        save_by_rename(path, BASE + "- renamed over\n")
        return found

    monkeypatch.setattr(fsutil, "_compare", compare_then_save)
    with open(path, "r+") as editor:
        assert fsutil.replace_if_unchanged(path, DREAMT.encode(), seen) == "busy"
        editor.seek(0, os.SEEK_END)
        editor.write(HAND)
    assert path.read_text() == BASE + "- renamed over\n"
    assert [p.read_text() for p in swap_files(path)] == [BASE + HAND]


def test_without_a_lease_a_finished_save_is_merged_and_nothing_waits(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a lease and without the exchange, an ordinary commit with nobody writing the file
    still replaces it (no wait, no file left beside it), and a save made in place before the
    replace is merged as with them."""
    monkeypatch.setattr(fsutil, "_lease", no_lease)
    monkeypatch.setattr(fsutil, "_renameat2", no_exchange)
    path = workspace.root / USER
    gs.commit("dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE})
    assert path.read_text() == DREAMT and not swap_files(path)
    after_head_moves(monkeypatch, lambda: save_in_place(path, DREAMT + HAND))
    gs.commit(
        "dream: again", kind="dream", files={USER: "# User\n- likes tea\n"}, base={USER: DREAMT}
    )
    assert path.read_text() == "# User\n- likes tea\n" + HAND
    assert not swap_files(path)


def test_deleting_keeps_a_save(gs: GitStore, workspace: Workspace) -> None:
    path = workspace.root / USER
    targets = writer_module.ResolvedPaths(workspace)
    targets.based_on = {USER: BASE.encode()}
    save_by_rename(path, BASE + "- mine\n")
    assert writer_module.write_workspace_file(targets, USER, None) == (BASE + "- mine\n").encode()
    assert path.read_text() == BASE + "- mine\n"
    path.write_text(BASE)  # unchanged since the read: deleted
    assert writer_module.write_workspace_file(targets, USER, None) is None
    assert not path.exists() and not swap_files(path)


def test_a_save_landing_as_a_deletion_renames_the_file_away_is_put_back(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = workspace.root / USER
    path.write_text(BASE)
    real_rename = os.rename

    def save_then_rename(src: Any, dst: Any, **kwargs: Any) -> None:
        if Path(src) == path:
            save_in_place(path, BASE + "- mine\n")  # same inode: only its bytes tell
        real_rename(src, dst, **kwargs)

    monkeypatch.setattr(fsutil.os, "rename", save_then_rename)
    targets = writer_module.ResolvedPaths(workspace)
    targets.based_on = {USER: BASE.encode()}
    writer_module.write_workspace_file(targets, USER, None)
    assert path.read_text() == BASE + "- mine\n"
    assert not swap_files(path)


@pytest.mark.parametrize("code", [errno.ENOSYS, errno.EINVAL], ids=["ENOSYS", "EINVAL"])
def test_without_the_exchange_commits_fall_back_to_a_rename(
    gs: GitStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """An old kernel (ENOSYS) or a file system that cannot exchange (EINVAL): every write is the
    plain rename main used, after the same read-and-merge, and new files are created too."""

    def failing(*args: Any) -> int:
        ctypes.set_errno(code)
        return -1

    monkeypatch.setattr(fsutil, "_renameat2", failing)
    path = workspace.root / USER
    after_head_moves(monkeypatch, lambda: save_by_rename(path, BASE + HAND))
    gs.commit(
        "dream: learn",
        kind="dream",
        files={USER: DREAMT, "memory/topics/tea.md": "- green tea\n"},
        base={USER: BASE},
    )
    assert path.read_text() == BASE + HAND + "- works as a baker\n"
    assert (workspace.root / "memory" / "topics" / "tea.md").read_text() == "- green tea\n"
    assert gs.file_at("HEAD", USER) == DREAMT
    gs.commit("dream: again", kind="dream", files={USER: DREAMT + "- rides a bike\n"})
    assert path.read_text() == DREAMT + "- rides a bike\n"  # the manual edit first, then this
    assert gs.file_at("HEAD~1", USER) == BASE + HAND + "- works as a baker\n"
    assert not swap_files(path)


AUDITED = """
import os, sys
from reverie.errors import UnsafePathError
from reverie.gitstore import GitStore
from reverie.storage.fsutil import RENAME2_EVENT
from reverie.storage.workspace import Workspace

root = sys.argv[1]
events = []

def hook(event, args):
    if event == RENAME2_EVENT and str(args[1]).startswith(root):
        events.append(f"{os.path.relpath(args[1], root)} {args[2]}")

sys.addaudithook(hook)
GitStore(Workspace(root)).commit(
    "dream: learn", kind="dream", files={"USER.md": sys.argv[2]}, base={"USER.md": sys.argv[3]}
)
print("\\n".join(events))
"""


@pytest.mark.skipif(not EXCHANGES, reason="no renameat2 here")
def test_each_exchange_is_an_audited_step(gs: GitStore, workspace: Workspace) -> None:
    """The crash tests find the steps they kill after through audit events: the exchange through
    ctypes raises its own, naming the file it replaces (in a process of its own: an audit hook
    cannot be removed)."""
    gs.close()
    done = subprocess.run(
        [sys.executable, "-c", AUDITED, str(workspace.root), DREAMT, BASE],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [f"{USER} {fsutil._RENAME_EXCHANGE}"]


def _commit_killed_after_the_exchange(ws: Path) -> None:
    """In a child: a save lands as Reverie exchanges USER.md, and the process is SIGKILLed right
    after the exchange, before the save is put back."""
    real = fsutil._rename2
    path = ws / USER

    def save_exchange_die(src: Path, dst: Path, flags: int) -> None:
        if flags == fsutil._RENAME_EXCHANGE and Path(dst) == path:
            save_by_rename(path, BASE + HAND)
            real(src, dst, flags)
            os.kill(os.getpid(), signal.SIGKILL)
        real(src, dst, flags)

    fsutil._rename2 = save_exchange_die  # type: ignore[assignment]
    GitStore(Workspace(ws)).commit(
        "dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE}
    )


@pytest.fixture
def forked() -> Iterator[Callable[[Callable[[], None]], int]]:
    def run(target: Callable[[], None]) -> int:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                target()
            finally:
                os._exit(0)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    yield run


@pytest.mark.skipif(not EXCHANGES or not hasattr(os, "fork"), reason="needs renameat2 and fork")
def test_a_kill_between_the_exchange_and_the_put_back_loses_no_save(
    gs: GitStore, workspace: Workspace, forked: Callable[[Callable[[], None]], int]
) -> None:
    """SIGKILL at the one step where the save is off the file (in the ``.swap-*`` file): the next
    writer's recovery puts it back, with the commit's change merged in, and removes that file."""
    path = workspace.root / USER
    gs.close()
    assert forked(lambda: _commit_killed_after_the_exchange(workspace.root)) == -signal.SIGKILL
    assert HAND not in path.read_text()  # the save is off the file, in the swap file
    assert [p.read_text() for p in swap_files(path)] == [BASE + HAND]

    g = GitStore(workspace)
    g.ensure()  # recovery
    assert path.read_text() == BASE + HAND + "- works as a baker\n"
    assert g.file_at("HEAD", USER) == DREAMT
    assert not swap_files(path)
    g.commit("manual", kind="manual")
    assert g.file_at("HEAD", USER) == BASE + HAND + "- works as a baker\n"


def test_recovery_sorts_the_swap_files_an_interrupted_write_left(tmp_path: Path) -> None:
    """What a killed write leaves in ``.<name>.swap-*``: its own bytes or the old version (removed),
    a save it had taken off (put back with the commit's change merged in), or one that cannot be
    put back because a newer save is on disk too (kept, named in a warning)."""
    old, new = BASE.encode(), DREAMT.encode()
    path = tmp_path / USER

    def left(disk: bytes, *swaps: bytes) -> list[bytes]:
        path.write_bytes(disk)
        for n, data in enumerate(swaps):
            (tmp_path / f".{USER}.swap-1-{n}").write_bytes(data)
        writer_module._recover_swaps(path, USER, old, new)
        return [p.read_bytes() for p in sorted(swap_files(path))]

    assert left(new, old, new) == [] and path.read_bytes() == new
    assert left(new, (BASE + HAND).encode()) == []
    assert path.read_bytes() == (BASE + HAND + "- works as a baker\n").encode()
    newer = (BASE + "- saved after the crash\n").encode()
    assert left(newer, (BASE + HAND).encode()) == [(BASE + HAND).encode()]
    assert path.read_bytes() == newer
    for swap in swap_files(path):
        swap.unlink()
    # killed while writing its own bytes, before the exchange: the file is the old version, and the
    # cut-short bytes (none at all, or a start) are no save (a random SIGKILL once emptied the file)
    for cut in (b"", new[:7]):
        assert left(old, cut) == [] and path.read_bytes() == old


def _commit_killed_after_the_second_name(ws: Path) -> None:  # pragma: no cover - the child
    fsutil._renameat2 = no_exchange  # type: ignore[assignment]
    real_link = os.link

    def link_then_die(src: Any, dst: Any, **kwargs: Any) -> None:
        real_link(src, dst, **kwargs)
        if ".swap-" in str(dst):
            os.kill(os.getpid(), signal.SIGKILL)

    fsutil.os.link = link_then_die  # type: ignore[assignment]
    GitStore(Workspace(ws)).commit(
        "dream: learn", kind="dream", files={USER: DREAMT}, base={USER: BASE}
    )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_kill_while_the_replaced_file_has_its_second_name_is_recovered(
    gs: GitStore, workspace: Workspace, forked: Callable[[Callable[[], None]], int]
) -> None:
    """Without the exchange, the file being replaced has two names for an instant (its own and
    the ``.swap-*`` one). A reader in that instant, and the recovery after a SIGKILL there, used to
    be refused ("has 2 hard links"): the commit was never rolled forward and every later write of
    the file failed. A second name that is the file's own swap sibling is no share: it passes, and
    recovery removes it and rolls the commit forward (found by the crash harness run without the
    exchange)."""
    path = workspace.root / USER
    gs.close()
    assert forked(lambda: _commit_killed_after_the_second_name(workspace.root)) == -signal.SIGKILL
    assert os.stat(path).st_nlink == 2  # its own name and the second one
    assert sorted(p.read_text() for p in swap_files(path)) == sorted([BASE, DREAMT])  # and ours
    assert workspace.resolve(USER) == path  # not refused as a file shared with another place
    g = GitStore(workspace)
    g.ensure()  # recovery
    assert path.read_text() == DREAMT and g.file_at("HEAD", USER) == DREAMT
    assert not swap_files(path) and os.stat(path).st_nlink == 1
    outside = workspace.root.parent / "elsewhere.md"
    os.link(path, outside)  # a real share is still refused
    with pytest.raises(UnsafePathError, match="2 hard links"):
        workspace.resolve(USER)
