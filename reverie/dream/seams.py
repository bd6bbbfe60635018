"""The two places Dream calls the security capability, kept to one small module.

``find_credentials`` uses ``reverie.security.secrets.scan`` (Dream's gate refuses an edit that introduces one);
``stage_soul_change`` hands a SOUL.md edit to ``reverie.security.pending`` for approval (``dream.protectSoul``).
"""

from __future__ import annotations

from typing import Any

from ..security.pending import stage_soul_change as _stage
from ..security.secrets import scan
from ..workspace import Workspace

__all__ = ["find_credentials", "stage_soul_change"]


def find_credentials(text: str) -> list[tuple[str, str]]:
    """``(kind, matched text)`` for each credential in ``text``."""
    return [(m.kind, text[m.start : m.end]) for m in scan(text)]


def stage_soul_change(workspace: Workspace, base: str, proposed: str, meta: dict[str, Any]) -> None:
    """Stage a SOUL.md change for ``reverie approve`` / ``reject`` instead of writing it."""
    _stage(workspace, base=base, proposed=proposed, meta=meta)
