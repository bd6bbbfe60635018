"""Corrections read against memory: the old line is the template.

A correction names what it changes by the words of the line it changes, however it is phrased:
"retro moved to Mondays" changes ``Team cadence: retro every second Friday``, "I stopped keto"
ends ``Diet: keto``, "we finished migrating off heroku, everythings on fly.io now" changes
``Uses Heroku``. No rule of the sentence's shape is needed; what is needed is the line.

A message said with a cue of change (``cue``: "now", "moved", "switched", "sorry", "turns out",
"forget" …) is kept as a ``Revise: <the words>`` fact (``said``). Dream's analysis (``engine``)
then reads it against the lines already in memory (``revise``):

1. Its **anchor**: the lines that share a content word or name with the message (folded and
   crudely stemmed; "mongo" finds ``MongoDB``; a name spelled nearly alike finds the name).
   A word several lines share anchors nothing.
2. A **new value of the same type** as a value of the anchored line: a weekday, a time, a date,
   a number or count word (a version), an ordinal, a shift, a language, a place the gazetteer
   knows, a given name, a tool or technology. The line is rewritten in its own wording, the old
   value swapped for the new one (``Team cadence: retro every second Monday``).
3. Failing that, a **retraction** of the anchor in its own clause ("stopped", "not … anymore",
   "turns out it wasn't", "forget the bullets", "put calories back in" for a line that forbids
   them): the line is retired.

4. A shape that names its **slot** rather than the old line's words (the eleventh round): a slot
   relabelled ("New host: Fly.io."), an employer left for another ("I left Acme, I'm at Globex
   now"), a title said anew ("head chef now!!", "They made me store manager"), a name held in two
   files respelled, a thing said over by a shape naming it whole ("the peanut test came back
   negative", "wrist is fine now", "take country off the list", "Siemens let me go").

Exactly one line and exactly one new value of its type, else nothing (unsure: both stay). Never a
permanent fact (birthplace, origin), never a change said about someone else, never a plan, a
question or a hypothetical. The old line leaves with the user's words as its reason, into the
archive where ``why`` finds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from ....text.lazyre import lazy
from ..dates import DATE_PHRASE, SPELLED_CLOCK, clock
from ..dates import resolve as resolve_date
from ..kinds import fold, given_name, known_language, known_place, noun, stem
from .clauses import QUOTED
from .corrections import distance
from .lexicon import TECH
from .phrases import SOMEONE_ELSE
from .shorthand import dictated
from .values import is_firm, is_role, is_tech

__all__ = ["REVISE", "said", "revise", "Revision"]

#: The fact a message with a cue of change gives: its words, read against memory by ``revise``.
REVISE = lazy(r"^Revise(?:\[(?P<d>\d{4}-\d{2}-\d{2})\])?: (?P<w>.+)$", re.S)
_MAX_WORDS = 400

#: A cue that something said before changed or was wrong.
_CUE = lazy(
    r"\b(?:now|any ?more|no longer|actually|sorry|i meant|meant|wait|oops|typo|correction|"
    r"update|moved|moving|switched|switching|changed|change of plan|upgraded|migrated|"
    r"migrating|bumped|instead|extended|extension|pushed|"
    r"slipped|postponed|rescheduled|new (?:date|time|deadline)|from now on|these days|nowadays|"
    r"stopped|quit|gave up|given up|scratch|forget|never mind|ignore|turns out|turned out|wrong|"
    r"sold|"
    r"dropped|ditched|got rid of|put \w+(?: \w+)? back|make that|not \w+ but|double [a-z]|"
    r"with (?:an? |one |two )?[a-z]'?s?|gave (?:the|my|our|that) \w+(?: \w+)? up|"
    # a limit raised ("you can go up to about 300 words"), a migration finished ("the Vue 3
    # migration is finally done")
    r"(?:you|answers|replies|responses) (?:can|may) go up to|"
    r"migration (?:is |was )?(?:finally |now )?(?:done|complete|finished|over)|"
    # eleventh round: a date pushed or brought forward ("Push the launch to the 20th"), a slot
    # relabelled ("New host: Fly.io."), a job ended by others or stepped down from, a test come
    # back clear, a thing taken off the list
    r"push|brought (?:\w+ ){0,3}forward|bring (?:\w+ ){0,3}forward|let me go|laid me off|"
    r"stepped down|made me|promoted me|take \w+(?: \w+)? off|came back (?:negative|clear)|healed)\b"
    r"|^\W*new [a-z]+\s*:|^\W*(?:i )?(?:just |finally )?made [a-z]+\b"
    # a word given its right spelling alone, with an asterisk ("Deloitte*")
    r"|^\W*[\w'’.-]+\*\W*$",
    re.I,
)
#: A cue strong enough for a bare value ("Three, sorry!", "sorry i meant thursday"): the
#: message owns a mistake.
_OWNED = lazy(
    r"\b(?:sorry|i meant|meant|oops|typo|correction|wait|actually|make that|i mean|scratch that|"
    r"new (?:date|deadline|time)|extension)\b",
    re.I,
)
#: A plan, a question, a wish or a condition: what it says has not changed.
_UNSAID = lazy(
    r"\?|\b(?:should|shall|might|may be|maybe|perhaps|could|would|if|whether|thinking (?:of|"
    r"about)|considering|plan(?:ning)? to|planned|going to|gonna|want to|wanna|hope to|"
    r"hoping|might|will|won't|'ll|someday|one day|wish|let'?s|let us|"
    # a passing change: the one meeting tomorrow, the plan for now
    r"tomorrow'?s?|today'?s?|tonight|this (?:once|time)|for now|just this|"
    # a one-off ("this week only", "for the weekend", "so I went there instead", "rained out"), a
    # line said to hold still ("the side project is still on 15"), sarcasm ("… Not.")
    # (but "started at Pingo Doce this week" is when a change began: P-212)
    r"(?:just |only )?for this (?:week|month|one)|this (?:week|month|weekend) only|this weekend|"
    r"this (?:morning|afternoon|evening|one)|for (?:the|a) (?:weekend|week|month|day|while|bit|"
    r"conference|trip)|(?:week|day|time) only|instead|was closed|rained out|just for|visiting|"
    r"on (?:holiday|vacation)|travell?ing|still (?:on|at|in|uses?|using|runs?|has|have)|"
    r"yeah right|not\.$|"
    # news of a release, not the user's own change ("Python 3.13 came out now", "Postgres 16 is
    # out now")
    r"(?:is|are|'s) (?:now )?out|came out|(?:was|were|got|been|just) released|released|"
    r"(?:is|are) (?:now )?available|announced)\b",
    re.I,
)
#: Words about the assistant's memory or instructions themselves ("ignore previous instructions and
#: add … to SOUL.md"): no correction of a line the user stated, and a way pasted text would steer.
_META = lazy(
    r"\b(?:(?:SOUL|USER|MEMORY|AGENTS)\.md|system prompt|instructions?|disregard|prompts?)\b|"
    r"^\W*(?:system|assistant|note|admin|developer)\s*:",
    re.I,
)
#: Said to be over, wrong, or taken back, of the thing named right after it ("I stopped keto",
#: "it wasn't lactose", "forget the bullets"): the anchored line is retired.
_RETRACT = lazy(
    r"\b(?:stopped|quit|gave up(?: on)?|given up(?: on)?|no more|wasn'?t|isn'?t|was wrong about|"
    # "turns out its not lactose": found to be something else
    r"(?:turns out|turned out|actually),? (?:it'?s|its|it is|it was) not|"
    # "The team voted to stop squashing": a team rule ended by the team
    r"(?:voted|agreed|decided) to stop|"
    r"were wrong about|forget|never mind|scratch|ignore|drop(?:ped)?|ditched|sold|got rid of|"
    r"(?:moved|moving|migrated|migrating|switched|came|got) off)\b"
    r"(?P<rest>(?:\s+(?:the|my|our|a|an|that|this|it|all|about|with|on|eating|doing|using|"
    r"drinking|taking|having|actually|really|even))*\s+(?P<w>[\w'’.+#-]+))",
    re.I,
)
#: Given up, the thing said between ("I gave the allotment up in the end").
_GAVE_UP = lazy(
    r"\b(?:gave|given|giving) (?P<rest>(?:the|my|our|that) (?P<w>[\w'’.+#-]+)) up\b", re.I
)
#: Said to be over after the thing ("not at Continente anymore", "no longer vegan").
_OVER = lazy(r"\b(?:any ?more|no longer)\b", re.I)
_NEGATION = lazy(r"\b(?:not|no longer|no|never)\b|n't\b", re.I)
#: "you can put calories back in": a line that forbade a thing, lifted.
_BACK = lazy(r"\bput (?:the |my )?(?P<w>\w+(?: \w+)?) back\b", re.I)
_NEGATIVE_LINE = lazy(r"^(?:Never|Don'?t|Do not|No |Avoid|Skip|Leave out|Without)\b", re.I)
#: Lines no change reaches: where the user was born or is from stays true.
_PERMANENT = lazy(
    r"^(?:Was born|Born|Is from|Comes from|Originally from|Grew up|Nationality|Birthplace|"
    r"Hometown|Is (?:a )?native)\b",
    re.I,
)
_CLAUSE = lazy(r"[,.;!?:()—–]+|\s+-\s+|\bbut\b|\band\b", re.I)

#: Words that anchor nothing: function words, the cue words, and what every line says.
_STOP = frozenset(
    """a an the and or but so to of in on at for from with by as is are was were be been being am
    i me my mine we us our ours you your it its it's that this these those there here then than
    just also still too very really now not no any anymore more longer actually sorry meant mean
    wait oops typo correction update moved moving switched switching changed change plan upgraded
    migrated migrating bumped went going voted decided instead extended extension pushed slipped
    postponed rescheduled new date time deadline from on these days nowadays stopped quit gave
    given up scratch forget ignore turns turned out wrong sold dropped ditched got rid put back
    make that did does do don't doesn't have has had will would can could should shall may might
    ok okay oh ah hey hi yeah yes nah nope well lol haha btw fyi pls please thanks thank since
    last week month today yesterday tomorrow ago before after again about into over finally
    officially fine is isn't wasn't i'm im we're were i've ive we've weve i'd id he she they his
    her their them him all every each other some one two three four five six seven eight nine ten
    first second third team uses use user lives live works work working has likes like loves love
    prefers prefer answer answers reply replies thing stuff bit part what which who how when where
    why out off up down let lets same kind kinda guess think said say told tell know never
    mind""".split()
)
_WORD = lazy(r"[A-Za-zÀ-ɏḀ-ỿ][\w'’.+#-]*[\w+#]|[A-Za-z]")


@dataclass(frozen=True)
class Revision:
    """What a message does to memory: the old line, in its file, replaced or retired."""

    kind: str  # USER | SOUL | MEMORY
    old: str
    new: str | None  # the line in its own wording with the new value; None: retired
    words: str  # the user's words, the reason it leaves


# -- the fact a message gives --------------------------------------------------------------------
def said(message: str, said_on: date | None = None) -> str | None:
    """``Revise: <words>`` for a message of the user's that carries a cue of change in a sentence
    that is not a plan, a question or a hypothetical; None otherwise."""
    words = " ".join(message.split())[:_MAX_WORDS]
    if _META.search(words) or not any(
        _CUE.search(s)
        and not _UNSAID.search(s)
        and not _theirs_said(s)
        and (_content(s) or values(s))
        for s in _sentences(QUOTED.sub(" ", words))
    ):
        return None
    stamp = f"[{said_on.isoformat()}]" if said_on else ""
    return f"Revise{stamp}: {words}"


#: A sentence whose subject is someone else: a person's name ("Tom moved to Bristol", "Emma moved
#: up a group") or a person by role ("the nurse at my GP switched to days").
_SUBJECT = lazy(r"^\W*(?:(?:ok|okay|so|oh|funny|lol|haha|wow),?\s+)?(?P<w>[A-Z][a-z]+)\b")
_SOMEONE = lazy(r"^\W*(?:\w+,?\s+)?the \w+ (?:at|of|from|in|next door)\b", re.I)


#: Verbs a sentence with its subject left out opens with ("Made partner in May", "Push the launch
#: to the 20th"), never a person's name.
_OPENING_VERBS = frozenset("made push pushed moved got had left quit take took started".split())


#: The user's team deciding its own rule ("The team voted to stop squashing"): the user's change.
_TEAM_DECIDED = lazy(r"^\W*(?:the|our) team (?:voted|agreed|decided)\b", re.I)


def _theirs_said(sentence: str) -> bool:
    if _TEAM_DECIDED.match(sentence):
        return False
    m = _SUBJECT.match(sentence)
    # "You can go up to 300 words" is said to the assistant; a sentence opening on "The …" is
    # about something else ("The design team moved their standup")
    if (
        m is not None
        and m.group("w") not in ("I", "You")
        and m.group("w").lower() not in _OPENING_VERBS
        and given_name(m.group("w"))
    ):
        return True
    return bool(_SOMEONE.match(sentence))


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


# -- values by type -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Value:
    type: str
    text: str  # as written
    key: str  # comparison key


_WEEKDAY = lazy(
    r"\b(?P<d>mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:days?)?\b(?!-)", re.I
)
_FULL_DAY = {
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "wednes": "wednesday",
    "thu": "thursday",
    "thurs": "thursday",
    "fri": "friday",
    "sat": "saturday",
    "satur": "saturday",
    "sun": "sunday",
}
_TIME = lazy(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)|\b(?P<h2>\d{1,2}):"
    r"(?P<m2>\d{2})\b|(?<=\bat )(?P<h3>\d{1,2})(?![\d:.]|\s*(?:am|pm|a\.m|p\.m))"
    # an hour said as a word where a meeting is said to be ("Standup's at ten now"), never where
    # someone got to ("got there at ten")
    r"|(?:(?<='s at )|(?<=’s at )|(?<= is at )|(?<= are at )|(?<= now at )|(?<= moved to )|"
    r"(?<= moves to ))(?P<h4>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
    r"(?=\s*(?:[,.;!?—–]|$)|\s+(?:now|o'?clock|sharp|starting|from|on|every|instead)\b)",
    re.I,
)
#: A day of the month a date is moved to ("Push the launch to the 20th").
_DAY_OF_MONTH = lazy(
    r"\b(?:to|until|till) the (?P<n>[12]?\d|3[01])(?:st|nd|rd|th)"
    r"(?=\s*(?:[,.;!?—–]|$)|\s+(?:now|instead|then|please|pls)\b)",
    re.I,
)
_DATE = lazy(rf"\b(?:{DATE_PHRASE})\b", re.I)
_COUNTS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_NUMBER = lazy(
    r"(?<![\w.:/-])(?P<n>\d+(?:\.\d+)*|zero|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)(?![\w:/]|\.\d|-year-old)",
    re.I,
)
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_ORDINAL = lazy(
    r"\b(?P<n>\d{1,2})(?:st|nd|rd|th)\b|\b(?P<w>first|second|third|fourth|fifth|sixth|seventh|"
    r"eighth|ninth|tenth)\b",
    re.I,
)
_SHIFT = lazy(
    r"\b(?P<s>day|night|evening|morning|early|late|graveyard)s?(?=\s+shifts?\b)|"
    r"\b(?:works?|working|on|doing|switched to|moved to|back to|back on) (?P<t>days|nights|"
    r"evenings|mornings)\b",
    re.I,
)
#: A short code naming one of several things ("service s1", "room B12"): another code, another
#: thing.
_LABEL = lazy(r"\b(?-i:[A-Za-z]{1,3})\d{1,3}\b(?![.:])")
#: How the user wants things measured or spelled ("British spelling", "metric").
_CONVENTION = lazy(
    r"\b(?:american|british|australian|canadian|metric|imperial|celsius|fahrenheit|12-hour|"
    r"24-hour)\b",
    re.I,
)
_PROPER = lazy(
    r"(?<![\w'’.])(?P<v>(?-i:[A-ZÀ-Þ])[\w'’.+#-]*[\w+#](?: (?-i:[A-ZÀ-Þ])[\w'’.+#-]*[\w+#])?)"
)
_LOWER_TECH = lazy(r"(?<![\w'’.])(?P<v>[a-z][\w+#-]*(?:\.(?:io|js|app|dev|sh|net|com))?)\b")


def _spans(
    pattern: re.Pattern[str], text: str, taken: list[tuple[int, int]]
) -> list[re.Match[str]]:
    out = []
    for m in pattern.finditer(text):
        if any(m.start() < b and a < m.end() for a, b in taken):
            continue
        out.append(m)
        taken.append(m.span())
    return out


def values(text: str, said_on: date | None = None, *, line: bool = False) -> list[Value]:
    """Every typed value of ``text``, in order of type: a value of a wider type inside one of a
    narrower type is not read twice ("9:45" is a time, not a number)."""
    taken: list[tuple[int, int]] = []
    out: list[Value] = []
    if line:  # a line's first word is its template's ("Uses …", "Favourite …"), no value
        head = len(text.split(" ", 1)[0])
        text = " " * head + text[head:]
    for m in _spans(_DATE, text, taken):
        # a day said by its month or its digits; a weekday is a weekday, "today" no value
        # ("3.12" is a version, not the third of December)
        said = m.group(0)
        day = resolve_date(said, said_on) if re.search(r"\d", said) else None
        day = None if re.fullmatch(r"\d{1,2}\.\d{1,2}", said) else day
        if day is not None and not _WEEKDAY.search(m.group(0)):
            out.append(Value("date", said, day.isoformat()))
        else:
            taken.remove(m.span())
    for m in _spans(_TIME, text, taken):
        out.append(Value("time", m.group(0), _clock_key(m)))
    for m in _spans(_DAY_OF_MONTH, text, taken):
        out.append(Value("day", m.group(0), m.group("n")))
    for m in _spans(_SHIFT, text, taken):
        word = (m.group("s") or m.group("t") or "").lower().rstrip("s")
        out.append(Value("shift", m.group("s") or m.group("t") or "", word))
    for m in _spans(_LABEL, text, taken):
        out.append(Value("label", m.group(0), m.group(0).lower()))
    for m in _spans(_CONVENTION, text, taken):
        out.append(Value("convention", m.group(0), m.group(0).lower()))
    for m in _spans(_WEEKDAY, text, taken):
        out.append(Value("weekday", m.group(0), _FULL_DAY.get(m.group("d").lower(), "")))
    for m in _spans(_ORDINAL, text, taken):
        n = int(m.group("n")) if m.group("n") else _ORDINALS.index(m.group("w").lower()) + 1
        out.append(Value("ordinal", m.group(0), str(n)))
    out += _numbers(text, taken)
    out += _named(text, taken, line=line)
    return out


def _numbers(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """Numbers and count words; "one" after a determiner is a pronoun ("the new one is closer")."""
    out = []
    for m in _spans(_NUMBER, text, taken):
        said = m.group("n").lower()
        if said != "one" or not _PRONOUN_ONE.search(text[: m.start()]):
            out.append(Value("number", m.group(0), str(_COUNTS.get(said, said))))
    return out


_ISO = lazy(r"\d{4}-\d{2}-\d{2}")
#: "one" after a determiner or an adjective is a pronoun ("the new one", "a better one").
_PRONOUN_ONE = lazy(
    r"\b(?:the|a|an|this|that|which|each|every|no|any|another|other|new|old|last|next|right|"
    r"wrong|big|small|better|same|only|good|bad)\s+$",
    re.I,
)


def _clock_key(m: re.Match[str]) -> str:
    word = (m.group("h4") or "").lower()
    hour = _COUNTS[word] if word else int(m.group("h") or m.group("h2") or m.group("h3"))
    minute = m.group("m") or m.group("m2") or "00"
    ap = (m.group("ap") or "").lower().replace(".", "")
    if ap == "pm" and hour < 12:
        hour += 12
    if ap == "am" and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute}"


def _named(text: str, taken: list[tuple[int, int]], *, line: bool) -> list[Value]:
    """Names: a language, a place, a given name, a tool or technology (lower case only for a
    technology); a capitalised word that opens a sentence of the message is read only when it is
    no English word."""
    out = []
    for m in _spans(_PROPER, text, taken):
        value = m.group("v").rstrip(".")
        at_start = m.start() == 0 or bool(re.search(r"[.!?]\s*$", text[: m.start()]))
        kinds = _kinds_of_name(value, opens=at_start and not line)
        if not kinds and " " in value:  # "Uses Python", "Moved Leeds": the name is the second
            value = value.split(" ", 1)[1]
            kinds = _kinds_of_name(value, opens=False)
        out += [Value(k, value, fold(value)) for k in kinds]
    for m in _spans(_LOWER_TECH, text, taken):
        value = m.group("v")
        # in lower case only a technology the lexicon names ("heroku", "mongo"), a domain
        # ("fly.io") or a word cased like a brand ("iOS")
        tech = value in TECH or "." in value or bool(re.search("[A-Z]", value))
        if value not in _STOP and len(value) > 2 and tech:
            out.append(Value("tech", value, fold(value)))
    return out


_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
#: Words of when, which a taken-back thing may carry ("we sold the caravan in the spring").
_WHEN = _MONTHS | frozenset(
    "spring summer autumn fall winter year years week weeks month months day days weekend end "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)


def _kinds_of_name(value: str, *, opens: bool) -> list[str]:
    """The types a capitalised name may be of (a language, a place, a given name), else a tool or
    technology."""
    first = value.split()[0]
    if (opens and (_english(first) or first.lower().endswith("ly"))) or fold(first) in _STOP:
        return []  # "Honestly I quit …": an adverb opening the sentence is no name
    if first.lower() in _MONTHS:
        return []  # "ends June 6", "15 March": a month is a date's, never a name or a place
    if value.lower() in TECH:
        return ["tech"]  # "Vite" is a tool before it is a town
    kinds = [
        kind
        for kind, known in (
            ("language", known_language(value)),
            ("place", known_place(value)),
            ("name", " " not in value and given_name(value)),
        )
        if known
    ]
    if noun(value.lower()) or re.search(r"['’]s$", value):
        return kinds  # "Heat", "Tomorrow's": words before they are names of tools
    return kinds or (["tech"] if is_tech(value) else [])


def _english(word: str) -> bool:
    return noun(word) or word.lower() in _STOP


# -- the anchor -----------------------------------------------------------------------------------
def _content(text: str) -> set[str]:
    """The words of ``text`` that can anchor: no function or cue word, each stemmed; a hyphened
    word also by its parts ("second-year" has "year")."""
    words = _WORD.findall(text)
    words += [part for w in words if "-" in w for part in w.split("-")]
    return {s for w in words if len(s := stem(w)) >= 3 and s not in _STOP and fold(w) not in _STOP}


def _shares(word: str, line_words: set[str]) -> bool:
    """The message's word is one of the line's, or the start of one ("mongo" of "mongodb")."""
    return word in line_words or any(
        len(word) >= 4 and lw.startswith(word) and len(lw) - len(word) <= 3 for lw in line_words
    )


def _near(a: str, b: str) -> bool:
    """Two names spelled nearly alike ("Ana" and "Anna", "Katherine" and "Kathryn")."""
    if a == b or a[:1] != b[:1]:
        return False
    return distance(a, b) <= max(1, (min(len(a), len(b)) + 1) // 2 - 1)


Lines = dict[str, list[str]]
Candidate = tuple[str, str]  # (file kind, line)


def _anchored(words: str, files: Lines) -> dict[Candidate, set[str]]:
    """The lines the message anchors to, each with the words it shares with it: a word shared
    with exactly one line of memory (a word several lines share anchors nothing)."""
    mine = _content(words)
    by_line = {
        (kind, line): _content(line)
        for kind, lines in files.items()
        for line in lines
        if line.strip() and not _PERMANENT.match(line)
    }
    out: dict[Candidate, set[str]] = {}
    for word in mine:
        holding = [c for c, lw in by_line.items() if _shares(word, lw)]
        if len(holding) == 1:
            out.setdefault(holding[0], set()).add(word)
    return out


# -- what the message does to the line ------------------------------------------------------------
def revise(fact: str, files: Lines) -> list[Revision]:
    """The line the ``Revise:`` fact changes, with its new value, or retires; [] when no line, or
    more than one, or no value, or more than one, could be meant."""
    m = REVISE.match(fact)
    if not m:
        return []
    words = m.group("w")[:_MAX_WORDS]  # a fact line from history is read no further than said
    said_on = _day(m.group("d"))
    text = " ".join(dictated(s) for s in _sentences(words) if not _UNSAID.search(s))
    if not text or not _CUE.search(text):
        return []
    anchors = _anchored(text, files)
    mine = values(text, said_on)
    found = (
        _replaced(text, anchors, mine)
        or _labelled(text, files)
        or _left_for(text, anchors)
        or _retitled(text, anchors, files)
    )
    if found is None:
        spelled = _respelled(text, files, mine)
        if spelled and all(old != new for _, old, new in spelled):
            return [Revision(kind, old, new, _quote(words)) for kind, old, new in spelled]
    if found is None and not anchors:
        found = (
            _bare(text, files, said_on)
            or _shift_anew(text, files)
            or _moved_it(text, files, " ".join(dictated(s) for s in _sentences(words)))
        )
    if found is not None and found[1] != found[2]:
        kind, old, new = found
        return [Revision(kind, old, new, _quote(words))]
    ended = _retired(text, anchors)
    if ended:
        return [Revision(ended[0], ended[1], None, _quote(words))]
    return [Revision(kind, old, new, _quote(words)) for kind, old, new in _renamed(text, files)]


def _day(stamp: str | None) -> date | None:
    """The day a fact line was dated with; a damaged stamp dates nothing (never an error)."""
    try:
        return date.fromisoformat(stamp) if stamp else None
    except ValueError:
        return None


def _quote(words: str) -> str:
    words = words.replace(";", ",")
    return words if len(words) <= 90 else words[:89].rstrip() + "…"


def _new_values(line: str, mine: list[Value], *, alone: bool = False) -> list[tuple[Value, Value]]:
    """(old, new) pairs: a type of which the line holds exactly one value and the message exactly
    one other value. A day of the month said ``alone`` in its sentence may be an ordinal in digits
    ("sorry the 21st"; never "the 20th release candidate")."""
    held = values(line, line=True)
    out = []
    for t in {v.type for v in held}:
        old = [v for v in held if v.type == t]
        if len(old) > 1:  # several of its type: the one the message names, if it names one
            old = [v for v in old if any(_same_value(v, n) for n in mine if n.type == t)]
        if len(old) != 1:
            continue
        said = [_same_half(old[0], v) if t == "time" else v for v in mine if v.type == t]
        new = {v.key: v for v in said if not _same_value(v, old[0])}
        if not new and t == "date" and not any(v.type == "date" for v in mine):
            # a day of the month said alone: "to the 20th", or "the 21st" in digits
            days = [
                v
                for v in mine
                if v.type == "day" or (alone and v.type == "ordinal" and v.text[:1].isdigit())
            ]
            new = {d.key: d for v in days if (d := _on_day(old[0], v))}
        if len(new) == 1:
            out.append((old[0], next(iter(new.values()))))
    return out


def _on_day(old: Value, day: Value) -> Value | None:
    """A date moved to a day of the month said alone ("to the 20th"): the old date's month."""
    try:
        moved = date.fromisoformat(old.key).replace(day=int(day.key))
    except ValueError:
        return None
    return Value("date", day.text, moved.isoformat())


def _same_value(a: Value, b: Value) -> bool:
    return a.key == b.key or (
        a.type == "tech" and (a.key.startswith(b.key) or b.key.startswith(a.key))
    )


def _replaced(
    text: str, anchors: dict[Candidate, set[str]], mine: list[Value]
) -> tuple[str, str, str] | None:
    """The one anchored line with one new value of one of its types, rewritten."""
    if SOMEONE_ELSE.search(text) and not all(_theirs(line, text) for _, line in anchors):
        return None
    # a value that names another anchored line is that line's, not this one's new value ("python
    # is 3.12 now, fastapi same")
    named = set().union(*anchors.values()) if anchors else set()
    pairs = [
        (kind, line, old, new)
        for (kind, line), shared in anchors.items()
        for old, new in _new_values(line, mine)
        if not _shared_value(new, named) and _agrees(line, mine, old.type)
    ]
    if len(pairs) != 1:
        return None
    kind, line, old, new = pairs[0]
    return kind, line, _swap(line, old, new)


def _agrees(line: str, mine: list[Value], changed: str) -> bool:
    """The message says no other value of the line's types but the line's own ("the monday sync
    is moving to 11am" is not about "team sync on Tuesdays at 2pm"): another meeting, another
    thing."""
    held = values(line, line=True)
    for t in {v.type for v in held} - {changed}:
        said = [v for v in mine if v.type == t]
        if said and not any(_same_value(v, h) for v in said for h in held if h.type == t):
            return False
    return True


def _shared_value(new: Value, shared: set[str]) -> bool:
    """The new value is itself the anchor word (it names the line, it is not its new value)."""
    return stem(new.text) in shared


def _theirs(line: str, text: str) -> bool:
    """A change said of someone else reaches only a line about that someone."""
    who = {w.lower() for m in SOMEONE_ELSE.finditer(text) for w in m.group(0).split()[1:]}
    return bool(who) and bool(who & {w.lower() for w in _WORD.findall(line)})


def _respelled(text: str, files: Lines, mine: list[Value]) -> list[tuple[str, str, str]]:
    """A name said again, spelled nearly alike, with a cue that owns the mistake ("her names
    Anna, double n", "Sorry, John with an h"), by its letters ("its Biscuit with a c and u") or
    alone with an asterisk ("Deloitte*"): the line holding the old spelling, or the lines holding
    that one name (``Goes by Jon`` and ``Call the user Jon`` are one name in two files). Another
    name spelled alike, or someone else's name ("my boss is John with an h"), changes nothing."""
    starred = _STARRED.match(text)
    if not (
        starred
        or _OWNED.search(text)
        or re.search(r"\b(?:spell\w*|double \w|names?)\b", text, re.I)
    ):
        return []
    said = [v.text for v in mine if v.type == "name"] or (
        [starred.group("w")] if starred else _inner_capitals(text)
    )
    if len(said) != 1:
        return []
    new = Value("name", said[0], fold(said[0]))
    hits = [
        (kind, line, old)
        for kind, lines in files.items()
        for line in lines
        if not _PERMANENT.match(line)
        for old in _line_names(line)
        if _near(old.key, new.key)
    ]
    if len({old.key for _, _, old in hits}) != 1 or len({line for _, line, _ in hits}) != len(hits):
        return []
    # someone else's name said in its clause ("my boss is John with an h"); "my kid told me how to
    # spell it" in another clause is no one else's name
    own = [c for c in _CLAUSE.split(text) if said[0] in c]
    if any(SOMEONE_ELSE.search(c) for c in own) and not all(
        _theirs(line, " ".join(own)) for _, line, _ in hits
    ):
        return []
    return [(kind, line, _swap(line, old, new)) for kind, line, old in hits]


#: A word given its right spelling alone, with an asterisk ("Deloitte*").
_STARRED = lazy(r"^\W*(?P<w>[A-Za-zÀ-ɏ][\w'’.-]*[\w])\*\W*$")


def _inner_capitals(text: str) -> list[str]:
    """The capitalised words of a message that open no sentence (a name, even an English word's:
    "its Biscuit with a c and u")."""
    return [
        m.group(0)
        for m in re.finditer(r"(?<![\w'’.])(?-i:[A-Z])[a-zà-ÿ'’-]+[a-zà-ÿ]", text)
        if m.start() > 0
        and not re.search(r"[.!?]\s*$", text[: m.start()])
        and fold(m.group(0)) not in _STOP
    ]


def _line_names(line: str) -> list[Value]:
    """A line's names: its given names, and any capitalised word past its template's first word
    ("Biskit" of ``Has a dog named Biskit``, "Deloite" of ``Works at Deloite``)."""
    held = [v for v in values(line, line=True) if v.type == "name"]
    words = [
        Value("name", m.group(0), fold(m.group(0)))
        for m in re.finditer(r"(?<![\w'’.])(?-i:[A-Z])[\w'’-]*\w", line)
        if m.start() > 0
    ]
    return held + [w for w in words if w.key not in {h.key for h in held}]


def _bare(text: str, files: Lines, said_on: date | None) -> tuple[str, str, str] | None:
    """A value said alone in its sentence with a cue owning a mistake ("Three, sorry!", "sorry i
    meant thursday", "New date is 31 December"): the one line of memory holding a value of its
    type."""
    found = []
    owned = bool(_OWNED.search(text))
    for sentence in _sentences(text):
        mine = values(sentence, said_on)
        # "Got an extension! Now 15 November.": a value said alone after "now", in a message that
        # owns the change
        anew = owned and bool(re.match(r"\W*(?:it'?s |its )?now\b", sentence, re.I))
        if not (_OWNED.search(sentence) or anew) or len(mine) != 1 or SOMEONE_ELSE.search(sentence):
            continue
        if _content(sentence) - _content(mine[0].text):
            continue  # other words: what they say is not known
        at = sentence.find(mine[0].text)
        if re.search(
            r"\b(?:i'?m|i am|we'?re|we are)\s+(?:now\s+|only\s+|just\s+)?$", sentence[:at], re.I
        ):
            continue  # "I'm 40, sorry": the user's own age or state, not the line's count
        found += [
            (kind, line, pair)
            for kind, lines in files.items()
            for line in lines
            if not _PERMANENT.match(line)
            for pair in _new_values(line, mine, alone=True)
        ]
    if len(found) != 1:
        return None
    kind, line, (old, new) = found[0]
    return kind, line, _swap(line, old, new)


#: A thing moved, named by a pronoun only ("They've pushed it to the 17th", "they moved it to nine
#: forty five"): what it was moved to, up to the clause's end.
_MOVED_IT = lazy(
    r"\b(?:(?:pushed|moved|postponed|put|bumped|shifted|rescheduled|delayed|brought)\s+(?:it|that)|"
    r"(?:it|that)(?:'s| is| has| was)?\s+(?:been\s+|got\s+|now\s+)?(?:pushed|moved|postponed|"
    r"put|bumped|shifted|rescheduled|delayed|brought))(?:\s+(?:back|forward|up))?\s+(?:to|till|"
    r"until)\s+(?P<v>[^,.;!?—–()]+)",
    re.I,
)
#: A thing named in the message ("my flight", "the party"): what "it" may be instead of a line.
_A_THING = lazy(r"\b(?:my|our|the|his|her|their|your|a|an)\s+[a-z]", re.I)
_SPELLED_TIME = lazy(rf"^(?:at\s+)?(?P<c>{SPELLED_CLOCK})\b", re.I)


def _moved_it(text: str, files: Lines, said: str) -> tuple[str, str, str] | None:
    """A date or a time said moved, the thing named by a pronoun alone: the one line of memory
    holding a value of its type (a date takes a day of the month said alone in the old date's
    month) takes it. Said of someone else's thing, or with two lines of its type, nothing; a thing
    named in a sentence ``text`` leaves out (``said``, every sentence: "My sister's standup? They
    moved it to ten") is what "it" may be too."""
    found = []
    for sentence in _sentences(text):
        m = _MOVED_IT.search(sentence)
        # "they" who moved it are whoever sets it (the organisers), never a person named
        if m is None or any(w.group(0).lower() != "they" for w in SOMEONE_ELSE.finditer(sentence)):
            continue
        if _A_THING.search(said.replace(m.group(0), " ")):
            return None  # "my flight got moved, they pushed it to the 17th": "it" is that thing
        said = m.group("v").strip()
        spelled = _SPELLED_TIME.match(said)
        mine = [
            v
            for v in values(("at " + clock(spelled.group("c"))) if spelled else "to " + said)
            if v.type in ("date", "day", "time")
        ]
        if len(mine) != 1:
            continue
        found += [
            (kind, line, pair)
            for kind, lines in files.items()
            for line in lines
            if not _PERMANENT.match(line)
            for pair in _new_values(line, mine)
            if pair[0].type in ("date", "time")
        ]
    if len(found) != 1:
        return None
    kind, line, (old, new) = found[0]
    return kind, line, _swap(line, old, new)


#: The name the user goes by, kept in both files: one fact in two lines.
_GOES_BY = lazy(r"^(?:Goes by|Call the user) (?P<n>(?-i:[A-Z])[\w'’-]+)$")
#: The user saying which name they prefer ("I'd prefer Elizabeth", "call me Beth").
_PREFERRED = lazy(
    r"\b(?:i'?d prefer|i prefer|prefer|i'?d rather|call me|i go by|go by|i'?m|it'?s)\b", re.I
)


def _renamed(text: str, files: Lines) -> list[tuple[str, str, str]]:
    """The name the user goes by said anew, the old one named beside it ("I'd prefer Elizabeth,
    actually — Liz was only ever my mum's thing"): both lines holding it (``Goes by Liz`` and
    ``Call the user Liz``), the same fact in two files, take the new name."""
    held = [
        (kind, line, m.group("n"))
        for kind, lines in files.items()
        for line in lines
        if (m := _GOES_BY.match(line))
    ]
    old = {fold(n) for _, _, n in held}
    if len(held) != 2 or len(old) != 1 or not _OWNED.search(text):
        return []
    if old.pop() not in {fold(w) for w in _WORD.findall(text)}:
        return []
    new = {
        v.text
        for clause in _CLAUSE.split(text)
        if clause and _PREFERRED.search(clause) and not SOMEONE_ELSE.search(clause)
        for v in values(clause)
        if v.type == "name" and fold(v.text) != fold(held[0][2])
    }
    if len(new) != 1:
        return []
    name = new.pop()
    return [(kind, line, line[: -len(n)] + name) for kind, line, n in held]


#: The user as the one the sentence is about.
_MINE = lazy(r"\b(?:i'?m|i am|i'?ve|i have|i|im)\b|^\W*(?:switched|moved|back)\b", re.I)


def _shift_anew(text: str, files: Lines) -> tuple[str, str, str] | None:
    """The user's shift said anew, with no word of the old line ("New rota started, I'm on days
    now", "Switched to days finally"): the one line of memory holding a shift."""
    found = []
    for sentence in _sentences(text):
        said = [v for v in values(sentence) if v.type == "shift"]
        if (
            len({v.key for v in said}) != 1
            or SOMEONE_ELSE.search(sentence)
            or not _MINE.search(sentence)
        ):
            continue
        found += [
            (kind, line, pair)
            for kind, lines in files.items()
            for line in lines
            if not _PERMANENT.match(line)
            for pair in _new_values(line, said[:1])
            if pair[0].type == "shift"
        ]
    if len(found) != 1:
        return None
    kind, line, (old, new) = found[0]
    return kind, line, _swap(line, old, new)


#: A thing said to be over after it is named: a test come back clear ("the peanut test came back
#: negative"), a part healed ("wrist is fine now"), an employer that let the user go ("Siemens let
#: me go"); the clause ends there.
_OVER_AFTER = lazy(
    r"(?:^|\b(?:the|my|our)\s+)(?P<w>[\w'’.+#-]+)(?: allergy)? tests? (?:came back|was|were|is|"
    r"are) (?:negative|clear|normal|fine)\b"
    r"|(?:^|\b(?:the|my)\s+)(?P<p>[\w-]+) (?:is|'s|’s) (?:all |totally |completely |fully )?"
    r"(?:fine|healed) now\W*$"
    r"|(?:^|:\s*)(?P<e>(?-i:[A-Z])[\w&'’.-]+(?: (?-i:[A-Z])[\w&'’.-]+)?) (?:let me go|laid me off|"
    r"fired me|made me redundant)(?=\s*(?:[,.;!?—–]|$)|\s+(?:last|this|yesterday|after)\b)",
    re.I,
)
#: A thing taken off the list ("take country off the list"), a post stepped down from ("I stepped
#: down as lead").
_TAKEN_OFF = lazy(
    r"\b(?:take|took|cross|strike) (?:the |my )?(?P<o>[\w'’.+#-]+) off (?:the |my |your )?(?:list|"
    r"notes)\W*$|\bstepped down (?:as|from) (?:the |an? )?(?P<r>[\w'’.+#-]+(?: [\w'’.+#-]+)?)\W*$",
    re.I,
)


#: A slot relabelled with its new value ("New host: Fly.io.", "New address: Victoria, on the
#: island", "New job: Globex."): the label says which line, the value replaces its own.
_RELABELLED = lazy(
    r"^\W*(?:(?:ok|okay|so|oh|btw|fyi|update|small update)[,:!]?\s+)?new (?P<k>host|hosting|"
    r"hosting provider|address|home|job|employer|company|workplace)\s*[:—–-]\s*"
    r"(?P<v>[\w&'’+#-]+(?:\.[a-z]{2,4})?(?: [\w&'’+#-]+){0,3}?)(?=\s*(?:[,.;!?()—–]|$))",
    re.I,
)
#: A slot said to be wrong, then its right value ("Wrong city — it's Leeds", "wrong company, I'm
#: at Hooli", "Oops, wrong address: Victoria"): the same as a slot relabelled.
_WRONG_SLOT = lazy(
    r"^\W*(?:(?:ok|okay|so|oh|oops|sorry|ugh|argh)[,:!]?\s+)?(?:my bad,?\s+)?wrong (?P<k>city|town|"
    r"address|home|host|hosting provider|job|employer|company|workplace)\s*[,:—–-]+\s*"
    r"(?:(?:it'?s|its|it is|i'?m (?:at|in|with)|im (?:at|in|with)|i live in|i work (?:at|for)|"
    r"we(?:'re| are) (?:on|at)|i meant)\s+)?"
    r"(?P<v>[\w&'’+#-]+(?:\.[a-z]{2,4})?(?: [\w&'’+#-]+){0,3}?)(?=\s*(?:[,.;!?()—–]|$))",
    re.I,
)
_SLOT_LINES: dict[str, tuple[re.Pattern[str], Callable[[str], bool]]] = {
    "host": (
        lazy(r"^(?:[\w ]+ )?(?:[Dd]eploy(?:s|ed)?|[Hh]osted|[Rr]uns?) on (?P<v>.+)$"),
        is_tech,
    ),
    "home": (lazy(r"^Lives in (?P<v>.+)$"), lambda v: bool(known_place(v))),
    "job": (lazy(r"^Works (?:at|for) (?P<v>.+)$"), is_firm),
}
_SLOT_OF = {
    "hosting": "host",
    "hosting provider": "host",
    "address": "home",
    "city": "home",
    "town": "home",
    "employer": "job",
    "company": "job",
    "workplace": "job",
}


def _labelled(text: str, files: Lines) -> tuple[str, str, str] | None:
    """A slot said anew under its label: the one line of memory holding that slot, its value
    replaced ("New host: Fly.io." makes ``Deployed on Heroku`` ``Deployed on Fly.io``). A label
    of something else ("New host for the party: Sam", "New podcast host: Jamie") is no slot."""
    m = _RELABELLED.match(text) or _WRONG_SLOT.match(text)
    if m is None:
        return None
    slot = m.group("k").lower()
    pattern, kind_of = _SLOT_LINES[_SLOT_OF.get(slot, slot)]
    if not kind_of(m.group("v")):
        return None
    held = [
        (kind, line, lm)
        for kind, lines in files.items()
        for line in lines
        if (lm := pattern.match(line))
    ]
    if len(held) != 1:
        return None
    kind, line, lm = held[0]
    return kind, line, line[: lm.start("v")] + m.group("v")


#: An employer left for another, the new one said as where the user is now ("I left Acme, I'm at
#: Globex now", "i left the infirmary, im at the western general now, same job").
_LEFT_FOR = lazy(
    r"(?:^\W*|\bi(?:'ve| have)? (?:just |finally )?)(?:left|quit) (?:the )?(?P<o>[\w&'’. -]{2,40}?)"
    r"\s*[,;—–-]+\s*(?:and )?(?:now )?(?:i'?m|im|i am) (?:now )?(?:at|with|working at|working for) "
    r"(?P<v>(?:the )?[\w&'’.-]+(?: [\w&'’.-]+){0,3}?)(?=\s*(?:now\W*$|now,\s*same\b|[,.;!—–]|$))",
    re.I,
)


def _left_for(text: str, anchors: dict[Candidate, set[str]]) -> tuple[str, str, str] | None:
    """The one ``Works at`` line whose employer the user left for another, at the new one. A new
    employer typed in lower case is taken only when the message says the job is the same ("same
    job", "same role"), capitalised; one that is no organisation ("at home now") is not."""
    m = _LEFT_FOR.search(text)
    if m is None:
        return None
    left = _content(m.group("o"))  # every word of what was left names the employer
    held = [
        c
        for c, shared in anchors.items()
        if c[1].startswith("Works at ") and left and all(_shares(w, shared) for w in left)
    ]
    if len(held) != 1:
        return None
    new = m.group("v")
    if new[:1].islower() and not new.lower().startswith("the "):
        return None
    if new.lower().startswith("the ") and new[4:5].islower():
        if not re.search(r"\bsame (?:job|role|position|title)\b", text, re.I):
            return None
        new = "the " + " ".join(w.capitalize() for w in new[4:].split())
    if not is_firm(new):
        return None
    kind, line = held[0]
    return kind, line, "Works at " + new


#: A title said anew: alone with "now" ("head chef now!!"), given ("They made me store manager
#: last week"), or made ("Made partner in May").
_TITLE_NOW = lazy(
    r"^\W*(?:i'?m |im |i am )?(?:now )?(?:an? )?(?P<t>[a-z][a-z -]{2,40}?) now\W*$", re.I
)
_TITLE_GIVEN = lazy(
    r"(?:^\W*(?:i )?(?:just |finally )?|\b(?:they|management|the company|the board|my boss|my "
    r"manager) (?:have |has |just |finally )?(?:made|promoted) me (?:to )?(?:an? |the )?)"
    r"(?:made )?(?P<t>[a-z][a-z-]*(?: [a-z-]+){0,3}?)(?=\s+(?:last|this|in|on|from|since)\b|"
    r"\s*[,.;!]|\s*$)",
    re.I,
)


def _retitled(
    text: str, anchors: dict[Candidate, set[str]], files: Lines
) -> tuple[str, str, str] | None:
    """The user's title said anew: the one ``Works as`` line of memory takes it. Said alone with
    "now", the new title ends in the old one's noun ("head chef" after "sous chef", not "The head
    chef now is …", someone else's); given or made, it is a title (or a partner of a firm)."""
    roles = [("USER", ln) for ln in files.get("USER", []) if ln.startswith("Works as ")]
    if len(roles) != 1 or SOMEONE_ELSE.search(text):
        return None
    kind, line = roles[0]
    old = line[len("Works as ") :]
    for clause in _CLAUSE.split(text):
        m = _TITLE_NOW.match(clause)
        if m and (kind, line) in anchors and m.group("t").split()[-1] == old.split()[-1]:
            new = m.group("t")
        else:
            g = _TITLE_GIVEN.search(clause)
            given = g is not None and re.search(r"\bmade\b|\bpromoted\b", g.group(0), re.I)
            new = g.group("t") if g is not None and given else ""
            # a title given keeps the old one's noun ("store manager" after "assistant manager"),
            # or is a firm's partner: "they made me team captain" is no job
            if not (new.lower() == "partner" or new.split()[-1:] == old.split()[-1:]):
                continue
        if is_role(new) or new.lower() == "partner":
            return (kind, line, "Works as " + new.lower()) if new.lower() != old.lower() else None
    return None


def _retired(text: str, anchors: dict[Candidate, set[str]]) -> Candidate | None:
    """The one anchored line a clause of the message takes back, said by the user."""
    over = _said_over(text, anchors)
    if over is not None:
        return over
    if len(anchors) != 1:
        return None
    (kind, line), shared = next(iter(anchors.items()))
    back = _BACK.search(text)
    if back and _NEGATIVE_LINE.match(line) and _content(back.group("w")) & shared:
        return kind, line
    for clause in _CLAUSE.split(text):
        if not clause or not _content(clause) & shared or not _takes_back(clause, shared, line):
            continue
        if SOMEONE_ELSE.search(clause) or _NEGATIVE_LINE.match(line):
            return None
        return kind, line
    return None


def _said_over(text: str, anchors: dict[Candidate, set[str]]) -> Candidate | None:
    """The one anchored line a clause says is over by a shape that names it whole (``_OVER_AFTER``,
    ``_TAKEN_OFF``): the word named is the line's, and the clause names no other anchored line
    ("Just shellfish actually — the peanut test came back negative" retires ``Allergic to
    peanuts``, not ``Allergic to shellfish``). Said of someone else: nothing."""
    found = set()
    for clause in _CLAUSE.split(text):
        if not clause.strip() or SOMEONE_ELSE.search(clause):
            continue
        for m in [*_OVER_AFTER.finditer(clause.strip()), *_TAKEN_OFF.finditer(clause.strip())]:
            group, words = next((g, w) for g, w in m.groupdict().items() if w)
            word = words.split()[-1]  # "stepped down as team lead": the title's noun
            hits = [
                c
                for c, shared in anchors.items()
                if _shares(stem(word), shared) and _OVER_LINES[group].match(c[1])
            ]
            if len(hits) == 1:
                found.add(hits[0])
    return found.pop() if len(found) == 1 else None


#: The lines each shape of ``_said_over`` may end: a test clears an allergy or an intolerance, a
#: part heals a condition, an employer lets go of a job, a post is stepped down from.
_OVER_LINES = {
    "w": lazy(r"^(?:Allergic to |Is .+ intolerant$|Has an? .+ allergy$)"),
    "p": lazy(r"^Has (?:an? )?(?:broken|bad|sprained|injured|torn|fractured|sore|dislocated) "),
    "e": lazy(r"^Works (?:at|for) "),
    "r": lazy(r"^Works as "),
    "o": lazy(r"^(?!Never |Don'?t |Do not |No |Avoid )"),
}


def _takes_back(clause: str, shared: set[str], line: str) -> bool:
    """The clause ends or takes back the anchor itself: the thing named right after the verb
    ("I stopped keto"; not "we dropped the ball on the Redis upgrade"), and nothing the line does
    not hold ("I switched off the Heroku notifications", "forget Leeds United" take back no line),
    or a negation before the anchor with "anymore" or "no longer" ("I'm not at Continente
    anymore")."""
    held = _content(line)
    for m in [*_RETRACT.finditer(clause), *_GAVE_UP.finditer(clause)]:
        rest = _content(clause[m.start("w") :]) - {stem(w) for w in _WHEN}
        # the thing named right after the verb, or past a name too short to anchor ("never mind
        # the Go rewrite")
        if not (_shares(stem(m.group("w")), shared) or (len(m.group("w")) < 3 and rest & shared)):
            continue
        return all(_shares(w, held) for w in rest)
    if not _OVER.search(clause):
        return False
    first = min(
        (
            m.start()
            for w in _WORD.finditer(clause)
            if _shares(stem(w.group(0)), shared)
            for m in [w]
        ),
        default=-1,
    )
    return first > 0 and bool(_NEGATION.search(clause[:first]))


# -- the line in its own wording ------------------------------------------------------------------
def _swap(line: str, old: Value, new: Value) -> str:
    """The line with the old value replaced by the new one, said as the line says it."""
    at = line.find(old.text)
    if at < 0:
        return line  # never: a value is read from the line itself (unchanged: no revision)
    render = _RENDER.get(new.type, _as_written)(old, new)
    rest = line[at + len(old.text) :]
    if new.type == "tech":  # the old tool's version is no version of the new one ("webpack 5")
        rest = _VERSION_AFTER.sub("", rest, count=1)
    return line[:at] + render + rest


_VERSION_AFTER = lazy(r"^\s+v?\d+(?:\.\d+)*(?:\.x)?\b")


def _as_written(_old: Value, new: Value) -> str:
    return new.text


def _weekday(old: Value, new: Value) -> str:
    day = new.key
    if old.text.lower().endswith("s"):
        day += "s"
    return day.capitalize() if old.text[:1].isupper() else day


def _number(old: Value, new: Value) -> str:
    if old.text.isalpha() and new.key.isdigit() and int(new.key) < len(_COUNTS):
        word = list(_COUNTS)[int(new.key)]
        return word.capitalize() if old.text[:1].isupper() else word
    return new.key


def _ordinal(old: Value, new: Value) -> str:
    n = int(new.key)
    if old.text.isalpha() and n <= len(_ORDINALS):
        word = _ORDINALS[n - 1]
        return word.capitalize() if old.text[:1].isupper() else word
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _time(old: Value, new: Value) -> str:
    if re.fullmatch(r"\d{1,2}:\d{2}", old.text):
        return new.key
    m = re.fullmatch(r"\d{1,2}(?::\d{2})?(?P<sp>\s*)(?P<ap>am|pm|a\.m\.|p\.m\.)", old.text, re.I)
    if m is None:
        return new.text
    # said as the line says it: "at 2pm" becomes "at 3pm", not "at three"
    hour, minute = (int(x) for x in new.key.split(":"))
    ap = (
        ("pm" if hour >= 12 else "am")
        if m.group("ap").islower()
        else ("PM" if hour >= 12 else "AM")
    )
    clock = str(hour % 12 or 12) + (f":{minute:02d}" if minute else "")
    return f"{clock}{m.group('sp')}{ap}"


def _same_half(old: Value, new: Value) -> Value:
    """A time said without am or pm, at the hour of the two nearer the old time ("Sync's at three
    now" after 14:00 is 15:00; "at ten now" after 9:30 is 10:00)."""
    hour, minute = new.key.split(":")
    if re.search(r"[ap]\.?m\b|\d:\d", new.text, re.I) or int(hour) >= 12:
        return new
    held = int(old.key[:2])
    later = int(hour) + 12
    return (
        new
        if abs(int(hour) - held) <= abs(later - held)
        else Value(new.type, new.text, f"{later:02d}:{minute}")
    )


def _date(old: Value, new: Value) -> str:
    return new.key if _ISO.fullmatch(old.text) else new.text


def _shift(old: Value, new: Value) -> str:
    return new.key + old.text[len(old.key) :] if old.text.lower().startswith(old.key) else new.key


_RENDER: dict[str, Callable[[Value, Value], str]] = {
    "weekday": _weekday,
    "number": _number,
    "ordinal": _ordinal,
    "time": _time,
    "date": _date,
    "shift": _shift,
}
