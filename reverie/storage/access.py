"""Bearer tokens bound to scopes, for ``reverie mcp --http --root``. This docstring is the format's
spec.

``<root>/access/tokens.json`` (replaced atomically, under ``tokens.json.lock``)::

    {"version": 1,
     "tokens": [{"id": "3f9a0c1b2d4e", "sha256": "<64 hex digits>", "user": "alice", "agent": null,
                 "created": "2026-11-25T16:00:00+00:00", "label": "support bot"}]}

- A token is stored only as the SHA-256 of its text (the text is shown once, when issued): reading
  the file does not give anyone a token. SHA-256 without a salt is enough because tokens are random:
  32 bytes of entropy when Reverie makes them; one given from outside must be at least
  ``MIN_TOKEN_CHARS`` characters.
- ``id`` is the first 12 hex digits of the hash: what ``list`` shows and ``revoke`` takes.
- Every token is bound to exactly one scope (``user``, ``agent``); the server maps a request's token
  to that scope and to nothing else.

Readers take no lock; `TokenFile.lookup` re-reads the file when its identity (inode, size, mtime)
changed, so a revocation applies to the next request.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InvalidScopeError, WorkspaceError
from .fsutil import atomic_write
from .locking import Lock, lock_path
from .scopes import Scope, ScopeRoot, check_no_link, read_small_file, validate_id

__all__ = ["TokenFile", "TokenRecord", "MIN_TOKEN_CHARS", "check_token"]

log = logging.getLogger(__name__)

MIN_TOKEN_CHARS = 32
_MAX_BYTES = 64 << 20  # a token file of a million tokens is ~250 MB; past this, not one


def _normalised(user: str) -> str:
    """A recorded id as this version reads it (NFKC); one it refuses stays as it was (NFC)."""
    try:
        return validate_id(user, "user id")
    except InvalidScopeError:
        return unicodedata.normalize("NFC", user)


def check_token(token: str) -> str:
    """``token`` if it may be a bearer token, else `ConfigError` (too short, or white space or
    control characters, which an HTTP header cannot carry faithfully)."""
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"a bearer token must be at least {MIN_TOKEN_CHARS} characters (this one has "
            f"{len(token)}); `reverie mcp token issue` makes one"
        )
    if not token.isascii() or any(c.isspace() or not c.isprintable() for c in token):
        raise ConfigError("a bearer token must be printable ASCII without spaces")
    return token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class TokenRecord:
    """One issued token, without its text."""

    id: str
    sha256: str
    user: str
    agent: str | None
    created: str
    label: str = ""

    @property
    def scope(self) -> Scope:
        return Scope(self.user, self.agent)


class TokenFile:
    """The tokens of one scope root."""

    def __init__(self, root: ScopeRoot | str | os.PathLike[str]) -> None:
        base = root.root if isinstance(root, ScopeRoot) else Path(root)
        self.path = base / "access" / "tokens.json"
        self._cache: tuple[tuple[int, int, int], dict[str, TokenRecord]] | None = None

    # -- reading -----------------------------------------------------------------------------------
    def records(self) -> list[TokenRecord]:
        return list(self._load().values())

    def lookup(self, token: str) -> Scope | None:
        """The scope ``token`` is bound to, or None (unknown, revoked, or not a possible token)."""
        if len(token) < MIN_TOKEN_CHARS:
            return None
        record = self._load().get(_digest(token))
        return record.scope if record is not None else None

    def _load(self) -> dict[str, TokenRecord]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return {}
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        table = {r.sha256: r for r in self._read()}
        self._cache = (key, table)
        return table

    def _raw(self) -> dict[str, Any]:
        """The file's JSON, read without following a link (``access`` and ``tokens.json`` must
        be a directory and a regular file of the root: a link could bind another root's tokens)."""
        check_no_link(self.path.parent.parent, ("access",))
        try:
            data = json.loads(read_small_file(self.path, _MAX_BYTES))
        except FileNotFoundError:
            return {"tokens": []}
        except (OSError, ValueError, WorkspaceError) as exc:
            raise ConfigError(f"{self.path}: cannot be read as a token file ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("tokens"), list):
            raise ConfigError(
                f"{self.path}: not a token file (expected an object with a list of tokens)"
            )
        return data

    def _read(self) -> list[TokenRecord]:
        data = self._raw()
        out = []
        for item in data["tokens"]:
            try:
                record = TokenRecord(**item)
                scope = record.scope
            except InvalidScopeError as exc:
                # an id this version refuses (a mixed-script one): that token alone stops
                # working, never the others
                log.warning("%s: a token of a refused id is ignored (%s)", self.path, exc)
                continue
            except (TypeError, ValueError, ConfigError) as exc:
                raise ConfigError(f"{self.path}: a malformed token entry ({exc})") from None
            if (scope.user, scope.agent) != (record.user, record.agent):
                # recorded by an older version under an id this one normalises (NFKC) to another:
                # it was bound to that older scope, never to the one the id names now
                log.warning(
                    "%s: token %s is ignored: it was issued for %r, which this version reads as "
                    "%r (a scope recorded by an older version: reverie --root … legacy-ids)",
                    self.path,
                    record.id,
                    record.user,
                    scope.user,
                )
                continue
            out.append(record)
        return out

    # -- writing -----------------------------------------------------------------------------------
    def issue(
        self, scope: Scope, *, label: str = "", token: str | None = None
    ) -> tuple[str, TokenRecord]:
        """Bind a new token to ``scope``; returns its text (shown once: only its hash is kept) and
        its record."""
        text = check_token(token) if token is not None else secrets.token_urlsafe(32)
        digest = _digest(text)
        record = TokenRecord(
            digest[:12],
            digest,
            scope.user,
            scope.agent,
            datetime.now(UTC).isoformat(timespec="seconds"),
            " ".join(label.split()),
        )
        with self._locked():
            records = self._read_all()  # the ignored ones too: a rewrite never drops a record
            if any(r.sha256 == digest for r in records):
                raise ConfigError("that token is already issued")
            self._write([*records, record])
        return text, record

    def revoke(self, token_id: str) -> list[TokenRecord]:
        """Revoke the token whose id (or full text) is ``token_id``; returns what was revoked (none:
        unknown)."""
        wanted = _digest(token_id) if len(token_id) >= MIN_TOKEN_CHARS else None
        return self._drop(lambda r: r.id == token_id or r.sha256 == wanted)

    def revoke_user(self, user: str, recorded: Iterable[str] = ()) -> list[TokenRecord]:
        """Revoke every token of ``user``'s scopes (``forget-user``): each record whose id is
        ``user`` once normalised (so also one an older version recorded under a compatibility
        form), or is one of the ``recorded`` ids exactly (users an older version recorded under ids
        this one refuses)."""
        exact = set(recorded)
        return self._drop(lambda r: r.user in exact or _normalised(r.user) == user)

    def rebind_user(self, recorded: str, user: str) -> list[TokenRecord]:
        """Bind the tokens recorded for the id ``recorded`` (exactly) to ``user`` (a legacy user's
        directory migrated to ``user``'s place); returns the records rebound."""
        with self._locked():
            records = self._read_all()
            moved = [r for r in records if r.user == recorded]
            if moved:
                self._write([replace(r, user=user) if r.user == recorded else r for r in records])
        return moved

    def _drop(self, match: Callable[[TokenRecord], bool]) -> list[TokenRecord]:
        if not self.path.exists():
            return []
        with self._locked():
            records = self._read_all()
            gone = [r for r in records if match(r)]
            if gone:
                self._write([r for r in records if not match(r)])
        return gone

    def _read_all(self) -> list[TokenRecord]:
        """Every record, those this version ignores too (a rewrite keeps or revokes them; it
        never drops one silently)."""
        data = self._raw()
        try:
            return [TokenRecord(**item) for item in data["tokens"]]
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{self.path}: a malformed token entry ({exc})") from None

    def _locked(self) -> Lock:
        root = self.path.parent.parent
        if not check_no_link(root, ("access",)):
            root.mkdir(parents=True, exist_ok=True)  # (the root's own parents are the operator's)
            try:
                os.mkdir(self.path.parent)
            except FileExistsError:
                check_no_link(root, ("access",))
        return Lock(lock_path(self.path), timeout=30)

    def _write(self, records: list[TokenRecord]) -> None:
        data = {"version": 1, "tokens": [asdict(r) for r in records]}
        atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n", mode=0o600)
        self._cache = None
