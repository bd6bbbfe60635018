"""The replay corpus: a real model's replies to each of Reverie's model tasks, played back through
the real pipeline without a model.

``tests/data/model-replies.jsonl.gz`` holds one case per line, recorded by
``scripts/realmodel_rounds.py`` against SmolLM2-135M (``scripts/local-model.sh``)::

    {"id": "r12-new", "step": "new" | "flush" | "dream" | "edit",
     "input": {...},            # the session's messages; or the batch's entries and the files; or
                                # the findings and the files
     "calls": [{"task": "archive", "request": {"system": "<sha256, 12 hex>", "turn": 0,
                "messages": [...], "tools": [...], "tool_choice": ..., "max_tokens": 384},
                "reply": {"content": ..., "finish_reason": ..., "tool_calls": [...]} | null,
                "error": "ContextWindowError: ..." | null, "seconds": 12.3}]}

Texts are redacted (``security.secrets.scrub``) and bounded. ``Replayer`` answers a case's calls in
the order they were recorded, per task: a recorded reply as it was, a recorded error as the same
kind of failure (an over-window answer, a provider that does not answer), and a call the recording
does not have as a model error. Extend the corpus by running the script again (``--start`` past
the last round recorded) and appending; whenever a real model surprises you, record it.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from reverie.errors import ContextWindowError
from reverie.llm import protocol
from reverie.llm.output import content_words, said_something
from reverie.llm.scripted import Prompt, Reply, ScriptError
from reverie.llm.transcript import transcript_text
from reverie.llm.types import ToolCall
from reverie.llm.window import parse_limit
from reverie.security.secrets import scrub
from reverie.storage.history import HistoryEntry
from reverie.storage.workspace import MEMORY_FILES, Workspace

CORPUS = Path(__file__).resolve().parent.parent / "data" / "model-replies.jsonl.gz"

__all__ = [
    "CORPUS",
    "load_cases",
    "Replayer",
    "reply_of",
    "calls_of",
    "lost_sentences",
    "malformed_files",
    "MALFORMED",
]


def load_cases(path: Path = CORPUS) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        return [json.loads(line) for line in fh if line.strip()]


def calls_of(cases: list[dict[str, Any]], task: str) -> list[tuple[str, dict[str, Any]]]:
    """``(case id, call)`` for every recorded call of ``task`` that got a reply."""
    return [
        (c["id"], call)
        for c in cases
        for call in c["calls"]
        if call["task"] == task and call["reply"] is not None
    ]


def reply_of(call: dict[str, Any]) -> Reply:
    """The recorded reply as the scripted model gives it."""
    reply = call["reply"]
    calls = []
    for i, c in enumerate(reply.get("tool_calls") or []):
        raw = c.get("arguments") or ""
        try:
            parsed = orjson.loads(raw) if raw.strip() else {}
        except orjson.JSONDecodeError:
            parsed = None
        calls.append(
            ToolCall(
                c.get("id") or f"call_{i}",
                c.get("name") or "",
                parsed if isinstance(parsed, dict) else None,
                raw,
            )
        )
    finish = reply.get("finish_reason")
    return Reply(reply.get("content"), tuple(calls), None if finish == "None" else finish)


class Replayer:
    """A scripted model's responder answering from one recorded case (see the module docstring).
    ``unmatched`` counts the calls the recording did not have."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.queues: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        for call in case["calls"]:
            self.queues[call["task"]].append(call)
        self.unmatched = 0

    def __call__(self, prompt: Prompt) -> Any:
        task = protocol.task_of(prompt.system) or "chat"
        queue = self.queues.get(task)
        if not queue:
            self.unmatched += 1
            return ScriptError(f"the recording has no further {task} reply")
        call = queue.popleft()
        if call["reply"] is not None:
            return reply_of(call)
        error = call.get("error") or ""
        if error.startswith("ContextWindowError"):
            limit, requested = parse_limit(error)
            return ContextWindowError(error, limit=limit, requested=requested)
        return TimeoutError(error)  # the provider did not answer (or failed): a timeout


# -- the goals' checks (shared with scripts/realmodel_rounds.py) -----------------------------------
#: What no memory file may hold: template braces, code fences, the session-summary schema read back,
#: control characters.
MALFORMED = re.compile(
    r"\{\{|\}\}|```|kebab-case|at most 40 characters|save_summary|\"type\": \"function\""
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f]"
)


_HEADER = re.compile(r"^\[RAW\] \d+ messages$")
_PREFIX = re.compile(r"^(?:\[[^\]]*\] [^:]{1,60}: (?:\(part \d+ of \d+\) )?)")


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


def lost_sentences(
    messages: Iterable[Mapping[str, Any]], entries: Iterable[HistoryEntry], key: str
) -> list[str]:
    """The user's sentences that say something (``llm.output.said_something``) and are neither in
    this session's history word for word nor share a word with one of its fact lines: lost."""
    mine = [e for e in entries if e.session_key == key]
    # A raw archive's lines without their "[time] ROLE: (part i of n)" prefixes: a message split
    # into parts reads as one text again.
    raw = _norm(
        " ".join(
            _PREFIX.sub("", ln)
            for e in mine
            for ln in e.content.splitlines()
            if not _HEADER.match(ln)
        )
    )
    facts: set[str] = set()
    for entry in mine:
        for line in entry.content.splitlines():
            parsed = protocol.parse_fact_line(line)
            if parsed:
                facts |= content_words(parsed[1])
    lost = []
    for m in messages:
        if m.get("role") != "user" or m.get("name"):
            continue
        for sentence in said_something(transcript_text(m)):
            if _norm(scrub(sentence)) in raw or _norm(sentence) in raw:
                continue
            if content_words(sentence) & facts:
                continue
            lost.append(sentence)
    return lost


def malformed_files(ws: Workspace) -> list[str]:
    """Memory files (the prompt files and the dated ones) that do not read as UTF-8 or hold
    ``MALFORMED`` text where the model wrote (a session file's "Key messages" quote the user, whose
    code fences are theirs)."""
    out = []
    paths = [ws.root / rel for rel in MEMORY_FILES] + sorted((ws.root / "memory").glob("*.md"))
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            out.append(f"{path.name}: {exc}")
            continue
        text = text.split("\n## Key messages\n", 1)[0]
        bad = MALFORMED.search(text)
        if bad:
            out.append(f"{path.name}: {bad.group(0)!r}")
    return out
