"""The git CLI, the tests' independent checker of a memory repo (never Reverie's own code path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["git", "git_run"]


def git_run(
    repo: Path, *args: str, cwd: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``git`` on ``repo``: a repository directory itself (``.git``, a bare repo) is named with
    ``--git-dir`` (``cwd`` then gives the work tree's place), anything else is ``-C repo``."""
    repo = Path(repo)
    where = (
        [f"--git-dir={repo}"]
        if (repo / "HEAD").is_file() and (repo / "objects").is_dir()
        else ["-C", str(repo)]
    )
    return subprocess.run(
        ["git", *where, *args], capture_output=True, text=True, cwd=cwd, check=check
    )


def git(repo: Path, *args: str, cwd: Path | None = None) -> str:
    """What ``git`` printed (it must succeed)."""
    return git_run(repo, *args, cwd=cwd).stdout
