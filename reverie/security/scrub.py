"""Replacing a string inside text only, never inside a file's structure: what ``reverie purge``
rewrites.

A purge that replaced bytes anywhere would turn ``{"cursor": 1234, …}`` into ``{"cursor":
[REDACTED:purged], …}`` when ``1234`` is purged, or break every line when ``cursor`` is: the line
would then be skipped as "not JSON" for ever. So, by format:

- JSON lines (``*.jsonl`` and their ``.torn``/``.corrupt`` sidecars): in a line that is JSON, only
  string values change (object keys, numbers, booleans never do); a line that is not JSON is already
  unreadable, so its raw bytes are replaced (the UTF-8 and JSON-escaped forms);
- a ``*.json`` file: its string values, or line by line as above when it is not one JSON document;
- cursor files (``.cursor``, ``.dream_cursor``): nothing; they hold one number and no text;
- any other file (Markdown memory, notes): the raw bytes.

Commit messages are handled by ``reverie.gitstore.trailers.replace_in_message`` (the format's
owner). Both the plan (counting) and the rewrite use these functions, so what is counted is what is
replaced.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from .secrets import redact, scan

__all__ = [
    "replace_in_file",
    "replace_in_jsonl",
    "replace_in_value",
    "replace_raw",
    "redact_text",
    "redact_value",
    "redact_many",
]

_JSONL_SUFFIXES = (".jsonl", ".jsonl.torn", ".jsonl.corrupt", ".jsonl.tmp")
_NO_TEXT = frozenset({".cursor", ".dream_cursor"})


def redact_text(text: str) -> tuple[str, int]:
    """``text`` with its credentials redacted (``secrets.redact``), and how many were found."""
    found = len(scan(text))
    return (redact(text), found) if found else (text, 0)


def redact_value(value: Any) -> tuple[Any, int]:
    """``value`` (parsed JSON) with credentials redacted in every string value, keys and numbers
    never touched (as a purge leaves them), and how many were found."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        items = [redact_value(item) for item in value]
        total = sum(n for _, n in items)
        return ([item for item, _ in items], total) if total else (value, 0)
    if isinstance(value, dict):
        pairs = {key: redact_value(item) for key, item in value.items()}
        total = sum(n for _, n in pairs.values())
        return ({key: item for key, (item, _) in pairs.items()}, total) if total else (value, 0)
    return value, 0


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def redact_many(values: list[Any]) -> tuple[list[Any], int]:
    """``redact_value`` over many values (a file's JSON lines), in one scan of all their strings:
    only the values holding a credential that scan found are scanned again and redacted, so a
    history of thousands of clean entries costs one scan, not one per string."""
    joined = "\n".join(s for value in values for s in _strings(value))
    found = {joined[m.start : m.end] for m in scan(joined)}
    if not found:
        return values, 0
    out: list[Any] = []
    total = 0
    for value in values:
        if any(secret in s for s in _strings(value) for secret in found):
            value, n = redact_value(value)
            total += n
        out.append(value)
    return out, total


def replace_in_value(value: Any, old: str, new: str) -> tuple[Any, int]:
    """``value`` (parsed JSON) with ``old`` replaced in every string value, and how many were
    replaced."""
    if isinstance(value, str):
        n = value.count(old)
        return (value.replace(old, new), n) if n else (value, 0)
    if isinstance(value, list):
        total = 0
        out = []
        for item in value:
            item, n = replace_in_value(item, old, new)
            out.append(item)
            total += n
        return (out, total) if total else (value, 0)
    if isinstance(value, dict):
        total = 0
        mapped = {}
        for key, item in value.items():  # keys are structure: never rewritten
            item, n = replace_in_value(item, old, new)
            mapped[key] = item
            total += n
        return (mapped, total) if total else (value, 0)
    return value, 0


def _forms(old: str) -> list[bytes]:
    forms = {
        old.encode("utf-8", errors="surrogatepass"),
        orjson.dumps(old)[1:-1],
        json.dumps(old)[1:-1].encode(),
    }
    return sorted((f for f in forms if f), key=len, reverse=True)


def replace_raw(data: bytes, old: str, new: str) -> tuple[bytes, int]:
    """Raw replacement of ``old``'s UTF-8 and JSON-escaped forms (for text that has no structure to
    keep)."""
    replacement = new.encode("utf-8")
    total = 0
    for form in _forms(old):
        n = data.count(form)
        if n:
            data = data.replace(form, replacement)
            total += n
    return data, total


def _line(raw: bytes, old: str, new: str) -> tuple[bytes, int]:
    body = raw.rstrip(b"\r\n")
    ending = raw[len(body) :]
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        fixed, n = replace_raw(body, old, new)
        return fixed + ending, n
    fixed_value, n = replace_in_value(parsed, old, new)
    if not n:
        return raw, 0
    return orjson.dumps(fixed_value) + ending, n


def replace_in_jsonl(data: bytes, old: str, new: str) -> tuple[bytes, int]:
    """A JSON-lines file with ``old`` replaced in string values (non-JSON lines: raw); unchanged
    lines kept as is."""
    needles = _forms(old)
    out: list[bytes] = []
    total = 0
    for raw in data.splitlines(keepends=True):
        if any(form in raw for form in needles):
            raw, n = _line(raw, old, new)
            total += n
        out.append(raw)
    return (b"".join(out), total) if total else (data, 0)


def replace_in_file(name: str, data: bytes, old: str, new: str) -> tuple[bytes, int]:
    """``data`` (the file ``name``) with ``old`` replaced as its format allows (see the module
    docstring)."""
    if name.rsplit("/", 1)[-1] in _NO_TEXT or not any(form in data for form in _forms(old)):
        return data, 0
    if name.endswith(_JSONL_SUFFIXES) or name.endswith((".torn", ".corrupt")):
        return replace_in_jsonl(data, old, new)
    if name.endswith(".json"):
        try:
            parsed = orjson.loads(data)
        except orjson.JSONDecodeError:
            return replace_in_jsonl(data, old, new)
        value, n = replace_in_value(parsed, old, new)
        return (orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n", n) if n else (data, 0)
    return replace_raw(data, old, new)
