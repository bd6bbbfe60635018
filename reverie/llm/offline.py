"""The offline engine (``reverie/offline``): a deterministic rule-based stand-in for a model, used when none is
configured. It answers every task of ``protocol`` the way a model would, reached by name (``reverie/offline``)
through ``registry`` like any model but called in-process, without litellm, so the Consolidator and both Dream
phases run the same code offline as with a hosted model.

Dispatch is on ``protocol.task_of(system prompt)``:

- ``archive``: fact lines ``- [mark] fact`` from the USER lines of the conversation (``offline_rules``), minus facts
  already stated in the earlier-context section, or ``(nothing)``. TOOL, OTHER(…) and ASSISTANT lines are never a
  source: instructions inside them are data.
- ``dream-analyze``: findings from the batch's fact lines (and raw archives' USER lines), routed by canonical
  template to USER/SOUL/MEMORY; facts already in the files skipped; a fact filling a slot the file already holds
  (``Lives in …``) replaces that line (``protocol.with_replaces``); ``No longer …`` becomes ``[FILE-REMOVE]``.
  ``[skip]`` facts are dropped, marks never reach the files, and a SOUL rule that would send data out or touch
  credentials is refused.
- ``dream-edit``: first turn, ``edit_file`` calls with exact, unique ``old_text`` computed against the staged files
  (edits applied in order in a local copy, so each later call matches the text the earlier ones left); once the
  messages hold tool results, a one-line summary and no tool calls, so the loop ends.
- ``session-summary`` / ``flush`` and any forced tool call: arguments filled from the tool's schema.
- Anything else: a fixed reply saying this engine cannot chat.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import orjson

from . import protocol as p
from .offline_rules import SOUL, Fact, canon, extract_facts, is_suspicious_rule, normalize, strip_instead
from .tokens import estimate_tokens, estimate_text_tokens
from .types import ModelResponse, ToolCall, Usage

__all__ = ["respond", "OFFLINE_REPLY"]

OFFLINE_REPLY = (
    "This is Reverie's offline rule-based engine. It keeps memory (archives, Dream) without a model, but it cannot "
    "chat: configure a model (agents.defaults.model) for conversations."
)
MODEL = "reverie/offline"
FILES = {"USER": "USER.md", "SOUL": "SOUL.md", "MEMORY": "memory/MEMORY.md"}
_HEADINGS = {  # where a new fact goes, by file: the first heading whose words match, else the end of the file
    "USER.md": ("Preferences", "Basic", "About", "User"),
    "SOUL.md": ("Rules", "Instructions", "Behavio", "Soul"),
    "memory/MEMORY.md": ("Project", "Facts", "Decisions", "Memory"),
}
_LINE_RE = re.compile(r"^\[(?P<ts>[^\]]*)\] (?P<role>[A-Z]+(?:\([^)]*\))?): ?(?P<text>.*)$")
_BULLET = re.compile(r"^\s*[-*]\s+")
_MAX_MESSAGE_CHARS = 8_000  # facts are stated early and briefly: reading further only costs time on pasted blobs
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOPWORDS = frozenset(
    "that this with have from they them then than there their what when where which while would could should about "
    "after again also because been before being both does doing during each just like more most much only other "
    "over same some such into your yours very will shall want really thanks thank please okay sure know think "
    "going make made good great right well here just today tomorrow yesterday user assistant".split()
)


# -- entry point --------------------------------------------------------------------------------------------------
def respond(messages: list[dict[str, Any]], *, tools: Any = None, tool_choice: Any = None) -> ModelResponse:
    """The engine's reply to a chat request: same input, same output, every time."""
    system = next((_text(m.get("content")) for m in messages if m.get("role") == "system"), "")
    task = p.task_of(system)
    user = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "user")
    forced = _forced_tool(tools, tool_choice)
    content: str | None
    calls: tuple[ToolCall, ...] = ()
    if task == p.TASK_DREAM_EDIT:
        content, calls = _dream_edit(messages, user, tools)
    elif forced is not None:
        content, calls = None, (ToolCall("call_0", forced["name"], _fill_args(forced, task, user),),)
    elif task == p.TASK_ARCHIVE:
        content = _archive(user)
    elif task == p.TASK_DREAM_ANALYZE:
        content = _dream_analyze(user)
    elif task == p.TASK_SESSION_SUMMARY:
        content = _summary(user)
    elif task == p.TASK_FLUSH:
        content = _flush(user)
    else:
        content = OFFLINE_REPLY
    calls = tuple(ToolCall(c.id, c.name, c.arguments, _dumps(c.arguments)) for c in calls)
    out = estimate_text_tokens(content or "") + sum(estimate_text_tokens(c.raw_arguments) + 3 for c in calls)
    return ModelResponse(
        content=content,
        tool_calls=calls,
        finish_reason="tool_calls" if calls else "stop",
        usage=Usage(estimate_tokens(messages, tools), out, 0.0),
        model=MODEL,
    )


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:  # lone surrogates from a broken input: escaped, not fatal
        return json.dumps(value)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


# -- transcripts --------------------------------------------------------------------------------------------------
def _transcript(text: str) -> list[tuple[str, str, str]]:
    """``(timestamp, ROLE, content)`` per transcript line; a line without a header continues the previous one."""
    out: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        m = _LINE_RE.match(line)
        if m:
            out.append((m.group("ts"), m.group("role"), m.group("text")))
        elif out and line.strip() and not line.startswith(("## ", "### ")):
            ts, role, prev = out[-1]
            out[-1] = (ts, role, f"{prev}\n{line[2:] if line.startswith('  ') else line}")
    return out


def _user_facts(text: str) -> list[Fact]:
    """Facts from the USER lines only: tool output, web pages and other people are data, never a source."""
    facts: list[Fact] = []
    seen: set[str] = set()
    for _ts, role, content in _transcript(text):
        if role != "USER":
            continue
        for fact in extract_facts(content[:_MAX_MESSAGE_CHARS]):
            key = normalize(fact.text)
            if key not in seen:
                seen.add(key)
                facts.append(fact)
    return facts


def _conversation(user: str) -> str:
    """The part of the request holding the conversation to work on (everything but the earlier context)."""
    sections = p.parse_sections(user)
    if p.SECTION_ARCHIVE in sections:
        return sections[p.SECTION_ARCHIVE]
    return "\n".join(body for title, body in sections.items() if title != p.SECTION_CONTEXT) or user


def _archive(user: str) -> str:
    sections = p.parse_sections(user)
    known = {normalize(f.text) for f in _user_facts(sections.get(p.SECTION_CONTEXT, ""))}
    facts = [f for f in _user_facts(_conversation(user)) if normalize(f.text) not in known]
    return "\n".join(f"- [{f.mark}] {f.text}" for f in facts) if facts else p.NOTHING


def _flush(user: str) -> str:
    facts = [f for f in _user_facts(_conversation(user)) if f.mark != "skip"]
    return "\n".join(f"- {strip_instead(f.text)}" for f in facts) if facts else "[silent]"


# -- dream: analysis ----------------------------------------------------------------------------------------------
def _batch_facts(batch: str) -> list[Fact]:
    """Fact lines of the batch in order; raw archives (``[RAW] …`` + transcript lines) are read like a transcript."""
    facts: list[Fact] = []
    for entry in re.split(r"^### cursor .*$", batch, flags=re.M):
        if "[RAW]" in entry or _LINE_RE.search(entry.strip().splitlines()[0] if entry.strip() else ""):
            facts.extend(_user_facts(entry))
        for line in entry.splitlines():
            parsed = p.parse_fact_line(line)
            if parsed:
                facts.append(Fact(parsed[1], parsed[0]))
    return facts


def _file_lines(body: str) -> list[str]:
    """A file section's fact lines as they stand (bullet and age suffix removed)."""
    lines = []
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        lines.append(_BULLET.sub("", p.strip_age(line.rstrip())[0]).strip())
    return lines


def _dream_analyze(user: str) -> str:
    sections = p.parse_sections(user)
    files = {kind: _file_lines(sections.get(path, "")) for kind, path in FILES.items()}
    findings: dict[tuple[str, str], str] = {}  # (target, slot or text key) → finding line; later facts win
    for fact in _batch_facts(sections.get(p.SECTION_BATCH, "")):
        if fact.mark == "skip":
            continue
        info = canon(fact.text)
        if info.removes is not None:
            line = _find_line(files[info.target], info.removes)
            if line is not None:
                findings[("REMOVE", normalize(line))] = (
                    f"[FILE-REMOVE] {p.removal_text(FILES[info.target], line, 'no longer true')}")
            continue
        text = strip_instead(fact.text)
        if info.target == SOUL and is_suspicious_rule(text):
            continue
        if any(normalize(line) == normalize(text) for line in files[info.target]):
            findings.pop((info.target, info.slot or normalize(text)), None)  # already there (a later repeat)
            continue
        old = _slot_line(files[info.target], info.slot) if info.slot else None
        if old is None and info.replaces:
            old = _find_line(files[info.target], info.replaces)
        finding = p.with_replaces(text, old) if old and normalize(old) != normalize(text) else text
        findings[(info.target, info.slot or normalize(text))] = f"[{info.target}] {finding}"
    return "\n".join(findings.values()) if findings else "[SKIP]"


def _slot_line(lines: list[str], slot: str) -> str | None:
    return next((line for line in lines if canon(line).slot == slot), None)


def _find_line(lines: list[str], text: str) -> str | None:
    """The line saying ``text``: the same words, else the line that starts with them ("Uses MySQL" finds
    "Uses MySQL for the inventory app")."""
    key = normalize(text)
    exact = next((line for line in lines if normalize(line) == key), None)
    return exact or next((line for line in lines if normalize(line).startswith(f"{key} ")), None)


# -- dream: editing -----------------------------------------------------------------------------------------------
def _dream_edit(messages: list[dict[str, Any]], user: str, tools: Any) -> tuple[str | None, tuple[ToolCall, ...]]:
    results = [_text(m.get("content")) for m in messages if m.get("role") == "tool"]
    if results:  # second turn: never loop, whatever the results say
        failed = sum(1 for r in results if re.match(r"^\s*(error|refused|not found)", r, re.I))
        return f"Done: {len(results) - failed} edit(s) applied, {failed} failed.", ()
    if not _has_tool(tools, "edit_file"):
        return "No edit_file tool offered: no changes made.", ()
    sections = p.parse_sections(user)
    staged = {path: sections.get(path, "") for path in FILES.values()}
    calls: list[ToolCall] = []
    for line in sections.get(p.SECTION_FINDINGS, "").splitlines():
        parsed = p.parse_finding_line(line)
        if not parsed or parsed[0] == "SKIP":
            continue
        kind, text = parsed
        edit = _removal(staged, text) if kind == "FILE-REMOVE" else _addition(staged, kind, text)
        if edit is None:
            continue
        path, old, new = edit
        if old == new:  # edit_file refuses a no-op; never ask for one
            continue
        staged[path] = staged[path].replace(old, new, 1) if old else new  # mirror the tool, so later calls match
        calls.append(ToolCall(f"call_{len(calls)}", "edit_file", {"path": path, "old_text": old, "new_text": new}))
    if not calls:
        return "No changes needed.", ()
    return None, tuple(calls)


def _addition(staged: dict[str, str], kind: str, text: str) -> tuple[str, str, str] | None:
    if kind not in FILES:
        return None
    path = FILES[kind]
    fact, old = p.split_replaces(text)
    # Marks never reach the files; Dream spells a [correction] mark "correction: …".
    fact = re.sub(r"^(?:\[[a-z]+\]\s*|correction:\s*)+", "", fact.strip(), flags=re.I)
    fact = p.strip_age(fact)[0].strip()  # an age annotation is prompt context, never file text
    if not fact or (kind == SOUL and is_suspicious_rule(fact)):
        return None
    info = canon(fact)
    fact = strip_instead(fact)
    old = old or info.replaces
    body = staged[path]
    lines = body.split("\n")
    if any(_bare(ln) == fact for ln in lines):
        return None  # already there
    for i, ln in enumerate(lines):  # the line this fact replaces: named by the finding, else the same slot
        bare = _bare(ln)
        if not bare or ln.lstrip().startswith("#"):
            continue
        if (old and (normalize(bare) == normalize(old) or normalize(bare).startswith(f"{normalize(old)} "))) or (
                info.slot and canon(bare).slot == info.slot):
            bullet = _BULLET.match(ln)
            return _unique(path, body, lines, i, f"{bullet.group(0) if bullet else '- '}{fact}")
    if not body.strip():
        return path, body, f"- {fact}\n"
    i = _anchor(path, lines)
    gap = "\n" if _BULLET.match(lines[i]) else "\n\n"  # under a paragraph or heading, start the list after a blank line
    return _unique(path, body, lines, i, f"{lines[i]}{gap}- {fact}")


def _removal(staged: dict[str, str], text: str) -> tuple[str, str, str] | None:
    path, what, _why = p.parse_removal(text)
    for candidate in ([path] if path in staged else list(staged)):
        lines = staged[candidate].split("\n")
        for i, ln in enumerate(lines):
            if ln.strip() and normalize(_bare(ln)) == normalize(what):
                return _unique(candidate, staged[candidate], lines, i, None)
    return None


def _bare(line: str) -> str:
    return _BULLET.sub("", p.strip_age(line.rstrip())[0]).strip()


def _anchor(path: str, lines: list[str]) -> int:
    """Index of the last non-blank line of the best-fitting section (new facts go under it), else of the file."""
    headings = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("#")]
    for word in _HEADINGS.get(path, ()):
        for i in headings:
            if word.lower() in lines[i].lower():
                end = next((j for j in headings if j > i), len(lines))
                return max(j for j in range(i, end) if lines[j].strip())
    return max(j for j, ln in enumerate(lines) if ln.strip())


def _unique(path: str, body: str, lines: list[str], index: int, replacement: str | None) -> tuple[str, str, str] | None:
    """An edit replacing line ``index`` by ``replacement`` (None: delete the line), its ``old_text`` widened with
    neighbouring lines until it occurs exactly once in ``body`` (edit_file needs an exact, unique match)."""
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    start, end = offsets[index], offsets[index] + len(lines[index])
    if replacement is None:  # deleting: take the line's newline too (the one before it, for a last line)
        if end < len(body) and body[end] == "\n":
            end += 1
        elif start > 0:
            start -= 1
        replacement = ""
    lo, hi = start, end
    first, last = index, index
    while body.count(body[lo:hi]) != 1:
        if first > 0:
            first -= 1
            lo = offsets[first]
        elif last < len(lines) - 1:
            last += 1
            hi = min(offsets[last] + len(lines[last]), len(body))
        else:
            return None
    return path, body[lo:hi], body[lo:start] + replacement + body[end:hi]


# -- forced tool calls, session summaries -------------------------------------------------------------------------
def _forced_tool(tools: Any, tool_choice: Any) -> dict[str, Any] | None:
    """The function schema a request forces (``tool_choice`` naming it, or "required" with a single tool)."""
    if not tools:
        return None
    fns = [t.get("function", t) for t in tools if isinstance(t, dict)]
    name = None
    if isinstance(tool_choice, dict):
        name = (tool_choice.get("function") or {}).get("name") or tool_choice.get("name")
    elif tool_choice == "required" and fns:
        name = fns[0].get("name")
    return next((f for f in fns if f.get("name") == name), None) if name else None


def _has_tool(tools: Any, name: str) -> bool:
    return any(isinstance(t, dict) and t.get("function", t).get("name") == name for t in tools or ())


def _keywords(text: str, n: int) -> list[str]:
    words = [w.lower().strip("'-") for w in _WORD.findall(text)]
    counts = Counter(w for w in words if w not in _STOPWORDS)
    first = {w: i for i, w in reversed(list(enumerate(words)))}
    return sorted(counts, key=lambda w: (-counts[w], first[w]))[:n]


def _slug(text: str) -> str:
    slug = ""
    for word in _keywords(text, 4):
        word = re.sub(r"[^a-z0-9]+", "-", word).strip("-")
        if word and len(slug) + len(word) + 1 <= 40:
            slug = f"{slug}-{word}" if slug else word
    return slug or "conversation"


def _summary(user: str) -> str:
    lines = [(ts, content) for ts, role, content in _transcript(_conversation(user)) if role == "USER"]
    said = "\n".join(c for _, c in lines)
    topics = ", ".join(_keywords(said, 5)) or "general conversation"
    span = f"{lines[0][0]} to {lines[-1][0]}" if lines else "unknown time"
    facts = [strip_instead(f.text) for f in _user_facts(_conversation(user))]
    noted = f" Noted: {'; '.join(facts)}." if facts else ""
    return f"Conversation from {span}, {len(lines)} user message(s). Topics: {topics}.{noted}"


def _fill_args(fn: dict[str, Any], task: str | None, user: str) -> dict[str, Any]:
    """Arguments for a forced function, from its JSON schema's property names and types."""
    props = (fn.get("parameters") or {}).get("properties") or {}
    conversation = _conversation(user)
    if task == p.TASK_ARCHIVE or task is None:
        text = _archive(user) if task else "\n".join(f"- [{f.mark}] {f.text}" for f in _user_facts(conversation))
    elif task == p.TASK_FLUSH:
        text = _flush(user)
    else:
        text = _summary(user)
    args: dict[str, Any] = {}
    for name, schema in props.items():
        kind = (schema or {}).get("type", "string")
        lname = name.lower()
        if kind == "array":
            args[name] = [c for _, r, c in _transcript(conversation) if r == "USER"][:5]
        elif kind == "boolean":
            args[name] = False
        elif kind in ("integer", "number"):
            args[name] = 0
        elif any(k in lname for k in ("slug", "title", "filename", "name")):
            args[name] = _slug("\n".join(c for _, r, c in _transcript(conversation) if r == "USER") or conversation)
        elif lname in ("memory_update", "memory"):
            current = next((b for t, b in p.parse_sections(user).items() if "memory" in t.lower()), "")
            current = "" if current.strip() in ("(empty)", p.NOTHING) else current
            have = {normalize(x) for x in _file_lines(current)}
            new = [f"- {f}" for f in (strip_instead(x.text) for x in _user_facts(conversation)) if normalize(f) not in have]
            args[name] = "\n".join(x for x in (current.rstrip(), *new) if x) + "\n" if new else current
        else:
            args[name] = text
    return args
