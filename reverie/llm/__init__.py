"""Model access: the only package that imports litellm (lazily, only when a model is called).

``ModelClient`` (client.py) is the one way to call a model; ``reverie/offline`` (offline.py) and
``scripted/<name>`` (scripted.py, the test fake) are in-process models reached through litellm by name;
``load_prompt`` (prompts.py) gives each task's system prompt; ``protocol`` defines the prompts' layout.
"""

from .client import ModelClient
from .prompts import load_prompt
from .scripted import Reply, ScriptedModel
from .types import ModelResponse, ToolCall, Usage

__all__ = ["ModelClient", "ModelResponse", "Reply", "ScriptedModel", "ToolCall", "Usage", "load_prompt"]
