"""Each model's context window, so every memory task's prompt is sized to fit it. This docstring is
the spec of ``memory/.reverie/model-windows.json``.

Where a model's window comes from, the first that answers:

1. config ``models.<name>.contextWindowTokens``;
2. config ``agents.defaults.contextWindowTokens``, when it is set and the model is the agent's own;
3. litellm's model table (``max_input_tokens``) for a remote model litellm knows;
4. ``agents.defaults.contextWindowTokens`` (its default, 65,536).

A window *learned* from the provider's own over-window error (``ContextWindowError``: the limit its
message names, or three quarters of what was sent when it names none) caps what 2–4 gave: the
provider's word is the truth about the server actually answering (a window set for the model
itself, 1, is the person's word and wins). It is learned once and kept in the workspace's state, one
object per model, replaced atomically (delete an entry to forget it)::

    {"openai/smollm2": {"tokens": 8192, "time": "2026-11-30T10:00:00+00:00",
                        "said": "This model's maximum context length is 8192 tokens ..."}}

The file is advisory: a missing or corrupt one reads as empty (a corrupt one with a warning), and
the next over-window error learns the window again.

``reply_tokens(window, max_out)`` is the ``max_tokens`` a call sends (never more than a quarter of
a small window), and ``room(window, max_out)`` what its prompt may use: the window less that reply
and a margin for the difference between Reverie's token estimate and the model's own tokenizer.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..storage.fsutil import atomic_write
from . import registry

if TYPE_CHECKING:
    from ..storage.config import Config

log = logging.getLogger(__name__)

__all__ = ["ContextWindows", "room", "reply_tokens", "parse_limit", "WINDOWS_FILE", "MIN_WINDOW"]

WINDOWS_FILE = "model-windows.json"
#: No model is believed to have a smaller window than this (a parse of a nonsense number).
MIN_WINDOW = 512
_LIMIT_PATTERNS = (
    re.compile(r"maximum context length is (\d[\d,]*)", re.I),
    re.compile(r"context (?:window|length|size)(?: of| is|:)? (\d[\d,]*)", re.I),
    re.compile(r"(?:n_ctx|max_input_tokens|max_model_len|context_length)\W{0,3}(\d[\d,]*)", re.I),
    re.compile(r"(?:limit|maximum)(?: of| is)? (\d[\d,]*) tokens", re.I),
)
_REQUESTED = re.compile(r"(?:requested|you requested|requested tokens \()\D{0,3}(\d[\d,]*)", re.I)
_table: dict[str, int | None] = {}  # litellm's model table, per process
_MAX_FILE = 1 << 20  # a learned-windows file is a few hundred bytes; a huge one is not read


def reply_tokens(window: int, max_out: int) -> int:
    """The ``max_tokens`` a task asking for ``max_out`` sends to a model with ``window``: at most a
    quarter of the window, so the prompt keeps the rest."""
    return max(16, min(max_out, window // 4))


def room(window: int, max_out: int) -> int:
    """Prompt tokens a call may send to a model with ``window`` when its task asks for ``max_out``:
    the window less the reply (``reply_tokens``) and a margin of 1/16 of the window (at least 128
    tokens) for the estimate's error."""
    return max(64, window - reply_tokens(window, max_out) - max(128, window // 16))


def parse_limit(text: str) -> tuple[int | None, int | None]:
    """``(window, requested)`` named in a provider's over-window message, each None when absent."""
    limit = requested = None
    for pattern in _LIMIT_PATTERNS:
        m = pattern.search(text)
        if m:
            limit = int(m.group(1).replace(",", ""))
            break
    m = _REQUESTED.search(text)
    if m:
        requested = int(m.group(1).replace(",", ""))
    if limit is not None and limit < MIN_WINDOW:
        limit = None
    return limit, requested


class ContextWindows:
    """The windows of a workspace's models (see the module docstring). ``state_dir`` None: nothing
    is learned or kept (a process without a workspace)."""

    def __init__(self, config: Config, state_dir: Path | None = None) -> None:
        self.config = config
        self.path = Path(state_dir) / WINDOWS_FILE if state_dir is not None else None
        # The file as last read, by its (inode, size, mtime): asked on every chat turn, read once.
        self._seen: tuple[tuple[int, int, int] | None, dict[str, dict[str, Any]]] | None = None

    def of(self, model: str | None = None) -> int:
        """The window of ``model`` (the agent's model when None), in tokens."""
        name = model or self.config.model
        own = self.config.models.get(name)
        if own is not None and own.context_window_tokens is not None:
            return own.context_window_tokens  # said for this model: it wins, a learned one too
        window = self.configured(name)
        learned = self.learned().get(name)
        return min(window, learned["tokens"]) if learned is not None else window

    def configured(self, name: str) -> int:
        """The window before anything was learned: config, the agent's setting, litellm's table, the
        default."""
        own = self.config.models.get(name)
        if own is not None and own.context_window_tokens is not None:
            return own.context_window_tokens
        defaults = self.config.defaults
        if "context_window_tokens" in defaults.model_fields_set and name == self.config.model:
            return defaults.context_window_tokens
        table = _table_window(name)
        return table if table is not None else defaults.context_window_tokens

    def learned(self) -> dict[str, dict[str, Any]]:
        """``{model: {"tokens", "time", "said"}}`` as kept (valid records only)."""
        if self.path is None:
            return {}
        try:
            st = os.stat(self.path)
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        if self._seen is not None and self._seen[0] == stamp:
            return dict(self._seen[1])
        found = self._read() if stamp is not None else {}
        self._seen = (stamp, found)
        return dict(found)

    def _read(self) -> dict[str, dict[str, Any]]:
        assert self.path is not None
        try:
            if self.path.stat().st_size > _MAX_FILE:
                raise OSError(f"over {_MAX_FILE} bytes")
            data = orjson.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, orjson.JSONDecodeError) as exc:
            log.warning("%s is unreadable (%s); windows will be learned again", self.path, exc)
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            str(k): dict(v)
            for k, v in data.items()
            if isinstance(v, Mapping)
            and isinstance(v.get("tokens"), int)
            and not isinstance(v.get("tokens"), bool)
            and v["tokens"] >= MIN_WINDOW
        }

    def learn(
        self, model: str, limit: int | None, requested: int | None, said: str = ""
    ) -> int | None:
        """Keep what an over-window error taught: the provider's limit, else 3/4 of what was sent.
        Returns the window now believed (None when nothing could be learned)."""
        current = self.of(model)
        tokens = limit if limit is not None else (requested * 3 // 4 if requested else None)
        if tokens is None:
            tokens = current * 3 // 4  # nothing named: believe a quarter less than we did
        tokens = max(MIN_WINDOW, min(tokens, current if limit is None else tokens))
        if self.path is not None:
            kept = self.learned()
            kept[model] = {
                "tokens": tokens,
                "time": datetime.now(UTC).isoformat(timespec="seconds"),
                "said": " ".join(said.split())[:300],
            }
            try:
                atomic_write(self.path, orjson.dumps(kept, option=orjson.OPT_INDENT_2) + b"\n")
            except OSError as exc:
                log.warning("cannot keep the learned window of %s (%s)", model, exc)
        log.info("model %s: context window %d tokens (learned from the provider)", model, tokens)
        return tokens


def _table_window(name: str) -> int | None:
    """litellm's ``max_input_tokens`` for a remote model it knows (None for in-process models and
    for names its table lacks). Imports litellm: called only where the model is about to be
    called."""
    if registry.resolve(name) is not None:
        return None
    if name in _table:
        return _table[name]
    from ._litellm import get_litellm

    try:
        info = get_litellm().get_model_info(name)
        value = info.get("max_input_tokens") or info.get("max_tokens")
        tokens = int(value) if value else None
    except Exception:  # noqa: BLE001 — a model litellm does not know: no table entry
        tokens = None
    _table[name] = tokens if tokens is None or tokens >= MIN_WINDOW else None
    return _table[name]
