"""Model access: the only package that imports litellm (lazily, only when a model is called).

``ModelClient`` (client.py) is the one way to call a model; ``reverie/offline`` (offline.py) and
``scripted/<name>`` (scripted.py, the test fake) are in-process models reached through litellm by name;
``load_prompt`` (prompts.py) gives each task's system prompt; ``protocol`` defines the prompts' layout.
"""

from typing import TYPE_CHECKING, Any

from .types import ModelResponse, ToolCall, Usage

if TYPE_CHECKING:
    from .client import ModelClient
    from .prompts import load_prompt
    from .scripted import Reply, ScriptedModel

# Loaded on first access (PEP 562): the value types are imported by modules `reverie status` needs, and the client
# (asyncio and friends) would add ~0.1 s to its start-up.
_LAZY = {"ModelClient": "client", "load_prompt": "prompts", "Reply": "scripted", "ScriptedModel": "scripted"}

__all__ = ["ModelClient", "ModelResponse", "Reply", "ScriptedModel", "ToolCall", "Usage", "load_prompt"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
