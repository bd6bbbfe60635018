"""Reverie's model registry: which code answers a model name, keyed by the name's prefix.

In-process models — the offline engine (``reverie/…``) and the scripted test fake (``scripted/…``) —
are plain async callables registered here and called directly by ``ModelClient``: no litellm import
(2–3 s, ~150 MB), no HTTP-shaped round trip. Every other prefix (``openai/…``, ``anthropic/…``,
``ollama/…``, a bare ``gpt-4o``) is a remote provider, reached through litellm, which
``ModelClient`` imports on that provider's first call.

A third party (a benchmark's local embedder, a test's own fake) registers the same way the built-ins
do::

    register("echo", lambda request: ModelResponse(content=request.messages[-1]["content"]))

An in-process model takes a ``Request`` and returns a ``ModelResponse`` (or an awaitable of one).
What it raises is classified by the client like a provider's error: a litellm exception type keeps
its retry rule, ``TimeoutError`` is retried, anything else is final.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

from ..errors import ModelUnavailableError
from ..storage.configdata import OFFLINE_MODEL
from .types import ModelResponse, Request

__all__ = ["Request", "LocalModel", "register", "unregister", "resolve", "prefix_of"]


LocalModel = Callable[[Request], ModelResponse | Awaitable[ModelResponse]]

_models: dict[str, LocalModel] = {}
_lock = threading.Lock()


def prefix_of(model: str) -> str:
    """The provider prefix of a model name (``openai/gpt-4o`` → ``openai``), or ``""`` when it has
    none."""
    head, sep, _ = model.partition("/")
    return head.lower() if sep else ""


def register(prefix: str, model: LocalModel) -> None:
    """Answer every ``<prefix>/<name>`` in-process with ``model`` (replacing an earlier
    registration)."""
    if not prefix or "/" in prefix:
        raise ValueError(f"a model prefix must be non-empty and without '/': {prefix!r}")
    with _lock:
        _models[prefix.lower()] = model


def unregister(prefix: str) -> None:
    with _lock:
        _models.pop(prefix.lower(), None)


def resolve(model: str) -> LocalModel | None:
    """The in-process model answering ``model``, or None: a remote provider, reached through
    litellm."""
    _ensure_builtins()
    with _lock:
        return _models.get(prefix_of(model))


_builtins_done = False


def _ensure_builtins() -> None:
    """Register the offline engine and the scripted fake on first use (their modules load only when
    called)."""
    global _builtins_done
    if _builtins_done:
        return
    with _lock:
        _models.setdefault("reverie", _offline)
        _models.setdefault("scripted", _scripted)
        _builtins_done = True


def _offline(request: Request) -> ModelResponse:
    if request.model.lower() != OFFLINE_MODEL:  # "reverie/offlin": a typo, not a second engine
        raise ModelUnavailableError(
            f"{request.model}: no such model; the offline engine is {OFFLINE_MODEL} (check "
            "agents.defaults.model or REVERIE_MODEL)",
            kind="not-found",
            provider="reverie",
            model=request.model,
        )
    from .offline import respond

    resp = respond(request.messages, tools=request.tools, tool_choice=request.tool_choice)
    return ModelResponse(
        resp.content, resp.tool_calls, resp.finish_reason, resp.usage, request.model
    )


async def _scripted(request: Request) -> ModelResponse:
    from .scripted import answer

    return await answer(request)
