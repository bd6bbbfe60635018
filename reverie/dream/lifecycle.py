"""Dream's lifecycle step: keeps the prompt files true and within budget for years, whatever the
model did.

It runs on the staged files after the model's edits and before the gate, deterministically (the same
for any model, the offline engine included). A line leaves a prompt file only for a reason that
names its evidence, and every line that leaves — merged ones included — is appended to the archive
with that reason and what replaced it:

1. **The model's removals** are accounted for: a line an edit replaced is *superseded* by the edit's
   new line; a line moved with the ``archive_line`` tool is *archived* with the model's reason; a
   line removed while an identical line stays is *merged*; any other removed line is *removed* (with
   the ``[FILE-REMOVE]`` finding's reason). A removal needs evidence: a finding that names the line
   (``[FILE-REMOVE]`` or ``(replaces: …)``), or a replacement that is the same fact updated (the
   same single-valued attribute, the line said inside it, or most of its words). A
   ``[FILE-REMOVE]`` finding that names no line ("MEMORY.md: old facts are obsolete") is evidence
   for none: it only lets the gate pass a large removal whose lines each have theirs. An edit that
   put an unrelated line in its place ("Works at Initech" → "Has a cat named Tom"), or took it out
   with no finding, is not evidence: the line is put back and both stay. **A file is never emptied
   by a model's edit**: an edit that would leave a prompt file that held facts with none (whatever
   its findings say) is undone whole and its batch set aside; lines leave a file one reason at a
   time, and the last ones by ``reverie forget``, a person's own verb.
2. **Duplicates of the same fact** are *merged*: the same ``line_key`` into the first occurrence; a
   line said word for word at the start of a longer line of the same file (after an optional "The
   user") into that longer line ("Likes green tea" into "Likes green tea with honey"). A line said
   *inside* a longer one names another subject ("Is vegetarian" in "Wife is vegetarian", "Speaks
   German" in "Manager speaks German"): both stay. When the longer line only adds a negation before
   it ("No longer uses MySQL"), the older of the two is *superseded*.
3. **Superseded values**: two lines filling the same *single-valued* attribute of the user keep the
   newer; the older is *superseded* by it. Single-valued are only the attributes in
   ``SINGLE_VALUED`` (home, employer, job title, name, time zone …, as ``Key: value`` labels or as
   "Lives in / Works at / Works as …") and labels starting with "favourite" or "current". Every
   other label — family members, pets, languages, likes, bugs, lessons, repositories, rules — is
   multi-valued: a second value never supersedes the first by its label alone.
4. **Expiry**: a dated item — a line with an absolute date (``2027-03-05``, ``March 5, 2027``, ``5
   March 2027``) that the summary call marked ``ephemeral`` or that names an event (deadline, due,
   trip, meeting …) — is *expired* once its latest date plus ``graceDays`` has passed. A date that
   does not parse leaves the line a plain fact.
5. **Salience** (``reverie.dream.salience``): over budget, the least salient unprotected lines are
   *archived* until the file is at ``targetRatio`` of its budget; with ``staleDays``, stale lines
   too — except the user's attributes in USER.md (home, work, role, ``Key: value``), which leave
   only when superseded or under budget pressure.

SOUL.md (standing rules), lines marked ``permanent`` by the summary call, USER.md lines that read as
identity (name, birth, origin, family or pets by name: ``_IDENTITY``) and pinned lines are never
removed by steps 2–5 (a newer value of a pinned attribute stays beside it). A ``[pinned]`` marker
the model added is taken off: pins are a person's. Where the archive is not tracked
(``git.trackedFiles`` leaves ``memory/archive/*.md`` out), steps 2–5 remove nothing: a line never
leaves for a place nobody can find it.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from ..llm.protocol import split_replaces
from ..storage.workspace import MEMORY, SOUL, USER
from ..text.dates import MONTH_NAME, month_number
from ..text.memline import bare_line, is_fact_line, is_pinned, line_key, unpin
from . import archive as arc
from .result import Edit, Finding
from .salience import LineInfo, SalienceRecord, recent, score

if TYPE_CHECKING:
    from ..storage.config import DreamConfig

__all__ = [
    "Retired",
    "LifecycleOutcome",
    "apply",
    "line_dates",
    "budgets",
    "MovedLine",
    "SINGLE_VALUED",
    "single_valued",
]

log = logging.getLogger(__name__)

#: Files the automatic steps 2-5 act on; SOUL.md's standing rules are never retired automatically.
MANAGED = (USER, MEMORY)

_ISO = re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])")
_MDY = re.compile(rf"\b({MONTH_NAME})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({MONTH_NAME})\.?,? (\d{{4}})\b", re.I)
_EVENT = re.compile(
    r"\b(?:deadline|due|until|till|trip|travel\w*|flight|flying|appointment|meeting|exam"
    r"|interview|launch\w*|release|event|conference|visit\w*|vacation|holiday|reservation"
    r"|booked|expir\w*|renew\w*|submit\w*|ends?|starts?|(?:is|are) on)\b",
    re.I,
)
_NEVER_EXPIRES = re.compile(r"\b(?:born|birth\w*|anniversary|married|since|founded|joined)\b", re.I)
_NEGATION = frozenset(
    "no not never longer without stopped former formerly ex anymore instead previously "
    "dislikes".split()
)
_STOP = frozenset("the a an".split())
_KV = re.compile(r"^([a-z][a-z0-9 ]{0,40}?)\s*:\s*\S")
#: The user's single-valued attributes, as ``Key: value`` labels (on line keys: lower case,
#: punctuation gone). A second value of one of these supersedes the first; every other label is
#: multi-valued (documented in docs/lifecycle.md). Labels starting with
#: "favourite"/"favorite"/"current" are single-valued too.
SINGLE_VALUED = frozenset(
    (
        "home",
        "home city",
        "home town",
        "hometown",
        "address",
        "home address",
        "city",
        "country",
        "location",
        "lives in",
        "based in",
        "residence",
        "employer",
        "company",
        "works at",
        "works for",
        "workplace",
        "job",
        "job title",
        "title",
        "role",
        "position",
        "occupation",
        "profession",
        "works as",
        "name",
        "full name",
        "preferred name",
        "nickname",
        "pronouns",
        "time zone",
        "timezone",
        "tz",
        "age",
        "email",
        "email address",
        "phone",
        "phone number",
        "mobile",
        "relationship status",
        "marital status",
    )
)
_SINGLE_PREFIX = ("favourite ", "favorite ", "current ")
#: "Lives in / Works at / Works as …" phrasings of the same attributes (about the user: at the
#: line's start).
_SLOTS = (
    (re.compile(r"^(?:the user )?(?:lives|is living|is based|resides) in\b"), "home"),
    (re.compile(r"^(?:the user )?works (?:at|for)\b"), "employer"),
    (re.compile(r"^(?:the user )?works as\b"), "job title"),
)
_ALIASES = {
    "home city": "home",
    "home town": "home",
    "hometown": "home",
    "home address": "address",
    "lives in": "home",
    "based in": "home",
    "residence": "home",
    "location": "home",
    "city": "home",
    "company": "employer",
    "works at": "employer",
    "works for": "employer",
    "workplace": "employer",
    "job": "job title",
    "title": "job title",
    "role": "job title",
    "position": "job title",
    "occupation": "job title",
    "profession": "job title",
    "works as": "job title",
    "timezone": "time zone",
    "tz": "time zone",
    "phone number": "phone",
    "mobile": "phone",
    "email address": "email",
    "marital status": "relationship status",
}
_SUBJECT = re.compile(r"^(?:the user(?: s)?|user(?: s)?|i)\s+")
#: Identity lines of USER.md protected even without the summary call's mark (written before Dream
#: kept salience, or phrased by a model so that no batch fact matched): name, birth, origin, family
#: and pets by name. On line keys.
_IDENTITY = re.compile(
    r"^(?:the user(?: s)? )?"
    r"(?:name|full name|birthday|date of birth|born|birthplace|from|is from|was born)\b"
    r"|\b(?:wife|husband|partner|spouse|son|daughter|mother|father|mom|dad|brother|sister"
    r"|child|dog|cat)(?: s name)? (?:is |named |called )"
    r"|^(?:the user(?: s)? )?(?:wife|husband|partner|spouse|sons?|daughters?|mother|father"
    r"|mom|dad|brothers?|sisters?|child|children|kids?|dogs?|cats?|pets?)(?: s name)?:"
)  # "Sister: Ana" names a family member too


@dataclass(frozen=True, slots=True)
class Retired:
    """One line that left a prompt file: ``why`` is archived, expired, superseded, merged or
    removed."""

    path: str
    text: str
    why: str
    note: str
    by: str | None = None
    archived: bool = True


@dataclass(frozen=True, slots=True)
class MovedLine:
    """A line the model moved to the archive with the ``archive_line`` tool."""

    path: str
    line: str
    reason: str


@dataclass
class LifecycleOutcome:
    files: dict[str, str]  # every prompt file after the step
    archive: dict[str, str]  # archive file -> new content (only files that change)
    retired: list[Retired]
    # raw lines steps 2-5 removed, per file (not the model's doing)
    own_removals: dict[str, list[str]]
    record: SalienceRecord
    # files over budget on protected lines alone
    protected_over_budget: list[str] = field(default_factory=list)
    # files whose edit took lines out with no evidence and added none: the edit undone (file ->
    # the lines it would have taken out)
    undone: dict[str, int] = field(default_factory=dict)

    def count(self, *why: str) -> int:
        return sum(1 for r in self.retired if r.why in why)

    @property
    def archived(self) -> int:
        """Lines moved to the archive (expired and merged ones counted separately)."""
        return sum(1 for r in self.retired if r.archived and r.why not in ("expired", "merged"))

    @property
    def expired(self) -> int:
        return self.count("expired")

    @property
    def merged(self) -> int:
        return self.count("merged")

    def commit_lines(self, limit: int = 400) -> list[str]:
        """The commit body's account of every line that left (archived lines past ``limit``
        summarised)."""
        if not self.retired:
            return []
        counts = Counter(r.why for r in self.retired)
        head = "Lifecycle: " + ", ".join(f"{why} {n}" for why, n in sorted(counts.items()))
        lines = [head]
        shown = 0
        hidden = Counter()  # type: Counter[str]
        for r in sorted(self.retired, key=lambda r: r.archived):  # the ones only named here first
            if r.archived and shown >= limit:
                hidden[arc.archive_path(r.path)] += 1
                continue
            shown += 1
            by = (
                f' by "{r.by}"'
                if r.by and r.why == "superseded"
                else f' into "{r.by}"'
                if r.by
                else ""
            )
            where = f" → {arc.archive_path(r.path)}" if r.archived else ""
            lines.append(f'- {r.why} {r.path}: "{r.text}"{by} ({r.note}){where}')
        lines += [f"- … and {n} more archived lines in {path}" for path, n in hidden.items()]
        return lines


def budgets(cfg: DreamConfig) -> dict[str, int]:
    return {MEMORY: cfg.memory_max_chars, USER: cfg.user_max_chars, SOUL: cfg.soul_max_chars}


# -- dates -----------------------------------------------------------------------------------------
def line_dates(text: str) -> list[date]:
    """The absolute dates written in a line (ISO, "March 5, 2027", "5 March 2027"); impossible ones
    ignored."""
    found: list[date] = []
    for y, m, d in _ISO.findall(text):
        found += _date(int(y), int(m), int(d))
    for mon, d, y in _MDY.findall(text):
        found += _date(int(y), month_number(mon), int(d))
    for d, mon, y in _DMY.findall(text):
        found += _date(int(y), month_number(mon), int(d))
    return found


def _date(y: int, m: int, d: int) -> list[date]:
    try:
        return [date(y, m, d)] if 1900 <= y <= 2999 else []
    except ValueError:
        return []


def _expiry(text: str, mark: str | None) -> date | None:
    """The date a dated item is about (its latest date), or None when the line is not a dated
    item."""
    if _NEVER_EXPIRES.search(text):
        return None
    dates = line_dates(text)
    if not dates or not (mark == "ephemeral" or _EVENT.search(text)):
        return None
    return max(dates)


# -- lines -----------------------------------------------------------------------------------------
@dataclass
class _Line:
    index: int
    raw: str
    key: str
    text: str
    tokens: frozenset[str]
    pinned: bool
    new: bool  # added by this run


_When = Callable[[_Line], tuple[int, int]]  # a line's age order: (day it was learned, line index)
_Protected = Callable[[_Line], bool]  # never retired (pinned, identity, or marked permanent)


def _lines(text: str, base_keys: Counter[str]) -> list[_Line]:
    out = []
    seen: Counter[str] = Counter()
    for i, raw in enumerate(text.split("\n")):
        if not is_fact_line(raw):
            continue
        key = line_key(raw)
        seen[key] += 1
        tokens = _tokens(key)
        out.append(
            _Line(i, raw, key, bare_line(raw), tokens, is_pinned(raw), seen[key] > base_keys[key])
        )
    return out


def _tokens(key: str) -> frozenset[str]:
    """A line key's words ("Key: value" split at its colon) less articles: what `_jaccard`
    compares."""
    return frozenset(key.replace(":", " ").split()) - _STOP


def _keys(text: str) -> Counter[str]:
    return Counter(line_key(raw) for raw in text.split("\n") if is_fact_line(raw))


def single_valued(label: str) -> bool:
    """Whether a ``Key: value`` label (a line key's label) names one of the user's single-valued
    attributes."""
    label = " ".join(label.split())
    return label in SINGLE_VALUED or label.startswith(_SINGLE_PREFIX)


def _label(key: str) -> str | None:
    m = _KV.match(key)
    return m.group(1).strip() if m else None


def _slot(key: str) -> str | None:
    """The single-valued attribute a line fills, or None (a multi-valued label, or not an attribute
    at all)."""
    for rx, name in _SLOTS:
        if rx.match(key):
            return name
    label = _label(key)
    if label is not None and single_valued(label):
        return _ALIASES.get(label, label)
    return None


def _subjectless(key: str) -> str:
    """A line key without a leading "the user" (the implied subject of a prompt-file line)."""
    return _SUBJECT.sub("", key, count=1)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


# -- the step --------------------------------------------------------------------------------------
def apply(
    base: Mapping[str, str],
    current: Mapping[str, str],
    *,
    cfg: DreamConfig,
    today: date,
    record: SalienceRecord,
    archive_texts: Mapping[str, str],
    edits: Sequence[Edit] = (),
    moved: Sequence[MovedLine] = (),
    findings: Sequence[Finding] = (),
    facts: Sequence[tuple[str, str]] = (),
    archive_enabled: bool = True,
) -> LifecycleOutcome:
    """Run the lifecycle over the staged files. ``base``/``current``: the files before and after the
    model's edits; ``facts``: ``(mark, text)`` fact lines of the batch; ``archive_texts``: the
    archive files as on disk."""
    files = dict(current)
    retired: list[Retired] = []
    own: dict[str, list[str]] = {}
    stamp = today.isoformat()
    _unpin_model_pins(base, files)
    undone: dict[str, int] = {}
    retired += _model_removals(base, files, edits, moved, findings, stamp, undone)
    _learn(record, base, files, facts, today)
    over: list[str] = []
    # no archive to put them in: steps 2-5 remove nothing
    for rel in MANAGED if archive_enabled else ():
        text = files.get(rel, "")
        lines = _lines(text, _keys(base.get(rel, "")))
        drop = _retire(rel, text, lines, base, record, cfg, today, over)
        if drop:
            kept = [raw for i, raw in enumerate(text.split("\n")) if i not in drop]
            files[rel] = "\n".join(kept)
            own[rel] = [ln.raw for ln in lines if ln.index in drop]
            retired += [drop[i] for i in sorted(drop)]
    archive = _archive_texts(retired, archive_texts, today) if archive_enabled else {}
    if not archive_enabled:
        retired = [Retired(r.path, r.text, r.why, r.note, r.by, False) for r in retired]
    _forget_removed(record, files)
    return LifecycleOutcome(files, archive, retired, own, record, over, undone)


def _retire(
    rel: str,
    text: str,
    lines: list[_Line],
    base: Mapping[str, str],
    record: SalienceRecord,
    cfg: DreamConfig,
    today: date,
    over: list[str],
) -> dict[int, Retired]:
    """Steps 2-5 over one file: the lines to drop (by line index), each with its reason."""
    stamp = today.isoformat()
    lc = cfg.lifecycle
    drop: dict[int, Retired] = {}
    infos = {ln.index: record.info(rel, ln.key) for ln in lines}

    def when(ln: _Line) -> tuple[int, int]:
        info = infos[ln.index]
        day = today.toordinal() if ln.new else (info.learned.toordinal() if info else 0)
        return day, ln.index

    def protected(ln: _Line) -> bool:
        info = infos[ln.index]
        identity = rel == USER and bool(_IDENTITY.search(ln.key))
        return ln.pinned or identity or (info is not None and info.mark == "permanent")

    _merge_duplicates(rel, lines, drop, when, protected, stamp)
    _supersede_slots(rel, lines, drop, when, stamp)
    for ln in lines:
        if ln.index in drop or protected(ln):
            continue
        info = infos[ln.index]
        due = _expiry(ln.text, info.mark if info else None)
        if due is not None and (today - due).days > lc.grace_days:
            drop[ln.index] = Retired(
                rel, ln.text, "expired", f"expired {stamp} (grace {lc.grace_days} days)"
            )
    _archive_least_salient(rel, text, lines, drop, infos, protected, cfg, today, over)
    return drop


def _unpin_model_pins(base: Mapping[str, str], files: dict[str, str]) -> None:
    for rel, text in list(files.items()):
        pinned_before = {line_key(raw) for raw in base.get(rel, "").split("\n") if is_pinned(raw)}
        out = []
        changed = False
        for raw in text.split("\n"):
            if is_pinned(raw) and line_key(raw) not in pinned_before:
                raw = unpin(raw)
                changed = True
            out.append(raw)
        if changed:
            log.info(
                "dream lifecycle: a pin Dream added to %s was taken off (pins are a person's)", rel
            )
            files[rel] = "\n".join(out)


def _model_removals(
    base: Mapping[str, str],
    files: dict[str, str],
    edits: Sequence[Edit],
    moved: Sequence[MovedLine],
    findings: Sequence[Finding],
    stamp: str,
    undone: dict[str, int],
) -> list[Retired]:
    """The lines the model's edits took out, each with its reason; a line taken out without
    evidence (see the module docstring) is put back into ``files`` instead. An edit that took
    lines out without evidence and added no line of its own (a file emptied, or rewritten with
    less) is undone whole, the lines it took out with evidence too (a "replaces" finding's old
    line would leave with its new one never written): putting its lines back one by one lost the
    file's heading, blank lines and last newline, and the run committed that as its change
    (``undone`` names the file; the run sets its batch aside)."""
    out: list[Retired] = []
    moved_by_key = {(m.path, line_key(m.line)): m for m in moved}
    for rel, before in base.items():
        after = files.get(rel, "")
        if after == before:
            continue
        left = _keys(after)
        remaining = Counter(left)
        kept: list[int] = []
        for i, raw in enumerate(before.split("\n")):
            if not is_fact_line(raw):
                continue
            key = line_key(raw)
            if remaining[key] > 0:
                remaining[key] -= 1
                continue
            text = bare_line(raw)
            if left[key] > 0:
                out.append(Retired(rel, text, "merged", f"merged {stamp}: a duplicate", text))
                continue
            move = moved_by_key.get((rel, key))
            if move is not None:
                out.append(
                    Retired(rel, text, "archived", f"archived {stamp} by Dream ({move.reason})")
                )
                continue
            by = _replacement(rel, raw, edits, left)
            why = _removal_reason(rel, text, findings)
            if why is None and (by is None or not _same_fact(key, line_key(by))):
                kept.append(i)
                continue
            if by is not None:
                out.append(Retired(rel, text, "superseded", f"superseded {stamp}", by))
            else:
                out.append(Retired(rel, text, "removed", f"removed {stamp} by Dream ({why})"))
        if not left and _keys(before):  # the file emptied of every fact: never one edit's doing
            kept = kept or [i for i, raw in enumerate(before.split("\n")) if is_fact_line(raw)]
        if kept and not set(left) - set(_keys(before)):
            files[rel] = before
            out = [r for r in out if r.path != rel]  # nothing left: the edit is undone whole
            undone[rel] = len(kept)
            log.warning(
                "dream lifecycle: kept %d line(s) of %s an edit took out with no finding naming "
                "them, and the file as it was: the edit wrote nothing in their place (first: %r)",
                len(kept),
                rel,
                bare_line(before.split("\n")[kept[0]])[:80],
            )
        elif kept:
            files[rel] = _put_back(before, after, kept)
            log.warning(
                "dream lifecycle: kept %d line(s) of %s an edit took out with no finding naming "
                "them (first: %r)",
                len(kept),
                rel,
                bare_line(before.split("\n")[kept[0]])[:80],
            )
    return out


def _same_fact(old: str, new: str) -> bool:
    """Whether the line key ``new`` is ``old`` updated: the same single-valued attribute, ``old``
    said in it (or it in ``old``), or most of their words shared."""
    slot = _slot(old)
    if slot is not None and slot == _slot(new):
        return True
    if _covers(old, new) or _covers(new, old):
        return True
    return _jaccard(_tokens(old), _tokens(new)) >= 0.5


def _put_back(before: str, after: str, kept: Sequence[int]) -> str:
    """``after`` with the lines ``kept`` (indexes into ``before``) back where they were: after the
    nearest earlier line of ``before`` that is still there, else at the top of the list."""
    old, lines = before.split("\n"), after.split("\n")
    for i in kept:
        at = next(
            (lines.index(old[j]) + 1 for j in range(i - 1, -1, -1) if old[j] in lines and old[j]),
            None,
        )
        if at is None:
            at = next((n for n, raw in enumerate(lines) if is_fact_line(raw)), len(lines))
        lines.insert(at, old[i])
    return "\n".join(lines)


def _replacement(rel: str, raw: str, edits: Sequence[Edit], left: Counter[str]) -> str | None:
    """The new line an edit put where ``raw`` was, if one did."""
    for e in edits:
        if e.path != rel or raw.strip() not in e.old_text:
            continue
        old_keys = {line_key(x) for x in e.old_text.split("\n") if is_fact_line(x)}
        for new in e.new_text.split("\n"):
            if is_fact_line(new) and line_key(new) not in old_keys and left[line_key(new)] > 0:
                return bare_line(new)
    return None


def _removal_reason(rel: str, text: str, findings: Sequence[Finding]) -> str | None:
    """The finding that asked for the line ``text`` of ``rel`` to go, as a reason: one naming the
    line (a ``[FILE-REMOVE]`` holding it, or a ``(replaces: …)`` of it); None when there is none.
    A ``[FILE-REMOVE]`` for the whole file names no line: it is no line's evidence."""
    key = line_key(text)
    for f in findings:
        if f.kind == "FILE-REMOVE" and key and key in line_key(f.text):
            return f"finding: {' '.join(f.text.split())[:160]}"
        old = split_replaces(f.text)[1]
        if old is not None and line_key(old) == key:
            return f"replaced per finding: {' '.join(f.text.split())[:160]}"
    return None


def _merge_duplicates(
    rel: str,
    lines: list[_Line],
    drop: dict[int, Retired],
    when: _When,
    protected: _Protected,
    stamp: str,
) -> None:
    first: dict[str, _Line] = {}
    for ln in lines:
        if ln.key in first:
            if not ln.pinned:
                keep = first[ln.key]
                drop[ln.index] = Retired(
                    rel, ln.text, "merged", f"merged {stamp}: a duplicate", keep.text
                )
            continue
        first[ln.key] = ln
    live = [ln for ln in lines if ln.index not in drop and len(ln.tokens) >= 2]
    live.sort(key=lambda ln: len(ln.key))
    order = {ln.index: n for n, ln in enumerate(live)}
    forms = _Forms(live)
    for short in live:
        if short.index in drop:
            continue
        for longer in sorted(
            forms.starting(_subjectless(short.key)), key=lambda ln: order[ln.index]
        ):
            if longer.index in drop or len(longer.key) <= len(short.key):
                continue
            relation = _covers(short.key, longer.key)
            if relation is None:
                # not the same fact said twice (another subject, or not said word for word): keep
                # both
                continue
            if relation == "negates":
                older, newer = (short, longer) if when(short) <= when(longer) else (longer, short)
                if older.pinned or protected(older):
                    continue
                drop[older.index] = Retired(
                    rel, older.text, "superseded", f"superseded {stamp}", newer.text
                )
                if older is short:
                    break
                continue
            if short.pinned:
                continue
            drop[short.index] = Retired(
                rel,
                short.text,
                "merged",
                f"merged {stamp}: said word for word in a longer line",
                longer.text,
            )
            break
    into = {r.text: r.by for r in drop.values() if r.why == "merged"}
    # a line merged into one merged in turn names the line that stays
    for i, r in list(drop.items()):
        by, seen = r.by, {r.text}
        while r.why == "merged" and by in into and by not in seen:
            seen.add(by)
            by = into[by]
        if by != r.by:
            drop[i] = Retired(r.path, r.text, r.why, r.note, by)


class _Forms:
    """Lines by the forms a shorter line must begin (after "The user", and after leading negation
    words), sorted, so the lines that may cover a given one are found by bisection, not by comparing
    every pair."""

    def __init__(self, lines: list[_Line]) -> None:
        pairs = sorted({(form, ln.index): ln for ln in lines for form in _forms(ln.key)}.items())
        self._keys = [form for (form, _), _ln in pairs]
        self._lines = [ln for _key, ln in pairs]

    def starting(self, prefix: str) -> list[_Line]:
        found: dict[int, _Line] = {}
        for j in range(bisect_left(self._keys, prefix), len(self._keys)):
            if not self._keys[j].startswith(prefix):
                break
            found[self._lines[j].index] = self._lines[j]
        return list(found.values())


def _forms(key: str) -> set[str]:
    words = _subjectless(key).split()
    core = list(words)
    while core and core[0] in _NEGATION:
        core.pop(0)
    return {" ".join(words), " ".join(core)}


def _covers(short: str, longer: str) -> str | None:
    """How the line key ``longer`` relates to ``short`` said word for word in it: "extends" when it
    starts with it (the same subject, more detail), "negates" when only negation words come before
    it ("No longer uses MySQL"), else None — words before it name another subject ("Wife is
    vegetarian") or change the fact."""
    short, longer = _subjectless(short), _subjectless(longer)
    if longer == short:
        return "extends"
    if longer.startswith(short + " "):
        rest = longer[len(short) :].split()
        return "negates" if set(rest) & _NEGATION else "extends"
    at = f" {longer} ".find(f" {short} ")
    if at <= 0:
        return None
    before = longer[:at].split()
    return "negates" if before and all(w in _NEGATION for w in before) else None


def _supersede_slots(
    rel: str, lines: list[_Line], drop: dict[int, Retired], when: _When, stamp: str
) -> None:
    by_slot: dict[str, list[_Line]] = {}
    for ln in lines:
        if ln.index in drop:
            continue
        slot = _slot(ln.key)
        if slot is not None:
            by_slot.setdefault(slot, []).append(ln)
    for group in by_slot.values():
        if len(group) < 2:
            continue
        newest = max(group, key=when)
        for ln in group:
            if ln is not newest and not ln.pinned:
                drop[ln.index] = Retired(
                    rel, ln.text, "superseded", f"superseded {stamp}", newest.text
                )


def _archive_least_salient(
    rel: str,
    text: str,
    lines: list[_Line],
    drop: dict[int, Retired],
    infos: Mapping[int, LineInfo | None],
    protected: _Protected,
    cfg: DreamConfig,
    today: date,
    over: list[str],
) -> None:
    lc = cfg.lifecycle
    stamp = today.isoformat()

    # short: archive entries are searched by their words
    def note(info: LineInfo | None, what: str) -> str:
        hits = f", recalled {info.hits}×" if info and info.hits else ""
        return f"archived {stamp} ({what}{hits})"

    candidates = [ln for ln in lines if ln.index not in drop and not protected(ln)]
    if lc.stale_days is not None:
        for ln in candidates:
            info = infos[ln.index]
            if rel == USER and (_slot(ln.key) is not None or _label(ln.key) is not None):
                # the user's attributes (home, work, role, "Key: value") do not go stale, only out
                # of date
                continue
            if info is not None and not ln.new and (today - info.last_seen).days > lc.stale_days:
                drop[ln.index] = Retired(
                    rel, ln.text, "archived", note(info, f"unused {lc.stale_days} days")
                )
    limit = budgets(cfg)[rel]
    size = len(text) - sum(len(ln.raw) + 1 for ln in lines if ln.index in drop)
    if size <= limit:
        return
    target = int(limit * lc.target_ratio)

    def rank(ln: _Line) -> tuple[bool, float, int, int]:
        info = infos[ln.index]
        if info is None:
            return (True, 1.0, today.toordinal(), ln.index)
        return (
            recent(info, today),
            score(info, today, lc.half_life_days),
            info.learned.toordinal(),
            ln.index,
        )

    for ln in sorted((c for c in candidates if c.index not in drop and not c.new), key=rank) + [
        c for c in candidates if c.index not in drop and c.new
    ]:
        if size <= target:
            break
        drop[ln.index] = Retired(rel, ln.text, "archived", note(infos[ln.index], "over budget"))
        size -= len(ln.raw) + 1
    if size > limit:
        over.append(rel)
        log.warning(
            "dream lifecycle: %s is over its budget on protected lines alone (%d > %d)",
            rel,
            size,
            limit,
        )


def _archive_texts(
    retired: Iterable[Retired], disk: Mapping[str, str], today: date
) -> dict[str, str]:
    grouped: dict[str, list[str]] = {}
    for r in retired:
        if not r.archived:
            continue
        grouped.setdefault(r.path, []).append(arc.entry_line(r.text, _archive_note(r)))
    out = {}
    for source, entries in grouped.items():
        path = arc.archive_path(source)
        out[path] = arc.append_entries(disk.get(path, ""), source, entries, today)
    return out


def _archive_note(r: Retired) -> str:
    """The archive entry's why and when, with what replaced the line (merges name the line they went
    into)."""
    if r.by and r.why == "superseded":
        return f'{r.note} by "{r.by}"'
    if r.by and r.why == "merged":
        return f'{r.note} into "{r.by}"'
    return r.note


def _learn(
    record: SalienceRecord,
    base: Mapping[str, str],
    files: Mapping[str, str],
    facts: Sequence[tuple[str, str]],
    today: date,
) -> None:
    """New lines are learned today (with the mark of the batch fact they came from); restated ones
    confirmed."""
    parsed = [
        (mark, key, _tokens(key))
        for mark, key in ((mark, line_key(text)) for mark, text in facts)
        if key
    ]
    for rel, text in files.items():
        lines = record.files.setdefault(rel, {})
        base_keys = _keys(base.get(rel, ""))
        for raw in text.split("\n"):
            if not is_fact_line(raw):
                continue
            key = line_key(raw)
            tokens = _tokens(key)
            info = lines.get(key)
            best = max(parsed, key=lambda p: (p[1] == key, _jaccard(p[2], tokens)), default=None)
            sim = 1.0 if best and best[1] == key else (_jaccard(best[2], tokens) if best else 0.0)
            if info is None:
                info = lines[key] = LineInfo(today)
                if best and key not in base_keys and sim >= 0.5:
                    info.mark = "durable" if best[0] == "correction" else best[0]
            elif best and sim >= 0.8:
                info.confirmed = today
                if best[0] == "permanent":
                    info.mark = "permanent"


def _forget_removed(record: SalienceRecord, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        keys = set(_keys(text))
        lines = record.files.get(rel)
        if lines:
            for key in [k for k in lines if k not in keys]:
                del lines[key]
