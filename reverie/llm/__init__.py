"""Model access: the only package that imports litellm (lazily, only when a remote provider is
called).

``ModelClient`` (client.py) is the one way to call a model; ``registry`` decides who answers a name:
``reverie/offline`` (the offline/ package) and ``scripted/<name>`` (scripted.py, the test fake) are
in-process models called directly, every other name a remote provider reached through litellm
(``_litellm``); ``load_prompt`` (prompts.py) gives each task's system prompt; ``protocol`` defines
the prompts' layout; ``activity`` records the calls in flight, for a front end's status line.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .types import ModelResponse, ToolCall, Usage

if TYPE_CHECKING:
    from .client import ModelClient
    from .prompts import load_prompt
    from .scripted import Reply, ScriptedModel

# Loaded on first access (PEP 562): the value types are imported by modules `reverie status` needs,
# and the client (asyncio and friends) would add ~0.1 s to its start-up.
_LAZY = {
    "ModelClient": "client",
    "load_prompt": "prompts",
    "Reply": "scripted",
    "ScriptedModel": "scripted",
}

__all__ = [
    "ModelClient",
    "ModelResponse",
    "Reply",
    "ScriptedModel",
    "ToolCall",
    "Usage",
    "load_prompt",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
