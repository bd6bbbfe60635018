"""System prompts: package-data markdown (``reverie/prompts/<task>.md``), overridable per workspace.

Lookup for ``load_prompt(task, workspace)``, first found wins:

1. ``<workspace>/prompts/<task>.md``;
2. for the Dream tasks (``dream-analyze``, ``dream-edit``), ``<workspace>/prompts/dream.md``: either
   one prompt used for both phases, or several blocks each starting with its task line (``# Reverie
   task: dream-edit``), of which the block for ``task`` is taken;
3. the packaged ``reverie/prompts/<task>.md``.

The protocol's task line (``protocol.task_line``) is always the first line of the result, added when
an override omits it, so the offline engine and any reader can tell the task. An unreadable or empty
override is skipped with a warning rather than failing the call.
"""

from __future__ import annotations

import logging
import os
import re
from importlib import resources
from pathlib import Path

from ..errors import UnsafePathError
from ..storage.workspace import Workspace
from . import protocol

log = logging.getLogger(__name__)

__all__ = ["load_prompt", "packaged_prompt"]

_TASK_LINE_RE = re.compile(r"^# Reverie task: ([a-z-]+)\s*$", re.M)


def packaged_prompt(task: str) -> str:
    """The packaged prompt for ``task`` (task line first)."""
    protocol.task_line(task)  # validates the task name
    text = resources.files("reverie").joinpath("prompts", f"{task}.md").read_text(encoding="utf-8")
    return _with_task_line(task, text)


def load_prompt(task: str, workspace: Workspace | str | os.PathLike[str] | None = None) -> str:
    """The system prompt for ``task``: the workspace's override when there is one, else the packaged
    one.

    ``workspace`` is a ``Workspace``, a path, or None (packaged prompt only).
    """
    protocol.task_line(task)
    root = _root(workspace)
    if root is not None:
        own = _read(root, f"prompts/{task}.md")
        if own:
            return _with_task_line(task, own)
        if task in (protocol.TASK_DREAM_ANALYZE, protocol.TASK_DREAM_EDIT):
            shared = _read(root, "prompts/dream.md")
            if shared:
                return _with_task_line(task, _block_for(task, shared))
    return packaged_prompt(task)


def _root(workspace: Workspace | str | os.PathLike[str] | None) -> Path | None:
    if workspace is None:
        return None
    # before .root: a Path's .root is its anchor ("/")
    if isinstance(workspace, (str, os.PathLike)):
        return Path(workspace)
    return Path(workspace.root)


def _read(root: Path, rel: str) -> str | None:
    try:
        # Through Workspace.resolve: an override symlinked out of the workspace is refused, not
        # read.
        path = Workspace(root).resolve(rel)
    except UnsafePathError as exc:
        log.warning("prompt override skipped: %s", exc)
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("prompt override %s skipped: %s", path, exc)
        return None
    if not text.strip():
        log.warning("prompt override %s is empty: using the packaged prompt", path)
        return None
    return text


def _block_for(task: str, text: str) -> str:
    """The part of a multi-task file that belongs to ``task``; the whole text when it has no task
    lines."""
    marks = list(_TASK_LINE_RE.finditer(text))
    if not marks:
        return text
    for i, m in enumerate(marks):
        if m.group(1) == task:
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            return text[m.start() : end]
    # The file names other tasks only: it is not meant for this one.
    return packaged_prompt(task)


def _with_task_line(task: str, text: str) -> str:
    line = protocol.task_line(task)
    body = text.lstrip("\ufeff")
    first, _, rest = body.partition("\n")
    if first.strip() == line:
        return body
    # Drop a different task line the override may carry, so the prompt names exactly one task first.
    if _TASK_LINE_RE.fullmatch(first.strip()):
        body = rest
    return f"{line}\n{body}"
