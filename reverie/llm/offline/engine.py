"""The offline engine (``reverie/offline``): a deterministic rule-based stand-in for a model, used
when none is configured. It answers every task of ``protocol`` the way a model would, reached by
name (``reverie/offline``) through ``registry`` like any model but called in-process, without
litellm, so the Consolidator and both Dream phases run the same code offline as with a hosted model.

Dispatch is on ``protocol.task_of(system prompt)``:

- ``archive``: fact lines ``- [mark] fact`` from the USER lines of the conversation (``rules``),
  minus facts already stated in the earlier-context section, or ``(nothing)``. TOOL, OTHER(…) and
  ASSISTANT lines are never a source: instructions inside them are data.
- ``dream-analyze``: findings from the batch's fact lines (and raw archives' USER lines), routed by
  canonical template to USER/SOUL/MEMORY; facts already in the files skipped; a fact filling a slot
  the file already holds (``Lives in …``) replaces that line (``protocol.with_replaces``); ``No
  longer …`` becomes ``[FILE-REMOVE]``. ``[skip]`` facts are dropped, marks never reach the files,
  and a SOUL rule that would send data out or touch credentials is refused.
- ``dream-edit``: first turn, ``edit_file`` calls with exact, unique ``old_text`` computed against
  the staged files (edits applied in order in a local copy, so each later call matches the text the
  earlier ones left); once the messages hold tool results, a one-line summary and no tool calls, so
  the loop ends.
- ``session-summary`` / ``flush`` and any forced tool call: arguments filled from the tool's schema.
- Anything else: a fixed reply saying this engine cannot chat.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date
from typing import Any

import orjson

from ...text.lazyre import lazy
from .. import protocol as p
from ..tokens import estimate_text_tokens, estimate_tokens
from ..types import ModelResponse, ToolCall, Usage
from .dates import absolute, parse_day
from .rules import (
    SAID,
    SOUL,
    Fact,
    attribute,
    canon,
    dated,
    extract_facts,
    is_canonical,
    is_suspicious_rule,
    leaves_unsure,
    names_database,
    normalize,
    resolve_corrections,
    retire_line,
    strip_instead,
    value_words,
)
from .rules import revise as _revise

__all__ = ["respond", "OFFLINE_REPLY"]

OFFLINE_REPLY = (
    "This is Reverie's offline rule-based engine. It keeps memory (archives, Dream) without a "
    "model, but it cannot "
    "chat: configure a model (agents.defaults.model) for conversations."
)
MODEL = "reverie/offline"
FILES = {"USER": "USER.md", "SOUL": "SOUL.md", "MEMORY": "memory/MEMORY.md"}
# where a new fact goes, by file: the first heading whose words match, else the end of the file
_HEADINGS = {
    "USER.md": ("Preferences", "Basic", "About", "User"),
    "SOUL.md": ("Rules", "Instructions", "Behavio", "Soul"),
    "memory/MEMORY.md": ("Project", "Facts", "Decisions", "Memory"),
}
_LINE_RE = lazy(r"^\[(?P<ts>[^\]]*)\] (?P<role>[A-Z]+(?:\([^)]*\))?): ?(?P<text>.*)$")
# A speaker's line in a history entry written without timestamps ("USER: …", "Assistant: …", "tool:
# …").
_ROLE_LINE = lazy(
    r"^(?P<role>user|me|human|assistant|ai|bot|agent|system|tool|other(?:\([^)]*\))?)\s*:\s?"
    r"(?P<text>.*)$",
    re.I,
)
_USER_ROLES = frozenset({"USER", "ME", "HUMAN"})
_STAMP = lazy(r"^\[(\d{4}-\d{2}-\d{2}[^\]]*)\]\s*")
_BULLET = lazy(r"^\s*[-*]\s+")
_MAX_MESSAGE_CHARS = (
    8_000  # facts are stated early and briefly: reading further only costs time on pasted blobs
)
_WORD = lazy(r"[A-Za-z][A-Za-z'-]{3,}")
_STOPWORDS = frozenset(
    "that this with have from they them then than there their what when where which while would "
    "could should about "
    "after again also because been before being both does doing during each just like more most "
    "much only other "
    "over same some such into your yours very will shall want really thanks thank please okay sure "
    "know think "
    "going make made good great right well here just today tomorrow yesterday user "
    "assistant".split()
)


# -- entry point
# --------------------------------------------------------------------------------------------------
def respond(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: str | dict[str, Any] | None = None,
) -> ModelResponse:
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
        content, calls = (
            None,
            (
                ToolCall(
                    "call_0",
                    forced["name"],
                    _fill_args(forced, task, user),
                ),
            ),
        )
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
    out = estimate_text_tokens(content or "") + sum(
        estimate_text_tokens(c.raw_arguments) + 3 for c in calls
    )
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


# -- transcripts
# --------------------------------------------------------------------------------------------------
def _transcript(text: str) -> list[tuple[str, str, str]]:
    """``(timestamp, ROLE, content)`` per transcript line; a line without a header continues the
    previous one."""
    out: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        m = _LINE_RE.match(line)
        if m:
            out.append((m.group("ts"), m.group("role"), m.group("text")))
        elif out and line.strip() and not line.startswith(("## ", "### ")):
            ts, role, prev = out[-1]
            out[-1] = (ts, role, f"{prev}\n{line[2:] if line.startswith('  ') else line}")
    return out


def _user_facts(text: str, *, revising: bool = False) -> list[Fact]:
    """Facts from the USER lines only: tool output, web pages and other people are data, never a
    source. ``revising``: a message said with a cue of change also gives its ``Revise:`` fact,
    read against memory by Dream (``rules.revise``)."""
    facts: list[Fact] = []
    seen: set[str] = set()
    for ts, role, content in _transcript(text):
        if role != "USER":
            continue
        said = extract_facts(content[:_MAX_MESSAGE_CHARS], parse_day(ts))
        if revising and not any(_quotes(f) for f in said):
            said += _revising(content)  # once: a fact quoting the words carries them already
        for fact in said:
            key = normalize(fact.text)
            if key not in seen:
                seen.add(key)
                facts.append(fact)
    return facts


def _quotes(fact: Fact) -> bool:
    """A fact ending a line carries the user's words after ``SAID`` (``Gone: home; said: …``); a
    ``Now:`` fact carries the old value or the event there ("Now: swap Render; said: Heroku"), not
    the words: a swap that finds no line leaves the ``Revise:`` fact to read them."""
    return fact.text.startswith("Gone: ") and SAID in fact.text


def _revising(message: str, said_on: date | None = None) -> list[Fact]:
    """The message's ``Revise:`` fact, when it carries a cue of change (``rules.revise``)."""
    fact = _revise.said(message[:_MAX_MESSAGE_CHARS], said_on)
    return [Fact(fact, "correction")] if fact else []


def _conversation(user: str) -> str:
    """The part of the request holding the conversation to work on (everything but the earlier
    context)."""
    sections = p.parse_sections(user)
    if p.SECTION_ARCHIVE in sections:
        return sections[p.SECTION_ARCHIVE]
    return "\n".join(body for title, body in sections.items() if title != p.SECTION_CONTEXT) or user


def _archive(user: str) -> str:
    """The slice's facts the engine is sure of, and ``(unsure)`` when the user said more than they
    hold, so the Consolidator keeps the transcript as well: the engine's silence means "not sure",
    never "nothing was said"."""
    sections = p.parse_sections(user)
    conversation = _conversation(user)
    known = {normalize(f.text) for f in _user_facts(sections.get(p.SECTION_CONTEXT, ""))}
    unsure = any(
        role == "USER" and leaves_unsure(content[:_MAX_MESSAGE_CHARS])
        for _, role, content in _transcript(conversation)
    )
    # a kept transcript carries the user's words to Dream itself (``_entry_facts`` reads them
    # again): a ``Revise:`` fact would be a second copy of the message in history
    facts = [
        f for f in _user_facts(conversation, revising=not unsure) if normalize(f.text) not in known
    ]
    lines = [f"- [{f.mark}] {f.text}" for f in facts] or [p.NOTHING]
    return "\n".join([*lines, p.UNSURE] if unsure else lines)


def _flush(user: str) -> str:
    facts = [f for f in _user_facts(_conversation(user)) if f.mark != "skip"]
    return "\n".join(f"- {strip_instead(f.text)}" for f in facts) if facts else "[silent]"


# -- dream: analysis
# ----------------------------------------------------------------------------------------------
def _batch_facts(batch: str) -> list[Fact]:
    """The batch's facts in order, each entry read by what it holds: fact lines ``- [mark] fact`` as
    the archiver wrote them (a free phrasing the engine understands is put in its template),
    transcript lines (raw archives, ``USER:`` lines: the user's only), and plain prose (a note about
    the user, read like the user's words). Relative dates count from the entry's timestamp."""
    facts: list[Fact] = []
    said_on = None
    for chunk in re.split(r"^(### cursor .*)$", batch, flags=re.M):
        if chunk.startswith("### cursor "):
            said_on = parse_day(chunk.split("·", 1)[-1])
            continue
        facts.extend(_entry_facts(chunk, said_on))
    return facts


def _entry_facts(entry: str, said_on: date | None) -> list[Fact]:
    facts: list[Fact] = []
    speakers = any(
        _LINE_RE.match(ln.strip()) or _ROLE_LINE.match(ln.strip()) for ln in entry.splitlines()
    )
    role = None if speakers else "USER"  # an entry without speakers is a note about the user
    raw = False  # in a raw archive every line is someone's words, never the archiver's fact line
    for line in entry.splitlines()[:400]:
        stripped = line.strip()
        if stripped.startswith("[RAW]"):
            raw = True
            continue
        if not stripped or stripped.startswith("#"):
            continue
        parsed = None if raw else p.parse_fact_line(stripped)
        if parsed:
            facts.extend(_fact_line(parsed[1], parsed[0], said_on))
            continue
        day, text = said_on, stripped
        stamp = _STAMP.match(stripped)  # nanobot-style "[2026-11-20 10:00] User prefers tea."
        if stamp and not _LINE_RE.match(stripped):
            day, text, role = (
                parse_day(stamp.group(1)) or said_on,
                stripped[stamp.end() :],
                "USER",
            )  # a note
        m = _LINE_RE.match(stripped) or _ROLE_LINE.match(text)
        if m:
            role = m.group("role").upper()
            text = m.group("text")
            if m.groupdict().get("ts"):
                day = parse_day(m.group("ts")) or said_on
        if role in _USER_ROLES:
            text = _BULLET.sub("", text)[:_MAX_MESSAGE_CHARS]
            facts.extend(extract_facts(text, day))
            facts.extend(_revising(text, day))
    return facts


def _fact_line(text: str, mark: str, said_on: date | None) -> list[Fact]:
    """A fact line from the archiver: its date made absolute; a free phrasing ("User moved from
    Lisbon to Porto") put in the engine's template when it is understood, else kept as written."""
    if words := _revise.REVISE.match(text):  # the words, dated by the entry they were said in
        return _revising(words.group("w"), said_on) or [Fact(text, mark)]
    fact, old = p.split_replaces(text)
    if not is_canonical(fact):
        understood = extract_facts(fact, said_on)
        if understood:
            keep = "correction" if mark == "correction" or old else None
            return [
                Fact(
                    f"{f.text} (replaces: {old})" if old and len(understood) == 1 else f.text,
                    keep or f.mark,
                )
                for f in understood
            ]
    fact = dated(fact, said_on) if is_canonical(fact) else absolute(fact, said_on)
    return [Fact(p.with_replaces(fact, old) if old else fact, mark)]


def _file_lines(body: str, *, items: bool = False) -> list[str]:
    """A file section's fact lines as they stand (bullet and age suffix removed); ``items``: the
    list items only."""
    lines = []
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if items and not _BULLET.match(line):
            continue
        lines.append(_BULLET.sub("", p.strip_age(line.rstrip())[0]).strip())
    return lines


Findings = dict[tuple[str, str], str]  # (target, slot or text key) → finding line; later facts win


def _dream_analyze(user: str) -> str:
    sections = p.parse_sections(user)
    files = {kind: _file_lines(sections.get(path, "")) for kind, path in FILES.items()}
    findings: Findings = {}
    revisions: list[str] = []
    for fact in _batch_facts(sections.get(p.SECTION_BATCH, "")):
        if fact.mark == "skip":
            continue
        if _revise.REVISE.match(fact.text):
            revisions.append(fact.text)  # read last: a rule of the sentence's shape goes first
            continue
        said, named = p.split_replaces(fact.text)
        if said.startswith("Gone: "):  # an attribute ended: the one line stating it, retired
            _retire(said, files, findings)
        elif said.startswith("Now: "):  # a value said alone: the lines it corrects, or nothing
            _corrected(said, files, findings)
        elif canon(said).removes is not None:
            _removed(said, files, findings)
        else:
            _stated(fact, said, named, files, findings)
    # only the files' list items: a paragraph of prose (the template's own) is no fact to revise
    items = {kind: _file_lines(sections.get(path, ""), items=True) for kind, path in FILES.items()}
    for said in revisions:
        _revised(said, items, findings)
    return "\n".join(_unreplaced(findings).values()) if findings else "[SKIP]"


def _revised(said: str, files: dict[str, list[str]], findings: Findings) -> None:
    """A ``Revise:`` fact: the one line of memory it changes or retires (``rules.revise``), unless
    a finding of this batch already does; a new value another finding writes as its own line
    retires the old line instead (the new line supersedes it, one change)."""
    touched = _touched(findings)
    for r in _revise.revise(said, files):
        if normalize(r.old) in touched:
            continue
        new = r.new
        if new is not None and (
            normalize(new) in touched
            or any(normalize(ln) == normalize(new) for ln in files[r.kind])
        ):
            new = None
        if new is None:
            why = f'superseded, the user said: "{r.words}"'
            findings[("REMOVE", normalize(r.old))] = (
                f"[FILE-REMOVE] {p.removal_text(FILES[r.kind], r.old, why)}"
            )
        else:
            findings[(r.kind, f"revise:{normalize(r.old)}")] = (
                f"[{r.kind}] {p.with_replaces(new, r.old)}"
            )
        touched |= {normalize(r.old)}


def _touched(findings: Findings) -> set[str]:
    """The lines this batch's findings already write, replace or remove (normalised)."""
    out: set[str] = set()
    for key, finding in findings.items():
        if key[0] == "REMOVE":
            out.add(key[1])
            continue
        parsed = p.parse_finding_line(finding)
        if parsed:
            new, old = p.split_replaces(parsed[1])
            out.add(normalize(new))
            out |= {normalize(old)} if old else set()
    return out


def _corrected(said: str, files: dict[str, list[str]], findings: Findings) -> None:
    """A ``Now:`` fact: each line it corrects, with its new value."""
    for kind, old_line, new_line in resolve_corrections(said, files):
        # a swap ("KPMG not Deloitte") yields to a finding of the value's own kind
        tag = "SWAP" if said.startswith("Now: swap ") else kind
        findings[(tag, normalize(old_line))] = f"[{kind}] {p.with_replaces(new_line, old_line)}"


def _removed(said: str, files: dict[str, list[str]], findings: Findings) -> None:
    """A ``No longer …`` fact: the line it retracts, if one can be meant."""
    info = canon(said)
    removes = info.removes or ""
    line = _match_line(files[info.target], removes, canon(removes).slot)
    if line is None and canon(removes).slot is None:
        line = _the_line_holding(files[info.target], removes)
    if line is not None:
        findings[("REMOVE", normalize(line))] = (
            f"[FILE-REMOVE] {p.removal_text(FILES[info.target], line, 'no longer true')}"
        )


def _stated(
    fact: Fact, said: str, named: str | None, files: dict[str, list[str]], findings: Findings
) -> None:
    """A fact in its template: a new line, or the replacement of the line it names or whose slot
    it fills when it says it changed."""
    info = canon(said)
    text = strip_instead(said)
    if info.target == SOUL and is_suspicious_rule(text):
        return
    key = (info.target, info.slot or normalize(text))
    if any(normalize(line) == normalize(text) for line in files[info.target]):
        findings.pop(key, None)  # already there (a later repeat)
        return
    old = named or info.replaces or _opposite(text, files[info.target])
    # a correction's attribute may be a project's database ("we switched the analytics service
    # to ClickHouse"); any other fact fills only its template's slot, as before
    slot = info.slot or (attribute(text) if fact.mark == "correction" else None)
    line = _match_line(files[info.target], old, slot) if old else None
    if line is None and slot:
        line = next((ln for ln in files[info.target] if _same_slot(attribute(ln), slot)), None)
        if (line is not None or key in findings) and not old and not _may_replace(fact, slot):
            # the file (or this batch) holds another value and nothing says it changed: unsure
            return
    if line is None and not slot and fact.mark == "correction":
        line = _the_database_line(files[info.target], text)
    findings[key] = f"[{info.target}] {p.with_replaces(text, line) if line else text}"


_OPPOSITES = (("Likes ", "Dislikes "), ("Always ", "Never "))
_SPOUSE = lazy(r"^Has an? (?:wife|husband|spouse) named (?P<n>.+)$")
_DATING = lazy(r"^Has an? (?:girlfriend|boyfriend|fianc[eé]e?|partner) named (?P<n>.+)$")


def _opposite(text: str, lines: list[str]) -> str | None:
    """The line saying the opposite of ``text`` of the same thing ("Likes running" after "Dislikes
    running"), or the same person in an earlier relation ("Has a wife named Sofie" after "Has a
    girlfriend named Sofie"): the newer statement replaces it."""
    m = _SPOUSE.match(text)
    if m:  # "Sofie's my wife now": the girlfriend of that name became a wife
        name = m.group("n")
        return next((ln for ln in lines if (d := _DATING.match(ln)) and d.group("n") == name), None)
    for a, b in _OPPOSITES:
        for this, that in ((a, b), (b, a)):
            if text.startswith(this):
                want = normalize(that + text[len(this) :])
                return next((ln for ln in lines if normalize(ln) == want), None)
    return None


def _retire(fact: str, files: dict[str, list[str]], findings: Findings) -> None:
    """A ``Gone:`` fact: the line it ends leaves its file with the user's words as the reason (the
    archive keeps both, where ``why`` finds them). A value this batch would write is ended first
    (said and ended in one batch: it is not written, and a line it replaced leaves with it)."""
    pending: dict[str, dict[str, tuple[tuple[str, str], str | None]]] = {k: {} for k in FILES}
    for key, finding in findings.items():
        parsed = p.parse_finding_line(finding)
        if parsed and parsed[0] in FILES:
            new, old = p.split_replaces(parsed[1])
            pending[parsed[0]][new] = (key, old)
    ended = retire_line(fact, {kind: list(lines) for kind, lines in pending.items()})
    gone: list[tuple[str, str]] = []
    if ended is not None:
        kind, lines, words = ended
        for line in lines:
            key, old = pending[kind][line]
            findings.pop(key, None)
            gone += [(kind, old)] if old else []
    else:
        ended = retire_line(fact, files)
        if ended is None:
            return
        kind, lines, words = ended
        gone = [(kind, line) for line in lines]
    why = f'superseded, the user said: "{words}"' if words else "no longer true"
    for kind, line in gone:
        findings[("REMOVE", normalize(line))] = (
            f"[FILE-REMOVE] {p.removal_text(FILES[kind], line, why)}"
        )


def _unreplaced(findings: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """The findings less a removal of a line another finding replaces (a new value read with
    the end of the old one: the replacement supersedes it, one change), and less a swap of a line
    a finding of the value's own kind replaces ("we moved from Bombay to Pune": ``Lives in
    Pune``)."""

    def replaced(kinds: set[str] | None) -> set[str]:
        return {
            normalize(old)
            for k, f in findings.items()
            if (kinds is None or k[0] in kinds)
            and (parsed := p.parse_finding_line(f))
            and (old := p.split_replaces(parsed[1])[1])
        }

    every = replaced(None)
    own = replaced({k[0] for k in findings} - {"SWAP"})
    return {
        k: f
        for k, f in findings.items()
        if not (k[0] == "REMOVE" and k[1] in every) and not (k[0] == "SWAP" and k[1] in own)
    }


def _the_line_holding(lines: list[str], text: str) -> str | None:
    """ "No longer uses React Native" when no line says "Uses …" of it: the one line of the file
    holding its value ("Mobile app is written in React Native"); none, or several: nothing. Only
    for a removal of no single-valued attribute ("No longer works at Berlin" never takes "Lives in
    Berlin")."""
    wanted = value_words(text)
    if not wanted or all(len(w) < 3 for w in wanted):
        return None
    found = [ln for ln in lines if wanted <= set(normalize(ln).replace(":", " ").split())]
    return found[0] if len(found) == 1 else None


def _the_database_line(lines: list[str], text: str) -> str | None:
    """ "We're going with ClickHouse instead": a correction naming a database and no project
    replaces the file's one line that names a database (none, or several: unsure, nothing)."""
    if not names_database(text):
        return None
    found = [ln for ln in lines if names_database(ln)]
    return found[0] if len(found) == 1 else None


_DATED_SLOTS = ("deadline:", "date:")


def _same_slot(held: str | None, slot: str) -> bool:
    """The same attribute: the same slot, or a dated thing named with fewer words ("the abstract
    deadline" is the one of "the conference abstract deadline": the words of one within the other's,
    the same head word)."""
    if held == slot:
        return True
    if not held or not slot.startswith(_DATED_SLOTS) or held.split(":")[0] != slot.split(":")[0]:
        return False
    a, b = held.split(":", 1)[1].split(), slot.split(":", 1)[1].split()
    return bool(a and b) and a[-1] == b[-1] and (set(a) <= set(b) or set(b) <= set(a))


def _may_replace(fact: Fact, slot: str) -> bool:
    """A fact replaces another value of its attribute only when it was said as a change ("moved",
    "now", "actually", "no longer", "(replaces: …)"): the ``correction`` mark. A restated deadline
    is the newer one."""
    return fact.mark == "correction" or slot.startswith("deadline:")


def _match_line(lines: list[str], text: str | None, slot: str | None) -> str | None:
    """The line ``text`` names, by words, then by meaning: the same words; a line starting with them
    ("Uses MySQL" finds "Uses MySQL for the inventory app"); its canonical reading ("User lived in
    Lisbon" → "Lives in Lisbon"); else the one line with the same attribute, or failing that the
    only line, holding its value words."""
    if not text:
        return None
    found = _find_line(lines, text)
    if found is not None:
        return found
    readings = [f.text for f in extract_facts(text)]
    for reading in readings:
        found = _find_line(lines, strip_instead(reading))
        if found is not None:
            return found
    wanted = value_words(text)
    if not wanted:
        return None
    slots = {slot, *(canon(strip_instead(r)).slot for r in readings)} - {None}
    holding = [ln for ln in lines if wanted <= set(normalize(ln).replace(":", " ").split())]
    same = [ln for ln in holding if attribute(ln) in slots]
    if len(same) == 1:
        return same[0]
    # A line of another attribute is never the one meant ("No longer works at Berlin" is not "Lives
    # in Berlin").
    loose = [ln for ln in holding if attribute(ln) is None]
    return loose[0] if len(loose) == 1 and not same else None


def _find_line(lines: list[str], text: str) -> str | None:
    """The line saying ``text``: the same words, else the line that starts with them ("Uses MySQL"
    finds "Uses MySQL for the inventory app")."""
    key = normalize(text)
    exact = next((line for line in lines if normalize(line) == key), None)
    return exact or next((line for line in lines if normalize(line).startswith(f"{key} ")), None)


# -- dream: editing
# -----------------------------------------------------------------------------------------------
def _dream_edit(
    messages: list[dict[str, Any]], user: str, tools: list[dict[str, Any]] | None
) -> tuple[str | None, tuple[ToolCall, ...]]:
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
        staged[path] = (
            staged[path].replace(old, new, 1) if old else new
        )  # mirror the tool, so later calls match
        calls.append(
            ToolCall(
                f"call_{len(calls)}", "edit_file", {"path": path, "old_text": old, "new_text": new}
            )
        )
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
    bares = [("" if ln.lstrip().startswith("#") else _bare(ln)) for ln in lines]
    target = _match_line([b for b in bares if b], old, info.slot) if old else None
    if target is None and info.slot:
        target = next((b for b in bares if b and attribute(b) == info.slot), None)
    if (
        target is not None
    ):  # the line this fact replaces: named by the finding (even in other words), else the slot
        i = bares.index(target)
        bullet = _BULLET.match(lines[i])
        return _unique(path, body, lines, i, f"{bullet.group(0) if bullet else '- '}{fact}")
    if not body.strip():
        return path, body, f"- {fact}\n"
    i = _anchor(path, lines)
    gap = (
        "\n" if _BULLET.match(lines[i]) else "\n\n"
    )  # under a paragraph or heading, start the list after a blank line
    return _unique(path, body, lines, i, f"{lines[i]}{gap}- {fact}")


def _removal(staged: dict[str, str], text: str) -> tuple[str, str, str] | None:
    path, what, _why = p.parse_removal(text)
    for candidate in [path] if path in staged else list(staged):
        lines = staged[candidate].split("\n")
        for i, ln in enumerate(lines):
            if ln.strip() and normalize(_bare(ln)) == normalize(what):
                return _unique(candidate, staged[candidate], lines, i, None)
    return None


def _bare(line: str) -> str:
    return _BULLET.sub("", p.strip_age(line.rstrip())[0]).strip()


def _anchor(path: str, lines: list[str]) -> int:
    """Index of the last non-blank line of the best-fitting section (new facts go under it), else of
    the file."""
    headings = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("#")]
    for word in _HEADINGS.get(path, ()):
        for i in headings:
            if word.lower() in lines[i].lower():
                end = next((j for j in headings if j > i), len(lines))
                return max(j for j in range(i, end) if lines[j].strip())
    return max(j for j, ln in enumerate(lines) if ln.strip())


def _unique(
    path: str, body: str, lines: list[str], index: int, replacement: str | None
) -> tuple[str, str, str] | None:
    """An edit replacing line ``index`` by ``replacement`` (None: delete the line), its ``old_text``
    widened with neighbouring lines until it occurs exactly once in ``body`` (edit_file needs an
    exact, unique match)."""
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    start, end = offsets[index], offsets[index] + len(lines[index])
    if (
        replacement is None
    ):  # deleting: take the line's newline too (the one before it, for a last line)
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


# -- forced tool calls, session summaries
# -------------------------------------------------------------------------
def _forced_tool(
    tools: list[dict[str, Any]] | None, tool_choice: str | dict[str, Any] | None
) -> dict[str, Any] | None:
    """The function schema a request forces (``tool_choice`` naming it, or "required" with a single
    tool)."""
    if not tools:
        return None
    fns = [t.get("function", t) for t in tools if isinstance(t, dict)]
    name = None
    if isinstance(tool_choice, dict):
        name = (tool_choice.get("function") or {}).get("name") or tool_choice.get("name")
    elif tool_choice == "required" and fns:
        name = fns[0].get("name")
    return next((f for f in fns if f.get("name") == name), None) if name else None


def _has_tool(tools: list[dict[str, Any]] | None, name: str) -> bool:
    return any(
        isinstance(t, dict) and t.get("function", t).get("name") == name for t in tools or ()
    )


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
    lines = [
        (ts, content) for ts, role, content in _transcript(_conversation(user)) if role == "USER"
    ]
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
    text = _task_text(task, user, conversation)
    return {
        name: _arg(name, (schema or {}).get("type", "string"), text, user, conversation)
        for name, schema in props.items()
    }


def _task_text(task: str | None, user: str, conversation: str) -> str:
    """What the task asks for: the archive's fact lines, a flush, or a summary."""
    if task == p.TASK_ARCHIVE:
        return _archive(user)
    if task is None:
        return "\n".join(f"- [{f.mark}] {f.text}" for f in _user_facts(conversation))
    if task == p.TASK_FLUSH:
        return _flush(user)
    return _summary(user)


def _arg(name: str, kind: str, text: str, user: str, conversation: str) -> Any:
    """One argument by its type and name: user messages for an array, a slug for a name, the
    memory file with the new facts for a memory update, else the task's text."""
    lname = name.lower()
    if kind == "array":
        return _user_messages(conversation)[:5]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    if any(k in lname for k in ("slug", "title", "filename", "name")):
        return _slug("\n".join(_user_messages(conversation)) or conversation)
    if lname in ("memory_update", "memory"):
        return _memory_update(user, conversation)
    return text


def _user_messages(conversation: str) -> list[str]:
    return [c for _, r, c in _transcript(conversation) if r == "USER"]


def _memory_update(user: str, conversation: str) -> str:
    """The current memory with the conversation's new facts appended (unchanged when none is
    new)."""
    current = next((b for t, b in p.parse_sections(user).items() if "memory" in t.lower()), "")
    current = "" if current.strip() in ("(empty)", p.NOTHING) else current
    have = {normalize(x) for x in _file_lines(current)}
    new = [
        f"- {f}"
        for f in (strip_instead(x.text) for x in _user_facts(conversation))
        if normalize(f) not in have
    ]
    return "\n".join(x for x in (current.rstrip(), *new) if x) + "\n" if new else current
