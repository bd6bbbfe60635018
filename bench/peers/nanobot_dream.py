"""Peer workload run INSIDE a nanobot-ai 0.1.5.post3 virtual environment (standard library and
nanobot only).

argv[1] is a JSON object: {"scenario": <path of bench/dream_scenario.json>, "runs": n}. Each run
builds a fresh workspace with the scenario's memory files and 20 history entries, then times
``Dream.run`` with a scripted provider that returns the scenario's replies (phase-1 text, one turn
with the edit_file calls, a final text). Prints one JSON object: raw seconds per run and the
requests (messages and tools) of the last run.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

try:  # nanobot logs through loguru to stderr; keep the run quiet
    from loguru import logger

    logger.remove()
except ImportError:
    pass

from nanobot.agent.memory import Dream, MemoryStore  # noqa: E402
from nanobot.providers.base import LLMProvider, LLMResponse, ToolCallRequest  # noqa: E402


class Scripted(LLMProvider):
    def __init__(self, replies):
        super().__init__()
        self.replies = list(replies)
        self.requests = []

    async def chat(
        self,
        messages,
        tools=None,
        model=None,
        max_tokens=4096,
        temperature=0.7,
        reasoning_effort=None,
        tool_choice=None,
    ):
        self.requests.append(
            {"messages": json.loads(json.dumps(messages, default=str)), "tools": tools}
        )
        reply = self.replies.pop(0)
        if isinstance(reply, list):
            calls = [
                ToolCallRequest(id=f"c{i}", name="edit_file", arguments=a)
                for i, a in enumerate(reply)
            ]
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
    seconds = time.perf_counter() - t0
    if "Berlin" not in (root / "USER.md").read_text():
        raise SystemExit("nanobot did not apply the scripted edits")
    return seconds, provider.requests


def main() -> None:
    args = json.loads(sys.argv[1])
    scenario = json.loads(Path(args["scenario"]).read_text())
    samples, requests = [], []
    for _ in range(args["runs"]):
        with tempfile.TemporaryDirectory() as d:
            seconds, requests = one(scenario, Path(d))
            samples.append(seconds)
    print(json.dumps({"version": version("nanobot-ai"), "samples": samples, "requests": requests}))


if __name__ == "__main__":
    main()
