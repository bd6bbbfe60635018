"""Anthropic's memory tool (``memory_20250818``) over a Reverie workspace: ``ReverieMemoryTool``.

Claude's six file commands on ``/memories`` become edits of the workspace's Markdown memory files, each one a
``Memory.write`` of kind ``agent``: secrets redacted, Dream's gate applied, lines taken out of a prompt file moved
to ``memory/archive/`` (``reverie why`` finds them), committed (``reverie log --kind agent``, undone by ``reverie
restore``). A SOUL.md change is staged for a person's approval (``reverie approve``), never applied.

``/memories`` maps onto the workspace like this (nothing else is reachable; history, cursors, sessions and state
never are)::

    /memories/SOUL.md            SOUL.md            how the agent behaves (changes wait for approval)
    /memories/USER.md            USER.md            who the user is
    /memories/MEMORY.md          memory/MEMORY.md   what stays true about the work
    /memories/2026-11-25-x.md    memory/2026-...md  dated notes (new files are dated notes)
    /memories/archive/...        memory/archive/... what left the prompt files (read only)

Files have fixed roles, so ``delete`` and ``rename`` are refused with a message that says what to do instead;
every version stays in git, so nothing an agent does is lost.

    tool = ReverieMemoryTool(reverie.open("~/agent/workspace"))
    client.beta.messages.tool_runner(model=..., tools=[tool], messages=[...]).until_done()
"""

from __future__ import annotations

import re

from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ..errors import ReverieError, UnsafePathError
from ..memory import Memory

__all__ = ["ReverieMemoryTool", "ROOT", "to_workspace", "to_memories"]

ROOT = "/memories"
#: The memory-tool names of the prompt files; every other name lives under ``memory/``.
_PROMPT_FILES = {"SOUL.md": "SOUL.md", "USER.md": "USER.md", "MEMORY.md": "memory/MEMORY.md"}
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}[^/]*\.md$")
_NUMBER_WIDTH = 6
_WHERE_FACTS_GO = ("durable facts go in /memories/USER.md (about the user) or /memories/MEMORY.md (about the "
                   "work); a new file is a dated note, /memories/YYYY-MM-DD-topic.md")


def to_workspace(path: str) -> str | None:
    """The workspace-relative path of a ``/memories`` path (None for ``/memories`` itself); ``ToolError`` for a
    path outside it or with ``..``, a backslash, NUL or a hidden part."""
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise ToolError(f"Path must start with {ROOT}, got: {path}")
    rest = path[len(ROOT):].strip("/")
    if not rest:
        return None
    parts = rest.split("/")
    if any(p in ("", ".", "..") or p.startswith(".") or "\\" in p or "\0" in p for p in parts):
        raise ToolError(f"Path {path} is outside {ROOT} or names a hidden file: refused")
    return _PROMPT_FILES.get(rest, f"memory/{rest}")


def to_memories(rel: str) -> str:
    """The ``/memories`` path of a workspace-relative memory file."""
    for name, target in _PROMPT_FILES.items():
        if rel == target:
            return f"{ROOT}/{name}"
    return f"{ROOT}/{rel.removeprefix('memory/')}"


def _lines(text: str) -> list[str]:
    """The file's lines as ``view`` numbers them and ``insert`` counts them (no empty line after the last newline)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    return f"{n / 1024:.1f}K" if n < 1024 * 1024 else f"{n / (1024 * 1024):.1f}M"


class ReverieMemoryTool(BetaAbstractMemoryTool):
    """Anthropic's memory tool kept in a Reverie workspace (see the module doc for the mapping and the rules)."""

    def __init__(self, memory: Memory, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]  # cache_control, as the base class takes it
        self.memory = memory

    # -- reading --------------------------------------------------------------------------------------------
    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        rel = to_workspace(command.path)
        files = self.memory.files()
        if rel is None or (rel not in files and any(f.startswith(rel + "/") for f in files)):
            return self._listing(command.path, rel, files)
        lines = _lines(self._read(command.path, rel))
        start, end = 1, len(lines)
        if command.view_range and len(command.view_range) == 2:
            start = max(1, command.view_range[0])
            end = len(lines) if command.view_range[1] == -1 else min(len(lines), command.view_range[1])
        numbered = [f"{n:>{_NUMBER_WIDTH}}\t{lines[n - 1]}" for n in range(start, end + 1)]
        return f"Here's the content of {command.path} with line numbers:\n" + "\n".join(numbered)

    def _listing(self, shown: str, rel: str | None, files: list[str]) -> str:
        rows: list[str] = []
        dirs: set[str] = set()
        for f in files:
            path = to_memories(f)
            base = shown.rstrip("/")
            if not path.startswith(base + "/"):
                continue
            inner = path[len(base) + 1:]
            if inner.count("/") > 1:
                continue  # two levels deep, as the reference tool lists
            if "/" in inner:
                folder = f"{base}/{inner.split('/', 1)[0]}/"
                if folder not in dirs:
                    dirs.add(folder)
                    rows.append(f"-\t{folder}")
            size = len(self.memory.read(f).encode("utf-8")) if (self.memory.workspace.root / f).is_file() else 0
            rows.append(f"{_size(size)}\t{path}")
        header = f"Here're the files and directories up to 2 levels deep in {shown}, excluding hidden items:"
        return "\n".join([header, f"-\t{shown}", *rows])

    def _read(self, shown: str, rel: str) -> str:
        try:
            return self.memory.read(rel)
        except UnsafePathError as exc:  # history, cursors, state: not memory files
            raise ToolError(str(exc).replace(repr(rel), shown)) from None
        except ReverieError:
            raise ToolError(f"The path {shown} does not exist. Please provide a valid path.") from None

    # -- writing --------------------------------------------------------------------------------------------
    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        rel = self._writable(command.path)
        return self._write(command.path, rel, command.file_text, "create", created=True)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        rel = self._writable(command.path)
        text = self._read(command.path, rel)
        count = text.count(command.old_str) if command.old_str else 0
        if count == 0:
            raise ToolError(f"No replacement was performed, old_str `{command.old_str}` did not appear verbatim in "
                            f"{command.path}.")
        if count > 1:
            at = [text[: m.start()].count("\n") + 1 for m in re.finditer(re.escape(command.old_str), text)]
            raise ToolError(f"No replacement was performed. Multiple occurrences of old_str `{command.old_str}` in "
                            f"lines: {', '.join(map(str, at))}. Please ensure it is unique")
        return self._write(command.path, rel, text.replace(command.old_str, command.new_str, 1), "str_replace")

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        rel = self._writable(command.path)
        lines = _lines(self._read(command.path, rel))
        if not 0 <= command.insert_line <= len(lines):
            raise ToolError(f"Invalid `insert_line` parameter: {command.insert_line}. It should be within the range "
                            f"[0, {len(lines)}].")
        lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
        return self._write(command.path, rel, "\n".join(lines) + "\n", "insert")

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        to_workspace(command.path)
        raise ToolError(f"{command.path} is not deleted: memory files keep their roles and every version of them "
                        "is kept. Take lines out with str_replace (they move to /memories/archive/, with the "
                        "reason) or rewrite a dated note with create")

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        to_workspace(command.old_path)
        to_workspace(command.new_path)
        raise ToolError(f"{command.old_path} is not renamed: memory files have fixed names; {_WHERE_FACTS_GO}")

    def _writable(self, path: str) -> str:
        rel = to_workspace(path)
        if rel is None or rel.startswith("memory/archive/") or rel == "memory/archive":
            raise ToolError(f"{path} is read only: the archive keeps what left the prompt files")
        name = rel.removeprefix("memory/")
        if rel not in _PROMPT_FILES.values() and not _DATED.match(name):
            raise ToolError(f"{path} cannot be written: {_WHERE_FACTS_GO}")
        return rel

    def _write(self, shown: str, rel: str, text: str, verb: str, *, created: bool = False) -> str:
        try:
            result = self.memory.write(rel, text, kind="agent", message=f"agent: memory tool {verb} {shown}")
        except ReverieError as exc:
            raise ToolError(str(exc)) from None
        if result.staged:
            return (f"The change to {shown} is staged, not applied: SOUL.md changes take effect when a person "
                    "approves them (`reverie approve`).")
        moved = f" ({len(result.archived)} line(s) moved to {ROOT}/archive/)" if result.archived else ""
        if created:
            return f"File created successfully at: {shown}{moved}"
        return f"The memory file {shown} has been edited{moved}."
