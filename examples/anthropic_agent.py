"""An agent whose memory is Anthropic's memory tool, kept in a Reverie workspace.

    pip install "reverie[anthropic]"
    python examples/anthropic_agent.py [WORKSPACE]

With ANTHROPIC_API_KEY set, Claude itself uses the tool (``tool_runner``); without it, the example
makes the tool calls Claude makes, so it runs offline: it looks, adds a line to USER.md, keeps its
own progress notes in a file it names, and tidies up with rename and delete. Every edit is a
commit: the example lists them and undoes the deletion.
"""

from __future__ import annotations

import os
import sys
import tempfile

import reverie
from reverie.integrations.anthropic import ReverieMemoryTool

PROMPT = "Please remember that I take my coffee black, no sugar."


def run(workspace: str) -> None:
    with reverie.open(workspace) as memory:
        memory.init()
        tool = ReverieMemoryTool(memory)
        if os.environ.get("ANTHROPIC_API_KEY"):
            import anthropic

            runner = anthropic.Anthropic().beta.messages.tool_runner(
                model=os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"),
                max_tokens=1024,
                tools=[tool],
                messages=[{"role": "user", "content": PROMPT}],
            )
            print(runner.until_done().content[-1])
        else:  # the calls Claude makes for PROMPT: look, read USER.md, add a line at its end
            print(tool.call({"command": "view", "path": "/memories"}))
            lines = len(memory.read("USER.md").splitlines())
            print(
                tool.call(
                    {
                        "command": "insert",
                        "path": "/memories/USER.md",
                        "insert_line": lines,
                        "insert_text": "- Takes coffee black, no sugar.",
                    }
                )
            )
            # a file of its own (a topic file: versioned, searchable, listed in the prompt by name)
            print(
                tool.call(
                    {
                        "command": "create",
                        "path": "/memories/progress/draft.md",
                        "file_text": "# Progress\n- Noted the coffee preference.\n",
                    }
                )
            )
            print(
                tool.call(
                    {
                        "command": "rename",
                        "old_path": "/memories/progress/draft.md",
                        "new_path": "/memories/progress/today.md",
                    }
                )
            )
            print(tool.call({"command": "delete", "path": "/memories/progress/today.md"}))
            try:  # history, cursors and paths outside /memories are out of reach
                tool.call({"command": "view", "path": "/memories/../reverie.json"})
            except Exception as exc:  # anthropic's ToolError: Claude sees it as an error result
                print(f"refused: {exc}")

        print("\nmemory's versions:")
        for commit in memory.log(limit=5):
            print(f"  {commit.sha[:8]}  {commit.kind:<7} {commit.subject}")
        latest = memory.log(limit=1, kind="agent")
        if (
            latest
        ):  # offline, the deletion: its lines went to the archive, a restore brings them back
            memory.restore(latest[0].sha, only=True)
            print(f"undid {latest[0].sha[:8]} ({latest[0].subject})")
            print("memory files now:", ", ".join(memory.files()))


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="reverie-anthropic-"))
