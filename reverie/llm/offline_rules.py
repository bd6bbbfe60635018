"""The offline engine's pattern tables: what a user sentence says about them, in canonical fact templates.

Two tables, one per direction:

- ``_SENTENCE_RULES`` read what the *user* said (never a tool, a web page or another participant) and produce
  ``Fact``s in canonical templates: ``Name: X``, ``Lives in X``, ``Works at X``, ``Works as X``, ``Likes X``,
  ``Reply in X``, ``Always …``, ``Uses X``, ``Deadline for X: D`` …
- ``_CANON`` reads a canonical fact back: which file it belongs to (USER, SOUL, MEMORY) and which single-valued
  *slot* it fills (``home``, ``employer``, ``language`` …), so a correction can find the line it replaces. Facts
  written ``… instead of OLD`` and ``No longer …`` name what they replace or remove.

Marks: identity (name, origin, birthday, family) is ``permanent``; dated things (deadlines, trips) ``ephemeral``;
anything said as a correction ("actually …", "not X but Y", "I moved to …", "I now …", "no longer …")
``correction``; the rest ``durable``. This is a table of regular expressions, not language understanding: it
catches the common phrasings and misses the rest, which a real model handles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Fact", "Canon", "extract_facts", "canon", "third_person", "normalize", "is_suspicious_rule"]

USER, SOUL, MEMORY = "USER", "SOUL", "MEMORY"


@dataclass(frozen=True)
class Fact:
    text: str
    mark: str  # permanent | durable | ephemeral | correction


@dataclass(frozen=True)
class Canon:
    target: str  # USER | SOUL | MEMORY
    slot: str | None  # single-valued slot, or None for facts that may coexist (likes, rules, tools in use)
    replaces: str | None = None  # the old line's text ("… instead of X")
    removes: str | None = None  # the line a "No longer …" fact retracts


# -- value capture ----------------------------------------------------------------------------------------------
_STOP = r"(?=\s+(?:and|but|since|because|so|now|anymore|any more|these days|nowadays|with|where|which|who)\b|[,.;!?()]|$)"
_VAL = rf"(?P<v>[^,.;!?()]{{1,60}}?){_STOP}"
# Places and employers end earlier: "in Berlin since May", "at Siemens as an engineer", "to Berlin last month".
_PSTOP = r"(?=\s+(?:and|but|since|because|so|now|anymore|any more|these days|with|where|which|who|as|in|on|at|last|next|this|for|from|until|today|yesterday|a few|two|three)\b|[,.;!?()]|$)"
_PLACE = rf"(?P<v>[^,.;!?()]{{1,60}}?){_PSTOP}"
_NAME = r"(?P<v>(?-i:[A-Z])[\w'-]+(?:\s(?-i:[A-Z])[\w'-]+)?)"
_LANGS = ("English|German|French|Spanish|Italian|Portuguese|Dutch|Japanese|Chinese|Mandarin|Korean|Russian|Polish|"
          "Swedish|Norwegian|Danish|Finnish|Greek|Turkish|Arabic|Hebrew|Hindi|Ukrainian|Czech|Hungarian|Romanian")
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = (rf"(?P<d>\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?|(?:next |this )?{_WEEKDAY}"
         rf"|{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}(?: \d{{4}})?"
         r"|tomorrow|tonight|next week|next month|end of (?:the )?(?:day|week|month|quarter|year))")
_ROLES = (r"engineer|developer|programmer|designer|teacher|professor|doctor|nurse|manager|scientist|researcher|"
          r"student|writer|lawyer|consultant|analyst|architect|artist|accountant|founder|cto|ceo|data scientist")

I = r"\bi(?:\s+(?:now|currently|just|actually|recently))?"  # noqa: E741 — "I", the user


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# (regex, template, mark, correction?) — the template's {v}/{k}/{d}/{o} come from the match's named groups.
_SENTENCE_RULES: list[tuple[re.Pattern[str], str, str, bool]] = [
    # identity
    (_rx(rf"\bmy name is {_NAME}"), "Name: {v}", "permanent", False),
    (_rx(rf"^(?:hi|hello|hey)?[,!\s]*(?:i'm|i am) {_NAME}\s*(?:[,.!]|$)"), "Name: {v}", "permanent", False),
    (_rx(rf"\bi(?:'m| am) (?:originally )?from {_PLACE}"), "From {v}", "permanent", False),
    (_rx(rf"\bmy birthday is (?:on )?{_DATE}"), "Birthday: {d}", "permanent", False),
    (_rx(rf"\bmy (?P<k>wife|husband|partner|son|daughter|brother|sister|dog|cat|mother|father|mom|dad|boss)"
         rf"(?:'s name)? is (?:called |named )?{_NAME}"), "Has a {k} named {v}", "permanent", False),
    # home and work
    (_rx(rf"{I} (?:live|am living|'m living|am based|'m based|reside) in {_PLACE}"), "Lives in {v}", "durable", False),
    (_rx(rf"{I}(?:'ve| have)? (?:just )?(?:moved|relocated) to {_PLACE}"), "Lives in {v}", "correction", True),
    (_rx(rf"{I} (?:work|am working|'m working) (?:at|for) {_PLACE}"), "Works at {v}", "durable", False),
    (_rx(rf"{I} (?:started|joined|(?:started|got) (?:a new job|working) at) {_PLACE}"), "Works at {v}", "correction", True),
    (_rx(rf"{I} (?:work|am working|'m working) (?:at|for )?[^,.;]*?\bas (?:an? )?{_VAL}"), "Works as {v}", "durable", False),
    (_rx(rf"\bi(?:'m| am) an? (?P<v>(?:[a-z-]+ )?(?:{_ROLES})){_STOP}"), "Works as {v}", "durable", False),
    # likes, dislikes, preferences
    (_rx(rf"\bi (?:no longer|don't|do not) (?P<k>live in|work at|work for|like|use) {_VAL}\s*(?:any ?more)?"),
     "No longer {k} {v}", "correction", True),
    (_rx(rf"\bi (?:really |also )?(?:don't|do not) (?:like|enjoy) {_VAL}"), "Dislikes {v}", "durable", False),
    (_rx(rf"\bi (?:really |also )?(?:hate|dislike|can't stand|cannot stand) {_VAL}"), "Dislikes {v}", "durable", False),
    (_rx(rf"\bi (?:really |also )?(?:like|love|enjoy|adore) {_VAL}"), "Likes {v}", "durable", False),
    (_rx(rf"\bi (?:really |also )?(?:prefer|would rather|'d rather) {_VAL}"), "Prefers {v}", "durable", False),
    (_rx(rf"\bmy favou?rite (?P<k>[a-z]+) is {_VAL}"), "Favourite {k}: {v}", "durable", False),
    # rules for the agent
    (_rx(rf"\bcall me {_NAME}"), "Call the user {v}", "durable", False),
    (_rx(rf"\b(?:reply|respond|answer|talk|speak|write)(?: to me)?(?: only)? in (?P<v>{_LANGS})\b"),
     "Reply in {v}", "durable", False),
    (_rx(r"\b(?:keep|make) (?:your |the )?(?:answers|replies|responses) (?:short|brief|concise)"
         r"|\bbe (?:brief|concise)\b|\bshorter (?:answers|replies)"), "Keep answers short", "durable", False),
    (_rx(r"\b(?:give|write) (?:me )?(?:more )?detailed (?:answers|replies)|\blonger (?:answers|replies)"),
     "Give detailed answers", "durable", False),
    (_rx(r"^(?:(?:please|from now on|and|also|so)[,\s]+)*(?:you should |you must |make sure to )?"
         r"(?P<k>always|never) (?P<v>.{3,120}?)\s*[.!]?$"), "{K} {v3}", "durable", False),
    (_rx(r"^(?:(?:please|from now on|and|also)[,\s]+)*(?:don't|do not) ever (?P<v>.{3,120}?)\s*[.!]?$"),
     "Never {v3}", "durable", False),
    # project facts and decisions
    (_rx(rf"\bwe(?:'ve| have)? (?:switched|moved|migrated) from (?P<o>[^,.;!?()]{{1,60}}?) to {_VAL}"),
     "Uses {v} instead of {o}", "correction", True),
    (_rx(r"\bwe(?:'ve| have)? (?:decided|agreed) (?:to |that |on )(?P<v>.{3,120}?)\s*[.!]?$"), "Decided: {v3}", "durable", False),
    (_rx(rf"\bwe(?:'ve| have)? (?:chose|chosen|picked|went with|settled on) {_VAL}"), "Chose {v}", "durable", False),
    (_rx(rf"\bwe(?:'re| are)? (?:now )?(?:use|using|run on|running on|build on|building on) {_VAL}"),
     "Uses {v}", "durable", False),
    (_rx(rf"\bwe no longer use {_VAL}|\bwe stopped using {_VAL.replace('P<v>', 'P<v2>')}"), "No longer uses {v}",
     "correction", True),
    (_rx(rf"\b(?:the|our|my) (?P<k>project|app|product|service|system|repo|startup|company|team) is (?:called|named) {_NAME}"),
     "The {k} is called {v}", "durable", False),
    (_rx(rf"\bthe deadline (?:for (?P<v>[\w\s-]{{2,40}}?) )?is (?:on |by )?{_DATE}"), "Deadline for {v}: {d}", "ephemeral", False),
    (_rx(rf"\b(?:the |our |my )?(?P<v>[\w-]+(?: [\w-]+){{0,3}}) (?:is|are) due (?:on |by )?{_DATE}"),
     "Deadline for {v}: {d}", "ephemeral", False),
    (_rx(rf"\bi(?:'m| am) (?:going|flying|travelling|traveling|driving|heading) to {_NAME} (?:on |this |next )?{_DATE}"),
     "Travelling to {v} ({d})", "ephemeral", False),
]

_REMEMBER = _rx(r"\b(?:please )?remember (?:that )?(?P<v>.{3,200}?)\s*[.!]?$")
_CORRECTION_CUE = _rx(r"^(?:actually|correction|sorry|no|wait|oops)\b[,:!\s]*")
_CORRECTION_ANYWHERE = _rx(r"\bi meant\b|\bactually\b|\bi was wrong\b")
_NOT_BUT = _rx(r"\bnot (?P<p>(?:in|at|as|for) )?(?P<o>[^,.;]{1,40}?),? but (?:(?P=p))?")
_FILLER = _rx(r"^(?:oh|well|btw|by the way|so|also|anyway|ok|okay|hmm|and)\b[,\s]+")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")

# Canonical fact → (file, slot). The slot template's {1}, {2} are the match's groups.
_CANON: list[tuple[re.Pattern[str], str, str | None]] = [
    (_rx(r"^Name: (.+)$"), USER, "name"),
    (_rx(r"^From (.+)$"), USER, "origin"),
    (_rx(r"^Birthday: (.+)$"), USER, "birthday"),
    (_rx(r"^Has an? (\w+) named (.+)$"), USER, "family:{1}"),
    (_rx(r"^Lives in (.+)$"), USER, "home"),
    (_rx(r"^Works at (.+)$"), USER, "employer"),
    (_rx(r"^Works as (.+)$"), USER, "role"),
    (_rx(r"^Favou?rite (\w+): (.+)$"), USER, "favourite:{1}"),
    (_rx(r"^(?:Likes|Dislikes|Prefers) (.+)$"), USER, None),
    (_rx(r"^Call the user (.+)$"), SOUL, "call"),
    (_rx(r"^Reply in (.+)$"), SOUL, "language"),
    (_rx(r"^(Keep answers short|Give detailed answers)$"), SOUL, "length"),
    (_rx(r"^(?:Always|Never) (.+)$"), SOUL, None),
    (_rx(r"^Deadline for (.+?): (.+)$"), MEMORY, "deadline:{1}"),
    (_rx(r"^The (\w+) is called (.+)$"), MEMORY, "name:{1}"),
    (_rx(r"^(?:Uses|Chose|Decided:|Travelling to) (.+)$"), MEMORY, None),
]
_INSTEAD = _rx(r"^(?P<new>.+?) instead of (?P<old>.+)$")
_NO_LONGER = _rx(r"^No longer (?P<k>lives in|live in|works at|work at|works for|work for|likes|like|uses|use) (?P<v>.+)$")
_NO_LONGER_LINE = {"live in": "Lives in", "lives in": "Lives in", "work at": "Works at", "works at": "Works at",
                   "work for": "Works at", "works for": "Works at", "like": "Likes", "likes": "Likes",
                   "use": "Uses", "uses": "Uses"}
_NO_LONGER_TEXT = {"live in": "lives in", "work at": "works at", "work for": "works at", "like": "likes", "use": "uses"}

_SUSPICIOUS = _rx(
    r"https?://|www\.|[\w.+-]+@[\w-]+\.\w+|ignore (?:all |any |the )?(?:previous|prior|above|earlier) instructions"
    r"|\b(?:send|upload|forward|post|e-?mail|exfiltrate|share|leak)\b.*\b(?:to|with)\b"
    r"|\b(?:password|api[ _-]?key|token|secret|credential|ssh key)s?\b|\bsoul\.md\b|\bsystem prompt\b"
)

# "I copy" → "the user copies": the verb right after "I" (past an adverb or two) agrees with its new subject.
_I_VERB = (r"\bI((?:\s+(?:also|really|usually|always|never|often|just|still|mostly|only|generally|sometimes))*)"
           r"\s+([a-z]+)\b")
_NOT_PRESENT = frozenset(
    "am is are was were be been have has had do does did don't can could will would shall should must might may "
    "ought used to a an the".split()
)


def _third_singular(verb: str) -> str:
    if verb in _NOT_PRESENT or (verb.endswith("ed") and not verb.endswith("eed")) or verb.endswith("n't") or len(verb) < 2:
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_THIRD_PERSON = [
    (r"\bI am\b|\bI'm\b", "the user is"), (r"\bI've\b|\bI have\b", "the user has"), (r"\bI'll\b", "the user will"),
    (r"\bI'd\b", "the user would"), (r"\bI was\b", "the user was"), (r"\bI don't\b|\bI do not\b", "the user doesn't"),
    (r"\bI do\b", "the user does"), (_I_VERB, lambda m: f"the user{m.group(1)} {_third_singular(m.group(2))}"),
    (r"\bI\b", "the user"), (r"\bmy\b", "the user's"), (r"\bmine\b", "the user's"),
    (r"\bmyself\b", "the user"), (r"\bme\b", "the user"),
]
_THIRD_PERSON_RX = [(re.compile(p, 0 if p in (r"\bI\b", _I_VERB) else re.I), r) for p, r in _THIRD_PERSON]


def third_person(text: str) -> str:
    """The user's first-person words as a third-person note ("my flat" → "the user's flat")."""
    for rx, repl in _THIRD_PERSON_RX:
        text = rx.sub(repl, text)
    return text


def normalize(text: str) -> str:
    """Comparison key: lower case, bullets, marks, punctuation and spacing folded."""
    text = re.sub(r"^\s*[-*]\s*(?:\[[a-z]+\]\s*)?", "", text.strip(), flags=re.I)
    text = re.sub(r"[^\w\s:]", " ", text.lower())
    return " ".join(text.split())


def is_suspicious_rule(text: str) -> bool:
    """A would-be SOUL rule that sends data out, names credentials or tries to rewrite the agent's instructions."""
    return bool(_SUSPICIOUS.search(text))


_VAGUE_TEMPLATES = ("Likes", "Dislikes", "Prefers", "Uses", "Chose", "Works at", "Lives in")
_VAGUE = frozenset("it that this them you those these there here one your his her its so doing being what how "
                   "to".split())
_NOT_A_RULE = frozenset("mind heard been seen knew thought happened did was were had the-same".split())
_PROPER = ("Lives in", "From", "Works at", "Travelling to", "Uses", "Chose")


def _clean(value: str, proper: bool) -> str:
    value = re.sub(r"\s+", " ", value).strip(" '\"`-:")
    value = re.sub(r"^(?:the city of|the|our|my|in|at)\s+", "", value, flags=re.I)
    if proper and value.islower() and len(value.split()) <= 3 and not re.search(r"\d", value) and len(value) > 3:
        value = value.title()  # "new york" → "New York"; only for places, employers and named things
    return value


def _fill(template: str, m: re.Match[str]) -> str | None:
    groups = {k: v for k, v in m.groupdict().items() if v}
    values: dict[str, str] = {}
    for key in ("v", "o", "d", "k"):
        if key in groups:
            values[key] = _clean(groups[key], template.startswith(_PROPER)) if key in ("v", "o") else groups[key].strip()
    if "v2" in groups and "v" not in values:
        values["v"] = _clean(groups["v2"], True)
    if "k" in values:
        values["K"] = values["k"].capitalize()
        values["k"] = _NO_LONGER_TEXT.get(values["k"].lower(), values["k"].lower())
    if "{v3}" in template:  # free text addressed to the agent: keep the user's words, in the third person
        raw = groups.get("v", "").strip().rstrip(".!")
        values["v3"] = third_person(raw)
    if template.startswith("Deadline for {v}") and "v" not in values:
        template = template.replace("Deadline for {v}", "Deadline")
    first = (values.get("v") or values.get("v3") or "").split(" ", 1)[0].lower().strip(",.!")
    if template.startswith(_VAGUE_TEMPLATES) and first in _VAGUE:
        return None  # "I like that", "we use it daily": nothing to remember without the context
    if template.startswith(("{K}", "Never")) and first in _NOT_A_RULE:
        return None  # "never mind", "always been like that"
    try:
        text = template.format(**values)
    except KeyError:
        return None
    text = text.strip()
    return text[:1].upper() + text[1:] if text else None


def extract_facts(sentence_block: str) -> list[Fact]:
    """Facts stated in one message of the user's, in order, without duplicates."""
    out: list[Fact] = []
    seen: set[str] = set()
    for raw in _SENTENCE_SPLIT.split(sentence_block):
        sentence = raw.strip()
        if not sentence:
            continue
        while True:  # drop leading fillers ("oh,", "btw,") however many there are
            stripped = _FILLER.sub("", sentence)
            if stripped == sentence:
                break
            sentence = stripped
        correction = False
        cue = _CORRECTION_CUE.match(sentence)
        if cue:
            correction, sentence = True, sentence[cue.end():]
        if _CORRECTION_ANYWHERE.search(sentence):
            correction = True
        if _NOT_BUT.search(sentence):
            correction = True
            sentence = _NOT_BUT.sub(lambda m: m.group("p") or "", sentence)
        found = False
        for rx, template, mark, is_correction in _SENTENCE_RULES:
            if found and template.startswith(("{K}", "Never {v3}")):
                continue  # "always answer in French" already gave "Reply in French": no generic rule too
            for m in rx.finditer(sentence):
                text = _fill(template, m)
                if not text or len(text) > 160:
                    continue
                if canon(text).target == SOUL and is_suspicious_rule(text):
                    continue
                kind = "correction" if (correction or is_correction) and mark != "ephemeral" else mark
                key = normalize(text)
                if key not in seen:
                    seen.add(key)
                    out.append(Fact(text, kind))
                    found = True
        if not found:
            m = _REMEMBER.search(sentence)
            if m:
                note = third_person(m.group("v").strip())
                note = note[:1].upper() + note[1:]
                if normalize(note) not in seen and not is_suspicious_rule(note):
                    seen.add(normalize(note))
                    out.append(Fact(note, "correction" if correction else "durable"))
    return _drop_shadowed(out)


def _drop_shadowed(facts: list[Fact]) -> list[Fact]:
    """When one sentence matched two rules for the same slot (e.g. "I now work at X" and "I work at X"), keep one."""
    kept: list[Fact] = []
    slots: dict[str, int] = {}
    for fact in facts:
        slot = canon(fact.text).slot
        if slot and slot in slots:
            prev = kept[slots[slot]]
            if fact.mark == "correction" and prev.mark != "correction":
                kept[slots[slot]] = fact
            continue
        if slot:
            slots[slot] = len(kept)
        kept.append(fact)
    return kept


def canon(fact: str) -> Canon:
    """Where a (canonical) fact belongs and which slot it fills. Unknown phrasing: USER when it is about the user,
    else MEMORY, with no slot."""
    text = fact.strip()
    m = _NO_LONGER.match(text)
    if m:
        line = f"{_NO_LONGER_LINE[m.group('k').lower()]} {m.group('v')}"
        return Canon(canon(line).target, None, removes=line)
    old = None
    m = _INSTEAD.match(text)
    if m:
        text, old = m.group("new"), m.group("old")
    for rx, target, slot in _CANON:
        cm = rx.match(text)
        if cm:
            if slot:
                slot = slot.replace("{1}", normalize(cm.group(1)))
            replaces = f"{text[: cm.start(cm.lastindex or 0)]}{old}" if old and cm.lastindex else None
            return Canon(target, slot, replaces)
    replaces = None
    lowered = text.lower()
    if re.match(r"^(?:the )?user\b|\bthe user's\b", lowered):
        return Canon(USER, None, replaces)
    return Canon(MEMORY, None, replaces)


def strip_instead(fact: str) -> str:
    """The fact as it is saved: without its ``instead of …`` clause."""
    m = _INSTEAD.match(fact.strip())
    return m.group("new") if m else fact.strip()
