"""``memory/.reverie/model-replies.jsonl``: the kept replies, the evidence of every model reply a
memory task did not take as it came. This docstring is the spec.

A task's parser judges each reply (``reverie.llm.output``): *trusted* replies are used and not kept;
a reply *refused* (not used: the Consolidator keeps the slice as a raw entry, Dream's analysis fails
and the batch stays pending, a summary becomes a labelled raw excerpt), *repaired* (used after
a change: a code fence unwrapped, a line cut at the token limit dropped, a slug replaced) or
*accepted leniently* (used, with lines ignored or the slice's words kept beside its facts) is kept
here, so what the model really said can be read after the fact: ``reverie status`` names the last
one, ``reverie why TEXT`` lists those behind a history entry holding TEXT, ``reverie why --reply
ID`` shows one.

One JSON object per line, UTF-8, ``\\n``-terminated::

    {"id": "r-5f2c9a1e", "time": "2026-11-30T10:00:00+00:00", "task": "archive",
     "model": "openai/smollm2", "verdict": "refused",
     "reason": "'(nothing)' mixed with 1 other line",
     "ref": {"session": "cli:ana", "cursors": [41, 42]},     # or {"batch": [31, 50]}
     "request": {"system": "<sha256 of the system prompt, 12 hex>",
                 "user": "<the last user message>"},
     "reply": {"content": "...", "finish_reason": "stop",
               "tool_calls": [{"name": "edit_file", "arguments": "{...}"}]}}

``task`` is a ``protocol.TASKS`` name; ``verdict`` one of ``VERDICTS``; ``ref`` says what the reply
was about (the session and the history cursors written for it, or the Dream batch). Bounded: the
request's user message keeps its first and last ``REQUEST_CHARS // 2`` characters, the reply's text
``REPLY_CHARS``, each tool call's arguments ``ARGUMENT_CHARS`` (at most ``MAX_CALLS`` calls), and
every text is passed through ``security.secrets.scrub`` (no credential is kept). The file itself
stays under ``MAX_BYTES``: an append that would pass it first rewrites the file with its newest
records (half the limit), atomically, under ``model-replies.jsonl.lock``. Appends are one
``O_APPEND`` write each under that lock; readers take no lock and skip a line that does not parse (a
torn tail). Keeping a reply never fails the task that judged it: an error is logged and the task
goes on.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import orjson

from ..errors import LockTimeoutError, ReverieError
from ..storage.fsutil import atomic_write, open_regular, read_bytes_or_none, write_all
from .types import ModelResponse

log = logging.getLogger(__name__)

__all__ = [
    "KeptReply",
    "Verdict",
    "VERDICTS",
    "REPLIES_NAME",
    "keep_reply",
    "read_replies",
    "find_reply",
    "replies_path",
    "summarize_replies",
    "replies_about",
    "MAX_BYTES",
]

Verdict = Literal["refused", "repaired", "lenient"]
VERDICTS: tuple[Verdict, ...] = ("refused", "repaired", "lenient")
REPLIES_NAME = "model-replies.jsonl"
MAX_BYTES = 2 << 20
REQUEST_CHARS = 4_000
REPLY_CHARS = 8_000
ARGUMENT_CHARS = 2_000
MAX_CALLS = 8
_REASON_CHARS = 500


@dataclass(frozen=True)
class KeptReply:
    """One kept reply (see the module docstring for each field)."""

    id: str
    time: str
    task: str
    model: str
    verdict: str
    reason: str
    ref: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)
    reply: dict[str, Any] = field(default_factory=dict)

    @property
    def cursors(self) -> tuple[int, ...]:
        """The history cursors this reply concerns: those written for it, or its batch's range."""
        found = self.ref.get("cursors")
        if isinstance(found, list):
            return tuple(c for c in found if isinstance(c, int))
        batch = self.ref.get("batch")
        if isinstance(batch, list) and len(batch) == 2 and all(isinstance(c, int) for c in batch):
            return tuple(range(batch[0], batch[1] + 1))
        return ()

    def to_dict(self) -> dict[str, Any]:
        """The kept reply as plain JSON (what ``--json`` prints)."""
        return {
            "id": self.id,
            "time": self.time,
            "task": self.task,
            "model": self.model,
            "verdict": self.verdict,
            "reason": self.reason,
            "ref": self.ref,
            "request": self.request,
            "reply": self.reply,
        }


def replies_path(state_dir: Path) -> Path:
    return Path(state_dir) / REPLIES_NAME


def _utf8(text: str) -> str:
    """``text`` writable as UTF-8 JSON: a lone surrogate (from undecodable bytes in a session)
    becomes "?"."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _utf8(value)
    if isinstance(value, Mapping):
        return {_utf8(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _bounded(text: str, limit: int) -> str:
    from ..security.secrets import scrub  # the writers' path only: `reverie status` reads the log

    text = scrub(_utf8(text))
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n…[{len(text) - 2 * half} chars left out]…\n{text[-half:]}"


def _request(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
    user = next(
        (str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), ""
    )
    digest = hashlib.sha256(system.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return {"system": digest, "user": _bounded(user, REQUEST_CHARS), "messages": len(messages)}


def _reply(response: ModelResponse | None, content: str | None) -> dict[str, Any]:
    if response is None:
        return {"content": _bounded(content or "", REPLY_CHARS)}
    text = response.content if content is None else content
    return {
        "content": _bounded(text or "", REPLY_CHARS),
        "finish_reason": response.finish_reason,
        "tool_calls": [
            {
                "name": _bounded(call.name, 100),
                "arguments": _bounded(call.raw_arguments, ARGUMENT_CHARS),
            }
            for call in response.tool_calls[:MAX_CALLS]
        ],
    }


def keep_reply(
    state_dir: Path | None,
    *,
    task: str,
    model: str,
    verdict: Verdict,
    reason: str,
    messages: Sequence[Mapping[str, Any]] = (),
    response: ModelResponse | None = None,
    content: str | None = None,
    ref: Mapping[str, Any] | None = None,
) -> str | None:
    """Keep one reply (``response``, or just its text ``content``) with what produced it; returns
    its id, or None when it could not be written (logged; the caller goes on)."""
    if state_dir is None:
        return None
    # Imported here, on the writers' path: `reverie status` reads this log and must start fast.
    from ..security.secrets import scrub
    from ..storage.locking import Lock, lock_path

    record = KeptReply(
        id=f"r-{secrets.token_hex(4)}",
        time=datetime.now(UTC).isoformat(timespec="seconds"),
        task=task,
        model=model,
        verdict=verdict,
        reason=scrub(_utf8(" ".join(reason.split())))[:_REASON_CHARS],
        ref=_clean(dict(ref or {})),
        request=_request(messages),
        reply=_reply(response, content),
    )
    path = replies_path(state_dir)
    try:
        line = orjson.dumps(_clean(record.to_dict()), default=str) + b"\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        with Lock(lock_path(path), timeout=10):
            size = path.stat().st_size if path.exists() else 0
            if size + len(line) > MAX_BYTES:
                _trim(path, MAX_BYTES // 2 - len(line))
            fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                write_all(fd, line)
            finally:
                os.close(fd)
    except (OSError, LockTimeoutError, ReverieError, TypeError, orjson.JSONEncodeError) as exc:
        log.warning("could not keep the %s reply of %s (%s): %s", task, model, verdict, exc)
        return None
    log.info("kept a %s %s reply as %s: %s", verdict, task, record.id, record.reason)
    return record.id


def _trim(path: Path, keep_bytes: int) -> None:
    """Rewrite the log with its newest whole records within ``keep_bytes`` (caller holds the
    lock)."""
    raw = read_bytes_or_none(path) or b""
    kept: list[bytes] = []
    used = 0
    for line in reversed(raw.splitlines(keepends=True)):
        if not line.endswith(b"\n"):
            continue  # a torn line: dropped with the rewrite
        if used + len(line) > keep_bytes:
            break
        kept.append(line)
        used += len(line)
    atomic_write(path, b"".join(reversed(kept)), fsync=False, mode=0o600)


def read_replies(state_dir: Path, *, limit: int | None = None) -> list[KeptReply]:
    """The kept replies, oldest first (the newest ``limit`` with a limit). A query: no lock."""
    raw = _tail(replies_path(state_dir), 2 * MAX_BYTES)
    if not raw:
        return []
    out: list[KeptReply] = []
    for line in raw.splitlines():
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        reply = _from_dict(data)
        if reply is not None:
            out.append(reply)
    return out[-limit:] if limit else out


def _tail(path: Path, limit: int) -> bytes:
    """The file's last ``limit`` bytes (whole lines: a cut first line is dropped), b"" when absent.
    The writers keep the log under ``MAX_BYTES``; a log grown by hand costs a reader no more."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        data = b""
        while len(data) < size - start:
            chunk = os.read(fd, size - start - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:
        return b""
    finally:
        os.close(fd)
    if start:
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return data


def find_reply(state_dir: Path, reply_id: str) -> KeptReply | None:
    """The kept reply with ``reply_id``, or None."""
    return next((r for r in read_replies(state_dir) if r.id == reply_id), None)


def _from_dict(data: Any) -> KeptReply | None:
    if not isinstance(data, dict):
        return None
    texts = ("id", "time", "task", "model", "verdict", "reason")
    if not all(isinstance(data.get(k), str) for k in texts):
        return None

    def part(key: str) -> dict[str, Any]:
        value = data.get(key)
        return value if isinstance(value, dict) else {}

    return KeptReply(
        id=data["id"],
        time=data["time"],
        task=data["task"],
        model=data["model"],
        verdict=data["verdict"],
        reason=data["reason"],
        ref=part("ref"),
        request=part("request"),
        reply=part("reply"),
    )


def summarize_replies(state_dir: Path) -> dict[str, Any]:
    """What ``reverie status`` shows of the log: ``{"count", "verdicts": {verdict: n}, "last":
    {id, time, task, verdict, reason} or None, "path"}`` (a query: no lock)."""
    kept = read_replies(state_dir)
    verdicts: dict[str, int] = {}
    for reply in kept:
        verdicts[reply.verdict] = verdicts.get(reply.verdict, 0) + 1
    last = kept[-1] if kept else None
    return {
        "count": len(kept),
        "verdicts": verdicts,
        "last": None
        if last is None
        else {
            "id": last.id,
            "time": last.time,
            "task": last.task,
            "verdict": last.verdict,
            "reason": last.reason,
        },
        "path": f"memory/.reverie/{REPLIES_NAME}",
    }


def replies_about(
    state_dir: Path, text: str, cursors_holding: Callable[[str], set[int]]
) -> list[KeptReply]:
    """The kept replies behind ``text``: those whose request or reply holds it, and those about a
    history entry holding it (``cursors_holding(text)`` gives those entries' cursors). A query."""
    if not text:
        return []
    cursors = cursors_holding(text)
    needle = text.lower()
    out = []
    for reply in read_replies(state_dir):
        shown = " ".join(
            [str(reply.request.get("user") or ""), str(reply.reply.get("content") or "")]
        ).lower()
        if needle in shown or cursors.intersection(reply.cursors):
            out.append(reply)
    return out
