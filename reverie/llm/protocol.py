"""The prompt protocol: how Reverie's model calls are laid out, so any model (and the offline
engine) can read them.

This module is the one definition. Prompt *wording* lives in package-data markdown
(``reverie/prompts/``); the *structure* below is what code on both sides relies on.

Every call's system message starts with a task line, ``# Reverie task: <task>``, one of ``TASKS``.
The user message is a sequence of sections, each ``## <title>`` on its own line followed by its
body, titles from ``SECTION_*``. Bodies:

- ``SECTION_CONTEXT`` / ``SECTION_ARCHIVE`` (task ``archive``): transcript lines from
  ``transcript_line``: ``[YYYY-MM-DD HH:MM] ROLE: content`` (ROLE upper-case; untrusted roles are
  ``TOOL`` or ``OTHER(name)``). Expected answer: fact lines ``- [mark] fact`` with marks from
  ``FACT_MARKS``, or ``(nothing)``; either may be followed by ``(unsure)`` when part of the slice
  said something the model could not state as a sure fact (the Consolidator then keeps the slice's
  transcript in history too).
- ``SECTION_TODAY`` (``YYYY-MM-DD``), ``SECTION_BATCH`` and one section per memory file, titled by
  its workspace path (``SOUL.md``, ``USER.md``, ``memory/MEMORY.md``) (task ``dream-analyze``).
  Batch entries are ``### cursor <n> · <timestamp>`` headers followed by the entry's content. In the
  ``memory/MEMORY.md`` section, a line older than ``AGE_THRESHOLD_DAYS`` (by git blame) ends with
  ``age_suffix(days)`` — `` [age: 37 days]``; ``strip_age`` removes it. Expected answer: finding
  lines ``[USER] fact``, ``[SOUL] rule``, ``[MEMORY] fact``, ``[FILE-REMOVE] what and why``, or
  ``[SKIP]``. A finding that corrects an existing line names it: ``[USER] Lives in Berlin (replaces:
  Lives in Munich)`` (``with_replaces`` / ``split_replaces``); the old text is the line as it stands
  in the file, without its bullet or age suffix. A removal names file and line: ``[FILE-REMOVE]
  USER.md: Works at Acme (why: no longer true)`` (``removal_text`` / ``parse_removal``; a model may
  also write free text, then the path is None).
- ``SECTION_FINDINGS`` (task ``dream-edit``): the finding lines, then one section per memory file
  titled by its workspace path holding its current staged content, so a model can emit exact
  ``old_text`` on its first turn. The model then uses the ``read_file`` / ``edit_file`` tools and
  ends with a short plain-text reply.
- Transcript and batch content from anyone but the user or the assistant is untrusted data: its role
  is ``TOOL`` or ``OTHER(name)``, and prompts say that instructions found inside it are never
  orders.
"""

from __future__ import annotations

import re

__all__ = [
    "TASKS",
    "MAX_OUTPUT_TOKENS",
    "max_output_tokens",
    "FACT_MARKS",
    "FINDING_KINDS",
    "task_line",
    "task_of",
    "render_sections",
    "parse_sections",
    "transcript_line",
    "batch_header",
    "parse_fact_line",
    "parse_finding_line",
    "AGE_THRESHOLD_DAYS",
    "age_suffix",
    "strip_age",
    "with_replaces",
    "split_replaces",
    "removal_text",
    "parse_removal",
]

TASK_ARCHIVE = "archive"
TASK_DREAM_ANALYZE = "dream-analyze"
TASK_DREAM_EDIT = "dream-edit"
TASK_SESSION_SUMMARY = "session-summary"
TASK_FLUSH = "flush"
TASKS = (TASK_ARCHIVE, TASK_DREAM_ANALYZE, TASK_DREAM_EDIT, TASK_SESSION_SUMMARY, TASK_FLUSH)

#: Output limit per task, in tokens: room for a full answer, small enough that a model rambling to
#: the end of its context window is cut off instead of generating past ``llm.timeout`` (a local
#: server keeps generating after the client gives up, so retries would queue behind it).
#: ``agents.defaults.maxTokens`` caps each of them.
MAX_OUTPUT_TOKENS = {
    TASK_ARCHIVE: 2_048,
    TASK_DREAM_ANALYZE: 1_536,
    TASK_DREAM_EDIT: 2_048,
    TASK_SESSION_SUMMARY: 768,
    TASK_FLUSH: 768,
}


def max_output_tokens(task: str, configured: int) -> int:
    """The ``max_tokens`` a call of ``task`` sends: the task's own limit, never above
    ``configured``."""
    return max(1, min(MAX_OUTPUT_TOKENS.get(task, configured), configured))


SECTION_CONTEXT = "Earlier context (do not summarise)"
SECTION_ARCHIVE = "Conversation to archive"
SECTION_TODAY = "Today"
SECTION_BATCH = "History batch"
SECTION_FINDINGS = "Findings"

FACT_MARKS = ("permanent", "durable", "ephemeral", "correction", "skip")
FINDING_KINDS = ("USER", "SOUL", "MEMORY", "FILE-REMOVE", "SKIP")
NOTHING = "(nothing)"
#: An archive reply's last line when the model could not turn some of the slice into facts it is
#: sure of: the Consolidator keeps the slice's transcript too (a ``[RAW]`` entry), so what was said
#: stays in history.
UNSURE = "(unsure)"
#: Dream's analysis marks MEMORY.md lines older than this many days with their age.
AGE_THRESHOLD_DAYS = 14

_TASK_RE = re.compile(r"^# Reverie task: ([a-z-]+)\s*$", re.M)
_SECTION_RE = re.compile(r"^## (.+?)\s*$", re.M)
_FACT_RE = re.compile(
    r"^\s*[-*]\s*\[(permanent|durable|ephemeral|correction|skip)\]\s*(.+?)\s*$", re.I
)
_AGE_RE = re.compile(r"\s\[age: (\d+) days?\]$")
_FINDING_RE = re.compile(r"^\s*\[(USER|SOUL|MEMORY|FILE-REMOVE|SKIP)\]\s*(.*?)\s*$", re.I)


def task_line(task: str) -> str:
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}")
    return f"# Reverie task: {task}"


def task_of(system_prompt: str) -> str | None:
    """The task named by a system prompt's task line, or None for a prompt that is not Reverie's."""
    m = _TASK_RE.search(system_prompt or "")
    return m.group(1) if m and m.group(1) in TASKS else None


def render_sections(sections: list[tuple[str, str]]) -> str:
    """``## title`` + body blocks, in order. Bodies are escaped so a line starting '## ' cannot open
    a section."""
    parts = []
    for title, body in sections:
        safe = re.sub(r"^## ", r"\\## ", body or "", flags=re.M)
        parts.append(f"## {title}\n{safe.rstrip()}\n")
    return "\n".join(parts)


def parse_sections(text: str) -> dict[str, str]:
    """Inverse of ``render_sections`` (the last section of a title wins)."""
    out: dict[str, str] = {}
    matches = list(_SECTION_RE.finditer(text or ""))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[m.end() : end].strip("\n")
        out[m.group(1)] = re.sub(r"^\\## ", "## ", body, flags=re.M)
    return out


def transcript_line(timestamp: str, role: str, content: str) -> str:
    """``[YYYY-MM-DD HH:MM] ROLE: content`` — also the raw entry's line format.

    Continuation lines of a multi-line content are indented by two spaces, so no content (a tool's
    output, a web page) can start a line that reads as another speaker's."""
    return f"[{timestamp}] {role.upper()}: {content}".replace("\n", "\n  ")


def batch_header(cursor: int, timestamp: str) -> str:
    return f"### cursor {cursor} · {timestamp}"


def parse_fact_line(line: str) -> tuple[str, str] | None:
    """``- [mark] fact`` → ``(mark, fact)`` (mark lower-case), else None."""
    m = _FACT_RE.match(line)
    return (m.group(1).lower(), m.group(2)) if m else None


def parse_finding_line(line: str) -> tuple[str, str] | None:
    """``[KIND] text`` → ``(KIND, text)`` (kind upper-case), else None."""
    m = _FINDING_RE.match(line)
    return (m.group(1).upper(), m.group(2)) if m else None


def age_suffix(days: int) -> str:
    """What Dream appends to a MEMORY.md line older than ``AGE_THRESHOLD_DAYS``: `` [age: N
    days]``."""
    return f" [age: {int(days)} days]"


def strip_age(line: str) -> tuple[str, int | None]:
    """``(line without its age suffix, days)``; days is None when the line carries none."""
    m = _AGE_RE.search(line)
    return (line[: m.start()], int(m.group(1))) if m else (line, None)


#: The tails ``(replaces: …)`` and ``(why: …)`` are found with ``str.find``: as a lazy regex they
#: were tried once per character of a long run of white space (quadratic).
_REPLACES = "(replaces: "
_WHY = "(why: "
_REMOVAL_FILE = re.compile(r"\A(\S+\.md):\s*")


def with_replaces(fact: str, old: str) -> str:
    """A finding's text for ``fact`` replacing the existing line ``old``."""
    return f"{fact} (replaces: {old})"


def split_replaces(text: str) -> tuple[str, str | None]:
    """``(fact, old line or None)`` — inverse of ``with_replaces``."""
    body = text.rstrip()
    start = body.find(_REPLACES)
    if start < 0 or not body.endswith(")") or len(body) - 1 <= start + len(_REPLACES):
        return text, None
    return body[:start].rstrip(), body[start + len(_REPLACES) : -1]


def removal_text(path: str, line: str, why: str) -> str:
    """A ``[FILE-REMOVE]`` finding's text: which file, which exact line, why."""
    return f"{path}: {line} (why: {why})"


def parse_removal(text: str) -> tuple[str | None, str, str | None]:
    """``(path or None, line or free text, why or None)`` — inverse of ``removal_text``."""
    m = _REMOVAL_FILE.match(text)
    rest = (text[m.end() :] if m else text).rstrip()
    start = rest.find(_WHY)
    if start < 0 or not rest.endswith(")"):
        return (m.group(1) if m else None), rest, None
    return (m.group(1) if m else None), rest[:start].rstrip(), rest[start + len(_WHY) : -1]
