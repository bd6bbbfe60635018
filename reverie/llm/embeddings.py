"""Embeddings through ``litellm.aembedding`` (any provider, or a local OpenAI-compatible server), and ``hashembed``.

``hashembed/<dim>`` is a deterministic, offline feature-hashing embedder (words, word pairs and character trigrams
hashed into ``dim`` signed buckets, L2-normalised; the trigrams make it tolerant of typos and inflections). It is registered with litellm as a custom provider — the same path a real
embedding model takes — so tests exercise the real code path without a network; it is lexical, not semantic.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

from ..errors import ModelError

__all__ = ["embed", "hash_embedding", "HASH_PROVIDER"]

HASH_PROVIDER = "hashembed"
_WORD = re.compile(r"\w+")
_registered = False


def _litellm() -> Any:
    """litellm with Reverie's switches and providers (``_litellm.get_litellm``), plus ``hashembed``."""
    global _registered
    from ._litellm import get_litellm

    litellm = get_litellm()
    if not _registered:
        providers = [p for p in litellm.custom_provider_map if p.get("provider") != HASH_PROVIDER]
        litellm.custom_provider_map = providers + [{"provider": HASH_PROVIDER, "custom_handler": _hash_handler(litellm)}]
        _registered = True
    return litellm


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


def _hash_handler(litellm: Any) -> Any:
    class HashEmbed(litellm.CustomLLM):  # type: ignore[misc, name-defined]
        def _respond(self, model: str, input: list, model_response: Any) -> Any:
            try:
                dim = int(model.rsplit("/", 1)[-1])
            except ValueError:
                dim = 256
            texts = [input] if isinstance(input, str) else list(input)
            model_response.data = [
                {"object": "embedding", "index": i, "embedding": hash_embedding(str(t), dim)} for i, t in enumerate(texts)
            ]
            model_response.model = f"{HASH_PROVIDER}/{dim}"
            return model_response

        def embedding(self, model: str, input: list, model_response: Any, *args: Any, **kwargs: Any) -> Any:
            return self._respond(model, input, model_response)

        async def aembedding(self, model: str, input: list, model_response: Any, *args: Any, **kwargs: Any) -> Any:
            return self._respond(model, input, model_response)

    return HashEmbed()


async def embed(texts: list[str], *, model: str, config: Any = None, timeout: float = 60.0) -> list[list[float]]:
    """Embed ``texts`` with ``model`` (a litellm model name). Raises ``ModelError`` (never with an API key in it)."""
    if not texts:
        return []
    litellm = _litellm()
    kwargs: dict[str, Any] = {}
    provider = model.split("/", 1)[0]
    pconf = getattr(config, "providers", {}).get(provider) if config is not None else None
    if pconf is not None:
        if pconf.api_key:
            kwargs["api_key"] = pconf.api_key
        if pconf.api_base:
            kwargs["api_base"] = pconf.api_base
    try:
        response = await litellm.aembedding(model=model, input=texts, timeout=timeout, **kwargs)
    except Exception as exc:  # the model boundary: every provider failure becomes one ModelError
        raise ModelError(f"embedding with {model} failed: {type(exc).__name__}") from None
    data = sorted(response.data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
    vectors = [list(d["embedding"] if isinstance(d, dict) else d.embedding) for d in data]
    if len(vectors) != len(texts):
        raise ModelError(f"embedding with {model} returned {len(vectors)} vectors for {len(texts)} texts")
    return vectors
