"""Listening for ``reverie mcp --http`` and ``reverie ui``: which addresses need no token (anything
else needs one, because anyone who can reach it could read and change memory), and binding the port
before either announces it, so a busy port is one line naming it."""

from __future__ import annotations

import errno
import ipaddress
import socket

from ..errors import CommandError

__all__ = ["is_loopback", "bind"]


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP (``127.0.0.0/8``, ``::1``, bracketed or not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: any free port); a busy port is a one-line
    ``CommandError``."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise CommandError(
                f"port {port} on {host} is in use (choose another with --port)"
            ) from None
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
