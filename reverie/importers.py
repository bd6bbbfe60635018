"""Memory brought in from other tools: Claude Code's auto-memory directory and a mem0 export.

Both go the same way, through ``Memory`` (so redaction, the gate and git hold as for any edit):

1. what was found is written, as it was, to one dated note (``memory/<today>-claude-code.md``,
   ``memory/<today>-mem0.md``) committed as one version whose message names the source — ``reverie
   log`` shows where it came from, ``reverie restore`` takes it out again, Recall finds it at once;
2. each fact in it is remembered (a history entry with session key ``import:<tool>``), so Dream
   weighs it like anything said in a conversation and moves what it is sure of into USER.md and
   memory/MEMORY.md.

Importing the same thing again the same day changes nothing (the note is unchanged, so nothing is
remembered twice). A nanobot workspace, which shares Reverie's layout, comes in whole instead
(``reverie.operations. portability.import_nanobot``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

import orjson

from .errors import WorkspaceError
from .memory import Memory
from .operations.portability import ImportResult

__all__ = ["import_claude_code", "import_mem0", "MAX_FILE_BYTES", "MAX_FILES", "MAX_FACT_CHARS"]

#: Bounds on what an import reads: a memory file or export larger than this is not memory but
#: something else.
MAX_FILE_BYTES = 1 << 20
MAX_EXPORT_BYTES = 64 << 20
MAX_FILES = 1_000
#: A longer line is kept in the note but not remembered as one fact.
MAX_FACT_CHARS = 1_000


def _read_text(path: Path, limit: int) -> str:
    if path.is_symlink() or not path.is_file():
        raise WorkspaceError(f"{path} is not a regular file")
    size = path.stat().st_size
    if size > limit:
        raise WorkspaceError(f"{path} is {size:,} bytes (at most {limit:,} are read)")
    return path.read_bytes().decode("utf-8", errors="replace")


def _facts(text: str) -> list[str]:
    """The lines of Markdown that state something: not headings, rules, fences or blank."""
    out: list[str] = []
    fenced = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not line or line.startswith(("#", "---", "<!--")):
            continue
        line = line.removeprefix("- ").removeprefix("* ").strip()
        if line and len(line) <= MAX_FACT_CHARS:
            out.append(line)
    return out


def _land(
    memory: Memory, tool: str, source: str, note: str, facts: Iterable[str], count: int
) -> ImportResult:
    """Write and commit the note, then remember its facts (only when the note is new: a repeat adds nothing)."""
    memory.init()
    rel = f"memory/{date.today().isoformat()}-{tool}.md"
    written = memory.write(
        rel, note, message=f"import: {tool} memory from {source} ({count} item(s))"
    )
    if written.commit is not None:
        for fact in facts:
            memory.remember(fact, session_key=f"import:{tool}")
    return ImportResult(
        memory.workspace.root,
        count,
        len(note.encode("utf-8")),
        commits=[written.commit] if written.commit else [],
    )


def import_claude_code(memory: Memory, source: str | os.PathLike[str]) -> ImportResult:
    """Claude Code's auto-memory: a directory of Markdown files (``MEMORY.md`` and topic files),
    given as the directory itself or a project directory holding ``memory/``."""
    root = Path(source).expanduser().absolute()
    if (root / "memory").is_dir() and not (root / "MEMORY.md").is_file():
        root = root / "memory"
    if not root.is_dir():
        raise WorkspaceError(f"no Claude Code memory directory at {root}")
    files = sorted(p for p in root.glob("*.md") if p.is_file() and not p.is_symlink())
    if not files:
        raise WorkspaceError(f"{root} holds no Markdown memory files")
    if len(files) > MAX_FILES:
        raise WorkspaceError(
            f"{root} holds {len(files):,} Markdown files (at most {MAX_FILES:,} are imported)"
        )
    sections = [f"# Imported from Claude Code auto-memory\n\nSource: {root}\n"]
    facts: list[str] = []
    for path in files:
        text = _read_text(path, MAX_FILE_BYTES)
        sections.append(f"## {path.name}\n\n{text.strip()}\n")
        facts.extend(_facts(text))
    return _land(memory, "claude-code", str(root), "\n".join(sections), facts, len(files))


def _mem0_items(data: Any) -> list[dict[str, Any]]:
    items = data.get("results", data.get("memories")) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise WorkspaceError(
            'not a mem0 export: expected get_all()\'s {"results": [...]} or a list of memories'
        )
    return [
        i
        for i in items
        if isinstance(i, dict) and isinstance(i.get("memory"), str) and i["memory"].strip()
    ]


def import_mem0(memory: Memory, source: str | os.PathLike[str]) -> ImportResult:
    """A mem0 export: the JSON ``Memory.get_all()`` returns (``{"results": [{"memory": ...,
    "user_id": ..., "created_at": ...}, ...]}``, or the bare list)."""
    path = Path(source).expanduser().absolute()
    try:
        data = orjson.loads(_read_text(path, MAX_EXPORT_BYTES))
    except orjson.JSONDecodeError as exc:
        raise WorkspaceError(f"{path} is not JSON ({exc})") from None
    items = _mem0_items(data)
    if not items:
        raise WorkspaceError(f"{path} holds no mem0 memories")
    lines = [f"# Imported from mem0\n\nSource: {path}\n"]
    facts: list[str] = []
    for item in items:
        text = " ".join(item["memory"].split())
        about = [f"{k} {item[k]}" for k in ("user_id", "agent_id") if isinstance(item.get(k), str)]
        when = item.get("created_at") if isinstance(item.get("created_at"), str) else None
        meta = ", ".join([*about, *([when[:10]] if when else [])])
        lines.append(f"- {text}" + (f" ({meta})" if meta else ""))
        if len(text) <= MAX_FACT_CHARS:
            facts.append(text)
    return _land(memory, "mem0", str(path), "\n".join(lines) + "\n", facts, len(items))
