"""Drive nanobot-ai 0.1.5.post3's ``Dream.run`` with a scripted provider (run inside nanobot's own venv).

usage: python _nanobot_dream.py SCENARIO.json RUNS  → prints JSON: {"ms": [...], "requests": [{messages, tools}]}
(requests of the last run only). Replies are the scenario's: phase-1 text, one turn with the edits, a final text.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from loguru import logger

from nanobot.agent.memory import Dream, MemoryStore
from nanobot.providers.base import LLMProvider, LLMResponse, ToolCallRequest

logger.remove()


class Scripted(LLMProvider):
    def __init__(self, replies):
        super().__init__()
        self.replies = list(replies)
        self.requests = []

    async def chat(self, messages, tools=None, model=None, max_tokens=4096, temperature=0.7,
                   reasoning_effort=None, tool_choice=None):
        self.requests.append({"messages": json.loads(json.dumps(messages, default=str)), "tools": tools})
        reply = self.replies.pop(0)
        if isinstance(reply, list):
            calls = [ToolCallRequest(id=f"c{i}", name="edit_file", arguments=a) for i, a in enumerate(reply)]
            return LLMResponse(content=None, tool_calls=calls, finish_reason="tool_calls")
        return LLMResponse(content=reply)

    def get_default_model(self):
        return "scripted"


def one(scenario, root: Path):
    for rel, text in scenario["files"].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = MemoryStore(root)
    store.git.init()
    for content in scenario["entries"]:
        store.append_history(content)
    provider = Scripted([scenario["phase1"], scenario["edits"], scenario["final"]])
    dream = Dream(store, provider, "scripted", max_batch_size=20, max_iterations=10)
    t0 = time.perf_counter()
    asyncio.run(dream.run())
    ms = (time.perf_counter() - t0) * 1000
    assert "Berlin" in (root / "USER.md").read_text(), "nanobot did not apply the scripted edits"
    return ms, provider.requests


def main():
    scenario = json.loads(Path(sys.argv[1]).read_text())
    runs = int(sys.argv[2])
    times, requests = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            ms, requests = one(scenario, Path(d))
            times.append(ms)
    print(json.dumps({"ms": times, "requests": requests}))


if __name__ == "__main__":
    main()
