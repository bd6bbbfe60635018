"""What the templates show, computed from the library's values: text exactly as the agent reads it,
lines of a memory file, a diff's rows with the words that changed, a commit's batch. No I/O and no
library calls here (the handlers in ``reverie.ui.app`` make those).

Text is shown as it is, never interpreted: Markdown marks stay marks (``7*7`` reads 7*7), runs of
spaces stay (``white-space: pre-wrap``), and every hidden character (``reverie.text.safety.hidden``:
a right-to-left override that would make "nimda" read "admin", a zero-width space, a tag character)
is a visible escape naming it. The templates' ``finalize`` (``shown``) does this for every value
they print; ``plain`` marks a value for an attribute or a text area, where markup cannot go.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from difflib import SequenceMatcher
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import orjson
from markupsafe import Markup, escape

from ..gitstore.diffing import text_diff as _bytes_diff
from ..gitstore.trailers import BATCH, KIND, parse_batch
from ..storage.workspace import content_id
from ..text.dates import parse_timestamp
from ..text.diff import diff_line_kinds
from ..text.memline import is_pinned
from ..text.safety import describe, hidden
from ..text.utf8 import exact_bytes, undecodable
from .security import CSRF_FIELD

if TYPE_CHECKING:
    from ..gitstore.types import CommitInfo

__all__ = [
    "shown",
    "plain",
    "token",
    "FileLine",
    "file_lines",
    "line_item",
    "line_ref",
    "line_field",
    "cut_line",
    "LINE_SHOWN",
    "LINKED_CHARS",
    "DiffRow",
    "diff_rows",
    "diff_code",
    "Side",
    "sides",
    "text_diff",
    "batch_of",
    "ago",
    "when",
    "other_trailers",
    "MessageView",
    "message_view",
    "mark_of",
    "locate",
    "MESSAGES_PER_PAGE",
    "MESSAGE_SHOWN",
]


def shown(value: object) -> object:
    """A value as a page prints it (the templates' ``finalize``): text escaped, each hidden
    character a visible escape; markup (already built) and non-text values as they are."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return _shown(value)


@lru_cache(maxsize=8192)
def _shown(text: str) -> Markup:
    """Cached: a page shows mostly the same lines on every load."""
    spots = hidden(text)
    if not spots:
        return escape(text)
    parts, last = [], 0
    for i in spots:
        name = describe(text[i])
        parts.append(escape(text[last:i]))
        code = name.split(" ", 1)[0]
        parts.append(Markup('<span class="esc" title="{}">{}</span>').format(name, code))
        last = i + 1
    parts.append(escape(text[last:]))
    return Markup("").join(parts)


def plain(value: object) -> Markup:
    """A value for an attribute or a text area: escaped, nothing added (``shown`` leaves it); a
    byte that is not UTF-8 (a lone surrogate from an exact read) as U+FFFD, since a page is UTF-8
    (no form that carries one is accepted back: ``undecodable`` refuses it first)."""
    if isinstance(value, str) and not isinstance(value, Markup) and undecodable(value):
        value = exact_bytes(value).decode("utf-8", "replace")
    return escape(value)


_NOT_TOKEN = re.compile(r"[^A-Za-z0-9_.-]")


def token(value: object) -> Markup:
    """A value read from a file (a commit's kind, a run's status, a message's role) where only a
    name can go (a CSS class, a commit id in an address): its letters, digits, ``_.-``."""
    return Markup(_NOT_TOKEN.sub("", "" if value is None else str(value)))  # noqa: S704


@dataclass(frozen=True)
class FileLine:
    """One line of a memory file as the Memory screen shows it. ``index`` is 0-based (forms carry it
    with the line's text, so an action on a file changed meanwhile is refused, not applied to
    another line). ``uncommitted``: the line is on disk but not in the last commit (an edit made
    outside Reverie, committed as ``manual`` by the next change)."""

    index: int
    raw: str
    kind: str  # heading | item | text | blank
    level: int  # a heading's level (1-6), else 0
    pinned: bool
    uncommitted: bool = False
    query: str = ""  # ``path=…&line=…&text=…``: what the line's links carry (built once)

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def actionable(self) -> bool:
        # a line holding a byte that is not UTF-8 is shown (the byte escaped) but not acted on: a
        # form cannot carry the byte back, and would write other bytes in its place
        return self.kind in ("item", "text") and undecodable(self.raw) is None

    @property
    def hidden(self) -> int:
        """How many hidden characters the line holds (the edit form warns of them)."""
        return len(hidden(self.raw))


@lru_cache(maxsize=32)
def _file_lines(text: str, path: str, committed: str | None) -> tuple[FileLine, ...]:
    return tuple(_read_lines(text, path, committed))


def file_lines(text: str, path: str = "", committed: str | None = None) -> list[FileLine]:
    """``text``'s lines; with ``committed`` (the file as last committed; None: never), each line
    not in it is marked ``uncommitted``. Cached: a page loads mostly the same files."""
    return list(_file_lines(text, path, committed))


def _read_lines(text: str, path: str, committed: str | None) -> list[FileLine]:
    rows = text.split("\n")
    fresh = _uncommitted(rows, committed) if path else set()
    out = []
    for i, raw in enumerate(rows):
        stripped = raw.strip()
        if not stripped:
            if i < len(rows) - 1:  # (not the file's final newline)
                out.append(FileLine(i, raw, "blank", 0, False, i in fresh))
            continue
        query = urlencode({"path": path, "line": i, **line_ref(raw)}) if path else ""
        kind, level = "text", 0
        if stripped.startswith("#"):
            marks = len(stripped) - len(stripped.lstrip("#"))
            if marks <= 6 and stripped[marks : marks + 1] in (" ", ""):
                kind, level = "heading", marks
        elif stripped[:2] in ("- ", "* "):
            kind = "item"
        pinned = kind != "heading" and is_pinned(raw)
        out.append(FileLine(i, raw, kind, level, pinned, i in fresh, query))
    return out


def _uncommitted(rows: list[str], committed: str | None) -> set[int]:
    """The indexes of ``rows`` that the committed text does not have (all of them: never
    committed)."""
    if committed is None:
        return set(range(len(rows)))
    before = committed.split("\n")
    # ``rows`` are read byte for byte (a byte that is not UTF-8 a surrogate), the committed text
    # as the store decodes it (that byte U+FFFD): compared as the store would read them
    rows = [_as_stored(row) for row in rows]
    if before == rows:
        return set()
    matcher = SequenceMatcher(None, before, rows, autojunk=False)
    return {
        j
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
        for j in range(j1, j2)
    }


def _as_stored(row: str) -> str:
    """``row`` (read with ``surrogateescape``) as the store's lossy decoding of the same bytes
    reads it: each byte that is not UTF-8 U+FFFD."""
    if undecodable(row) is None:
        return row
    return exact_bytes(row).decode("utf-8", errors="replace")


#: Characters of a memory line a page shows before cutting it (the file's page shows it whole): a
#: line of megabytes (a paste, a hand edit) made the Memory screen as many megabytes long, and the
#: browser took minutes to lay it out.
LINE_SHOWN = 4_000
#: A line longer than this is named in its links and forms by its content id, not its text: the
#: server refused an address carrying a 400 KB line, so its edit, why and remove links failed.
LINKED_CHARS = 1_000


def line_ref(raw: str) -> dict[str, str | bytes]:
    """How a line's links and forms name it, with its number: its ``text`` (a byte that is not
    UTF-8 travels percent-encoded as itself), or past ``LINKED_CHARS``, its content ``id`` (the
    handler reads the text from the file)."""
    if len(raw) > LINKED_CHARS:
        return {"id": content_id(raw)}
    return {"text": exact_bytes(raw)}


def cut_line(raw: str, whole: str | None = None) -> Markup:
    """A memory line as a page shows it (``shown``), cut after ``LINE_SHOWN`` characters with how
    many more it holds; ``whole``: the address that shows it whole."""
    if len(raw) <= LINE_SHOWN:
        return _shown(raw)
    return _shown(raw[:LINE_SHOWN]) + _cut_note(len(raw), whole)


def _cut_note(length: int, whole: str | None = None) -> Markup:
    """What follows a line of ``length`` characters cut after ``LINE_SHOWN``."""
    more = f"{length - LINE_SHOWN:,} more characters"
    tail = (
        Markup(' <a href="{}">{}: the whole line</a>').format(whole, more)
        if whole
        else Markup(" {} not shown here").format(more)
    )
    return Markup('<span class="cut">…{}</span>').format(tail)


_UNCOMMITTED = (
    "on disk, not in the last commit: an edit made outside Reverie (the next change commits it as "
    "manual)"
)


@lru_cache(maxsize=4096)
def line_item(line: FileLine, anchor: str, rel: str, base: str, csrf: str) -> Markup:
    """One line of the Memory screen as HTML: its number, its exact text, its badges and actions.
    Built here rather than in the template, and cached (a page of 400 lines is mostly the same
    lines on every load: the template's ~20 interpolations a line were most of its time)."""
    marks = " uncommitted" if line.uncommitted else ""
    head = Markup('<li id="{}-L{}" class="line {}{}{}"><span class="lineno">{}</span>').format(
        anchor, line.number, line.kind, " pinned" if line.pinned else "", marks, line.number
    )
    if line.kind == "blank":
        return head + Markup("</li>")
    heading = f" h h{line.level}" if line.kind == "heading" else ""
    whole = f"{base}/file?{urlencode({'path': rel})}#L{line.number}"
    text = cut_line(line.raw, whole)
    parts = [head, Markup('<span class="text{}">{}</span>').format(heading, text)]
    if line.pinned:
        parts.append(Markup('<span class="badge">pinned</span>'))
    if line.uncommitted:
        parts.append(
            Markup('<span class="badge uncommitted" title="{}">not committed</span>').format(
                _UNCOMMITTED
            )
        )
    why = f"{base}/memory/why?{line.query}"
    parts.append(
        Markup(
            '<span class="actions"><details class="why" data-why="{}&amp;fragment=1"><summary>why'
            '</summary><div class="why-body"><a href="{}">show where this line came from</a></div>'
            "</details>"
        ).format(why, why)
    )
    if line.actionable:
        unpin = Markup('<input type="hidden" name="unpin" value="1">') if line.pinned else ""
        parts.append(
            Markup(
                '<a href="{base}/memory/edit?{q}">edit</a><form method="post" '
                'action="{base}/memory/pin" class="inline"><input type="hidden" name="{field}" '
                'value="{csrf}"><input type="hidden" name="path" value="{rel}"><input '
                'type="hidden" name="line" value="{index}">{named}{unpin}<button type="submit" '
                'class="link">{verb}</button></form>'
                '<a href="{base}/memory/remove?{q}">remove</a>'
            ).format(
                base=base,
                q=line.query,
                field=CSRF_FIELD,
                csrf=csrf,
                rel=rel,
                index=line.index,
                named=line_field(line.raw),
                unpin=unpin,
                verb="unpin" if line.pinned else "pin",
            )
        )
    parts.append(Markup("</span></li>"))
    return Markup("").join(parts)


def line_field(raw: str) -> Markup:
    """The hidden field of a form naming a line (as ``line_ref``): ``original``, its text, or its
    ``id``."""
    if len(raw) > LINKED_CHARS:
        return Markup('<input type="hidden" name="id" value="{}">').format(content_id(raw))
    return Markup('<input type="hidden" name="original" value="{}">').format(plain(raw))


@dataclass(frozen=True)
class DiffRow:
    """One row of a diff as a page shows it. ``kind``: ``file`` (a file's name), ``note`` (a new or
    deleted file, git's no-newline marker), ``hunk`` (where the next lines are), ``add``, ``del``,
    ``context``. ``old`` / ``new``: the line's numbers on each side. ``parts``: its text in runs,
    each marked when it is a word that changed (against the line it replaces)."""

    kind: str
    text: str
    old: int | None = None
    new: int | None = None
    parts: tuple[tuple[str, bool], ...] = ()

    @property
    def sign(self) -> str:
        return {"add": "+", "del": "-"}.get(self.kind, " ")


def diff_code(row: DiffRow) -> Markup:
    """A diff row's text as a page shows it: the words that changed marked, and cut after
    ``LINE_SHOWN`` characters as a memory line is (``cut_line``: a line of megabytes in a commit
    made its page take the browser 20 s to lay out)."""
    out, room = [], LINE_SHOWN
    for text, changed in row.parts or ((row.text, False),):
        if room <= 0:
            break
        piece = _shown(text[:room])
        room -= min(len(text), room)
        out.append(Markup("<mark>{}</mark>").format(piece) if changed else piece)
    if len(row.text) > LINE_SHOWN:
        out.append(_cut_note(len(row.text)))
    return Markup("").join(out)


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")


def diff_rows(diff: str) -> list[DiffRow]:
    """A unified diff (git's, or a SOUL.md proposal's) as rows: file names instead of headers, line
    numbers, and within each changed line the words that changed. Each line's kind is
    ``reverie.text.diff.diff_line_kinds``'s, the reading the CLI colours."""
    rows: list[DiffRow] = []
    old = new = 0
    dels: list[DiffRow] = []
    adds: list[DiffRow] = []
    budget = [WORDS_PER_DIFF]

    def flush() -> None:
        rows.extend(_paired(dels, adds, budget))
        dels.clear()
        adds.clear()

    lines = diff.splitlines()
    for line, kind in zip(lines, diff_line_kinds(lines), strict=True):
        if kind == "add":
            adds.append(DiffRow("add", line[1:], None, new))
            new += 1
            continue
        if kind == "del":
            if adds:
                flush()
            dels.append(DiffRow("del", line[1:], old, None))
            old += 1
            continue
        flush()
        if kind == "hunk":
            found = _HUNK.match(line)
            old, new = (int(found.group(1)), int(found.group(2))) if found else (old, new)
            rows.append(DiffRow("hunk", f"line {new}" if found else line))
        elif kind == "file":
            rows.append(DiffRow("file", line.split(" b/", 1)[-1]))
        elif kind == "no-newline":
            rows.append(DiffRow("note", line[2:]))
        elif kind == "context":
            rows.append(DiffRow("context", line[1:], old, new))
            old += 1
            new += 1
        elif line.startswith("--- ") and (not rows or rows[-1].kind not in ("file", "note")):
            rows.append(DiffRow("file", line[4:].removeprefix("a/")))  # no git header line
        elif line.startswith(("new file", "deleted file")):
            rows.append(DiffRow("note", line.split(" mode")[0]))
    flush()
    return rows


#: Words of a changed line (each side) up to which its changed words are found by a full
#: comparison (difflib's, quadratic in the words: a 14,000-character line with scattered changes
#: took 30 s); past it, or once a diff has compared ``WORDS_PER_DIFF`` words, by the words both
#: sides start and end with.
WORDS_COMPARED = 400
WORDS_PER_DIFF = 8_000


def _paired(dels: list[DiffRow], adds: list[DiffRow], budget: list[int]) -> list[DiffRow]:
    """A run of removed lines then added ones: each removed line paired with the added line at the
    same place in the run, when the two are alike enough to be one line changed, gets its changed
    words marked (and so does its partner). ``budget``: the words the diff may still compare in
    full."""
    out_del = [_whole(r) for r in dels]
    out_add = [_whole(r) for r in adds]
    for k in range(min(len(dels), len(adds))):
        a, b = _WORDS.findall(dels[k].text), _WORDS.findall(adds[k].text)
        full = max(len(a), len(b)) <= WORDS_COMPARED and budget[0] >= len(a) + len(b)
        if full:
            budget[0] -= len(a) + len(b)
        marked = _compared(a, b) if full else _ends(a, b)
        if marked is None:
            continue
        left, right = marked
        out_del[k] = DiffRow("del", dels[k].text, dels[k].old, None, tuple(left))
        out_add[k] = DiffRow("add", adds[k].text, None, adds[k].new, tuple(right))
    return out_del + out_add


Runs = list[tuple[str, bool]]


def _compared(a: list[str], b: list[str]) -> tuple[Runs, Runs] | None:
    """The runs of ``a`` and ``b`` with the words that differ marked; None when the lines are too
    unlike to be one line changed."""
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < 0.4:
        return None
    left: Runs = []
    right: Runs = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i2 > i1:
            left.append(("".join(a[i1:i2]), tag != "equal"))
        if j2 > j1:
            right.append(("".join(b[j1:j2]), tag != "equal"))
    return left, right


def _ends(a: list[str], b: list[str]) -> tuple[Runs, Runs] | None:
    """``_compared`` in linear time, for long lines: what lies between the words both lines start
    and end with is marked."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    if 2 * (start + end) < 0.4 * (len(a) + len(b)):
        return None

    def runs(words: list[str]) -> Runs:
        parts = (
            ("".join(words[:start]), False),
            ("".join(words[start : len(words) - end]), True),
            ("".join(words[len(words) - end :]), False),
        )
        return [p for p in parts if p[0]]

    return runs(a), runs(b)


def _whole(row: DiffRow) -> DiffRow:
    return DiffRow(row.kind, row.text, row.old, row.new, ((row.text, False),))


def text_diff(path: str, old: str, new: str) -> str:
    """The unified diff from ``old`` to ``new`` (``path``'s two texts), as the Timeline shows
    one."""
    return _bytes_diff(
        path, old.encode("utf-8", "surrogateescape"), new.encode("utf-8", "surrogateescape")
    )


#: Lines shown around each difference of a conflict's two sides; longer runs of equal lines fold.
SIDE_CONTEXT = 3


@dataclass(frozen=True)
class Side:
    """One side of a conflict as the page shows it: each line with its number (None: a fold of
    equal lines, its text saying how many), and whether the other side lacks it (what makes the
    two differ)."""

    title: str
    lines: tuple[tuple[int | None, str, bool], ...]


def sides(now: list[str], yours: list[str]) -> tuple[Side, Side]:
    """The file as it is now and as the change would make it, side by side: each line that the
    other side does not have at its place marked, and long runs of lines both have folded (a
    500-line file with one line changed shows that line and its neighbours)."""
    if now[-1:] == yours[-1:] == [""]:  # both end with a newline: no line after it to show
        now, yours = now[:-1], yours[:-1]
    matcher = SequenceMatcher(None, now, yours, autojunk=False)
    left: list[tuple[int | None, str, bool]] = []
    right: list[tuple[int | None, str, bool]] = []
    opcodes = matcher.get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        keep = (SIDE_CONTEXT if k > 0 else 0, SIDE_CONTEXT if k < len(opcodes) - 1 else 0)
        if tag == "equal" and i2 - i1 > sum(keep) + 1:
            folded = i2 - i1 - sum(keep)
            fold = (
                None,
                f"… {folded} line{'s' if folded != 1 else ''} the same on both sides",
                False,
            )
            for side, rows, a in ((left, now, i1), (right, yours, j1)):
                side.extend((a + n + 1, rows[a + n], False) for n in range(keep[0]))
                side.append(fold)
                end = a + (i2 - i1)
                side.extend((n + 1, rows[n], False) for n in range(end - keep[1], end))
            continue
        left.extend((i + 1, now[i], tag != "equal") for i in range(i1, i2))
        right.extend((j + 1, yours[j], tag != "equal") for j in range(j1, j2))
    return Side("now", _trimmed(left)), Side("yours", _trimmed(right))


def _trimmed(lines: list[tuple[int | None, str, bool]]) -> tuple[tuple[int | None, str, bool], ...]:
    """A side without the empty last line a final newline makes."""
    if lines and lines[-1][1] == "" and not lines[-1][2] and lines[-1][0] is not None:
        lines = lines[:-1]
    return tuple(lines)


def batch_of(info: CommitInfo) -> tuple[int, int] | None:
    return parse_batch(info.trailers.get(BATCH))


def other_trailers(info: CommitInfo) -> list[tuple[str, str]]:
    return [(k, v) for k, v in info.trailers.items() if k != KIND]


def ago(when: datetime | None, now: datetime | None = None) -> str:
    if when is None:
        return "never"
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            n = round(seconds / size)
            text = f"{n} {unit}{'s' if n != 1 else ''}"
            return f"in {text}" if future else f"{text} ago"
    return "now" if future else "just now"


def when(value: object) -> Markup:
    """A time as every page shows one: ``YYYY-MM-DD HH:MM`` and its zone, in the server's local
    zone (a commit's own offset, a Dream record's UTC, a history entry's or a message's local time
    all read alike). A ``datetime`` or an ISO 8601 text; a text naming no zone is local time
    (history and sessions write it so). Anything else is shown as it is; nothing for None or
    ``""``."""
    moment = value if isinstance(value, datetime) else parse_timestamp(value)
    if moment is None:
        return Markup("") if value in (None, "") else _shown(str(value))
    local = moment.astimezone()  # naive: taken as local time
    zone = local.tzname() or local.strftime("UTC%z")
    return escape(f"{local.strftime('%Y-%m-%d %H:%M')} {zone}")


# -- a conversation -----------------------------------------------------------------------------

#: Messages on one page of a conversation (a session of 10,000 messages is 100 pages, not one).
MESSAGES_PER_PAGE = 100
#: Characters of a message shown before it folds (the whole message is one link away).
MESSAGE_SHOWN = 4_000


@dataclass(frozen=True)
class MessageView:
    """One message of a conversation as its page shows it. ``parts``: its content in order, each
    ``(kind, text)`` — ``text``; ``image`` (never loaded: a placeholder); ``part`` (another kind of
    content part, named); ``call`` (a tool call: its name and arguments). ``name``: a tool result's
    tool or a named participant; ``call_id``: the call a tool result answers. ``cut``: characters
    left out of a long message (0: shown whole)."""

    index: int
    role: str
    moment: object  # the message's timestamp as stored (``when`` shows it)
    parts: tuple[tuple[str, str], ...]
    name: str | None
    call_id: str | None
    cut: int
    consolidated: bool | None  # None: not known (a newest page read from the file's end)
    mark: str  # ``mark_of(message)``: what a page link names it by

    @property
    def number(self) -> int:
        """1 for the first message; -1 for the newest, on a page numbered back from it."""
        return self.index + 1 if self.index >= 0 else self.index


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _content_parts(content: object) -> list[tuple[str, str]]:
    """A message's content as parts: a string, a list of content parts (text, images, others), or
    any other value as its text."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)] if content else []
    if not isinstance(content, list):
        return [
            ("text", orjson.dumps(content).decode() if isinstance(content, dict) else str(content))
        ]
    out: list[tuple[str, str]] = []
    for part in content:
        if isinstance(part, str):
            out.append(("text", part))
        elif not isinstance(part, Mapping):
            out.append(("part", f"[{type(part).__name__}]"))
        elif isinstance(part.get("text"), str):
            out.append(("text", part["text"]))
        elif part.get("type") in ("image_url", "image", "input_image"):
            out.append(("image", "[image]"))
        else:
            out.append(("part", f"[{part.get('type') or 'part'}]"))
    return out


def _calls(calls: object) -> list[tuple[str, str]]:
    """A message's tool calls, each ``name(arguments)`` (OpenAI's shape, or a bare function)."""
    if not isinstance(calls, list):
        return []
    out = []
    for call in calls:
        fn = call.get("function", call) if isinstance(call, Mapping) else {}
        fn = fn if isinstance(fn, Mapping) else {}
        name = _text(fn.get("name")) or "?"
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = "" if args is None else orjson.dumps(args, default=str).decode()
        out.append(("call", f"{name}({args})"))
    return out


def message_view(
    index: int, message: Mapping[str, Any], *, consolidated: bool | None, whole: bool = False
) -> MessageView:
    """``message`` (a session's ``index``-th) as its page shows it; past ``MESSAGE_SHOWN``
    characters it is cut, unless ``whole``."""
    parts = _content_parts(message.get("content")) + _calls(message.get("tool_calls"))
    cut = 0
    if not whole:
        room, kept = MESSAGE_SHOWN, []
        for kind, text in parts:
            if room <= 0:
                cut += len(text)
                continue
            if len(text) > room:
                cut += len(text) - room
                text = text[:room]
            room -= len(text)
            kept.append((kind, text))
        parts = kept
    role = message.get("role")
    return MessageView(
        index=index,
        role=role if isinstance(role, str) else "?",
        moment=message.get("timestamp"),
        parts=tuple(parts),
        name=_text(message.get("name")),
        call_id=_text(message.get("tool_call_id")),
        cut=cut,
        consolidated=consolidated,
        mark=mark_of(message),
    )


def mark_of(message: Mapping[str, Any]) -> str:
    """What a page's links name a message by: a digest of everything it holds (its place may
    change: clearing a consolidated conversation drops its oldest messages)."""
    data = orjson.dumps(message, option=orjson.OPT_SORT_KEYS, default=str)
    return hashlib.sha256(data).hexdigest()[:16]


#: How far from where a link saw a message `locate` looks for it (each side): a conversation
#: read a page at a time is not read whole to find one message.
LOCATE_REACH = 5_000


def locate(messages: Sequence[Mapping[str, Any]], mark: str, hint: int) -> int | None:
    """Where the message ``mark`` names is now: at ``hint`` (where the link saw it), else the
    nearest place before it (a clear moves messages toward the start), else after it, within
    `LOCATE_REACH` places; None when it is gone (or moved further: the page says the conversation
    changed and starts it over)."""
    n = len(messages)
    near = min(max(hint, 0), n - 1)
    order = [*range(near, max(near - LOCATE_REACH, -1), -1)]
    order += range(near + 1, min(near + 1 + LOCATE_REACH, n))
    return next((i for i in order if mark_of(messages[i]) == mark), None)
