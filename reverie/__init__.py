"""Reverie: long-term memory for AI agents, kept in plain files and versioned in git."""

from __future__ import annotations

from .errors import *  # noqa: F403  (the documented exception tree)
from .errors import __all__ as _errors_all

__version__ = "0.1.0"

__all__ = [*_errors_all]
