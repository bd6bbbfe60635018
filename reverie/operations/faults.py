"""What is damaged in a workspace, each fault with the file it is in and what to do: what ``reverie
ui`` shows as a banner on every page (``Memory.faults``).

A person can damage any file of a workspace — a hand edit, a sync tool, a disk filling up — and a
reader must then neither crash nor quietly show something else. Every file checked here is one a
page reads; the readers themselves already read around the damage (the lossy decode of a memory
file, the reflog's newest readable commit, a skipped log line), and this says so:

- the configuration (``<home>/config.json``, ``reverie.json``): not valid JSON, or a value the
  settings refuse — until it is fixed nothing that needs the settings can run;
- the SOUL.md change waiting for approval (``memory/.reverie/pending-soul.json``);
- the prompt files (SOUL.md, USER.md, memory/MEMORY.md): not a file, a symlink out of the
  workspace, invalid UTF-8, control or other hidden characters;
- Dream's archive (``memory/archive/*.md``): not a file, invalid UTF-8, its header lost (Dream's
  next run repairs each, keeping what it held: ``reverie.dream.archive_files``);
- the Dream cursor (``memory/.dream_cursor``), Dream's status record, the log of set-aside batches;
- the memory repository: HEAD missing, or naming a commit that cannot be read
  (``GitStore.problems``).

Checks only read, take no lock, and cost little: each file's verdict is kept while its size, mtime
and inode stay the same, so a page load re-reads only what changed.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import orjson

from ..dream.archive import archive_path
from ..dream.deadletter import deadletter_path
from ..dream.proposal import load_proposal, proposal_path
from ..errors import ConfigError, CursorError, ReverieError, WorkspaceError
from ..storage.cursors import parse_cursor, read_cursor_record
from ..storage.history import BadLine, HistoryEntry
from ..storage.workspace import MEMORY_FILES, Workspace
from ..text.safety import CONTROL, describe, hidden

log = logging.getLogger(__name__)

__all__ = ["Fault", "find_faults"]


@dataclass(frozen=True)
class Fault:
    """One damaged file: ``path`` (workspace-relative, or absolute outside it), what is wrong with
    it (``problem``) and what to do (``remedy``). ``severe``: a reader could not read around it
    (something is not shown); otherwise it is shown as read, and the fault says how."""

    path: str
    problem: str
    remedy: str
    severe: bool = True


#: The git store's problems, built on demand (it needs the settings: with a broken config it raises
#: ``ConfigError``, and the repository is not checked).
RepoCheck = Callable[[], list[tuple[str, str, str]]]

_Key = tuple[str, int, int, int] | None
_cache: dict[tuple[str, str], tuple[_Key, list[Fault]]] = {}
_cache_lock = threading.Lock()
_CACHED = 256


def _stat_key(path: Path) -> _Key:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (str(path), st.st_size, st.st_mtime_ns, st.st_ino)


def _cached(kind: str, paths: list[Path], check: Callable[[], list[Fault]]) -> list[Fault]:
    """``check()``'s faults, kept while none of ``paths`` changes (size, mtime, inode)."""
    key = (kind, "|".join(str(p) for p in paths))
    stamp = tuple(_stat_key(p) for p in paths)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] == stamp:  # type: ignore[comparison-overlap]
        return hit[1]
    found = check()
    with _cache_lock:
        if len(_cache) >= _CACHED:
            _cache.pop(next(iter(_cache)))
        _cache[key] = (stamp, found)  # type: ignore[assignment]
    return found


def find_faults(workspace: Workspace, repo: RepoCheck | None = None) -> list[Fault]:
    """Every fault found in ``workspace`` (see the module docstring), most severe first; ``repo``:
    the memory repository's problems (``GitStore.problems`` as tuples)."""
    found: list[Fault] = []
    found += _config(workspace)
    found += _pending(workspace)
    for rel in MEMORY_FILES:
        found += _cached("prompt", [workspace.root / rel], partial(_prompt_file, workspace, rel))
    for archive in (archive_path(rel) for rel in MEMORY_FILES):
        check = partial(_archive_file, workspace, archive)
        found += _cached("archive", [workspace.root / archive], check)
    found += _dream_cursor(workspace)
    found += _json_record(workspace, workspace.state_dir / "dream-status.json", _STATUS)
    found += _dead_letters(workspace)
    found += _history(workspace)
    if repo is not None:
        try:
            found += [Fault(path, problem, remedy) for path, problem, remedy in repo()]
        except ConfigError:
            pass  # the config's own fault says it
        except (ReverieError, OSError) as exc:
            found.append(Fault(".git", str(exc), "inspect it with `git fsck`"))
    return sorted(found, key=lambda f: not f.severe)


def _rel(workspace: Workspace, path: Path) -> str:
    try:
        return path.relative_to(workspace.root).as_posix()
    except ValueError:
        return str(path)


# -- the settings ----------------------------------------------------------------------------------
def _config(workspace: Workspace) -> list[Fault]:
    from ..storage.configdata import home_config_path

    files = [home_config_path(), workspace.root / "reverie.json"]
    return _cached("config", files, lambda: _config_check(workspace, files))


def _config_check(workspace: Workspace, files: list[Path]) -> list[Fault]:
    from ..storage.config import load_config
    from ..storage.configdata import read_json

    remedy = (
        "fix it (or move it aside); until then nothing that needs the settings runs, and "
        "the pages show what they can without them"
    )
    for path in files:
        try:
            read_json(path)
        except ConfigError as exc:
            return [Fault(_rel(workspace, path), _after_path(str(exc), path), remedy)]
    try:
        load_config(workspace.root)
    except ConfigError as exc:
        where = next((p for p in reversed(files) if p.exists()), files[-1])
        return [Fault(_rel(workspace, where), str(exc), remedy)]
    return []


def _after_path(message: str, path: Path) -> str:
    """A library message without the file name it starts with (the banner names the file)."""
    text = message.removeprefix(f"{path}:").removeprefix(str(path)).strip()
    return text or message


# -- the SOUL.md proposal -------------------------------------------------------------------------
def _pending(workspace: Workspace) -> list[Fault]:
    path = proposal_path(workspace)

    def check() -> list[Fault]:
        try:
            load_proposal(workspace)
        except WorkspaceError as exc:
            problem = _after_path(str(exc).split("; drop it")[0].split("; inspect")[0], path)
            return [
                Fault(
                    _rel(workspace, path),
                    f"the SOUL.md change waiting for approval cannot be read: {problem}",
                    "on Review, Reject drops it (the file is kept, and Reject can be undone "
                    "from the Timeline), or fix it by hand",
                )
            ]
        return []

    return _cached("pending", [path, workspace.root / "SOUL.md"], check)


# -- the prompt files and the archive --------------------------------------------------------------
def _not_a_file(workspace: Workspace, rel: str, remedy: str) -> list[Fault] | None:
    """The fault of a path that is no regular file inside the workspace; None when it is one (or
    absent)."""
    path = workspace.root / rel
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [Fault(rel, f"cannot be read: {exc.strerror}", remedy)]
    if stat.S_ISLNK(st.st_mode):
        try:
            workspace.resolve(rel)
        except WorkspaceError:
            return [
                Fault(
                    rel,
                    "is a symlink leading out of the workspace: Reverie does not follow it, so "
                    "the file reads as empty",
                    "replace the symlink with the file itself",
                )
            ]
        try:
            st = os.stat(path)
        except OSError:
            return [Fault(rel, "is a broken symlink: the file reads as empty", remedy)]
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        return [Fault(rel, f"is {what}, not a file: it cannot be read", remedy)]
    return None


def _prompt_file(workspace: Workspace, rel: str) -> list[Fault]:
    remedy = (
        "move it aside, then bring the file back from the Timeline (restore the last "
        "change to it) or write it again"
    )
    odd = _not_a_file(workspace, rel, remedy)
    if odd is not None:
        return odd
    raw = (workspace.root / rel).read_bytes()
    out: list[Fault] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        out.append(
            Fault(
                rel,
                f"is not valid UTF-8 (line {line}, byte {exc.start}): the agent reads each bad "
                "byte as U+FFFD; the web UI shows it as an escape (\\xE9) and does not save "
                "the file, which would lose it",
                "convert the file to UTF-8 (for Latin-1 text: iconv -f latin1 -t utf-8) and "
                "save it in its place",
                severe=False,
            )
        )
        text = raw.decode("utf-8", errors="replace")
    out += _hidden_characters(rel, text)
    return out


def _hidden_characters(rel: str, text: str) -> list[Fault]:
    """One fault for the hidden characters of a prompt file: how many, and the first."""
    count, first = 0, None
    for number, line in enumerate(text.split("\n"), 1):
        spots = hidden(line)
        if spots and first is None:
            first = (number, line[spots[0]])
        count += len(spots)
    if not count or first is None:
        return []
    number, ch = first
    control = bool(CONTROL.match(ch))
    what = "a control character" if control else "a hidden character"
    return [
        Fault(
            rel,
            f"holds {count} hidden character{'s' if count != 1 else ''} the agent reads but a "
            f"page would not show: the first, at line {number}, is {what} ({describe(ch)})",
            "each is shown as an escape on the Memory screen: edit the line to drop it",
            severe=False,
        )
    ]


def _archive_file(workspace: Workspace, rel: str) -> list[Fault]:
    odd = _not_a_file(
        workspace,
        rel,
        "Dream's next run moves it aside and brings the file back as last committed",
    )
    if odd is not None:
        return odd
    raw = (workspace.root / rel).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [
            Fault(
                rel,
                f"is not valid UTF-8 (byte {exc.start}): shown with U+FFFD for each bad byte",
                "Dream's next run sets the original bytes apart beside it and rewrites the file",
                severe=False,
            )
        ]
    if text.strip() and not text.lstrip().startswith("# Archive:"):
        return [
            Fault(
                rel,
                "has lost its '# Archive:' header",
                "Dream's next run puts it back (nothing else changes)",
                severe=False,
            )
        ]
    return []


# -- Dream's state ---------------------------------------------------------------------------------
def _dream_cursor(workspace: Workspace) -> list[Fault]:
    path = workspace.dream_cursor_path
    record = workspace.state_dir / "dream-cursor.json"

    def check() -> list[Fault]:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raw = None
            problem = f"cannot be read: {exc.strerror}"
        else:
            if not raw:
                return []
            try:
                parse_cursor(raw, origin=path.name)
                return []
            except CursorError as exc:
                problem = str(exc).removeprefix(f"{path.name} ")
        recorded = read_cursor_record(workspace.state_dir)
        if recorded is not None:
            return [
                Fault(
                    _rel(workspace, path),
                    f"{problem}: Dream goes on from {recorded}, the value Reverie last wrote there",
                    "Dream's next run writes it back",
                    severe=False,
                )
            ]
        return [
            Fault(
                _rel(workspace, path),
                f"{problem}: Dream cannot run (it would replay all history if it read this as 0)",
                "write the last history entry Dream read into it, e.g. "
                f"`echo <cursor> > {_rel(workspace, path)}` (the Status screen shows the "
                "history's last one)",
            )
        ]

    return _cached("cursor", [path, record], check)


_STATUS = (
    "Dream's record of its last run: the last run and the model's health are shown as unknown",
    "Dream's next run writes it again",
)


def _json_record(workspace: Workspace, path: Path, what: tuple[str, str]) -> list[Fault]:
    def check() -> list[Fault]:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            return [Fault(_rel(workspace, path), f"cannot be read: {exc.strerror}", what[1])]
        try:
            if isinstance(orjson.loads(raw), dict):
                return []
        except orjson.JSONDecodeError:
            pass
        return [Fault(_rel(workspace, path), f"is not valid JSON: {what[0]}", what[1], False)]

    return _cached("record", [path], check)


def _dead_letters(workspace: Workspace) -> list[Fault]:
    path = deadletter_path(workspace.memory_dir)

    def check() -> list[Fault]:
        try:
            lines = path.read_bytes().split(b"\n")
        except FileNotFoundError:
            return []
        except OSError as exc:
            return [Fault(_rel(workspace, path), f"cannot be read: {exc.strerror}", "")]
        bad = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                ok = isinstance(orjson.loads(line), dict)
            except orjson.JSONDecodeError:
                ok = False
            if not ok and not (number == len(lines) and line):  # (a torn last line is repaired)
                bad.append(number)
        if not bad:
            return []
        shown = ", ".join(str(n) for n in bad[:5]) + (" …" if len(bad) > 5 else "")
        return [
            Fault(
                _rel(workspace, path),
                f"line{'s' if len(bad) > 1 else ''} {shown} cannot be read and "
                f"{'are' if len(bad) > 1 else 'is'} skipped: a batch Dream set aside there is "
                "not listed on Review",
                "fix or delete the line by hand (the batch's entries stay in history)",
            )
        ]

    return _cached("deadletters", [path], check)


#: How much of a history log's end is read the first time it is checked (it is append-only: after
#: that, only what was appended is read), and the most read by one check (a huge append is checked
#: over the next page loads).
HISTORY_TAIL = 1 << 20
HISTORY_STEP = 16 << 20


@dataclass
class _HistoryScan:
    inode: int
    offset: int  # the bytes before it are checked
    bad: list[tuple[int, str]]  # (byte offset, what is wrong) of each bad line found
    partial: bool  # the first check started past the file's start


_history_scans: dict[str, _HistoryScan] = {}


def _history(workspace: Workspace) -> list[Fault]:
    """Lines of ``memory/history.jsonl`` readers skip (not JSON, invalid UTF-8, a bad cursor…): the
    file's last ``HISTORY_TAIL`` bytes the first time, then only what was appended since (a
    compaction, a new inode or a shorter file starts again)."""
    path = workspace.memory_dir / "history.jsonl"
    try:
        st = os.stat(path)
    except OSError:
        return []
    with _cache_lock:
        scan = _history_scans.get(str(path))
        if scan is None or scan.inode != st.st_ino or st.st_size < scan.offset:
            start = max(st.st_size - HISTORY_TAIL, 0)
            scan = _HistoryScan(st.st_ino, start, [], start > 0)
            _history_scans[str(path)] = scan
        if st.st_size > scan.offset:
            _scan_history(path, scan)
    if not scan.bad:
        return []
    where, kind = scan.bad[0]
    count = len(scan.bad)
    return [
        Fault(
            _rel(workspace, path),
            f"{count} line{'s' if count != 1 else ''} cannot be read ({kind}, the first at byte "
            f"{where}) and {'are' if count != 1 else 'is'} skipped: Dream and search never see "
            f"{'them' if count != 1 else 'it'}",
            "fix or delete the line by hand (with `reverie ui` and Dream stopped)",
            severe=False,
        )
    ]


def _scan_history(path: Path, scan: _HistoryScan) -> None:
    """Check the complete lines from ``scan.offset`` on; ``scan`` moves to the end of the last."""
    try:
        with open(path, "rb") as f:
            f.seek(scan.offset)
            data = f.read(HISTORY_STEP)
    except OSError:
        return
    start = 0
    if scan.partial:  # the first check began mid-line: from the next one
        cut = data.find(b"\n")
        if cut < 0:
            return
        start, scan.partial = cut + 1, False
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            break
        line = data[start:end]
        if line.strip():
            try:
                HistoryEntry.from_json(line)
            except BadLine as exc:
                scan.bad.append((scan.offset + start, str(exc)))
        start = end + 1
    scan.offset += start
