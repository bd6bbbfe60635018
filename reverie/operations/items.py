"""Memory items: each memory as one thing with a stable id — the verbs a mem0 user reaches for
(``get``, ``get_all``, ``update``, ``delete``, ``history``) and the search a model is handed
(``search_memory``). This docstring is the ids' spec.

**What an item is.** A fact line of USER.md or memory/MEMORY.md (what mem0 calls a memory), in
state ``active``; or, found by id or by search, a line the archive keeps (``archived``), a history
entry (``pending`` until Dream has read it, then ``dreamed``), a message of a conversation, a line
of a topic file or dated note.

**Ids.**

- A line of USER.md or memory/MEMORY.md: ``m`` and 12 hex digits of the sha256 of the line's
  *origin*, compared as ``hitlog.line_key`` compares lines. The origin is the text the line had
  when it entered memory: from its text, follow the archive's notes backwards — ``superseded <day>
  by "<new>"`` and ``merged <day> … into "<new>"``, which Dream writes when it replaces or merges a
  line and ``update`` writes too — to the oldest text it replaced. So the id survives Dream's
  edits (a superseded line's id moves to the line that replaced it, mem0's UPDATE) and restores (a
  restore brings back the older text together with the archive as it was, and the older text's
  origin is the same). A second line of the same origin in the same file is ``<id>-2``, and so on.
  Ids are derived from the files alone: no registry is written or kept in step, so every writer
  (Dream, a person's edit, a restore, a merge of two branches) keeps them by writing what it
  writes. A line a person rewrites by hand gets a new id (nothing says it is the same fact: when
  unsure whether two lines are the same fact, they are two).
- A line the archive keeps: the id it had (its origin's), state ``archived``, with the archive's
  note (why and when it left). ``delete`` archives; ``restore`` brings it back.
- A history entry: ``h<cursor>``. A conversation's message: ``c<index>:<session key>``. A line of
  a topic file, dated note or archive file: ``<path>#L<line>``.

**Lifecycle.** ``update(id, text)`` replaces the line in its file and archives the old text as
superseded by the new one, one commit (kind ``manual``) that Dream's gate judges; ``delete(id)``
moves it to the archive with the reason (``Memory.remove``); both are undone by ``restore``.
``history(id)`` reads the file's versions (the newest 200 commits that touched it) and reports
each ADD, UPDATE and DELETE of that id with the commit, its kind and time.

**What a model is handed** (``search_memory``): Recall's hits made clean — no internal marks
(``[durable]``, ``[RAW] N messages``, ages, pins), a raw transcript reduced to what the user said,
never the assistant's own replies, never the conversation in progress (``session_key``'s messages
still in its session file) — with an absolute ``score``: the share of the query's words the text
holds (``Hit.match``, 0 to 1). A stored memory whose text is the query's is a hit like any other:
a search never hides an exact match.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from ..dream.archive import archive_path, parse_entry
from ..errors import CommandError, UnsafePathError, WorkspaceError
from ..llm.protocol import NOTHING, UNSURE, parse_fact_line, strip_age
from ..recall.rank import query_terms
from ..recall.search import match
from ..storage.sessions import content_text
from ..storage.topics import is_topic
from ..storage.workspace import MEMORY, SOUL, USER, check_relative, starter_text
from ..text.memline import bare_line, is_fact_line, line_key

if TYPE_CHECKING:
    from ..recall import Hit
    from .services import Services

__all__ = [
    "ITEM_FILES",
    "MemoryItem",
    "Results",
    "Event",
    "active_items",
    "changes",
    "MemoryEvent",
    "State",
    "item_id",
    "get_all",
    "get",
    "locate",
    "not_active",
    "update",
    "history_of",
    "search_memory",
    "clean_entry",
    "entry_item",
    "carried",
    "added",
    "HISTORY_DEPTH",
]

#: The files whose lines are memories (SOUL.md holds the agent's rules; topic files are documents).
ITEM_FILES = (USER, MEMORY)
#: How many of a file's newest commits ``history(id)`` reads.
HISTORY_DEPTH = 200
State = Literal["active", "archived", "pending", "dreamed", "said", "file"]
#: What ``add(..., infer=True)`` did to a memory (mem0's events): NONE is an entry kept in history
#: with no line written of it (the engine was unsure, or it stated nothing new).
Event = Literal["ADD", "UPDATE", "DELETE", "NONE"]
_LINEAGE = re.compile(
    r'^(?:superseded|merged) \d{4}-\d{2}-\d{2}\b.*?\b(?:by|into) "(.*)"(?: \([^()]*\))?$'
)
_RAW = re.compile(r"^\[RAW\] \d+ messages?\s*$")
_SAID = re.compile(r"^\[[^\]]*\] USER(?:\([^)]*\))?: (.*)$")
_ID = re.compile(r"^m[0-9a-f]{12}(?:-\d+)?$")


class _Keyed(Mapping[str, Any]):
    """mem0's spelling on a result, which is a dict there: ``item["memory"]`` and
    ``item.get("score")`` read the field of that name (``KeyError`` for a name that is no field),
    and the item is a read-only mapping of its fields, so ``dict(item)``, ``{**item}``,
    ``"score" in item`` and ``item.items()`` work as on mem0's dicts."""

    __dataclass_fields__: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dataclass_fields__)

    def __len__(self) -> int:
        return len(self.__dataclass_fields__)

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default`` when it is None or no field."""
        value = getattr(self, key, None) if key in self.__dataclass_fields__ else None
        return default if value is None else value


@dataclass(frozen=True)
class MemoryItem(_Keyed):
    """One memory (see the module doc): its ``id``, its text (``memory``, mem0's name), its
    ``state``, where it is (``path``), when (``created_at`` / ``updated_at``, ISO, when known), what
    it carries (``metadata``: an archived line's note, a history entry's extra fields), and for a
    search result its ``score`` (absolute: the share of the query's words it holds, 0 to 1) and
    ``source`` (where it came from, said for a reader)."""

    id: str
    memory: str
    state: State
    path: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    score: float | None = None
    source: str | None = None
    #: What ``add`` did (``add(..., infer=True)`` only): ADD, UPDATE, DELETE or NONE.
    event: Event | None = None

    def to_dict(self) -> dict[str, Any]:
        """The item as plain JSON (``None`` fields left out)."""
        out = {
            "id": self.id,
            "memory": self.memory,
            "state": self.state,
            "path": self.path,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "metadata": self.metadata or None,
            "score": self.score,
            "source": self.source,
            "event": self.event,
        }
        return {k: v for k, v in out.items() if v is not None}


class Results(list[MemoryItem]):
    """The items a mem0 verb returns, as a list; ``results["results"]`` (mem0's result shape,
    ``{"results": [...]}``) is the same items, so code written for mem0 reads them unchanged."""

    def __getitem__(self, key: Any) -> Any:
        if key == "results":
            return list(self)
        if isinstance(key, str):
            raise KeyError(f"{key!r}: the results are a list of items (results['results'] too)")
        return super().__getitem__(key)


@dataclass(frozen=True)
class MemoryEvent(_Keyed):
    """One change of a memory (a row of mem0's ``history(memory_id)``): ``event`` is ADD, UPDATE or
    DELETE, with the text before and after, and the commit that made it (its sha, kind and time).
    mem0's row fields are all there: ``id`` (the row's: the memory's id and the commit's),
    ``updated_at`` (a row is never changed: its ``created_at``) and ``is_deleted`` (the DELETE
    row); ``actor_id`` and ``role`` are None (a commit's kind says who changed it)."""

    memory_id: str
    event: Literal["ADD", "UPDATE", "DELETE"]
    old_memory: str | None
    new_memory: str | None
    commit: str
    kind: str
    created_at: str
    id: str = field(init=False)
    updated_at: str = field(init=False)
    is_deleted: bool = field(init=False)
    actor_id: str | None = field(init=False, default=None)
    role: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", f"{self.memory_id}@{self.commit[:12]}")
        object.__setattr__(self, "updated_at", self.created_at)
        object.__setattr__(self, "is_deleted", self.event == "DELETE")

    def to_dict(self) -> dict[str, Any]:
        """The event as plain JSON (mem0's history rows carry the same fields)."""
        return dict(self)


# -- ids -------------------------------------------------------------------------------------


def item_id(origin: str) -> str:
    """The id of a line whose origin text is ``origin`` (see the module doc)."""
    return "m" + hashlib.sha256(line_key(origin).encode("utf-8")).hexdigest()[:12]


def _lineage(texts: dict[str, str]) -> dict[tuple[str, str], str]:
    """(file, key of a newer text) → the older text it replaced, from the archive files' notes."""
    out: dict[tuple[str, str], str] = {}
    for rel in ITEM_FILES:
        for raw in texts.get(archive_path(rel), "").split("\n"):
            parsed = parse_entry(raw)
            found = _LINEAGE.match(parsed[1]) if parsed else None
            if parsed and found:
                out.setdefault((rel, line_key(found.group(1))), parsed[0])
    return out


def _origin(rel: str, text: str, lineage: dict[tuple[str, str], str]) -> str:
    seen = {line_key(text)}
    while (rel, line_key(text)) in lineage:
        text = lineage[(rel, line_key(text))]
        key = line_key(text)
        if key in seen:
            break
        seen.add(key)
    return text


@dataclass(frozen=True)
class _Line:
    path: str
    number: int  # 1-based
    raw: str
    text: str
    id: str


def _ids(
    rel: str, lines: Iterable[tuple[int, str]], lineage: dict[tuple[str, str], str]
) -> list[_Line]:
    counts: dict[str, int] = {}
    out: list[_Line] = []
    for number, raw in lines:
        text = bare_line(strip_age(raw)[0])
        base = item_id(_origin(rel, text, lineage))
        counts[base] = counts.get(base, 0) + 1
        ident = base if counts[base] == 1 else f"{base}-{counts[base]}"
        out.append(_Line(rel, number, raw, text, ident))
    return out


def _texts(rt: Services) -> dict[str, str]:
    ws = rt.workspace
    rels = [*ITEM_FILES, *(archive_path(r) for r in ITEM_FILES)]
    return {rel: ws.read(rel) for rel in rels}


def _facts(rel: str, text: str) -> list[tuple[int, str]]:
    """The numbered fact lines of a memory file (its starter text's description left out)."""
    starter = set(starter_text(rel).split("\n"))
    return [
        (n, raw)
        for n, raw in enumerate(text.split("\n"), 1)
        if is_fact_line(raw) and raw not in starter
    ]


def _active(texts: dict[str, str], lineage: dict[tuple[str, str], str]) -> list[_Line]:
    out: list[_Line] = []
    for rel in ITEM_FILES:
        rows = _facts(rel, texts[rel])
        out.extend(_ids(rel, rows, lineage))
    return out


def _archived(
    texts: dict[str, str], lineage: dict[tuple[str, str], str]
) -> list[tuple[_Line, str]]:
    """Every archive entry of USER.md and memory/MEMORY.md with the id its line had, and its note
    (an id appears once per text it had: the lineage of one memory)."""
    out: list[tuple[_Line, str]] = []
    for rel in ITEM_FILES:
        archive = archive_path(rel)
        for n, raw in enumerate(texts[archive].split("\n"), 1):
            parsed = parse_entry(raw)
            if parsed:
                ident = item_id(_origin(rel, parsed[0], lineage))
                out.append((_Line(archive, n, raw, parsed[0], ident), parsed[1]))
    return out


def locate(rt: Services, memory_id: str) -> tuple[str, str] | None:
    """(file, the line as it stands) of the active memory ``memory_id``, or None."""
    _check_id(memory_id)
    texts = _texts(rt)
    lineage = _lineage(texts)
    for line in _active(texts, lineage):
        if line.id == memory_id:
            return line.path, line.raw
    return None


def not_active(rt: Services, memory_id: str, verb: str) -> WorkspaceError:
    """Why ``verb`` (update, delete) cannot act on ``memory_id``, in words that say what to do:
    only an active line of USER.md or memory/MEMORY.md is changed by id (history is kept as it
    was written, a conversation is what was said, a file's line is edited with ``write``)."""
    item = get(rt, memory_id)
    if item is None:
        why = f"no memory {memory_id} (get_all lists them)"
    elif item.state == "pending":
        why = (
            f"memory {memory_id} is waiting for Dream, and history is kept as it was written: "
            f"run dream(), then {verb} the line it became (get_all lists it, with an id starting "
            "with m), or add() the correction and Dream weighs both"
        )
    elif item.state == "dreamed":
        why = (
            f"memory {memory_id} is a history entry Dream has read already: {verb} the line it "
            "became (get_all lists it, with an id starting with m)"
        )
    elif item.state == "archived":
        why = f"memory {memory_id} is archived ({item.metadata.get('note', 'not active')}): "
        why += "restore the commit that archived it to bring it back"
    elif item.state == "said":
        why = f"{memory_id} is a message of a conversation, not a memory: nothing to {verb} by id"
    else:
        why = f"{memory_id} is a line of {item.path}: edit that file with write()"
    return WorkspaceError(why)


def _check_id(memory_id: object) -> str:
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise CommandError(f"memory_id must be a non-empty string, not {memory_id!r}")
    return memory_id


# -- the verbs -------------------------------------------------------------------------------------


def _item(line: _Line, state: State = "active", note: str | None = None) -> MemoryItem:
    return MemoryItem(line.id, line.text, state, line.path, metadata={"note": note} if note else {})


def get_all(rt: Services, *, limit: int | None = None) -> list[MemoryItem]:
    """Every active memory (USER.md, then memory/MEMORY.md, in file order), then the history
    entries Dream has not read yet that state something (``pending``; raw transcripts left out)."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise CommandError(f"limit must be a positive whole number, not {limit!r}")
    texts = _texts(rt)
    items = [_item(line) for line in _active(texts, _lineage(texts))] + _pending(rt)
    return items[:limit] if limit is not None else items


def added(rt: Services, keys: Sequence[str]) -> list[MemoryItem]:
    """Everything ``add`` recorded that carries its ids and metadata: every history entry with
    extra fields (``dreamed`` or ``pending``), then the messages of the conversations ``add`` keeps
    under ``keys`` (``said``). What a filtered ``get_all`` chooses from: a memory line carries
    no metadata, the entries and messages it came from do."""
    done = rt.store.dream_cursor()
    out = [
        entry_item(entry, "\n".join(said), "dreamed" if entry.cursor <= done else "pending")
        for entry in rt.store.history.read_since(0)
        if entry.extra and (said := clean_entry(entry.content))
    ]
    for key in dict.fromkeys(keys):
        session = rt.sessions.load(rt.sessions.path_for(key))
        for n, message in enumerate(session.messages if session is not None else ()):
            if message.get("role") == "user":
                text = " ".join(content_text(message.get("content")).split())
                out.append(MemoryItem(f"c{n}:{key}", text, "said", f"sessions ({key})"))
    return out


def _recent(rt: Services, count: int) -> list[MemoryItem]:
    """The newest ``count`` history entries Dream has read, newest first, as what the user said
    (what Dream left in history is still memory: search finds it)."""
    done = rt.store.dream_cursor()
    start = max(0, done - count)
    entries = [e for e in rt.store.history.read_since(start, count) if e.cursor <= done]
    return [
        entry_item(entry, "\n".join(said), "dreamed")
        for entry in reversed(entries)
        if (said := clean_entry(entry.content))
    ]


def _pending(rt: Services) -> list[MemoryItem]:
    """The history entries Dream has not read yet that state something (raw transcripts left
    out)."""
    return [
        entry_item(entry, "\n".join(said), "pending")
        for entry in rt.store.read_unprocessed_history()
        if (said := clean_entry(entry.content, speech=False))
    ]


def active_items(rt: Services) -> dict[str, MemoryItem]:
    """Every active memory by id (USER.md, then memory/MEMORY.md): what ``changes`` compares."""
    texts = _texts(rt)
    return {line.id: _item(line) for line in _active(texts, _lineage(texts))}


def changes(rt: Services, before: dict[str, MemoryItem]) -> list[MemoryItem]:
    """What memory became since ``before`` (an ``active_items`` of earlier), as mem0's events: an
    id new to memory is ADD; an id whose text changed is UPDATE (its old text under
    ``metadata["previous_memory"]``, mem0's name); an id no longer active is DELETE (as the
    archive keeps it, with why)."""
    after = active_items(rt)
    out: list[MemoryItem] = []
    for ident, item in after.items():
        old = before.get(ident)
        if old is None:
            out.append(replace(item, event="ADD"))
        elif line_key(old.memory) != line_key(item.memory):
            meta = {**item.metadata, "previous_memory": old.memory}
            out.append(replace(item, event="UPDATE", metadata=meta))
    for ident, old in before.items():
        if ident not in after:
            out.append(replace(get(rt, ident) or old, event="DELETE"))
    return out


def entry_item(entry: Any, text: str, state: State) -> MemoryItem:
    """A history entry as an item (id ``h<cursor>``), its extra fields as metadata."""
    extra = {k: v for k, v in entry.extra.items()} if entry.extra else {}
    if entry.session_key:
        extra["session_key"] = entry.session_key
    return MemoryItem(
        f"h{entry.cursor}",
        text,
        state,
        "memory/history.jsonl",
        created_at=entry.timestamp,
        updated_at=entry.timestamp,
        metadata=extra,
    )


def get(rt: Services, memory_id: str) -> MemoryItem | None:
    """The memory ``memory_id`` names, in whatever state (see the module doc), or None."""
    _check_id(memory_id)
    if _ID.match(memory_id):
        texts = _texts(rt)
        lineage = _lineage(texts)
        for line in _active(texts, lineage):
            if line.id == memory_id:
                return _dated(rt, _item(line))
        for line, note in reversed(_archived(texts, lineage)):
            if line.id == memory_id:
                return _item(line, "archived", note)
        return None
    if re.fullmatch(r"h\d{1,18}", memory_id):
        cursor = int(memory_id[1:])
        found = rt.store.history.read_since(cursor - 1, 1)
        if not found or found[0].cursor != cursor:
            return None
        state: State = "dreamed" if cursor <= rt.store.dream_cursor() else "pending"
        text = "\n".join(clean_entry(found[0].content)) or found[0].content
        return entry_item(found[0], text, state)
    said = re.fullmatch(r"c(\d{1,9}):(.+)", memory_id, re.S)
    if said:
        message = _message(rt, said.group(2), int(said.group(1)))
        if message is None:
            return None
        return MemoryItem(
            memory_id,
            content_text(message.get("content")),
            "said",
            f"sessions ({said.group(2)})",
            created_at=message.get("timestamp"),
            metadata={"role": message.get("role")},
        )
    at = re.fullmatch(r"(.+)#L(\d{1,9})", memory_id)
    if at:
        path, number = at.group(1), int(at.group(2))
        if not _memory_file(rt, path):
            return None
        rows = rt.workspace.read(path).split("\n")
        if not 1 <= number <= len(rows) or not rows[number - 1].strip():
            return None
        return MemoryItem(memory_id, bare_line(rows[number - 1]), "file", path)
    return None


def carried(rt: Services, item: MemoryItem) -> dict[str, Any]:
    """What ``add`` stored beside ``item`` (its ids, ``metadata``): a history entry's extra fields,
    a conversation message's own; a memory line, what every history entry behind it carried
    (``_line_carried``)."""
    said = re.fullmatch(r"c(\d{1,9}):(.+)", item.id, re.S)
    if said:
        message = _message(rt, said.group(2), int(said.group(1))) or {}
        return {k: v for k, v in message.items() if k not in ("role", "content", "timestamp")}
    if re.fullmatch(r"h\d{1,18}", item.id):
        full = get(rt, item.id)
        return dict(full.metadata) if full is not None else {}
    if item.state == "active" and _ID.match(item.id):
        return _line_carried(rt, item)
    return dict(item.metadata) if item.state in ("pending", "dreamed") else {}


def _line_carried(rt: Services, item: MemoryItem) -> dict[str, Any]:
    """What a memory line carries from the ``add`` calls it was learnt from: the commit that wrote
    it (``GitStore.why``) names the history entries its Dream run read, and the line carries a
    key's value (an id, a metadata key) only when every one of those entries carried that same
    value: a run that read two adds with different metadata cannot say which one the line came
    from, so it carries neither (precision first: a filter then leaves it out). A line written by
    hand, by ``update`` or before any ``add`` carries nothing."""
    if not rt.git.exists:
        return {}
    origins = [
        p
        for p in rt.git.why(item.memory)
        if p.path == item.path and bare_line(strip_age(p.line)[0]) == item.memory
    ]
    ranges = {p.cursor_range for p in origins}
    if len(ranges) != 1 or None in ranges:
        return {}
    first, last = next(iter(ranges))  # type: ignore[misc]  # None is ruled out above
    entries = rt.store.history.read_since(first - 1, last - first + 1)
    if not entries:
        return {}
    common: dict[str, Any] | None = None
    for entry in entries:
        extra = dict(entry.extra or {})
        flat = {**{k: v for k, v in extra.items() if k != "metadata"}}
        meta = extra.get("metadata")
        flat.update({f"metadata.{k}": v for k, v in meta.items()} if isinstance(meta, dict) else {})
        common = flat if common is None else {k: v for k, v in common.items() if flat.get(k) == v}
    kept = common or {}
    out = {k: v for k, v in kept.items() if not k.startswith("metadata.")}
    meta = {k[len("metadata.") :]: v for k, v in kept.items() if k.startswith("metadata.")}
    return {**out, **({"metadata": meta} if meta else {})}


def _memory_file(rt: Services, path: str) -> bool:
    """Whether ``path`` is a memory file (a prompt file, a Markdown file or topic file under
    memory/), never history, cursors, state or sessions."""
    try:
        rel = check_relative(path)
    except UnsafePathError:
        return False
    parts = rel.split("/")
    markdown = rel.endswith(".md") and rel not in ("memory/history.jsonl", "memory/HISTORY.md")
    inside = len(parts) > 1 and parts[0] == "memory" and not any(p.startswith(".") for p in parts)
    ok = rel in (SOUL, USER, MEMORY) or is_topic(rel) or (inside and markdown)
    return ok and (rt.workspace.root / rel).is_file()


def _dated(rt: Services, item: MemoryItem) -> MemoryItem:
    """``item`` with ``updated_at``: when its current text was committed (``why``)."""
    found = [p for p in rt.git.why(item.memory) if p.path == item.path] if rt.git.exists else []
    if not found:
        return item
    when = found[0].time.isoformat()
    return MemoryItem(item.id, item.memory, item.state, item.path, None, when, item.metadata)


def _message(rt: Services, key: str, index: int) -> dict[str, Any] | None:
    session = rt.sessions.load(rt.sessions.path_for(key))
    if session is None or not 0 <= index < len(session.messages):
        return None
    return session.messages[index]


def update(rt: Services, memory_id: str, text: str, *, kind: str = "manual") -> MemoryItem:
    """Replace the memory's text (its bullet kept), archiving the old text as superseded by the new
    one so the id stays; one commit, judged by Dream's gate. ``WorkspaceError`` when no active
    memory has that id."""
    from ..security.secrets import redact
    from .edit import archive_entry, edit_section, judged

    _check_id(memory_id)
    if not isinstance(text, str) or not text.strip():
        raise CommandError(f"text must be a non-empty string, not {text!r}")
    new_text = " ".join(redact(text).split())
    ws, git = rt.workspace, rt.git
    with edit_section(ws):  # an edit's lock (reverie.operations.edit), from the read to the commit
        texts = _texts(rt)
        lineage = _lineage(texts)
        line = next((ln for ln in _active(texts, lineage) if ln.id == memory_id), None)
        if line is None:
            raise not_active(rt, memory_id, "update")
        if line_key(new_text) == line_key(line.text):
            return _item(line)
        rows = texts[line.path].split("\n")
        head = line.raw[: len(line.raw) - len(line.raw.lstrip())]
        bullet = re.match(r"\s*(?:[-*+]|\d+[.)])\s+", line.raw)
        rows[line.number - 1] = (bullet.group(0) if bullet else head) + new_text
        after = "\n".join(rows)
        note = f'superseded {date.today().isoformat()} by "{new_text}"'
        archive, archived = archive_entry(ws, line.path, [line.text], note)
        files = {line.path: after, archive: archived}
        base = {line.path: texts[line.path], archive: texts[archive]}
        judged(base, files, rt.config, "update", own_removals={line.path: [line.raw]})
        git.ensure()
        git.commit(f"{kind}: update {memory_id} in {line.path}", kind=kind, files=files, base=base)
    return MemoryItem(memory_id, new_text, "active", line.path)


def history_of(rt: Services, memory_id: str, *, depth: int = HISTORY_DEPTH) -> list[MemoryEvent]:
    """Each ADD, UPDATE and DELETE of memory ``memory_id``, oldest first, read from the newest
    ``depth`` commits of USER.md and memory/MEMORY.md."""
    _check_id(memory_id)
    git = rt.git
    if not _ID.match(memory_id) or not git.exists:
        return []
    lineage = _lineage(_texts(rt))  # today's lineage names every text the id has had
    events: list[MemoryEvent] = []
    for rel in ITEM_FILES:
        commits = list(reversed(git.log(limit=depth, path=rel)))
        before: str | None = None
        for commit in commits:
            rows = _facts(rel, git.file_at(commit.sha, rel) or "")
            now = next((ln.text for ln in _ids(rel, rows, lineage) if ln.id == memory_id), None)
            if now == before:
                continue
            event: Literal["ADD", "UPDATE", "DELETE"] = (
                "ADD" if before is None else "DELETE" if now is None else "UPDATE"
            )
            events.append(
                MemoryEvent(
                    memory_id,
                    event,
                    before,
                    now,
                    commit.sha,
                    commit.kind,
                    commit.time.isoformat(),
                )
            )
            before = now
    return sorted(events, key=lambda e: e.created_at)


# -- what a model is handed ------------------------------------------------------------------------


def clean_entry(content: str, *, speech: bool = True) -> list[str]:
    """A history entry's lines as a reader should see them: fact lines without their marks (a
    ``[skip]`` fact, ``(nothing)`` and ``(unsure)`` left out), a raw transcript reduced to what the
    user said (``speech=False``: nothing of it), anything else as written."""
    lines = content.split("\n")
    if lines and _RAW.match(lines[0].strip()):
        if not speech:
            return []
        said = []
        for raw in lines[1:]:
            found = _SAID.match(raw.strip())
            if found and found.group(1).strip():
                said.append(found.group(1).strip())
        return said
    out: list[str] = []
    for raw in lines:
        line = raw.strip()
        if not line or line in (NOTHING, UNSURE):
            continue
        fact = parse_fact_line(line)
        if fact is not None:
            if fact[0] != "skip":
                out.append(fact[1].removesuffix(UNSURE).strip())
            continue
        out.append(bare_line(line) if line.startswith(("- ", "* ")) else line)
    return [x for x in out if x]


def _relevant(lines: Sequence[str], terms: Sequence[str]) -> list[str]:
    hits = [ln for ln in lines if match(ln, terms) > 0]
    return hits or list(lines)


def search_memory(
    rt: Services,
    hits: Sequence[Hit],
    query: str,
    *,
    limit: int,
    session_key: str | None = None,
    threshold: float | None = None,
    archived: bool = True,
) -> list[MemoryItem]:
    """Recall's ``hits`` for ``query`` as a model is handed them (see the module doc), best first,
    at most ``limit`` (``archived=False``: none of the lines the archive keeps). A query naming a
    category of fact (``reverie.recall.categories``) is scored by it (a word naming the category
    held by a line of it), its category's lines after its own hits; one asking about the user as a
    whole ("what do you know about me?") is also handed USER.md's lines, then what the user said
    that Dream has not read yet, then the newest entries it has."""
    from ..recall import categories

    named = categories.categories_named(query)
    terms = query_terms(query)
    clean = [*terms, *(w for c in named for w in c.lines)]  # what a category's hit is cut around
    texts = _texts(rt)
    lineage = _lineage(texts)
    active = {(ln.path, ln.number): ln for ln in _active(texts, lineage)}
    found: list[MemoryItem] = []
    seen: set[str] = set()
    live = _live(rt, session_key)
    candidates: Iterable[MemoryItem | None] = (
        _clean_hit(rt, hit, clean, active, (session_key, live)) for hit in hits
    )
    if categories.SELF in named:
        profile = [_item(ln) for ln in active.values() if ln.path == USER]
        candidates = itertools.chain(candidates, profile, _pending(rt), _recent(rt, limit))
    for item in candidates:
        if item is None or line_key(item.memory) in seen:
            continue
        if not archived and item.state == "archived":
            continue
        score = categories.score(item.memory, query, item.path)
        if threshold is not None and score < threshold:
            continue
        seen.add(line_key(item.memory))
        found.append(replace(item, score=score))
        if len(found) >= limit:
            break
    return found


def _live(rt: Services, session_key: str | None) -> set[int]:
    """The message indexes of ``session_key`` the prompt still carries (not consolidated yet)."""
    if session_key is None:
        return set()
    session = rt.sessions.load(rt.sessions.path_for(session_key))
    if session is None:
        return set()
    return set(range(session.last_consolidated, len(session.messages)))


def _clean_hit(
    rt: Services,
    hit: Hit,
    terms: Sequence[str],
    active: dict[tuple[str, int], _Line],
    live: tuple[str | None, set[int]],
) -> MemoryItem | None:
    """``hit`` as a model is handed it, by where it came from (None: nothing clean to hand)."""
    ref = hit.source
    if ref.kind == "history" and ref.cursor is not None:
        return _history_hit(rt, ref.cursor, ref.path, terms)
    if ref.kind == "session" and ref.session_key is not None and ref.message_index is not None:
        return _session_hit(rt, hit, ref.session_key, ref.message_index, live)
    if ref.line_start is None:
        return None
    return _file_hit(rt, hit, terms, active)


def _history_hit(rt: Services, cursor: int, path: str, terms: Sequence[str]) -> MemoryItem | None:
    found = rt.store.history.read_since(cursor - 1, 1)
    if not found or found[0].cursor != cursor:
        return None
    said = _relevant(clean_entry(found[0].content), terms)
    if not said or all(match(s, terms) == 0 for s in said):
        return None  # what matched was the assistant's or a tool's words, or nothing clean
    state: State = "dreamed" if cursor <= rt.store.dream_cursor() else "pending"
    stamp = found[0].timestamp
    return MemoryItem(
        f"h{cursor}", "\n".join(said), state, path, stamp, stamp, source=f"history, {stamp}"
    )


def _session_hit(
    rt: Services, hit: Hit, key: str, index: int, live: tuple[str | None, set[int]]
) -> MemoryItem | None:
    message = _message(rt, key, index)
    if message is None or message.get("role") != "user":
        return None  # the assistant's own replies are not memory of the user
    if key == live[0] and index in live[1]:
        return None  # the conversation in progress: in the prompt already
    when = hit.timestamp.isoformat() if hit.timestamp else None
    text = " ".join(content_text(message.get("content")).split())
    return MemoryItem(
        f"c{index}:{key}",
        text,
        "said",
        hit.source.path,
        when,
        when,
        source=f"conversation {key}" + (f", {when[:16]}" if when else ""),
    )


def _file_hit(
    rt: Services, hit: Hit, terms: Sequence[str], active: dict[tuple[str, int], _Line]
) -> MemoryItem | None:
    ref = hit.source
    assert ref.line_start is not None
    rows = rt.workspace.read(ref.path).split("\n")
    span = range(ref.line_start, (ref.line_end or ref.line_start) + 1)
    lines = [
        (n, rows[n - 1])
        for n in span
        if 0 < n <= len(rows) and rows[n - 1].strip() and not rows[n - 1].lstrip().startswith("#")
    ]
    archived = "/archive/" in f"/{ref.path}"
    if archived:  # its entries only, never the file's description
        lines = [(n, raw) for n, raw in lines if parse_entry(raw.strip())]
    kept = [(n, raw) for n, raw in lines if match(raw, terms) > 0] or lines[:1]
    if not kept:
        return None
    texts = [bare_line(strip_age(raw)[0]) for _, raw in kept]
    first = active.get((ref.path, kept[0][0]))
    ident = first.id if first is not None and len(kept) == 1 else f"{ref.path}#L{kept[0][0]}"
    where: State = "active" if first is not None else "file"
    if archived:
        where = "archived"  # an archive entry: its text, without why and when it left
        texts = [(parse_entry(raw.strip()) or (t, ""))[0] for (_, raw), t in zip(kept, texts)]
    return MemoryItem(ident, "\n".join(texts), where, ref.path, source=ref.path)
