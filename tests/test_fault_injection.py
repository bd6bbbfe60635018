"""Fault injection through the real client path: a workspace whose model is ``openai/test-model``
with ``api_base`` pointing at a scripted OpenAI-compatible server on 127.0.0.1
(tests/support/openai_server.py), and the real pipeline — ``Dream.run`` and
``Consolidator.consolidate_all`` — while the server misbehaves.

For every fault: no file outside what the run may legitimately touch changes (bytes and mtimes of
every file in the workspace and next to it are compared), ``.dream_cursor`` does not move on
failure, the requests the server saw are bounded (and so is the wall time), and the run result says
why.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.openai_server import OpenAIServer, Step, chat, tool_call_reply

from reverie import MemoryStore
from reverie.consolidator import Consolidator, SessionStore
from reverie.dream import Dream
from reverie.gitstore import GitStore
from reverie.llm import ModelClient
from reverie.llm.replylog import read_replies, replies_path
from reverie.storage.config import Config, ProviderConfig
from reverie.storage.workspace import MEMORY_FILES, Workspace

KEY = "sk-test-FAULTKEY0123456789abcdef"
MEM = "memory/MEMORY.md"
MAX_RETRIES = 2
ATTEMPTS = MAX_RETRIES + 1  # requests one failing model call may make
TIMEOUT = 0.5
BIG = 10 * 1024 * 1024
RETRY_AFTER_MAX = 0.3  # the server asks for 1 s; the config caps it so the file stays fast


@dataclass
class Env:
    root: Path
    ws: Workspace
    store: MemoryStore
    git: GitStore
    config: Config
    srv: OpenAIServer

    def dream(self) -> Dream:
        return Dream(self.store, self.git, ModelClient(self.config), self.config)

    def consolidator(self) -> Consolidator:
        return Consolidator(self.store, ModelClient(self.config), self.config)

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text()


def _config(base_url: str) -> Config:
    cfg = Config.model_validate(
        {
            "agents": {
                "defaults": {
                    "model": "openai/test-model",
                    "contextWindowTokens": 4096,
                    "maxTokens": 1024,
                    "dream": {"maxAttempts": 100, "maxSeconds": 30},
                }
            },
            "providers": {"openai": {"apiKey": KEY, "apiBase": base_url}},
            "llm": {
                "timeout": TIMEOUT,
                "maxRetries": MAX_RETRIES,
                # ample: a failing call is bounded by maxRetries (the exact request counts below),
                # never by how many attempts a loaded machine fits in a few seconds
                "retryBudget": 60.0,
                "backoffBase": 0.05,
                "backoffMax": 0.1,
                "retryAfterMax": RETRY_AFTER_MAX,
            },
            "memory": {"history": {"fsync": False}},
        }
    )
    assert cfg.providers["openai"] == ProviderConfig(api_key=KEY, api_base=base_url)
    return cfg


@pytest.fixture(scope="module", autouse=True)
def _warm_litellm():
    """litellm's first call imports its provider modules synchronously (seconds on a loaded
    machine), which no per-attempt timeout can interrupt; do it once, generously, so the faults
    below measure the steady state."""
    with OpenAIServer() as srv:
        srv.enqueue(chat("warm"))
        cfg = _config(srv.base_url)
        cfg.llm.timeout = 120
        cfg.llm.retry_budget = 120
        assert (
            asyncio.run(ModelClient(cfg).complete([{"role": "user", "content": "hi"}])).content
            == "warm"
        )


@pytest.fixture
def env(tmp_path: Path):
    with OpenAIServer() as srv:
        root = tmp_path / "ws"
        ws = Workspace(root)
        ws.init()
        config = _config(srv.base_url)
        store = MemoryStore(ws, config=config)
        git = GitStore(ws, config.git)
        git.ensure()
        # Files a misbehaving run must never touch: unrelated workspace files and a canary next to
        # the workspace.
        (root / "notes").mkdir()
        (root / "notes" / "todo.md").write_text("- buy milk\n")
        (root / "AGENTS.md").write_text("# Agents\n")
        (tmp_path / "outside.md").write_text("canary\n")
        for i in range(3):
            store.append_history(f"- [durable] User fact number {i}: likes tea", "cli:test")
        yield Env(root, ws, store, git, config, srv)


# -- helpers ---------------------------------------------------------------------------------------
def snapshot(base: Path, skip: tuple[str, ...] = ()) -> dict[str, tuple[bytes, int]]:
    """Every file under ``base`` (the workspace's parent) with its bytes and mtime, except paths
    under ``skip``."""
    out = {}
    for dirpath, _dirs, files in os.walk(base):
        for name in files:
            p = Path(dirpath) / name
            rel = p.relative_to(base).as_posix()
            if any(rel == s or rel.startswith(s.rstrip("/") + "/") for s in skip):
                continue
            out[rel] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def changed(before: dict, after: dict) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def _time_for_10mb(env: Env) -> None:
    """A 10 MB reply's transfer and parsing within one attempt: ``TIMEOUT`` (0.5 s) is sized for the
    small replies of the fault tests, and a loaded machine went past it on 10 MB, so the call was
    retried and these tests failed (all three did with ``TIMEOUT`` at 0.05 s). Their subject is the
    size, not the timeout; ``took`` still bounds the run."""
    env.config.llm.timeout = 30
    env.config.llm.retry_budget = 30


def dream_run(env: Env):
    t0 = time.monotonic()
    result = asyncio.run(env.dream().run())
    return result, time.monotonic() - t0


def analysis(text: str = "[MEMORY] User likes tea") -> Step:
    return chat(text)


def edit_call(path: str, old: str = "", new: str = "- likes tea\n", call_id: str = "c1") -> Step:
    import json

    return tool_call_reply(
        "edit_file", json.dumps({"path": path, "old_text": old, "new_text": new}), call_id
    )


def git_fsck(root: Path) -> None:
    subprocess.run(
        ["git", "-C", str(root), "fsck", "--no-progress"], check=True, capture_output=True
    )


# -- Dream: transport faults -----------------------------------------------------------------------
TRANSPORT = {
    "429-retry-after": (lambda: Step(429, headers={"Retry-After": "1"}), "429"),
    "500": (lambda: Step(500), "500"),
    "hang": (lambda: Step(delay=TIMEOUT * 4), "time"),
    "dropped-connection": (lambda: Step(close=True), ""),
    "truncated-json": (lambda: Step(body=chat("x" * 2000).body, truncate=200), ""),
}


@pytest.mark.parametrize("phase", ["analyze", "edit"])
@pytest.mark.parametrize("fault", sorted(TRANSPORT))
def test_dream_transport_fault_writes_nothing_and_keeps_the_cursor(
    env: Env, fault: str, phase: str
) -> None:
    make, says = TRANSPORT[fault]
    prefix = [analysis()] if phase == "edit" else []
    env.srv.enqueue(*prefix, *[make() for _ in range(ATTEMPTS + 5)])
    head, cursor = env.git.head(), env.store.dream_cursor()
    before = snapshot(
        env.root.parent,
        skip=(
            "ws/memory/.reverie",
            "ws/.git/reverie/lock",
        ),
    )

    result, _took = dream_run(env)

    assert result.status == "failed", result
    assert (
        result.reason
        and result.reason.startswith("model")
        and says.lower() in result.reason.lower()
    )
    assert KEY not in result.reason and KEY[10:] not in result.reason
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=(
                    "ws/memory/.reverie",
                    "ws/.git/reverie/lock",
                ),
            ),
        )
        == set()
    )
    assert env.store.dream_cursor() == cursor and env.git.head() == head
    assert len(env.srv.chat_requests) == len(prefix) + ATTEMPTS  # retried, and bounded
    # An outage past the retry budget is the provider's fault, not the batch's: no attempt counted
    # (issue 21); a provider that never answers is told as such (issue 41).
    assert result.attempts == 0 and result.reason.startswith("model unavailable:")
    assert ("is not answering" in result.reason) == (fault == "hang")


def test_dream_recovers_after_429_and_500(env: Env) -> None:
    env.srv.enqueue(
        Step(429, headers={"Retry-After": "1"}),
        analysis(),
        Step(500),
        edit_call(MEM),
        chat("Done."),
    )
    result, took = dream_run(env)
    assert result.status == "ok", result.reason
    assert env.read(MEM).endswith("- likes tea\n")
    assert env.store.dream_cursor() == 3 and result.commit == env.git.head()
    assert len(env.srv.chat_requests) == 5
    gap = env.srv.chat_requests[1].at - env.srv.chat_requests[0].at
    assert gap >= RETRY_AFTER_MAX  # Retry-After honoured, up to retryAfterMax
    git_fsck(env.root)


# -- Dream: model garbage --------------------------------------------------------------------------
def _memory_and_state(env: Env) -> tuple[dict[str, str], str | None, int]:
    return {rel: env.read(rel) for rel in MEMORY_FILES}, env.git.head(), env.store.dream_cursor()


@pytest.mark.parametrize(
    "args",
    [
        '{"path": "memory/MEMORY.md", "old_text": ',  # truncated
        '["not", "an", "object"]',
        '{"path": 7, "old_text": [], "new_text": {}}',
        '{"path": "memory/MEMORY.md"}',  # required arguments missing
        "\x00\udcff",
    ],
)
def test_dream_malformed_tool_arguments_end_the_run_without_writes(env: Env, args: str) -> None:
    env.srv.enqueue(analysis(), *[tool_call_reply("edit_file", args, f"c{i}") for i in range(20)])
    mem, head, cursor = _memory_and_state(env)
    before = snapshot(
        env.root.parent,
        skip=(
            "ws/memory/.reverie",
            "ws/.git/reverie/lock",
        ),
    )
    result, _ = dream_run(env)
    assert result.status == "failed" and result.reason, result
    assert result.edits == () and _memory_and_state(env) == (mem, head, cursor)
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=(
                    "ws/memory/.reverie",
                    "ws/.git/reverie/lock",
                ),
            ),
        )
        == set()
    )
    assert (
        len(env.srv.chat_requests) <= 1 + 10
    )  # the repeat limit / iteration cap, not the script, ended it


def test_dream_unknown_tool_names_are_refused(env: Env) -> None:
    names = ["write_file", "exec", "shell", "edit_file ", "../edit_file", "EDIT_FILE", ""]
    env.srv.enqueue(
        analysis(),
        *[
            tool_call_reply(n, '{"path": "memory/MEMORY.md", "content": "pwned"}', f"c{i}")
            for i, n in enumerate(names)
        ],
        chat("Gave up."),
    )
    mem, head, cursor = _memory_and_state(env)
    before = snapshot(
        env.root.parent,
        skip=(
            "ws/memory/.reverie",
            "ws/.git/reverie/lock",
        ),
    )
    result, _ = dream_run(env)
    # Every call was refused; the model then stopped: a completed run with nothing to write.
    assert result.status in ("no-change", "failed"), result
    assert result.edits == () and "pwned" not in env.read(MEM)
    assert _memory_and_state(env)[:2] == (mem, head)
    if result.status == "failed":
        assert _memory_and_state(env)[2] == cursor
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=("ws/memory/.reverie", "ws/.git/reverie/lock", "ws/memory/.dream_cursor"),
            ),
        )
        - SET_ASIDE  # the findings were never written: the batch is set aside for requeue
        == set()
    )


SET_ASIDE = {"ws/memory/dream-deadletter.jsonl"}

HOSTILE_PATHS = [
    "../../etc/passwd",
    "../outside.md",
    "/etc/passwd",
    "memory/history.jsonl",
    "memory/.dream_cursor",
    "memory/../../outside.md",
    "AGENTS.md",
    "notes/todo.md",
    "memory/.reverie/status.json",
    ".git/config",
    "memory/MEMORY.md/../../AGENTS.md",
    "memory\\..\\..\\outside.md",
    "memory/MEMORY.md\x00.txt",
    "~/.bashrc",
    "./../ws/USER.md",
    "//etc/passwd",
    "file:///etc/passwd",
]


def test_dream_path_traversal_attempts_are_refused(env: Env) -> None:
    hostile = [
        *HOSTILE_PATHS,
        str(env.root / "notes" / "todo.md"),
        str(env.root.parent / "outside.md"),
    ]
    env.srv.enqueue(
        analysis(),
        *[edit_call(p, "", "pwned\n", f"c{i}") for i, p in enumerate(hostile)],
        chat("Done."),
    )
    env.config.dream.max_tool_calls = 100
    env.config.dream.max_iterations = 100
    mem, head, cursor = _memory_and_state(env)
    before = snapshot(
        env.root.parent,
        skip=("ws/memory/.reverie", "ws/.git/reverie/lock", "ws/memory/.dream_cursor"),
    )
    result, _ = dream_run(env)
    assert result.status in ("no-change", "failed"), result
    assert result.edits == ()
    assert _memory_and_state(env)[:2] == (mem, head)
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=("ws/memory/.reverie", "ws/.git/reverie/lock", "ws/memory/.dream_cursor"),
            ),
        )
        - SET_ASIDE  # the findings were never written: the batch is set aside for requeue
        == set()
    )
    assert not Path("/etc/passwd").exists() or "pwned" not in Path("/etc/passwd").read_text()
    if result.status == "failed":
        assert env.store.dream_cursor() == cursor


def test_dream_absolute_path_to_a_memory_file_writes_only_that_file(env: Env) -> None:
    """An absolute path, even one naming a memory file, is refused: the model is told so in the tool
    result, the file is untouched, and the run completes without a change (the cursor moves on)."""
    env.srv.enqueue(analysis(), edit_call(str(env.root / MEM), "", "- likes tea\n"), chat("Done."))
    skip = ("ws/memory/.reverie", "ws/.git")
    before = snapshot(env.root.parent, skip=skip)
    result, _ = dream_run(env)
    assert result.status == "no-change" and result.edits == (), result
    assert changed(before, snapshot(env.root.parent, skip=skip)) == {"ws/memory/.dream_cursor"} | (
        SET_ASIDE  # the finding was never written: the batch is set aside for requeue
    )
    tool_results = [
        m for m in env.srv.chat_requests[-1].json["messages"] if m.get("role") == "tool"
    ]
    assert tool_results and all(
        "error" in str(m.get("content", "")).lower() for m in tool_results
    ), tool_results
    git_fsck(env.root)


def test_dream_10mb_analysis_reply(env: Env) -> None:
    _time_for_10mb(env)
    huge = "".join(f"[MEMORY] fact {i} " + "x" * 90 + "\n" for i in range(BIG // 100))
    # Phase 1 cuts the ~100k finding lines to Dream's cap (200 findings of at most 2,000 characters)
    # before phase 2. 200 findings do not fit the model's 4,096-token window, so phase 2 is never
    # sent: the batch is made smaller (its first entry) and analysed again, and this provider then
    # refuses even that prompt as over its window (a 400 naming no number): nothing written, no
    # attempt counted, the batch pending.
    too_long = Step(
        400,
        body={
            "error": {
                "message": "maximum context length exceeded",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
        },
    )
    env.srv.enqueue(Step(body=chat(huge).body), too_long)
    mem, head, cursor = _memory_and_state(env)
    before = snapshot(
        env.root.parent,
        skip=(
            "ws/memory/.reverie",
            "ws/.git/reverie/lock",
        ),
    )
    result, took = dream_run(env)
    assert result.status == "failed" and "context window" in (result.reason or ""), result
    assert len(env.srv.chat_requests) == 2 and result.attempts == 0
    assert result.first == result.last == 1  # the smaller batch
    # The huge reply is kept as evidence, bounded.
    kept = read_replies(env.ws.state_dir)
    assert kept and kept[0].task == "dream-analyze" and kept[0].verdict == "repaired"
    assert replies_path(env.ws.state_dir).stat().st_size < 64_000
    assert _memory_and_state(env) == (mem, head, cursor)
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=(
                    "ws/memory/.reverie",
                    "ws/.git/reverie/lock",
                ),
            ),
        )
        == set()
    )
    assert took < 30


def test_dream_10mb_edit_is_rejected_by_the_gate(env: Env) -> None:
    _time_for_10mb(env)
    env.srv.enqueue(analysis(), edit_call(MEM, "", "y" * BIG), chat("Done."))
    mem, head, cursor = _memory_and_state(env)
    before = snapshot(
        env.root.parent,
        skip=(
            "ws/memory/.reverie",
            "ws/.git/reverie/lock",
        ),
    )
    result, _ = dream_run(env)
    assert result.status == "rejected" and "gate" in (result.reason or ""), result
    assert _memory_and_state(env) == (mem, head, cursor)
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=(
                    "ws/memory/.reverie",
                    "ws/.git/reverie/lock",
                ),
            ),
        )
        == set()
    )


@pytest.mark.parametrize("content", [None, "", "   \n"])
def test_dream_empty_analysis_does_not_skip_the_batch(env: Env, content: str | None) -> None:
    """An empty phase-1 answer is a model fault, not "nothing worth keeping" (that is
    ``[SKIP]``)."""
    env.srv.enqueue(chat(content))
    mem, head, cursor = _memory_and_state(env)
    before = snapshot(
        env.root.parent,
        skip=(
            "ws/memory/.reverie",
            "ws/.git/reverie/lock",
        ),
    )
    result, _ = dream_run(env)
    assert result.status == "failed" and "empty" in (result.reason or ""), result
    assert _memory_and_state(env) == (mem, head, cursor)
    assert (
        changed(
            before,
            snapshot(
                env.root.parent,
                skip=(
                    "ws/memory/.reverie",
                    "ws/.git/reverie/lock",
                ),
            ),
        )
        == set()
    )


def test_dream_empty_final_edit_reply_is_fine(env: Env) -> None:
    env.srv.enqueue(analysis(), edit_call(MEM), chat(None))
    result, _ = dream_run(env)
    assert result.status == "ok", result.reason
    assert env.store.dream_cursor() == 3


# -- Consolidator ----------------------------------------------------------------------------------
def _session(env: Env, turns: int = 3):
    sessions = SessionStore(env.ws)
    s = sessions.get_or_create("cli:fault")
    for t in range(turns):
        sessions.append(s, {"role": "user", "content": f"I moved to Lisbon in turn {t}"})
        sessions.append(s, {"role": "assistant", "content": f"Noted, turn {t}"})
    return s


CONSOLIDATOR_FAULTS = {
    "500": lambda: [Step(500) for _ in range(ATTEMPTS)],
    "429": lambda: [Step(429, headers={"Retry-After": "1"}) for _ in range(ATTEMPTS)],
    "hang": lambda: [Step(delay=TIMEOUT * 4) for _ in range(ATTEMPTS)],
    "dropped-connection": lambda: [Step(close=True) for _ in range(ATTEMPTS)],
    "truncated-json": lambda: [
        Step(body=chat("x" * 2000).body, truncate=100) for _ in range(ATTEMPTS)
    ],
    "empty": lambda: [chat(None)],
    "tool-call-instead-of-text": lambda: [
        tool_call_reply("edit_file", '{"path": "../../etc/passwd"}')
    ],
}


@pytest.mark.parametrize("fault", sorted(CONSOLIDATOR_FAULTS))
def test_consolidator_fault_falls_back_to_a_raw_archive(env: Env, fault: str) -> None:
    session = _session(env)
    steps = CONSOLIDATOR_FAULTS[fault]()
    env.srv.enqueue(*steps)
    mem, head, cursor = _memory_and_state(env)
    history_before = env.store.history.read_since(0)
    # The consolidator may append to history.jsonl and move the session's offset; nothing else.
    skip = (
        "ws/memory/.reverie",
        "ws/.git/reverie/lock",
        "ws/memory/history.jsonl",
        "ws/memory/.cursor",
        "ws/sessions",
    )
    before = snapshot(env.root.parent, skip=skip)
    result = asyncio.run(env.consolidator().consolidate_all(session))

    assert result.stop == "all-archived", result
    assert result.raw_fallbacks >= 1 and result.failures and all(result.failures), result
    assert changed(before, snapshot(env.root.parent, skip=skip)) == set()
    assert _memory_and_state(env) == (mem, head, cursor)
    assert len(env.srv.chat_requests) == len(
        steps
    )  # one failing call (retries bounded), then raw for the rest
    new = env.store.history.read_since(history_before[-1].cursor)
    text = "\n".join(e.content for e in new)
    assert all(
        f"Lisbon in turn {t}" in text for t in range(3)
    )  # nothing lost: every turn archived raw
    assert all(len(e.content) <= env.config.memory.history.max_entry_chars for e in new)
    assert SessionStore(env.ws).get_or_create("cli:fault").last_consolidated == len(
        session.messages
    )


def test_consolidator_10mb_summary_is_bounded(env: Env) -> None:
    """A 10 MB answer is no fact line (over 500 characters): refused, the slice archived raw, the
    reply kept bounded; nothing else changes."""
    _time_for_10mb(env)
    session = _session(env)
    env.srv.enqueue(chat("- [durable] User moved to Lisbon " + "z" * BIG))
    mem, head, cursor = _memory_and_state(env)
    last = env.store.history.read_since(0)[-1].cursor
    skip = (
        "ws/memory/.reverie",
        "ws/.git/reverie/lock",
        "ws/memory/history.jsonl",
        "ws/memory/.cursor",
        "ws/sessions",
    )
    before = snapshot(env.root.parent, skip=skip)
    result = asyncio.run(env.consolidator().consolidate_all(session))
    assert result.stop == "all-archived" and len(env.srv.chat_requests) == 1
    new = env.store.history.read_since(last)
    assert new and all(
        len(e.content) < env.config.memory.history.max_entry_chars + 200 for e in new
    )
    assert new[0].content.startswith("[RAW]") and "Lisbon" in new[0].content
    assert "zzzzzzzzzz" not in "".join(e.content for e in new)
    assert result.raw_fallbacks == 1 and len(result.kept_replies) == 1
    assert replies_path(env.ws.state_dir).stat().st_size < 64_000
    assert (env.root / "memory" / "history.jsonl").stat().st_size < 1_000_000
    assert changed(before, snapshot(env.root.parent, skip=skip)) == set()
    assert _memory_and_state(env) == (mem, head, cursor)
