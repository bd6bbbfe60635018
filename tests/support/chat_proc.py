"""``reverie chat`` in its own process with a scripted model, for the pty-driven tests (run by tests, not collected).

usage: python chat_proc.py <reverie args...>   with REVERIE_MODEL=scripted/pty

The model answers a chat turn with ``echo: <message>``, after ``CHAT_PROC_SLOW`` seconds (default 60) when the
message contains "slow" (so a test can press Ctrl-C mid-turn). Reverie's own tasks (archive, dream) get "(nothing)"
and "[SKIP]". ``direct=True``: this exercises the terminal, not the provider path, and skips litellm's import.
"""

from __future__ import annotations

import os
import sys

from reverie.cli import main
from reverie.llm import protocol
from reverie.llm.scripted import Prompt, Reply, ScriptedModel


def answer(prompt: Prompt) -> Reply:
    task = protocol.task_of(prompt.system)
    if task == "archive":
        return Reply("(nothing)")
    if task is not None:
        return Reply("[SKIP]")
    text = prompt.user.strip()
    delay = float(os.environ.get("CHAT_PROC_SLOW", "60")) if "slow" in text else None
    return Reply(f"echo: {text}", delay=delay)


if __name__ == "__main__":
    ScriptedModel.register("pty", responder=answer, direct=True)
    sys.exit(main(sys.argv[1:]))
