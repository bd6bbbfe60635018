"""The CLI as a user runs it: exit codes and --json output, in process (`support.cli.invoke`); a
real process where it is the point (what a fresh interpreter imports; SIGTERM to `serve`). Start-up
time: test_cli_startup."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT
from support.cli import invoke


def test_help_imports_neither_config_nor_locks(tmp_path):
    code = (
        "import sys\nfrom reverie.cli import build_parser\nbuild_parser()\nprint(sorted(m for m in"
        " ('pydantic', 'filelock', 'asyncio', 'dulwich', 'litellm') if m in sys.modules))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.strip() == "[]"


def test_log_show_restore_why_gc_json(tmp_path):
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    from reverie.memory.runtime import Runtime

    rt = Runtime(ws)
    sha = rt.git.commit(
        "dream: entries 1-2",
        kind="dream",
        trailers={"Reverie-Batch": "1-2", "Reverie-Cursor": "2"},
        files={"USER.md": "# User\n- Lives in Porto\n"},
    )
    log = json.loads(invoke("-w", ws, "log", "--json").stdout)
    assert [c["kind"] for c in log] == ["dream", "init"] and log[0]["sha"] == sha
    assert json.loads(invoke("-w", ws, "log", "--kind", "dream", "--json").stdout)[0]["sha"] == sha
    shown = json.loads(invoke("-w", ws, "show", sha[:8], "--json").stdout)
    assert shown["info"]["sha"] == sha and "+- Lives in Porto" in shown["diff"]
    assert json.loads(invoke("-w", ws, "log", sha[:8], "--json").stdout)["info"]["sha"] == sha
    why = json.loads(invoke("-w", ws, "why", "Porto", "--json").stdout)
    assert why[0]["sha"] == sha and why[0]["cursor_range"] == [1, 2]
    restored = json.loads(invoke("-w", ws, "restore", sha[:8], "--json").stdout)
    assert restored["commit"] and "Porto" not in (tmp_path / "ws" / "USER.md").read_text()
    listing = json.loads(invoke("-w", ws, "restore", "--json").stdout)
    assert listing[0]["kind"] == "restore"
    assert json.loads(invoke("-w", ws, "gc", "--json").stdout) == {"ok": True}
    text = invoke("-w", ws, "show", sha[:8])
    assert text.returncode == 0 and "+- Lives in Porto" in text.stdout


def test_unknown_sha_is_a_user_error(tmp_path):
    ws = str(tmp_path / "ws")
    proc = invoke("-w", ws, "show", "deadbeef")
    assert proc.returncode == 1
    assert proc.stderr.startswith("reverie: error:") and len(proc.stderr.strip().splitlines()) == 1


def test_unknown_command_is_a_usage_error_with_a_suggestion():
    proc = invoke("dreem")
    assert proc.returncode == 2  # argparse's own usage error
    assert "unknown command 'dreem'; did you mean 'dream'?" in proc.stderr
    proc = invoke("xyzzy")
    assert proc.returncode == 2 and "`reverie --help` lists the commands" in proc.stderr


def test_global_options_go_before_or_after_the_command(tmp_path):
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    assert invoke("history", "append", "-w", ws, "note one").returncode == 0
    for argv in (
        ["--json", "-w", ws, "status"],
        ["status", "-w", ws, "--json"],
        ["-w", ws, "status", "--json"],
    ):
        proc = invoke(*argv)
        assert proc.returncode == 0, (argv, proc.stderr)
        assert '"last_cursor": 1' in proc.stdout, argv
    proc = invoke("history", "show", "--limit", "1", "-w", ws, "--json")
    assert proc.returncode == 0 and '"note one"' in proc.stdout
    proc = invoke("--json", "chat", "-w", ws)
    assert proc.returncode == 2 and "--json is not available for `chat`" in proc.stderr


def test_nonsensical_numbers_are_refused_with_what_is_allowed(tmp_path):
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    for argv, said in (
        (["search", "-k", "-1", "x"], "must be from 1 to 1,000, not -1"),
        (["log", "-n", "0"], "must be at least 1, not 0"),
        (["history", "show", "--since", "-3"], "must be at least 0, not -3"),
        (["history", "show", "--limit", "many"], "expected a whole number, not 'many'"),
    ):
        proc = invoke("-w", ws, *argv)
        assert proc.returncode == 2 and said in proc.stderr, (argv, proc.stderr)


def test_approve_and_reject_agree_when_nothing_is_pending(tmp_path):
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    for command in ("approve", "reject"):
        proc = invoke("-w", ws, command)
        assert proc.returncode == 0 and "no SOUL.md proposal is waiting" in proc.stdout, (
            command,
            proc.stderr,
        )
        proc = invoke("-w", ws, command, "--json")
        assert proc.returncode == 0 and '"pending": false' in proc.stdout


def test_init_creates_the_memory_repo(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    import subprocess

    log = subprocess.run(
        ["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True
    )
    assert log.returncode == 0 and log.stdout.strip().startswith("init")


def test_restore_flags_without_sha_is_a_user_error(tmp_path):
    proc = invoke("-w", str(tmp_path / "ws"), "restore", "--only")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "reverie: error: --only and --replay need a sha"
    assert "Traceback" not in proc.stderr


def test_status_json_parses(tmp_path):
    proc = invoke("-w", str(tmp_path / "ws"), "status", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["workspace"] == str(tmp_path / "ws")


def test_consolidate_over_budget_then_one_session(tmp_path):
    ws = tmp_path / "ws"
    from reverie.consolidator import SessionStore
    from reverie.storage.workspace import Workspace

    workspace = Workspace(ws)
    workspace.init()
    sessions = SessionStore(workspace)
    big, small = sessions.get_or_create("cli:big"), sessions.get_or_create("cli:small")
    for i in range(30):
        sessions.append(
            big, {"role": "user", "content": f"I prefer tea number {i}. " + "filler words " * 20}
        )
        sessions.append(big, {"role": "assistant", "content": "Noted."})
    sessions.append(small, {"role": "user", "content": "Remember that my cat is called Miso."})
    small_env = {
        "REVERIE_AGENTS__DEFAULTS__CONTEXT_WINDOW_TOKENS": "2048",
        "REVERIE_AGENTS__DEFAULTS__MAX_TOKENS": "768",
    }
    proc = invoke("-w", str(ws), "consolidate", "--json", env=small_env)
    assert proc.returncode == 0, proc.stderr
    by_key = {r["session_key"]: r for r in json.loads(proc.stdout)}
    assert by_key["cli:big"]["rounds"] > 0 and by_key["cli:big"]["cursors"]
    assert by_key["cli:small"]["rounds"] == 0  # under budget: untouched
    proc = invoke("-w", str(ws), "consolidate", "cli:small", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["archived"] == [1]
    history = (ws / "memory" / "history.jsonl").read_text()
    assert "Miso" in history
    proc = invoke("-w", str(ws), "consolidate", "cli:nobody")
    assert proc.returncode == 1 and "no session 'cli:nobody'" in proc.stderr


def _serve(ws) -> subprocess.Popen[str]:
    """`reverie -w WS serve` in a real process (signals are the point), its output unbuffered."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(ws), "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT),
    )


def test_serve_runs_due_dream_and_stops_on_sigterm(tmp_path):
    import signal
    import time

    ws = tmp_path / "ws"
    assert (
        invoke(
            "-w", str(ws), "history", "append", "- [durable] Prefers dark mode dashboards"
        ).returncode
        == 0
    )
    proc = _serve(ws)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            kinds = subprocess.run(
                ["git", "-C", str(ws), "log", "--format=%(trailers:key=Reverie-Kind,valueonly)"],
                capture_output=True,
                text=True,
            ).stdout.split()
            if "dream" in kinds:
                break
            time.sleep(0.2)
        assert "dream" in kinds  # the first scheduled run was due at once (Dream had never run)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGTERM, err  # ended by it, cleanly: $? 143 (harden2)
    assert "scheduled Dream run" in out and "stopped (terminated)" in out
    assert "dark mode" in (ws / "USER.md").read_text()


def test_serve_stops_cleanly_on_ctrl_c_with_its_status(tmp_path):
    """Ctrl-C is how `serve` is meant to stop (like SIGTERM: the run in progress ends, then
    "stopped"), and it ends as every command Ctrl-C stops does, by the signal (a shell's 130):
    docs/commands.md says so."""
    import signal

    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    proc = _serve(ws)
    try:
        assert "(Ctrl-C to stop)" in proc.stdout.readline()
        # running: its first scheduled run (nothing to do) is due at once
        assert "scheduled Dream run" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGINT, err
    assert out.splitlines()[-1] == "reverie serve: stopped (interrupted)"


def test_read_commands_never_create_a_workspace(tmp_path):
    for args in (["log"], ["show", "abcd"], ["why", "x"], ["restore"]):
        proc = invoke("-w", str(tmp_path / "missing"), *args)
        assert proc.returncode == 1 and "no workspace at" in proc.stderr, args
    assert not (tmp_path / "missing").exists()


def test_requeue_with_nothing_set_aside_says_so_and_agrees_with_json(tmp_path):
    """Issue 40: `requeue --all` with nothing set aside exited 1 printing nothing, and 0 with
    --json. Nothing to requeue is not an error (0, one line); a FIRST that starts no set-aside
    batch is (1, one line on stderr), with --json too."""
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    everything = invoke("-w", ws, "requeue", "--all")
    assert (everything.returncode, everything.stdout.strip()) == (0, "no batch is set aside")
    as_json = invoke("-w", ws, "requeue", "--all", "--json")
    assert as_json.returncode == 0
    assert json.loads(as_json.stdout) == {"requeued": [], "not_found": []}
    one = invoke("-w", ws, "requeue", "7")
    assert one.returncode == 1 and one.stdout == ""
    assert one.stderr.strip() == "reverie: error: no set-aside batch starts at 7"
    one_json = invoke("-w", ws, "requeue", "7", "--json")
    assert one_json.returncode == 1
    assert json.loads(one_json.stdout) == {"requeued": [], "not_found": [7]}


def test_the_demos_closing_hint_names_a_command_that_runs_from_here(monkeypatch, tmp_path):
    """Issue 40: the demo ended with `reverie -w … log`, which a shell without the virtual
    environment activated does not find. The hint names what was run: `reverie` only when that
    name on PATH is this program."""
    from reverie.cli.cmd_demo import invocation

    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    script = venv_bin / "reverie"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [".venv/bin/reverie", "demo"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert invocation() == ".venv/bin/reverie"
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin:/bin")
    assert invocation() == "reverie"
    monkeypatch.setattr(sys, "argv", ["/x/reverie/__main__.py", "demo"])
    assert invocation() == f"{sys.executable} -m reverie"


def test_why_with_no_line_is_a_user_error_like_pin_and_its_hint_names_real_cursors(tmp_path):
    """Issue 40: `why TEXT` matching no line exited 0 where `pin TEXT` exits 1 for the same
    mistake; both now exit 1 with one line on stderr (with --json too, after the empty list).
    The hint under a found line named `--since <first-1>`; it now gives the real cursors."""
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    for command in (["why", "Lisbon"], ["pin", "Lisbon"]):
        proc = invoke("-w", ws, *command)
        assert proc.returncode == 1 and proc.stdout == "", command
        assert proc.stderr.startswith("reverie: error: no memory line contains 'Lisbon'"), command
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    as_json = invoke("-w", ws, "why", "Lisbon", "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout) == []
    from reverie.memory.runtime import Runtime

    Runtime(ws).git.commit(
        "dream: entries 3-4",
        kind="dream",
        trailers={"Reverie-Batch": "3-4", "Reverie-Cursor": "4"},
        files={"USER.md": "# User\n- Lives in Porto\n"},
    )
    found = invoke("-w", ws, "why", "Porto")
    assert found.returncode == 0, found.stderr
    assert "reverie history show --since 2 --limit 2" in found.stdout
    assert "<" not in found.stdout.splitlines()[-1]


def test_nothing_to_do_exits_0_with_one_line_and_a_missing_thing_exits_1(tmp_path):
    """docs/commands.md's rule for exit codes: having nothing to do is not an error (0, one line
    saying so); asking for something that is not there is (1, one line on stderr)."""
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    for command in (["approve"], ["reject"], ["purge", "nothing", "--yes"], ["requeue", "--all"]):
        proc = invoke("-w", ws, *command)
        assert proc.returncode == 0 and proc.stderr == "", (command, proc.stderr)
        assert len(proc.stdout.strip().splitlines()) == 1, (command, proc.stdout)
    for command in (["why", "x"], ["pin", "x"], ["show", "deadbeef"], ["requeue", "3"]):
        proc = invoke("-w", ws, *command)
        assert proc.returncode == 1 and proc.stdout == "", (command, proc.stdout)
        assert len(proc.stderr.strip().splitlines()) == 1, (command, proc.stderr)
