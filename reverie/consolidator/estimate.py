"""What the agent's next prompt costs: system prompt with memory, messages not yet in history, tool
schemas.

The system prompt is approximated by the memory Reverie contributes to it (SOUL.md, USER.md and
``WorkspaceStore.get_memory_context()``) plus any extra text the embedding agent names; the messages
are those past ``last_consolidated``, reduced to the keys a model sees. Tokens come from
``ModelClient.count_tokens``.

``PromptEstimator`` makes the per-turn estimate incremental: chat-format token counts are additive
(a prompt costs its priming plus each message's share), so after one full count of a session it only
counts the messages appended or consolidated since, and the system part again only when its text
changes. A real tokenizer takes ~20–30 ms on 200 messages; the incremental estimate costs about a
millisecond.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..llm.client import ModelClient
from ..storage.sessions import Session
from ..storage.store import WorkspaceStore
from ..storage.workspace import MEMORY_FILES

__all__ = ["system_prompt", "prompt_messages", "model_view", "PromptEstimator", "MODEL_KEYS"]

#: The message keys a model sees; the rest (``timestamp``, channel extras) are not sent.
MODEL_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
_EMPTY = {"role": "user", "content": ""}
# Counted with each estimate: if the counter in use changes (the cheap estimate before litellm is
# loaded, the model's tokenizer after), the memo no longer matches and the session is counted
# afresh.
_PROBE = [{"role": "user", "content": "Reverie probe: the quick brown fox, 12345 ünïcode."}]


def system_prompt(store: WorkspaceStore, extra: str = "") -> str:
    parts = [extra, store.read_soul(), store.read_user(), store.get_memory_context()]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def model_view(message: Mapping[str, Any]) -> dict[str, Any]:
    return {k: message[k] for k in MODEL_KEYS if k in message}


def prompt_messages(
    store: WorkspaceStore, session: Session, *, extra_system: str = ""
) -> list[dict[str, Any]]:
    out = [{"role": "system", "content": system_prompt(store, extra_system)}]
    out.extend(model_view(m) for m in session.unconsolidated)
    return out


@dataclass(frozen=True, slots=True)
class _Memo:
    probe: int
    start: int
    end: int
    # the first and last counted messages, to notice a session that was replaced, not extended
    first: bytes
    last: bytes
    tokens: int  # the messages' share, priming excluded


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        # not followed: a file swapped for a symlink changes it, and is then re-read safely
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _fingerprint(message: Mapping[str, Any]) -> bytes:
    return orjson.dumps(model_view(message), default=str)


class PromptEstimator:
    """Prompt-token estimates per session and model, incremental between calls (see the module
    docstring)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self._fixed: dict[tuple[str | None, str, bytes], int] = {}
        self._priming: dict[tuple[str | None, int], int] = {}
        self._memo: dict[tuple[str, str | None], _Memo] = {}
        self._system: tuple[tuple[Any, ...], str] | None = None

    def system_prompt(self, store: WorkspaceStore, extra: str = "") -> str:
        """``system_prompt``, re-read only when a memory file changed (by its lstat: inode, size,
        mtime)."""
        stamp = (id(store), extra, *(_stat(store.workspace.root / rel) for rel in MEMORY_FILES))
        if self._system is None or self._system[0] != stamp:
            self._system = (stamp, system_prompt(store, extra))
        return self._system[1]

    def estimate(
        self,
        store: WorkspaceStore,
        session: Session,
        *,
        tools: list[dict[str, Any]] | None = None,
        extra_system: str = "",
        model: str | None = None,
    ) -> int:
        system = {"role": "system", "content": self.system_prompt(store, extra_system)}
        tools_key = orjson.dumps(tools, default=str) if tools else b""
        fixed_key = (model, system["content"], tools_key)
        probe = self.client.count_tokens(_PROBE, model=model)
        fixed = self._fixed.get(fixed_key)
        if fixed is None or len(self._fixed) > 64:
            if len(self._fixed) > 64:
                self._fixed.clear()
            fixed = self._fixed[fixed_key] = self.client.count_tokens(
                [system], tools=tools, model=model
            )
        messages = session.messages
        start, end = session.last_consolidated, len(messages)
        memo = self._memo.get((session.key, model))
        share = self._incremental(memo, messages, start, end, probe, model)
        if share is None:  # first sight of this session (or it changed under us): one full count
            views = [model_view(m) for m in messages[start:end]]
            share = self.client.count_tokens([system, *views], tools=tools, model=model) - fixed
        if start < end:
            self._memo[(session.key, model)] = _Memo(
                probe,
                start,
                end,
                _fingerprint(messages[start]),
                _fingerprint(messages[end - 1]),
                share,
            )
        else:
            self._memo.pop((session.key, model), None)
        return fixed + share

    def _incremental(
        self,
        memo: _Memo | None,
        messages: list[dict[str, Any]],
        start: int,
        end: int,
        probe: int,
        model: str | None,
    ) -> int | None:
        if (
            memo is None
            or memo.probe != probe
            or end < memo.end
            or start > memo.end
            or start >= end
        ):
            return None
        if (
            _fingerprint(messages[memo.start]) != memo.first
            or _fingerprint(messages[memo.end - 1]) != memo.last
        ):
            return None
        # A message counted alone costs a tokenizer about twice its share of a whole-list count:
        # past half the window, one full count is cheaper.
        if 2 * (abs(start - memo.start) + end - memo.end) > end - start:
            return None
        share = memo.tokens
        if start > memo.start:
            share -= self._share(messages[memo.start : start], probe, model)
        elif start < memo.start:
            share += self._share(messages[start : memo.start], probe, model)
        return share + self._share(messages[memo.end : end], probe, model)

    def _share(self, messages: list[dict[str, Any]], probe: int, model: str | None) -> int:
        """The messages' tokens without the priming: count([m]) − priming, summed (counts are
        additive)."""
        if not messages:
            return 0
        key = (model, probe)
        priming = self._priming.get(key)
        if priming is None:
            one = self.client.count_tokens([_EMPTY], model=model)
            two = self.client.count_tokens([_EMPTY, _EMPTY], model=model)
            priming = self._priming[key] = 2 * one - two
        return sum(
            self.client.count_tokens([model_view(m)], model=model) - priming for m in messages
        )
