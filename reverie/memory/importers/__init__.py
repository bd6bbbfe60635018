"""Memory in and out of Reverie, from Python as from the command line (``reverie export`` and
``reverie import`` call these): one function per source, and ``import_from`` choosing by kind.

- ``export_bundle(workspace, dest)`` / ``import_bundle(bundle, workspace)``: a whole workspace as
one
  bundle, every version included (``reverie.operations.portability``);
- ``import_nanobot(source, workspace)``: a nanobot workspace into a new one
  (``reverie.memory.importers.nanobot``);
- ``import_claude_code(memory, source)``: Claude Code's CLAUDE.md, rules and auto memory
  (``reverie.memory.importers.claude_code``);
- ``import_mem0(memory, source)`` / ``import_mem0_root(root, source)``: a mem0 export, into one
  user's workspace or one scope per user (``reverie.memory.importers.mem0``).

Every path redacts credentials on the way in, and the ``ImportResult`` names every item it did
not bring in (``skipped``, each with the reason), the files it kept that are not memory
(``kept``), and how many credentials it redacted (``redacted``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from ...errors import CommandError
from ...operations.portability import (
    ExportResult,
    ImportResult,
    ScopeImport,
    Skipped,
    export_bundle,
    import_bundle,
)
from ..core import open as open_memory
from .claude_code import import_claude_code
from .mem0 import import_mem0, import_mem0_root
from .nanobot import import_nanobot

__all__ = [
    "SOURCES",
    "Source",
    "import_from",
    "export_bundle",
    "import_bundle",
    "import_nanobot",
    "import_claude_code",
    "import_mem0",
    "import_mem0_root",
    "ExportResult",
    "ImportResult",
    "ScopeImport",
    "Skipped",
]

Source = Literal["bundle", "nanobot", "claude-code", "mem0"]
SOURCES: tuple[Source, ...] = ("bundle", "nanobot", "claude-code", "mem0")


def import_from(
    source: str | os.PathLike[str],
    kind: Source = "bundle",
    *,
    workspace: str | os.PathLike[str] | None = None,
    root: str | os.PathLike[str] | None = None,
    user: str | None = None,
    agent: str | None = None,
    replace: bool = False,
) -> ImportResult:
    """Bring ``source`` in as ``kind`` says, into ``workspace`` or the scope ``user``/``agent`` of
    ``root`` (a mem0 export with ``root`` and no ``user``: one scope per user). ``replace`` moves a
    non-empty target of a bundle or nanobot import aside first."""
    if kind not in SOURCES:
        raise CommandError(f"kind must be one of {', '.join(SOURCES)}, not {kind!r}")
    if workspace is not None and root is not None:
        raise CommandError("import into a workspace or a root, not both")
    if root is not None and user is None:
        if kind != "mem0":
            raise CommandError(f"a {kind} import goes into one scope: give a user with the root")
        return import_mem0_root(root, source)
    memory = (
        open_memory(root=root, user=user, agent=agent)
        if root is not None
        else open_memory(None if workspace is None else Path(workspace).expanduser())
    )
    with memory:
        if kind in ("bundle", "nanobot"):
            bring = import_bundle if kind == "bundle" else import_nanobot
            return bring(source, memory.workspace, replace=replace)
        if kind == "claude-code":
            return import_claude_code(memory, source)
        return import_mem0(memory, source, user=user)
