"""The foundation commands as a user runs them: init, status, history append/show, and user
errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from support.cli import invoke


def ok(*args: str):
    proc = invoke(*args)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_init_then_status_json(tmp_path):
    ws = tmp_path / "ws"
    created = json.loads(ok("-w", str(ws), "init", "--json").stdout)
    assert created == {"workspace": str(ws), "created": ["SOUL.md", "USER.md", "memory/MEMORY.md"]}
    assert "already initialised" in ok("-w", str(ws), "init").stdout
    status = json.loads(ok("-w", str(ws), "status", "--json").stdout)
    assert status["initialised"] is True
    assert (status["last_cursor"], status["dream_cursor"], status["pending"]) == (0, 0, 0)
    assert set(status["files"]) == {"SOUL.md", "USER.md", "memory/MEMORY.md"}
    assert status["model"] == "reverie/offline"


def test_workspace_from_environment(tmp_path):
    ws = tmp_path / "envws"
    proc = invoke("init", env={"REVERIE_WORKSPACE": str(ws)})
    assert proc.returncode == 0 and (ws / "SOUL.md").exists()


def test_history_append_and_show(tmp_path):
    w = ["-w", str(tmp_path / "ws")]
    ok(*w, "init")
    assert ok(*w, "history", "append", "first entry").stdout.strip() == "1"
    assert json.loads(
        ok(*w, "history", "append", "second [bold]x[/]", "--session", "cli:ann", "--json").stdout
    ) == {"cursor": 2}
    ok(*w, "history", "append", "third")
    shown = json.loads(ok(*w, "history", "show", "--since", "1", "--limit", "1", "--json").stdout)
    assert [(e["cursor"], e["content"], e["session_key"]) for e in shown] == [
        (2, "second [bold]x[/]", "cli:ann")
    ]
    text = ok(*w, "history", "show").stdout
    assert (
        "first entry" in text and "second [bold]x[/]" in text and "cli:ann" in text
    )  # markup shown literally
    status = json.loads(ok(*w, "status", "--json").stdout)
    assert (status["last_cursor"], status["pending"]) == (3, 3)


def test_status_reports_a_corrupt_dream_cursor_without_failing(tmp_path):
    ws = tmp_path / "ws"
    ok("-w", str(ws), "init")
    (ws / "memory" / ".dream_cursor").write_text("oops")
    status = json.loads(ok("-w", str(ws), "status", "--json").stdout)
    assert status["dream_cursor"] is None and "corrupt" in status["problems"][0]


def test_status_skips_a_malformed_dream_record_with_a_warning(tmp_path):
    """dream-status.json is advisory: a record missing a key or holding a wrong type reads as
    absent, with a warning, instead of an internal error (a KeyError in the status table, before its
    records were typed)."""
    ws = tmp_path / "ws"
    ok("-w", str(ws), "init")
    state = ws / "memory" / ".reverie"
    state.mkdir(parents=True, exist_ok=True)
    (state / "dream-status.json").write_text(
        json.dumps(
            {
                "last_run": {"status": "ok"},  # no time, no batch
                "last_rejection": {
                    "time": "2026-11-01T00:00:00+00:00",
                    "first": "1",
                    "last": 2,
                    "reason": None,
                },
                "model_unavailable": {"since": 5, "reason": None},
            }
        )
    )
    shown = ok("-w", str(ws), "status")
    assert "last dream" not in shown.stdout and "last rejection" not in shown.stdout
    assert "unreachable" not in shown.stdout
    for key in ("last_run", "last_rejection", "model_unavailable"):
        assert f"'{key}' is malformed" in shown.stderr
    status = json.loads(ok("-w", str(ws), "status", "--json").stdout)
    assert (
        status["dream_last_run"],
        status["dream_last_rejection"],
        status["dream_model_unavailable"],
    ) == (None, None, None)


@pytest.mark.parametrize(
    ("setup", "args", "fragment"),
    [
        ("file", ["status"], "not a directory"),
        ("file", ["init"], "not a directory"),
        ("badconfig", ["status"], "intervalH = 0"),
        ("badjson", ["history", "show"], "not valid JSON"),
        ("dream", ["history", "append", "x"], None),  # not an error: appends still work
    ],
)
def test_user_errors_exit_1_with_one_line_and_no_traceback(tmp_path, setup, args, fragment):
    ws = tmp_path / "ws"
    if setup == "file":
        ws.write_text("not a dir")
    else:
        ok("-w", str(ws), "init")
    if setup == "badconfig":
        (ws / "reverie.json").write_text('{"agents": {"defaults": {"dream": {"intervalH": 0}}}}')
    if setup == "badjson":
        (ws / "reverie.json").write_text("{oops")
    if setup == "dream":
        (ws / "memory" / ".dream_cursor").write_text("oops")
    proc = invoke("-w", str(ws), *args)
    if fragment is None:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reverie: error:") and fragment in lines[0]
    assert "Traceback" not in proc.stderr


_IMPORTS = """
import sys
from reverie.cli import main
code = main(sys.argv[1:])
print("LITELLM" if "litellm" in sys.modules else "CLEAN", file=sys.stderr)
raise SystemExit(code)
"""


@pytest.mark.parametrize("args", [["init"], ["history", "append", "x"], ["history", "show"]])
def test_foundation_commands_do_not_import_litellm(tmp_path, args):
    (tmp_path / "ws").mkdir()  # `history show` names a folder that is no workspace (an error)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTS, "-w", str(tmp_path / "ws"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("CLEAN")


def test_a_scope_workspace_dreamed_under_its_root_is_initialised(tmp_path):
    """A scope's workspace has no starter files (its root makes it, Dream writes what it learns):
    status must not tell its operator to run ``reverie init`` there."""
    scope = ("--root", str(tmp_path / "root"), "--user", "zoe")
    ok(*scope, "history", "append", "User: I live in Lisbon.")
    ok(*scope, "dream")
    status = json.loads(ok(*scope, "status", "--json").stdout)
    assert status["initialised"] is True and status["dream_cursor"] == 1
    assert "not initialised" not in ok(*scope, "status").stdout
    # a plain directory nobody initialised still says so
    (tmp_path / "bare" / "memory").mkdir(parents=True)
    assert (
        json.loads(ok("-w", str(tmp_path / "bare"), "status", "--json").stdout)["initialised"]
        is False
    )
