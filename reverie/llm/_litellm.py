"""The one place litellm is imported: environment switches first, then the import, then our custom providers.

Importing litellm costs 2–3 s and ~150 MB, so nothing imports this module until a model is actually called.
The switches are forced (not ``setdefault``): a stray ``LITELLM_MODE`` in the caller's environment would make
litellm load the working directory's ``.env``, and a missing ``LITELLM_LOCAL_MODEL_COST_MAP`` makes it fetch a
price list over the network at import.
"""

from __future__ import annotations

import logging
import os
import threading
from types import ModuleType
from typing import Any

__all__ = ["get_litellm", "OFFLINE_PROVIDER", "SCRIPTED_PROVIDER"]

OFFLINE_PROVIDER = "reverie"
SCRIPTED_PROVIDER = "scripted"

_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_MODE": "PRODUCTION",
    "HF_HUB_OFFLINE": "1",
}

_lock = threading.Lock()
_module: ModuleType | None = None


def get_litellm() -> ModuleType:
    """litellm, imported once with Reverie's switches and with the ``reverie`` and ``scripted`` providers registered."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            os.environ.update(_ENV)
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            # litellm attaches its own stderr handler; its warnings ("falling back to tiktoken …") are noise for a
            # CLI user. Errors still show, and REVERIE_DEBUG keeps everything.
            if not os.environ.get("REVERIE_DEBUG"):
                logging.getLogger("LiteLLM").setLevel(logging.ERROR)
            _register(litellm)
            _module = litellm
    return _module


def _register(litellm: Any) -> None:
    from ._providers import make_handlers

    handlers = make_handlers(litellm)
    kept = [p for p in litellm.custom_provider_map if p.get("provider") not in handlers]
    litellm.custom_provider_map = kept + [{"provider": n, "custom_handler": h} for n, h in handlers.items()]
