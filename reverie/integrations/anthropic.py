"""Anthropic's memory tool (``memory_20250818``) over a Reverie workspace: ``ReverieMemoryTool``.

Claude's six file commands on ``/memories`` become edits of the workspace's Markdown memory files,
each one a ``Memory.write`` of kind ``agent``: secrets redacted, Dream's gate applied, lines taken
out of a prompt file moved to ``memory/archive/`` (``reverie why`` finds them), committed (``reverie
log --kind agent``, undone by ``reverie restore``). A SOUL.md change is staged for a person's
approval (``reverie approve``), never applied.

``/memories`` maps onto the workspace like this (nothing else is reachable; history, cursors,
sessions and state never are)::

    /memories/SOUL.md            SOUL.md            how the agent behaves (changes wait for approval)
    /memories/USER.md            USER.md            who the user is
    /memories/MEMORY.md          memory/MEMORY.md   what stays true about the work
    /memories/2026-11-25-x.md    memory/2026-...md  dated notes (new files are dated notes)
    /memories/archive/...        memory/archive/... what left the prompt files (read only)

``str_replace`` and ``insert`` edit the text they read and name it (``Memory.write``'s ``base``):
a line another writer (Dream, a person) committed between the read and the write is merged in,
never reverted; an edit of the same lines is refused with a ``ToolError`` saying to view the file
again. ``create`` gives whole new text, as the command means.

Files have fixed roles, so ``delete`` and ``rename`` are refused with a message that says what to do
instead; every version stays in git, so nothing an agent does is lost.

    tool = ReverieMemoryTool(reverie.open("~/agent/workspace"))   # AsyncReverieMemoryTool for AsyncAnthropic
    client.beta.messages.tool_runner(model=..., tools=[tool], messages=[...]).until_done()
"""

from __future__ import annotations

import re

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ..errors import EditConflictError, ReverieError, UnsafePathError
from ..memory import Memory, WriteResult, content_id

__all__ = ["ReverieMemoryTool", "AsyncReverieMemoryTool", "ROOT", "to_workspace", "to_memories"]

ROOT = "/memories"
#: The memory-tool names of the prompt files; every other name lives under ``memory/``.
_PROMPT_FILES = {"SOUL.md": "SOUL.md", "USER.md": "USER.md", "MEMORY.md": "memory/MEMORY.md"}
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}[^/]*\.md$")
_NUMBER_WIDTH = 6
_WHERE_FACTS_GO = (
    "durable facts go in /memories/USER.md (about the user) or /memories/MEMORY.md (about the "
    "work); a new file is a dated note, /memories/YYYY-MM-DD-topic.md"
)


def to_workspace(path: str) -> str | None:
    """The workspace-relative path of a ``/memories`` path (None for ``/memories`` itself);
    ``ToolError`` for a path outside it or with ``..``, a backslash, NUL or a hidden part."""
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise ToolError(f"Path must start with {ROOT}, got: {path}")
    rest = path[len(ROOT) :].strip("/")
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


# -- the commands, as pure steps both tools share -----------------------------------------------------------


def _numbered(command: BetaMemoryTool20250818ViewCommand, text: str) -> str:
    lines = _lines(text)
    start, end = 1, len(lines)
    if command.view_range and len(command.view_range) == 2:
        start = max(1, command.view_range[0])
        end = len(lines) if command.view_range[1] == -1 else min(len(lines), command.view_range[1])
    numbered = [f"{n:>{_NUMBER_WIDTH}}\t{lines[n - 1]}" for n in range(start, end + 1)]
    return f"Here's the content of {command.path} with line numbers:\n" + "\n".join(numbered)


def _is_folder(rel: str | None, files: list[str]) -> bool:
    return rel is None or (rel not in files and any(f.startswith(rel + "/") for f in files))


def _listing(memory: Memory, shown: str, files: list[str]) -> str:
    """The files under ``shown``, two levels deep, with their sizes (as the reference tool lists them)."""
    rows: list[str] = []
    dirs: set[str] = set()
    base = shown.rstrip("/")
    for f in files:
        path = to_memories(f)
        if not path.startswith(base + "/"):
            continue
        inner = path[len(base) + 1 :]
        if inner.count("/") > 1:
            continue
        if "/" in inner:
            folder = f"{base}/{inner.split('/', 1)[0]}/"
            if folder not in dirs:
                dirs.add(folder)
                rows.append(f"-\t{folder}")
        target = memory.workspace.root / f
        rows.append(f"{_size(target.stat().st_size if target.is_file() else 0)}\t{path}")
    header = (
        f"Here're the files and directories up to 2 levels deep in {shown}, excluding hidden items:"
    )
    return "\n".join([header, f"-\t{shown}", *rows])


def _read_error(shown: str, rel: str, exc: ReverieError) -> ToolError:
    if isinstance(exc, UnsafePathError):  # history, cursors, state: not memory files
        return ToolError(str(exc).replace(repr(rel), shown))
    return ToolError(f"The path {shown} does not exist. Please provide a valid path.")


def _replaced(command: BetaMemoryTool20250818StrReplaceCommand, text: str) -> str:
    count = text.count(command.old_str) if command.old_str else 0
    if count == 0:
        raise ToolError(
            f"No replacement was performed, old_str `{command.old_str}` did not appear verbatim in "
            f"{command.path}."
        )
    if count > 1:
        at = [
            text[: m.start()].count("\n") + 1 for m in re.finditer(re.escape(command.old_str), text)
        ]
        raise ToolError(
            f"No replacement was performed. Multiple occurrences of old_str `{command.old_str}` in "
            f"lines: {', '.join(map(str, at))}. Please ensure it is unique"
        )
    return text.replace(command.old_str, command.new_str, 1)


def _inserted(command: BetaMemoryTool20250818InsertCommand, text: str) -> str:
    lines = _lines(text)
    if not 0 <= command.insert_line <= len(lines):
        raise ToolError(
            f"Invalid `insert_line` parameter: {command.insert_line}. It should be within the range "
            f"[0, {len(lines)}]."
        )
    lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _refuse_delete(command: BetaMemoryTool20250818DeleteCommand) -> ToolError:
    to_workspace(command.path)
    return ToolError(
        f"{command.path} is not deleted: memory files keep their roles and every version of them "
        "is kept. Take lines out with str_replace (they move to /memories/archive/, with the "
        "reason) or rewrite a dated note with create"
    )


def _refuse_rename(command: BetaMemoryTool20250818RenameCommand) -> ToolError:
    to_workspace(command.old_path)
    to_workspace(command.new_path)
    return ToolError(
        f"{command.old_path} is not renamed: memory files have fixed names; {_WHERE_FACTS_GO}"
    )


def _writable(path: str) -> str:
    rel = to_workspace(path)
    if rel is None or rel.startswith("memory/archive/") or rel == "memory/archive":
        raise ToolError(f"{path} is read only: the archive keeps what left the prompt files")
    name = rel.removeprefix("memory/")
    if rel not in _PROMPT_FILES.values() and not _DATED.match(name):
        raise ToolError(f"{path} cannot be written: {_WHERE_FACTS_GO}")
    return rel


def _message(verb: str, shown: str) -> str:
    return f"agent: memory tool {verb} {shown}"


def _conflict(shown: str) -> ToolError:
    return ToolError(
        f"{shown} changed on the same lines while this edit was made (another writer's commit): "
        "nothing was written; view the file again and redo the edit"
    )


def _written(shown: str, result: WriteResult, *, created: bool = False) -> str:
    if result.staged:
        return (
            f"The change to {shown} is staged, not applied: SOUL.md changes take effect when a person "
            "approves them (`reverie approve`)."
        )
    moved = f" ({len(result.archived)} line(s) moved to {ROOT}/archive/)" if result.archived else ""
    if created:
        return f"File created successfully at: {shown}{moved}"
    return f"The memory file {shown} has been edited{moved}."


class ReverieMemoryTool(BetaAbstractMemoryTool):
    """Anthropic's memory tool kept in a Reverie workspace (see the module doc for the mapping and
    the rules); for ``client.beta.messages.tool_runner``. ``AsyncReverieMemoryTool`` is the same for
    ``AsyncAnthropic``."""

    def __init__(self, memory: Memory, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]  # cache_control, as the base class takes it
        self.memory = memory

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        rel = to_workspace(command.path)
        files = self.memory.files()
        if _is_folder(rel, files):
            return _listing(self.memory, command.path, files)
        assert rel is not None
        return _numbered(command, self._read(command.path, rel))

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self._write(
            command.path, _writable(command.path), command.file_text, "create", created=True
        )

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        rel = _writable(command.path)
        text = self._read(command.path, rel)
        return self._write(
            command.path, rel, _replaced(command, text), "str_replace", base=content_id(text)
        )

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        rel = _writable(command.path)
        text = self._read(command.path, rel)
        return self._write(
            command.path, rel, _inserted(command, text), "insert", base=content_id(text)
        )

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        raise _refuse_delete(command)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        raise _refuse_rename(command)

    def _read(self, shown: str, rel: str) -> str:
        try:
            return self.memory.read(rel)
        except ReverieError as exc:
            raise _read_error(shown, rel, exc) from None

    def _write(
        self,
        shown: str,
        rel: str,
        text: str,
        verb: str,
        *,
        created: bool = False,
        base: str | None = None,
    ) -> str:
        try:
            result = self.memory.write(
                rel, text, kind="agent", message=_message(verb, shown), base=base
            )
        except EditConflictError:
            raise _conflict(shown) from None
        except ReverieError as exc:
            raise ToolError(str(exc)) from None
        return _written(shown, result, created=created)


class AsyncReverieMemoryTool(BetaAsyncAbstractMemoryTool):
    """``ReverieMemoryTool`` for ``AsyncAnthropic``: the same commands through ``Memory``'s async
    twins (each in a worker thread, so the event loop never waits on a commit)."""

    def __init__(self, memory: Memory, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.memory = memory

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        rel = to_workspace(command.path)
        files = await self.memory.afiles()
        if _is_folder(rel, files):
            return _listing(self.memory, command.path, files)
        assert rel is not None
        return _numbered(command, await self._read(command.path, rel))

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._write(
            command.path, _writable(command.path), command.file_text, "create", created=True
        )

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        rel = _writable(command.path)
        text = await self._read(command.path, rel)
        return await self._write(
            command.path, rel, _replaced(command, text), "str_replace", base=content_id(text)
        )

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        rel = _writable(command.path)
        text = await self._read(command.path, rel)
        return await self._write(
            command.path, rel, _inserted(command, text), "insert", base=content_id(text)
        )

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        raise _refuse_delete(command)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        raise _refuse_rename(command)

    async def _read(self, shown: str, rel: str) -> str:
        try:
            return await self.memory.aread(rel)
        except ReverieError as exc:
            raise _read_error(shown, rel, exc) from None

    async def _write(
        self,
        shown: str,
        rel: str,
        text: str,
        verb: str,
        *,
        created: bool = False,
        base: str | None = None,
    ) -> str:
        try:
            result = await self.memory.awrite(
                rel, text, kind="agent", message=_message(verb, shown), base=base
            )
        except EditConflictError:
            raise _conflict(shown) from None
        except ReverieError as exc:
            raise ToolError(str(exc)) from None
        return _written(shown, result, created=created)
