"""Reverie's version, read one way: the installed distribution's (pyproject.toml writes it once)."""

from __future__ import annotations

from functools import cache

__all__ = ["version"]


@cache
def version() -> str:
    """The installed distribution's version, read on first use (``reverie --help`` never pays for
    the metadata lookup); ``0+unknown`` when run from a checkout that was never installed (a peer
    environment)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("reverie")
    except PackageNotFoundError:
        return "0+unknown"
