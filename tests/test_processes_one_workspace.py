"""Several processes on one workspace, and a process SIGKILLed while a real model (the litellm
adapter against a scripted OpenAI-compatible server on 127.0.0.1) is thinking, then reopened.

The fault this was written for: two processes sharing one conversation key (a CLI chat and a web
app), each recording and clearing it. A ``clear`` that loaded the conversation before the other
cleared it consolidated its stale copy (every message into history a second time) and then cleared
as many messages from the file as its copy held: the other's newer messages, never consolidated,
were gone (two processes, 30 messages each: 15 twice in history, 3 lost).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer, Step, chat, tool_call_reply

import reverie
from reverie.storage.config import Config

SHARED = """
import json, sys
import reverie
root, tag = sys.argv[1], sys.argv[2]
out = {"errors": [], "sent": []}
with reverie.open(root) as memory:
    for r in range(12):
        text = f"I visited city number {tag}{r} yesterday with my sister."
        memory.record("shared", [{"role": "user", "content": text}], consolidate=False)
        out["sent"].append(f"{tag}{r}")
        if r % 3 == 2:
            try:
                memory.clear("shared")
            except reverie.ReverieError as exc:
                out["errors"].append(str(exc))
print(json.dumps(out))
"""


def test_two_processes_recording_and_clearing_one_conversation_lose_and_repeat_nothing(tmp_path):
    root = tmp_path / "ws"
    with reverie.open(root) as memory:
        memory.init()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SHARED, str(root), tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in "AB"
    ]
    outs = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=240)
        assert proc.returncode == 0, stderr[-3000:]
        outs.append(json.loads(stdout))
    assert [o["errors"] for o in outs] == [[], []]
    with reverie.open(root) as memory:
        history = "\n".join(e.content for e in memory.history())
        left = json.dumps(memory.messages("shared"))
    for tag in (t for o in outs for t in o["sent"]):
        seen = len(re.findall(rf"number {tag}\b", history + left))
        assert seen == 1, f"message {tag} is in history or the conversation {seen} times"


CHILD = """
import asyncio, sys
import reverie
from reverie.storage.config import Config
root, base, verb = sys.argv[1], sys.argv[2], sys.argv[3]
config = Config.model_validate({
    "agents": {"defaults": {"model": "openai/test-model", "contextWindowTokens": 16384,
                            "maxTokens": 1024}},
    "providers": {"openai": {"apiKey": "sk-test-KILL0123456789", "apiBase": base}},
    "llm": {"timeout": 60, "maxRetries": 0, "retryBudget": 60},
})
with reverie.open(root, config=config) as memory:
    print(memory.dream().status if verb == "dream" else memory.clear("cli:kill"), flush=True)
"""

WORDS = [
    "I adopted a cat called Miso last week.",
    "My sister Ana moved to Berlin in March.",
    "I am training for the Lisbon half marathon.",
]


def _config(base: str) -> dict:
    return {
        "agents": {"defaults": {"model": "openai/test-model", "contextWindowTokens": 16384}},
        "providers": {"openai": {"apiKey": "sk-test-KILL0123456789", "apiBase": base}},
        "llm": {"timeout": 60, "maxRetries": 0, "retryBudget": 60},
    }


def _history(root: Path) -> bytes:
    path = root / "memory" / "history.jsonl"
    return path.read_bytes() if path.exists() else b""


def _kill_when(server: OpenAIServer, requests: int, proc: _Forked) -> None:
    """SIGKILL ``proc`` once the server holds its ``requests``-th model call (which it answers only
    after the kill)."""
    deadline = time.monotonic() + 90
    while len(server.chat_requests) < requests:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the child never called the model"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


#: A process that imports Reverie and litellm (through Reverie, with its switches) once, then forks
#: a child for each line it reads (a JSON list: CHILD's argv), prints the child's pid and, when the
#: child has ended, its exit status as ``subprocess`` gives it. The child sends its output to
#: ``<root>.out`` and ``<root>.err``. A fresh interpreter importing litellm for each kill cost ~10 s
#: of CPU; the child is still a process of its own, SIGKILLed while the model thinks.
FORKS = """
import json, os, sys, threading
import reverie
from reverie.llm._litellm import get_litellm
from reverie.storage.config import Config
get_litellm()
assert threading.active_count() == 1, "a thread exists: forking would be unsafe"
for line in sys.stdin:
    argv = json.loads(line)
    pid = os.fork()
    if pid == 0:
        for fd, name in ((1, ".out"), (2, ".err")):
            os.dup2(os.open(argv[0] + name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        sys.argv = ["-c", *argv]
        code = 0
        try:
            exec(compile(CHILD, "<child>", "exec"), {"__name__": "__main__"})
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    print(pid, flush=True)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


class _Forked:
    """A child of the fork server, with what the tests ask of a ``subprocess.Popen``."""

    def __init__(self, forks: subprocess.Popen[str], root: Path, argv: list[str]) -> None:
        assert forks.stdin is not None and forks.stdout is not None
        self._forks, self._root = forks, root
        forks.stdin.write(json.dumps([str(root), *argv]) + "\n")
        forks.stdin.flush()
        self.pid = int(forks.stdout.readline())
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)  # the server reaps the child at once: gone is ended
            except ProcessLookupError:
                return self.wait()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            assert self._forks.stdout is not None
            self.returncode = int(self._forks.stdout.readline())
        return self.returncode

    def communicate(self) -> tuple[str, str]:
        self.wait()
        return Path(f"{self._root}.out").read_text(), Path(f"{self._root}.err").read_text()


@pytest.fixture(scope="module")
def forks() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", f"CHILD = {CHILD!r}\n{FORKS}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    yield proc
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


def _child(forks: subprocess.Popen[str], root: Path, server: OpenAIServer, verb: str) -> _Forked:
    return _Forked(forks, root, [server.base_url, verb])


def test_killed_while_the_model_summarises_new_then_new_again_keeps_each_message_once(
    tmp_path, forks
):
    """``/new`` (``clear``) SIGKILLed while the model writes the summary: reopened, the
    conversation is whole and history has nothing of it; ``clear`` again puts each message in
    history once."""
    root = tmp_path / "ws"
    with reverie.open(root) as memory:
        memory.init()
        memory.record(
            "cli:kill", [{"role": "user", "content": w} for w in WORDS], consolidate=False
        )
    before = _history(root)
    with OpenAIServer() as server:
        server.enqueue(Step(delay=20))
        _kill_when(server, 1, _child(forks, root, server, "clear"))
        config = Config.model_validate(_config(server.base_url))
        with reverie.open(root, config=config) as memory:
            assert _history(root) == before
            assert [m["content"] for m in memory.messages("cli:kill")] == WORDS
            server.enqueue(chat("- [durable] Has a cat called Miso\n- [skip] the rest"))
            memory.clear("cli:kill")
            history = "\n".join(e.content for e in memory.history())
            assert memory.messages("cli:kill") == []
    assert history.count("- [durable] Has a cat called Miso") == 1
    for words in WORDS:  # the facts left unsaid are kept as the user's own words, once
        assert history.count(words) <= 1 and words.split()[-2] in history, (words, history)


def test_killed_while_the_model_edits_dream_runs_the_batch_again_whole(tmp_path, forks):
    """Dream SIGKILLed in its edit step: reopened, the memory files, the cursor and history are as
    they were, no state is left half-written, and the next run commits the batch once."""
    root = tmp_path / "ws"
    with reverie.open(root) as memory:
        memory.init()
        for w in WORDS:
            memory.remember(f"User: {w}")
    files = {p: (root / p).read_bytes() for p in ("USER.md", "SOUL.md", "memory/MEMORY.md")}
    history = (root / "memory" / "history.jsonl").read_bytes()
    cat = json.dumps({"path": "USER.md", "old_text": "", "new_text": "- Has a cat called Miso\n"})
    with OpenAIServer() as server:
        server.enqueue(chat("[USER] Has a cat called Miso"), Step(delay=20))
        _kill_when(server, 2, _child(forks, root, server, "dream"))
        config = Config.model_validate(_config(server.base_url))
        with reverie.open(root, config=config) as memory:
            assert {p: (root / p).read_bytes() for p in files} == files
            assert (root / "memory" / "history.jsonl").read_bytes() == history
            assert memory.pending() == len(WORDS)
            assert memory.faults() == []
            server.enqueue(
                chat("[USER] Has a cat called Miso"),
                tool_call_reply("edit_file", cat),
                chat("done"),
            )
            result = memory.dream()
            assert result.commit and memory.pending() == 0, (result.status, result.reason)
            assert memory.read("USER.md").count("- Has a cat called Miso") == 1
            assert [c.kind for c in memory.log(limit=10)].count("dream") == 1
            assert memory.runtime.git.dirty() == []
    assert (root / "memory" / "history.jsonl").read_bytes() == history


def test_a_dated_file_swapped_for_a_symlink_after_its_check_is_never_written_through(
    tmp_path, monkeypatch
):
    """The flush appends to ``memory/<day>.md`` after ``Workspace.resolve`` checked the path;
    another process swapping a symlink in between (simulated: the check passes it) is refused,
    and the file it points to is untouched (before: the append followed the link)."""
    from reverie.operations import memfiles
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.init()
    outside = tmp_path / "outside.md"
    outside.write_text("not memory\n")
    (ws.memory_dir / "2026-11-28.md").symlink_to(outside)
    monkeypatch.setattr(Workspace, "resolve", lambda self, rel, **kw: self.root / rel)
    with pytest.raises(OSError, match="symbolic link"):
        memfiles._append_facts(ws, "memory/2026-11-28.md", "2026-11-28", ["Has a cat"])
    assert outside.read_text() == "not memory\n"
