"""A proxy on 127.0.0.1 in front of a real redis-server's unix socket that loses a reply or the
server on cue, for the fleet tests of lost replies and a Redis that dies mid-job."""

from __future__ import annotations

import socket
import threading

from .fleet import RedisServer

__all__ = ["CuttingProxy"]


class CuttingProxy:
    """TCP on 127.0.0.1 to the server's unix socket. `arm(trigger)`: the next client write holding
    ``trigger`` reaches the server, and the connection is closed when the server's reply arrives,
    the reply dropped (``cuts`` counts them; ``connections`` counts the client's connections).
    `arm(trigger, die=True)`: that write never reaches the server, and from then on the proxy
    refuses every connection (Redis gone, as far as the client can tell)."""

    def __init__(self, server: RedisServer) -> None:
        self.server = server
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.trigger: bytes | None = None
        self.die = False
        self.after = 0
        self.dead = threading.Event()
        self.cuts = 0
        self.connections = 0
        self.lock = threading.Lock()
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def arm(self, trigger: bytes, *, die: bool = False, after: int = 0) -> None:
        """Cut (or die) at the write holding ``trigger``, letting the first ``after`` such writes
        through."""
        with self.lock:
            self.trigger, self.die, self.after = trigger, die, after

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.dead.is_set():
                _close(client)
                continue
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(str(self.server.sock))
            with self.lock:
                self.connections += 1
                self.socks += [client, upstream]
            cut = threading.Event()
            threading.Thread(target=self._up, args=(client, upstream, cut), daemon=True).start()
            threading.Thread(target=self._down, args=(upstream, client, cut), daemon=True).start()

    def _up(self, client: socket.socket, upstream: socket.socket, cut: threading.Event) -> None:
        while data := _recv(client):
            with self.lock:
                if self.trigger is not None and self.trigger in data and self.after > 0:
                    self.after -= 1
                elif self.trigger is not None and self.trigger in data:
                    self.trigger = None
                    if self.die:
                        self.dead.set()
                        for s in self.socks:
                            _close(s)
                        return
                    cut.set()
            try:
                upstream.sendall(data)
            except OSError:
                return
        _close(upstream)

    def _down(self, upstream: socket.socket, client: socket.socket, cut: threading.Event) -> None:
        while data := _recv(upstream):
            if cut.is_set():  # the reply to the armed write: the server ran it; drop it
                with self.lock:
                    self.cuts += 1
                _close(client)
                _close(upstream)
                return
            try:
                client.sendall(data)
            except OSError:
                return
        _close(client)

    def close(self) -> None:
        self.listener.close()
        for s in self.socks:
            _close(s)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
