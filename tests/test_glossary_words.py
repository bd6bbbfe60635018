"""One name per concept (docs/glossary.md): words the glossary retired do not come back in code, help
texts or prompts. Read as text from the package (code, docstrings, help, the prompts sent to a
model) and from the generated CLI reference.

- Dream's work is not "consolidate": that word is the Consolidator's (sessions → history). History
  Dream has not read is *pending*, or "not yet in long-term memory" in words a model reads.
- The search tool a model is handed is ``search_memory`` everywhere; ``memory_search`` is only its
  old name, still answered by the chat agent (``reverie.recall.tool``), and the one-shot Python
  function ``reverie.recall.memory_search``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "reverie"

#: Phrases that call Dream's work consolidation.
DREAM_CONSOLIDATES = re.compile(
    r"Dream (?:has not|hasn't) consolidated|not yet consolidated|consolidates? pending history"
    r"|consolidated? (?:\w+ ){0,2}into (?:long-term )?memory",
    re.I,
)
#: The search tool by its old name, as a string a model or a client would see (an ``__all__`` entry
#: naming the Python function is not one).
OLD_TOOL = re.compile(r"""["']memory_search["']""")
EXPORT = re.compile(r"""^\s*(?:__all__ = \[.*)?["']memory_search["'],?\s*(?:\])?\s*$""")
OLD_TOOL_HOME = PACKAGE / "recall" / "tool.py"


def _texts() -> list[Path]:
    files = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".md", ".html")]
    return [*sorted(files), ROOT / "docs" / "cli.md"]


def test_dreams_work_is_never_called_consolidation() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()[:90]}"
        for path in _texts()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DREAM_CONSOLIDATES.search(line)
    ]
    assert not found, "Dream's work called consolidation (see docs/glossary.md):\n" + "\n".join(
        found
    )


def test_the_search_tool_has_one_name() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _texts()
        if path != OLD_TOOL_HOME
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OLD_TOOL.search(line) and not EXPORT.match(line)
    ]
    assert not found, f"the search tool by its old name (it is search_memory): {found}"


def test_the_checks_find_what_they_look_for() -> None:
    assert DREAM_CONSOLIDATES.search("the recent history Dream has not consolidated yet")
    assert DREAM_CONSOLIDATES.search("dream: consolidate pending history into memory now")
    assert not DREAM_CONSOLIDATES.search("consolidate a session into history")
    assert OLD_TOOL.search('if call.name == "memory_search":')
