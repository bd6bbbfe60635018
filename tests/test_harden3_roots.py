"""A root of scopes and a workspace are never made one inside the other: ``--root WORKSPACE
--user X`` (and ``reverie.open(root=WORKSPACE, user=X)``) would nest users inside a workspace, and
``-w ROOT init`` would turn a root into a workspace; each is refused in one line that says what
the folder is and what to give instead, and nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.cli import invoke

import reverie
from reverie.errors import WorkspaceError


def _files(root: Path) -> set[str]:
    return {str(Path(d, f).relative_to(root)) for d, _, fs in os.walk(root) for f in fs}


def test_a_root_and_a_workspace_are_never_nested(tmp_path: Path) -> None:
    root, ws = tmp_path / "root", tmp_path / "ws"
    assert invoke("--root", str(root), "--user", "alice", "history", "append", "hi").returncode == 0
    assert invoke("-w", str(ws), "init").returncode == 0
    before = (_files(root), _files(ws))
    for argv, says in [
        (("-w", str(root), "init"), "is a root of workspaces"),
        (("-w", str(root), "history", "append", "hi"), "is a root of workspaces"),
        (("--root", str(ws), "--user", "x", "history", "append", "hi"), "is a workspace"),
        (("--root", str(ws), "--user", "x", "status"), "is a workspace, not a root of scopes"),
    ]:
        done = invoke(*argv)
        assert done.returncode != 0, argv
        assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    with pytest.raises(WorkspaceError, match="is a workspace"):
        reverie.open(root=ws, user="x")
    assert (_files(root), _files(ws)) == before
