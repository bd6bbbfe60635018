"""``reverie chat`` driven through stdin: a scripted model in-process, and the offline engine in a
subprocess."""

from __future__ import annotations

import io
import itertools
import sys

import orjson
from support.cli import invoke

from reverie.cli import main
from reverie.llm import protocol
from reverie.llm.scripted import Prompt, ScriptedModel
from reverie.storage.workspace import Workspace

_counter = itertools.count()


def answer(prompt: Prompt) -> str:
    """Archive calls get a fact line; chat turns get a reply naming what the system prompt knows."""
    if protocol.task_of(prompt.system) == "archive":
        return "- [durable] " + prompt.user.splitlines()[-1][-60:]
    known = [word for word in ("Rex", "Porto", "tea") if word in prompt.system]
    return f"reply to {prompt.user!r}; I know: {', '.join(known) or 'nothing'}"


def chat(workspace: Workspace, lines: list[str], monkeypatch, capsys, *extra: str) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert main(["-w", str(workspace.root), "chat", "--no-schedule", *extra]) == 0
    return capsys.readouterr().out


def session_lines(workspace: Workspace, name: str = "cli_chat.jsonl") -> list[dict]:
    return [orjson.loads(l) for l in (workspace.sessions_dir / name).read_bytes().splitlines()]


def test_scripted_chat_with_memory_and_commands(workspace, fake, monkeypatch, capsys):
    monkeypatch.setenv("REVERIE_MODEL", fake.model)
    fake.responder = answer
    workspace.write("USER.md", "# User\n- Lives in Porto\n")
    from reverie import MemoryStore

    MemoryStore(workspace).append_history("The user's dog is called Rex.")  # not yet dreamed
    out = chat(
        workspace, ["hello there", "/help", "/dream-lgo", "what do you know?"], monkeypatch, capsys
    )
    assert "offline" not in out
    assert "reply to 'hello there'; I know: Rex, Porto" in out
    assert "/dream-restore" in out and "Did you mean /dream-log?" in out.replace("`", "")
    lines = session_lines(workspace)
    assert lines[0]["_type"] == "metadata" and lines[0]["key"] == "cli:chat"
    assert [(m["role"], m["content"][:11]) for m in lines[1:]] == [
        ("user", "hello there"),
        ("assistant", "reply to 'h"),
        ("user", "what do you"),
        ("assistant", "reply to 'w"),
    ]
    # the second turn's prompt carried the first turn (the session is the conversation)
    chat_prompts = [p for p in fake.prompts if protocol.task_of(p.system) is None]
    assert [m["content"] for m in chat_prompts[1].messages if m["role"] == "user"] == [
        "hello there",
        "what do you know?",
    ]


def test_chat_consolidates_under_token_pressure_and_new_archives(
    workspace, fake, monkeypatch, capsys
):
    monkeypatch.setenv("REVERIE_MODEL", fake.model)
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__CONTEXT_WINDOW_TOKENS", "2048")
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__MAX_TOKENS", "256")
    fake.responder = answer
    turns = [f"message {i}: " + "words " * 60 for i in range(12)]
    chat(workspace, turns, monkeypatch, capsys)
    from reverie import MemoryStore

    store = MemoryStore(workspace)
    archived = store.history.read_since(0)
    assert archived, "token pressure should have archived the oldest messages"
    meta = session_lines(workspace)[0]
    assert meta["last_consolidated"] > 0
    out = chat(workspace, ["/new"], monkeypatch, capsys)
    assert "New session started." in out
    assert len(session_lines(workspace)) == 1  # only the metadata line is left
    assert store.history.last_cursor() > archived[-1].cursor


def test_offline_chat_says_so_and_runs_commands(tmp_path):
    ws = tmp_path / "ws"
    proc = invoke("-w", str(ws), "chat", "--no-schedule", input="I live in Porto\n/help\n/dream\n")
    assert proc.returncode == 0, proc.stderr
    assert "offline rule-based engine" in proc.stdout
    assert "/dream-restore" in proc.stdout  # /help ran
    assert "Traceback" not in proc.stderr
    lines = [
        orjson.loads(l) for l in (ws / "sessions" / "cli_chat.jsonl").read_bytes().splitlines()
    ]
    assert [m.get("content") for m in lines[1:]] == ["I live in Porto"]


def test_an_outage_is_told_once_per_turn(tmp_path):
    # The flush before compaction meets the outage first (a warning); the turn's own failure then
    # points at it instead of printing the same sentence again. A later turn, with no warning of its
    # own, names the cause.
    import socket

    with (
        socket.socket() as sock
    ):  # a loopback port nobody listens on: connection refused, no network
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "reverie.json").write_bytes(
        orjson.dumps(
            {
                "agents": {
                    "defaults": {
                        "model": "openai/gpt-4o-mini",
                        "contextWindowTokens": 2400,
                        "maxTokens": 256,
                    }
                },
                "providers": {
                    "openai": {"apiKey": "sk-test", "apiBase": f"http://127.0.0.1:{port}/v1"}
                },
                "llm": {"maxRetries": 0, "timeout": 5},
            }
        )
    )
    said = "".join(
        f"I am telling you story number {i} about boats and the sea"
        " and what happens in Porto every day\n"
        for i in range(3)
    )
    proc = invoke("-w", str(ws), "chat", "--no-schedule", input=said, env={"COLUMNS": "300"})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    err = proc.stderr.splitlines()
    cause = f"cannot reach http://127.0.0.1:{port}/v1"
    assert [ln for ln in err if ln.startswith("warning:")] == [
        "warning: flush of session cli:chat failed: openai/gpt-4o-mini: "
        f"{cause} (connection refused); "
        "start the server or set providers.openai.apiBase"
    ]
    errors = [ln for ln in err if ln.startswith("error:")]
    assert errors[0] == "error: no reply: the model failed for the reason above"
    assert len(errors) == 3 and all(cause in ln for ln in errors[1:])


def test_scheduled_dream_runs_in_the_background_and_reports(workspace):
    import asyncio

    from reverie.chat import ChatAgent
    from reverie.memory.runtime import Runtime

    rt = Runtime(workspace)
    rt.store.append_history("- [durable] Lives in Porto", session_key="cli:chat")
    notes: list[str] = []

    async def main() -> None:
        async def notify(text: str) -> None:
            notes.append(text)

        agent = ChatAgent(rt, notify=notify)
        await agent.start_schedule()  # Dream never ran: the first run is due now
        try:
            for _ in range(600):
                if notes:
                    break
                await asyncio.sleep(0.1)
        finally:
            await agent.close()

    asyncio.run(main())
    assert notes and notes[0].startswith("Scheduled Dream processed entry 1")
    assert rt.git.log(limit=1)[0].kind == "dream" and "Lives in Porto" in rt.store.read_user()


def test_dream_during_a_scheduled_run_waits_for_it_and_dream_log_agrees(workspace):
    import asyncio

    from support.dream_helpers import edit

    from reverie.chat import ChatAgent
    from reverie.llm.scripted import Reply
    from reverie.memory.runtime import Runtime
    from reverie.storage.config import Config

    fake = ScriptedModel.register(f"sched{next(_counter)}", direct=True)
    fake.enqueue(
        Reply("[USER] Lives in Berlin", delay=1.0),
        [edit("USER.md", "", "- Lives in Berlin\n")],
        "done",
    )
    cfg = Config()
    cfg.dream.model_override = fake.model
    rt = Runtime(workspace, config=cfg)
    rt.store.append_history("I moved to Berlin last week.", session_key="cli:chat")
    notes: list[str] = []

    async def main() -> tuple[str, str]:
        async def notify(text: str) -> None:
            notes.append(text)

        agent = ChatAgent(rt, notify=notify)
        await (
            agent.start_schedule()
        )  # Dream never ran: the first run starts now, and takes a second
        try:
            for _ in range(200):
                if agent.router.running("dream"):
                    break
                await asyncio.sleep(0.01)
            assert agent.router.running("dream"), "the scheduled run did not start"
            reply = await agent.respond("/dream")
            log = await agent.respond("/dream-log")
            await asyncio.sleep(0.2)  # room for a (wrong) second report to arrive
            return reply, log
        finally:
            await agent.close()
            ScriptedModel.unregister(fake.name)

    reply, log = asyncio.run(main())
    head = rt.git.log(limit=1)[0]
    assert head.kind == "dream" and "Lives in Berlin" in rt.store.read_user()
    assert reply.startswith(
        "A Dream run was already in progress; it has ended.\nDream processed entry 1"
    )
    assert head.short in reply and head.short in log and "not run yet" not in log
    assert notes == []  # the scheduled run's own notice is not sent as well: one report


def test_a_chat_leaves_no_thread_running(workspace, fake, monkeypatch, capsys):
    """The chat records through a ``Memory`` it opened and closes: the worker threads its turns ran
    on, and a thread a model call started on a worker's loop (a host-name lookup), end with it."""
    import asyncio
    import socket
    import threading

    from reverie.memory import offload

    offload.use_executor(None)  # this chat's threads are new ones
    before = set(threading.enumerate())
    ran_on: set[str] = set()

    def answer_after_a_lookup(prompt: Prompt) -> str:
        ran_on.add(threading.current_thread().name)
        loop = asyncio.get_running_loop()  # as a model client resolves its host
        loop.run_in_executor(None, socket.getaddrinfo, "127.0.0.1", 80)
        return answer(prompt)

    monkeypatch.setenv("REVERIE_MODEL", fake.model)
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__CONTEXT_WINDOW_TOKENS", "2048")
    monkeypatch.setenv("REVERIE_AGENTS__DEFAULTS__MAX_TOKENS", "256")
    fake.responder = answer_after_a_lookup
    chat(
        workspace,
        [f"message {i}: " + "words " * 60 for i in range(8)] + ["/new"],
        monkeypatch,
        capsys,
    )
    assert any(name.startswith("reverie") for name in ran_on), ran_on  # consolidated in a worker
    left = [t for t in threading.enumerate() if t not in before]
    for thread in left:
        thread.join(5)
    assert [t for t in left if t.is_alive()] == []
