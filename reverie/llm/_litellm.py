"""The one place litellm is imported: its environment switches first, then the import.

Importing litellm costs 2–3 s and ~150 MB, so nothing imports this module until a remote provider is
called (in-process models — the offline engine, scripted fakes — never reach it; see ``registry``).

The switches are set only where the host process left them unset (it owns its environment): without
``LITELLM_LOCAL_MODEL_COST_MAP`` litellm fetches a price list over the network at import, without
``LITELLM_MODE=PRODUCTION`` it loads the working directory's ``.env``, and without
``HF_HUB_OFFLINE`` its token counter tries to download tokenizers for llama-style names.
"""

from __future__ import annotations

import logging
import os
import threading
from types import ModuleType

__all__ = ["get_litellm", "SWITCHES"]

SWITCHES = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_MODE": "PRODUCTION",
    "HF_HUB_OFFLINE": "1",
}

_lock = threading.Lock()
_module: ModuleType | None = None


def get_litellm() -> ModuleType:
    """litellm, imported once, with Reverie's switches wherever the caller's environment does not
    set them."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            for name, value in SWITCHES.items():
                os.environ.setdefault(name, value)
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            # litellm attaches its own stderr handler; its warnings ("falling back to tiktoken …")
            # are noise for a CLI user. Errors still show, and REVERIE_DEBUG keeps everything.
            if not os.environ.get("REVERIE_DEBUG"):
                logging.getLogger("LiteLLM").setLevel(logging.ERROR)
            _module = litellm
    return _module
