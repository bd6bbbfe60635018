"""The edit policy: how a person's or an agent's edit reaches a memory file, written once.

Every edit of a memory file made outside Dream goes through here (``Memory.write`` and
``Memory.remove``; mem0's ``update`` and ``delete`` through ``reverie.operations.items``):

- **What it may reach** (``memory_path``): the prompt files, Markdown under ``memory/`` outside
  hidden folders, and topic files. History, cursors, sessions and state never.
- **One lock from read to commit** (``edit_section``): the write fence's (``dream.fence``), short,
  so an edit never lands inside a Dream run's commit nor a restore, approve or purge, and edits
  take turns. Not Dream's run lock: a run in progress (model calls, a minute) never holds up a
  person's edit, and merges its own over it when it commits (``GitStore.commit``'s ``base``).
- **Judged by Dream's gate** (``judged``): a refused edit raises ``GateError`` with its reason and
  writes nothing.
- **A line leaves only into the archive** (``archive_entry``), with who took it out and why, where
  ``why`` finds it; an agent's SOUL.md change waits for approval (``dream.proposal``), and an agent
  never rewrites the archive.
- **No blind writes**: an edit that names the text it was made from (``base``) is merged three-way
  over what changed since, or refused with both sides (``EditConflictError``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import (
    CommandError,
    EditConflictError,
    GateError,
    MergeConflictError,
    UnsafePathError,
    WorkspaceError,
)
from ..storage.topics import TOPICS_DIR, check_topic, is_topic, topic_files
from ..storage.topics import problem as topic_problem
from ..storage.workspace import (
    ARCHIVE_DIR,
    MEMORY_FILES,
    SOUL,
    Workspace,
    check_relative,
    content_id,
)

if TYPE_CHECKING:
    from ..storage.config import Config
    from .services import Services

__all__ = [
    "EditKind",
    "WriteResult",
    "RemoveResult",
    "memory_files",
    "memory_path",
    "check_kind",
    "edit_section",
    "archive_entry",
    "judged",
    "write",
    "remove",
]

#: Who made a file edit: a person (``manual``) or an agent through a tool (``agent``: SOUL.md
#: changes wait for approval). Both are commit kinds (``reverie log --kind agent``).
EditKind = Literal["manual", "agent"]
_WHO = {"manual": "hand", "agent": "an agent"}


@dataclass(frozen=True)
class WriteResult:
    """What ``write`` did: the commit (None when nothing changed or the change is staged), and
    whether an agent's SOUL.md change was staged for approval instead of applied. ``content_id``:
    the file's content id after the write (the ``base`` of a next edit); ``merged``: the file had
    changed since the ``base`` the write named, and the write was merged over those changes."""

    path: str
    commit: str | None
    staged: bool = False
    #: lines the edit took out of a prompt file, now in the archive
    archived: tuple[str, ...] = ()
    content_id: str = ""
    merged: bool = False

    @property
    def changed(self) -> bool:
        """Whether the write made a commit."""
        return self.commit is not None


@dataclass(frozen=True)
class RemoveResult:
    """What ``remove`` did: the line as it stood, the archive file it went to, and the commit."""

    path: str
    line: str
    archive: str
    commit: str | None


# -- which files an edit reaches -------------------------------------------------------------------


def memory_files(workspace: Workspace) -> list[str]:
    """The memory files ``read`` serves: the prompt files, then every ``.md`` under ``memory/``
    (dated notes, the archive) and every topic file (``reverie.storage.topics``, any name),
    workspace-relative, hidden folders and symlinks skipped.
    """
    out = list(MEMORY_FILES) + [rel for rel in topic_files(workspace) if not rel.endswith(".md")]
    memory_dir = workspace.memory_dir
    if memory_dir.is_dir():
        for path in sorted(memory_dir.rglob("*.md")):
            rel = path.relative_to(workspace.root).as_posix()
            if rel in out or any(part.startswith(".") for part in Path(rel).parts):
                continue
            if path.is_file() and not path.is_symlink():
                out.append(rel)
    return out


def memory_path(path: str) -> str:
    """``path`` normalised, if it may be a memory file (a prompt file, a ``.md`` under ``memory/``
    outside hidden folders, a topic file); else ``UnsafePathError``. History, cursors, sessions and
    state are never reached this way."""
    rel = path.strip()
    rel = rel[2:] if rel.startswith("./") else rel
    rel = check_relative(rel)
    if rel.startswith(TOPICS_DIR + "/") and (wrong := topic_problem(rel)) is not None:
        raise UnsafePathError(f"{rel} cannot be a topic file: {wrong}")
    parts = Path(rel).parts
    in_memory_dir = (
        len(parts) > 1
        and parts[0] == "memory"
        and rel.endswith(".md")
        and not any(p.startswith(".") for p in parts)
    )
    if rel in MEMORY_FILES or is_topic(rel) or in_memory_dir:
        return rel
    raise UnsafePathError(
        f"{path!r} is not a memory file: only SOUL.md, USER.md and Markdown files under "
        "memory/ can be read or written (history is reached with recall)"
    )


def check_kind(kind: str) -> None:
    """``CommandError`` unless ``kind`` is an ``EditKind``."""
    if kind not in ("manual", "agent"):
        raise CommandError(f"an edit's kind is 'manual' or 'agent', not {kind!r}")


# -- the steps every edit takes --------------------------------------------------------------------


@contextmanager
def edit_section(ws: Workspace) -> Iterator[None]:
    """What an edit holds from its read to its commit: the write fence's lock (see the module
    doc). A first write creates the workspace's state folder."""
    from ..dream.fence import section_lock

    ws.state_dir.mkdir(parents=True, exist_ok=True)
    with section_lock(ws.state_dir):
        yield


def archive_entry(ws: Workspace, rel: str, texts: Sequence[str], note: str) -> tuple[str, str]:
    """``rel``'s archive file and its text with ``texts`` (lines as bare text) appended under
    today, each with ``note`` (the archive's one format: ``reverie.dream.archive``)."""
    from ..dream.archive import append_entries, archive_path, entry_line

    archive = archive_path(rel)
    entries = [entry_line(text, note) for text in texts]
    return archive, append_entries(ws.read(archive), rel, entries, date.today())


def _removed(ws: Workspace, rel: str, lines: Sequence[str], how: str) -> tuple[str, str]:
    """``archive_entry`` for the lines ``lines`` removed ``how`` (by hand, by an agent, and why)."""
    from ..text.memline import bare_line

    note = f"removed {date.today().isoformat()} {how}"
    return archive_entry(ws, rel, [bare_line(raw) for raw in lines], note)


def judged(
    base: Mapping[str, str],
    files: Mapping[str, str],
    config: Config,
    what: str,
    own_removals: Mapping[str, list[str]] | None = None,
) -> None:
    """Dream's gate over an edit of ``base`` into ``files``; ``GateError`` (``what`` refused: the
    gate's reason) when it refuses."""
    from ..dream.gate import check

    verdict = check(dict(base), dict(files), (), config.dream, own_removals=own_removals)
    if not verdict.ok:
        raise GateError(f"{what} refused: {verdict.reason}")


# -- the two edits ---------------------------------------------------------------------------------


def write(
    rt: Services,
    rel: str,
    text: str,
    *,
    kind: EditKind = "manual",
    message: str | None = None,
    base: str | None = None,
    create: Callable[[], None] | None = None,
) -> WriteResult:
    """Replace the memory file ``rel`` (a ``memory_path``) with ``text`` as ``kind``'s edit:
    redacted, judged, lines taken out of a prompt file archived, committed with that kind; an
    agent's SOUL.md change staged for approval instead. ``base``: the content id of the text the
    edit was made from (merged over what changed since). ``create`` makes the workspace once the
    edit passed its checks (a scope's first write creates it)."""
    from ..dream.proposal import stage_soul_change
    from ..security.secrets import redact
    from .files import removed_lines

    check_kind(kind)
    if kind == "agent" and rel.startswith(ARCHIVE_DIR + "/"):
        raise UnsafePathError(
            f"{rel} is the archive: lines reach it through remove, an agent does not rewrite it"
        )
    ws, git = rt.workspace, rt.git
    if rel.startswith(TOPICS_DIR + "/"):  # a topic file keeps within its budget (storage.topics)
        budget = rt.config.memory.topics
        check_topic(ws, rel, text, max_chars=budget.max_file_chars, max_files=budget.max_files)
    if create is not None:
        create()
    new = redact(text)
    with edit_section(ws):
        current = ws.read(rel)
        merged = base is not None and content_id(current) != base
        if merged:
            new = _over(rt, rel, base or "", current, new)
        if new == current:
            return WriteResult(rel, None, content_id=content_id(current), merged=merged)
        judged({rel: current}, {rel: new}, rt.config, f"{kind} edit")
        if rel == SOUL and kind == "agent":
            reason = message or "an agent's edit"
            stage_soul_change(ws, base=current, proposed=new, reason=reason, head=git.head())
            return WriteResult(
                rel, None, staged=True, content_id=content_id(current), merged=merged
            )
        files, read = {rel: new}, {rel: current}
        gone = removed_lines(current, new) if rel in MEMORY_FILES else []
        if gone:
            said = f" ({' '.join(message.split())})" if message else ""
            archive, after = _removed(ws, rel, gone, f"by {_WHO[kind]} in an edit{said}")
            files[archive], read[archive] = after, ws.read(archive)
        git.ensure()
        # base: a pin committed since the read (pins take no run lock) is merged, not overwritten
        sha = git.commit(message or f"{kind}: edit {rel}", kind=kind, files=files, base=read)
        return WriteResult(
            rel,
            sha,
            archived=tuple(raw.strip() for raw in gone),
            content_id=content_id(ws.read(rel)),
            merged=merged,
        )


def _over(rt: Services, rel: str, base: str, current: str, yours: str) -> str:
    """``yours`` (an edit made from the text whose content id is ``base``) merged over
    ``current``; ``EditConflictError`` when they touch the same lines, or when the base text is
    not in the memory repo (nothing to merge from)."""
    from ..gitstore.merge import merge3

    original = rt.git.text_of(base)
    if original is None:
        raise EditConflictError(
            f"{rel} changed since it was read, and the version it was read at ({base[:12]!r}) "
            "is not in the memory repo to merge from: nothing was written; read it again",
            path=rel,
            yours=yours,
            current=current,
            base=None,
            current_id=content_id(current),
        )
    try:
        return merge3(original, current, yours, path=rel)
    except MergeConflictError as exc:
        where = f" (lines {exc.lines[0]}-{exc.lines[1]})" if exc.lines else ""
        raise EditConflictError(
            f"{rel} changed since it was read, on the lines this edit changes{where}: "
            "nothing was written; both versions are in the error",
            path=rel,
            yours=yours,
            current=current,
            base=original,
            current_id=content_id(current),
            lines=exc.lines,
        ) from None


def remove(
    rt: Services, rel: str, line: str, *, reason: str, kind: EditKind = "manual"
) -> RemoveResult:
    """Take the line of the prompt file ``rel`` that reads ``line`` out into the archive with
    ``reason`` (said, one line), in one commit judged by the gate."""
    from ..text.memline import holds_text, line_key

    check_kind(kind)
    why = " ".join(reason.split())
    if rel not in MEMORY_FILES:
        raise WorkspaceError(f"lines are removed from {', '.join(MEMORY_FILES)}, not {rel}")
    if rel == SOUL and kind == "agent":
        raise WorkspaceError(
            "an agent does not remove SOUL.md lines: write the change, which waits for approval"
        )
    if not why:
        raise CommandError("say why the line leaves (the archive keeps the reason)")
    ws, git = rt.workspace, rt.git
    key = line_key(line)
    with edit_section(ws):
        text = ws.read(rel)
        rows = text.split("\n")
        hits = [i for i, raw in enumerate(rows) if holds_text(raw) and line_key(raw) == key]
        if not key or not hits:
            raise WorkspaceError(f"no line of {rel} reads {line!r}")
        raw = rows.pop(hits[0])
        archive, after = _removed(ws, rel, [raw], f"by {_WHO[kind]} ({why})")
        files = {rel: "\n".join(rows), archive: after}
        base = {rel: text, archive: ws.read(archive)}
        judged(base, files, rt.config, f"{kind} removal", own_removals={rel: [raw]})
        git.ensure()
        sha = git.commit(f"{kind}: archive a line of {rel}", kind=kind, files=files, base=base)
    return RemoveResult(rel, raw.strip(), archive, sha)
