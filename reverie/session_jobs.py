"""``reverie.session_jobs``, the path the docs gave consolidation as jobs before it moved to
``reverie.memory.session_jobs``: the same module under its old name, so code written against it
keeps working."""

import sys

from . import memory as _home
from .memory.session_jobs import *  # noqa: F403 (what it exports, for type checkers)
from .memory.session_jobs import __all__ as __all__

sys.modules[__name__] = _home.session_jobs
