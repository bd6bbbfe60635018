"""Bytes that are not UTF-8, named in one line: ``not UTF-8 (byte 0xfc at offset 11)``.

Every way text comes in says it the same way — an importer's file, a command-line argument, a line
typed into ``reverie chat`` — and refuses it rather than storing it with replacements or escapes
(the source stays as it is; the user converts it and tries again). Text Python decoded with
``surrogateescape`` (``sys.argv``, stdin, a terminal's input) carries each bad byte as a lone
surrogate U+DC80–U+DCFF: `undecodable` finds it again.
"""

from __future__ import annotations

__all__ = ["not_utf8", "undecodable", "exact_bytes", "without_bom"]

#: The UTF-8 byte order mark an editor saving "UTF-8 with BOM" puts before the first line.
BOM = b"\xef\xbb\xbf"


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """``not UTF-8 (byte 0x.. at offset N)`` for ``data``, whose decoding raised ``exc``."""
    return f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"


def undecodable(text: str) -> str | None:
    """`not_utf8`'s line for ``text`` decoded with ``surrogateescape`` from bytes that were not
    UTF-8 (the offset is in those bytes); None when ``text`` holds no surrogate. A lone surrogate
    that is no escaped byte is refused too: it cannot be written as UTF-8."""
    first = next((i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
    if first is None:
        return None
    data = text.encode("utf-8", "surrogateescape") if _escaped_only(text) else None
    if data is not None:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return not_utf8(data, exc)
    offset = len(text[:first].encode("utf-8", "surrogatepass"))
    return f"not UTF-8 (a lone surrogate U+{ord(text[first]):04X} at offset {offset})"


def exact_bytes(text: str) -> bytes:
    """The bytes ``text`` was decoded from with ``surrogateescape`` (each escaped byte as itself);
    a lone surrogate that is no escaped byte as U+FFFD's, since it stands for no byte."""
    if not _escaped_only(text):
        text = "".join(
            "\ufffd" if "\ud800" <= ch <= "\udfff" and not "\udc80" <= ch <= "\udcff" else ch
            for ch in text
        )
    return text.encode("utf-8", "surrogateescape")


def without_bom(raw: bytes) -> bytes:
    """``raw`` without the byte order mark before it, if it has one: a JSONL line is the same line
    in a file an editor saved as "UTF-8 with BOM" (the history log's and a session's readers)."""
    return raw[len(BOM) :] if raw.startswith(BOM) else raw


def _escaped_only(text: str) -> bool:
    """Whether every surrogate in ``text`` is an escaped byte (U+DC80–U+DCFF)."""
    return all(not ("\ud800" <= ch <= "\udfff") or "\udc80" <= ch <= "\udcff" for ch in text)
