"""Peer workload run INSIDE a nanobot-ai virtual environment (imports only the standard library and
nanobot).

argv[1] is a JSON object: {"messages": path to a JSON list of chat messages, "tools": path to a JSON
list of tool schemas, "reps": n}. Times nanobot's own prompt estimate
(``nanobot.utils.helpers.estimate_prompt_tokens``: tiktoken, what its Consolidator uses) on those
messages. Prints one JSON object: raw seconds per call and the count it returned.
"""

from __future__ import annotations

import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

try:  # nanobot logs through loguru to stderr; keep the run quiet
    from loguru import logger

    logger.remove()
except ImportError:
    pass

from nanobot.utils.helpers import estimate_prompt_tokens  # noqa: E402


def main() -> None:
    args = json.loads(sys.argv[1])
    messages = json.loads(Path(args["messages"]).read_text())
    tools = json.loads(Path(args["tools"]).read_text())
    tokens = estimate_prompt_tokens(messages, tools)  # warm-up: loads the tokenizer, untimed
    samples = []
    for _ in range(args["reps"]):
        t0 = time.perf_counter()
        estimate_prompt_tokens(messages, tools)
        samples.append(time.perf_counter() - t0)
    print(json.dumps({"version": version("nanobot-ai"), "samples": samples, "tokens": tokens}))


if __name__ == "__main__":
    main()
