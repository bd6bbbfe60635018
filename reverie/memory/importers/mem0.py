"""A mem0 export brought in (``reverie import FILE --from mem0``): the JSON ``Memory.get_all()``
returns (``{"results": [...]}``, ``{"memories": [...]}`` or the bare list).

mem0 keeps one store for every user; Reverie keeps one workspace per user. So an export is read
into:

- a **root of scoped workspaces** (``--root DIR``, ``import_mem0_root``): each user's memories into
  that user's scope (``user_id``, and ``agent_id`` as the scope's agent when there is one), created
  on the way; an item without a ``user_id`` cannot be placed and is named;
- **one workspace** (``-w DIR``, ``import_mem0``): only when the export is one user's, or for the
one
  ``user`` asked for (the others' items are named as left out); an export of several users is
  refused with their ids, never merged into one person's memory. That user becomes the workspace's
  user (``Memory.check_user``: mem0's verbs given another ``user_id`` are refused), and a
  workspace that is another user's already is refused.

Each memory becomes a history entry (session key ``import:mem0``), as anything said does: Recall
finds it at once, and Dream weighs it for USER.md and memory/MEMORY.md. The entry is dated with the
memory's ``created_at`` and keeps what mem0 knew of it under ``"mem0"``: its ``id``, ``hash``,
``metadata``, ``categories``, ``created_at`` and ``updated_at``, and the ``user_id``, ``agent_id``
and ``run_id`` it belonged to. Text and metadata are redacted of credentials. An item that is not a
memory (no text, not an object) is named with its place in the file; one already imported (the same
mem0 ``id`` in that workspace's history) is named and not added again, so importing an export twice
adds nothing.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from ...errors import InvalidScopeError, WorkspaceError
from ...operations.portability import ImportResult, ScopeImport
from ...security.scrub import redact_value
from ...storage.history import format_timestamp
from ...text.dates import parse_timestamp
from ...text.safety import unstorable
from ...text.utf8 import not_utf8
from ..core import Memory
from ..core import open as open_memory
from ..verbs import record_user
from ._read import Intake

__all__ = ["import_mem0", "import_mem0_root", "read_export", "MAX_EXPORT_BYTES", "SESSION_KEY"]

#: Largest export read.
MAX_EXPORT_BYTES = 64 << 20
SESSION_KEY = "import:mem0"
#: The fields of a mem0 memory kept with its entry.
_KEPT = (
    "id",
    "hash",
    "metadata",
    "categories",
    "created_at",
    "updated_at",
    "user_id",
    "agent_id",
    "run_id",
)


def read_export(path: Path, intake: Intake) -> list[tuple[str, dict[str, Any]]]:
    """The export's memories as (how the item is named, the item); items that are not memories
    are named in ``intake`` as skipped. ``WorkspaceError`` for a file that is not a mem0 export."""
    if not path.is_file():
        raise WorkspaceError(f"no mem0 export at {path}")
    size = path.stat().st_size
    if size > MAX_EXPORT_BYTES:
        raise WorkspaceError(f"{path} is {size:,} bytes (at most {MAX_EXPORT_BYTES:,} are read)")
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkspaceError(f"{path} is {not_utf8(data, exc)}") from None
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        # orjson refuses a lone-surrogate escape ("\ud800"), which is valid JSON: the standard
        # parser reads it, and each one is kept as its escape text (as history keeps one)
        try:
            parsed = _escaped(json.loads(data))
        except (ValueError, RecursionError):
            raise WorkspaceError(f"{path} is not JSON ({exc})") from None
    items = parsed.get("results", parsed.get("memories")) if isinstance(parsed, dict) else parsed
    if not isinstance(items, list):
        raise WorkspaceError(
            f'{path} is not a mem0 export: expected get_all()\'s {{"results": [...]}} or a list of '
            "memories"
        )
    out: list[tuple[str, dict[str, Any]]] = []
    for n, item in enumerate(items, start=1):
        ident = item.get("id") if isinstance(item, dict) else None
        name = f"item {n}" + (f" (id {ident})" if isinstance(ident, str | int) else "")
        if not isinstance(item, dict):
            intake.skip(name, f"not a memory object (a {type(item).__name__})")
        elif not isinstance(item.get("memory"), str) or not item["memory"].strip():
            intake.skip(name, "no memory text")
        elif (why := unstorable(item["memory"])) is not None:
            # what ``Memory.remember`` refuses (a NUL, an ESC) never comes in altered
            intake.skip(name, f"its memory text {why}")
        else:
            out.append((name, item))
    if not out and not intake.skipped:
        raise WorkspaceError(f"{path} holds no mem0 memories")
    return out


def _escaped(value: Any) -> Any:
    """``value`` with every string's lone surrogates written as their escape text (valid UTF-8)."""
    if isinstance(value, str):
        return value.encode("utf-8", errors="backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    return value


def _stamp(value: Any) -> str | None:
    """mem0's ISO ``created_at`` as history's local ``YYYY-MM-DD HH:MM`` (None when unreadable)."""
    when = parse_timestamp(value)
    if when is None:
        return None
    return format_timestamp(when.astimezone() if when.tzinfo else when)


def _known_ids(memory: Memory) -> set[str]:
    ids: set[str] = set()
    for entry in memory.history():
        kept = entry.extra.get("mem0")
        if isinstance(kept, dict) and kept.get("id") is not None:
            ids.add(str(kept["id"]))
    return ids


def _bring(
    memory: Memory, items: list[tuple[str, dict[str, Any]]], intake: Intake, source: Path
) -> int:
    """Each item a history entry of ``memory``'s workspace; the number added."""
    memory.init()
    known = _known_ids(memory)
    history = memory.runtime.store.history
    added = 0
    for name, item in items:
        ident = item.get("id")
        if ident is not None and str(ident) in known:
            intake.skip(name, f"already imported into {memory.workspace.root}")
            continue
        kept, found = redact_value({k: item[k] for k in _KEPT if k in item})
        intake.redacted += found
        text = intake.clean(" ".join(item["memory"].split()))
        history.append(
            text,
            SESSION_KEY,
            timestamp=_stamp(item.get("created_at")),
            extra={"mem0": kept, "source": str(source)},
        )
        if ident is not None:
            known.add(str(ident))
        added += 1
    return added


def import_mem0(
    memory: Memory, source: str | os.PathLike[str], *, user: str | None = None
) -> ImportResult:
    """A mem0 export into one workspace (see the module doc): the export must be one user's, or
    ``user`` picks whose memories come in."""
    path = Path(source).expanduser().absolute()
    intake = Intake()
    items = read_export(path, intake)
    users = sorted({str(i["user_id"]) for _, i in items if i.get("user_id") is not None})
    if user is None and len(users) > 1:
        shown = ", ".join(users[:5]) + (f" and {len(users) - 5} more" if len(users) > 5 else "")
        raise WorkspaceError(
            f"{path} holds the memories of {len(users)} users ({shown}): import it into a root of "
            "scoped workspaces (--root DIR) to give each their own, or take one user's (--user ID)"
        )
    if user is not None:
        chosen = []
        for name, item in items:
            owner = item.get("user_id")
            if owner is None:
                intake.skip(name, f"no user_id: not taken for {user}'s")
            elif str(owner) != user:
                intake.skip(name, f"user {owner}'s, not {user}'s")
            else:
                chosen.append((name, item))
        items = chosen
    owner = user if user is not None else (users[0] if users else None)
    if owner is not None:
        memory.check_user(owner)  # another user's workspace: refused before anything is written
    added = _bring(memory, items, intake, path)
    if owner is not None:
        record_user(memory, owner)
    return ImportResult(
        memory.workspace.root,
        0,
        0,
        items=added,
        skipped=tuple(intake.skipped),
        redacted=intake.redacted,
        user=owner,
    )


def import_mem0_root(root: str | os.PathLike[str], source: str | os.PathLike[str]) -> ImportResult:
    """A mem0 export into a root of scoped workspaces: each user's memories (and each of their
    agents') into their own scope (see the module doc)."""
    path = Path(source).expanduser().absolute()
    intake = Intake()
    groups: dict[tuple[str, str | None], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for name, item in read_export(path, intake):
        owner, agent = item.get("user_id"), item.get("agent_id")
        if owner is None or not str(owner).strip():
            intake.skip(name, "no user_id: it belongs to no user's scope")
            continue
        groups[(str(owner), None if agent is None else str(agent))].append((name, item))
    scopes: list[ScopeImport] = []
    for (owner, agent), items in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        try:
            memory = open_memory(root=root, user=owner, agent=agent)
        except InvalidScopeError as exc:
            for name, _ in items:
                intake.skip(name, f"user {owner!r} has no usable scope ({exc})")
            continue
        with memory:
            added = _bring(memory, items, intake, path)
            scopes.append(ScopeImport(owner, agent, memory.workspace.root, added))
    return ImportResult(
        Path(root).expanduser().absolute(),
        0,
        0,
        items=sum(s.items for s in scopes),
        skipped=tuple(intake.skipped),
        redacted=intake.redacted,
        scopes=tuple(scopes),
    )
