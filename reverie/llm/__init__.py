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

if TYPE_CHECKING:
    from .client import ModelClient
    from .prompts import load_prompt
    from .scripted import Reply, ScriptedModel
    from .types import ModelResponse, ToolCall, Usage

# Loaded on first access (PEP 562): the client (asyncio and friends) would add ~0.1 s to `reverie
# status`'s start-up; and a package that imports its own modules as it loads can deadlock two
# threads that enter it at once, one through the package and one through a module
# (tests/test_harden_threads.py), so not even the light value types load here.
_LAZY = {
    **{name: "types" for name in ("ModelResponse", "ToolCall", "Usage")},
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
