"""Every example agent in examples/ runs as a user would run it (a subprocess, offline, no API key)
and does what its docstring says: memory written, listed as versions, undone."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import ROOT

EXAMPLES = {
    # example: (the framework it needs, what its output must show)
    "anthropic_agent.py": (
        "anthropic",
        [
            "The file /memories/USER.md has been edited.",
            "File created successfully at: /memories/progress/draft.md",
            "Successfully renamed /memories/progress/draft.md to /memories/progress/today.md",
            "Successfully deleted /memories/progress/today.md",
            "refused: Error: The path /memories/../reverie.json is not allowed",
            "agent   agent: memory tool insert /memories/USER.md",
            "(agent: delete memory/topics/progress/today.md",
            "memory/topics/progress/today.md",
        ],
    ),
    "openai_agents_agent.py": (
        "agents",
        [
            "(turn 2) you said: What did I just tell you?",
            "(remember) remembered (history entry",
            "'- Lives in Lisbon'",
            "Lisbon in USER.md: False",
        ],
    ),
    "pydantic_ai_agent.py": (
        "pydantic_ai",
        [
            "(remember) remembered (history entry 1)",
            "The user's favourite editor is Helix.",
            "'- Favourite editor: Helix'",
            "Helix in USER.md: False",
        ],
    ),
    "agent_framework_agent.py": (
        "agent_framework",
        [
            "remembered (history entry 1)",
            "I prefer Helix over Vim.",
            "'- Prefers Helix over Vim'",
            "Helix in USER.md: False",
        ],
    ),
    "google_adk_agent.py": (
        "google.adk",
        [
            "ada's memory: 'My name is Ada and I live in Lisbon.'",
            "bob's memory finds 0 result(s)",
            "'- Lives in Lisbon'",
            "dream ",
        ],
    ),
}


def test_every_example_is_tested() -> None:
    assert sorted(p.name for p in (ROOT / "examples").glob("*.py")) == sorted(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_runs_offline(tmp_path: Path, name: str) -> None:
    framework, expected = EXAMPLES[name]
    if find_spec(framework.split(".")[0]) is None or find_spec(framework) is None:
        pytest.skip(f"{framework} is not installed (reverie's extra for it)")
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "REVERIE_EXAMPLE_MODEL")
    }
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), str(tmp_path / "ws")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    missing = [text for text in expected if text not in done.stdout]
    assert not missing, f"{name} output lacks {missing}:\n{done.stdout}"
