"""The two places Dream calls the security capability (``reverie.security``), kept to one small module.

``find_credentials`` uses ``reverie.security.secrets.scan``. ``stage_soul_change`` hands a SOUL.md edit to
``reverie.security.pending`` for approval (``dream.protectSoul``). Until those modules exist, the first falls back
to a few unmistakable credential shapes and the second holds the change back (reported, never written).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from ..workspace import Workspace

try:  # the security capability is optional at import time: it lands separately
    from ..security import secrets as _secrets
except ImportError:  # pragma: no cover - depends on what is installed
    _secrets = None  # type: ignore[assignment]
try:
    from ..security import pending as _pending
except ImportError:  # pragma: no cover
    _pending = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

__all__ = ["find_credentials", "stage_soul_change", "soul_staging_available"]

_FALLBACK = [
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("api-key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}")),
    ("github-token", re.compile(r"\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("private-key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
]


def find_credentials(text: str) -> list[tuple[str, str]]:
    """``(kind, matched text)`` for each credential in ``text``."""
    if _secrets is not None:
        return [(m.kind, text[m.start : m.end]) for m in _secrets.scan(text)]
    return [(kind, m.group(0)) for kind, rx in _FALLBACK for m in rx.finditer(text)]


def soul_staging_available() -> bool:
    return _pending is not None and hasattr(_pending, "stage_soul_change")


def stage_soul_change(workspace: Workspace, base: str, proposed: str, meta: dict[str, Any]) -> bool:
    """Stage a SOUL.md change for approval; True when it was staged, False when it was held back."""
    if soul_staging_available():
        _pending.stage_soul_change(workspace, base=base, proposed=proposed, meta=meta)  # type: ignore[union-attr]
        return True
    log.warning("dream: a SOUL.md change needs approval but approval support is not installed; held back")
    return False
