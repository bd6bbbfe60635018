"""The user's own plain statements that no kind rule reads, kept in the user's words.

Fresh writers tell their assistant things in hundreds of shapes no table of patterns lists ("I keep
about 15 chickens in the backyard", "I carry an EpiPen", "our app targets Android only"). For a
clause the clause stage keeps (the user's own present statement: not framed, not a question, a
hypothetical, a report, a joke or code) and that no kind rule read, this stage writes the
statement itself as a short third-person line: about the user ("I supervise four MSc students" →
``Supervises four MSc students``) to USER, about the user's work or project ("the services are
written in Go 1.22" → ``Services are written in Go 1.22``) to MEMORY. A request to the agent stays
with ``agent``'s rules: this stage writes no SOUL line.

It is the stage most likely to write a wrong line, so most of it is refusal. A clause gives
nothing when it is about a passing moment or a one-off event (a time word, a past tense), a
feeling or a judgement ("I'm so excited", "I'm a bit lost"), a plan, a wish or a try, a hedge,
an unresolved pronoun ("it", "that", "they") or the listener ("you"), someone else ("my boss
…"), a negation, a correction (a line with no slot cannot retire the one it corrects), a money
sum, a phone number, a link, code or a swear word, or when it is too short or too long. Only
a verb of a durable state or habit (``_VERBS``), a noun after "I am a/an/the", a durable
adjective ("retired", "deaf"), a possession after "I have a", the household keeping animals or
land ("we keep about 40 goats") and a project noun with a lasting predicate are read; a second
statement joined by "and I <verb>" (``tail``) is read when a kind rule read the first. When
unsure, nothing: history keeps the words and Recall finds them.

A line written here fills no single-valued slot, so it never retires another line; a later "I
don't keep chickens anymore" retires it by its words (``extract._no_longer``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

from ....text.lazyre import lazy
from ..framing import temporary
from .clauses import CODE, NEGATION, Clause
from .core import MEMORY, USER, Rule
from .lexicon import PETS, PETS_PLURAL
from .person import third_person

__all__ = ["CANON", "RULES", "lines", "tail"]

#: No pattern rules: this stage reads what the rules did not (``extract``).
RULES: list[Rule] = []

#: Verbs of a durable state or habit the user states of themselves ("I keep", "I carry"), in the
#: base form. A verb a kind rule reads (live, work, speak, like, use, play …) is left to it; a
#: verb of feeling, thought, saying or wanting is none of these.
_VERBS = (
    "keep carry collect supervise teach manage lead own rent coach mentor tutor study research "
    "edit host organise organize maintain brew bake knit sew grow raise breed foster train "
    "practise practice sing ride drive cycle commute wear attend belong follow report handle "
    "cover design support chair represent share meditate journal swim climb hike sail surf "
    "dance paint draw sketch photograph write compose produce volunteer translate referee "
    "umpire coordinate oversee farm fast"
).split()

#: The third-person forms (``Keeps``, ``Carries``) that open a USER line of this stage.
_THIRD = {
    v: (
        v + "es"
        if v.endswith(("s", "sh", "ch", "x", "z", "o"))
        else v[:-1] + "ies"
        if v.endswith("y") and v[-2] not in "aeiou"
        else v + "s"
    )
    for v in _VERBS
}

#: How this stage's lines read back (``templates.canon``), after every kind's templates: no slot.
CANON = [
    (
        r"^(?:(?:Mostly|Mainly|Usually|Generally|Typically|Normally|Often|Regularly) )?(?:Is|Has "
        r"(?:a|an|\d+|two|three|four|five|six|seven|eight|nine|ten)|Works (?:from|remote|in|hybrid|"
        r"on)|(?:mostly|mainly|usually|generally|typically|normally|often|regularly) \w+|"
        + "|".join(sorted(v.capitalize() for v in _THIRD.values()))
        + "|"
        + "|".join(sorted(_THIRD.values()))
        + r")(?=\s|$)",
        USER,
        None,
    ),
]


#: Words bounding a line: shorter says too little, longer is a story.
_MIN_WORDS, _MAX_WORDS = 2, 14

#: Adverbs of the user's clause dropped from the line ("I also keep bees" → "Keeps bees"); an
#: adverb of frequency opens no line (an "Always …" line reads as a rule for the agent).
_ADVERBS = r"(?:(?:also|still|currently|actually|really|always)\s+)*"
#: How often, kept in the line ("I mostly cycle to work" → ``Mostly cycles to work``, "I work from
#: home most days" → ``Works from home most days``): a line without it would say more than the
#: user did.
_OFTEN = lazy(
    r"^(?P<s>i|we|i'm|i am)\s+(?:(?:also|still|currently|actually|really)\s+)*(?P<a>mostly|"
    r"mainly|usually|generally|typically|normally|often|regularly)\s+",
    re.I,
)
_OFTEN_TAIL = lazy(
    r"\s+(?P<t>most (?:days|of the time|weeks|weekends|mornings|evenings|nights))\s*[.!]*$", re.I
)
#: Where the user works, as an arrangement ("I work from home", "I work remotely"): no employer,
#: no role, which the work rules read.
_WORK_FROM = lazy(
    r"^i\s+work\s+(?P<p>from home|remotely|remote|from the office|in the office|in an office|"
    r"hybrid|on site|onsite|on-site|from a coworking space|in a coworking space)$",
    re.I,
)

#: The user's own statement, by its subject and verb.
_I_AM = lazy(
    rf"^i(?:'m| am)\s+{_ADVERBS}(?P<p>(?:a|an|the|one of the|part of|in charge of|responsible "
    r"for)\s.+|(?:retired|semi-retired|self-employed|freelance|deaf|hard of hearing|blind|"
    r"partially sighted|colou?r-?blind|left-handed|right-handed|dyslexic|autistic|disabled|"
    r"muslim|christian|catholic|protestant|orthodox(?: christian| jewish)?|jewish|hindu|buddhist|"
    r"sikh|atheist|agnostic|mormon|quaker|divorced|widowed|bilingual|trilingual|vegetarian|vegan|"
    r"pescatarian)"
    r"(?=\s*$|\s+(?:and|since|for)\b))",
    re.I,
)
_I_HAVE = lazy(
    rf"^i(?:'ve| have)(?: got)?\s+{_ADVERBS}(?P<p>(?:a|an|\d+|two|three|four|five|six|seven|eight|"
    r"nine|ten)\s.+)$",
    re.I,
)
_I_VERB = lazy(rf"^i\s+{_ADVERBS}(?P<v>[a-z]+)\s+(?P<p>.+)$", re.I)
#: The user's household keeping animals or land ("we keep about 40 goats", "we farm three
#: hectares"): a count or an article after the verb; never "we have" ("we have a mouse in the
#: kitchen" is no possession of the user's).
_WE_KEEP = lazy(
    rf"^we\s+{_ADVERBS}(?P<v>keep|own|raise|breed|grow|farm|foster)\s+(?P<p>(?:a|an|about|"
    r"around|some|\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|forty|fifty)\s.+)$",
    re.I,
)

#: A home rented ("we rent a small house out on Kvaloya", "I rent a flat in Gracia"): the line
#: keeps the kind of home and leaves where it is to the home rules.
_RENTS = lazy(
    r"^(?!.*\b(?:holidays?|vacation|trip|summer|winter|airbnb|getaway|stay|while|until)\b)"
    r"(?:i|we)\s+(?:(?:also|still|currently|now)\s+)?rent\s+(?P<p>(?:a|an)\s+(?:(?:small|little|"
    r"tiny|big|large|two-bedroom|one-bedroom|three-bedroom|shared|basement|studio)\s+)?(?:flat|"
    r"house|apartment|room|cottage|studio|condo|townhouse|bungalow|cabin|bedsit))"
    r"(?=\s*$|\s+(?:in|on|out on|out in|out by|out near|near|outside|by|off|at|just|close to|"
    r"above|with)\b)",
    re.I,
)

#: The user's work or project as a subject ("our app", "the backend", "the services").
_PROJECT_SUBJECT = (
    r"(?:app|apps|mobile app|web app|service|services|microservices|backend|frontend|api|apis|"
    r"website|site|database|db|repo|monorepo|codebase|stack|pipeline|data pipeline|cluster|"
    r"infrastructure|infra|ci|platform|product|servers|server)"
)
_PROJECT = lazy(
    rf"^(?:our|the)\s+(?P<s>(?:[a-z][\w-]*\s+){{0,2}}?{_PROJECT_SUBJECT})\s+(?P<p>"
    r"(?:is|are) (?:written in|built (?:with|on|in)|hosted on|deployed (?:on|to|with)|based on|"
    r"powered by|running on|containeri[sz]ed with)\s.+|"
    r"(?:targets?|runs? on|talks? (?:to|over)|depends? on|relies on|rel(?:y|ies) on|supports?|"
    r"ships? to)\s.+)$",
    re.I,
)

#: What a line must not hold (each a class of the module doc).
_REFUSED = lazy(
    # time of one moment or event
    r"\b(?:today|tonight|yesterday|tomorrow|this (?:morning|week|weekend|month|year)|right now|"
    r"at the moment|just|recently|lately|ago|last|next|soon|anymore|any more|again|finally|"
    r"now|then|once|first time|"
    # a feeling, a judgement, a degree
    r"so|such|too|very|pretty|quite|bit|little|lot|lots|huge|big|total|totally|super|kinda|"
    r"fan|mess|wreck|lucky|proud|glad|happy|excited|sad|tired|busy|lost|stuck|nervous|scared|"
    r"worried|sorry|sure|ready|fine|okay|ok|best|worst|favorite|favourite|"
    # the listener, someone unresolved
    r"you|your|yours|it|its|this|that|these|those|they|them|their|he|him|his|she|her|there|"
    r"someone|something|anything|everything|everyone|one|stuff|things?|"
    # a plan, a wish, a try, a need
    r"want|wants|wish|hope|trying|try|plan|planning|going|need|needs|have to|has to|"
    r"thinking|wondering|love|loved|like|liked|hate|enjoy|miss|"
    # a place the writer left unsaid or a story told
    r"story|dream|novel|game|character|question|idea|problem|issue|feeling|time|day|plans?|"
    # a passing ailment or an appointment had ("I have a cold", "I have a meeting at 3")
    r"cold|flu|fever|headache|migraine|cough|hangover|temperature|meeting|appointment|call|"
    r"interview|exam|test|deadline|date|class|lesson|shift|moment|chance|break|rest|"
    r"(?<!-)(?:seconds?|minutes?|hours?|days|weeks?|months?|years?)|"
    r"some|any|few|several|couple|picture|photo|pic|video|called|named|"
    # a timetable: the schedule rules'
    r"mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|mornings?|"
    r"afternoons?|evenings?|nights?|"
    r"o'clock)\b|\d\s*(?:am|pm|a\.m|p\.m)\b|\d:\d\d|[!?]|\bhere\s*$"
    # "I keep facing new challenges": a going-on, no possession
    r"|^i\s+(?:\w+\s+)?keep\s+\w+ing\b"
    # an idiom, no possession: "I keep bees in mind", "I keep track of it", "I keep my cool"
    r"|\b(?:in mind|in touch|in check|in line|on track|track of|an eye on|an open mind|"
    r"a low profile|my head down|my cool|my distance|my word|a secret|secrets|it real|it simple)\b",
    re.I,
)

#: The user in a possessive or with others ("my …", "our chats"): a kind rule's, or a story's.
_POSSESSED = lazy(r"\b(?:we|us|our|ours|me|my|mine|myself)\b", re.I)

#: What the whole clause must not hold, before its head is cut: money, a phone number, a link, an
#: address, code, swearing.
_UNSAFE = lazy(
    r"\b(?:dollars?|euros?|bucks|pounds|quid|usd|eur|gbp|fuck\w*|shit\w*|damn\w*|crap|bloody|"
    r"hell)\b|[$€£¥]|https?://|www\.|@|\d[\d ().-]{6,20}\d",
    re.I,
)

#: People and animals: "I'm the daughter of …", "I have a sister who …" are a kind rule's or a
#: story's, never a free line.
_OTHERS = lazy(
    r"\b(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|son|daughter|brother|sister|"
    r"mother|father|mom|mum|dad|parents?|grand\w+|uncle|aunt|cousin|niece|nephew|boss|manager|"
    r"friend|friends|colleague|coworker|neighbou?r|kids?|children|child|baby|family|guy|girl|"
    r"person|people|type|kind|sort|man|woman|lady)s?\b"
    # an animal had or kept is the pet rules' ("a snake tattoo", "a horse in the race": no pet,
    # no line); one fostered, bred or trained is a pursuit of the user's ("I foster kittens")
    rf"|^(?!(?:Fosters|Breeds|Trains|Raises)\b)\S+\b.*\b(?:{PETS}|{PETS_PLURAL}|pets?|puppies|"
    r"kittens)\b"
    # a thing worn or open right now ("a sweater on", "tabs open")
    r"|\s(?:on|open|off|out|up|along|around|with me)$",
    re.I,
)

#: A participle after "I've" tells an event ("I've been", "I've lived"): no possession.
_PARTICIPLE = lazy(r"^(?:been|had|got|gotten|done|made|\w+ed)\b", re.I)


@cache
def _verbs() -> frozenset[str]:
    return frozenset(_VERBS)


def lines(clause: Clause) -> list[tuple[str, str]]:
    """The clause as a line of the user's words with its file (USER or MEMORY), or none: see the
    module doc for what is refused."""
    if clause.passing or clause.presupposed_only or clause.old:
        return []
    if clause.ends_only or clause.correction:
        return []  # a line with no slot retires nothing: the old one would stay beside it
    if temporary(clause.message):
        return []  # "I have a cold, so short answers today": the passing moment reaches back
    if CODE.search(clause.text) or _UNSAFE.search(clause.text):
        return []
    text, often, tail = _often(_head(clause.text))
    if not text or NEGATION.search(text) or _REFUSED.search(text):
        return []
    if clause.frequency and not (often or tail):
        return []  # "I cycle mostly to work": a line must keep how often, where it can
    line = _about_user(text)
    if line is not None:
        line = _how_often(line, often, tail)
        # "I own the business": a bare "the X" points back at something said before
        refused = _OTHERS.search(line) or _POSSESSED.search(line) or _BACK.match(line)
        return [(line, USER)] if _bounded(line) and not refused else []
    line = _about_project(text)
    if line is not None and _bounded(line) and not _POSSESSED.search(line):
        return [(line, MEMORY)]
    return []


def _how_often(line: str, often: str, tail: str) -> str:
    """The line with the frequency the user said: "Mostly cycles to work", "Is mostly vegetarian",
    "Works from home most days"."""
    if often and line.startswith("Is "):
        line = f"Is {often} {line[3:]}"
    elif often:
        line = f"{often.capitalize()} {line[:1].lower()}{line[1:]}"
    return f"{line} {tail}" if tail else line


#: Where the statement's head ends: a comma, a colon, a bracket, or a reason after it.
_HEAD_END = lazy(
    r"[,;:(].*$|(?<!\s)\s+(?:(?:and|but)\s+(?=(?:there|it|they|he|she|we|i)\b)|(?:because|since|"
    r"cause|so|as|which|who|but|and then)\s).*$",
    re.I,
)


#: "I'm seriously allergic to peanuts and I carry an EpiPen": a second statement joined without a
#: comma, by a verb of ``_VERBS``, after a first one of the user's.
_AND_I = lazy(r"(?<!\s)\s+and\s+(?P<t>i\s+(?:(?:also|always|still)\s+)?(?P<v>[a-z]+)\s.+)$", re.I)
#: "I'm based in Munich and work from home most days": the arrangement joined with its subject
#: left out (the first statement's, the user's).
_AND_WORK = lazy(
    r"(?<!\s)\s+and\s+(?:i\s+)?(?P<t>(?:(?:mostly|mainly|usually)\s+)?(?P<v>work)\s+from\s+home"
    r"\b.*)$",
    re.I,
)
_USER_OPENS = lazy(r"^(?:i|i'm|i am|i've|i have)\s", re.I)


def tail(clause: Clause) -> Clause | None:
    """The second of two statements of the user's joined by "and I <verb>" (a verb of ``_VERBS``),
    as a clause of its own, when the first opens with the user: a kind rule may read the first,
    this stage the second. None when there is none."""
    m = _AND_I.search(clause.text) or _AND_WORK.search(clause.text)
    if m is None or (m.group("v").lower() not in _verbs() and m.group("v").lower() != "work"):
        return None
    head = clause.text[: m.start()]
    if len(head.split()) < 3 or not _USER_OPENS.match(head):
        return None
    said = m.group("t")
    return replace(clause, text=said if said.lower().startswith("i ") else f"I {said}")


_BACK = lazy(r"^\S+ the [\w'-]+$", re.I)


def _head(text: str) -> str:
    """The clause's first phrase without its closing marks: what a short line keeps."""
    head = _HEAD_END.sub("", text.strip())
    return head.rstrip(" .").strip()


def _often(text: str) -> tuple[str, str, str]:
    """The text without its frequency, the frequency adverb ("mostly") and its closing phrase
    ("most days"), each "" when not said."""
    m = _OFTEN.match(text)
    often = m.group("a").lower() if m else ""
    if m:
        text = f"{m.group('s')} {text[m.end() :]}"
    t = _OFTEN_TAIL.search(text)
    return (text[: t.start()], often, t.group("t").lower()) if t else (text, often, "")


def _about_user(text: str) -> str | None:
    """ "I'm a …", "I have a …", "I keep …" as a third-person line; None when the subject is not
    the user or the verb is none of a durable state."""
    m = _WORK_FROM.match(text)
    if m:
        return f"Works {m.group('p').lower()}"
    m = _RENTS.match(text)
    if m:
        return f"Rents {m.group('p')}"
    m = _I_AM.match(text)
    if m:
        return f"Is {m.group('p').lower() if m.group('p').islower() else m.group('p')}"
    m = _I_HAVE.match(text)
    if m:
        return f"Has {m.group('p')}"
    if re.match(r"^i(?:'ve| have)\s+", text, re.I):
        return None
    m = _WE_KEEP.match(text)
    if m:
        verb = (
            "Has" if m.group("v").lower() == "have" else _THIRD[m.group("v").lower()].capitalize()
        )
        return f"{verb} {m.group('p')}"
    m = _I_VERB.match(text)
    if not m or m.group("v").lower() not in _verbs() or _PARTICIPLE.match(m.group("p")):
        return None
    said = third_person(f"I {m.group('v').lower()} {m.group('p')}")
    said = said.removeprefix("the user ").strip()
    if "the user" in said:
        return None  # "I carry my …": a possessive left to the kind rules
    return said[:1].upper() + said[1:]


def _about_project(text: str) -> str | None:
    m = _PROJECT.match(text)
    if not m:
        return None
    subject = m.group("s")
    return f"{subject[:1].upper()}{subject[1:]} {m.group('p')}"


def _bounded(line: str) -> bool:
    return _MIN_WORDS <= len(line.split()) <= _MAX_WORDS
