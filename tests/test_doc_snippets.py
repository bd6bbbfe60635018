"""Every ```python block in README.md and docs/*.md runs as written, so the docs cannot drift from
the code.

Each snippet runs in its own interpreter with HOME in a temp dir (so ``~/my-agent/workspace`` is a
scratch workspace), no Reverie config or model in the environment (the offline engine answers), and
no network: a connection to anything but loopback raises. A snippet must be plain Python (no
top-level ``await``); anything it needs it defines itself.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# Runs before each snippet: refuse every connection that is not to loopback (a snippet must not need
# a network).
NO_NETWORK = """\
import socket as _socket

_connect = _socket.socket.connect

def _local_only(self, address, *args):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") and not host.startswith("/"):
        raise OSError(f"doc snippet tried to reach {host!r}: snippets must run offline")
    return _connect(self, address, *args)

_socket.socket.connect = _local_only
del _socket
"""


def _snippets() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        for n, m in enumerate(BLOCK.finditer(path.read_text("utf-8")), 1):
            found.append((f"{path.relative_to(ROOT)}#{n}", m.group(1)))
    return found


SNIPPETS = _snippets()


def test_the_snippets_the_docs_rely_on_are_collected():
    """The collector finds the snippets of the pages that have them (so an empty run cannot pass)."""
    files = {name.split("#")[0] for name, _ in SNIPPETS}
    assert {
        "README.md",
        "docs/api.md",
        "docs/consolidator.md",
        "docs/dream.md",
        "docs/recall.md",
        "docs/versioning.md",
        "docs/commands.md",
        "docs/models.md",
    } <= files


@pytest.mark.parametrize(("name", "code"), SNIPPETS, ids=[name for name, _ in SNIPPETS])
def test_snippet_runs_as_written(name, code, tmp_path):
    compile(code, name, "exec")  # a top-level await (or any syntax error) fails here, with the line
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("REVERIE_", "OPENAI_", "ANTHROPIC_"))
    }
    env.update(
        HOME=str(home),
        REVERIE_HOME=str(home / ".reverie"),
        PYTHONDONTWRITEBYTECODE="1",
        NO_COLOR="1",
        PYTHONPATH=str(ROOT),
    )
    script = tmp_path / "snippet.py"
    script.write_text(NO_NETWORK + "\n" + code, "utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"{name} failed:\n{code}\n--- stderr ---\n{proc.stderr[-3000:]}"


@pytest.mark.parametrize("doc", ["README.md", "docs/commands.md"])
def test_command_list_names_every_command(doc):
    """The command block under "## Commands" names every command the CLI has (reverie.cli.COMMANDS)."""
    from reverie.cli import COMMANDS

    text = (ROOT / doc).read_text("utf-8")
    block = re.search(r"^## Commands\n.*?^```\n(.*?)^```", text, re.S | re.M).group(1)
    listed = set(re.findall(r"^\s{2}(\w[\w-]*)", block, re.M)) | set(
        re.findall(r"/ (\w[\w-]*)", block)
    )
    missing = [name for name, _, _ in COMMANDS if name not in listed]
    assert not missing, f"{doc}'s command list lacks {missing}"


def test_relative_links_point_at_files_that_exist():
    """A page moved or renamed cannot leave a dangling link in README.md or docs/."""
    dangling = []
    for path in DOCS:
        for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text("utf-8")):
            target = m.group(1)
            if "://" not in target and not (path.parent / target).exists():
                dangling.append(f"{path.relative_to(ROOT)} → {target}")
    assert not dangling
