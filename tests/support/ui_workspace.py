"""A workspace for the UI's tests: two Dream runs of the offline engine over a small conversation,
so there is a Dream commit with a batch, lines in USER.md and MEMORY.md, and a SOUL.md rule waiting
for approval."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import reverie
from reverie.memory import Memory
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace

#: A line an attacker could get into memory: the UI must show it as text, never run it.
SCRIPT_LINE = "Favourite tag is <script>document.title='pwned'</script> apparently"

ENTRIES = [
    "- [permanent] Name: Alice",
    "- [durable] Lives in Berlin",
    "- [durable] Works at ACME",
    "- [durable] Deadline for Atlas: 14 March",
    "- [permanent] Reply in British English",  # a SOUL.md rule: staged for approval
    f"- [durable] {SCRIPT_LINE}",
]


def _config() -> Config:
    config = Config()  # no model configured: the offline engine
    config.memory.history.fsync = False
    return config


def _build(root: Path) -> None:
    """The two Dream runs, in ``root``, checked as they go."""
    ws = Workspace(root)
    ws.init()
    with reverie.open(ws, config=_config()) as memory:
        for text in ENTRIES[:3]:
            memory.remember(text, session_key="cli:alice")
        assert memory.dream().status == "ok"
        for text in ENTRIES[3:]:
            memory.remember(text, session_key="cli:alice")
        result = memory.dream()
        assert result.status == "ok" and result.pending_soul, result


#: The workspace built once per process; each ``seeded`` gets a copy of its own.
_template: Path | None = None


def seeded(root: Path) -> Memory:
    """A copy of the seeded workspace at ``root``, open. The two Dream runs happen once per
    process (0.5-1.5 s each time, ~60 tests use it): the workspace holds no path of its own, so a
    copy is the same workspace, and each test still gets one nobody else touches."""
    global _template
    if _template is None:
        built = Path(tempfile.mkdtemp(prefix="reverie-seeded-"))
        atexit.register(shutil.rmtree, built, ignore_errors=True)
        _build(built / "ws")
        _template = built / "ws"
    shutil.copytree(_template, root, symlinks=True)
    return reverie.open(Workspace(root), config=_config())
