"""Scopes: many workspaces under one root directory, addressed by a user id and an optional agent
id. This docstring is the layout's spec.

::

    <root>/
      reverie-root.json                 {"kind": "scopes", "version": 1}: what this root is (below)
      users/<u:2>/<u2:4>/<u>/           one directory per user; u = the user id's digest
                                        (32 hex digits)
        user.json                       {"user": "<id>"}: whose directory this is (for people
                                        and rescans)
        workspace/                      the user's own scope (no agent): an ordinary workspace
        agents/<a>/                     the scope (user, agent); a = the agent id's digest
      due/<u:2>/<name>                  empty marker: the scope has history Dream has not consumed
                                        (<name> = <u> or <u>.<a>; see `due_hook`)
      trash/<u>.<ns>                    a user's directory being deleted (``forget-user``)

Every scope workspace holds ``memory/.reverie/scope.json`` (``{"user": …, "agent": …}``), written
when the workspace is created (what a rescan and ``forget-user`` read). A history append in a
workspace at a scope's place in this layout marks the scope due (`due_hook`). The due markers are
`DueMarkers`, the one implementation a plain fleet root's markers share (``.reverie-due/<bucket>/
<digest of the workspace's path>``, holding the path).

**The root's kind.** ``reverie-root.json`` says whether a directory is a root of scopes
(``"scopes"``) or a plain directory of workspaces a fleet runs on (``"plain"``); it is written when
the root is made (the first scope created, or ``reverie fleet init``) and never inferred from the
folders a root happens to hold. A root made before the file existed is migrated once (`root_kind`):
the old rule is read one last time (a ``users/`` folder laid out as above means scopes), the kind is
written, and a warning says so.

**No links.** Nothing in the layout is reached through a symbolic link: the root itself, ``users``,
both bucket levels, the user's directory, ``workspace``, ``agents`` and an agent's directory,
``due`` and its buckets, ``trash`` are each checked with ``lstat`` (never followed), and a link is
refused with `UnsafePathError` naming it. Directories are created one component at a time, each
checked; a due marker is created ``O_EXCL | O_NOFOLLOW``; ``forget-user`` moves and deletes through
directory descriptors opened ``O_NOFOLLOW`` (`trash_user`, `empty_trash`), so it deletes only what
it proved is inside the root. Inside a workspace, `reverie.storage.workspace.Workspace` refuses
links out.

**Ids.** An id is normalised to Unicode NFKC (compatibility forms such as the full-width
``ａｌｉｃｅ``, and the composed and decomposed forms of "é", name one user) and must then be 1–128
characters of letters, marks, digits and ``_ - . @ + : = ~ #``; it may not start with ``.`` or
``-``, nor contain ``..``. Its letters must be of one script, or of the combinations Unicode's
"moderately restrictive" level allows (UTS #39 §5.2: Latin with Han and Japanese kana, with Han and
Bopomofo, with Han and Hangul, or with any one other script but Cyrillic and Greek), and its digits
of one numbering system: a Cyrillic ``а`` in ``аlice`` is refused, never taken for another user that
looks the same. Anything else (a separator, white space, a control or invisible formatting
character, a NUL) is refused with `InvalidScopeError`, never repaired: two ids that would repair to
the same text would share a memory. Ids are case-sensitive: ``Alice`` and ``alice`` are two users,
because the services whose ids these are (chat platforms, auth providers) often are, and merging two
users' memories is the one mistake a scope must never make. Directory names are digests, not ids, so
no id can name a path, collide on a case-insensitive file system, or make a name too long.

**Fan-out.** Two levels of 256 directories above the user directories: a million users put about 15
entries in each leaf directory. The due directory has one level: it holds only the scopes currently
due.

**Created on first write.** `ScopeRoot.workspace` only computes (and checks) a path;
`ScopeRoot.ensure` creates the directories and ``scope.json`` (idempotent, safe to race). Queries on
a scope never written create nothing.
"""

from __future__ import annotations

import bisect
import dataclasses
import errno
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import stat
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from ..errors import InvalidScopeError, UnsafePathError, WorkspaceError
from .fsutil import atomic_write, fsync_dir, remove_stale_temps
from .locking import Lock, lock_path
from .workspace import ROOT_FILE, WORKSPACE_ID_FILE, Workspace, ensure_workspace_id

__all__ = [
    "Scope",
    "ScopeRoot",
    "ForgetResult",
    "LegacyUser",
    "LEGACY_FILE",
    "remove_marker",
    "DueMarkers",
    "PLAIN_DUE_DIR",
    "plain_marker_name",
    "read_small_file",
    "RootKind",
    "validate_id",
    "due_hook",
    "due_jitter",
    "read_root_kind",
    "write_root_kind",
    "root_kind",
    "check_no_link",
    "MAX_ID_CHARS",
    "SCOPE_FILE",
    "ROOT_FILE",
]

log = logging.getLogger(__name__)

MAX_ID_CHARS = 128
#: The file naming a workspace's scope, relative to the workspace.
SCOPE_FILE = "memory/.reverie/scope.json"
#: The file naming a root's kind, relative to the root.
#: The user directories recorded under ids this version changes or refuses, relative to the root.
LEGACY_FILE = "legacy-ids.json"
RootKind = Literal["scopes", "plain"]
_KINDS: tuple[RootKind, ...] = ("scopes", "plain")
_PUNCTUATION = frozenset("_-.@+:=~#")
_DIGEST = re.compile(r"[0-9a-f]{32}")
_BUCKET = re.compile(r"[0-9a-f]{2}")
_TRUSTED_AGE_NS = 2_000_000_000
#: A plain marker's name (the temporary file ``atomic_write`` makes for it is ``.<name>.tmp-…``) and
#: how old such a file must be to be a crashed writer's, never a live one's (a marker is written in
#: milliseconds; the margin covers hosts whose clocks disagree with the file server's).
_MARKER_NAME = re.compile(r"[0-9a-f]{32}")
_STALE_TEMP_SECONDS = 600.0
_DUE_NAME = re.compile(r"([0-9a-f]{32})(?:\.([0-9a-f]{32}))?")
_ROOT_FILE_MAX = 4096  # a kind file is a few dozen bytes: anything longer is not one

# -- ids -------------------------------------------------------------------------------------------

#: Unicode's scripts (ISO 15924 codes, as the ``regex`` module knows them) a letter may belong to.
_SCRIPTS = (
    "Adlm Aghb Ahom Arab Armi Armn Avst Bali Bamu Bass Batk Beng Berf Bhks Bopo Brah Brai Bugi "
    "Buhd Cakm Cans Cari Cham Cher Chrs Copt Cpmn Cprt Cyrl Deva Diak Dogr Dsrt Dupl Egyp Elba "
    "Elym Ethi Gara Geor Glag Gong Gonm Goth Gran Grek Gujr Gukh Guru Hang Hani Hano Hatr Hebr "
    "Hira Hluw Hmng Hmnp Hung Ital Java Jurc Kali Kana Kawi Khar Khmr Khoj Kits Knda Krai Kthi "
    "Lana Laoo Latn Lepc Limb Lina Linb Lisu Lyci Lydi Mahj Maka Mand Mani Marc Medf Mend Merc "
    "Mero Miao Mlym Modi Mong Mroo Mtei Mult Mymr Nagm Nand Narb Nbat Newa Nkoo Nshu Ogam Olck "
    "Onao Orkh Orya Osge Osma Ougr Palm Pauc Pcun Perm Phag Phli Phlp Phnx Prti Rjng Rohg Runr "
    "Samr Sarb Saur Seal Sgnw Shaw Shrd Sidd Sidt Sind Sinh Sogd Sogo Sora Soyo Sund Sunu Sylo "
    "Syrc Tagb Takr Tale Talu Taml Tang Tavt Tayo Telu Tfng Tglg Thaa Thai Tibt Tirh Tnsa Todr "
    "Tols Toto Tutg Ugar Vaii Vith Wara Wcho Xpeo Xsux Yezi Yiii Zanb"
).split()
#: UTS #39's augmented script sets: Han is also part of Japanese, Korean and Han-with-Bopomofo
#: writing, kana of Japanese, Hangul of Korean, Bopomofo of Han-with-Bopomofo.
_AUGMENT = {
    "Hani": {"Hanb", "Jpan", "Kore"},
    "Hira": {"Jpan"},
    "Kana": {"Jpan"},
    "Hang": {"Kore"},
    "Bopo": {"Hanb"},
}
#: Scripts whose letters look like Latin ones: UTS #39's moderately restrictive level allows Latin
#: with any one other script but Cyrillic and Greek; Armenian is refused with Latin too (its օ ս ց
#: pass for o u g), stricter than the standard.
_LATIN_LOOKALIKES = {"Cyrl", "Grek", "Armn"}
_SCRIPT_NAMES = {
    "Latn": "Latin",
    "Cyrl": "Cyrillic",
    "Grek": "Greek",
    "Arab": "Arabic",
    "Hebr": "Hebrew",
    "Armn": "Armenian",
    "Geor": "Georgian",
    "Cher": "Cherokee",
    "Hani": "Han",
    "Hira": "Hiragana",
    "Kana": "Katakana",
    "Hang": "Hangul",
    "Deva": "Devanagari",
    "Thai": "Thai",
}
_LATIN = frozenset({"Latn"})


def validate_id(value: object, what: str = "user id") -> str:
    """``value`` as a scope id (NFKC), or `InvalidScopeError` saying in one line what is wrong with
    it."""
    if not isinstance(value, str):
        raise InvalidScopeError(f"{what} must be a string, not {type(value).__name__}")
    text = unicodedata.normalize("NFKC", value)
    if not text:
        raise InvalidScopeError(f"{what} is empty")
    if len(text) > MAX_ID_CHARS:
        grown = f" once normalised (NFKC; it was {len(value)})" if len(value) != len(text) else ""
        raise InvalidScopeError(
            f"{what} is {len(text)} characters long{grown}; the limit is {MAX_ID_CHARS}"
        )
    for ch in text:
        if ch in _PUNCTUATION or unicodedata.category(ch)[0] in "LMN":
            continue
        shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
        raise InvalidScopeError(
            f"{what} {_shown(text)} contains {shown}: only letters, digits and _-.@+:=~# are "
            "allowed"
        )
    if text[0] in ".-":
        raise InvalidScopeError(f"{what} {_shown(text)} may not start with {text[0]!r}")
    if ".." in text:
        raise InvalidScopeError(f"{what} {_shown(text)} may not contain '..'")
    if not text.isascii():
        _check_scripts(text, what)
    return text


def _check_scripts(text: str, what: str) -> None:
    """Refuse an id mixing scripts beyond UTS #39's moderately restrictive level, or digits of
    several numbering systems (mixed-number detection)."""
    for ch in text:
        if ch not in _PUNCTUATION and not _allowed(ch):
            raise InvalidScopeError(
                f"{what} {_shown(text)} contains {ch!r} (U+{ord(ch):04X}), which Unicode does not "
                "allow in identifiers (UTS #39 Identifier_Status: invisible, obsolete, technical "
                "or limited-use characters): refused, since it could name another user unseen"
            )
    zeros = {ord(ch) - unicodedata.digit(ch) for ch in text if unicodedata.category(ch) == "Nd"}
    if len(zeros) > 1:
        raise InvalidScopeError(
            f"{what} {_shown(text)} mixes digits of different numbering systems: refused, "
            "since look-alike digits could name another user"
        )
    sets = [s for s in map(_scripts_of, text) if s]
    if not sets or frozenset.intersection(*sets):
        return  # one script (Common and Inherited characters go with any)
    others = [s for s in sets if "Latn" not in s]
    rest = frozenset.intersection(*others) if others else frozenset()
    if rest - _LATIN_LOOKALIKES:
        return  # Latin and one other script (or a Han combination), not a Latin look-alike
    found = sorted({min(s - {"Hanb", "Jpan", "Kore"} or s) for s in sets})
    names = " and ".join(_SCRIPT_NAMES.get(code, code) for code in found)
    raise InvalidScopeError(
        f"{what} {_shown(text)} mixes scripts ({names}): refused, since look-alike letters could "
        "name another user (Unicode UTS #39, moderately restrictive)"
    )


def _allowed(ch: str) -> bool:
    """Whether ``ch`` has Unicode's ``Identifier_Status=Allowed`` (UTS #39 §3.1; the ranges in
    ``data/identifier-allowed.txt``, made from ICU by scripts/gen-identifier-status.py)."""
    starts, ends = _allowed_ranges()
    i = bisect.bisect_right(starts, ord(ch)) - 1
    return i >= 0 and ord(ch) <= ends[i]


@functools.cache
def _allowed_ranges() -> tuple[list[int], list[int]]:
    from importlib import resources

    text = resources.files("reverie").joinpath("data", "identifier-allowed.txt").read_text("ascii")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    pairs = [tuple(int(x, 16) for x in line.split()) for line in lines]
    ranges = [p for p in pairs if len(p) == 2]
    return [a for a, _ in ranges], [b for _, b in ranges]


@functools.lru_cache(maxsize=4096)
def _scripts_of(ch: str) -> frozenset[str]:
    """The augmented Script_Extensions of ``ch``; empty for Common and Inherited characters (which
    go with every script) and for what is no letter or mark."""
    if ch.isascii():
        return _LATIN if ch.isalpha() else frozenset()
    if unicodedata.category(ch)[0] not in "LM":
        return frozenset()
    found = {code for code, pattern in _script_patterns() if pattern.match(ch)}
    if not found:
        return frozenset({f"U+{ord(ch):04X}"})  # a script this table does not know: its own
    for code in list(found):
        found |= _AUGMENT.get(code, set())
    return frozenset(found)


@functools.cache
def _script_patterns() -> list[tuple[str, Any]]:
    """One compiled ``\\p{scx=…}`` per script (``regex``, imported only for a non-ASCII id)."""
    import regex

    out = []
    for code in _SCRIPTS:
        try:
            out.append((code, regex.compile(rf"\p{{scx={code}}}")))
        except regex.error:  # a script this version of the module does not know
            continue
    return out


def _shown(text: str) -> str:
    """An id quoted for an error message: printable, and short."""
    safe = text.encode("unicode_escape").decode("ascii")
    return "'" + (safe if len(safe) <= 40 else safe[:37] + "...") + "'"  # escaped once, not twice


def _digest(kind: str, ident: str) -> str:
    return hashlib.sha256(f"{kind}\x00{ident}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Scope:
    """One scope: a user, and optionally one of the user's agents. Ids are validated on creation."""

    user: str
    agent: str | None = None
    user_digest: str = field(init=False, repr=False, compare=False)
    agent_digest: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "user", validate_id(self.user, "user id"))
        if self.agent is not None:
            object.__setattr__(self, "agent", validate_id(self.agent, "agent id"))
        object.__setattr__(self, "user_digest", _digest("user", self.user))
        object.__setattr__(
            self, "agent_digest", _digest("agent", self.agent) if self.agent is not None else None
        )

    @property
    def name(self) -> str:
        """The scope's name in the due directory: the user digest, then ``.`` and the agent
        digest."""
        return self.user_digest + (f".{self.agent_digest}" if self.agent_digest else "")

    def __str__(self) -> str:
        return f"user {self.user!r}" + (f" agent {self.agent!r}" if self.agent is not None else "")


# -- links -----------------------------------------------------------------------------------------


def check_no_link(base: Path, parts: tuple[str, ...] | list[str]) -> bool:
    """Check ``base`` and each component of ``parts`` below it with ``lstat``, never following a
    link: `UnsafePathError` naming the first symbolic link, `WorkspaceError` for a component that
    is no directory. Returns whether the whole path exists (it stops at the first missing
    component: nothing below one exists)."""
    here = str(base)
    for part in ("", *parts):
        here = os.path.join(here, part) if part else here
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise WorkspaceError(f"{here} cannot be checked: {exc.strerror or exc}") from None
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePathError(
                f"{here} is a symbolic link; Reverie never follows a link in a root of scopes"
            )
        if not stat.S_ISDIR(st.st_mode):
            raise WorkspaceError(f"{here} is not a directory")
    return True


def _listable(root: Path, path: Path, warn: Callable[[str, str], None]) -> bool:
    """Whether ``path`` may be listed: it exists, and neither it nor anything above it under
    ``root`` is a link (a link is told to ``warn``, keyed by the path, and left alone)."""
    try:
        return check_no_link(root, path.relative_to(root).parts)
    except WorkspaceError as exc:
        warn(str(path), str(exc))
        return False


def _mkdir_no_link(path: Path) -> None:
    """Create one directory; an existing one must be a directory, never a link (`check_no_link`)."""
    try:
        os.mkdir(path)
    except FileExistsError:
        check_no_link(path, ())


def _open_dir(name: str | Path, dir_fd: int | None = None) -> int:
    """A directory descriptor opened without following a link (``ELOOP``/``ENOTDIR`` → refused)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafePathError(
                f"{name} is a symbolic link or no directory; Reverie never follows a link in a "
                "root of scopes"
            ) from None
        raise


# -- the root's kind -------------------------------------------------------------------------------


def read_root_kind(root: Path) -> RootKind | None:
    """The kind ``reverie-root.json`` records, or None when the root has none. The file is opened
    without following a link and must be a small regular file (a link, a FIFO, a device or a huge
    file is refused, never read); anything but a kind file is an error that says how to repair
    it."""
    path = Path(root) / ROOT_FILE
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _damaged_kind(path, "is a symbolic link") from None
        raise WorkspaceError(f"{path} cannot be read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _damaged_kind(path, "is not a regular file")
        if st.st_size > _ROOT_FILE_MAX:
            raise _damaged_kind(path, f"is {st.st_size:,} bytes long, not a root kind file")
        raw = os.read(fd, _ROOT_FILE_MAX + 1)
    except OSError as exc:
        raise WorkspaceError(f"{path} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        kind = json.loads(raw).get("kind")
    except (ValueError, AttributeError):
        kind = None
    if kind not in _KINDS:
        raise _damaged_kind(path, "is not a root kind file (expected kind 'scopes' or 'plain')")
    return cast(RootKind, kind)


def _damaged_kind(path: Path, what: str) -> WorkspaceError:
    root = path.parent
    return WorkspaceError(
        f"{path} {what}; repair it with: reverie fleet --root {root} init --kind scopes|plain "
        "--force"
    )


def write_root_kind(root: Path, kind: RootKind, *, replace: bool = False) -> RootKind:
    """Record ``kind`` for ``root`` unless it has a kind already (``replace``: whatever it has);
    returns the kind now recorded. Safe to race: the file is linked into place, so the first
    writer wins and every other reads its kind."""
    root = Path(root)
    if kind not in _KINDS:
        raise WorkspaceError(f"a root's kind is 'scopes' or 'plain', not {kind!r}")
    payload = json.dumps({"kind": kind, "version": 1}) + "\n"
    if replace:
        atomic_write(root / ROOT_FILE, payload)
        return kind
    tmp = root / f".{ROOT_FILE}.{os.getpid()}.{time.time_ns()}"
    atomic_write(tmp, payload)
    try:
        os.link(tmp, root / ROOT_FILE)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(root)
    return read_root_kind(root) or kind


def root_kind(root: Path) -> RootKind | None:
    """The root's recorded kind; for a root made before kinds were recorded (no file, but content),
    the old rule read once — a ``users/`` folder laid out as a root of scopes means ``scopes``,
    anything else ``plain`` — then written, with a warning (`migrate_root_kind`). None for a root
    that does not exist or is empty: it has no kind until it is made."""
    root = Path(root)
    kind = read_root_kind(root)
    if kind is not None:
        return kind
    try:
        entries = [e for e in os.listdir(root) if not e.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not entries:
        return None
    return migrate_root_kind(root, "scopes" if _looks_scoped(root) else "plain")


def _looks_scoped(root: Path) -> bool:
    """The old rule, kept only to migrate a root without a kind file: a ``users/`` directory whose
    subdirectories are the layout's two-hex-digit buckets."""
    users = root / "users"
    if users.is_symlink() or not users.is_dir():
        return False
    return any(_BUCKET.fullmatch(d.name) for d in _subdirs(users))


def migrate_root_kind(root: Path, guess: RootKind) -> RootKind:
    """Write ``guess`` as the kind of a root made before kinds were recorded, and warn (once: from
    then on the file decides)."""
    kind = write_root_kind(root, guess)
    log.warning(
        "%s had no %s (made before roots recorded their kind); taken as a %s root, as the old "
        "rule read it, and written. If that is wrong: reverie fleet --root %s init --kind %s "
        "--force",
        root,
        ROOT_FILE,
        kind,
        root,
        "plain" if kind == "scopes" else "scopes",
    )
    return kind


# -- the root --------------------------------------------------------------------------------------


# -- due markers -----------------------------------------------------------------------------------

#: A plain root's directory of due markers. Hidden: a plain root's other directories are the
#: operator's workspaces (one may well be called ``due``), and a scan of its workspaces skips hidden
#: directories.
PLAIN_DUE_DIR = ".reverie-due"
#: Where a plain root's due markers were before they had buckets (fleet6: ``.due/<digest>``, left
#: only while Redis was down): each is taken into `PLAIN_DUE_DIR` once, then the directory goes.
_OLD_PLAIN_DUE_DIR = ".due"
_MARKER_MAX = 4096  # a plain marker holds one workspace id (a relative path) and a newline
_KNOWN_IDS = 100_000  # plain markers' ids kept read (a few MB); past it the memory starts again


def plain_marker_name(ws_id: str) -> str:
    """The name of a plain root's due marker for workspace ``ws_id`` (a relative path, so no file
    name): 32 hex digits of its digest."""
    return hashlib.blake2b(ws_id.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


class DueMarkers:
    """A root's due markers, the one implementation of "this workspace has history Dream has not
    consumed" on the disk: ``<root>/<dir>/<bucket>/<marker>``, a marker left (durably) by whatever
    makes the workspace due and removed by the run that consumed its history (which re-checks, and
    marks it again if history is left). Read by a dispatcher or ``serve --root``, which list only
    the buckets whose directory changed (`buckets`), and by a rebuild after Redis lost its data.

    In a root of scopes (``kind="scopes"``, ``<dir>`` = ``due``) a marker is an empty file named by
    the scope's name (``<u>`` or ``<u>.<a>``), its bucket the name's first two digits; an append
    leaves it (`due_hook`). In a plain root (``<dir>`` = `PLAIN_DUE_DIR`) a workspace id is a path,
    so a marker is named by the id's digest (`plain_marker_name`) and holds the id and a newline,
    written whole (temporary file, rename); ``reverie.fleet.Fleet.mark_dirty`` leaves it. A plain
    marker that does not hold the id its name says is removed with a warning. Nothing is reached
    through a link: the directories are checked with ``lstat`` and made one at a time."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        kind: RootKind,
        warn: Callable[[str, str], None] | None = None,
    ) -> None:
        self.root = Path(root).expanduser().absolute()
        self.kind = kind
        self.dir = "due" if kind == "scopes" else PLAIN_DUE_DIR
        self._warned: set[str] = set()
        self._warn = warn if warn is not None else self._warn_once
        self._known: dict[str, str] = {}  # a plain marker's file name → the id it holds

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning("%s", message)

    def marker(self, name: str) -> str:
        """The marker's file name for a scope's name or a plain workspace id."""
        return name if self.kind == "scopes" else plain_marker_name(name)

    def path(self, name: str) -> Path:
        marker = self.marker(name)
        return self.root / self.dir / marker[:2] / marker

    def mark(self, name: str) -> None:
        """Mark ``name`` due; a no-op (one ``lstat``) when it is. `WorkspaceError` when the disk
        refuses (a full disk, a link in place of a directory)."""
        text = None if self.kind == "scopes" else name + "\n"
        _touch(self.path(name), self.root, text)

    def unmark(self, name: str) -> None:
        """Remove ``name``'s marker (`remove_marker`: a `WorkspaceError` for what cannot be)."""
        path = self.path(name)
        if self._dir_ok(path.parent.parent) and self._dir_ok(path.parent):
            remove_marker(path)

    def names(self) -> list[str]:
        """Every name marked due (one directory listing per bucket)."""
        return [name for _bucket, names in self.buckets({}) for name in names]

    def buckets(self, seen: dict[str, int]) -> list[tuple[str, list[str]]]:
        """``(bucket, names)`` for each bucket whose directory changed since ``seen`` (bucket →
        mtime in ns, updated in place): a poll lists only the buckets something was marked or
        unmarked in. A link in place of the directory or a bucket is skipped with a warning. In a
        plain root the markers an older version left in ``.due`` are taken in first, and a
        marker's id is read once per process (a marker's name is its id's digest: what it holds
        cannot change)."""
        if self.kind == "plain":
            self._take_old()
        return [
            (bucket, names if self.kind == "scopes" else self._ids(bucket, names))
            for bucket, names in self._listing(seen)
        ]

    def files(self) -> list[str]:
        """The file name of every marker (`marker`), no marker read: what a status compares with
        Redis (`marker` of each id it knows) without reading a plain root's markers."""
        return [m for _bucket, found in self._listing({}) for m in found]

    def _listing(self, seen: dict[str, int]) -> list[tuple[str, list[str]]]:
        """``(bucket, marker file names)`` for each bucket changed since ``seen`` (`buckets`)."""
        out = []
        now = time.time_ns()
        if not self._dir_ok(self.root / self.dir):
            return []
        for bucket in _subdirs(self.root / self.dir, warn=self._warn):
            try:
                mtime = bucket.stat().st_mtime_ns
            except OSError:
                continue
            if seen.get(bucket.name) == mtime:
                continue
            # A directory's mtime has the kernel's coarse clock tick (or the file server's): a
            # marker made in the same tick just after this listing would leave it unchanged. A
            # recent mtime is not remembered, so the bucket is listed again until its mtime is old
            # enough to be trusted (git's "racy" rule).
            seen[bucket.name] = mtime if now - mtime > _TRUSTED_AGE_NS else -1
            try:
                found = os.listdir(bucket)
            except OSError:
                continue
            pattern = _DUE_NAME if self.kind == "scopes" else _DIGEST
            out.append((bucket.name, sorted(n for n in found if pattern.fullmatch(n))))
            self._drop_stale_temps(bucket, found)
        return out

    def _drop_stale_temps(self, directory: Path, names: list[str]) -> int:
        """Remove the temporary files of plain markers a writer left when it crashed between
        writing and renaming (older than `_STALE_TEMP_SECONDS`: no live writer's), one warning
        each; returns how many went. Listed anyway, so it costs an ``lstat`` per temporary file
        only."""
        dropped = remove_stale_temps(
            directory, names, older_than=_STALE_TEMP_SECONDS, of=_MARKER_NAME.fullmatch
        )
        for path in dropped:
            log.warning(
                "due marker's temporary file %s removed: a writer crashed before its rename", path
            )
        return len(dropped)

    def _ids(self, bucket: str, files: list[str]) -> list[str]:
        """The ids a plain root's markers hold, each read once (`_held`; a bad marker removed)."""
        out = []
        for file in files:
            ws = self._known.get(file)
            if ws is None:
                ws = self._held(self.root / self.dir / bucket / file)
                if ws is None:
                    continue
                if len(self._known) >= _KNOWN_IDS:
                    self._known.clear()
                self._known[file] = ws
            out.append(ws)
        return out

    def age(self, file: str) -> float | None:
        """Seconds since the marker ``file`` (`marker`) was made (its modification time, by this
        host's clock: the file server's time and this host's are taken to agree); None when it is
        not there."""
        try:
            mtime = os.lstat(self.root / self.dir / file[:2] / file).st_mtime
        except OSError:
            return None
        return max(0.0, time.time() - mtime)

    def drop(self, prefix: str) -> int:
        """Remove every marker in ``prefix``'s bucket whose name starts with ``prefix`` and a dot or
        is ``prefix`` (a user's digest: all the user's scopes, found by name, so also one whose
        directory is gone); returns how many there were. Scopes only."""
        bucket = self.root / self.dir / prefix[:2]
        if not self._dir_ok(bucket):
            return 0
        dropped = 0
        for name in os.listdir(bucket):
            if _DUE_NAME.fullmatch(name) and name.split(".")[0] == prefix:
                dropped += remove_marker(bucket / name)
        return dropped

    def _held(self, path: Path, name: str | None = None) -> str | None:
        """The workspace id a plain marker holds; None (and the marker removed, with a warning)
        when it is no marker: not a regular file, not text, or another id than its name says."""
        try:
            text = read_small_file(path, _MARKER_MAX).decode("utf-8")
            if not text.endswith("\n") or "\n" in text[:-1] or not text[:-1]:
                raise WorkspaceError("it does not hold one workspace id and a newline")
            ws = text[:-1]
            if plain_marker_name(ws) != (name or path.name):
                raise WorkspaceError(f"it is not the due marker of {ws[:80]!r}")
            return ws
        except FileNotFoundError:
            return None  # unmarked since the listing
        except (WorkspaceError, OSError, UnicodeDecodeError) as exc:
            why = exc.reason if isinstance(exc, UnicodeDecodeError) else exc
            log.warning("due marker %s removed: %s", path, why)
            try:
                remove_marker(path)
            except WorkspaceError as stuck:
                self._warn_once(str(path), str(stuck))
            return None

    def _take_old(self) -> int:
        """Move each marker an older version left in a plain root's ``.due`` (``.due/<digest>``
        holding the id) into its bucket, then remove ``.due``; returns how many moved. One
        ``lstat`` when there is no ``.due``."""
        old = self.root / _OLD_PLAIN_DUE_DIR
        if not os.path.lexists(old) or not self._dir_ok(old):
            return 0
        moved = 0
        names = sorted(os.listdir(old))
        self._drop_stale_temps(old, names)  # or the directory could never go
        for name in names:
            if name.startswith("."):
                continue  # being written (`atomic_write`'s temporary file)
            ws = self._held(old / name, name)
            if ws is None:
                continue
            self.mark(ws)  # the new marker first: a crash between the two keeps the mark
            moved += remove_marker(old / name)
        try:
            os.rmdir(old)
        except OSError:
            pass  # written to meanwhile (a node of the older version): taken at the next listing
        if moved:
            log.warning(
                "%d due marker(s) of an older version taken from %s into %s",
                moved,
                old,
                self.root / self.dir,
            )
        return moved

    def _dir_ok(self, path: Path) -> bool:
        return _listable(self.root, path, self._warn)


@dataclass(frozen=True)
class ForgetResult:
    """What ``forget-user`` removed (``reverie.operations.forget``): the user's scopes and the files
    (workspaces, git history, sessions, an index inside them) that went with them, the due markers
    dropped, the MCP tokens revoked, the search index files kept outside the root, and the fleet's
    entries in Redis."""

    user: str
    scopes: tuple[Scope, ...]
    files: int
    bytes: int
    due_markers: int
    found: bool
    tokens: int = 0
    index_files: tuple[str, ...] = ()
    redis_entries: dict[str, int] = field(default_factory=dict)
    #: the fleet's Redis: ``cleaned`` (searched, and ``redis_entries`` removed), ``failed`` (not
    #: reached: run again), ``none`` (this root is no fleet's root on this machine: not searched)
    redis: str = "none"
    #: ids an older version recorded that were forgotten with the user (ids this version changes
    #: or refuses, see `ScopeRoot.legacy_users`)
    legacy: tuple[str, ...] = ()


@dataclass(frozen=True)
class LegacyUser:
    """A user directory an older version recorded under an id this version changes or refuses:
    ``user`` as recorded, ``digest`` its directory's name, ``now`` the id it reads as today (None:
    refused), ``problem`` in words."""

    user: str
    digest: str
    now: str | None
    problem: str


class ScopeRoot:
    """A root directory of scope workspaces (see the module docstring for the layout)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser().absolute()
        check_no_link(self.root, ())  # the root itself is no link either (name its real path)
        kind = read_root_kind(self.root)
        if kind is None and _looks_scoped(self.root):
            kind = migrate_root_kind(self.root, "scopes")
        if kind == "plain":
            raise WorkspaceError(
                f"{self.root} is a plain root of workspaces ({ROOT_FILE}), not a root of scopes"
            )
        marks = Workspace(self.root).marks() if kind is None else []
        if marks:
            raise WorkspaceError(
                f"{self.root} is a workspace, not a root of scopes ({marks[0]} is there): give "
                f"-w {self.root} for its memory, or --root a folder of its own for users"
            )
        self._warned: set[str] = set()
        #: The root's due markers (`DueMarkers`: ``due/<bucket>/<scope's name>``).
        self.due = DueMarkers(self.root, "scopes", warn=self._warn_once)

    # -- where things are --------------------------------------------------------------------------
    def user_dir(self, user: str) -> Path:
        """The user's directory (which may not exist), checked for links."""
        d = _digest("user", validate_id(user, "user id"))
        check_no_link(self.root, self._user_parts(d))
        return self._user_dir(d)

    @staticmethod
    def _user_parts(digest: str) -> tuple[str, ...]:
        return ("users", digest[:2], digest[2:4], digest)

    def _user_dir(self, digest: str) -> Path:
        return self.root.joinpath(*self._user_parts(digest))

    def _scope_parts(self, user_digest: str, agent_digest: str | None) -> tuple[str, ...]:
        tail = ("workspace",) if agent_digest is None else ("agents", agent_digest)
        return (*self._user_parts(user_digest), *tail)

    def path(self, scope: Scope) -> Path:
        """The scope's workspace directory (which may not exist), every component of it checked:
        `UnsafePathError` when one is a symbolic link."""
        parts = self._scope_parts(scope.user_digest, scope.agent_digest)
        check_no_link(self.root, parts)
        return self.root.joinpath(*parts)

    def workspace(self, scope: Scope) -> Workspace:
        """The scope's workspace; nothing is created (see `ensure`)."""
        return Workspace(self.path(scope))

    def exists(self, scope: Scope) -> bool:
        """Whether the scope was ever written (its workspace directory exists, reached without a
        link)."""
        return check_no_link(self.root, self._scope_parts(scope.user_digest, scope.agent_digest))

    def due_path(self, name: str) -> Path:
        return self.due.path(name)

    # -- creating ----------------------------------------------------------------------------------
    def ensure(self, scope: Scope) -> Workspace:
        """The scope's workspace, created if it is not yet: directories (one at a time, none of them
        a link), ``user.json`` and ``scope.json``; the root's kind when the root is new. Idempotent
        and safe when several processes create the same scope at once (each file is written
        atomically with the same content)."""
        ws = self.workspace(scope)
        marker = ws.root / SCOPE_FILE
        if marker.is_file():
            if not os.path.lexists(ws.root / WORKSPACE_ID_FILE):
                ensure_workspace_id(ws)  # a scope made before workspaces had an identity
            return ws  # (a workspace first written another way, a session say, gets its files here)
        user_dir = self._user_dir(scope.user_digest)
        try:
            self.make()
            here = self.root
            for part in self._scope_parts(scope.user_digest, scope.agent_digest):
                here = here / part
                _mkdir_no_link(here)
            for part in ("memory", "memory/.reverie", "sessions"):
                _mkdir_no_link(ws.root / part)
            if not (user_dir / "user.json").is_file():
                atomic_write(
                    user_dir / "user.json",
                    json.dumps({"user": scope.user}, ensure_ascii=False) + "\n",
                )
            ensure_workspace_id(ws)  # before scope.json: a scope's marker means it has one
            atomic_write(
                marker,
                json.dumps({"user": scope.user, "agent": scope.agent}, ensure_ascii=False) + "\n",
            )
        except OSError as exc:
            raise WorkspaceError(
                f"cannot create the workspace of {scope} under {self.root}: {exc.strerror or exc}"
            ) from exc
        return ws

    def make(self) -> None:
        """Create the root (its parents are the operator's) and record its kind, ``scopes``."""
        self.root.mkdir(parents=True, exist_ok=True)
        check_no_link(self.root, ())
        if read_root_kind(self.root) is None:
            new = not os.path.lexists(self.root / "users")
            kind = write_root_kind(self.root, "scopes")
            if kind != "scopes":
                raise WorkspaceError(f"{self.root} is a {kind} root, not a root of scopes")
            if new and not os.path.lexists(self.root / LEGACY_FILE):
                self._write_legacy([])  # made by this version: no id of an older one to find

    # -- listing -----------------------------------------------------------------------------------
    def scopes(self) -> Iterator[tuple[Scope, Workspace]]:
        """Every scope under the root, read from the workspaces' ``scope.json`` (a full scan: for
        recovery and tools, never on a hot path). A directory whose file is missing or does not
        match its path is skipped, and so is a link anywhere in the layout."""
        for user_dir in self._user_dirs():
            agents = user_dir / "agents"
            candidates = [user_dir / "workspace"]
            candidates += _subdirs(agents) if self._dir_ok(agents) else []
            for ws_dir in candidates:
                scope = read_scope(ws_dir) if self._dir_ok(ws_dir) else None
                if scope is None:
                    continue
                if self._path(scope) == ws_dir:
                    yield scope, Workspace(ws_dir)
                else:
                    self._warn_once(
                        str(ws_dir),
                        f"{ws_dir}: its scope.json names {scope}, whose place is "
                        "elsewhere (an id written before ids were NFKC-normalised?); "
                        "skipped",
                    )

    def _user_dirs(self) -> Iterator[Path]:
        """Every user directory in the layout (``users/<2>/<2>/<digest>``), no link followed."""
        if not self._dir_ok(self.root / "users"):
            return
        for first in _subdirs(self.root / "users"):
            for second in _subdirs(first):
                for user_dir in _subdirs(second):
                    if _DIGEST.fullmatch(user_dir.name):
                        yield user_dir

    def _path(self, scope: Scope) -> Path:
        return self.root.joinpath(*self._scope_parts(scope.user_digest, scope.agent_digest))

    def scope_dirs(self, user: str) -> list[Path]:
        """The user's scope directories that exist (``workspace`` and each agent's), with or
        without their ``scope.json``; no link followed."""
        user_dir = self.user_dir(user)
        if not check_no_link(user_dir, ()):
            return []
        check_no_link(user_dir, ("agents",))
        dirs = [user_dir / "workspace"] if check_no_link(user_dir, ("workspace",)) else []
        return dirs + [d for d in _subdirs(user_dir / "agents") if _DIGEST.fullmatch(d.name)]

    def scopes_of(self, user: str) -> list[Scope]:
        """The scopes of one user that exist (the user's own, then one per agent)."""
        user = validate_id(user, "user id")
        found = [read_scope(d) for d in self.scope_dirs(user)]
        return [s for s in found if s is not None and s.user == user]

    # -- due markers (mark on write; `DueMarkers`) -------------------------------------------------
    def mark_due(self, scope: Scope | str) -> None:
        """Mark a scope (or the scope a due name names) due; a no-op when it is."""
        self.due.mark(scope if isinstance(scope, str) else scope.name)

    def unmark_due(self, name: str) -> None:
        """Remove a scope's due marker (`remove_marker`: a `WorkspaceError` for what cannot be)."""
        self.due.unmark(name)

    def due_names(self) -> list[str]:
        """The names of every scope marked due (one directory listing per bucket)."""
        return self.due.names()

    def due_buckets(self, seen: dict[str, int]) -> list[tuple[str, list[str]]]:
        """``(bucket, marker names)`` for each due bucket whose directory changed since ``seen``
        (`DueMarkers.buckets`)."""
        return self.due.buckets(seen)

    def _dir_ok(self, path: Path) -> bool:
        return _listable(self.root, path, self._warn_once)

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning("%s", message)

    def workspace_of_due(self, name: str) -> Workspace | None:
        """The workspace a due marker names (its path checked for links: `UnsafePathError`), or None
        for a name that is not a scope's."""
        m = _DUE_NAME.fullmatch(name)
        if m is None:
            return None
        parts = self._scope_parts(m.group(1), m.group(2))
        check_no_link(self.root, parts)
        return Workspace(self.root.joinpath(*parts))

    def rescan(self, pending: Callable[[Workspace], int]) -> int:
        """Mark due every scope whose workspace has history pending (``pending(ws)`` > 0): the
        recovery path when markers were lost (a restore from backup, a crash before a marker reached
        the disk). Returns the number marked."""
        marked = 0
        for scope, ws in self.scopes():
            if pending(ws) > 0:
                self.mark_due(scope)
                marked += 1
        return marked

    # -- forgetting a user (the steps of reverie.operations.forget) --------------------------------
    # Each step takes the user directory's digest (its name), not an id: a user recorded by an older
    # version under an id this one changes or refuses (`legacy_users`) is forgotten the same way.
    def scope_dirs_of(self, digest: str) -> list[Path]:
        """The scope directories under the user directory ``digest`` (``workspace`` and each
        agent's), with or without their ``scope.json``; no link followed."""
        user_dir = self._user_dir(digest)
        if not check_no_link(self.root, self._user_parts(digest)):
            return []
        check_no_link(user_dir, ("agents",))
        dirs = [user_dir / "workspace"] if check_no_link(user_dir, ("workspace",)) else []
        return dirs + [d for d in _subdirs(user_dir / "agents") if _DIGEST.fullmatch(d.name)]

    def drop_due_markers(self, digest: str) -> int:
        """Remove the due marker of every scope under the user directory ``digest`` (found by name
        in the due bucket, so also one whose directory is gone or has no ``scope.json``); returns
        how many there were."""
        return self.due.drop(digest)

    def trash_user(self, digest: str) -> str | None:
        """Move the user directory ``digest`` into ``trash/`` in one rename, through directory
        descriptors opened without following links (so only a directory proved to be inside the
        root moves); returns its name in the trash, or None when there is no such directory. From
        this rename on the user has no memory: a new write starts an empty one."""
        if not check_no_link(self.root, self._user_parts(digest)):
            return None
        _mkdir_no_link(self.root / "trash")
        entry = f"{digest}.{time.time_ns()}"
        fds: list[int] = []
        try:
            fds.append(_open_dir(self.root))
            for part in self._user_parts(digest)[:-1]:
                fds.append(_open_dir(part, fds[-1]))
            parent = fds[-1]
            trash = _open_dir("trash", fds[0])
            fds.append(trash)
            _open_close_dir(digest, parent)  # the user's directory itself: no link either
            os.rename(digest, entry, src_dir_fd=parent, dst_dir_fd=trash)
            os.fsync(parent)
            os.fsync(trash)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise WorkspaceError(
                f"cannot move {self._user_dir(digest)} into the trash: {exc.strerror or exc}"
            ) from exc
        finally:
            for fd in reversed(fds):
                os.close(fd)
        self._prune_buckets(digest)
        return entry

    def _prune_buckets(self, digest: str) -> None:
        """Remove the user's two bucket directories if they are empty now (another user's entry, or
        one created meanwhile, keeps them: rmdir refuses a directory that is not empty)."""
        for parts in (self._user_parts(digest)[:3], self._user_parts(digest)[:2]):
            try:
                os.rmdir(self.root.joinpath(*parts))
            except OSError:
                return

    def empty_trash(self, prefix: str = "") -> tuple[int, int]:
        """Delete the trash entries whose names start with ``prefix`` (every entry for ""): a
        deletion a crash interrupted is finished. Through a descriptor of ``trash`` opened without
        following links; entries that vanish meanwhile (another ``forget-user`` deleting them) are
        skipped. Returns ``(files, bytes)`` deleted of the entries starting with ``prefix``."""
        if not check_no_link(self.root, ("trash",)):
            return 0, 0
        files = size = 0
        root_fd = _open_dir(self.root)
        try:
            trash = _open_dir("trash", root_fd)
        finally:
            os.close(root_fd)
        try:
            for name in sorted(n for n in os.listdir(trash) if n.startswith(prefix)):
                try:
                    st = os.lstat(name, dir_fd=trash)
                    if not stat.S_ISDIR(st.st_mode):
                        # a link or a file: the entry itself, never its target
                        os.unlink(name, dir_fd=trash)
                        continue
                except FileNotFoundError:
                    continue
                f, b = _tree_size(name, trash)
                files, size = files + f, size + b
                shutil.rmtree(name, dir_fd=trash, onerror=_gone_is_fine)
            os.fsync(trash)
        finally:
            os.close(trash)
        return files, size

    # -- ids recorded by an older version ----------------------------------------------------------
    def legacy_users(self, *, rescan: bool = False) -> list[LegacyUser]:
        """The user directories an older version recorded under an id this version changes (NFKC)
        or refuses (mixed scripts, invisible characters): their place is not the one the id names
        now, so no ``--user`` reaches them. Read from ``legacy-ids.json``; the root is scanned once
        (and with ``rescan``) and the file written: this version never makes such a directory, so
        the list only shrinks (`forget_legacy`, `migrate_user`)."""
        path = self.root / LEGACY_FILE
        if not rescan:
            try:
                data = json.loads(read_small_file(path, 16 << 20))
                return [LegacyUser(**item) for item in data["users"]]
            except FileNotFoundError:
                pass
            except (OSError, ValueError, KeyError, TypeError, WorkspaceError) as exc:
                log.warning("%s: unreadable (%s); scanning the root again", path, exc)
        found = list(self._scan_legacy())
        self._write_legacy(found)
        return found

    def _scan_legacy(self) -> Iterator[LegacyUser]:
        for user_dir in self._user_dirs():
            recorded = _recorded_user(user_dir)
            if recorded is None:
                continue
            try:
                now: str | None = validate_id(recorded, "user id")
            except InvalidScopeError as exc:
                yield LegacyUser(recorded, user_dir.name, None, str(exc))
                continue
            if _digest("user", cast(str, now)) != user_dir.name:
                yield LegacyUser(recorded, user_dir.name, now, f"this version reads it as {now!r}")

    def _write_legacy(self, users: list[LegacyUser]) -> None:
        data = {"version": 1, "users": [dataclasses.asdict(u) for u in users]}
        atomic_write(self.root / LEGACY_FILE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")

    def move_user(self, digest: str, user: str) -> Path:
        """Move the user directory ``digest`` to the place of ``user`` (which must have none) in one
        rename, through directory descriptors opened without following links, and record ``user``
        in its ``user.json`` and each scope's ``scope.json``; returns the new directory. For a
        directory an older version recorded under an id this one changes or refuses."""
        user = validate_id(user, "user id")
        new = _digest("user", user)
        if check_no_link(self.root, self._user_parts(new)):
            raise WorkspaceError(
                f"user {user!r} has a memory already: two users' memories are never merged "
                "(forget one of them, or migrate to another id)"
            )
        if not check_no_link(self.root, self._user_parts(digest)):
            raise WorkspaceError(f"no user directory {digest} under {self.root}")
        here = self.root
        for part in self._user_parts(new)[:-1]:
            here = here / part
            _mkdir_no_link(here)
        fds: list[int] = []
        try:
            fds.append(_open_dir(self.root))
            for part in self._user_parts(digest)[:-1]:
                fds.append(_open_dir(part, fds[-1]))
            src = fds[-1]
            dst = fds[0]
            for part in self._user_parts(new)[:-1]:
                dst = _open_dir(part, dst)
                fds.append(dst)
            _open_close_dir(digest, src)
            os.rename(digest, new, src_dir_fd=src, dst_dir_fd=dst)
            os.fsync(src)
            os.fsync(dst)
        except OSError as exc:
            raise WorkspaceError(f"cannot move user directory {digest}: {exc.strerror}") from exc
        finally:
            for fd in reversed(fds):
                os.close(fd)
        self._prune_buckets(digest)
        moved = self._user_dir(new)
        atomic_write(moved / "user.json", json.dumps({"user": user}, ensure_ascii=False) + "\n")
        for ws_dir in self.scope_dirs_of(new):
            agent = None
            if ws_dir.name != "workspace":
                try:
                    agent = json.loads(read_small_file(ws_dir / SCOPE_FILE, 1 << 16)).get("agent")
                except (OSError, ValueError, AttributeError, WorkspaceError):
                    agent = None
            atomic_write(
                ws_dir / SCOPE_FILE,
                json.dumps({"user": user, "agent": agent}, ensure_ascii=False) + "\n",
            )
        return moved

    def forget_legacy(self, digests: set[str]) -> None:
        """Take the user directories ``digests`` off the legacy list (forgotten or migrated)."""
        if not digests or not (self.root / LEGACY_FILE).exists():
            return
        with Lock(lock_path(self.root / LEGACY_FILE), timeout=30):
            users = self.legacy_users()
            self._write_legacy([u for u in users if u.digest not in digests])


def _gone_is_fine(function: Callable[..., Any], path: str, exc_info: Any) -> None:
    """``rmtree``'s error handler: an entry that vanished (another run deleting it) is fine."""
    if not isinstance(exc_info[1], FileNotFoundError):
        raise exc_info[1]


def remove_marker(marker: Path) -> int:
    """Remove a due marker; returns 1 if one was there. Something else at its place (an empty
    directory) is removed too; what cannot be removed (a directory with content) is a
    `WorkspaceError` naming it, never a traceback."""
    try:
        os.unlink(marker)
        return 1
    except FileNotFoundError:
        return 0
    except IsADirectoryError:
        pass
    except OSError as exc:
        raise WorkspaceError(f"cannot remove the due marker {marker}: {exc.strerror}") from None
    try:
        os.rmdir(marker)
        return 1
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise WorkspaceError(
            f"{marker} is a directory, not a due marker, and cannot be removed "
            f"({exc.strerror}): remove it by hand"
        ) from None


def _recorded_user(user_dir: Path) -> str | None:
    """The id a user directory was recorded under (``user.json``, else a scope's ``scope.json``)."""
    for path in (user_dir / "user.json", user_dir / "workspace" / SCOPE_FILE):
        try:
            value = json.loads(read_small_file(path, 1 << 16)).get("user")
        except (OSError, ValueError, AttributeError, WorkspaceError):
            continue
        if isinstance(value, str):
            return value
    return None


def read_small_file(path: Path, limit: int) -> bytes:
    """A small regular file's bytes, opened without following a link (`WorkspaceError` for a link,
    anything but a regular file, or one longer than ``limit``; ``FileNotFoundError`` when
    absent)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WorkspaceError(f"{path} is a symbolic link; never followed") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise WorkspaceError(f"{path} is not a regular file")
        if st.st_size > limit:
            raise WorkspaceError(f"{path} is {st.st_size:,} bytes long (at most {limit:,})")
        return os.read(fd, limit + 1)
    finally:
        os.close(fd)


def _open_close_dir(name: str, dir_fd: int) -> None:
    os.close(_open_dir(name, dir_fd))


def read_scope(ws_dir: Path) -> Scope | None:
    """The scope a workspace directory belongs to (its ``scope.json``), or None."""
    try:
        data = json.loads((ws_dir / SCOPE_FILE).read_text("utf-8"))
        return Scope(data["user"], data.get("agent"))
    except (OSError, ValueError, KeyError, TypeError, InvalidScopeError):
        return None


def due_jitter(key: str, window: float) -> float:
    """A fixed delay in ``[0, window)`` for ``key`` (a scope's name or a workspace id), from its
    digest: when a mass event makes every scope due at once, their runs spread over the window, and
    each keeps its place across restarts and processes. The one rule of ``reverie serve --root`` and
    the fleet alike."""
    h = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")
    return h / 2**64 * window


def due_hook(workspace: Workspace) -> Callable[[], None] | None:
    """For a scope's workspace (recognised by its place in the layout: no file is read), the
    function that marks it due, called after each durable history append; None for any other
    workspace."""
    name_and_root = _due_name_of(workspace.root)
    if name_and_root is None:
        return None
    name, root = name_and_root
    marker = root / "due" / name[:2] / name  # `DueMarkers.path`, without a check of the root

    def mark() -> None:
        try:
            _touch(marker, root)
        except WorkspaceError as exc:  # the entry is durable already; a rescan finds it again
            log.warning("%s not marked due: %s", name, exc)

    return mark


def _due_name_of(ws: Path) -> tuple[str, Path] | None:
    """``(due name, root)`` for a path at a scope workspace's place in the layout, else None."""
    if ws.name == "workspace":
        user_dir, name = ws.parent, ws.parent.name
    elif ws.parent.name == "agents" and _DIGEST.fullmatch(ws.name):
        user_dir, name = ws.parent.parent, f"{ws.parent.parent.name}.{ws.name}"
    else:
        return None
    users = user_dir.parent.parent.parent
    digest = user_dir.name
    if (
        users.name != "users"
        or not _DIGEST.fullmatch(digest)
        or user_dir.parent.name != digest[2:4]
        or user_dir.parent.parent.name != digest[:2]
    ):
        return None
    return name, users.parent


def _touch(marker: Path, root: Path, text: str | None = None) -> None:
    """Create a marker if absent (cheap when it exists: one ``lstat``), in ``<dir>/<bucket>``
    directories under ``root`` made one at a time, none of them a link: an empty one ``O_CREAT |
    O_EXCL | O_NOFOLLOW``, or one holding ``text`` written whole (a temporary file renamed over
    it: a reader never sees it half written; a link there is replaced, never followed). A new one
    is made durable (its directory fsynced) so a crash does not forget that a workspace is due."""
    if os.path.lexists(marker):
        return
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        if not check_no_link(root, (marker.parent.parent.name, marker.parent.name)):
            root.mkdir(parents=True, exist_ok=True)  # (its parents are the operator's)
            _mkdir_no_link(marker.parent.parent)
            _mkdir_no_link(marker.parent)
        if text is not None:
            atomic_write(marker, text)
            return
        fd = os.open(marker, flags, 0o644)
        os.close(fd)
        fsync_dir(marker.parent)
    except FileExistsError:
        return
    except OSError as exc:  # a full disk, a denied directory: one line, never a traceback
        raise WorkspaceError(f"cannot mark {marker.name} due: {exc.strerror or exc}") from None


def _subdirs(directory: Path, warn: Callable[[str, str], None] | None = None) -> list[Path]:
    """The directories in ``directory`` (links are no directories here: skipped, with ``warn``)."""
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except (FileNotFoundError, NotADirectoryError):
        return []
    if warn is not None:
        for e in entries:
            if e.is_symlink():
                warn(e.path, f"{e.path} is a symbolic link; skipped (never followed)")
    return sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))


def _tree_size(name: str, dir_fd: int) -> tuple[int, int]:
    """Files and bytes under the directory ``name`` of ``dir_fd``, walked without following
    links."""
    files = size = 0
    for _top, _dirs, names, fd in os.fwalk(name, dir_fd=dir_fd, follow_symlinks=False):
        for entry in names:
            files += 1
            try:
                size += os.lstat(entry, dir_fd=fd).st_size
            except OSError:
                pass
    return files, size
