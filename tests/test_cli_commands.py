"""The CLI as a user runs it (subprocess): exit codes, --json output, and which modules the fast commands import."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli

_PROBE = """
import sys
from reverie.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
heavy = sorted(m for m in ("litellm", "openai", "tiktoken", "apscheduler") if m in sys.modules)
sys.stderr.write("\\nHEAVY=" + ",".join(heavy) + "\\n")
raise SystemExit(code)
"""


def probe(*args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run the CLI in a child and report which heavy modules it imported."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, timeout=60)
    marker = proc.stderr.rsplit("HEAVY=", 1)
    assert len(marker) == 2, proc.stderr
    heavy = [m for m in marker[1].strip().split(",") if m]
    return proc, heavy


@pytest.mark.parametrize("args", [["--help"], ["status"], ["status", "--json"]])
def test_fast_commands_do_not_import_litellm(tmp_path, args):
    proc, heavy = probe("-w", str(tmp_path / "ws"), *args)
    assert proc.returncode == 0, proc.stderr
    assert heavy == []


def test_unknown_command_is_a_usage_error():
    proc = run_cli("dreem")
    assert proc.returncode == 2  # argparse's own usage error
    assert "invalid choice" in proc.stderr


def test_restore_flags_without_sha_is_a_user_error(tmp_path):
    proc = run_cli("-w", str(tmp_path / "ws"), "restore", "--only")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "reverie: error: --only and --replay need a sha"
    assert "Traceback" not in proc.stderr


def test_status_json_parses(tmp_path):
    proc = run_cli("-w", str(tmp_path / "ws"), "status", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["workspace"] == str(tmp_path / "ws")
