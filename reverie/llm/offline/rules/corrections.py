"""Corrections that name only the new value: "its Joao actually", "Mine is called Tofu", "he is
Mads",
"my surname is Obiora, not Obi", "Now it is 24 May", "They moved our standup to 9:15", "English is
better".

Such a message states no fact on its own: it corrects the value of a line already in memory. The
rules here read it, in a message that carries a cue of correction, as a ``Now: <kind> <value>``
fact; Dream's analysis (``engine``) then finds the one line of memory holding a value of that kind
and replaces it (``resolve``), or, when there is none or more than one, writes nothing. A ``Now:``
fact never reaches a memory file as such.
"""

from __future__ import annotations

import re

from ..dates import DATE_PHRASE
from ..dates import resolve as resolve_date
from ..kinds import fold
from .core import USER, Filling, rule
from .phrases import NAME
from .values import is_language, is_name

__all__ = ["RULES", "CANON", "NOW", "resolve"]

#: Words that make a message a correction of something said before.
_CUE = re.compile(
    r"\b(?:actually|sorry|mistake|wrong|typo|autocorrect|i meant|i mean|wait|oops|correction|not \w+|"
    r"changed my mind|they moved|moved it|slipped|update|pushed|upgrade|spelled|spelt)\b",
    re.I,
)
_DATE = rf"(?P<d>{DATE_PHRASE})"
#: How a value-only correction is said; the fact it gives.
NOW = re.compile(
    r"^Now: (?P<k>name|surname|date|time|language|version|allergy|children|cadence) (?P<v>.+?)(?:; said: (?P<h>.*))?$"
)
#: A date corrected is said to have moved.
_DATE_CUE = re.compile(
    r"\b(?:moved|slipped|postponed|pushed|deadline|new date|rescheduled|delayed|changed)\b", re.I
)


def corrects(f: Filling) -> bool:
    """Only in a message that says it corrects something."""
    return bool(_CUE.search(f.message or f.match.string))


def name_corrected(f: Filling) -> bool:
    """A name said as the right one. The fact keeps what else the message says ("said: Luna",
    "said: name") so that the line it corrects can be told: the old name said again, a name
    spelled alike, or the word "name"."""
    if not corrects(f):
        return False
    message = f.message or f.match.string
    said = [
        w
        for w in re.findall(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z])[\w'’-]+", message)
        if w != f.values["v"]
    ]
    if re.search(r"\bnames?\b", message, re.I):
        said.append("name")
    f.template += f"; said: {' '.join(said)}" if said else ""
    return True


def date_corrected(f: Filling) -> bool:
    return corrects(f) and bool(_DATE_CUE.search(f.message or f.match.string))


def a_language(f: Filling) -> bool:
    value = f.groups.get("v", "")
    f.values["v"] = value[:1].upper() + value[1:]
    return is_language(f.values["v"]) and corrects(f)


RULES = [
    rule(
        rf"\b(?:it's|its|it is|he's|he is|hes|she's|she is|shes|mine is|mine's|mine is called|"
        rf"the name is|(?:his|her|my) name is actually|i meant|(?:it's |its |it is )?spelled|spelt) {NAME}(?=\s*(?:[,.;!]|$)|\s+(?:actually|"
        r"with|not|and|it's|its)\b)",
        "Now: name {v}",
        {"v": is_name},
        "correction",
        change=True,
        finish=name_corrected,
    ),
    rule(
        rf"\bmy (?:surname|last name|family name) is {NAME}",
        "Now: surname {v}",
        {"v": is_name},
        "correction",
        change=True,
        finish=corrects,
    ),
    rule(
        rf"\b(?:now it(?:'s| is)|it(?:'s| is) now|new (?:date|deadline|day) is|(?:moved|pushed|postponed|"
        rf"changed|delayed|slipped) (?:it |the [a-z]+(?: [a-z]+)? )?(?:back )?to) (?:on )?{_DATE}\b",
        "Now: date {d}",
        None,
        "correction",
        change=True,
        finish=date_corrected,
    ),
    rule(
        r"\b(?:moved|changed|pushed) (?:our |the )?(?P<e>[a-z]+(?:[ -][a-z]+)?) to "
        r"(?P<v>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)(?=\s*(?:[,.;!]|$)|\s+(?:starting|from|on|every)\b)",
        "Now: time {v} {e}",
        None,
        "correction",
        change=True,
        finish=corrects,
    ),
    rule(
        r"\b(?:(?:upgraded|updated|bumped|moved|migrated) (?:it |us |everything )?to|(?:everything|it|we)(?:'s| is|"
        r"'re| are) (?:now )?on) (?:version |v)?(?P<v>\d+\.\d+(?:\.\d+)?)\b",
        "Now: version {v}",
        None,
        "correction",
        change=True,
    ),
    rule(
        r"^(?P<v>[A-Za-z]+) is better\b",
        "Now: language {v}",
        None,
        "correction",
        change=True,
        finish=a_language,
    ),
]

#: Canonical, so that Dream takes a ``Now:`` fact as written (never read again as the user's
#: words); it is resolved before any template is read back and never reaches a file.
CANON: list[tuple[str, str, str | None]] = [(r"^Now: ", USER, None)]

_NAMED = re.compile(r"^(?P<head>Has an? .+? named )(?P<v>.+)$")
_NAME_LINE = re.compile(r"^(?P<head>Name: )(?P<v>.+)$")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?(?:\s*(?:am|pm))?\b", re.I)


def resolve(fact: str, files: dict[str, list[str]]) -> tuple[str, str, str] | None:
    """The correction ``fact`` (``Now: …``) applied to the one line it can mean: (file kind, old
    line, new line), or None when no line, or more than one, holds a value of its kind."""
    m = NOW.match(fact)
    if not m:
        return None
    kind, value = m.group("k"), m.group("v")
    said = m.group("h") or ""
    if kind in _SAID:
        candidates = _SAID[kind](files, value, said)
        return candidates[0] if len(candidates) == 1 else None
    candidates = _CANDIDATES[kind](files, value)
    if kind == "name":
        candidates = [c for c in candidates if _meant(c[1], value, said.split())]
    return candidates[0] if len(candidates) == 1 else None


def _meant(line: str, value: str, said: list[str]) -> bool:
    """The old name is the one meant: said again ("Luna is my sister's cat"), the word "name" said,
    or spelled like the new one ("Jose" and "Joao", "Max" and "Mads", "Jurgen" and "Jürgen")."""
    m = _NAME_LINE.match(line) or _NAMED.match(line)
    old = m.group("v") if m else ""
    if old in said or "name" in said:
        return True
    a, b = fold(old), fold(value)
    return a == b or (len(a) >= 3 and _distance(a, b) <= max(1, len(a) // 2))


def _distance(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute) of two short words."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _names(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    out = []
    for line in files.get("USER", []):
        m = _NAME_LINE.match(line) or _NAMED.match(line)
        if m and m.group("v") != value:
            out.append(("USER", line, f"{m.group('head')}{value}"))
    return out


def _surnames(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    out = []
    for line in files.get("USER", []):
        m = _NAME_LINE.match(line)
        if m and len(m.group("v").split()) > 1:
            given = m.group("v").rsplit(" ", 1)[0]
            out.append(("USER", line, f"Name: {given} {value}"))
    return out


def _dates(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    day = value if _ISO.fullmatch(value) else None
    if day is None:
        found = resolve_date(value, None)
        day = found.isoformat() if found else None
    if day is None:
        return []
    out = []
    for line in files.get("MEMORY", []):
        dates = _ISO.findall(line)
        if len(dates) == 1 and dates[0] != day:
            out.append(("MEMORY", line, line.replace(dates[0], day)))
    return out


def _times(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    time, _, event = value.partition(" ")
    out = []
    for line in files.get("MEMORY", []):
        times = _TIME.findall(line)
        if event and event.lower() in line.lower() and len(times) == 1:
            out.append(("MEMORY", line, line.replace(times[0], time, 1)))
    return out


_VERSIONED = re.compile(r"^(?P<head>Uses [A-Za-z][\w.+-]*) (?P<v>v?\d+(?:\.\d+)*[a-z]?)$")


def _versions(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    out = []
    for line in files.get("MEMORY", []):
        m = _VERSIONED.match(line)
        if m and m.group("v") != value:
            out.append(("MEMORY", line, f"{m.group('head')} {value}"))
    return out


def _languages(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    return [
        ("SOUL", line, f"Reply in {value}")
        for line in files.get("SOUL", [])
        if line.startswith("Reply in ") and line != f"Reply in {value}"
    ]


_CANDIDATES = {
    "name": _names,
    "surname": _surnames,
    "date": _dates,
    "time": _times,
    "language": _languages,
    "version": _versions,
}


def _allergies(files: dict[str, list[str]], value: str, old: str) -> list[tuple[str, str, str]]:
    """ "not peanuts, it's tree nuts": the line naming the old allergen, with the new one."""
    return [
        ("USER", line, f"Allergic to {value}")
        for line in files.get("USER", [])
        if line.startswith("Allergic to ") and fold(line[12:]).rstrip("s") == fold(old).rstrip("s")
    ]


_COUNTS = ("two", "three", "four", "five", "six")
_COUNT_LINE = re.compile(r"^Has (?P<n>two|three|four|five|six|\d) (?P<k>children|sons|daughters)$")


def _children(files: dict[str, list[str]], value: str, _said: str) -> list[tuple[str, str, str]]:
    """ "Make that three! Our son was born": the one count of children (or of sons, for a son) said
    before, at its new number; a count of daughters is not changed by a son."""
    number, _, child = value.partition(" ")
    number = _COUNTS[int(number) - 2] if number.isdigit() and 2 <= int(number) <= 6 else number
    nouns = {"children", f"{child}s"}
    out = []
    for line in files.get("USER", []):
        m = _COUNT_LINE.match(line)
        if m and m.group("k") in nouns and m.group("n") != number:
            out.append(("USER", line, f"Has {number} {m.group('k')}"))
    return out


_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_WHEN = re.compile(
    rf"\b(?:every |on )?{_WEEKDAY}(?:\s+(?:at|@)\s+\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm)?)?", re.I
)


def _cadences(files: dict[str, list[str]], value: str, event: str) -> list[tuple[str, str, str]]:
    """ "He moved it to Thursdays at 3pm": the one line of memory holding a weekday (of the event,
    when it is named), its day and time said anew."""
    out = []
    for line in files.get("MEMORY", []):
        days = _WHEN.findall(line)
        if len(days) != 1 or (event and fold(event) not in fold(line)):
            continue
        new = value if re.search(r"\d", value) or not re.search(r"\d", days[0]) else None
        if new is None:  # a day said alone keeps the line's time
            new = re.sub(rf"{_WEEKDAY}", value, days[0], count=1, flags=re.I)
        lead = re.match(r"(?:every |on )", days[0], re.I)
        new_line = line.replace(days[0], f"{lead.group(0) if lead else ''}{new}", 1)
        if new_line != line:
            out.append(("MEMORY", line, new_line))
    return out


_SAID = {"allergy": _allergies, "children": _children, "cadence": _cadences}
