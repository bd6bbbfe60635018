"""A workspace for the UI's tests: two Dream runs of the offline engine over a small conversation,
so there is a Dream commit with a batch, lines in USER.md and MEMORY.md, and a SOUL.md rule waiting
for approval."""

from __future__ import annotations

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


def seeded(root: Path) -> Memory:
    ws = Workspace(root)
    ws.init()
    config = Config()  # no model configured: the offline engine
    config.memory.history.fsync = False
    memory = reverie.open(ws, config=config)
    for text in ENTRIES[:3]:
        memory.remember(text, session_key="cli:alice")
    assert memory.dream().status == "ok"
    for text in ENTRIES[3:]:
        memory.remember(text, session_key="cli:alice")
    result = memory.dream()
    assert result.status == "ok" and result.pending_soul, result
    return memory
