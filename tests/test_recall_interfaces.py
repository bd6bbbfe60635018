"""Recall's interfaces: the memory_search tool, auto-recall, memory_search(), and the CLI
commands."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from support.cli import invoke

from reverie.recall import Recall, memory_search
from reverie.recall.tool import SEARCH_MEMORY_TOOL, recall_context, run_search_memory_tool
from reverie.storage.config import Config


def test_tool_schema_is_a_valid_function_tool():
    fn = SEARCH_MEMORY_TOOL["function"]
    assert SEARCH_MEMORY_TOOL["type"] == "function" and fn["name"] == "search_memory"
    params = fn["parameters"]
    assert params["type"] == "object" and params["required"] == ["query"]
    assert set(params["properties"]) == {"query", "k", "kinds", "session", "since", "until"}
    assert params["properties"]["kinds"]["items"]["enum"] == [
        "memory",
        "history",
        "dated",
        "session",
    ]
    orjson.dumps(SEARCH_MEMORY_TOOL)  # serialisable as sent to a model


def test_tool_runs_and_reports_bad_arguments(store):
    store.append_history("the spare key is under the flowerpot", session_key="cli:a")
    recall = Recall.for_store(store)
    out = orjson.loads(asyncio.run(run_search_memory_tool(recall, {"query": "spare key", "k": 3})))
    assert out["hits"][0]["ref"]["cursor"] == 1 and "flowerpot" in out["hits"][0]["snippet"]
    for bad in (
        {},
        {"query": ""},
        {"query": "x", "k": 0},
        {"query": "x", "k": True},
        {"query": "x", "kinds": ["nope"]},
        {"query": "x", "since": "yesterday"},
    ):
        assert "error" in orjson.loads(asyncio.run(run_search_memory_tool(recall, bad)))
    filtered = orjson.loads(
        asyncio.run(run_search_memory_tool(recall, {"query": "key", "kinds": ["session"]}))
    )
    assert filtered["hits"] == []
    recall.close()


def test_auto_recall_is_off_by_default(workspace, store):
    store.append_history("Alice's birthday is on 3 May")
    assert asyncio.run(recall_context(Recall.for_store(store), "when is the birthday?")) == ""
    on = Recall(workspace, Config.model_validate({"memory": {"search": {"autoRecall": True}}}))
    block = asyncio.run(recall_context(on, "when is the birthday?"))
    assert (
        block.startswith("## Recalled memory")
        and "3 May" in block
        and "memory/history.jsonl#cursor=1" in block
    )
    assert len(block.splitlines()) <= 1 + 3


def test_memory_search_function(workspace, store):
    store.append_history("the heron came back to the pond")
    hits = memory_search("heron", k=5, workspace=workspace)
    assert [h.source.cursor for h in hits] == [1]
    assert hits[0].to_dict()["source"] == "memory/history.jsonl#cursor=1"


def test_cli_index_and_search(workspace, store):
    store.append_history("the heron came back to the pond")
    ws = str(workspace.root)
    out = invoke("-w", ws, "index", "--json")
    assert out.returncode == 0, out.stderr
    assert orjson.loads(out.stdout)["history_entries"] == 1
    assert (workspace.memory_dir / ".index.sqlite").exists()
    out = invoke("-w", ws, "search", "heron", "-k", "2", "--json")
    assert out.returncode == 0, out.stderr
    assert orjson.loads(out.stdout)[0]["ref"]["cursor"] == 1
    out = invoke("-w", ws, "search", "heron")
    assert "memory/history.jsonl#cursor=1" in out.stdout
    out = invoke("-w", ws, "index", "--rebuild")
    assert out.returncode == 0 and "rebuilt" in out.stdout
    out = invoke("-w", ws, "search", "x", "--since", "not-a-date")
    assert out.returncode == 1 and "ISO date" in out.stderr


def test_bm25_search_does_not_import_litellm(workspace, store):
    store.append_history("nothing heavy")
    code = (
        "import sys; from reverie.recall import memory_search; memory_search('heavy',"
        f" workspace={str(workspace.root)!r}); print('litellm' in sys.modules)"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_recall_chat_command(workspace, store):
    from reverie.chat.commands import CommandContext, CommandRouter
    from reverie.memory.runtime import Runtime

    store.append_history("the wifi password is on the fridge", session_key="telegram:1")
    router = CommandRouter(Runtime(workspace))
    reply = asyncio.run(
        router.handle("/recall wifi password", CommandContext(session_key="telegram:1"))
    )
    assert (
        reply.startswith("**Recall** for `wifi password`")
        and "memory/history.jsonl#cursor=1" in reply
    )
    assert "fridge" in reply
    assert "Nothing in memory matches" in asyncio.run(router.handle("/recall zeppelin"))
    assert "needs something to look for" in asyncio.run(router.handle("/recall"))
    assert "/recall QUERY" in asyncio.run(router.handle("/help recall"))


def _chat_agent(workspace, model: str, **search):
    from reverie.chat import ChatAgent
    from reverie.memory.runtime import Runtime

    data = {
        "agents": {"defaults": {"model": model}},
        "memory": {"search": search},
        "llm": {"maxRetries": 0},
    }
    return ChatAgent(Runtime(workspace, config=Config.model_validate(data)), session_key="cli:t")


@pytest.mark.parametrize("called", ["search_memory", "memory_search"])
def test_chat_agent_uses_the_search_memory_tool(workspace, store, called):
    """The chat agent hands the model ``search_memory`` (the MCP server's and the adapters' name
    too); a call by the old name, ``memory_search``, is still answered."""
    from reverie.llm import ScriptedModel, ToolCall

    store.append_history("the passport is in the blue drawer")
    fake = ScriptedModel.register("recall-chat")
    try:
        fake.enqueue(ToolCall("c1", called, {"query": "passport", "k": 2}), "In the blue drawer.")
        agent = _chat_agent(workspace, fake.model)
        assert asyncio.run(agent.respond("where did I put my passport?")) == "In the blue drawer."
        first, second = fake.prompts
        assert [t["function"]["name"] for t in first.tools] == ["search_memory"]
        tool_msg = second.messages[-1]
        assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "c1"
        result = orjson.loads(tool_msg["content"])
        assert any(
            "blue drawer" in h["snippet"] and h["ref"]["cursor"] == 1 for h in result["hits"]
        )
        assert "Recalled memory" not in first.system  # auto-recall is off by default
    finally:
        ScriptedModel.unregister("recall-chat")


def test_chat_agent_auto_recall_adds_hits_to_the_system_prompt(workspace, store):
    from reverie.llm import ScriptedModel

    store.append_history("the passport is in the blue drawer")
    fake = ScriptedModel.register("recall-auto")
    try:
        fake.enqueue("Blue drawer.")
        agent = _chat_agent(workspace, fake.model, autoRecall=True)
        asyncio.run(agent.respond("passport location?"))
        system = fake.prompts[0].system
        assert "## Recalled memory" in system and "memory/history.jsonl#cursor=1" in system
    finally:
        ScriptedModel.unregister("recall-auto")


def test_searching_a_missing_workspace_is_an_error_and_creates_nothing(tmp_path):
    from reverie.errors import WorkspaceError

    missing = tmp_path / "no-such-workspace"
    with pytest.raises(WorkspaceError, match="does not exist"):
        memory_search("heron", workspace=missing)
    with pytest.raises(WorkspaceError, match="does not exist"):
        Recall(missing)
    out = invoke("-w", str(missing), "search", "heron")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "no workspace at" in out.stderr and "`reverie init`" in out.stderr  # what to do
    assert not missing.exists()


def test_a_workspace_without_memory_dir_is_searched_in_memory(tmp_path):
    """Sessions only, no memory/: the search answers and writes nothing."""
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.sessions_dir.mkdir(parents=True)
    line = orjson.dumps(
        {"role": "user", "content": "the heron is back", "timestamp": "2026-01-01T10:00:00"}
    )
    (ws.sessions_dir / "cli_a.jsonl").write_bytes(line + b"\n")
    before = sorted(p.relative_to(ws.root) for p in ws.root.rglob("*"))
    hits = memory_search("heron", workspace=ws)
    assert hits and "heron" in hits[0].snippet
    assert sorted(p.relative_to(ws.root) for p in ws.root.rglob("*")) == before


def test_sync_search_with_an_embedder_runs_no_event_loop_and_checks_embeddings_once(
    workspace, store, monkeypatch
):
    store.append_history("Alice practises the saxophone every evening")
    r = Recall(
        workspace, Config.model_validate({"memory": {"search": {"embeddingModel": "hashembed/64"}}})
    )
    r.search("saxofone")  # embeds everything once
    statements: list[str] = []
    with r.index.reading() as conn:  # what queries read: here the private copy (no writer synced)
        conn.set_trace_callback(statements.append)

    def no_loop(*_a, **_k):
        raise AssertionError("a synchronous search started an event loop")

    monkeypatch.setattr(asyncio, "run", no_loop)
    monkeypatch.setattr(asyncio, "new_event_loop", no_loop)
    hits = r.search("saxofone", k=1)
    assert hits and "saxophone" in hits[0].snippet
    assert not any("LEFT JOIN embeddings" in s for s in statements)  # nothing changed: no re-check
    store.append_history("Bob repaired the bicycle")
    assert (
        "bicycle" in r.search("bicycle", k=1)[0].snippet
    )  # new chunk: checked and embedded, still no loop
    assert sum("LEFT JOIN embeddings" in s for s in statements) == 1
    r.close()


def test_sync_search_with_hashembed_does_not_import_litellm(workspace, store):
    store.append_history("nothing heavy")
    code = (
        "import sys; from reverie.recall import memory_search; from reverie.storage.config import"
        " Config; c = Config.model_validate({'memory': {'search': {'embeddingModel':"
        f" 'hashembed/32'}}}}}}); memory_search('heavy', workspace={str(workspace.root)!r},"
        " config=c); print('litellm' in sys.modules)"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
