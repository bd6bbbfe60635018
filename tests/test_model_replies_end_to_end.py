"""A real model's worst replies, end to end: ``reverie.open`` on a workspace whose model is
``openai/test-model`` behind the real litellm adapter, pointed at a scripted OpenAI-compatible
server on 127.0.0.1 (``support/openai_server.py``; no network), and the verbs an application calls —
``dream`` and ``record`` + ``clear`` (``/new``) — while the server answers badly.

For every reply: the verb ends with its result or a one-line ``ReverieError`` (never another
exception), the batch stays pending or is applied whole, the conversation's words reach history,
and no memory file loses a line it held (a line leaving goes to the archive with a reason).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.cli import invoke
from support.openai_server import OpenAIServer, Step, chat, tool_call_reply

import reverie
from reverie.errors import ReverieError
from reverie.llm import ModelClient
from reverie.storage.config import Config

USER_LINES = ["- Lives in Lisbon", "- Works at Acme as a data engineer", "- Prefers Postgres"]
SAID = "I adopted a cat called Miso last week and she sleeps on my keyboard."


def _config(base_url: str) -> Config:
    return Config.model_validate(
        {
            "agents": {
                "defaults": {
                    "model": "openai/test-model",
                    "contextWindowTokens": 16384,
                    "maxTokens": 1024,
                    "dream": {"maxAttempts": 100, "maxSeconds": 60},
                }
            },
            "providers": {"openai": {"apiKey": "sk-test-HARDEN0123456789", "apiBase": base_url}},
            "llm": {
                "timeout": 20,
                "maxRetries": 1,
                "retryBudget": 20,
                "backoffBase": 0.05,
                "backoffMax": 0.1,
                "retryAfterMax": 0.2,
            },
        }
    )


@pytest.fixture(scope="module")
def server():
    """One server for the module, warmed: litellm's first call imports its provider modules
    (seconds on a loaded machine), which no per-attempt timeout should have to cover."""
    with OpenAIServer() as srv:
        srv.enqueue(chat("warm"))
        client = ModelClient(_config(srv.base_url))
        assert asyncio.run(client.complete([{"role": "user", "content": "hi"}])).content == "warm"
        yield srv


@pytest.fixture
def memory(tmp_path: Path, server: OpenAIServer):
    server.steps.clear()
    server.requests.clear()
    root = tmp_path / "ws"
    with reverie.open(root, config=_config(server.base_url)) as mem:
        mem.init()
        text = mem.read("USER.md")
        mem.write("USER.md", text.rstrip("\n") + "\n\n" + "\n".join(USER_LINES) + "\n")
        mem.remember(f"User: {SAID}")
        yield mem


def _body(content: Any, **message: Any) -> dict[str, Any]:
    body = chat("x").body
    body["choices"][0]["message"] = {"role": "assistant", "content": content, **message}
    return body


def _edit(path: str, old: str, new: str) -> Step:
    args = {"path": path, "old_text": old, "new_text": new}
    return tool_call_reply("edit_file", json.dumps(args))


GOOD_ANALYSIS = "[USER] Has a cat called Miso"
CAT = "- Has a cat called Miso"
BAD_UTF8 = json.dumps(_body(f"{GOOD_ANALYSIS} MISO_BYTES")).encode()
TRANSIENT = 2  # attempts of one call (llm.maxRetries 1)
# fault -> (the server's replies to the analysis call, what the run must do: "read" = the
# analysis is taken and the edit that follows applied whole; else a pattern of the one-line reason
# the batch stays pending for)
ANALYSIS: dict[str, tuple[list[Step], str]] = {
    "empty": ([Step(body=_body(""))], "empty reply to the analysis"),
    "null": ([Step(body=_body(None))], "empty reply to the analysis"),
    "reasoning-only": (
        [Step(body=_body("", reasoning_content=GOOD_ANALYSIS), headers={})],
        "only the model's reasoning .* raise agents.defaults.maxTokens",
    ),
    "think-cut-at-max-tokens": (
        [Step(body=_body("<think>The user has a cat.\n[USER] Maybe lives in Paris"))],
        "only the model's reasoning",
    ),
    "think-block": (
        [Step(body=_body(f"<think>[USER] Maybe lives in Paris?\n[SKIP]</think>\n{GOOD_ANALYSIS}"))],
        "read",
    ),
    "think-closed-only": (
        [Step(body=_body(f"[USER] Lives in Paris, I guess</think>\n{GOOD_ANALYSIS}"))],
        "read",
    ),
    "tool-call-instead": (
        [tool_call_reply("edit_file", json.dumps({"path": "USER.md"}))],
        r"called a tool \(edit_file\) instead of writing the analysis",
    ),
    "fenced-with-prose": (
        [Step(body=_body(f"Here is my analysis:\n```text\n{GOOD_ANALYSIS}\n```\nHope it helps!"))],
        "read",
    ),
    "json-in-fence": (
        [Step(body=_body('Sure!\n```json\n{"findings": [{"kind": "USER", "text": "x"}]}\n```'))],
        "no finding lines and no \\[SKIP\\]",
    ),
    "truncated-json": (
        [Step(body=_body('{"findings": [{"kind": "USER", "te'))],
        "no finding lines and no \\[SKIP\\]",
    ),
    "2mb": ([Step(body=_body(GOOD_ANALYSIS + "\n" + "lorem ipsum " * 180_000))], "read"),
    "invalid-utf8": (
        [Step(body=BAD_UTF8.replace(b"MISO_BYTES", b"\xff\xfe\xc3("))] * TRANSIENT,
        "not valid UTF-8",
    ),
    "lone-surrogate": (
        [Step(body=json.dumps(_body(f"{GOOD_ANALYSIS} XS")).replace("XS", "\\udc80").encode())],
        "read",
    ),
    "429": ([Step(429, headers={"Retry-After": "0"})] * TRANSIENT, "kept failing: .*429"),
    "500": ([Step(500)] * TRANSIENT, "kept failing: .*500"),
    "reset": ([Step(close=True)] * TRANSIENT, "kept failing: Connection error"),
    "cut-mid-body": ([Step(body=_body(GOOD_ANALYSIS), truncate=60)] * TRANSIENT, "kept failing"),
    "hang": ([Step(delay=3.0)] * TRANSIENT, "not answering"),
}
EDIT = {
    "gut-user": _edit("USER.md", "\n".join(USER_LINES) + "\n", ""),
    "rewrite-user": _edit("USER.md", "\n".join(USER_LINES) + "\n", "- Has a cat called Miso\n"),
    "rewrite-garbage": _edit("USER.md", "\n".join(USER_LINES), "{" + '"x": 1' * 3000 + "}"),
}


def _check_nothing_lost(memory: reverie.Memory) -> None:
    user = memory.read("USER.md")
    archive = "".join(memory.read(p) for p in memory.files() if p.startswith("memory/archive/"))
    for line in USER_LINES:
        assert line in user or line[2:] in archive, (line, user)
    assert any(SAID[:30] in e.content for e in memory.history())
    assert memory.runtime.git.dirty() == []


def _dream(memory: reverie.Memory) -> tuple[Any, str | None]:
    try:
        return memory.dream(), None
    except ReverieError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
        return None, str(exc)


@pytest.mark.parametrize("fault", sorted(ANALYSIS))
def test_a_bad_analysis_reply_keeps_the_batch_or_is_read_whole(memory, server, fault):
    replies, expected = ANALYSIS[fault]
    if fault == "hang":
        memory.config.llm.timeout = 1.0
        memory.config.llm.retry_budget = 4.0
    server.enqueue(*replies, _edit("USER.md", USER_LINES[-1], f"{USER_LINES[-1]}\n{CAT}"))
    server.enqueue(chat("done"))
    pending = memory.pending()
    result, error = _dream(memory)
    assert error is None, error  # a model's fault is the run's result, never a raise
    if expected == "read":
        assert result.commit and CAT in memory.read("USER.md"), (result.status, result.reason)
        assert memory.pending() == 0
        assert "Paris" not in memory.read("USER.md")  # a thought is never a finding
    else:
        assert result.commit is None and result.status == "failed", (result.status, result.reason)
        assert re.search(expected, result.reason or ""), result.reason
        assert "\n" not in result.reason
        assert memory.pending() == pending
    _check_nothing_lost(memory)


@pytest.mark.parametrize("fault", sorted(EDIT))
def test_an_edit_that_guts_or_rewrites_a_file_never_loses_a_line(memory, server, fault):
    """An edit taking every line out of USER.md, or rewriting it whole, leaves every line there
    (no finding named them: the lifecycle step keeps them) or in the archive; one the gate refuses
    (a line of 18,000 characters) writes nothing and keeps the batch."""
    server.enqueue(chat(GOOD_ANALYSIS), EDIT[fault], chat("done"))
    pending = memory.pending()
    result, error = _dream(memory)
    assert error is None, error
    if fault == "rewrite-garbage":
        assert result.status == "rejected" and "gate:" in (result.reason or "")
        assert result.commit is None and memory.pending() == pending
    _check_nothing_lost(memory)


def test_new_session_with_every_bad_summary_reply_keeps_the_words(memory, server):
    for fault, (replies, _expected) in ANALYSIS.items():
        if fault == "hang":
            continue  # a silent model at /new: tests/test_model_replies.py
        server.steps.clear()
        server.enqueue(*(replies * 4))
        key = f"cli:{fault}"
        memory.record(key, [{"role": "user", "content": f"{SAID} ({fault})"}], consolidate=False)
        try:
            memory.clear(key)
        except ReverieError as exc:
            print(fault, "error", exc)
        texts = "\n".join(e.content for e in memory.history())
        assert f"({fault})" in texts or f"({fault})" in json.dumps(memory.messages(key)), fault


def test_a_runaway_summary_keeps_each_fact_once_and_the_words(memory, server):
    """A summary reply of 2 MB, one fact line written over and over (a model looping past
    ``max_tokens``): history gets the fact once and the user's words, never 64,000 characters of
    copies cut part way through a line."""
    fact = "- [durable] Has a cat called Miso"
    server.enqueue(chat(f"{fact}\n" * 60_000))
    before = len(memory.history())
    memory.record("cli:loop", [{"role": "user", "content": SAID}], consolidate=False)
    memory.clear("cli:loop")
    added = "\n".join(e.content for e in memory.history()[before:])
    assert added.count("Has a cat called Miso") == 1, added[:300]
    assert "truncated" not in added and SAID in added, added[:300]


def test_findings_with_no_edit_are_set_aside_and_requeue_runs_them_again(memory, server):
    """The gap: a batch whose findings the edit step never acted on (it answered in prose) moved
    the cursor and changed nothing, with no way back. It is now set aside: ``reverie requeue``
    lists it, and requeued, the next run writes what it found."""
    server.enqueue(chat(GOOD_ANALYSIS), chat("I have noted that the user has a cat."))
    first = memory.history()[-1].cursor
    result, error = _dream(memory)
    assert error is None and result.status == "no-change" and result.commit is None
    assert f"set aside: `reverie requeue {first}` runs it again" in result.reason
    assert memory.pending() == 0  # the cursor moved on, as before
    [aside] = memory.set_aside()
    assert (aside.first, aside.last) == (first, first) and "made no edit" in aside.reason
    listed = invoke("-w", str(memory.workspace.root), "requeue")
    assert listed.returncode == 0 and f"set aside  history {first}–{first}" in listed.stdout
    again = invoke("-w", str(memory.workspace.root), "requeue", str(first))
    assert again.returncode == 0 and "runs it again" in again.stdout, again.stdout + again.stderr
    server.enqueue(
        chat(GOOD_ANALYSIS), _edit("USER.md", USER_LINES[-1], f"{USER_LINES[-1]}\n{CAT}")
    )
    server.enqueue(chat("done"))
    result, error = _dream(memory)
    assert error is None and result.commit, (result.status, result.reason)
    assert CAT in memory.read("USER.md")
    assert memory.set_aside() == [] and memory.queued() == []
    _check_nothing_lost(memory)


def test_findings_the_files_hold_already_move_on_without_a_set_aside(memory, server):
    """No edit for findings the files already say is the model's answer, not a gap: the batch
    moves on, nothing set aside."""
    server.enqueue(chat("[USER] Lives in Lisbon"), chat("USER.md says so already."))
    result, error = _dream(memory)
    assert error is None and result.status == "no-change" and "set aside" not in result.reason
    assert memory.set_aside() == [] and memory.pending() == 0


# -- the edit turn's worst replies (fleet5's attack: every one held on main) ----------------------


def _calls(*calls: tuple[str, Any]) -> Step:
    """One reply holding several tool calls; an argument that is not a str is sent as is (a JSON
    object, as some providers send it)."""
    tcs = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
        for i, (n, a) in enumerate(calls)
    ]
    return chat(None, finish_reason="tool_calls", tool_calls=tcs)


_ADD = {"path": "USER.md", "old_text": USER_LINES[-1], "new_text": f"{USER_LINES[-1]}\n{CAT}"}
GOOD_EDIT = _calls(("edit_file", json.dumps(_ADD)))
# fault -> (the edit turn's replies before "done", what the run must do: "applied" = the good edit
# committed, CAT once; "set-aside" = no edit, the batch set aside for requeue; "kept" = nothing
# written, the batch pending for the next run)
EDIT_TURN: dict[str, tuple[list[Step], str]] = {
    "truncated-args": (
        [_calls(("edit_file", '{"path": "USER.md", "old_te')), GOOD_EDIT],
        "applied",
    ),
    "wrong-types": (
        [_calls(("edit_file", json.dumps({"path": ["USER.md"], "old_text": 3, "new_text": None})))]
        + [GOOD_EDIT],
        "applied",
    ),
    "no-such-tool": (
        [_calls(("write_file", '{"path": "USER.md", "content": "x"}')), GOOD_EDIT],
        "applied",
    ),
    "args-not-an-object": ([_calls(("edit_file", "[1, 2]")), GOOD_EDIT], "applied"),
    "args-a-json-object": ([_calls(("edit_file", _ADD))], "applied"),
    "args-1mb-of-braces": ([_calls(("edit_file", "{" * 1_000_000)), GOOD_EDIT], "applied"),
    "cut-at-max-tokens": (
        [
            chat(
                None,
                finish_reason="length",
                tool_calls=[
                    {
                        "id": "x",
                        "type": "function",
                        "function": {"name": "edit_file", "arguments": '{"path": "USER.md", "ol'},
                    }
                ],
            ),
            GOOD_EDIT,
        ],
        "applied",
    ),
    "same-edit-twice-in-one-reply": (
        [_calls(("edit_file", json.dumps(_ADD)), ("edit_file", json.dumps(_ADD)))],
        "applied",
    ),
    "same-edit-twice-in-two-turns": ([GOOD_EDIT, GOOD_EDIT], "applied"),
    "quotes-text-not-in-the-file": (
        [_edit("USER.md", "- Lives in Paris", "- Lives in Rome"), GOOD_EDIT],
        "applied",
    ),
    "writes-outside": (
        [
            _calls(
                (
                    "edit_file",
                    json.dumps({"path": "../outside.md", "old_text": "", "new_text": "x"}),
                ),
                (
                    "edit_file",
                    json.dumps({"path": "/etc/hostname", "old_text": "", "new_text": "x"}),
                ),
                ("edit_file", json.dumps({"path": ".git/config", "old_text": "", "new_text": "x"})),
                ("read_file", json.dumps({"path": "../../../etc/passwd"})),
            ),
            GOOD_EDIT,
        ],
        "applied",
    ),
    "writes-history-or-archive": (
        [
            _edit("memory/history.jsonl", "", '{"cursor": 99, "content": "forged"}\n'),
            _edit("memory/archive/user.md", "", "- forged\n"),
            GOOD_EDIT,
        ],
        "applied",
    ),
    "archives-a-soul-rule": (
        [_calls(("archive_line", '{"path": "SOUL.md", "line": "x", "reason": "y"}')), GOOD_EDIT],
        "applied",
    ),
    "wipes-user-md": (
        [_edit("USER.md", "\n".join(USER_LINES) + "\n", ""), _edit("USER.md", "", "")],
        "set-aside",
    ),
    "archives-every-line": (
        [
            _calls(
                *(
                    ("archive_line", json.dumps({"path": "USER.md", "line": ln, "reason": "old"}))
                    for ln in USER_LINES
                )
            )
        ],
        "kept",
    ),
    "lone-surrogate-in-new-text": (
        [_calls(("edit_file", json.dumps({**_ADD, "new_text": f"{_ADD['new_text']} \udc80"})))],
        "set-aside",
    ),
    "control-characters": (
        [
            _edit(
                "USER.md", USER_LINES[-1], f"{USER_LINES[-1]}\n- Has a cat\x00 called\x1b[31m Miso"
            )
        ],
        "kept",
    ),
    "1mb-new-text": ([_edit("USER.md", USER_LINES[-1], "- cat " * 200_000)], "kept"),
    "empty": ([Step(body=_body(""))], "set-aside"),
    "refusal-in-prose": (
        [chat("I'm sorry, but I can't help with editing these files.")],
        "set-aside",
    ),
    "a-thousand-calls": (
        [
            _calls(
                *(
                    (
                        "edit_file",
                        json.dumps({"path": "USER.md", "old_text": "", "new_text": f"- f{i}\n"}),
                    )
                    for i in range(1000)
                )
            )
        ],
        "kept",
    ),
    # a runaway reply: one line written thousands of times, or lines nobody said by the thousand
    # (before: committed, the copies merged and the invented lines archived line by line into
    # megabytes of archive, minutes for 20 MB, and USER.md kept as many as its budget held)
    "one-line-written-5000-times": (
        [_edit("USER.md", USER_LINES[-1], f"{USER_LINES[-1]}\n" + f"{CAT}\n" * 5000)],
        "kept",
    ),
    "invented-lines-by-the-thousand": (
        [
            _edit(
                "USER.md",
                USER_LINES[-1],
                f"{USER_LINES[-1]}\n"
                + "".join(f"- Has a dog called Rex{i}\n" for i in range(3000)),
            )
        ],
        "kept",
    ),
    "never-finishes": ([GOOD_EDIT] + [_calls(("read_file", '{"path": "USER.md"}'))] * 12, "kept"),
    "429-after-an-edit": (
        [GOOD_EDIT] + [Step(429, headers={"Retry-After": "0"})] * TRANSIENT,
        "kept",
    ),
}


@pytest.mark.parametrize("fault", sorted(EDIT_TURN))
def test_the_edit_turns_worst_replies_write_only_valid_surgical_edits(
    memory, server, tmp_path, fault
):
    replies, expected = EDIT_TURN[fault]
    history = (memory.workspace.root / "memory" / "history.jsonl").read_bytes()
    outside = sorted(p for p in tmp_path.rglob("*") if memory.workspace.root not in p.parents)
    server.enqueue(chat(GOOD_ANALYSIS), *replies, chat("done"), chat("done"))
    pending = memory.pending()
    result, error = _dream(memory)
    assert error is None, error
    user = memory.read("USER.md")
    if expected == "applied":
        assert result.commit and user.count(CAT) == 1, (result.status, result.reason, user)
        assert memory.pending() == 0
    else:
        assert result.commit is None and CAT not in user, (result.status, result.reason)
        assert "\n" not in (result.reason or "")
        if expected == "set-aside":
            assert memory.pending() == 0 and len(memory.set_aside()) == 1, result.reason
        else:
            assert memory.pending() == pending, (result.status, result.reason)
    assert "forged" not in "".join(memory.read(p) for p in memory.files())
    assert (memory.workspace.root / "memory" / "history.jsonl").read_bytes() == history
    after = sorted(p for p in tmp_path.rglob("*") if memory.workspace.root not in p.parents)
    assert after == outside, "a reply wrote outside the workspace"
    _check_nothing_lost(memory)
