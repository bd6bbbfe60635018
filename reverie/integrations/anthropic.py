"""Anthropic's memory tool (``memory_20250818``) over a Reverie workspace: ``ReverieMemoryTool``.

Claude names its own files under ``/memories`` and works on them with six commands (``view``,
``create``, ``str_replace``, ``insert``, ``delete``, ``rename``); the application may call
``clear_all_memory``. Every path under ``/memories`` works, mapped onto the workspace like this::

    /memories/SOUL.md            SOUL.md             how the agent behaves (changes wait for
                                                     approval)
    /memories/USER.md            USER.md             who the user is
    /memories/MEMORY.md          memory/MEMORY.md    what stays true about the work
    /memories/2026-11-25-x.md    memory/2026-...md   a dated note
    /memories/archive/...        memory/archive/...  what left memory, with why and when (read only)
    /memories/<anything else>    memory/topics/...   a topic file (reverie.storage.topics)

The three prompt files are in every conversation's prompt; topic files are listed there by name
and read with ``view`` when needed. Every change is a ``Memory`` verb of kind ``agent``: secrets
redacted, Dream's gate applied, committed (``reverie log --kind agent``), undone by ``reverie
restore``; a SOUL.md change is staged for a person's approval (``reverie approve``), never applied.
Nothing is lost: lines a ``str_replace`` takes out of a prompt file, and every line of a deleted
file, go to the archive with why and when (``reverie why`` finds them). ``delete`` and ``rename``
work on topic files, dated notes and folders of them; the prompt files keep their names (their lines
are edited instead) and the archive is read only. ``clear_all_memory`` empties memory in one commit
(``Memory.clear_files``), undone by one restore.

Results and errors are the ones the memory tool's documentation gives for each command, in the words
Claude is trained on ("The path /memories/x does not exist. Please provide a valid path.", "Error:
The destination … already exists"); where Reverie refuses something the reference tool would do, the
error says what to do instead, in the same plain words.

``str_replace`` and ``insert`` edit the text they read and name it (``Memory.write``'s ``base``):
a line another writer (Dream, a person) committed between the read and the write is merged in,
never reverted; an edit of the same lines is refused with a ``ToolError`` saying to view the file
again. ``create`` makes a new file and refuses one that holds text ("Error: File … already exists",
as the SDK's reference tool does), so a model that means a new file never replaces one it has not
read, nor one another writer creates meanwhile.

The SDK hands Claude's input over unchecked; ``check_input`` refuses, as a ``ToolError`` saying what
to send, an input a command cannot run on (a missing or ill-typed argument, an unknown command), so
a ``str_replace`` without ``new_str`` never deletes ``old_str`` and nothing fails as a traceback.

    # AsyncReverieMemoryTool for AsyncAnthropic
    tool = ReverieMemoryTool(reverie.open("~/agent/workspace"))
    client.beta.messages.tool_runner(model=..., tools=[tool], messages=[...]).until_done()
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from anthropic.lib.tools import (
    BetaAbstractMemoryTool,
    BetaAsyncAbstractMemoryTool,
    BetaFunctionToolResultType,
    ToolError,
)
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ..errors import EditConflictError, GateError, ReverieError, UnsafePathError
from ..memory import Memory, WriteResult, content_id, offload
from ..text.safety import unstorable

__all__ = [
    "ReverieMemoryTool",
    "AsyncReverieMemoryTool",
    "ROOT",
    "MAX_VIEW_CHARS",
    "to_workspace",
    "to_memories",
    "check_input",
]

ROOT = "/memories"
#: Most characters of a file one ``view`` shows (the tool's documented limit); the rest by range.
MAX_VIEW_CHARS = 16_000
MAX_LINES = 999_999
_NUMBER_WIDTH = 6
_PROMPT_FILES = {"SOUL.md": "SOUL.md", "USER.md": "USER.md", "MEMORY.md": "memory/MEMORY.md"}
_ARCHIVE, _TOPICS = "memory/archive", "memory/topics"
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}[^/]*\.md$")
_RESERVED_TOPLEVEL = ("archive",)
_EMPTY = content_id("")  # a file that does not exist yet reads as empty
T = TypeVar("T")


def _missing(path: str, *, error: bool = False) -> ToolError:
    """The documented "does not exist" answer (``view``'s without the ``Error:`` prefix)."""
    text = f"The path {path} does not exist. Please provide a valid path."
    return ToolError(f"Error: {text}" if error else text)


def to_workspace(path: str) -> str | None:
    """The workspace-relative path of a ``/memories`` path (None for ``/memories`` itself, or a
    folder's path), ``ToolError`` for a path outside it or with ``..``, a backslash, NUL or a
    hidden part."""
    if not isinstance(path, str) or (path != ROOT and not path.startswith(ROOT + "/")):
        raise ToolError(
            f"Error: The path {path} is outside {ROOT}: every memory path starts with {ROOT}/"
        )
    rest = path[len(ROOT) :].strip("/")
    if not rest:
        return None
    parts = rest.split("/")
    if any(
        p in ("", ".", "..") or p.startswith(".") or "\\" in p or "\0" in p or "%" in p
        for p in parts
    ):
        raise ToolError(
            f"Error: The path {path} is not allowed: a memory path has no '..', no hidden "
            "(dot) parts and no encoded characters"
        )
    if rest in _PROMPT_FILES:
        return _PROMPT_FILES[rest]
    if parts[0] in _RESERVED_TOPLEVEL:
        return "/".join([_ARCHIVE, *parts[1:]])
    if len(parts) == 1 and _DATED.match(rest):
        return f"memory/{rest}"
    return f"{_TOPICS}/{rest}"


def to_memories(rel: str) -> str:
    """The ``/memories`` path of a workspace-relative memory file."""
    for name, target in _PROMPT_FILES.items():
        if rel == target:
            return f"{ROOT}/{name}"
    for prefix, shown in ((_TOPICS + "/", ""), (_ARCHIVE + "/", "archive/"), ("memory/", "")):
        if rel.startswith(prefix):
            return f"{ROOT}/{shown}{rel[len(prefix) :]}"
    return f"{ROOT}/{rel}"


def _lines(text: str) -> list[str]:
    """The file's lines as ``view`` numbers them and ``insert`` counts them (no empty line after the
    last newline)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _size(n: int) -> str:
    """A human-readable size, as the reference tool prints it (``512B``, ``1.5K``, ``2.0M``)."""
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}"
    return f"{n}B"


def _numbered(lines: list[str], start: int = 1) -> list[str]:
    return [f"{n:>{_NUMBER_WIDTH}}\t{line}" for n, line in enumerate(lines, start)]


# -- the input: checked before any command runs ----------------------------------------------------

#: Each command's arguments (all required but ``view_range``) and what each is, as an error says it.
_ARGUMENTS: dict[str, dict[str, str]] = {
    "view": {"path": "the file or folder under /memories"},
    "create": {"path": "the file to write under /memories", "file_text": "the file's whole text"},
    "str_replace": {
        "path": "the file under /memories",
        "old_str": "the text to replace, as it appears in the file",
        "new_str": 'the text to put in its place ("" to delete old_str)',
    },
    "insert": {
        "path": "the file under /memories",
        "insert_line": "the line number to insert after (0: at the top)",
        "insert_text": "the text to insert",
    },
    "delete": {"path": "the file or folder under /memories"},
    "rename": {"old_path": "the file or folder to move", "new_path": "where to move it"},
}
_NUMBERS = ("insert_line",)


def check_input(value: object) -> None:
    """Refuse, with a ``ToolError`` Claude can act on, a tool input the command cannot run on: not
    an object, an unknown command, an argument missing or of the wrong type, a ``view_range`` that
    is not ``[start, end]``, a path that is not UTF-8. The SDK hands the input over unchecked
    (``construct_type_unchecked``): without this a missing ``new_str`` would delete ``old_str``,
    and a missing path would fail as a traceback."""
    if not isinstance(value, dict):
        raise ToolError(
            f"Error: the memory tool's input must be an object with a command, not "
            f"{type(value).__name__}. Nothing was changed"
        )
    command = value.get("command")
    if command not in _ARGUMENTS:
        raise ToolError(
            f"Error: Unknown command {command!r}: use one of {', '.join(_ARGUMENTS)}. "
            "Nothing was changed"
        )
    for name, what in _ARGUMENTS[command].items():
        if name not in value or value[name] is None:
            raise ToolError(f"Error: {command} needs {name} ({what}). Nothing was changed")
        given = value[name]
        if name in _NUMBERS:
            if isinstance(given, bool) or not isinstance(given, int):
                raise ToolError(
                    f"Error: {name} must be a whole number ({what}), not {given!r}. Nothing was "
                    "changed"
                )
            continue
        if not isinstance(given, str):
            raise ToolError(
                f"Error: {name} must be a string ({what}), not {type(given).__name__}. Nothing "
                "was changed"
            )
        why = unstorable(given, controls=name.endswith("path"))
        if why is not None:
            raise ToolError(f"Error: {name} {why}. Nothing was changed")
    span = value.get("view_range")
    if command == "view" and span is not None:
        whole = isinstance(span, list) and len(span) == 2
        whole = whole and all(isinstance(n, int) and not isinstance(n, bool) for n in span)
        if not whole or span[0] < 1 or (span[1] != -1 and span[1] < span[0]):
            raise ToolError(
                f"Error: Invalid `view_range`: {span!r}. It should be [start, end]: two line "
                "numbers from 1, end not before start (-1 for the last line)"
            )


# -- the commands: one implementation, run by both tools -------------------------------------------


class _Commands:
    """The six commands and ``clear_all_memory`` over ``Memory``'s verbs (synchronous; the async
    tool runs them on a worker thread)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    # -- reading -----------------------------------------------------------------------------------
    def _files(self) -> dict[str, str]:
        """Every file ``/memories`` shows: its ``/memories`` path -> workspace path."""
        return {to_memories(rel): rel for rel in self.memory.files()}

    def _under(self, path: str, files: dict[str, str]) -> list[str]:
        base = path.rstrip("/")
        return [shown for shown in files if shown.startswith(base + "/")]

    def _read(self, path: str, rel: str, *, error: bool) -> str:
        try:
            return self.memory.read(rel)
        except ReverieError:
            raise _missing(path, error=error) from None

    def _holds_text(self, rel: str) -> bool:
        try:
            return bool(self.memory.read(rel))
        except ReverieError:
            return False

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        path = command.path.rstrip("/") or command.path
        rel = to_workspace(path)
        files = self._files()
        if path in files and rel is not None:
            return self._view_file(command, path, self._read(path, rel, error=False))
        inside = self._under(path, files) if path != ROOT else list(files)
        if path != ROOT and not inside:
            raise _missing(command.path)
        return self._listing(path, inside, files)

    def _listing(self, path: str, inside: list[str], files: dict[str, str]) -> str:
        """The files and folders up to two levels under ``path`` with their sizes, as the tool's
        documentation lays them out."""
        sizes: dict[str, int] = {}
        for shown in inside:
            target = self.memory.workspace.root / files[shown]
            size = target.stat().st_size if target.is_file() else 0
            parts = shown[len(path) + 1 :].split("/")
            for depth in range(1, min(len(parts), 2) + 1):
                key = f"{path}/{'/'.join(parts[:depth])}" + ("/" if depth < len(parts) else "")
                sizes[key] = sizes.get(key, 0) + size
        total = sum(s for k, s in sizes.items() if k.count("/") == path.count("/") + 1)
        header = (
            f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden "
            "items and node_modules:"
        )
        rows = [f"{_size(total)}\t{path}"] + [f"{_size(sizes[k])}\t{k}" for k in sorted(sizes)]
        return "\n".join([header, *rows])

    def _view_file(self, command: BetaMemoryTool20250818ViewCommand, path: str, text: str) -> str:
        lines = _lines(text)
        if len(lines) > MAX_LINES:
            raise ToolError(f"File {path} exceeds maximum line limit of 999,999 lines.")
        start, end = 1, len(lines)
        if command.view_range and len(command.view_range) == 2:
            start = max(1, command.view_range[0])
            end = (
                len(lines)
                if command.view_range[1] == -1
                else min(len(lines), command.view_range[1])
            )
        out: list[str] = []
        used = 0
        for n in range(start, end + 1):
            row = f"{n:>{_NUMBER_WIDTH}}\t{lines[n - 1]}"
            if used + len(row) > MAX_VIEW_CHARS and not command.view_range:
                out.append(
                    f"(the file continues: it has {len(lines)} lines; view the rest with "
                    f"view_range [{n}, -1])"
                )
                break
            out.append(row)
            used += len(row) + 1
        return f"Here's the content of {path} with line numbers:\n" + "\n".join(out)

    # -- writing -----------------------------------------------------------------------------------
    def _writable(self, path: str) -> str:
        rel = to_workspace(path)
        if rel is None:
            raise ToolError(f"Error: {path} is a directory: name a file under it")
        if rel == _ARCHIVE or rel.startswith(_ARCHIVE + "/"):
            raise ToolError(
                f"Error: {path} is read only: {ROOT}/archive/ keeps what left memory, with why "
                "and when. Write your notes in another file"
            )
        return rel

    def _write(
        self, path: str, rel: str, text: str, verb: str, *, base: str | None = None
    ) -> WriteResult:
        try:
            return self.memory.write(
                rel, text, kind="agent", message=f"agent: memory tool {verb} {path}", base=base
            )
        except EditConflictError:
            raise ToolError(
                f"Error: {path} changed on the same lines while this edit was made (another "
                "writer's commit): nothing was written; view the file again and redo the edit"
            ) from None
        except ReverieError as exc:
            raise _refused(path, exc) from None

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        path = command.path
        rel = self._writable(path)
        files = self._files()
        if self._under(path, files):
            raise ToolError(f"Error: {path} is a directory: name a file under it")
        if path in files and self._holds_text(rel):  # a prompt file not written yet is empty
            deletable = "" if rel in _PROMPT_FILES.values() else ", or delete it first"
            raise ToolError(
                f"Error: File {path} already exists: view it and change its lines (str_replace, "
                f"insert){deletable}. Nothing was changed"
            )
        # base: the empty text, so a file another writer creates meanwhile is never replaced
        result = self._write(path, rel, command.file_text, "create", base=_EMPTY)
        if result.staged:
            return _staged(path)
        return f"File created successfully at: {path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        path = command.path
        rel = self._writable(path)
        text = self._read(path, rel, error=True)
        old, new = command.old_str, command.new_str
        count = text.count(old) if old else 0
        if count == 0:
            raise ToolError(
                f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
            )
        if count > 1:
            at = [text[: m.start()].count("\n") + 1 for m in re.finditer(re.escape(old), text)]
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in "
                f"lines: {', '.join(map(str, at))}. Please ensure it is unique"
            )
        changed = text.replace(old, new, 1)
        result = self._write(path, rel, changed, "str_replace", base=content_id(text))
        if result.staged:
            return _staged(path)
        row = text[: text.index(old)].count("\n")
        lines = _lines(changed)
        first = max(0, row - 2)
        snippet = _numbered(lines[first : row + 3 + new.count("\n")], first + 1)
        moved = _moved(result)
        return (
            "The memory file has been edited." + moved + " Here is the snippet showing the change "
            "(with line numbers):\n" + "\n".join(snippet)
        )

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        path = command.path
        rel = self._writable(path)
        try:
            text = self.memory.read(rel)
        except ReverieError:
            raise ToolError(f"Error: The path {path} does not exist") from None
        lines = _lines(text)
        if not 0 <= command.insert_line <= len(lines):
            raise ToolError(
                f"Error: Invalid `insert_line` parameter: {command.insert_line}. It should be "
                f"within the range of lines of the file: [0, {len(lines)}]"
            )
        lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
        result = self._write(path, rel, "\n".join(lines) + "\n", "insert", base=content_id(text))
        if result.staged:
            return _staged(path)
        return f"The file {path} has been edited."

    # -- files -------------------------------------------------------------------------------------
    def _movable(self, path: str, verb: str) -> str:
        rel = to_workspace(path)
        if rel is None and path.rstrip("/") == ROOT:
            raise ToolError(f"Error: The {ROOT} directory itself cannot be {verb}d")
        if rel in _PROMPT_FILES.values():
            raise ToolError(
                f"Error: {path} cannot be {verb}d: it is loaded into every conversation and keeps "
                "its name. Edit its lines instead (str_replace); lines taken out go to "
                f"{ROOT}/archive/ with why"
            )
        if rel is not None and (rel == _ARCHIVE or rel.startswith(_ARCHIVE + "/")):
            raise ToolError(
                f"Error: {path} is read only: {ROOT}/archive/ keeps what left memory, with why "
                "and when"
            )
        assert rel is not None
        return rel

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        path = command.path.rstrip("/") or command.path
        rel = self._movable(path, "delete")
        try:
            self.memory.delete_file(rel, kind="agent", reason=f"memory tool delete {path}")
        except FileNotFoundError:
            raise ToolError(f"Error: The path {path} does not exist") from None
        except ReverieError as exc:
            raise _refused(path, exc) from None
        return f"Successfully deleted {path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old, new = command.old_path.rstrip("/"), command.new_path.rstrip("/")
        source = self._movable(old, "rename")
        target = self._movable(new, "rename")
        try:
            self.memory.rename_file(source, target, kind="agent")
        except FileNotFoundError:
            raise ToolError(f"Error: The path {command.old_path} does not exist") from None
        except FileExistsError:
            raise ToolError(f"Error: The destination {command.new_path} already exists") from None
        except ReverieError as exc:
            raise _refused(new, exc) from None
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def clear_all_memory(self) -> str:
        self.memory.clear_files(kind="manual", reason="clear_all_memory")
        return "All memory cleared"


def _staged(path: str) -> str:
    return (
        f"The change to {path} is staged, not applied: SOUL.md changes take effect when a person "
        "approves them."
    )


def _moved(result: WriteResult) -> str:
    n = len(result.archived)
    return f" ({n} line{'s' if n != 1 else ''} moved to {ROOT}/archive/.)" if n else ""


def _refused(path: str, exc: ReverieError) -> ToolError:
    """A refusal in the tool's words: the reason with workspace paths said as ``/memories``
    paths."""
    reason = str(exc)
    if isinstance(exc, GateError):
        reason = reason.split(": ", 1)[-1]
    for rel in sorted(_known_paths(reason), key=len, reverse=True):
        reason = reason.replace(rel, to_memories(rel))
    if isinstance(exc, UnsafePathError):
        return ToolError(f"Error: {path} cannot be used as a memory file: {reason}")
    return ToolError(f"Error: {path} was not changed: {reason}")


def _known_paths(text: str) -> set[str]:
    return set(re.findall(r"(?:memory/[^\s:;,)]+|SOUL\.md|USER\.md)", text))


# -- the tools -------------------------------------------------------------------------------------


class ReverieMemoryTool(BetaAbstractMemoryTool):
    """Anthropic's memory tool kept in a Reverie workspace (see the module doc for the mapping and
    the rules); for ``client.beta.messages.tool_runner``. ``AsyncReverieMemoryTool`` is the same for
    ``AsyncAnthropic``."""

    def __init__(self, memory: Memory, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory = memory
        self._commands = _Commands(memory)

    def call(self, input: object) -> BetaFunctionToolResultType:
        """Claude's raw tool input, checked (``check_input``), then run."""
        check_input(input)
        return super().call(input)

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        """A folder's files up to two levels deep, or a file's lines (numbered; ``view_range``)."""
        return self._commands.view(command)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        """Write a file (a new topic file or note, or a prompt file's whole text), committed."""
        return self._commands.create(command)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        """Replace the one occurrence of ``old_str``; lines it takes out of a prompt file are
        archived."""
        return self._commands.str_replace(command)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        """Insert ``insert_text`` after line ``insert_line`` (0: at the top)."""
        return self._commands.insert(command)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        """Delete a topic file, dated note or folder of them; every line goes to the archive."""
        return self._commands.delete(command)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        """Move a topic file, dated note or folder of them; its text is unchanged."""
        return self._commands.rename(command)

    def clear_all_memory(self) -> str:
        """Empty memory in one commit (``Memory.clear_files``): topic files and notes deleted,
        USER.md and MEMORY.md back to their starter text, every line archived; SOUL.md kept."""
        return self._commands.clear_all_memory()


class AsyncReverieMemoryTool(BetaAsyncAbstractMemoryTool):
    """``ReverieMemoryTool`` for ``AsyncAnthropic``: the same commands, each run in the executor of
    Memory's async verbs (``reverie.memory.offload``), so the event loop never waits on a commit."""

    def __init__(self, memory: Memory, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory = memory
        self._commands = _Commands(memory)

    async def call(self, input: object) -> BetaFunctionToolResultType:
        """Claude's raw tool input, checked (``check_input``), then run."""
        check_input(input)
        return await super().call(input)

    async def _run(self, verb: Callable[[T], str], command: T) -> str:
        return await offload.run(lambda: verb(command))

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        """See ``ReverieMemoryTool.view``."""
        return await self._run(self._commands.view, command)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        """See ``ReverieMemoryTool.create``."""
        return await self._run(self._commands.create, command)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        """See ``ReverieMemoryTool.str_replace``."""
        return await self._run(self._commands.str_replace, command)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        """See ``ReverieMemoryTool.insert``."""
        return await self._run(self._commands.insert, command)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        """See ``ReverieMemoryTool.delete``."""
        return await self._run(self._commands.delete, command)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        """See ``ReverieMemoryTool.rename``."""
        return await self._run(self._commands.rename, command)

    async def clear_all_memory(self) -> str:
        """See ``ReverieMemoryTool.clear_all_memory``."""
        return await offload.run(self._commands.clear_all_memory)
