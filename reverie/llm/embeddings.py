"""Embeddings through ``litellm.aembedding`` (any provider, or a local OpenAI-compatible server),
and ``hashembed``.

``hashembed/<dim>`` is a deterministic, offline feature-hashing embedder (words, word pairs and
character trigrams hashed into ``dim`` signed buckets, L2-normalised; the trigrams make it tolerant
of typos and inflections). It is registered with litellm as a custom provider — the same path a real
embedding model takes — so tests exercise the real code path without a network; it is lexical, not
semantic.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ModelError

if TYPE_CHECKING:
    from ..storage.config import Config

__all__ = ["embed", "embed_sync", "hash_embedding", "register_embedder", "HASH_PROVIDER"]

log = logging.getLogger(__name__)

HASH_PROVIDER = "hashembed"
_WORD = re.compile(r"\w+")
_lock = threading.Lock()
_embedders: dict[str, Callable[[list[str], str], list[list[float]]]] = {}
_installed: set[str] = set()


def _litellm() -> Any:
    """litellm with Reverie's switches and providers (``_litellm.get_litellm``), plus the registered
    embedders."""
    from ._litellm import get_litellm

    # a module mypy does not follow (lazy and large): its provider map is set by name
    litellm: Any = get_litellm()
    with _lock:
        missing = {name: fn for name, fn in _embedders.items() if name not in _installed}
        if missing:
            kept = [p for p in litellm.custom_provider_map if p.get("provider") not in missing]
            litellm.custom_provider_map = kept + [
                {"provider": name, "custom_handler": _handler(litellm, name, fn)}
                for name, fn in missing.items()
            ]
            _installed.update(missing)
    return litellm


def register_embedder(provider: str, fn: Callable[[list[str], str], list[list[float]]]) -> None:
    """Make ``<provider>/<anything>`` an embedding model answered in-process by ``fn(texts,
    model)``.

    It is registered with litellm as a custom provider (the path a hosted model takes), so callers
    see no difference. ``hashembed`` is registered this way; benchmarks register local embedders the
    same way.
    """
    with _lock:
        _embedders[provider] = fn
        _installed.discard(provider)


def hash_embedding(text: str, dim: int = 256) -> list[float]:
    """The ``hashembed`` vector of ``text``: deterministic across runs and machines."""
    words = [w.lower() for w in _WORD.findall(text)]
    feats = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    for w in words:
        padded = f"<{w}>"
        feats.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    vec = [0.0] * dim
    for feat in feats:
        h = hashlib.blake2b(feat.encode("utf-8", "replace"), digest_size=8).digest()
        bucket = int.from_bytes(h[:4], "little") % dim
        vec[bucket] += 1.0 if h[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def _hash_model(texts: list[str], model: str) -> list[list[float]]:
    try:
        dim = int(model.rsplit("/", 1)[-1])
    except ValueError:
        dim = 256
    return [hash_embedding(t, dim) for t in texts]


def _handler(litellm: Any, provider: str, fn: Callable[[list[str], str], list[list[float]]]) -> Any:
    # litellm is imported lazily, so to mypy its CustomLLM is Any; the handler is typed on its own
    # methods.
    class InProcessEmbedder(litellm.CustomLLM):  # type: ignore[misc]
        def _respond(self, model: str, input: str | list[str], model_response: Any) -> Any:
            texts = [input] if isinstance(input, str) else [str(t) for t in input]
            vectors = fn(texts, model)
            model_response.data = [
                {"object": "embedding", "index": i, "embedding": list(map(float, v))}
                for i, v in enumerate(vectors)
            ]
            model_response.model = f"{provider}/{model}"
            return model_response

        def embedding(
            self, model: str, input: list[str], model_response: Any, *args: Any, **kwargs: Any
        ) -> Any:
            return self._respond(model, input, model_response)

        async def aembedding(
            self, model: str, input: list[str], model_response: Any, *args: Any, **kwargs: Any
        ) -> Any:
            return self._respond(model, input, model_response)

    return InProcessEmbedder()


async def embed(
    texts: list[str], *, model: str, config: Config | None = None, timeout: float = 60.0
) -> list[list[float]]:
    """Embed ``texts`` with ``model`` (a litellm model name). Raises ``ModelError`` (never with an
    API key in it)."""
    if not texts:
        return []
    litellm = _litellm()
    kwargs = _provider_kwargs(model.split("/", 1)[0], config)
    try:
        response = await litellm.aembedding(model=model, input=texts, timeout=timeout, **kwargs)
    except Exception:  # the model boundary: every provider failure becomes one ModelError
        raise _failed(model) from None
    return _checked(_vectors_of(response), model, len(texts))


def embed_sync(
    texts: list[str], *, model: str, config: Config | None = None, timeout: float = 60.0
) -> list[list[float]]:
    """``embed`` for synchronous callers, with no event loop: an in-process embedder (``hashembed``,
    one added by ``register_embedder``) is called directly, any other model through
    ``litellm.embedding``."""
    if not texts:
        return []
    provider, _, name = model.partition("/")
    with _lock:
        local = _embedders.get(provider)
    if local is not None:
        try:
            vectors = [list(map(float, v)) for v in local(list(texts), name or model)]
        except Exception:
            # an embedder's failure is a model failure, never a traceback for the caller
            raise _failed(model) from None
    else:
        litellm = _litellm()
        kwargs = _provider_kwargs(provider, config)
        try:
            response = litellm.embedding(model=model, input=texts, timeout=timeout, **kwargs)
        except Exception:  # the model boundary: every provider failure becomes one ModelError
            raise _failed(model) from None
        vectors = _vectors_of(response)
    return _checked(vectors, model, len(texts))


def _failed(model: str) -> ModelError:
    """The one error for any embedding failure, logged with its cause at debug level (never with a
    key)."""
    exc = sys.exc_info()[1]
    log.debug("embedding with %s failed", model, exc_info=True)
    return ModelError(f"embedding with {model} failed: {type(exc).__name__}")


def _vectors_of(response: Any) -> list[list[float]]:
    data = sorted(response.data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
    return [list(d["embedding"] if isinstance(d, dict) else d.embedding) for d in data]


def _checked(vectors: list[list[float]], model: str, n: int) -> list[list[float]]:
    if len(vectors) != n:
        raise ModelError(f"embedding with {model} returned {len(vectors)} vectors for {n} texts")
    return vectors


def _provider_kwargs(provider: str, config: Config | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    pconf = config.providers.get(provider) if config is not None else None
    if pconf is not None:
        if pconf.api_key:
            kwargs["api_key"] = pconf.api_key
        if pconf.api_base:
            kwargs["api_base"] = pconf.api_base
    return kwargs


register_embedder(HASH_PROVIDER, _hash_model)
