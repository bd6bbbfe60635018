"""The argument checks every ``Memory`` verb shares, so a wrong argument is named in one line
(``CommandError``) instead of failing deep inside: texts, stored texts (no control characters),
limits, kinds, and mem0's metadata, filters and chat messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from ..errors import CommandError

__all__ = [
    "check_text",
    "check_stored",
    "check_key",
    "check_limit",
    "check_day",
    "check_kinds",
    "check_metadata",
    "check_size",
    "check_filters",
    "check_chat",
    "holds",
]

_MAX_METADATA_BYTES = 64 << 10


def check_text(name: str, value: object, *, empty: bool = False) -> str:
    """``value`` if it is a string (non-blank unless ``empty``), else ``CommandError`` naming
    ``name``."""
    if not isinstance(value, str):
        raise CommandError(f"{name} must be a string, not {type(value).__name__}")
    if not empty and not value.strip():
        raise CommandError(f"{name} is empty: say what it is")
    return value


def check_stored(name: str, value: object) -> str:
    """``value`` checked as text a verb stores (``remember``, ``add``, ``update``): a non-blank
    string with no control character but tab and newline (``\\r\\n`` and a lone ``\\r`` are
    newlines). A NUL, an escape sequence or a bidirectional override is refused, naming the
    argument and the character, never stored to reach a prompt, a terminal or a memory file
    (``reverie.text.safety.CONTROL`` says which characters). A lone surrogate (text decoded from
    bytes that were not UTF-8, or a JSON ``\\ud800``) is refused the way the command line refuses
    it (``reverie.text.utf8``), never stored as an escape. (``record``, a conversation in
    progress, keeps such text as an escape instead: refusing would lose the turn.)"""
    from ..text.safety import unstorable

    text = check_text(name, value).replace("\r\n", "\n").replace("\r", "\n")
    why = unstorable(text)
    if why is not None:
        raise CommandError(f"{name} {why}")
    return text


def check_key(name: str, value: object) -> str:
    """``value`` checked as a session key or an id (``reverie.text.safety.unusable_key``: one line,
    no control character, valid UTF-8), else ``CommandError`` naming ``name``."""
    from ..text.safety import unusable_key

    why = unusable_key(value)
    if why is not None:
        raise CommandError(f"{name} {why}")
    assert isinstance(value, str)
    return value


def check_limit(name: str, value: object, *, zero: bool = False) -> int:
    """``value`` if it is a whole number (at least 1, or 0 with ``zero``), else ``CommandError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        least = 0 if zero else 1
        raise CommandError(f"{name} must be a whole number of at least {least}, not {value!r}")
    return value


def check_day(name: str, value: object) -> date | None:
    """``value`` as a day: a ``date`` (a ``datetime`` is one), an ISO ``YYYY-MM-DD`` string, or
    None; else ``CommandError`` naming ``name``."""
    if value is None or isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise CommandError(f"{name} must be a date or an ISO date (YYYY-MM-DD), not {value!r}")


def check_kinds(kinds: str | Sequence[str] | None) -> list[str] | None:
    """``kinds`` as a list: one kind given as a string is that kind (``kinds='history'``), never its
    letters; anything else than strings is named."""
    if kinds is None:
        return None
    if isinstance(kinds, str):
        return [kinds]
    if not isinstance(kinds, Sequence) or not all(isinstance(k, str) for k in kinds):
        raise CommandError(f"kinds must be a kind or a list of kinds, not {kinds!r}")
    return list(kinds)


def check_metadata(metadata: object) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise CommandError(f"metadata must be a dict, not {type(metadata).__name__}")
    import orjson

    from ..security.scrub import redact_value

    try:
        size = len(orjson.dumps(dict(metadata)))
    except TypeError as exc:
        raise CommandError(f"metadata must be plain JSON ({exc})") from None
    if size > _MAX_METADATA_BYTES:
        raise CommandError(f"metadata is {size:,} bytes of JSON (at most {_MAX_METADATA_BYTES:,})")
    cleaned, _ = redact_value(dict(metadata))
    return dict(cleaned)


def check_size(limit: object, top_k: object) -> int:
    """How many results: ``top_k`` (mem0 3's name) when given, else ``limit``; checked by name."""
    if top_k is not None:
        return check_limit("top_k", top_k)
    return check_limit("limit", limit)


def check_filters(filters: object) -> dict[str, Any]:
    """mem0's ``filters`` as plain key → value pairs (a value, or ``{"in": [...]}``); mem0's
    ``AND``/``OR`` and other operators are named as not supported, never ignored."""
    if filters is None:
        return {}
    if not isinstance(filters, Mapping):
        raise CommandError(f"filters must be a dict, not {type(filters).__name__}")
    out: dict[str, Any] = {}
    for key, value in filters.items():
        if not isinstance(key, str) or key.upper() in ("AND", "OR", "NOT"):
            raise CommandError(
                f"filters: {key!r} is not supported (give keys and values: {{'user_id': ..., "
                "'category': ...}, a value or {'in': [...]})"
            )
        if value == "*":
            continue  # mem0's wildcard: any value
        if isinstance(value, Mapping) and set(value) - {"in", "eq"}:
            raise CommandError(
                f"filters[{key!r}]: {sorted(set(value) - {'in', 'eq'})} not supported "
                "(a value, {'eq': value} or {'in': [values]})"
            )
        if (
            isinstance(value, Mapping)
            and "in" in value
            and (isinstance(value["in"], str | bytes) or not isinstance(value["in"], Sequence))
        ):
            raise CommandError(
                f"filters[{key!r}]['in'] must be a list of values, not {value['in']!r}"
            )
        out[key] = value
    return out


def holds(carried: object, wanted: object) -> bool:
    if isinstance(wanted, Mapping):
        if "eq" in wanted and carried != wanted["eq"]:
            return False
        if "in" in wanted:
            options = wanted["in"]
            return (
                isinstance(options, Sequence)
                and not isinstance(options, str)
                and (carried in options)
            )
        return True
    return carried == wanted


def check_chat(messages: object) -> list[dict[str, Any]]:
    """``messages`` as chat messages (each a dict with a string ``role`` and its ``content``)."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise CommandError(
            "messages must be a text, a chat message or a list of them, "
            f"not {type(messages).__name__}"
        )
    out = []
    for n, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise CommandError(
                f"messages[{n}] must be a dict with a string 'role', not {message!r}"
            )
        content = message.get("content")
        if isinstance(content, str):
            message = {**message, "content": check_stored(f"messages[{n}]['content']", content)}
        elif isinstance(content, Sequence) and not isinstance(content, bytes):
            # a list of parts (OpenAI's shape): each text part is stored text too
            for k, part in enumerate(content):
                text = part.get("text") if isinstance(part, Mapping) else None
                if isinstance(text, str) and text.strip():
                    check_stored(f"messages[{n}]['content'][{k}]['text']", text)
        out.append(dict(message))
    if not out:
        raise CommandError("messages is an empty list: give at least one message")
    return out
