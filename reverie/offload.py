"""``reverie.offload``, the path the docs gave the async verbs' executor before it moved to
``reverie.memory.offload``: the same module under its old name, so code written against it keeps
working."""

import sys

from . import memory as _home
from .memory.offload import *  # noqa: F403 (what it exports, for type checkers)
from .memory.offload import __all__ as __all__

sys.modules[__name__] = _home.offload
