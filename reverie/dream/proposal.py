"""A SOUL.md proposal: a change Dream (or an agent) proposed and a person has not approved yet. This
docstring is the format's spec.

With ``dream.protectSoul`` (the default) Dream never writes SOUL.md, the agent's standing
instructions: it calls ``stage_soul_change`` and the change waits in
``memory/.reverie/pending-soul.json`` until ``approve`` (``reverie approve``) commits it or
``reject`` (``reverie reject``) drops it. ``status`` and ``/dream-log`` show it (``load_proposal``).

The file is one UTF-8 JSON object, replaced atomically (``reverie.storage.fsutil.atomic_write``)::

    {"version": 1, "path": "SOUL.md",
     "base": "<SOUL.md the proposal was made against>", "base_sha256": "<hex of base>",
     "proposed": "<the whole new SOUL.md>",
     "created_at": "2026-11-22T14:05:00+00:00", "updated_at": "...",
     # history cursors the proposing run(s) read, or null
     "first_cursor": 31, "last_cursor": 42,
     "head": "<memory repo HEAD when staged, or null>", "model": "<model name or null>",
     "reasons": ["<why, one line each>"], "proposals": 1}

One proposal at a time. Staging again against the same base folds the new proposal into the
waiting one with a three-way merge (``proposals`` counts them; cursors widen); if they conflict, or
the base differs, the newer proposal replaces the older one with a warning (the older one's reasons
are kept in ``reasons``).

Crash safety: ``approve`` commits first (GitStore's own crash-safe order), then deletes the file. A
crash in between leaves a proposal whose ``proposed`` already equals SOUL.md; the next
``approve`` sees that and only deletes the file, and ``load_proposal`` reports it as ``applied``.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import MergeConflictError, WorkspaceError
from ..storage.fsutil import atomic_write
from ..storage.workspace import SOUL, Workspace
from ..text.diff import numstat_text

if TYPE_CHECKING:
    from ..storage.store import WorkspaceStore

log = logging.getLogger(__name__)

__all__ = ["SoulProposal", "proposal_path", "stage_soul_change", "load_proposal", "FILE_NAME"]

FORMAT_VERSION = 1
#: The file keeps its first name: workspaces on disk hold it under this one.
FILE_NAME = "pending-soul.json"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class SoulProposal:
    """A staged SOUL.md change. ``applied`` is True when SOUL.md already holds ``proposed`` (see
    module doc)."""

    path: str
    base: str
    proposed: str
    created_at: str
    updated_at: str
    first_cursor: int | None = None
    last_cursor: int | None = None
    head: str | None = None
    model: str | None = None
    reasons: tuple[str, ...] = ()
    proposals: int = 1
    applied: bool = field(default=False, compare=False)

    @property
    def base_sha256(self) -> str:
        """The sha256 of the SOUL.md text the change was made from (what approval checks before
        applying it)."""
        return _sha256(self.base)

    @property
    def id(self) -> str:
        """Names this proposal (its base and proposed text): a confirmation that showed its diff
        passes it back to ``approve``/``reject`` (``change=``), so a proposal Dream widened since
        the preview is never applied or dropped unseen."""
        return _sha256(self.base + "\0" + self.proposed)

    def diff(self, against: str | None = None) -> str:
        """Unified diff from ``against`` (default: the base) to the proposed content."""
        old = self.base if against is None else against
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            self.proposed.splitlines(keepends=True),
            fromfile=f"a/{self.path}",
            tofile=f"b/{self.path}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )

    def counts(self) -> tuple[int, int]:
        """Lines (added, removed) relative to the base (git's numstat)."""
        return numstat_text(self.base, self.proposed)

    def to_json(self) -> bytes:
        """The proposal as its file's JSON (``reverie.dream.proposal``'s format)."""
        obj: dict[str, Any] = {
            "version": FORMAT_VERSION,
            "path": self.path,
            "base": self.base,
            "base_sha256": self.base_sha256,
            "proposed": self.proposed,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "first_cursor": self.first_cursor,
            "last_cursor": self.last_cursor,
            "head": self.head,
            "model": self.model,
            "reasons": list(self.reasons),
            "proposals": self.proposals,
        }
        return orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n"

    @classmethod
    def from_json(cls, raw: bytes, *, origin: str) -> SoulProposal:
        """Parse the file; raises ``WorkspaceError`` naming what is wrong (never guesses a
        proposal)."""
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise WorkspaceError(
                f"{origin} is not valid JSON ({exc}); inspect it, or drop it with `reverie reject`"
            ) from None
        if not isinstance(obj, dict) or obj.get("version") != FORMAT_VERSION:
            raise WorkspaceError(
                f"{origin}: not a version-{FORMAT_VERSION} "
                "SOUL.md proposal; drop it with `reverie reject`"
            )
        base, proposed = obj.get("base"), obj.get("proposed")
        if not isinstance(base, str) or not isinstance(proposed, str):
            raise WorkspaceError(
                f"{origin}: 'base' and 'proposed' must be strings; drop it with `reverie reject`"
            )
        if obj.get("base_sha256") not in (None, _sha256(base)):
            raise WorkspaceError(
                f"{origin}: 'base' does not match 'base_sha256' "
                "(edited by hand?); drop it with `reverie reject`"
            )

        def _int(key: str) -> int | None:
            value = obj.get(key)
            return (
                value
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0
                else None
            )

        def _str(key: str) -> str | None:
            value = obj.get(key)
            return value if isinstance(value, str) else None

        reasons = obj.get("reasons")
        return cls(
            path=_str("path") or SOUL,
            base=base,
            proposed=proposed,
            created_at=_str("created_at") or "",
            updated_at=_str("updated_at") or _str("created_at") or "",
            first_cursor=_int("first_cursor"),
            last_cursor=_int("last_cursor"),
            head=_str("head"),
            model=_str("model"),
            reasons=tuple(r for r in reasons if isinstance(r, str))
            if isinstance(reasons, list)
            else (),
            proposals=_int("proposals") or 1,
        )


def _workspace(store: WorkspaceStore | Workspace) -> Workspace:
    return store if isinstance(store, Workspace) else store.workspace


def proposal_path(store: WorkspaceStore | Workspace) -> Path:
    return _workspace(store).state_dir / FILE_NAME


def load_proposal(store: WorkspaceStore | Workspace) -> SoulProposal | None:
    """The SOUL.md proposal waiting for a person, or None. Raises ``WorkspaceError`` if the file is
    corrupt."""
    path = proposal_path(store)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot be read: {exc.strerror}") from exc
    change = SoulProposal.from_json(raw, origin=str(path))
    current = _workspace(store).read(change.path)
    if current == change.proposed and current != change.base:
        change = replace(change, applied=True)
    return change


def stage_soul_change(
    store: WorkspaceStore | Workspace,
    *,
    base: str,
    proposed: str,
    first_cursor: int | None = None,
    last_cursor: int | None = None,
    reason: str = "",
    model: str | None = None,
    head: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> SoulProposal:
    """Stage Dream's proposed SOUL.md (``proposed``, made against ``base``) for approval instead of
    writing it.

    ``meta`` is an alternative spelling of the keyword fields for callers that carry a dict (keys
    ``first``, ``last``, ``reason``, ``model``, ``head``); explicit keywords win. Returns the
    proposal as now stored (possibly merged with an earlier one).
    """
    if meta:
        first_cursor = first_cursor if first_cursor is not None else _meta_int(meta, "first")
        last_cursor = last_cursor if last_cursor is not None else _meta_int(meta, "last")
        reason = reason or str(meta.get("reason") or "")
        model = model or (str(meta["model"]) if meta.get("model") else None)
        head = head or (str(meta["head"]) if meta.get("head") else None)
    now = _now()
    reason_line = " ".join(reason.split())
    previous = _load_quietly(store)
    if previous is not None and previous.base == base and not previous.applied:
        # here, not at the top: `reverie status` reads this file, never merges
        from ..gitstore.merge import merge3

        try:
            merged = merge3(base, previous.proposed, proposed, path=SOUL)
        except MergeConflictError:
            log.warning(
                "a new SOUL.md proposal conflicts with the "
                "waiting one; the newer proposal replaces it"
            )
        else:
            change = replace(
                previous,
                proposed=merged,
                updated_at=now,
                first_cursor=_min(previous.first_cursor, first_cursor),
                last_cursor=_max(previous.last_cursor, last_cursor),
                model=model or previous.model,
                head=head or previous.head,
                reasons=previous.reasons + ((reason_line,) if reason_line else ()),
                proposals=previous.proposals + 1,
            )
            atomic_write(proposal_path(store), change.to_json())
            return change
    elif previous is not None and not previous.applied:
        log.warning(
            "SOUL.md changed since the waiting proposal was made; the newer proposal replaces it"
        )
    kept = previous.reasons if previous is not None and not previous.applied else ()
    change = SoulProposal(
        path=SOUL,
        base=base,
        proposed=proposed,
        created_at=now,
        updated_at=now,
        first_cursor=first_cursor,
        last_cursor=last_cursor,
        head=head,
        model=model,
        reasons=kept + ((reason_line,) if reason_line else ()),
        proposals=(previous.proposals + 1) if previous is not None and kept else 1,
    )
    # one atomic replace: old or new proposal, never a mix
    atomic_write(proposal_path(store), change.to_json())
    return change


def _meta_int(meta: Mapping[str, Any], key: str) -> int | None:
    value = meta.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _load_quietly(store: WorkspaceStore | Workspace) -> SoulProposal | None:
    try:
        return load_proposal(store)
    except WorkspaceError as exc:
        log.warning("replacing an unreadable SOUL.md proposal: %s", exc)
        return None


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)
