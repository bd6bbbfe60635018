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
from collections.abc import Callable

from ....text.lazyre import lazy
from ..dates import CLOCK_PHRASE, DATE_PHRASE, clock
from ..dates import resolve as resolve_date
from ..kinds import fold
from .core import SAID, USER, Filling, change, rule, rules_of
from .family import KIN
from .lexicon import KIND_OF
from .phrases import NAME, SOMEONE_ELSE
from .values import is_firm, is_language, is_name, is_place, is_role, is_tech, is_tool

__all__ = ["RULES", "CANON", "NOW", "resolve", "resolve_all", "distance"]

#: Words that make a message a correction of something said before.
_CUE = lazy(
    r"\b(?:actually|sorry|mistake|wrong|typo|autocorrect|i meant|i mean|wait|oops|correction|nvm|"
    r"never ?mind|not "
    r"\w+|"
    r"changed my mind|they moved|moved it|slipped|update|pushed|extended|postponed|upgrade|"
    r"spelled|spelt|mistyped|"
    r"misspelled|meant|scratch that|second thought|new (?:deadline|due date))\b"
    r"|\bwith (?:(?:an? |one )?[b-hj-z]|(?:two|double|three) [a-z]'?s?)(?=\s*(?:[,.;!]|$))",
    re.I,
)
_DATE = rf"(?P<d>{DATE_PHRASE})"
#: How a value-only correction is said; the fact it gives.
NOW = lazy(
    r"^Now: (?P<k>name|surname|date|time|language|version|allergy|children|cadence|favourite|swap) "
    r"(?P<v>.+?)"
    rf"(?:{re.escape(SAID)}(?P<h>.*))?$"
)
#: A date corrected is said to have moved.
_DATE_CUE = lazy(
    r"\b(?:moved|slipped|postponed|pushed|deadline|due date|new date|rescheduled|delayed|"
    r"changed)\b",
    re.I,
)


#: The name used so far said to be too formal ("that feels too formal. Just Layla is fine."): the
#: shorter one offered corrects it.
TOO_FORMAL = lazy(
    r"\b(?:too|so|very|a bit|bit|overly) (?:formal|stiff|stuffy|official)\b|\bless formal\b|"
    r"\bmore (?:casual|relaxed|informal)\b",
    re.I,
)


def corrects(f: Filling) -> bool:
    """Only in a message that says it corrects something."""
    return bool(_CUE.search(f.message or f.match.string))


#: "the receptionist's name is …": a name of someone the user names by their job, no line's.
_A_ROLES_NAME = lazy(r"\b(?:the|a|an|our|my|your|his|her|their)\s+(?P<n>[a-z]+)['’]s name\b", re.I)


def _a_roles_name(message: str) -> bool:
    """The message gives the name of someone named by a job ("the vet's name is …"), never of a
    relative ("my manager's name") or a pet ("the beagle's name")."""
    return any(
        is_role(m.group("n")) and not re.fullmatch(KIN, m.group("n"), re.I)
        for m in _A_ROLES_NAME.finditer(message)
    )


def name_corrected(f: Filling) -> bool:
    """A name said as the right one. The fact keeps what else the message says ("said: Luna",
    "said: name") so that the line it corrects can be told: the old name said again, a name
    spelled alike, or the word "name"."""
    message = f.message or f.match.string
    if not corrects(f) or _a_roles_name(message):
        return False
    said = [
        w
        for w in re.findall(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z])[\w'’-]+", message)
        if w != f.values["v"]
    ]
    # "the word name" points at any named line; "the cat's name" only at a name said alike
    if re.search(r"\bnames?\b", message, re.I) and not f.groups.get("o"):
        said.append("name")
    f.template += f"{SAID}{' '.join(said)}" if said else ""
    return True


#: What a team or a person meets for: a time said for one of these moved is its new time.
_MEETING = lazy(
    r"\b(?:standups?|stand-ups?|retros?|syncs?|meetings?|calls?|1:1s?|one-on-ones?|check-ins?|"
    r"huddles?|reviews?|demos?|planning|classes|class|lessons?|sessions?|practice|rehearsals?|"
    r"shifts?|appointments?)$",
    re.I,
)


def a_meeting_moved(f: Filling) -> bool:
    """ "we moved standup to 9:15": a meeting moved to a time is a change said by its verb; any
    other thing moved to a number only in a message that says it corrects something."""
    return bool(_MEETING.search(f.groups.get("e", ""))) or corrects(f)


#: A surname changed by a marriage ("I got married, my surname is Kowalski now").
_MARRIED = lazy(
    r"\b(?:married|wedding|took (?:his|her|their|my (?:husband|wife|partner)'s) (?:sur|last )?name|"
    r"changed my (?:sur|last |family )?name|new (?:sur|last |family )?name)\b",
    re.I,
)


def surname_changed(f: Filling) -> bool:
    """A surname said as the right one, or as the new one after a marriage."""
    return corrects(f) or bool(_MARRIED.search(f.message or f.match.string))


def tools_chosen(f: Filling) -> bool:
    """ "decided on PostgreSQL instead of Mongo": a swap of two tools (never "pizza instead of
    sushi")."""
    new, old = _bare(f.values.get("v", "")), _bare(f.values.get("o", ""))
    return is_tech(new) and (is_tech(old) or is_tool(old)) and swapped(f)


def moved_or_corrects(f: Filling) -> bool:
    """A place said alone is a home only in a message that corrects one or says a move."""
    return corrects(f) or bool(re.search(r"\b(?:moved|relocated)\b", f.message or "", re.I))


def old_named(f: Filling) -> bool:
    """The one other proper name of the message is the old value the new one replaces."""
    message = f.message or f.match.string
    others = {
        w
        for w in re.findall(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z])[\w'’-]+", message)
        if w != f.values["v"] and w not in ("I", "I'm")
    }
    if len(others) != 1:
        return False
    f.template = f"Now: swap {f.values['v']}{SAID}{others.pop()}"
    return True


_CONVENTIONS = {
    "metric": "metric units",
    "imperial": "imperial units",
    "british": "british spelling",
    "american": "american spelling",
    "12-hour": "12-hour time",
    "12 hour": "12-hour time",
    "24-hour": "24-hour time",
    "24 hour": "24-hour time",
    "celsius": "celsius",
    "fahrenheit": "fahrenheit",
}


def a_convention(f: Filling) -> bool:
    f.values["v"] = _CONVENTIONS[f.values["v"].lower()]
    return True


def a_new_job(f: Filling) -> bool:
    """A title said alone is the user's job only in a message about a new one."""
    return bool(
        re.search(r"\bnew (?:gig|job|role|position)\b|\bgot (?:a|the) job\b", f.message or "", re.I)
    )


def date_corrected(f: Filling) -> bool:
    return corrects(f) and bool(_DATE_CUE.search(f.message or f.match.string))


def a_language(f: Filling) -> bool:
    value = f.groups.get("v", "")
    f.values["v"] = value[:1].upper() + value[1:]
    return is_language(f.values["v"]) and corrects(f)


def a_language_again(f: Filling) -> bool:
    """A language gone back to is a correction in itself: no cue of a mistake is needed."""
    value = f.groups.get("v", "")
    f.values["v"] = value[:1].upper() + value[1:]
    return is_language(f.values["v"])


#: A value of one to three words, said bare in a swap ("KPMG", "type 2", "a turtle").
_BARE = r"(?:(?:an?|the) )?(?P<{g}>[\w'’.+#-]+(?: [\w'’.+#-]+){{0,2}}?)"
_NEW, _OLD = _BARE.format(g="v"), _BARE.format(g="o")
#: An event of a team's calendar, as said ("standup", "1:1s", "the 1:1 with Priya", "team meeting").
_EVENT = r"[a-z0-9:-]+(?: [a-z0-9:-]+)?(?: with (?-i:[A-Z])[\w'’-]+)?"
#: A weekday and its time, said with "at" or bare ("Wednesday 10:30", "Friday 3pm"); a bare number
#: with no colon or am/pm is no time ("Wednesday 3 times").
_CADENCE = (
    r"(?P<v>(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?:\s+(?:at|@)\s+\d{1,2}(?::\d{2})?"
    r"\s*(?:am|pm)?|\s+\d{1,2}(?::\d{2}\s*(?:am|pm)?|\s*(?:am|pm)))?)"
)
#: When a moved meeting takes its new time: "From next week, …", "Starting Monday …".
_FROM_WHEN = (
    r"(?:(?:(?:it )?turns out|so|ok|okay|fyi|heads up|update|btw|oh|also)[,:]?\s+)*"
    r"(?:(?:from|starting|as of|beginning) (?:next|this|the) (?:week|month)|(?:from|starting) "
    r"(?:now|monday|tomorrow|january|february|march|april|may|june|july|august|september|october|"
    r"november|december))?,?\s*"
)
_MOVED_VERB = (
    r"(?:moved|moves|(?:(?:is|are|'s) )?moving|will move|changed|changes|pushed|shifted|shifts|"
    r"bumped)"
)
#: A meeting's name said with its verb run on ("standup's moving to 10:15").
_EVENT_S = rf"(?P<e>{_EVENT})(?:'s|’s)?"


def a_meeting_at(f: Filling) -> bool:
    """A meeting's new time, in digits ("ten fifteen" is 10:15); only a meeting's (a flight, a
    party moved "to ten" is no line's)."""
    if not _MEETING.search(f.groups.get("e", "")):
        return False
    f.values["v"] = clock(f.groups.get("v", ""))
    return True


def a_tool_version(f: Filling) -> bool:
    tool = f.groups.get("t") or f.groups.get("t2") or ""
    f.values["t"], f.values["v"] = tool, f.groups.get("v") or f.groups.get("v2") or ""
    return is_tech(tool)


#: A meeting said to have changed, by name ("they changed the staff meeting").
_CHANGED_EVENT = lazy(
    rf"\b(?:changed|moved|rescheduled|shifted|switched) (?:the |our |my )(?P<e>{_EVENT})"
    r"(?=\s*(?:[,.;!—–]|$))",
    re.I,
)


def a_meeting_changed(f: Filling) -> bool:
    """The day said anew rides with the meeting the message says changed ("; said: staff
    meeting"); with none named, nothing (the line meant cannot be told)."""
    m = _CHANGED_EVENT.search(f.message or f.match.string)
    if m is None or not _MEETING.search(m.group("e")):
        return False
    f.template += f"{SAID}{m.group('e')}"
    return True


def a_cadence_of(f: Filling) -> bool:
    """The event rides with the new day ("; said: 1:1s"): its line must name it."""
    f.template += f"{SAID}{f.groups['e']}"
    return True


_SWAP_LEAD = (
    r"^(?:i meant|i mean|it's|its|it is|it should be|should be|that's|make that|it was|"
    # a pet's kind said anew ("sorry, she's a golden retriever not a lab")
    r"she's|shes|she is|he's|hes|he is)?\s*"
)
#: Who set a correction right, said after it: no one the correction is about.
_CORRECTED_ME = lazy(
    r",?\s*(?:my|our) [a-z]+(?:'s|’s| has| have)?(?: just)? corrected (?:me|us)", re.I
)
_SWAP_END = (
    # … with who set it right after it ("…, my husband's just corrected me")
    r"(?:,\s*(?:my|our) [a-z]+(?:'s|’s| has| have)?(?: just)? corrected (?:me|us))?"
    r"\s*(?:[.!]+\s*)?$"
)
_SWAP_STOP = (
    r"(?=\s*(?:[,.;!]|$)|\s+(?:last|this|in|on|at|a|after|because|since|for|and|but|so|now|"
    r"recently|yesterday)\b)"
)


def swapped(f: Filling) -> bool:
    """ "KPMG not Deloitte", "not Leicester, Leeds", "Gus is a turtle, not a tortoise": the old
    value named beside the new one, both short and different; the subject said, when there is one,
    rides with the old value (the line must hold it too)."""
    new, old = _bare(f.values.get("v", "")), _bare(f.values.get("o", ""))
    old = KIND_OF.get(old.lower(), old)  # "not a lab": the line says "labrador"
    said = f.message or f.match.string
    message = _CORRECTED_ME.sub("", said.replace(f.match.group(0), " "))
    if re.match(r"\W*(?:she|he)", f.match.group(0), re.I) and SOMEONE_ELSE.search(message):
        return False  # "my sister's dog? she's a poodle not a lab": she is someone else's
    if len(new) < 2 or not old or fold(new) == fold(old):
        return False  # "Tiger, one g, not Tigger": a letter is a spelling, not the value
    if set(fold(new).split()) & _NOT_VALUES or set(fold(old).split()) & _NOT_VALUES:
        return False
    subject = f.groups.get("s")
    f.template = f"Now: swap {new}{SAID}{old}" + (f"; of: {subject}" if subject else "")
    return True


def same_kind_swapped(f: Filling) -> bool:
    """ "Rex not Max", "Leiria not lisbon": a swap only when both words are values of one kind the
    engine can tell (a place, a language, a given name), said as a correction. Said with someone
    else in the message ("my sister got a kitten, her name is Mizu not Miso"), only a line that
    names that someone ("Has a sister named …") is meant."""
    new, old = f.values.get("v", ""), f.values.get("o", "")
    kind = _kind_of(new[:1].upper() + new[1:])
    if not (
        kind in ("place", "language", "name")
        and _kind_of(old[:1].upper() + old[1:]) == kind
        and corrects(f)
        and swapped(f)
    ) or _a_roles_name(f.message or f.match.string):
        return False
    someone = SOMEONE_ELSE.search(f.message or f.match.string)
    if someone is not None:
        f.template += f"; of: {someone.group(0).split()[-1]}"
    return True


def own_name_corrected(f: Filling) -> bool:
    """ "her name is Mizu not Miso": the user's own pet's or relative's name, never one of someone
    else's ("my sister got a kitten, her name is …")."""
    return not SOMEONE_ELSE.search(f.message or f.match.string) and name_corrected(f)


def a_favourite(f: Filling) -> bool:
    """ "summer's my favourite, winter here is brutal": the new favourite, and the message, where
    the
    old value must be named for its line to be the one meant."""
    words = " ".join((f.message or f.match.string).split()).replace(";", ",")
    f.template += f"{SAID}{words}"
    return corrects(f)


def meant(f: Filling) -> bool:
    """ "Sorry, I meant Danish": a value said alone as the one meant, of a kind the old one can be
    told by (a language, a place, a given name, a word and a number: "type 2")."""
    value = _bare(f.values.get("v", ""))
    f.template = f"Now: swap {value}"
    return corrects(f) and _kind_of(value) is not None


def _bare(value: str) -> str:
    return value.strip().rstrip(".!,;")


#: Words no swapped value holds ("it's fine, not a problem", "I like tea, not coffee": a
#: clause, not a value).
_NOT_VALUES = frozenset(
    "i me my we our us you your he she they it that this there fine ok okay problem big deal joke "
    "sure really true right wrong kidding worry worries biggie rush hurry yet now always never "
    "much "
    "more less like love hate want need am is are was were be have has had do does did can will "
    "just only so too very all i'm im i've i'd we're we've it's anymore any longer "
    # the same words typed without their apostrophe ("turns out its not lactose")
    "its thats theres hes shes theyre youre ive id dont doesnt isnt arent wasnt".split()
)

RULES = [
    *rules_of(
        (
            rf"{_SWAP_LEAD}{_NEW},? not {_OLD}{_SWAP_END}",
            rf"^not {_OLD},? (?:it's |its |it is |but |i meant )?{_NEW}{_SWAP_END}",
            rf"^(?P<s>(?-i:[A-Z])[\w'’-]+)(?: is|'s) {_NEW},? not {_OLD}{_SWAP_END}",
        ),
        "Now: swap {v}" + SAID + "{o}",
        None,
        "correction",
        change=True,
        negative=True,
        finish=swapped,
    ),
    # mid-clause, both values of one kind: "the beagle's name is Rex not Max", "i live in Leiria
    # not lisbon"
    change(
        r"\b(?P<v>[\w'’-]+),? not (?P<o>[\w'’-]+)(?=\s*(?:[,.;!]|$))",
        "Now: swap {v}" + SAID + "{o}",
        negative=True,
        finish=same_kind_swapped,
    ),
    # "we switched from Jenkins to GitHub Actions", "replaced Jenkins with Buildkite"
    *rules_of(
        (
            rf"(?:^|\b(?:i|we)(?:'ve| have|'re| are)?(?: (?:just|finally|recently|now|also|all))? )"
            rf"(?:switched|moved|migrated|changed|went|gone|upgraded|downgraded|swapped|converted|"
            rf"(?:(?:finished|ended up|started|are|'re) )?(?:moving|migrating|switching)) "
            rf"(?:\w+ )?(?:from|off(?: of)?) {_OLD} (?:over )?to {_NEW}{_SWAP_STOP}",
            rf"(?:^|\b(?:i|we)(?:'ve| have)?(?: (?:just|finally|recently|now|also))? )"
            rf"(?:replaced|swapped(?: out)?) {_OLD} (?:with|for) {_NEW}{_SWAP_STOP}",
        ),
        "Now: swap {v}" + SAID + "{o}",
        None,
        "correction",
        change=True,
        finish=swapped,
    ),
    # "team decided on PostgreSQL instead of Mongo for inventory", "we went with Vitest instead of
    # Jest": a tool chosen against the one said before, whose line holds the old one
    change(
        r"\b(?:decided on|decided to (?:use|go with)|went with|go(?:ing)? with|picked|chose|chosen|"
        r"settled on|opted for|voted(?: for)?|switched to|moved to|migrated to|using|use) "
        rf"{_NEW} instead of {_OLD}{_SWAP_STOP}",
        "Now: swap {v}" + SAID + "{o}",
        finish=tools_chosen,
    ),
    # "It's Radiohead these days, Coldplay was a phase": the new value, and the old one named
    change(
        rf"^(?:it's|its|it is|that's|now it's) {NAME} (?:these days|now|nowadays)\b",
        "Now: swap {v}",
        finish=old_named,
    ),
    # "12-hour with am/pm is better actually", "imperial is fine": a convention for the agent
    change(
        r"^(?P<v>metric|imperial|british|american|12-hour|24-hour|12 hour|24 hour|celsius|"
        r"fahrenheit)"
        r"(?: units| spelling| time| clock)?(?: with am/pm)? (?:is|are) (?:better|fine|preferred|"
        r"ok|okay)\b",
        "Use {v}",
        finish=a_convention,
    ),
    # "please switch to metric", "back to celsius": a convention for the agent, asked for anew
    change(
        r"^(?:ok,? |okay,? |so,? )?(?:please |pls |can you |could you )?(?:switch|change|go|"
        r"move)(?: back)? to (?P<v>metric|imperial|british|american|12-hour|24-hour|12 hour|"
        r"24 hour|celsius|fahrenheit)(?: units| spelling| time| clock)?(?: please| pls| now)?"
        r"(?=\s*(?:[,.;!—–]|$))",
        "Use {v}",
        finish=a_convention,
    ),
    # "scratch that, summer's my favourite": the one favourite line whose value the message names
    change(
        r"(?:^|\b(?:that|no|actually|wait)[,.!]?\s+)(?P<v>[a-z][\w'’-]*(?: [a-z][\w'’-]*)?)(?:'s| "
        r"is) "
        r"(?:actually |really )?my (?:favou?rite|fave|fav)(?=\s*(?:[,.;!]|$))",
        "Now: favourite {v}",
        finish=a_favourite,
    ),
    # "we upgraded to Python 3.12", "bumped Node to 22": the tool's one versioned line
    change(
        r"\b(?:upgraded|updated|bumped|moved|migrated|switched|went)(?: (?:everything|it|us|"
        r"(?:the|our) [a-z]+))?(?: up| over)? to (?P<t>[A-Za-z][\w.+#-]*) (?:version |"
        r"v)?(?P<v>\d+(?:\.\d+)*)\b|"
        r"\b(?:upgraded|updated|bumped) (?P<t2>[A-Za-z][\w.+#-]*) to (?:version |v)?"
        r"(?P<v2>\d+(?:\.\d+)*)\b",
        "Now: version {t} {v}",
        finish=a_tool_version,
    ),
    # "standup moved to 10:15", "the 1:1 with Priya moved to Wednesdays": the event said first
    change(
        rf"^(?:the |our |my )?(?P<e>{_EVENT}) (?:has |have |was |were |got |is |are )?(?:been )?"
        r"(?:moved|changed|pushed|shifted|bumped)(?: back| forward| up)? to "
        r"(?P<v>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)(?=\s*(?:[,.;!]|$)|\s+(?:starting|from|on|every|"
        r"now)\b)",
        "Now: time {v} {e}",
    ),
    # "from next week standup moves to ten fifteen same days": a meeting's new time, said in words
    # or as the meeting's own move ("moves", "is moving")
    change(
        rf"^{_FROM_WHEN}(?:the |our |my )?{_EVENT_S} (?:has |have |was |were |got |is |are "
        rf")?(?:been )?{_MOVED_VERB}(?: back| forward| up)? to (?P<v>{CLOCK_PHRASE})"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:starting|from|on|every|now|same|next|this|instead)\b)",
        "Now: time {v} {e}",
        finish=a_meeting_at,
    ),
    *rules_of(
        (
            rf"^{_FROM_WHEN}(?:the |our |my )?{_EVENT_S} (?:has |have |was |were |got |is "
            r"|are )?(?:been )?"
            rf"{_MOVED_VERB}(?: back| forward| up)? to {_CADENCE}\b",
            rf"\b(?:moved|changed|shifted|pushed|switched) (?:the |our |my )(?P<e>{_EVENT}) to "
            rf"{_CADENCE}\b",
        ),
        "Now: cadence {v}",
        None,
        "correction",
        change=True,
        finish=a_cadence_of,
    ),
    # "they changed the staff meeting, it is Thursday 2pm now": the meeting named as changed, its
    # new day said in its own clause (never "it's Thursday 2pm now" alone: the time of day)
    change(
        rf"(?:^|[,;]\s*)(?:(?:so|and|now)[,]?\s+)?(?:it's|its|it is|it's now|it is now|now it's|"
        r"now it is) "
        rf"(?:on |every )?{_CADENCE} now\s*[.!]*$",
        "Now: cadence {v}",
        finish=a_meeting_changed,
    ),
    # "standup is 10:00 now"
    change(
        r"^(?:the |our )?(?P<e>[a-z]+(?:[ -][a-z]+)?) (?:is|'s) (?:now )?(?:at )?"
        r"(?P<v>\d{1,2}(?::\d{2})?\s*(?:am|pm)?) now\s*[.!]*$",
        "Now: time {v} {e}",
    ),
    # "got a new gig, sous chef at a bistro downtown now": a title said alone as the new one
    rule(
        r"^(?:(?:i )?got (?:a|the) new (?:gig|job|role|position)(?: as)?,?\s+)?(?:i'm |im |i am "
        r")?(?:now )?(?:an? )?"
        r"(?P<v>[a-z][a-z -]{2,40}?)(?: (?:at|for|with|in) [^,.;!?]{2,40}?)?"
        r" now\s*[.!]*$",
        "Works as {v}",
        {"v": is_role},
        "correction",
        change=True,
        finish=a_new_job,
    ),
    # "New job: I'm at Paystack", "new job! still QA but at Globex": the employer said anew in a
    # message that opens with a new job (never "new job posting at Paystack", "a new job for my
    # brother")
    rule(
        r"^\W*(?:(?:i )?(?:got |have |started )?(?:a )?)?new (?:job|gig|employer|workplace)"
        r"(?:\s*[!:.,;—–-]+\s*|\s+)(?:(?:i'm|im|i am|i work|i'm working|working|i started) )?"
        r"(?:now )?(?:(?:still|also) [\w ]{1,30}? but )?(?:now )?at (?P<v>(?-i:[A-Z])[\w&'’.-]+"
        r"(?: (?-i:[A-Z])[\w&'’.-]+){0,2})(?=\s*(?:[,.;!—–]|$)|\s+(?:since|as|from|now)\b)",
        "Works at {v}",
        {"v": is_firm},
        "correction",
        change=True,
    ),
    # … and its own clause after it: "new job! still QA but at Globex"
    rule(
        r"^(?:(?:still|also) [\w ]{1,30}? but )?(?:now )?at (?P<v>(?-i:[A-Z])[\w&'’.-]+"
        r"(?: (?-i:[A-Z])[\w&'’.-]+){0,2})(?: now)?\s*[.!]*$",
        "Works at {v}",
        {"v": is_firm},
        "correction",
        change=True,
        finish=a_new_job,
    ),
    # "correction, basel now": a place said alone as where the user is now
    rule(
        r"^(?:i'm |im |i am |we're |were |we are )?(?:(?:based|living) )?(?:in )?"
        r"(?P<v>[\w'’ -]{2,40}?) now(?:,? (?:moved|since)\b.*|, the (?:company|job|firm|army) "
        r"(?:moved|relocated|sent|transferred) (?:us|me)\b.*)?\s*[.!]*$",
        "Lives in {v}",
        {"v": is_place},
        "correction",
        change=True,
        finish=moved_or_corrects,
    ),
    # "update: we moved, florianopolis now, lagoa da conceicao": the move said, then where, "now"
    rule(
        r"\b(?:i|we)(?:'ve| have)?(?: just| finally| recently| officially)? (?:moved|relocated)"
        r"(?: house| home| again)?(?:,| -|:)\s*(?:(?:we're|were|i'm|im|we are|i am) )?"
        r"(?:(?:now |based |living )?in )?(?P<v>[\w'’ -]{2,40}?) now(?=\s*(?:[,.;!]|$))",
        "Lives in {v}",
        {"v": is_place},
        "correction",
        change=True,
    ),
    # a shorter name offered in a correction: "actually just Seun is fine", "just Kate is
    # fine, honestly" (the ``Call the user`` line of the old name leaves: ``changes``)
    rule(
        rf"(?:^|[,.;!—–]\s*|\b(?:actually|honestly|no|oh|wait)[,!]?\s+)just {NAME} (?:is|'s) "
        r"(?:fine|good|ok|okay|great|enough|perfect)\b",
        "Goes by {v}",
        {"v": is_name},
        "correction",
        change=True,
        finish=lambda f: corrects(f) or bool(TOO_FORMAL.search(f.message or "")),
    ),
    change(
        rf"^i meant {_NEW}{_SWAP_END}",
        "Now: swap {v}",
        finish=meant,
    ),
    rule(
        rf"\b(?:(?:it's|its|it is|he's|he is|hes|she's|she is|shes)(?: actually| really)?|mine is|"
        r"mine's|mine is called|"
        r"the name is|(?:his|her|my) name is actually|i meant|(?:it's |its |it is )?spelled|"
        # "the cat's name is Tiger, one g, not Tigger": a pet's or person's name said anew
        r"(?:the|my|our) (?P<o>[a-z]+)(?:'s|’s) name is(?: actually| really)?|"
        rf"spelt) {NAME}(?=\s*(?:[,.;!]|$)|\s+(?:actually|"
        r"with|not|and|it's|its)\b)",
        "Now: name {v}",
        {"v": is_name},
        "correction",
        change=True,
        finish=name_corrected,
    ),
    # "her name is Mizu not Miso": a pet's or person's name said anew beside the old one, which
    # names the line (never "her name is Mizu", a name said first)
    rule(
        rf"\b(?:his|her|its) name is(?: actually| really)? {NAME},? not (?P<o>(?-i:[A-Z])[\w'’-]+)"
        r"(?=\s*(?:[,.;!]|$)|\s)",
        "Now: name {v}",
        {"v": is_name},
        "correction",
        change=True,
        negative=True,  # the "not" names the old name, it denies nothing
        finish=own_name_corrected,
    ),
    # "Just got married! I go by Elif Demir now": the given name kept, a new surname
    rule(
        r"\b(?:i(?:'ll| will)? go by|i'm going by|call me|you can call me) "
        r"(?P<n>(?-i:[A-Z])[\w'’-]+) (?P<v>(?-i:[A-Z])[\w'’-]+)"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:now|from now on|from here on|going forward)\b)",
        "Now: surname {v}" + SAID + "{n}",
        {"v": is_name},
        "correction",
        change=True,
        finish=surname_changed,
    ),
    rule(
        rf"\bmy (?:surname|last name|family name) is {NAME}",
        "Now: surname {v}",
        {"v": is_name},
        "correction",
        change=True,
        finish=surname_changed,
    ),
    change(
        r"\b(?:now it(?:'s| is)|it(?:'s| is) now|new (?:date|deadline|day|due date)(?: is|:)?|"
        r"(?:it's|its|it "
        rf"is)(?= (?:{DATE_PHRASE})\s+now\b)|(?:(?:was|were|has been|have been|got|is|'s been) )?"
        r"(?:moved|pushed|postponed|extended|"
        r"changed|delayed|slipped) (?:it |the [a-z]+(?: [a-z]+)? )?(?:back )?to) "
        rf"(?:on )?{_DATE}\b",
        "Now: date {d}",
        finish=date_corrected,
    ),
    change(
        r"\b(?:moved|changed|pushed|shifted|bumped|rescheduled) (?:our |the |my )?"
        r"(?P<e>[a-z0-9:]+(?:[ -][a-z]+)?) (?:back |forward |up )?to "
        r"(?P<v>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)(?=\s*(?:[,.;!]|$)|\s+(?:starting|from|on|every)\b)",
        "Now: time {v} {e}",
        finish=a_meeting_moved,
    ),
    change(
        r"\b(?:(?:upgraded|updated|bumped|moved|migrated) (?:it |us |everything )?to|(?:everything|"
        r"it|we)(?:'s| is|"
        r"'re| are) (?:now )?on) (?:version |v)?(?P<v>\d+\.\d+(?:\.\d+)?)\b",
        "Now: version {v}",
    ),
    change(
        r"(?:^|^(?:(?:nvm|never ?mind|ok|okay|actually|no|wait|hmm)[,.!]?\s+){1,2})"
        r"(?P<v>[A-Za-z]+)(?: is|'s) (?:better|fine|ok|okay|good)(?: again| now| instead)?"
        # "English is fine for everything": the rule for every answer, never "for the essay"
        r"(?: for (?:everything|all of it|all|every\w*))?(?=\s*(?:[,.;!—–-]|$))",
        "Now: language {v}",
        negative=True,  # "never mind, spanish is fine": no negation, the match is its own start
        finish=a_language,
    ),
    # "Back to English.", "back to english please": the reply language gone back to, said alone
    # (never "back to English class", "back to the German question")
    change(
        r"^(?:ok,? |okay,? |so,? |hmm,? )?(?:let's go |let's |go |going |switch |switching )?"
        r"back to (?P<v>[A-Za-z]+)(?: please| pls| now| again)?(?=\s*(?:[.!;—–]|$))",
        "Now: language {v}",
        finish=a_language_again,
    ),
]

#: Canonical, so that Dream takes a ``Now:`` fact as written (never read again as the user's
#: words); it is resolved before any template is read back and never reaches a file.
CANON: list[tuple[str, str, str | None]] = [(r"^Now: ", USER, None)]

_NAMED = lazy(r"^(?P<head>Has an? .+? named )(?P<v>.+)$")
_NAME_LINE = lazy(r"^(?P<head>Name: )(?P<v>.+)$")
_CALLED = lazy(r"^(?P<head>Goes by |Call the user )(?P<v>\S+)$")
_ISO = lazy(r"\d{4}-\d{2}-\d{2}")
_TIME = lazy(r"\b\d{1,2}(?::\d{2})?(?:\s*(?:am|pm))?\b", re.I)


def resolve(
    fact: str, files: dict[str, list[str]], canonical: Callable[[str], bool] | None = None
) -> tuple[str, str, str] | None:
    """The correction ``fact`` (``Now: …``) applied to the one line it can mean: (file kind, old
    line, new line), or None when no line, or more than one, holds a value of its kind."""
    m = NOW.match(fact)
    if not m:
        return None
    kind, value = m.group("k"), m.group("v")
    said = m.group("h") or ""
    if kind == "swap":  # a swapped line must stay in a template (``canonical``); unchecked: none
        candidates = _swaps(files, value, said, canonical) if canonical else []
        return candidates[0] if len(candidates) == 1 else None
    if kind in _SAID:
        candidates = _SAID[kind](files, value, said)
        return candidates[0] if len(candidates) == 1 else None
    candidates = _CANDIDATES[kind](files, value)
    if kind == "name":
        candidates = [c for c in candidates if _meant(c[1], value, said.split())]
        return _one_name(candidates)
    return candidates[0] if len(candidates) == 1 else None


def resolve_all(
    fact: str, files: dict[str, list[str]], canonical: Callable[[str], bool] | None = None
) -> list[tuple[str, str, str]]:
    """As ``resolve``, with every line a name correction means: "It's John with an h" corrects
    ``Goes by Jon`` and ``Call the user Jon`` both (one name, said in two templates)."""
    m = NOW.match(fact)
    if m and m.group("k") == "name":
        found = [
            c
            for c in _names(files, m.group("v"))
            if _meant(c[1], m.group("v"), (m.group("h") or "").split())
        ]
        olds = {_held_name(c[1]) for c in found}
        return found if len(olds) == 1 else []
    one = resolve(fact, files, canonical)
    return [one] if one else []


def _held_name(line: str) -> str:
    m = _NAME_LINE.match(line) or _NAMED.match(line) or _CALLED.match(line)
    return m.group("v") if m else ""


def _one_name(candidates: list[tuple[str, str, str]]) -> tuple[str, str, str] | None:
    return candidates[0] if len(candidates) == 1 else None


def _meant(line: str, value: str, said: list[str]) -> bool:
    """The old name is the one meant: said again ("Luna is my sister's cat"), the word "name" said,
    spelled like the new one ("Jose" and "Joao", "Max" and "Mads", "Jurgen" and "Jürgen"), or its
    short form ("Jin" of "Jinwei": the name said in full)."""
    old = _held_name(line)
    if old in said or "name" in said:
        return True
    a, b = fold(old), fold(value)
    short = len(a) >= 3 and len(a.split()) == len(b.split()) == 1 and b.startswith(a)
    return a == b or short or (len(a) >= 3 and distance(a, b) <= max(1, len(a) // 2))


def distance(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute) of two short words."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _names(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    out = []
    for kind in ("USER", "SOUL"):
        for line in files.get(kind, []):
            m = _NAME_LINE.match(line) or _NAMED.match(line) or _CALLED.match(line)
            if m and m.group("v") != value:
                out.append((kind, line, f"{m.group('head')}{value}"))
    return out


def _surnames(files: dict[str, list[str]], value: str, said: str) -> list[tuple[str, str, str]]:
    """The full name's surname said anew; when the given name is said with it ("I go by Elif
    Demir now"), only the name of that given name."""
    out = []
    for line in files.get("USER", []):
        m = _NAME_LINE.match(line)
        if m and len(m.group("v").split()) > 1:
            given, old = m.group("v").rsplit(" ", 1)
            if (said and fold(given) != fold(said)) or fold(old) == fold(value):
                continue
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
        if event and _names_event(line, event) and len(times) == 1:
            out.append(("MEMORY", line, line.replace(times[0], time, 1)))
    return out


#: What a tool's short name leaves off ("Next" is Next.js, "Mongo" MongoDB, "Postgres" PostgreSQL).
_SHORT_TAIL = r"(?:\.js|js|db|DB|ql|QL|sql|SQL)"
_VERSIONED = lazy(r"^(?P<head>Uses [A-Za-z][\w.+-]*) (?P<v>v?\d+(?:\.\d+)*[a-z]?)$")


#: Words of a meeting's name that say when it is, not which ("weekly", "the").
_EVENT_WORDS = frozenset("the our my weekly daily biweekly fortnightly monthly morning".split())


def _names_event(line: str, event: str) -> bool:
    """ "standups", "the 1:1s" name the event of "Team cadence: standup at 9:30" (folded,
    singular)."""
    key = re.sub(r"s\b", "", fold(event))
    held = re.sub(r"s\b", "", fold(line))
    if fold(event) in fold(line) or key in held:
        return True
    # "the tuesday sync" is "Team sync Tuesdays at 2pm": its day said too must be the line's
    words = key.split()
    days = [w for w in words if re.fullmatch(_WEEKDAY, w)]
    rest = [w for w in words if w not in days and w not in _EVENT_WORDS]
    said = set(re.findall(r"[\w:-]+", held))
    return bool(rest) and set(rest) <= said and set(days) <= said


def _versions(files: dict[str, list[str]], value: str) -> list[tuple[str, str, str]]:
    tool, _, number = value.rpartition(" ")
    if tool:  # "Python 3.12": the one line naming Python at another version, anywhere in it
        held = re.compile(
            rf"(?<![\w.]){re.escape(tool)}{_SHORT_TAIL}? v?(?P<v>\d+(?:\.\d+)*)\b", re.I
        )
        return [
            ("MEMORY", line, line[: m.start("v")] + number + line[m.end("v") :])
            for line in files.get("MEMORY", [])
            if (m := held.search(line)) and m.group("v") != number
        ]
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
    "date": _dates,
    "time": _times,
    "language": _languages,
    "version": _versions,
}


def _allergies(files: dict[str, list[str]], value: str, old: str) -> list[tuple[str, str, str]]:
    """ "not peanuts, it's tree nuts": the line naming the old allergen, with the new one; "it's
    only shrimp and crab" (no old one said): the one allergy line."""
    return [
        ("USER", line, f"Allergic to {value}")
        for line in files.get("USER", [])
        if line.startswith("Allergic to ")
        and fold(line[12:]) != fold(value)
        and (not old or fold(line[12:]).rstrip("s") == fold(old).rstrip("s"))
    ]


_COUNTS = ("two", "three", "four", "five", "six")
_COUNT_LINE = lazy(
    r"^Has (?P<n>two|three|four|five|six|\d) (?P<k>children|sons|daughters|grandchildren|"
    r"grandsons|granddaughters)$"
)


def _children(files: dict[str, list[str]], value: str, _said: str) -> list[tuple[str, str, str]]:
    """ "Make that three! Our son was born": the one count of children (or of sons, for a son) said
    before, at its new number; a count of daughters is not changed by a son."""
    number, _, child = value.partition(" ")
    number = _COUNTS[int(number) - 2] if number.isdigit() and 2 <= int(number) <= 6 else number
    nouns = {"children", f"{child}s"}
    if child.startswith("grand"):  # a grandchild counts among the grandchildren only
        nouns = {"grandchildren", f"{child}s"}
    out = []
    for line in files.get("USER", []):
        m = _COUNT_LINE.match(line)
        if m and m.group("k") in nouns and m.group("n") != number:
            out.append(("USER", line, f"Has {number} {m.group('k')}"))
    return out


_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_WHEN = lazy(
    rf"\b(?:every |on )?{_WEEKDAY}(?:\s+(?:at|@)\s+\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm)?"
    r"|\s+\d{1,2}(?::\d{2}\s*(?:am|pm)?|\s*(?:am|pm)))?",
    re.I,
)


def _cadences(files: dict[str, list[str]], value: str, event: str) -> list[tuple[str, str, str]]:
    """ "He moved it to Thursdays at 3pm": the one line of memory holding a weekday (of the event,
    when it is named), its day and time said anew."""
    out = []
    for line in files.get("MEMORY", []):
        days = _WHEN.findall(line)
        if len(days) != 1 or (event and not _names_event(line, event)):
            continue
        new = (
            _said_like(value, days[0])
            if re.search(r"\d", value) or not re.search(r"\d", days[0])
            else None
        )
        if new is None:  # a day said alone keeps the line's time
            new = re.sub(rf"{_WEEKDAY}", value, days[0], count=1, flags=re.I)
        lead = re.match(r"(?:every |on )", days[0], re.I)
        if lead and lead.group(0).lower() == "every ":  # "every Thursday" → "every Monday"
            new = re.sub(r"^(\w+day)s\b", r"\1", new, flags=re.I)
        new_line = line.replace(days[0], f"{lead.group(0) if lead else ''}{new}", 1)
        if new_line != line:
            out.append(("MEMORY", line, new_line))
    return out


def _said_like(value: str, held: str) -> str:
    """A new day and time written as the line wrote its old one ("wednesdays 11am" for "Tuesdays
    at 2pm" is "Wednesdays at 11am")."""
    value = re.sub(_WEEKDAY, lambda m: m.group(0).capitalize(), value, count=1, flags=re.I)
    if re.search(r"\bat\b", held) and not re.search(r"\bat\b", value):
        value = re.sub(rf"^({_WEEKDAY})\s+(?=\d)", r"\1 at ", value, flags=re.I)
    return value


_FAVOURITE = lazy(r"^(?P<head>Favourite [\w ]+: )(?P<v>.+)$")


def _favourites(files: dict[str, list[str]], value: str, said: str) -> list[tuple[str, str, str]]:
    """The favourite line whose value the message names ("winter here is brutal" names the old
    favourite season): its value is the new one."""
    out = []
    for line in files.get("USER", []):
        m = _FAVOURITE.match(line)
        old = m.group("v") if m else ""
        if m and fold(old) != fold(value) and re.search(rf"\b{re.escape(fold(old))}\b", fold(said)):
            out.append(("USER", line, f"{m.group('head')}{value}"))
    return out


_SAID = {
    "surname": _surnames,
    "allergy": _allergies,
    "children": _children,
    "cadence": _cadences,
    "favourite": _favourites,
}


# -- a value swapped for another ------------------------------------------------------------------
_NUMBERED = lazy(r"^(?P<w>[A-Za-z]+) (?P<n>\d+)$")
#: The words of a template that are never its value ("Lives in", "Has a … named").
_HEADS = frozenset(
    "lives in works at as from born grew up likes dislikes prefers uses has have a an named is "
    "favourite native language speaks reply keep answers always never use team cadence agreement "
    "decided chose the of to for with on and".split()
)


def _kind_of(value: str) -> str | None:
    """What kind of value a bare one is, when it can be told: a language, a place, a given name, a
    word and a number ("type 2")."""
    if _NUMBERED.match(value):
        return "numbered"
    if is_language(value):
        return "language"
    if is_place(value):
        return "place"
    if is_name(value) and len(value.split()) == 1:
        return "name"
    return None


def _swaps(
    files: dict[str, list[str]], value: str, said: str, canonical: Callable[[str], bool]
) -> list[tuple[str, str, str]]:
    """The one line holding the old value (said, or of the new value's kind), with the new value in
    its place; the line must stay in a template the engine knows. Several lines could be meant:
    none is (unsure, both stay)."""
    old, _, subject = said.partition("; of: ")
    out = []
    for kind, lines in files.items():
        for line in lines:
            spans = (
                [old, *_spelled_out(line, old), *_short_for(line, old)]
                if old
                else _spans_of_kind(line, value)
            )
            for span in spans:
                new_line = _swapped_line(line, span, value, canonical)
                if new_line is None or (subject and fold(subject) not in fold(line)):
                    continue
                out.append((kind, line, new_line))
    return out


#: The templates whose value may be of a kind ("London" corrects a home, never ``Goes by Sam``).
_KIND_LINES = {
    "place": lazy(r"^(?:Lives in|From|Born in|Grew up in) "),
    "language": lazy(r"^(?:Speaks|Native language:|Reply in|Is learning) "),
    "name": lazy(r"^(?:Name:|Goes by|Call the user|Has an? .+ named) "),
    "numbered": lazy(r""),
}


def _spans_of_kind(line: str, value: str) -> list[str]:
    """The values in ``line`` of the same kind as ``value`` (and not it), in a template that holds
    that kind of value."""
    kind = _kind_of(value)
    if kind is None or not _KIND_LINES[kind].match(line):
        return []
    words = line.split()
    out = []
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + 3) + 1):
            span = " ".join(words[i:j]).strip(".,;:()")
            if span and fold(span) != fold(value) and not set(fold(span).split()) & _HEADS:
                if kind == "numbered":
                    n, m = _NUMBERED.match(span), _NUMBERED.match(value)
                    if n and m and fold(n.group("w")) == fold(m.group("w")):
                        out.append(span)
                elif kind is not None and _kind_of(span) == kind:
                    out.append(span)
    return out


def _short_for(line: str, short: str) -> list[str]:
    """The words of ``line`` a tool's short name stands for ("Mongo" in ``Uses MongoDB for …``,
    "Postgres" in ``Uses PostgreSQL 16``, "Next" in ``Uses Next.js 14``)."""
    if not re.fullmatch(r"[A-Za-z][\w+#-]{1,20}", short):
        return []
    held = re.compile(rf"(?<![\w.-]){re.escape(short)}{_SHORT_TAIL}(?![\w.-])", re.I)
    return [m.group(0) for m in held.finditer(line)]


def _spelled_out(line: str, acronym: str) -> list[str]:
    """The words of ``line`` an acronym stands for ("CRA" in ``Uses Create React App``): as many
    capitalised words as it has letters, their initials its letters."""
    if not re.fullmatch(r"[A-Z]{2,5}", acronym):
        return []
    words = line.split()
    n = len(acronym)
    capital = [w[:1].isupper() for w in [*words, ""]]
    return [
        " ".join(words[i : i + n])
        for i in range(len(words) - n + 1)
        if all(capital[i : i + n])
        and not capital[i + n]  # the whole name: "NY" is not "New York" of "New York City"
        and not (i and capital[i - 1] and i > 1)
        and "".join(w[0] for w in words[i : i + n]) == acronym
    ]


def _swapped_line(line: str, old: str, new: str, canonical: Callable[[str], bool]) -> str | None:
    """``line`` with the value ``old`` (whole words, folded) replaced by ``new``; None when the line
    does not hold it as a value, or the result is in no template of the engine's."""
    words = fold(old).split()
    if not words or set(words) <= _HEADS:
        return None
    folded = fold(line)
    m = re.search(rf"(?<![\w-]){re.escape(' '.join(words))}(?![\w-])", folded)
    if m is None or len(folded) != len(line):
        return None
    head = line[: m.start()]
    if set(fold(head).split()) - _HEADS - {":"} and not head.rstrip().endswith(":"):
        pass  # the value may follow other value words ("Has type 1 diabetes")
    value = new if new[:1].isupper() or not line[m.start()].isupper() else new[:1].upper() + new[1:]
    head = re.sub(r"\b(an?) $", lambda a: "an " if value[:1].lower() in "aeiou" else "a ", head)
    # a tool swapped leaves its old version behind ("Uses Postgres 16" → "Uses MySQL")
    tail = re.sub(r"^ v?\d+(?:\.\d+)*\b", "", line[m.end() :])
    new_line = f"{head}{value}{tail}"
    return new_line if canonical(new_line) and new_line != line else None
