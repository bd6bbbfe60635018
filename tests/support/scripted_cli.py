"""The ``reverie`` CLI in its own process with a scripted model, for pty-driven tests (run by tests,
not collected).

usage: REVERIE_MODEL=scripted/pty python scripted_cli.py <reverie args...>

The model answers a chat turn with ``echo: <message>`` — after ``SCRIPTED_SLOW`` seconds (default
60) when the message contains "slow", so a test can press Ctrl-C mid-turn. Reverie's own tasks get
"(nothing)" (archive) and "[SKIP]" (the others), after ``SCRIPTED_SLOW`` seconds for the tasks named
in ``SCRIPTED_SLOW_TASKS`` (comma-separated), so a test can watch the status line. With
``SCRIPTED_WAITING`` set to a path, the model writes that file as it starts a slow reply's wait, so
a test signals the process in that wait as soon as it is there, not after a guessed time.
``direct=True``:
these tests exercise the terminal, not the provider path, and skip litellm's import.
"""

from __future__ import annotations

import os
import sys

from reverie.cli import main
from reverie.llm import protocol
from reverie.llm.scripted import Prompt, Reply, ScriptedModel


def answer(prompt: Prompt) -> Reply:
    slow = float(os.environ.get("SCRIPTED_SLOW", "60"))
    task = protocol.task_of(prompt.system)
    if task is not None:
        delay = slow if task in os.environ.get("SCRIPTED_SLOW_TASKS", "").split(",") else None
        return _waiting(Reply("(nothing)" if task == "archive" else "[SKIP]", delay=delay))
    text = prompt.user.strip()
    return _waiting(Reply(f"echo: {text}", delay=slow if "slow" in text else None))


def _waiting(reply: Reply) -> Reply:
    """``reply``, after writing ``SCRIPTED_WAITING``'s file when the reply is a slow one."""
    marker = os.environ.get("SCRIPTED_WAITING")
    if marker and reply.delay:
        with open(marker, "a") as f:
            f.write(f"{reply.delay}\n")
    return reply


if __name__ == "__main__":
    ScriptedModel.register("pty", responder=answer, direct=True)
    sys.exit(main(sys.argv[1:]))
