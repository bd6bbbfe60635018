"""Claude Code's memory brought into a workspace (``reverie import PATH --from claude-code``), each
file read as what it is in Claude Code:

- **instructions**: ``CLAUDE.md`` (alone, in a project folder, or in ``.claude/``) and
  ``CLAUDE.local.md`` are loaded into every Claude Code session: each becomes a topic file
  ``memory/topics/claude-code/<name>`` and its statements are remembered (history), so Dream weighs
  them for the prompt files as it weighs anything said;
- **rules** (``.claude/rules/**/*.md``, or ``rules/`` of ``~/.claude``): topic files under
  ``memory/topics/claude-code/rules/``; the statements of a rule without ``paths:`` in its front
  matter (loaded always) are remembered, a path-scoped rule's are not (Claude Code loads it only
  for matching files: it stays a file to read when needed);
- **auto memory** (``~/.claude/projects/<project>/memory/``, or that folder itself): its
  ``MEMORY.md`` index and topic files become topic files under
  ``memory/topics/claude-code/memory/``; the index's own statements are remembered, never its
  links to topic files (an index entry is not a fact) nor any front matter.

Front matter stays in the files (it is part of them) and is never taken for a fact. Every file is
redacted of credentials; one that is not UTF-8, is a link, or is too large is named in the result
and left out, and so are the other Markdown files of a project folder (``README.md``,
``CHANGELOG.md``: the project's documents, not Claude's memory). Everything lands in one commit
whose message names the source (``reverie restore --only`` takes it out again); importing the same
files again changes nothing and remembers nothing twice.

**Importing again** never overwrites what changed here since (an agent's ``str_replace``, a
person's edit): the source's change since the import that wrote a file is merged over the file as
it is now (a three-way merge from that import's text), and only statements new in the source are
remembered. A line the source no longer has leaves the file for the archive
(``memory/archive/files.md``, noted "gone from the source at a re-import of <source>", where
``why`` finds it), in the same commit. Where both changed the same lines — or a file of that name
was not written by an import — the file is left as it is here and named in the result.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from ...errors import MergeConflictError, WorkspaceError
from ...gitstore.merge import merge3
from ...operations.files import archived_lines, removed_lines
from ...operations.portability import ImportResult, commit_import
from ...storage.workspace import TOPICS_DIR
from ..core import Memory
from ._read import Intake, facts, strip_front_matter

__all__ = ["import_claude_code", "PREFIX", "MAX_FILES"]

#: Where the imported files go, under the topic files.
PREFIX = f"{TOPICS_DIR}/claude-code"
#: Most files one import reads.
MAX_FILES = 1_000
_INSTRUCTIONS = ("CLAUDE.md", "CLAUDE.local.md")
_SESSION_KEY = "import:claude-code"


def _found(root: Path) -> list[tuple[Path, str, bool]]:
    """(file, its topic path, remembered) of every Claude Code memory file at ``root``."""
    out: list[tuple[Path, str, bool]] = []
    if root.is_file():
        return [(root, f"{PREFIX}/{root.name}", True)]
    auto = root if (root / "MEMORY.md").is_file() else root / "memory"
    if (auto / "MEMORY.md").is_file():
        for path in sorted(auto.glob("*.md")):
            out.append((path, f"{PREFIX}/memory/{path.name}", path.name == "MEMORY.md"))
    for where in (root, root / ".claude"):
        for name in _INSTRUCTIONS:
            if (where / name).exists() or (where / name).is_symlink():
                out.append((where / name, f"{PREFIX}/{name}", True))
    for rules in (root / ".claude" / "rules", root / "rules"):
        if rules.is_dir() and not rules.is_symlink():
            for path in sorted(rules.rglob("*.md")):
                rel = path.relative_to(rules).as_posix()
                out.append((path, f"{PREFIX}/rules/{rel}", False))
    return out


_IMPORTED = "import: claude-code memory"


def _imported_text(memory: Memory, rel: str) -> str | None:
    """``rel`` as the newest import that wrote it left it (the base of the next import's merge), or
    None when no import in its recent versions wrote it."""
    git = memory.runtime.git
    if not git.exists:
        return None
    for commit in git.log(limit=50, path=rel):
        if commit.subject.startswith(_IMPORTED):
            return git.file_at(commit.sha, rel)
    return None


def _scoped(text: str) -> bool:
    """A rule whose front matter names ``paths:`` (Claude Code loads it only for those files)."""
    head = text[: len(text) - len(strip_front_matter(text))]
    return any(line.strip().lower().startswith("paths:") for line in head.splitlines())


def _located(root: Path) -> list[tuple[Path, str, bool]]:
    """The memory files found at ``root`` (``_found``); ``WorkspaceError`` when none, or too
    many."""
    if not root.exists():
        raise WorkspaceError(f"no Claude Code memory at {root}")
    found = _found(root)
    if not found:
        raise WorkspaceError(
            f"no Claude Code memory at {root} (looked for CLAUDE.md, CLAUDE.local.md, "
            ".claude/rules/ and an auto-memory folder with MEMORY.md)"
        )
    if len(found) > MAX_FILES:
        raise WorkspaceError(f"{root} holds {len(found):,} memory files (at most {MAX_FILES:,})")
    return found


def _read_all(
    root: Path, found: list[tuple[Path, str, bool]], intake: Intake
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Each found file's text by its path here, and the facts to remember by file; a project
    document beside them is skipped by name."""
    taken = {path for path, _, _ in found}
    if root.is_dir():
        for path in sorted(root.glob("*.md")):
            if path not in taken and path.name not in _INSTRUCTIONS:
                intake.skip(path.name, "a project document, not Claude Code memory")
    files: dict[str, str] = {}
    remember: dict[str, list[str]] = {}
    for path, rel, remembered in found:
        text = intake.read(path, str(path.relative_to(root)) if root.is_dir() else path.name)
        if text is None:
            continue
        files[rel] = text
        if remembered or (rel.startswith(f"{PREFIX}/rules/") and not _scoped(text)):
            remember[rel] = facts(text)
    return files, remember


def _merged(
    memory: Memory,
    files: dict[str, str],
    remember: dict[str, list[str]],
    intake: Intake,
    labels: dict[str, str],
) -> dict[str, str]:
    """Merge each imported file over the one here (in place in ``files``; one that conflicts is
    skipped), dropping facts an earlier import remembered; returns the files here as they were
    read before the merge (the commit's base)."""
    here: dict[str, str] = {}
    for rel in list(files):
        if not (memory.workspace.root / rel).is_file():
            continue
        now = here[rel] = memory.workspace.read(rel)
        source, last = files[rel], _imported_text(memory, rel)
        if rel in remember:  # what an earlier import remembered is not remembered twice
            known = (
                set(facts(last)) if last is not None else set(facts(now) if now == source else ())
            )
            remember[rel] = [line for line in remember[rel] if line not in known]
        try:
            files[rel] = merge3(last or "", now, source, path=rel)
        except MergeConflictError:
            del files[rel]
            remember.pop(rel, None)
            why = (
                "changed here since it was imported and in the source, on the same lines"
                if last is not None
                else "a file of that name is here and no import wrote it"
            )
            intake.skip(labels[rel], f"{rel}: {why}; left as it is here (merge it by hand)")
    return here


def import_claude_code(memory: Memory, source: str | os.PathLike[str]) -> ImportResult:
    """Bring the Claude Code memory at ``source`` (a ``CLAUDE.md``, a project folder, ``~/.claude``,
    a ``~/.claude/projects/<project>`` folder or its ``memory/``) into ``memory``'s workspace (see
    the module doc)."""
    root = Path(source).expanduser().absolute()
    found = _located(root)
    intake = Intake()
    files, remember = _read_all(root, found, intake)
    memory.init()
    labels = {rel: str(p.relative_to(root)) if root.is_dir() else p.name for p, rel, _ in found}
    here = _merged(memory, files, remember, intake, labels)
    changed = {rel: text for rel, text in files.items() if here.get(rel) != text}
    base = {rel: here[rel] for rel in files if rel in here}
    # A line the source no longer has leaves the file for the archive, with that reason (``why``
    # finds it there), in the import's one commit.
    gone = {
        rel: "\n".join(lines)
        for rel in changed
        if rel in here and (lines := removed_lines(here[rel], changed[rel]))
    }
    archive, dropped = archived_lines(
        memory.workspace, gone, f"gone from the source at a re-import of {root}", date.today()
    )
    for rel, text in archive.items():
        base[rel], changed[rel] = memory.workspace.read(rel), text
    sha = commit_import(
        memory.workspace,
        f"{_IMPORTED} from {root} ({len(files)} file(s))"
        + (f", {dropped} line(s) archived" if dropped else ""),
        changed,
        base=base,
    )
    items = 0
    for lines in remember.values():
        for line in lines:
            memory.remember(line, session_key=_SESSION_KEY)
            items += 1
    size = sum(len(text.encode("utf-8")) for text in files.values())
    return ImportResult(
        memory.workspace.root,
        len(files),
        size,
        commits=[sha] if sha else [],
        items=items,
        skipped=tuple(intake.skipped),
        redacted=intake.redacted,
    )
