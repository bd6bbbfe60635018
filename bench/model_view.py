"""What a model is handed from memory, measured on conversations nobody here wrote (issue 37,
item 4): the LoCoMo development split (``/work/shared/data/locomo/locomo-dev.json``, read in place).

Each conversation is kept as an agent framework keeps it: speaker A's turns are the user's, speaker
B's the assistant's, each session recorded (``Memory.record``) and consolidated into history by the
offline engine (fact lines with their marks, and raw transcripts where it is unsure), the last
session left in progress. Then every question of the split is asked through
``Memory.search_memory`` with that session as the conversation in progress, and every text handed
back is checked for:

- internal marks: a fact mark (``[durable]``, ``[permanent]`` …), ``[RAW]``, a transcript's
  ``USER:`` / ``ASSISTANT:`` label, an ``[age: …]`` or ``[pinned]`` annotation;
- the assistant's own words: a hit whose id is a conversation message said by the assistant;
- the conversation in progress: a hit from the session left open;
- the question itself, handed back as a memory.

``python -m bench model_view`` (``--quick``: the first conversation). Also reported: how many
questions get at least one result (the view does not hide everything), and how many of those have
the answer's evidence turn's text among them (a rough recall, no target).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from ._core import Context, Result, stats_of

LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")
_MARKS = re.compile(
    r"\[(?:permanent|durable|ephemeral|correction|skip|RAW|pinned)\]|\[age: \d+|"
    r"\b(?:USER|ASSISTANT)(?:\([^)]*\))?: ",
)


def _load(quick: bool) -> list[dict[str, Any]]:
    if not LOCOMO.is_file():
        return []
    data = json.loads(LOCOMO.read_text())
    return data[:1] if quick else data


def _sessions(conversation: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    keys = sorted(
        (k for k in conversation if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k[8:])
    )
    return [(k, conversation[k]) for k in keys if isinstance(conversation[k], list)]


def run(ctx: Context) -> list[Result]:
    import reverie

    samples = _load(ctx.quick)
    if not samples:
        return []
    tmp = ctx.tmpdir("model-view-")
    counts = {"questions": 0, "answered": 0, "results": 0, "marks": 0, "assistant": 0, "live": 0}
    counts |= {"question_back": 0, "evidence": 0}
    raw = {
        "results": 0,
        "bad": 0,
    }  # the same questions through Recall's own hits (what was handed before)
    t0 = time.perf_counter()
    for n, sample in enumerate(samples):
        conv = sample["conversation"]
        user = conv["speaker_a"]
        sessions = _sessions(conv)
        texts = {t["dia_id"]: t["text"] for _, turns in sessions for t in turns}
        with reverie.open(tmp / f"ws{n}") as memory:
            memory.init()
            for key, turns in sessions:
                messages = [
                    {"role": "user" if t["speaker"] == user else "assistant", "content": t["text"]}
                    for t in turns
                    if t.get("text")
                ]
                if messages:
                    memory.record(key, messages)
                    if key != sessions[-1][0]:
                        memory.consolidate(key)
            live = sessions[-1][0]
            for qa in sample["qa"]:
                question = str(qa["question"])
                found = memory.search_memory(question, limit=8, session_key=live)
                for hit in memory.search(question, limit=8):
                    raw["results"] += 1
                    ref = hit.source
                    said_by = (
                        memory.messages(ref.session_key, archived=True)[ref.message_index]
                        if ref.kind == "session"
                        and ref.session_key
                        and ref.message_index is not None
                        else {"role": "user"}
                    )
                    raw["bad"] += bool(
                        _MARKS.search(hit.snippet)
                        or said_by.get("role") != "user"
                        or ref.session_key == live
                        or hit.snippet.strip() == question.strip()
                    )
                counts["questions"] += 1
                counts["answered"] += bool(found)
                counts["results"] += len(found)
                for item in found:
                    counts["marks"] += bool(_MARKS.search(item.memory))
                    counts["question_back"] += item.memory.strip() == question.strip()
                    if item.id.startswith("c"):
                        index, _, key = item.id[1:].partition(":")
                        message = memory.messages(key, archived=True)[int(index)]
                        counts["assistant"] += message.get("role") != "user"
                        counts["live"] += key == live and int(index) >= _archived(memory, key)
                evidence = [texts.get(e, "") for e in qa.get("evidence", [])]
                counts["evidence"] += any(
                    e and any(e[:40] in item.memory for item in found) for e in evidence
                )
    elapsed = time.perf_counter() - t0
    total = max(1, counts["results"])
    note = (
        f"{counts['questions']} questions, {counts['results']} results: marks {counts['marks']}, "
        f"assistant's words {counts['assistant']}, conversation in progress {counts['live']}, "
        f"the question back {counts['question_back']}; questions with a result "
        f"{counts['answered']}, with an evidence turn among them {counts['evidence']} "
        f"({elapsed:.0f} s)"
    )
    bad = counts["marks"] + counts["assistant"] + counts["live"] + counts["question_back"]
    return [
        Result(
            "model_view",
            "results handed to a model with a mark, the assistant's words, the live "
            "conversation or the question (LoCoMo dev)",
            stats_of([bad / total]),
            stats_of([raw["bad"] / max(1, raw["results"])]),
            "Recall's own hits for the same questions (what adapters handed before)",
            unit="rate",
            target="0",
            note=note + f"; Recall's own hits: {raw['bad']} of {raw['results']}",
        )
    ]


def _archived(memory: Any, key: str) -> int:
    session = memory.session(key)
    return session.last_consolidated if session is not None else 0
