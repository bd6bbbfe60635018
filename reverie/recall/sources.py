"""Turning workspace files into index chunks, each with a reference back to its origin. Reads only;
no index I/O.

- Memory files (SOUL.md, USER.md, memory/MEMORY.md) and dated memory files
  (``memory/YYYY-MM-DD*.md``) are cut at Markdown headings; a long section is cut further at blank
  lines. A chunk keeps its heading path and its 1-based inclusive line range.
- A history entry is one chunk, referenced by its cursor.
- A session message (user or assistant, with text) is one chunk, referenced by session key and
  message index; its neighbours' text goes into a low-weight context field, so a reply like "yes,
  last Tuesday" is found by the question it answers; the speaker's name (the message's ``name``
  field, when it has one) goes into the title field, so "what did Alice say about …" favours Alice's
  own messages.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from ..storage.fsutil import decode_lossy
from ..storage.history import HistoryEntry
from ..storage.sessions import content_text
from ..text.dates import parse_timestamp
from ..text.memline import TOP_BULLET
from .types import to_epoch

log = logging.getLogger(__name__)

__all__ = [
    "Chunk",
    "DATED_RE",
    "chunk_markdown",
    "chunk_history",
    "chunk_session",
    "parse_stamp",
]

#: Dated memory files: ``memory/YYYY-MM-DD.md`` (flush) and ``memory/YYYY-MM-DD-<slug>.md`` (session
#: end).
DATED_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:-[A-Za-z0-9._-]*)?\.md$")
MAX_SECTION_LINES = 40
MAX_SECTION_CHARS = 2_000
MAX_CHUNK_CHARS = 16_000  # what the index keeps of one huge entry or message
CONTEXT_CHARS = 400  # of each neighbouring session message
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SESSION_ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One indexable piece of a source. ``hash`` covers every stored field (so a moved line range is
    a change); ``ehash`` covers only what is embedded (so embeddings survive neighbour and
    line-number changes)."""

    path: str
    kind: str
    ord: int
    text: str
    title: str = ""
    ctx: str = ""
    line_start: int | None = None
    line_end: int | None = None
    cursor: int | None = None
    session_key: str | None = None
    msg_index: int | None = None
    ts: float | None = None
    evergreen: bool = False

    @property
    def embed_text(self) -> str:
        return f"{self.title}\n{self.text}" if self.title else self.text

    @property
    def ehash(self) -> str:
        return hashlib.blake2b(
            self.embed_text.encode("utf-8", "surrogatepass"), digest_size=16
        ).hexdigest()

    @property
    def hash(self) -> str:
        fields = (
            self.kind,
            self.ord,
            self.text,
            self.title,
            self.ctx,
            self.line_start,
            self.line_end,
            self.cursor,
            self.session_key,
            self.msg_index,
            self.ts,
            self.evergreen,
        )
        return hashlib.blake2b(orjson.dumps(fields), digest_size=16).hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _clip(text: str, limit: int = MAX_CHUNK_CHARS) -> str:
    # Lone surrogates (escaped JSON) cannot be stored as UTF-8 text in SQLite.
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[:limit]


def dated_file_time(name: str) -> float | None:
    """Local midnight of a dated memory file's date, or None when the name is not a real date."""
    m = DATED_RE.match(name)
    if not m:
        return None
    try:
        return to_epoch(datetime(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    except ValueError:
        return None


def chunk_markdown(
    path: str,
    text: str,
    *,
    kind: str,
    ts: float | None,
    evergreen: bool,
    leave_out: frozenset[str] = frozenset(),
) -> list[Chunk]:
    """Sections of a Markdown file, with heading paths and line ranges; a line whose text is in
    ``leave_out`` (a prompt file's starter prose) is read as a blank one."""
    lines = text.splitlines()
    chunks: list[Chunk] = []
    headings: list[tuple[int, str]] = []
    body: list[tuple[int, str]] = []  # (1-based line number, line)

    def emit() -> None:
        title = " > ".join(h for _, h in headings)
        for piece in _pieces(body):
            content = "\n".join(line for _, line in piece).strip()
            if content:
                chunks.append(
                    Chunk(
                        path,
                        kind,
                        len(chunks),
                        _clip(content),
                        title=title,
                        line_start=piece[0][0],
                        line_end=piece[-1][0],
                        ts=ts,
                        evergreen=evergreen,
                    )
                )

    for number, line in enumerate(lines, 1):
        m = _HEADING_RE.match(line)
        if m:
            emit()
            body = []
            level = len(m.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, m.group(2))]
            continue
        body.append((number, "" if line.strip() in leave_out else line))
    emit()
    return chunks


def _pieces(body: list[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """A section's chunks: each top-level bullet (with its indented continuation lines) on its own,
    the prose between bullets cut by ``_split_section``. A memory file is a list of one-line facts:
    as one chunk, a long section ranks below a short one holding the same words (BM25 length
    normalisation), and a hit names a whole section instead of the fact (measured in
    bench/lifecycle.py: BENCHMARKS.md, "lifecycle")."""
    prose: list[tuple[int, str]] = []
    item: list[tuple[int, str]] = []
    for entry in body:
        line = entry[1]
        if TOP_BULLET.match(line):
            if item:
                yield item
            yield from _split_section(prose)
            prose, item = [], [entry]
        elif item and line.strip() and line[:1] in " \t":
            item.append(entry)  # a continuation of the bullet above
        else:
            if item:
                yield item
                item = []
            prose.append(entry)
    if item:
        yield item
    yield from _split_section(prose)


def _split_section(body: list[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """A section's lines in pieces of at most ~MAX_SECTION_LINES / MAX_SECTION_CHARS, cut at blank
    lines."""
    while body and not body[0][1].strip():
        body = body[1:]
    while body and not body[-1][1].strip():
        body = body[:-1]
    piece: list[tuple[int, str]] = []
    size = 0
    for item in body:
        too_big = len(piece) >= MAX_SECTION_LINES or size >= MAX_SECTION_CHARS
        if piece and too_big and (not item[1].strip() or len(piece) >= 2 * MAX_SECTION_LINES):
            yield piece
            piece, size = [], 0
            if not item[1].strip():
                continue
        piece.append(item)
        size += len(item[1]) + 1
    if piece:
        yield piece


def parse_stamp(value: Any) -> float | None:
    """Epoch seconds of a history ``YYYY-MM-DD HH:MM`` or an ISO timestamp; None when absent or
    malformed."""
    when = parse_timestamp(value)
    return None if when is None else to_epoch(when)


def chunk_history(entry: HistoryEntry, path: str = "memory/history.jsonl") -> Chunk:
    return Chunk(
        path,
        "history",
        entry.cursor,
        _clip(entry.content),
        cursor=entry.cursor,
        session_key=entry.session_key,
        ts=parse_stamp(entry.timestamp),
    )


def chunk_session(path: str, key: str, messages: list[dict[str, Any]]) -> list[Chunk]:
    """One chunk per user/assistant message with text; neighbouring messages' text as context."""
    texts = [
        content_text(m.get("content")).strip() if m.get("role") in _SESSION_ROLES else ""
        for m in messages
    ]
    chunks: list[Chunk] = []
    for i, (message, text) in enumerate(zip(messages, texts)):
        if not text:
            continue
        prev = next((texts[j] for j in range(i - 1, -1, -1) if texts[j]), "")
        nxt = next((texts[j] for j in range(i + 1, len(texts)) if texts[j]), "")
        ctx = "\n".join(t[:CONTEXT_CHARS] for t in (prev, nxt) if t)
        chunks.append(
            Chunk(
                path,
                "session",
                i,
                _clip(text),
                title=speaker_name(message),
                ctx=_clip(ctx),
                session_key=key,
                msg_index=i,
                ts=parse_stamp(message.get("timestamp")),
            )
        )
    return chunks


def speaker_name(message: dict[str, Any]) -> str:
    """The speaker's name a message carries (the OpenAI-style ``name`` field), or ``""``; single
    line, short."""
    name = message.get("name")
    if not isinstance(name, str):
        return ""
    return " ".join(name.split())[:80]


def decode(raw: bytes, origin: str) -> str:
    return decode_lossy(raw, origin=origin)
