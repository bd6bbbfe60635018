"""The web UI in process, for the UI's page tests: Starlette's TestClient over the real app
(``reverie.ui.build_app``) and a real workspace, signed in as a browser is.

- `new_memory`: a new workspace, open (history not fsynced: nothing here tests durability);
- `signed_in`: a client of the app over a ``Memory``, signed in with ``token``, its addresses
  under the server's prefix from then on (``/memory`` is ``/<server id>/memory``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from starlette.testclient import TestClient

import reverie
from reverie.memory import Memory
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace
from reverie.ui import build_app
from reverie.ui.security import SignIn

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"


def new_memory(root: Path) -> Memory:
    """A workspace made at ``root``, open: the caller closes it."""
    ws = Workspace(root)
    ws.init()
    config = Config()
    config.memory.history.fsync = False
    return reverie.open(ws, config=config)


@contextmanager
def signed_in(
    memory: Memory, token: str, server_id: str, *, raise_server_exceptions: bool = True
) -> Iterator[TestClient]:
    """A browser on the app over ``memory`` (served on 127.0.0.1:8766 under ``server_id``), signed
    in with the standing ``token``; its addresses are under ``/<server_id>`` from then on.
    ``raise_server_exceptions=False``: a failing page is the 500 a browser gets."""
    app = build_app(
        memory,
        signin=SignIn(token),
        allowed_hosts=frozenset({f"127.0.0.1:{PORT}"}),
        port=PORT,
        server_id=server_id,
    )
    with TestClient(
        app,
        base_url=BASE,
        follow_redirects=False,
        raise_server_exceptions=raise_server_exceptions,
    ) as c:
        assert c.get(f"/?token={token}").status_code == 303
        c.base_url = f"{BASE}/{server_id}"
        yield c
