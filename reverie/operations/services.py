"""``Services``: what an operation reads a workspace through, by shape.

The operations on one floor take the services they act on; ``reverie.memory.runtime.Runtime``,
one floor up, is what hands them over (it has this shape), so nothing here imports the front door.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..consolidator import SessionStore
    from ..gitstore import GitStore
    from ..storage.config import Config
    from ..storage.store import WorkspaceStore
    from ..storage.workspace import Workspace

__all__ = ["Services"]


class Services(Protocol):
    """One workspace's files, store, conversations, memory repo and configuration."""

    @property
    def workspace(self) -> Workspace: ...

    @property
    def store(self) -> WorkspaceStore: ...

    @property
    def sessions(self) -> SessionStore: ...

    @property
    def git(self) -> GitStore: ...

    @property
    def config(self) -> Config: ...
