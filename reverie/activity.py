"""``reverie.activity``, the path the docs gave ``ModelActivity`` before it moved to
``reverie.llm.activity`` (it watches model calls: the models layer): the same module under its old
name, so code written against it keeps working."""

import sys

from .llm import activity as _home
from .llm.activity import *  # noqa: F403 (what it exports, for type checkers)
from .llm.activity import __all__ as __all__

sys.modules[__name__] = _home
