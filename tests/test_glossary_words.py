"""One name per concept (docs/glossary.md): words the glossary retired do not come back in code, help
texts, prompts or docs. Read as text from the package (code, docstrings, help, the prompts sent to
a model) and from every page a person reads (README.md, CONTRIBUTING.md, docs/, the generated
references included).

- Dream's work is not "consolidate": that word is the Consolidator's (sessions → history). History
  Dream has not read is *pending*, or "not yet in long-term memory" in words a model reads.
- The search tool a model is handed is ``search_memory`` everywhere; ``memory_search`` is only its
  old name, still answered by the chat agent (``reverie.recall.tool``), and the one-shot Python
  function ``reverie.recall.memory_search``.
- "archive" is ``memory/archive/`` alone: the Consolidator's moving of messages into history is
  consolidating (its model-free fallback a raw entry), history is a log, a bundle a tar file.
- "pending" is history past the Dream cursor alone: a SOUL.md change waiting for a person is a
  proposal, a person's edit git has not recorded is an uncommitted edit.

First names kept on purpose (on disk, on the wire, nanobot's, or aliases for callers) are listed in
``KEPT`` with the one file each may appear in; what an entry matches is taken out of the line and
the rest is still checked. On a page, a test's name in backticks (``::test_…``) is a reference to
code, not prose: it is left out too.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "reverie"
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
#: A test named on a page (``tests/test_x.py::test_y`` or ``::test_y``): code, not the page's words.
TEST_NAME = re.compile(r"`[^`\s]*::test_\w*`")

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


#: The Consolidator's work, raw entries, history or a bundle called an archive.
ARCHIVE_MISUSED = re.compile(
    r"raw[ -]archiv|raw_archive_entries|\b(?:un|re-?)archiv|append-only archive|legacy archive"
    r"|tar archive|archived entries|the archiver|archiv\w* (?:\w+ ){0,4}into history"
    r"|archiv\w* (?:its |the )?old(?:est)? (?:messages|turns)"
    r"|\barchive_all\b|\barchived_messages\b|\barchive_idle_sessions\b|_archive_slice|_archive_all_locked"
    # the Consolidator's moving of messages, in the words the docs used for it
    r"|Consolidator archives|archive[sd]? (?:everything|the rest|some slices|(?:a )?smaller slices?)"
    r"|archived raw|not (?:yet )?archived|archived yet|already archived|archives? first|archives again"
    r"|archiver(?:'s| lock)|(?:one|every) archiver|archive call|archive round|archived before"
    r"|archive and offset|session archived|archiving of idle|entries archived",
    re.I,
)
#: A SOUL.md proposal (or an uncommitted edit, or the commit intent marker) called pending.
PENDING_MISUSED = re.compile(
    r"\bPendingChange\b|\bload_pending\b|\bpending_path\b|\brecover_pending\b"
    r"|SOUL\.md change (?:is |was )?pending|pending (?:SOUL\.md )?(?:change|proposal|record|edit)s?\b"
    r"|the one\s+pending\b(?!_)|proposal pending|the pending one\b",
    re.I,
)
#: Where a retired word may stay, and why: (file, what the line holds).
KEPT: list[tuple[str, re.Pattern[str]]] = [
    # nanobot's parameter name in its compatible API (MemoryStore.consolidate and the seed API)
    ("reverie/compat/nanobot_api.py", re.compile(r"\barchive_all\b")),
    ("reverie/consolidator/seed.py", re.compile(r"\barchive_all\b")),
    # first names, kept as aliases for callers
    ("reverie/consolidator/consolidator.py", re.compile(r"def archive(?:_all|d_messages)\(")),
    ("reverie/memory/session_jobs.py", re.compile(r"\barchive_idle_sessions\b")),
    ("reverie/dream/pending.py", re.compile(r".")),
    ("reverie/__init__.py", re.compile(r"\bPendingChange\b")),
    # i36d's offline engine (being rewritten in parallel): its "raw archives" are raw entries
    ("reverie/llm/offline/engine.py", re.compile(r"raw archive|archiver")),
    # mem0's ``archived`` switch (search's archived lines are memory/archive/'s)
    ("reverie/operations/items.py", re.compile(r"if not archived and")),
    # the glossary lists the retired and the kept names, quoted
    ("docs/glossary.md", re.compile(r"`[^`]*`|\"the pending change\"")),
    # nanobot's compatible API by its own names (its MemoryStore.consolidate)
    (
        "docs/nanobot.md",
        re.compile(r"`consolidate\(session, provider, model, archive_all=, memory_window=\)`"),
    ),
    ("docs/consolidator.md", re.compile(r"archive_all=False")),
    # Reverie's alias, documented as such
    ("docs/api-names.md", re.compile(r"`PendingChange`")),
]


def _misused(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in _texts():
        rel = path.relative_to(ROOT).as_posix()
        kept = [allowed for name, allowed in KEPT if name == rel]
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(_words(line, path, kept)):
                found.append(f"{rel}:{n}: {line.strip()[:90]}")
    return found


def _words(line: str, path: Path, kept: list[re.Pattern[str]]) -> str:
    """``line`` without what its file may keep (and, on a page, without the tests it names)."""
    for allowed in [*kept, TEST_NAME] if path.suffix == ".md" else kept:
        line = allowed.sub(" ", line)
    return line


def _texts() -> list[Path]:
    files = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".md", ".html")]
    return [*sorted(files), *PAGES]


def test_dreams_work_is_never_called_consolidation() -> None:
    found = _misused(DREAM_CONSOLIDATES)
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


def test_archive_is_memory_archive_only() -> None:
    found = _misused(ARCHIVE_MISUSED)
    assert not found, '"archive" for something other than memory/archive/:\n' + "\n".join(found)


def test_pending_is_history_dream_has_not_read() -> None:
    found = _misused(PENDING_MISUSED)
    assert not found, '"pending" for something other than undreamed history:\n' + "\n".join(found)


def test_the_kept_names_are_still_there() -> None:
    """An entry of ``KEPT`` whose name is gone from its file is stale: remove it."""
    stale = [
        name
        for name, allowed in KEPT
        if not any(allowed.search(line) for line in (ROOT / name).read_text("utf-8").splitlines())
    ]
    assert not stale, f"KEPT entries no longer needed: {stale}"


def test_the_checks_find_what_they_look_for() -> None:
    assert DREAM_CONSOLIDATES.search("the recent history Dream has not consolidated yet")
    assert DREAM_CONSOLIDATES.search("dream: consolidate pending history into memory now")
    assert not DREAM_CONSOLIDATES.search("consolidate a session into history")
    assert OLD_TOOL.search('if call.name == "memory_search":')
    assert ARCHIVE_MISUSED.search("the Consolidator archives the oldest turns into history")
    assert ARCHIVE_MISUSED.search("when it fails, the slice is raw-archived")
    assert ARCHIVE_MISUSED.search("result.archived_messages")
    assert not ARCHIVE_MISUSED.search("Dream's lifecycle archives its least salient lines")
    assert not ARCHIVE_MISUSED.search("the line moves to memory/archive/user.md")
    assert ARCHIVE_MISUSED.search("the Consolidator archives old messages when the prompt nears")
    assert ARCHIVE_MISUSED.search("`clear_session` archives first, then clears")
    assert ARCHIVE_MISUSED.search("take the session's archiver lock like every archiver")
    assert ARCHIVE_MISUSED.search("16 entries archived (9 of the rounds forced by token pressure)")
    assert not ARCHIVE_MISUSED.search("nothing is archived into it this run")
    assert not ARCHIVE_MISUSED.search("a file over budget is archived down to its target")
    assert PENDING_MISUSED.search("No SOUL.md change was pending.")
    assert PENDING_MISUSED.search("rejected the pending SOUL.md change")
    assert PENDING_MISUSED.search("a person's pending edits of tracked files")
    assert PENDING_MISUSED.search("a second proposal is merged into the pending one")
    assert not PENDING_MISUSED.search("3 entries pending: send /dream again")
    assert not PENDING_MISUSED.search("the MCP tool pending_soul_change")


def test_a_page_is_checked_but_the_tests_it_names_are_not() -> None:
    page = ROOT / "docs" / "x.md"
    named = (
        "- Kept: `tests/test_c.py::test_new_session_keeps_the_session_when_even_raw_archive_fails`"
    )
    assert not ARCHIVE_MISUSED.search(_words(named, page, []))
    assert ARCHIVE_MISUSED.search(_words(named + ", and raw archives too", page, []))
    assert ARCHIVE_MISUSED.search(_words("the Consolidator archives old turns", page, []))
    assert (ROOT / "docs" / "chat.md") in _texts() and (ROOT / "README.md") in _texts()
