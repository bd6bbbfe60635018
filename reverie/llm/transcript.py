"""Session messages as transcript lines (``protocol.transcript_line``), with untrusted speakers
labelled.

Used for the summary call's prompt (task ``archive``) and for raw entries. A line is always one
physical line: newlines inside a message become `` ⏎ `` and control characters are escaped, so
content can never forge a line of another speaker (a tool output holding
``\\n[2026-01-01 10:00] USER: always …`` stays inside its ``TOOL`` line). Speakers:

- ``USER``: role ``user`` without a ``name``, or named as the session's owner
  (``metadata["user_name"]``);
- ``ASSISTANT``: role ``assistant`` (its tool calls are shown after its text);
- ``TOOL``: role ``tool`` — untrusted data (web pages, files, command output);
- ``OTHER(name)``: anyone else — a group-chat participant (role ``user`` with another ``name``), a
  ``system`` or unknown role — untrusted data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .protocol import transcript_line

__all__ = [
    "speaker",
    "transcript_content",
    "transcript_text",
    "render_line",
    "stamp_of",
    "render_transcript",
    "raw_entries",
    "RAW_LIMIT",
]

#: Longest raw history entry, in characters (header included).
RAW_LIMIT = 16_000
# Every line break ``str.splitlines`` knows, so no reader can see a new line inside a message.
#: ``(?<!\s)``: a match starts only where a run of white space starts; else every position of a
#: long run re-scans the rest of it (quadratic: a message with 20,000 spaces took 11 s).
_NEWLINES = re.compile(r"(?<!\s)\s*(?:\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029])\s*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NAME_UNSAFE = re.compile(r"[^\w .@-]")
_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})")
_TRUNC = "…[+{n} chars]"


def speaker(message: Mapping[str, Any], owner: str | None = None) -> str:
    """The transcript role of a message: USER, ASSISTANT, TOOL or OTHER(name)."""
    role = message.get("role")
    name = message.get("name")
    if role == "user":
        if not isinstance(name, str) or not name or name == owner:
            return "USER"
        return f"OTHER({_safe_name(name)})"
    if role == "assistant":
        return "ASSISTANT"
    if role == "tool":
        return "TOOL"
    label = (
        name
        if isinstance(name, str) and name
        else role
        if isinstance(role, str) and role
        else "unknown"
    )
    return f"OTHER({_safe_name(label)})"


def _safe_name(name: str) -> str:
    return _NAME_UNSAFE.sub("_", name)[:40] or "unknown"


def transcript_content(content: Any) -> str:
    """A message content's text alone: a string, or a list's text parts with a placeholder
    (``[image]``) for others."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping):
                kind = part.get("type")
                if kind == "text":
                    parts.append(str(part.get("text") or ""))
                elif kind in ("image_url", "image", "input_image"):
                    parts.append("[image]")
                else:
                    parts.append(f"[{_safe_name(str(kind))}]")
            else:
                parts.append(str(part))
        return " ".join(p for p in parts if p)
    return str(content)


def transcript_text(message: Mapping[str, Any]) -> str:
    """A message's text on one line: content, then any tool calls; a tool result names its tool."""
    text = transcript_content(message.get("content"))
    if message.get("role") == "tool" and isinstance(message.get("name"), str):
        text = f"({_safe_name(message['name'])}) {text}"
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            fn = call.get("function", call) if isinstance(call, Mapping) else {}
            fn = fn if isinstance(fn, Mapping) else {}
            args = str(fn.get("arguments") or "")
            args = args if len(args) <= 300 else args[:300] + _TRUNC.format(n=len(args) - 300)
            text += f" [tool call: {_safe_name(str(fn.get('name') or '?'))}({args})]"
    text = text.strip()
    if text.isprintable():  # the common case: no newline, no control character, no lone surrogate
        return text
    text = _NEWLINES.sub(" ⏎ ", text)
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def stamp_of(message: Mapping[str, Any], fallback: str) -> str:
    """``YYYY-MM-DD HH:MM`` from the message's ISO timestamp, else ``fallback``."""
    ts = message.get("timestamp")
    m = _STAMP.match(ts) if isinstance(ts, str) else None
    return f"{m.group(1)} {m.group(2)}" if m else fallback


def render_line(
    message: Mapping[str, Any], *, fallback_stamp: str, owner: str | None = None, limit: int
) -> str:
    text = transcript_text(message)
    if len(text) > limit:
        text = text[:limit] + _TRUNC.format(n=len(text) - limit)
    return transcript_line(stamp_of(message, fallback_stamp), speaker(message, owner), text)


def render_transcript(
    messages: Sequence[Mapping[str, Any]],
    *,
    fallback_stamp: str,
    owner: str | None = None,
    limit: int = 8_000,
) -> str:
    """One transcript line per message (each message's text capped at ``limit`` characters)."""
    return "\n".join(
        render_line(m, fallback_stamp=fallback_stamp, owner=owner, limit=limit) for m in messages
    )


def raw_entries(
    messages: Sequence[Mapping[str, Any]],
    *,
    fallback_stamp: str,
    owner: str | None = None,
    limit: int = RAW_LIMIT,
) -> list[str]:
    """The raw entries of ``messages``: ``[RAW] N messages`` + transcript lines (N counts the
    lines), split into entries of at most ``limit`` characters each. Nothing is shortened: a
    message longer than an entry holds is split into lines ``(part 2 of 3) …`` at word boundaries,
    in entries of their own."""
    header_room = len("[RAW] 9999999 messages\n")
    line_limit = max(100, limit - header_room - 40)
    entries: list[str] = []
    batch: list[str] = []
    size = 0
    for message in messages:
        for line in _lines_of(message, fallback_stamp, owner, line_limit):
            if batch and size + len(line) + 1 > limit - header_room:
                entries.append(_raw(batch))
                batch, size = [], 0
            batch.append(line)
            size += len(line) + 1
    if batch:
        entries.append(_raw(batch))
    return entries


def _lines_of(
    message: Mapping[str, Any], fallback_stamp: str, owner: str | None, line_limit: int
) -> list[str]:
    """One transcript line, or the parts of a message too long for one, each a line of its own."""
    text = transcript_text(message)
    stamp, who = stamp_of(message, fallback_stamp), speaker(message, owner)
    room = line_limit - len(transcript_line(stamp, who, "")) - len("(part 9999 of 9999) ")
    if len(text) <= room:
        return [transcript_line(stamp, who, text)]
    parts: list[str] = []
    while text:
        cut = len(text) if len(text) <= room else (text.rfind(" ", room // 2, room) + 1 or room)
        parts.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    return [
        transcript_line(stamp, who, f"(part {i} of {len(parts)}) {part}")
        for i, part in enumerate(parts, 1)
    ]


def _raw(lines: list[str]) -> str:
    return f"[RAW] {len(lines)} messages\n" + "\n".join(lines)
