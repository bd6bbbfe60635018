"""``reverie.importers``, the path the docs gave the importers before it moved to
``reverie.memory.importers``: the same module under its old name, so code written against it keeps
working."""

import sys

from . import memory as _home
from .memory.importers import *  # noqa: F403 (what it exports, for type checkers)
from .memory.importers import __all__ as __all__

sys.modules[__name__] = _home.importers
