"""The mistakes a newcomer makes at the command line, each answered with one line that says what to
do: a workspace that does not exist (a typo in ``-w``, ``reverie init`` not run yet), an extra that
is not installed, a command or option mistyped or given without its argument, an import into a
folder that is in use or of a folder without ``--from``; and what a newcomer does without it being
a mistake: `reverie mcp` typed at a terminal and stopped with Ctrl-C, a second export the same
day, ``--limit`` where the API says ``limit``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator

import pytest
from support.cli import invoke

# Commands that read or change a workspace's memory: on a folder that does not exist, each says so
# and names `reverie init`, and creates nothing there (`dream` said "nothing-to-do", `approve`
# and `reject` made `memory/` in the mistyped folder).
ON_A_WORKSPACE = [
    ["dream"],
    ["approve"],
    ["reject"],
    ["requeue"],
    ["consolidate"],
    ["search", "Lisbon"],
    ["index"],
    ["history", "show"],  # printed "(no entries)" as though the workspace were empty
]


@pytest.mark.parametrize("command", ON_A_WORKSPACE, ids=" ".join)
def test_a_missing_workspace_is_named_with_the_command_that_creates_it(tmp_path, command):
    missing = tmp_path / "reverie-tutorail"  # a typo
    done = invoke("-w", missing, *command)
    assert done.returncode == 1
    assert done.stderr == (
        f"reverie: error: no workspace at {missing} (create one with `reverie init`)\n"
    )
    assert done.stdout == ""
    assert not missing.exists()


def test_commands_on_an_existing_workspace_still_run(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    for command in ON_A_WORKSPACE:
        done = invoke("-w", ws, *command)
        assert done.returncode == 0, (command, done.stderr)


@pytest.fixture
def without() -> Iterator[Callable[..., None]]:
    """``without(name, reimport=(prefix,))``: make a module unimportable, as when an extra is not
    installed, and drop reverie's modules under ``prefix`` so they are imported afresh. Afterwards
    ``sys.modules`` is put back as it was, so later tests see the same module objects."""
    saved = dict(sys.modules)

    def block(name: str, reimport: tuple[str, ...]) -> None:
        for loaded in [n for n in sys.modules if n.startswith((f"{name}.", *reimport))]:
            del sys.modules[loaded]  # a module of it, or one of reverie's that imports it
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError

    yield block
    sys.modules.clear()
    sys.modules.update(saved)
    for name, module in saved.items():
        # a module imported afresh was also set on its package (``reverie.ui``): put the saved one
        # back there too, or a later test patching ``reverie.ui.serve_root`` patched the fresh
        # module while the command read the saved one, and ran a real server forever
        parent, _, child = name.rpartition(".")
        held = vars(saved[parent]) if saved.get(parent) is not None else {}
        if module is not None and child in held and held[child] is not module:
            setattr(saved[parent], child, module)


def test_ui_without_its_extra_names_the_install_command(tmp_path, without):
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    for missing in ("jinja2", "uvicorn"):  # uvicorn, imported when the server starts, was a crash
        without(missing, reimport=("reverie.ui",))
        done = invoke("-w", ws, "ui", "--no-browser", "--port", "0")
        assert done.returncode == 1
        assert done.stderr == (
            f"reverie: error: reverie ui needs the `ui` extra ({missing} is missing): "
            "pip install 'reverie[ui]'\n"
        )


def test_mcp_without_its_extra_names_the_install_command(tmp_path, without):
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    without("mcp", reimport=("reverie.mcp",))
    done = invoke("-w", ws, "mcp")
    assert done.returncode == 1
    assert done.stderr == (
        "reverie: error: reverie mcp needs the `mcp` extra (mcp is missing): "
        "pip install 'reverie[mcp]'\n"
    )


def test_why_without_text_is_a_usage_error_on_stderr(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    done = invoke("-w", ws, "why")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("reverie why: error: give the TEXT of a memory line")
    assert "`reverie why Lisbon`" in done.stderr and done.stderr.count("\n") == 1


def test_import_into_a_folder_in_use_names_the_flag_that_replaces_it(tmp_path):
    ws, bundle = tmp_path / "ws", tmp_path / "ws.tar.gz"
    assert invoke("-w", ws, "init").returncode == 0
    assert invoke("-w", ws, "export", bundle).returncode == 0
    done = invoke("-w", ws, "import", bundle)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "is not empty" in done.stderr and "--replace" in done.stderr
    assert invoke("-w", ws, "import", bundle, "--replace").returncode == 0


def test_a_mistyped_option_gets_a_did_you_mean_and_the_commands_usage(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    done = invoke("-w", ws, "history", "show", "--sinse", "3")
    assert done.returncode == 2
    assert done.stderr.startswith("usage: reverie history show ")
    assert done.stderr.endswith(
        "reverie history show: error: unrecognized arguments: --sinse 3; did you mean --since?\n"
    )
    far = invoke("-w", ws, "status", "--bogus")  # nothing close: no guess
    assert far.returncode == 2
    assert far.stderr.endswith("reverie status: error: unrecognized arguments: --bogus\n")


def test_reverie_alone_says_where_to_start():
    done = invoke()
    assert done.returncode == 2
    assert done.stderr.startswith("usage: reverie ")
    assert done.stderr.endswith(
        "reverie: error: no command given: `reverie --help` lists them; "
        "`reverie init` makes a workspace\n"
    )


def test_ctrl_c_stops_mcp_while_stdin_is_open_and_idle(tmp_path):
    """`reverie mcp` typed at a terminal (or launched by a client that keeps stdin open) waits in
    a read of stdin; Ctrl-C stopped it only once another line came, as anyio joins the worker
    thread blocked in that read."""
    import signal
    import subprocess

    from support.cli import cli_env

    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    server = subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(ws), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    )
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
        )
        server.stdin.flush()
        assert b'"id":1,"result"' in server.stdout.readline()  # serving, and reading stdin again
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)  # not a timing: a server that does not stop would hang the test
        except subprocess.TimeoutExpired:
            pytest.fail("reverie mcp went on serving after SIGINT while stdin stayed open")
        assert server.returncode == -signal.SIGINT
        assert server.stderr is not None and server.stderr.read() == b"reverie: interrupted\n"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_mcp_at_a_terminal_says_what_it_is_waiting_for(tmp_path):
    """Typed at a terminal, `reverie mcp` printed nothing and waited for JSON-RPC."""
    import os
    import pty
    import select
    import signal
    import subprocess

    from support.cli import cli_env

    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    leader, terminal = pty.openpty()
    server = subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(ws), "mcp"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    )
    os.close(terminal)
    try:
        assert server.stderr is not None
        # not a timing: a server that says nothing would leave readline waiting for ever
        if not select.select([server.stderr], [], [], 30)[0]:
            pytest.fail("reverie mcp at a terminal said nothing")
        said = server.stderr.readline().decode()
        assert said.startswith(f"reverie mcp: serving {ws} on stdin/stdout, for an MCP client")
        assert "`reverie init --for CLIENT`" in said and "Ctrl-C stops it" in said
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)  # not a timing: guards the test against a server that stays
        assert server.stdout is not None and server.stdout.read() == b""  # the wire stays clean
    finally:
        os.close(leader)
        if server.poll() is None:
            server.kill()
            server.wait()


def test_a_second_export_the_same_day_keeps_the_first(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    first = invoke("-w", ws, "export", cwd=tmp_path)
    assert invoke("-w", ws, "history", "append", "I moved to Rome.").returncode == 0
    second = invoke("-w", ws, "export", cwd=tmp_path)
    bundles = sorted(p.name for p in tmp_path.glob("reverie-ws-*.tar.gz"))
    assert first.returncode == second.returncode == 0 and len(bundles) == 2, bundles
    assert bundles[0].endswith("-2.tar.gz") and bundles[0] in second.stdout
    assert invoke("-w", tmp_path / "copy", "import", tmp_path / bundles[1]).returncode == 0
    assert not (tmp_path / "copy" / "memory" / "history.jsonl").exists()  # the first, unchanged


def test_importing_a_folder_without_from_names_the_option(tmp_path):
    nanobot = tmp_path / "nanobot-workspace"
    assert invoke("-w", nanobot, "init").returncode == 0
    done = invoke("-w", tmp_path / "new", "import", nanobot)
    assert done.returncode == 1 and done.stderr == (
        f"reverie: error: {nanobot} is a folder, not a bundle: to bring in another tool's memory, "
        "name it with --from (nanobot, claude-code, mem0)\n"
    )
    assert invoke("-w", tmp_path / "new", "import", nanobot, "--from", "nanobot").returncode == 0


def test_limit_is_the_name_for_how_many_in_log_and_search_as_in_history_show(tmp_path):
    """`history show --limit N` and the API's ``limit=``; `log` knew only ``-n`` and `search` only
    ``-k``, so `reverie log --limit 3` was an unrecognized argument."""
    ws = tmp_path / "ws"
    assert invoke("-w", ws, "init").returncode == 0
    for text in ("I live in Lisbon.", "I work in Lisbon."):
        assert invoke("-w", ws, "history", "append", text).returncode == 0
    assert invoke("-w", ws, "dream").returncode == 0
    assert len(json.loads(invoke("-w", ws, "log", "--json").stdout)) == 2  # init, dream
    log = invoke("-w", ws, "log", "--limit", "1", "--json")
    assert log.returncode == 0 and len(json.loads(log.stdout)) == 1
    found = invoke("-w", ws, "search", "Lisbon", "--limit", "1", "--json")
    assert found.returncode == 0 and len(json.loads(found.stdout)) == 1


def test_status_of_a_scope_not_written_yet_says_its_first_write_creates_it(tmp_path):
    """`reverie init` there is not what a scope needs (every verb creates it): status said to run
    it, without even the --root and --user that reach the scope."""
    root = tmp_path / "memory"
    done = invoke("--root", root, "--user", "carol", "status")
    assert done.returncode == 0
    first = done.stdout.splitlines()[0]
    assert first.endswith("(no memory yet: the scope's first write creates it)"), first
    assert "reverie init" not in done.stdout
    assert "not initialised: run `reverie init`" in invoke("-w", tmp_path / "ws", "status").stdout
