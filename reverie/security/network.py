"""Which addresses a server may listen on without a token: the one rule ``reverie mcp --http`` and ``reverie ui``
share (anything else needs a token, because anyone who can reach it could read and change memory)."""

from __future__ import annotations

import ipaddress

__all__ = ["is_loopback"]


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP (``127.0.0.0/8``, ``::1``, bracketed or not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
