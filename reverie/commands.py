"""``reverie.commands``, the path the docs gave the chat commands before it moved to
``reverie.chat.commands``: the same module under its old name, so code written against it keeps
working."""

import sys

from . import chat as _home
from .chat.commands import *  # noqa: F403 (what it exports, for type checkers)
from .chat.commands import __all__ as __all__

sys.modules[__name__] = _home.commands
