"""Facts that end or change without naming a value the rules can read: "we moved across the
harbour", "got promoted", "Sam and I split up", "we had to rehome Max", "eating fish again",
"peanuts are fine", "make that three", "he moved it to Thursdays", "for technical topics up to 300
words".

Such a message makes a line already in memory untrue, whether or not its new value can be read. The
rules here give a ``Gone: <attribute> [<value>]; said: <the words>`` fact for the attribute it ends
(or a ``Now:`` fact, ``corrections``, when it names the new value of one); Dream's analysis
(``engine``) then finds the one line of memory stating that attribute and retires it, with the
user's words as its reason, into the archive where ``why`` finds it. When no line, or more than
one, could be meant, nothing leaves. A ``Gone:`` fact never reaches a memory file as such; a new
value read with confidence is written by its own kind's rule, beside it.

Precision first, both ways: each rule needs the user (``I``, ``we``) as the subject and the
attribute's own words ("moved" with a place or a home, "promoted", "split up", a pet by name); a
plan or a hedge ("we're thinking of moving") never reaches a rule (``clauses``); a friend who
moved, a trip, a second pet name nothing the user holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ....text.lazyre import lazy
from ..kinds import fold, known_place, noun, stem
from .core import SAID, USER, Fact, Filling, change, rule, rules_of
from .corrections import TOO_FORMAL
from .health import is_allergen
from .lexicon import TECH
from .phrases import BACKGROUND, NAME, PROMOTED, SOMEONE_ELSE
from .project import TEAM_RULE_CHANGED, a_rule_anew
from .values import is_language, is_name, is_place, is_tech, place_name

__all__ = ["RULES", "CANON", "GONE", "NARROWED", "said", "retire", "without_read_values"]

#: How an ended attribute is said; the fact it gives (never a file's line).
GONE = lazy(
    r"^Gone: (?P<k>home|role|job|partner|dating|pet|animal|diet|allergy|length|format|never|"
    r"cadence|courting|called|agreement|language|"
    r"learning|like|line|about)"
    r"(?: (?P<v>[^;]+?))?"
    rf"(?:{re.escape(SAID)}(?P<h>.*))?$"
)
_QUOTE = 90


def said(f: Filling) -> bool:
    """The user's words ride with the fact: the reason the old line leaves, kept in the archive."""
    if "v" not in f.values:
        f.template = f.template.replace(" {v}", "")
    words = " ".join((f.message or f.match.string).split())
    quote = words if len(words) <= _QUOTE else words[: _QUOTE - 1].rstrip() + "…"
    f.template += f"{SAID}{quote.replace(';', ',')}"
    return True


#: Where a move takes the user: a place the gazetteer knows, or words only a home move takes.
_HOME_WORDS = lazy(
    r"^(?:house|home|flats?|apartments?|out(?: of (?:the city|town|[A-Z][\w -]+))?|away|abroad|"
    r"overseas|back home|countries|cities|states|across (?:the )?(?:harbou?r|river|bay|city|town|"
    r"country|border|street|road|pond|channel|island)|in with (?:my|our) |"
    r"to (?:a |the )?(?:new )?(?:house|flat|apartment|home|place in|city|town|village|countryside|"
    r"suburbs|burbs|coast|island|mountains)|to (?:the )?[a-z]+ (?:coast|island|islands|valley|"
    r"mountains|highlands|countryside)\b)",
    re.I,
)
_AFTER_MOVE = r"(?P<w>[^,.;!?]{0,40})"
_LONG_AGO = lazy(
    r"\b(?:when i was|as a (?:kid|child|teen(?:ager)?)|growing up|back then|in my (?:childhood|"
    r"youth)|"
    r"(?:my|our) childhood)\b",
    re.I,
)


def a_home_move(f: Filling) -> bool:
    """ "moved across the harbour", "moved to the gold coast", "moved to Leeds": a new home (a team
    that "moved to Postgres" or "moved our standup" moved no home)."""
    where = f.groups.get("w", "").strip()
    if _LONG_AGO.search(f.message or f.match.string):
        return False  # "we moved house a lot when I was a kid": a story, not today's home
    if re.search(BACKGROUND, f.match.string[: f.match.start()], re.I):
        return False  # "… when we moved to Vite": the time of something else
    if _HOME_WORDS.match(where):
        return said(f)
    m = re.match(
        r"^(?:back |over |down |up )?to (?P<p>[A-Z][\w'’ -]{1,40}?)(?=\s+(?:in|last|this|"
        r"a|after|with|for|since|recently|over|during|around|at|back|early|late|earlier)\b|$)",
        where,
    )
    place = m.group("p") if m else ""
    return bool(place) and is_place(place) and not is_tech(place) and said(f)


#: What follows a new home said in lower case: a reason or a time ("we just moved to moncton for
#: my wife's new job", "… last month"), or nothing.
_HOME_TAIL = lazy(
    r"^\s*(?:[,.;!—–]|$|(?:btw|fyi|in (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b|"
    r"(?:for (?:my|our|his|her|their) (?:\w+(?:'?s)? )?(?:new )?(?:job|work|"
    r"studies|school|uni|university|family|kids|partner|wife|husband)|last (?:week|month|year|"
    r"spring|summer|autumn|fall|winter)|this (?:week|month|year)|a (?:few|couple of) (?:weeks|"
    r"months) ago|recently|with (?:the|my|our) (?:kids|family|wife|husband|partner|children))\b)",
    re.I,
)


#: Endings of English words, not of a town's name typed in lower case ("reading", "mobile").
_WORDLIKE = lazy(r"(?:ing|ed|ly|ous|ive|able|ible|ile|al|ful|less|ness|ment|ship)$")


def a_lower_case_home(f: Filling) -> bool:
    """ "we just moved to moncton for my wife's new job": a town of the gazetteer typed in lower
    case, too small for ``values.is_place`` to read alone, is a home after the user's own move
    with a reason or a time after it (or nothing); never a noun, a tool or a language ("we moved
    to mobile", "moved to rust")."""
    place = f.groups.get("v", "").strip()
    words = place.split()
    if not 0 < len(words) <= 3 or any(len(w) < 4 or noun(w) or _WORDLIKE.search(w) for w in words):
        return False
    if is_tech(place) or is_language(place[:1].upper() + place[1:]):
        return False
    if not _HOME_TAIL.match(f.match.string[f.match.end() :]):
        return False
    if re.search(BACKGROUND, f.match.string[: f.match.start()], re.I):
        return False
    f.values["v"] = place_name(place)
    return known_place(place) and not _LONG_AGO.search(f.message or f.match.string)


#: The old home said to be left, before a move whose subject is left out ("I'm not in abuja
#: anymore, relocated to port harcourt"): the clause opens with the user.
_LEFT_HOME = (
    r"(?:i'm|im|i am|we're|we are) (?:no longer (?:living |based )?in [^,;.]{2,40}|not (?:living |"
    r"based )?in [^,;.]{2,40}? any ?more)[,;]\s+"
)
#: The user's own move, done or ended up in ("moved", "relocated", "ended up moving").
_MOVED_HOME = r"(?:moved|relocated|ended up (?:moving|relocating))"


def a_home_move_to(f: Filling) -> bool:
    """A capitalised place one moves to, never a tool ("moved to Leeds", not "moved to Vite")."""
    place = f.groups.get("v", "")
    return place[:1].isupper() and is_place(place) and not is_tech(place)


def a_home_after_left(f: Filling) -> bool:
    """The new home after the old one is left: capitalised, typed in lower case, or a name of
    several words the gazetteer knows whole ("port harcourt")."""
    if a_home_move_to(f) or a_lower_case_home(f):
        return True
    return len(f.groups.get("v", "").split()) > 1 and a_home_named_whole(f)


def a_home_named_whole(f: Filling) -> bool:
    """A place of several capitalised words the gazetteer knows by its whole name and no
    technology's head word starts ("Port Harcourt"; never "Python Django"); never a move told as
    the time of something else."""
    place = f.groups.get("v", "")
    if place.split()[0].lower() in TECH or not known_place(place) or not is_place(place):
        return False
    return not re.search(BACKGROUND, f.match.string[: f.match.start()], re.I)


_GIVEN = r"(?-i:[A-Z])[\w'’-]+"
_PARTNER = r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|spouse)"
_SPLIT = (
    r"(?:split up|broke up|separated|divorced|got divorced|called it quits|went our separate ways|"
    r"ended (?:it|things))"
)
_SPLIT_END = (
    r"(?=\s*(?:[,.;!]|$)|\s+(?:in|last|a|after|recently|this|earlier|back|over|for good|now)\b)"
)
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_CADENCE = rf"(?P<v>{_DAY}(?:\s+(?:at|@)\s+\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm)?)?)"
_WORD_LIMIT = r"\b(?:up to|under|max(?:imum)?|at most|no more than|less than)\s+\d+\s+words\b"
#: A condition or exception a rule's template cannot carry: "when I write in German", "otherwise",
#: "except code reviews". A default the user may lift ("unless I ask for more", "unless I say
#: otherwise") and a rule made stronger ("even if I write in English") are none.
NARROWED = lazy(
    r"(?<!even )(?<!also )\b(?:when(?:ever)?|if|unless|only when|only if) (?:i|you) (?:write|"
    r"message|text|"
    r"speak|talk|type|ask|am writing|'m writing)(?: to you| you| me)? in\b|"
    r"(?<!say )(?<!tell you )(?<!said )\botherwise\b|\bexcept\b|\bapart from\b",
    re.I,
)
_SCOPE = lazy(
    r"\bfor (?:\w+ ){0,2}(?:topics?|questions?|stuff|things|code|tasks?)\b|\beverything else\b"
)


#: Sentence adverbs a capital letter can make look like a name's first word ("Sadly Pepper died").
_ADVERB = lazy(
    r"^(?:sadly|unfortunately|tragically|so|well|and|but|also|recently|finally|yesterday|today)\s+",
    re.I,
)


def pet_named(f: Filling) -> bool:
    """A pet by its name, never a person ("my grandfather Max passed away")."""
    f.values["v"] = _ADVERB.sub("", f.values.get("v", ""))
    before = f.match.string[: f.match.start("v")].lower().split()
    return not (before and _FAMILY.match(before[-1].strip(","))) and said(f)


def a_scope(f: Filling) -> bool:
    """A length said with a scope or an exception ("for technical topics up to 300 words"): the
    rule in memory no longer says all of it."""
    message = f.message or f.match.string
    return bool(NARROWED.search(message) or _SCOPE.search(message)) and said(f)


#: A message about an allergy: a test, a reaction, the word itself.
_ALLERGY_TALK = lazy(r"\ballerg|\btest(?:ed|ing|s)?\b|\breaction\b|\bfor me\b|\bafter all\b", re.I)


def allergen(f: Filling) -> bool:
    return is_allergen(f.groups.get("v", "")) and said(f)


def allergen_cleared(f: Filling) -> bool:
    """ "shellfish is fine", "other shellfish are fine" in a message about an allergy (a test, a
    reaction): the line naming that allergen ends."""
    return bool(_ALLERGY_TALK.search(f.message or f.match.string)) and allergen(f)


def allergen_narrowed(f: Filling) -> bool:
    """ "it's only shrimp and crab", "it's actually tree nuts" in a message about an allergy: the
    new
    allergen replaces the one allergy line in memory (``corrections``)."""
    message = f.message or f.match.string
    return bool(re.search(r"\ballerg|\btest", message, re.I)) and is_allergen(f.values["v"])


#: A message that narrows a rule for the agent to some cases ("bullets only when you're listing
#: steps", "longer answers are fine for code"): the rule in memory no longer says all of it.
_ONLY_SOME = lazy(
    r"\bonly (?:when|if|for|in)\b|\bexcept\b|\bapart from\b|\beverything else\b|"
    r"\b(?:are|is) (?:fine|ok|okay) for\b",
    re.I,
)


def a_format_narrowed(f: Filling) -> bool:
    return bool(_ONLY_SOME.search(f.message or f.match.string)) and said(f)


def a_like_dropped(f: Filling) -> bool:
    """ "I've gone off jazz": the like of it ends (a few content words, as ``about``)."""
    return about(f)


def allergy_said(f: Filling) -> bool:
    """ "not peanuts, it's tree nuts": the new allergen, and the old one to find (``said``)."""
    old, new = f.groups.get("o", ""), f.groups.get("v", "")
    if not (is_allergen(old) and is_allergen(new)) or fold(old) == fold(new):
        return False
    f.template += f"{SAID}{old.strip()}"
    return True


def a_cadence(f: Filling) -> bool:
    """ "moved it to Thursdays": the event when named, else the one cadence in memory."""
    event = f.groups.get("e", "")
    f.values["v"] = f.groups["v"]
    if event and event.lower() not in ("it", "that", "them"):
        f.template += f"{SAID}{event}"
    return True


def a_ban(f: Filling) -> bool:
    f.values["v"] = f.groups.get("v") or f.groups.get("w", "")
    return said(f)


#: A cue of correction for a name said anew (a first "call me X" ends nothing).
_NAME_CUE = lazy(
    r"\b(?:actually|sorry|instead|rather|prefer|not|no|wait|changed my mind|from now on|"
    r"going forward|these days|now)\b",
    re.I,
)


#: Titles said before a surname ("call me Dr. Okafor"): no name to call the user by.
_TITLES = frozenset("dr mr mrs ms miss prof professor sir madam dame lord lady rev".split())


def a_name_corrected(f: Filling) -> bool:
    """A name to call the user by, in a message that says it corrects the one used before."""
    f.values["v"] = f.groups.get("v") or f.groups.get("w", "")
    if not is_name(f.values["v"]) or f.values["v"].lower() in _TITLES:
        return False  # "call me Dr. Okafor": a title, no name to call the user by
    message = f.message or f.match.string
    return bool(_NAME_CUE.search(message) or TOO_FORMAL.search(message)) and said(f)


def a_tool(f: Filling) -> bool:
    tool = f.groups.get("v") or f.groups.get("w", "")
    f.values["v"] = tool.strip()
    return is_tech(tool)


def tools_swapped(f: Filling) -> bool:
    old = (f.groups.get("o") or f.groups.get("o2", "")).strip()
    new = (f.groups.get("v") or f.groups.get("v2", "")).strip()
    f.values["o"], f.values["v"] = old, new
    return is_tech(old) and is_tech(new) and fold(old) != fold(new)


def a_language_learnt(f: Filling) -> bool:
    f.values["v"] = f.groups.get("v") or f.groups.get("w", "")
    return is_language(f.values["v"]) and said(f)


#: A child said by its place in the family ("our third") is the count of children.
_ORDINAL_COUNT = {
    "second": "two",
    "third": "three",
    "fourth": "four",
    "fifth": "five",
    "sixth": "six",
}


def a_birth(f: Filling) -> bool:
    """ "Make that three! Our son Ethan was born", "We have three now! baby girl Amara was born":
    the count said again, with a child arriving."""
    message = f.message or f.match.string
    said_anew = (
        re.match(r"\W*make (?:that|it) \w+\b", message, re.I)
        or " now" in f.match.group(0)
        or f.values.get("n", "").lower() in _ORDINAL_COUNT
    )
    born = re.search(
        r"\b(?:born|arrived|baby|newborn|welcomed|adopted|little (?:boy|girl|one))\b", message, re.I
    )
    # a count of grandchildren said anew with a cue ("Correction, three grandchildren now")
    cued = f.groups.get("g") and re.match(
        r"\W*(?:correction|update|actually|sorry)\b", message, re.I
    )
    if not said_anew or not (born or cued):
        return False
    n = f.values.get("n", "").lower()
    f.values["n"] = _ORDINAL_COUNT.get(n, n)  # "Three kids now": the count as a line says it
    grand = (f.groups.get("g") or "").lower()
    if grand:  # "three grandchildren now": the count of grandchildren (or grandsons, …)
        f.values["k"] = {"grandchildren": "grandchild", "grandkids": "grandchild"}.get(
            grand, grand.removesuffix("s")
        )
        return True
    kind = re.search(r"\b(son|daughter|boy|girl)\b", message, re.I)
    said = kind.group(1).lower() if kind else "child"
    f.values["k"] = {"boy": "son", "girl": "daughter"}.get(said, said)
    return True


#: What the user takes back or gives up, by its words: "forget the metric thing", "ignore what I
#: said about replying in French", "scratch Redux", "I don't have the cat anymore", "stop ending
#: with questions", "I've given up on Japanese", "we cancelled Sentry".
_ABOUT = r"(?:the |my |our |that |those |a |an )?(?P<v>[\w'’ +#./-]{2,40}?)"
_ABOUT_END = (
    # "drop Jenkins from your notes": where it is kept names no more of it
    r"(?: thing| stuff| one| bit| part| rule| request| note)?(?: from (?:your|my|the) (?:notes|"
    r"memory|list|records))?(?=\s*(?:[,.;!]|$)|\s+(?:anymore|any "
    r"more|again|then|now|so|please|pls|too|last|this|yesterday|recently|a while)\b)"
)
_NOT_ABOUT = frozenset(
    "that it this what everything anything all them those me you us him her one thing stuff "
    "job work about".split()
)


def about(f: Filling) -> bool:
    """The words that name the line taken back: a few, of content (not "that", "it")."""
    words = [w for w in fold(f.values.get("v", "")).split() if w not in _NOT_ABOUT]
    if not words or len(words) > 5 or not any(len(w) >= 3 for w in words):
        return False
    f.values["v"] = " ".join(words)
    return said(f)


#: The user owning a mix-up: the value they named is someone else's.
_MIXED_UP = lazy(
    r"\b(?:forget (?:that|it)|mixed (?:it |that |them )?up|mix-?up|i meant|my (?:bad|mistake)|"
    r"not me|typo|wrong)\b",
    re.I,
)


def someone_elses(f: Filling) -> bool:
    """ "My brother's the Arsenal fan" takes back the user's own line about Arsenal only in a
    message that owns a mix-up ("forget that", "I mixed up …")."""
    return bool(_MIXED_UP.search(f.message or f.match.string)) and about(f)


_PARENT_WORD = {
    "mum": "mother",
    "mom": "mother",
    "dad": "father",
    "grandma": "grandmother",
    "grandpa": "grandfather",
}


def parent_gone(f: Filling) -> bool:
    """The line saying the parent lives with the user ("Lives with their father")."""
    kind = f.values.get("v", "").lower().removeprefix("lives with ")
    f.values["v"] = f"lives with {_PARENT_WORD.get(kind, kind)}"
    return about(f)


def a_child_arrived(f: Filling) -> bool:
    """A child born or adopted: the line "Has no children" ends."""
    f.values["v"] = "no children"
    return about(f)


def a_birth_expected(f: Filling) -> bool:
    """A child born to the user: the line "Expecting …" ends."""
    f.values["v"] = "expecting"
    return about(f)


def eats_again(f: Filling) -> bool:
    """ "I eat pork these days" ends the line saying the user does not ("Doesn't eat pork")."""
    f.values["v"] = f"doesn't eat {f.values.get('v', '')}"
    return about(f)


def disliked_no_more(f: Filling) -> bool:
    """ "I've come around on coriander" ends the dislike of it."""
    f.values["v"] = f"dislikes {f.values.get('v', '')}"
    return about(f)


#: A meeting held on a cadence, by its name ("weekly sync", "Friday retro", "board meeting").
_RECURRING = (
    r"(?:(?:weekly|daily|monthly|biweekly|fortnightly|monday|tuesday|wednesday|thursday|friday|"
    r"morning|evening|team|staff|board) )?(?P<v>standups?|stand-ups?|retros?|retrospectives?|"
    r"syncs?|check-ins?|1:1s?|one-on-ones?|demos?|huddles?|[a-z]+ (?:meetings?|syncs?|calls?))"
)
#: Said to end for good, not once.
_FOR_GOOD = (
    r"(?: (?:for good|permanently|altogether|indefinitely|going forward|from now on|for the "
    r"foreseeable future)|,? (?:we|they) (?:don't|won't) (?:do|have|hold) (?:it|them|one) "
    r"(?:anymore|any more))\b"
)

RULES = [
    # any line, by its words: "forget the metric thing", "scratch Redux"
    change(
        r"^(?:please |pls |and |so |but )?(?:(?:scratch|drop) |(?:forget|ignore|disregard) "
        r"(?=(?:about |what i |"
        rf"the bit |everything |all that |.{{2,40}}? (?:thing|stuff|bit|part|rule|request|"
        r"note)\b)))"
        r"(?:about |what i (?:said|told you|wrote|mentioned) (?:about|re|regarding) |the (?:bit|"
        r"part) about |"
        rf"everything about |all that about )?{_ABOUT}{_ABOUT_END}",
        "Gone: about {v}",
        negative=True,
        finish=about,
    ),
    *rules_of(
        (
            r"\b(?:i|we)(?:'ve| have)? (?:also |just |finally |officially )?(?:given up on|gave "
            r"up on|"
            rf"quit|got rid of|stopped doing|stopped going to) {_ABOUT}{_ABOUT_END}",
            # a named thing dropped ("we cancelled Sentry"), never an event ("we cancelled the
            # meeting")
            r"\b(?:i|we)(?:'ve| have)? (?:also |just |finally |officially )?(?:dropped|ditched|"
            r"cancell?ed|"
            r"ripped out|killed|retired|sunset) (?:the |our |my "
            rf")?(?P<v>(?-i:[A-Z])[\w'’+#./-]+(?: (?-i:[A-Z])[\w'’+#./-]+){{0,2}}){_ABOUT_END}",
        ),
        "Gone: about {v}",
        None,
        "correction",
        change=True,
        finish=about,
    ),
    change(
        rf"\b(?:i|we) (?:don't|do not|no longer) (?:have|own|do|keep) {_ABOUT}(?: any "
        r"?more)?(?=\s*(?:[,.;!]|$))",
        "Gone: about {v}",
        negative=True,
        finish=about,
    ),
    change(
        r"^(?:please |pls )?stop (?P<v>[a-z]+ing\b[\w'’ +#./-]{0,40}?)(?:,? please|,? "
        r"pls)?(?=\s*(?:[,.;!]|$))",
        "Gone: about {v}",
        finish=about,
    ),
    # the value said to be someone else's, in a message owning a mix-up: "forget that, I support
    # Spurs. My brother's the Arsenal fan"
    change(
        r"\bmy (?:brother|sister|husband|wife|partner|dad|father|mom|mum|mother|son|daughter|"
        r"friend|boyfriend|girlfriend|flatmate|roommate|colleague)(?:'s| is) the "
        r"(?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+)?) (?:fan|supporter|one)\b",
        "Gone: about {v}",
        finish=someone_elses,
    ),
    # "I eat pork these days", "I've come around on coriander": the line saying the opposite
    change(
        r"\bi(?: do| now)? eat (?P<v>[a-z]+)(?: again| these days| now| nowadays)\b",
        "Gone: about {v}",
        finish=eats_again,
    ),
    change(
        r"\bi(?:'ve| have)? (?:finally |weirdly |actually )?come (?:a)?round (?:on|to) "
        rf"{_ABOUT}{_ABOUT_END}",
        "Gone: about {v}",
        finish=disliked_no_more,
    ),
    # home: "we moved across the harbour in june", "moved house", "I relocated to Leeds"
    change(
        r"(?:\b(?:i|we)(?:'ve| have|'d| had)?|^)\s*(?:just |recently |finally |officially |since "
        r")?"
        rf"(?:moved|relocated)\b\s*{_AFTER_MOVE}",
        "Gone: home",
        finish=a_home_move,
    ),
    # job title: "got promoted", "I was promoted last week"
    change(
        r"(?:\bi(?:'ve| have)?|^)(?:\s*(?:just|finally|recently))?(?:\s*(?:got|been|was|get))?\s*"
        rf"{PROMOTED}\b",
        "Gone: role",
        finish=said,
    ),
    # the job itself: "I quit my job", "I got laid off", "I've left teaching"
    change(
        r"\bi(?:'ve| have)? (?:just |finally )?(?:quit|left|lost) my job\b|"
        r"\bi(?:'ve| have)? (?:just |finally |officially )?(?:quit|left|gave up|given up) "
        r"(?:teaching|nursing|"
        r"consulting|accounting|banking|law|medicine|retail|hospitality|academia|journalism|"
        r"engineering|the (?:army|navy|military|police|force|civil service))\b|"
        r"\bi (?:got|was|have been|'ve been) (?:laid off|fired|let go|made redundant)\b|"
        r"\bi(?:'ve| have)? (?:just |finally |recently )?(?:switched|changed) (?:jobs|employers|"
        r"careers)\b",
        "Gone: job",
        finish=said,
    ),
    # a partner: "Sam and I split up in March", "my husband and I divorced", "I'm single now"
    *rules_of(
        (
            rf"(?:\b(?P<v>{_GIVEN}) and i|\bmy {_PARTNER} and i|\bwe|\bi)"
            r"(?: have| had|'ve| are| were|'re| got)?(?: just| recently| finally| officially)? "
            rf"{_SPLIT}{_SPLIT_END}",
            rf"\bi (?:broke up with|split up with|separated from|divorced) (?:my {_PARTNER} "
            rf")?{NAME}",
        ),
        "Gone: partner {v}",
        None,
        "correction",
        change=True,
        finish=said,
    ),
    change(
        r"\bi(?:'m| am) (?:single|divorced|separated)(?: now)?(?=\s*(?:[,.;!]|$))",
        "Gone: partner",
        finish=said,
    ),
    # a pet by name: "we had to rehome Max", "Max passed away", "we lost Luna last week"
    *rules_of(
        (
            rf"\b(?:had to |have to |we |i )?(?:rehome[d]?|re-home[d]?|gave away|gave up|put down) "
            rf"(?:our |my )?(?:(?:dog|cat|pup|puppy|kitten|bird|rabbit|horse) )?{NAME}",
            r"(?:\b(?:our|my) (?:dog|cat|pup|puppy|kitten|bird|rabbit|horse|hamster|parrot),? "
            rf")?{NAME}"
            r"(?: sadly| recently| just)? (?:died|passed away|passed on|crossed the rainbow bridge|"
            r"was put down|had to be put (?:down|to sleep)|was rehomed|got rehomed)\b",
            rf"\b(?:we|i) lost (?:our |my )?(?:(?:dog|cat|pup|puppy|kitten) )?{NAME}"
            r"(?=\s*(?:[,.;!]|$)|\s+(?:last|in|this|to|recently|a few|earlier|yesterday)\b)",
        ),
        "Gone: pet {v}",
        None,
        "correction",
        change=True,
        finish=pet_named,
    ),
    # a diet: "started eating fish again", "not vegetarian anymore", "I quit being vegan"
    change(
        r"(?:\b(?:i|i'm|i am|i've|i have|we|we're|we've)\s+(?:just |finally |also |now )?|^)"
        r"(?:eating|eat|ate|started (?:to eat|eating)|back (?:to|on) eating|having) (?:meat|fish|"
        r"chicken|seafood|dairy|eggs|animal products|steak|bacon)(?: and (?:meat|fish|chicken|"
        r"seafood|dairy|eggs|steak|bacon))?(?: again| now)\b",
        "Gone: diet",
        finish=said,
    ),
    change(
        r"\b(?:no longer|stopped being|quit being|gave up(?: on)? being|given up(?: on)? being|"
        r"done being) (?:a )?"
        r"(?:vegetarian|vegan|pescatarian|veggie)\b|"
        r"\bnot (?:a )?(?:vegetarian|vegan|pescatarian|veggie) (?:anymore|any more)\b",
        "Gone: diet",
        negative=True,
        finish=lambda f: not SOMEONE_ELSE.search(f.match.string[: f.match.start()]) and said(f),
    ),
    # a diet said anew as a change of its own: "Fully vegan since January", "I've been
    # vegetarian since the summer" (its ``Is …`` fact then replaces the old diet)
    change(
        r"^(?:(?:i'm|im|i am|i've been|ive been|i have been|been|now) )?(?:fully |completely |"
        r"strictly |totally |now )?(?:vegetarian|vegan|pescatarian|veggie)(?: now)? (?:since|as of|"
        r"from) (?:january|february|march|april|may|june|july|august|september|october|november|"
        r"december|last \w+|the (?:new year|summer|spring|autumn|fall|winter)|\d{4}|"
        r"a (?:few )?(?:weeks?|months?) ago)\b",
        "Gone: diet",
        finish=said,
    ),
    # an allergy: "peanuts are fine for me", "not allergic to cats anymore", "outgrew my egg
    # allergy"
    change(
        r"\b(?:(?:all |the )?other )?(?P<v>[a-z][a-z ]{1,30}?) (?:is|are) (?:fine|ok|okay|no "
        r"problem|not a "
        r"problem)\b",
        "Gone: allergy {v}",
        finish=allergen_cleared,
    ),
    change(
        r"\b(?:it's|its|it is)(?: (?:actually|only|just|really))+ (?P<v>[a-z][a-z ]{1,30}?)"
        r"(?=\s*(?:[,.;!]|$))",
        "Now: allergy {v}",
        finish=allergen_narrowed,
    ),
    change(
        r"\bi(?:'m| am) not (?:actually |really |even )?allergic to (?P<v>[a-z][a-z ]{1,30}?)"
        r"(?= (?:anymore|any more|after all)\b|\s*(?:[,.;!—–]|$))",
        "Gone: allergy {v}",
        negative=True,
        finish=allergen,
    ),
    change(
        r"\b(?:outgrew|outgrown|grew out of) (?:my|the) (?P<v>[a-z][a-z ]{1,30}?) allergy\b",
        "Gone: allergy {v}",
        finish=allergen,
    ),
    change(
        r"^(?:sorry,? |actually,? |oops,? |no,? )?not (?P<o>[a-z][a-z ]{1,30}?),? "
        r"(?:it'?s|it is) (?P<v>[a-z][a-z ]{1,30}?)(?=\s*(?:[,.;!]|$))",
        "Now: allergy {v}",
        negative=True,
        finish=allergy_said,
    ),
    # the count of children: "Make that three! Our son Ethan was born", "We have three now! baby
    # girl Amara was born last week"
    *rules_of(
        (
            r"^(?:make that |make it )?(?P<n>three|four|five|six|3|4|5|6)\b(?=\s*(?:[,.;!]|$))",
            r"^(?:so |and )?(?:we|i)(?:'ve got| have got| have| now have| got)(?: got)? "
            r"(?P<n>two|three|four|five|six|2|3|4|5|6)(?: now| of them now)(?=\s*(?:[,.;!]|$))",
            # a child said by its place in the family: "We had our third, a baby girl"
            r"^(?:so |and )?(?:we|i)(?: just| finally)? (?:had|welcomed) (?:our|my|a) "
            r"(?P<n>second|third|fourth|fifth|sixth)(?=\s*(?:[,.;!—–]|$)|\s+(?:baby|child|kid)\b)",
            # the count with its noun, said alone: "Three kids now — baby Iris arrived"
            r"^(?P<n>two|three|four|five|six|2|3|4|5|6) (?:kids|children) now(?=\s*(?:[,.;!—–]|$))",
            # … of grandchildren, after a cue: "Correction, three grandchildren now!"
            r"^(?:(?:correction|update|actually|sorry|oh)[,:!]?\s+)?(?:(?:we|i)(?: now)? have "
            r")?(?P<n>two|three|four|five|six|2|3|4|5|6) (?P<g>grandchildren|grandkids|grandsons|"
            r"granddaughters) now(?=\s*(?:[,.;!—–]|$))",
        ),
        "Now: children {n} {k}",
        None,
        "correction",
        change=True,
        finish=a_birth,
    ),
    # a cadence: "He moved it to Thursdays at 3pm", "the standup is now on Tuesdays"
    change(
        rf"\b(?:moved|changed|shifted|pushed|switched) (?:it|that|them|(?:our |the |my )?"
        rf"(?P<e>[a-z]+(?:[ -][a-z]+)?)) to {_CADENCE}\b",
        "Now: cadence {v}",
        finish=a_cadence,
    ),
    # a like ended: "I've gone off jazz", "I'm over reality TV", "fell out of love with running"
    *rules_of(
        (
            r"\bi(?:'ve| have|ve)? (?:totally |really |kind of |kinda )?(?:gone off|gone cold on|"
            r"gotten over|"
            r"fallen out of love with|fell out of love with|lost interest in|lost my taste for) "
            rf"{_ABOUT}"
            rf"{_ABOUT_END}",
            rf"\bi(?:'m| am|m) (?:so |totally )?over {_ABOUT}(?: now| these days)(?=\s*(?:[,.;!]|"
            r"$))",
        ),
        "Gone: like {v}",
        None,
        "correction",
        change=True,
        negative=True,
        finish=a_like_dropped,
    ),
    # a format narrowed: "normal paragraphs, and bullets only when you're listing steps"
    change(
        r"\b(?:bullets?|bullet points|paragraphs|numbered lists|tables)\b",
        "Gone: format",
        finish=a_format_narrowed,
    ),
    # a length rule narrowed: "longer answers are fine for code"
    *rules_of(
        (
            r"\b(?:longer|long|detailed|longer-form) (?:answers|replies|responses) (?:are|is) "
            r"(?:fine|ok|okay)\b",
            # an answer length given a scope or exception later: the rule in memory is no longer all
            # of it
            _WORD_LIMIT,
        ),
        "Gone: length",
        None,
        "correction",
        change=True,
        finish=a_scope,
    ),
]

#: "baby" that names no child: "we had a baby shower", "a baby scan", "the baby monitor".
_NOT_A_BABY = (
    r"(?! (?:shower|scan|monitor|gate|food|clothes|sitter|sitting|proofing|steps|brain|blues|"
    r"names?|stuff|things|bump|announcement|reveal|class|classes|group|swim|yoga|photos?|"
    r"pictures?))"
)

RULES += [
    # a home typed in lower case after a move: "we just moved to moncton for my wife's new job"
    rule(
        rf"\b(?:i|we)(?:'ve| have)?(?: just| finally| recently| officially)? {_MOVED_HOME} "
        r"(?:back |over |down |up )?to (?P<v>[a-z][a-z'’-]+(?: [a-z][a-z'’-]+){0,2}?)"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:for|last|this|a|recently|with|btw|in)\b)",
        "Lives in {v}",
        None,
        "correction",
        change=True,
        finish=a_lower_case_home,
    ),
    # the subject left out after the old home is left: "I'm not in abuja anymore, relocated to
    # port harcourt" (the negation is the old home's)
    rule(
        rf"^{_LEFT_HOME}(?:i |we )?(?:just |finally |recently |officially )?{_MOVED_HOME} "
        r"(?:back |over |down |up )?to (?P<v>[\w'’-]+(?: [\w'’-]+){0,2}?)"
        r"(?=\s*(?:[,.;!—–]|$)|\s+(?:for|last|this|a|recently|with|btw|in|since|after)\b)",
        "Lives in {v}",
        None,
        "correction",
        change=True,
        negative=True,
        finish=a_home_after_left,
    ),
    # a move to a place whose whole name the gazetteer knows, though its first word reads as a
    # tool's ("Port Harcourt", "Port Elizabeth"): "I moved to Port Harcourt last month"
    rule(
        rf"\b(?:i|we)(?:'ve| have)?(?: just| finally| recently| officially)? {_MOVED_HOME} "
        r"(?:back |over |down |up )?to (?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){1,2})"
        r"(?=\s*(?:[,.;!—–]|$)|\s+(?:for|last|this|a|recently|with|btw|in|since|after)\b)",
        "Lives in {v}",
        None,
        "correction",
        change=True,
        finish=a_home_named_whole,
    ),
    # a pet by its kind alone: "our old cat died in the spring" (the one cat in memory)
    change(
        r"\b(?:our|my) (?:old |elderly |sweet |poor )?(?P<v>dog|cat|rabbit|hamster|parrot|horse|"
        r"budgie|guinea pig|tortoise|turtle|ferret) (?:sadly |recently |just )?(?:died|passed away|"
        r"passed on|crossed the rainbow bridge|was put down|had to be put (?:down|to sleep)|"
        r"was rehomed|got rehomed)\b",
        "Gone: animal {v}",
        finish=said,
    ),
    # a former partner by name: "my ex Sam", "my ex-husband Tom"
    change(
        rf"\bmy ex(?:-| )?(?:{_PARTNER})?,? (?P<v>{_GIVEN})\b",
        "Gone: partner {v}",
        finish=said,
    ),
    # a parent who died no longer lives with the user: "my father passed away last week"
    change(
        r"\bmy (?P<v>mum|mom|mother|dad|father|grandmother|grandma|grandfather|grandpa) "
        r"(?:(?:sadly|recently|just) )?(?:passed away|passed|died)\b",
        "Gone: about lives with {v}",
        finish=parent_gone,
    ),
    # a child arrived: the line saying the user has none ends ("we just had a baby boy, Leo")
    change(
        r"(?:^|\b(?:we|i|and i)(?: just| finally| recently)? )(?:had|welcomed|adopted) "
        rf"(?:a |our (?:first )?)?(?:baby|son|daughter|little (?:boy|girl))\b{_NOT_A_BABY}|"
        r"\b(?:our|my) (?:first )?(?:baby|son|daughter)(?: \w+)? (?:was born|arrived)\b",
        "Gone: about {v}",
        finish=a_child_arrived,
    ),
    # … and the line saying a baby is expected ends too
    change(
        r"(?:^|\b(?:we|i|and i)(?: just| finally| recently)? )(?:had) (?:a |our (?:first )?)?"
        rf"(?:baby|son|daughter|little (?:boy|girl)|twins)\b{_NOT_A_BABY}|"
        r"\b(?:our|my) (?:first )?(?:baby|son|daughter|twins)(?: \w+)? (?:was|were) born\b|"
        r"\bthe (?:baby|twins) (?:is|are|was|were) (?:here|born)\b",
        "Gone: about {v}",
        finish=a_birth_expected,
    ),
    # a language only read: "my French is only for reading" (the line saying more leaves)
    change(
        r"\bmy (?P<v>[A-Z][a-z]+) is (?:only|just|mostly|really only) (?:for )?"
        r"(?:reading|passive)\b",
        "Gone: about {v}",
        finish=lambda f: is_language(f.values.get("v", "")) and about(f),
    ),
    # a cadence said anew: "the standup is now on Tuesdays"
    change(
        r"\b(?:our |the |my )?(?P<e>[a-z]+(?:[ -][a-z]+)?) (?:is|are) now (?:on |every "
        rf")?{_CADENCE}\b",
        "Now: cadence {v}",
        finish=a_cadence,
    ),
    # a cadence ended: "we don't do standups anymore", "we dropped the Friday demo for good"
    change(
        r"\b(?:we(?:'ve| have)? )?(?:no longer (?:do|have|hold)|stopped (?:doing|having)|dropped|"
        r"scrapped|got rid of|killed) (?:the |our |doing )?(?:weekly |daily |monday |friday )?"
        r"(?P<v>standups?|retros?|retrospectives?|check-ins?|1:1s?|one-on-ones?|syncs?|demos?|"
        r"[a-z]+ (?:meetings?|syncs?|calls?|reviews?))\b(?! today| this week| tomorrow)",
        "Gone: cadence {v}",
        finish=said,
    ),
    # a meeting cancelled for good: "the weekly sync is cancelled for good", "we cancelled the
    # Friday retro permanently" (never "today's standup is cancelled", a one-off)
    *rules_of(
        (
            r"\b(?:we(?:'ve| have)? |they(?:'ve| have)? )?(?:cancell?ed|axed|scrapped) "
            r"(?:the |our )"
            rf"{_RECURRING}{_FOR_GOOD}",
            rf"^(?:the |our ){_RECURRING} (?:is|are|was|were|has been|got) (?:now )?"
            rf"(?:cancell?ed|axed|scrapped|gone|over|no more){_FOR_GOOD}",
        ),
        "Gone: cadence {v}",
        None,
        "correction",
        change=True,
        finish=said,
    ),
    # a series cancelled: "we've cancelled the friday demos" (the meetings, plural: never one,
    # "we cancelled the demo", nor a time ahead, "cancelled the standups this week")
    change(
        r"\b(?:cancell?ed|axed|scrapped) (?:the |our |all (?:the |our )?)"
        r"(?:(?:weekly|daily|monthly|biweekly|fortnightly|monday|tuesday|wednesday|thursday|"
        r"friday|morning|evening|afternoon|team|staff|all-hands) ){0,2}"
        r"(?P<v>standups|stand-ups|retros|retrospectives|syncs|check-ins|1:1s|one-on-ones|demos|"
        r"huddles|[a-z]+ (?:meetings|syncs|calls|reviews))\b"
        r"(?!\s+(?:today|tomorrow|tonight|this|next|for (?:now|the|this|a|two|three)|until|over|"
        r"during|while))",
        "Gone: cadence {v}",
        finish=said,
    ),
    change(
        r"\bwe don't (?:do|have|hold) (?:the |our |any )?(?:weekly |daily )?(?P<v>standups?|"
        r"retros?|"
        r"check-ins?|1:1s?|one-on-ones?|syncs?|demos?|[a-z]+ (?:meetings?|syncs?|calls?))"
        r" (?:anymore|any more)\b",
        "Gone: cadence {v}",
        negative=True,
        finish=said,
    ),
    # a ban lifted: "you can use emojis again", "bullet points are fine now"
    change(
        r"\b(?:you can|feel free to|it's (?:fine|ok|okay) to|go ahead and) (?:use |add |include )?"
        r"(?:some )?(?P<v>emojis?|emoticons|exclamation marks|bullet points|bullets|markdown|"
        r"tables|"
        r"headings|lists|numbered lists|code blocks|jargon)(?: again| now| after all)\b|"
        r"\b(?P<w>emojis?|emoticons|exclamation marks|bullet points|bullets|markdown|tables|"
        r"headings|"
        r"lists|numbered lists|code blocks|jargon) (?:are|is) (?:fine|ok|okay|allowed) (?:again|"
        r"now|"
        r"after all)\b",
        "Gone: never {v}",
        finish=a_ban,
    ),
    # the reply language stopped: "ok stop the French", "no more German please" (never "stop the
    # French verbs drill")
    change(
        r"^(?:ok,? |okay,? |so,? |right,? |alright,? )?(?:please |pls |you can )?(?:stop|no more|"
        r"drop|enough)(?: with)?(?: the| using| replying in| answering in| writing in)? "
        r"(?P<v>[A-Z][a-z]+)(?: please| pls| now| for now)?(?=\s*(?:[,.;!—–]|$))",
        "Gone: language {v}",
        negative=True,
        finish=lambda f: is_language(f.values.get("v", "")) and said(f),
    ),
    # a fact the user asks to be forgotten by what it is, not its words: "please delete where I
    # live", "forget where I work"
    change(
        r"\b(?:delete|remove|forget|erase|drop|don't (?:store|keep|save)) (?:where i (?:live|"
        r"stay)|my (?:home ?town|home|address|location|city))(?=\s*(?:[,.;!]|$)|\s+please\b)",
        "Gone: home",
        negative=True,
        finish=said,
    ),
    change(
        r"\b(?:delete|remove|forget|erase|drop|don't (?:store|keep|save)) (?:where i work|my "
        r"(?:job|employer|workplace))(?=\s*(?:[,.;!]|$)|\s+please\b)",
        "Gone: job",
        negative=True,
        finish=said,
    ),
    # the user's own business opened: the job at someone else's ends ("I've opened my own place
    # now, a small bistro")
    change(
        r"\b(?:i|we)(?:'ve| have)? (?:just |finally |now |officially )?(?:opened|started|launched|"
        r"set up) (?:my|our) own (?:place|restaurant|bistro|cafe|café|bakery|shop|business|"
        r"company|practice|firm|studio|salon|clinic|bar|pub)\b",
        "Gone: job",
        finish=said,
    ),
    # a length rule lifted: "forget the word limit", "no need to keep answers short anymore"
    change(
        r"\b(?:forget|drop|ignore|scrap|lift) (?:the|that|my) (?:word limit|length (?:limit|rule)|"
        r"word count(?: rule)?)\b|\bno (?:need|longer need) to keep (?:it|answers|them|replies|"
        r"your answers) (?:short|brief|under \d+ words)\b",
        "Gone: length",
        negative=True,
        finish=said,
    ),
]

_TOOL = r"(?-i:[A-Z])[\w.+#-]*(?: (?-i:[A-Z])[\w.+#-]*)?"

RULES += [
    # the job ended: "I retired last month", "I'm between jobs now"
    change(
        r"\bi(?:'ve| have)? (?:just |finally |officially )?retired(?=\s*(?:[,.;!]|$)|\s+(?:last|"
        r"this|"
        r"in|from|after|on|early|recently|a|at)\b)|\bi(?:'m| am) (?:now |currently )?(?:unemployed|"
        r"between jobs|out of work|retired now)\b",
        "Gone: job",
        finish=said,
    ),
    # a tool given up: "we dropped Redis", "we're off Heroku now"
    rule(
        r"\bwe(?:'ve| have)? (?:just |finally |recently )?(?:dropped|ditched|got rid of|stopped "
        r"using|"
        r"moved off(?: of)?|migrated (?:away )?(?:off|from)|sunset(?:ted)?|retired|"
        r"decommissioned) "
        rf"(?P<v>{_TOOL})(?=\s*(?:[,.;!]|$)|\s+(?:last|this|in|completely|entirely|for good|"
        r"now)\b)|"
        rf"\bwe(?:'re| are) (?:completely |fully )?off (?P<w>{_TOOL})(?: now)?(?=\s*(?:[,.;!]|$))",
        "No longer uses {v}",
        {"v": is_tech},
        "correction",
        change=True,
        negative=True,
        finish=a_tool,
    ),
    # a tool replaced: "we replaced Jenkins with GitHub Actions", "we ditched MongoDB for Postgres"
    change(
        r"\bwe(?:'ve| have)? (?:just |finally |recently )?(?:replaced|swapped(?: out)?) "
        rf"(?P<o>{_TOOL}) "
        rf"(?:with|for) (?P<v>{_TOOL})\b|\bwe(?:'ve| have)? (?:just |finally |recently "
        r")?(?:ditched|"
        rf"dropped) (?P<o2>{_TOOL}) for (?P<v2>{_TOOL})\b",
        "Uses {v} instead of {o}",
        finish=tools_swapped,
    ),
]

RULES += [
    # a language learnt: "I'm fluent in Spanish now" (the one "Is learning Spanish" ends)
    change(
        r"\bi(?:'m| am) (?:now |finally )?(?:fluent|conversational|bilingual) in "
        r"(?P<v>[A-Z][a-z]+) now\b|"
        r"\bi(?:'m| am) now (?:fluent|conversational|bilingual) in (?P<w>[A-Z][a-z]+)\b",
        "Gone: learning {v}",
        finish=a_language_learnt,
    ),
    # a partner married: "Anna and I got married" (a girlfriend, boyfriend or fiancée of that name)
    change(
        rf"\b(?P<v>{_GIVEN}) and i (?:just |finally )?(?:got married|tied the knot|are (?:now "
        r")?married)\b|"
        r"\bi (?:just |finally )?(?:married|got married to) (?:my (?:girlfriend|boyfriend|"
        r"fianc[eé]e?) )?"
        rf"(?P<w>{_GIVEN})\b",
        "Gone: dating {v}",
        finish=a_ban,
    ),
    # the name to call the user by, said anew in a correction ("actually, everyone calls me
    # Sasha", "actually just Seun is fine"): the agent's ``Call the user`` line of another name
    # leaves (``Goes by`` takes the new one, the slot ``nickname``)
    change(
        r"(?:(?:^|[,.;!—–]\s*|\b(?:please|pls|just|actually|now|so|you can|instead)\s+)call me|"
        r"\b(?:everyone|everybody|people|most people|folks|all my friends) (?:all |usually |just )?"
        r"calls? me|\bi (?:usually |mostly |now |prefer to )?go by)(?: just)? "
        rf"(?P<v>{_GIVEN})|(?:^|[,.;!—–]\s*|\b(?:actually|honestly|no|oh|wait)[,!]?\s+)just "
        rf"(?P<w>{_GIVEN}) (?:is|'s) (?:fine|good|ok|okay|great|enough|perfect)\b",
        "Gone: called {v}",
        finish=a_name_corrected,
    ),
    # a team rule changed: the old agreement on the same thing ("every PR needs two approvals")
    change(TEAM_RULE_CHANGED, "Gone: agreement {v}", finish=lambda f: a_rule_anew(f) and said(f)),
    # a partner the user got engaged to: "Daniela and I got engaged!!", "I got engaged to my
    # girlfriend Priya" (the girlfriend, boyfriend or partner line of that name; the
    # ``Engaged to`` line is family's, written beside it)
    change(
        rf"\b(?P<v>{_GIVEN}) and (?:i|me) (?:just |finally |officially |recently )?(?:got|are|'re) "
        r"engaged\b|"
        r"\bi(?:'m| am)? (?:just |finally |officially |recently )?(?:got )?engaged to (?:my "
        rf"(?:gf|bf|girlfriend|boyfriend|partner) )?(?P<w>{_GIVEN})\b",
        "Gone: courting {v}",
        finish=a_ban,
    ),
]

#: Canonical, so that Dream takes it as written (it is never read again as the user's words), and
#: resolved before any template is read back: a ``Gone:`` fact never reaches a file.
CANON: list[tuple[str, str, str | None]] = [(r"^Gone: ", USER, None)]


# -- the line a ``Gone:`` fact retires
# ---------------------------------------------------------------
_PARTNER_LINE = lazy(rf"^(?:Has an? {_PARTNER}(?: named (?P<n>.+))?|Married to (?P<m>.+))$", re.I)
_PET_LINE = lazy(r"^Has an? (?P<k>[\w -]+?) named (?P<n>.+)$")
_FAMILY = lazy(
    r"^(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|spouse|son|daughter|brother|sister|"
    r"mother|father|mom|mum|dad|grand\w+|uncle|aunt|cousin|niece|nephew|boss|manager|friend|"
    r"colleague|child|baby|stepson|stepdaughter)$",
    re.I,
)
_DATING_LINE = lazy(
    r"^(?:Has an? (?:girlfriend|boyfriend|fianc[eé]e?) named|Engaged to) (?P<n>.+)$"
)
#: A partner before an engagement: the line an engagement to that person ends (never the
#: ``Engaged to`` line itself, written in the same batch).
_COURTING_LINE = lazy(r"^Has an? (?:girlfriend|boyfriend|partner) named (?P<n>.+)$")
#: A status an engagement of the user's ends ("I'm single", then "Update: I'm engaged to Rafael!").
_UNATTACHED_LINE = lazy(r"^Is (?:single|in a relationship|dating|seeing someone)$")
_PET_BARE = lazy(r"^Has an? (?P<k>[\w -]+)$")
_DIET_LINE = lazy(r"^Is (?:vegetarian|vegan|pescatarian)$")
_LENGTH_LINE = lazy(r"^(?:Keep answers (?:under .+|short)|Give detailed answers)$")
_FORMAT_LINE = lazy(
    r"^(?:Answer in .+|(?:Always|Never) .*\b(?:bullet|bullets|paragraphs|numbered lists|"
    r"tables)\b.*)$"
)
_REPLY_IN = lazy(r"^(?:Reply|Answer|Respond|Write|Talk|Speak)(?: to the user)? in (\w+)$")
_LIKE_LINE = lazy(r"^(?:Likes|Loves|Enjoys|Is into|Is a fan of|Supports|Favourite [\w ]+:) ")


def retire(fact: str, files: dict[str, list[str]]) -> tuple[str, list[str], str] | None:
    """The lines the ``Gone:`` ``fact`` ends: (file kind, lines, the user's words), or None when no
    line, or more than one for a single attribute, could be meant (unsure: both stay)."""
    m = GONE.match(fact)
    if not m:
        return None
    kind, value, words = m.group("k"), (m.group("v") or "").strip(), m.group("h") or ""
    if kind == "about":
        return _about(files, value, words)
    target, found = _FINDERS[kind](value, files)
    if kind == "job":  # the title and the employer leave together
        return (target, found, words) if found else None
    return (target, found, words) if len(found) == 1 else None


Lines = dict[str, list[str]]


def _user(files: Lines, keep: Callable[[str], object]) -> tuple[str, list[str]]:
    return "USER", [ln for ln in files.get("USER", []) if keep(ln)]


#: A job told in the user's own words ("Drives a school bus for the county"): a verb of work and
#: where or for whom.
_WORK_STATED = lazy(
    r"^(?:Drives|Teaches|Works|Manages|Runs|Nurses|Cleans|Delivers|Cooks|Tutors|Builds|Repairs|"
    r"Fixes|Codes|Designs|Writes|Sells|Waits tables|Bartends|Coaches|Trains|Hauls|Farms|Guards|"
    r"Cares) .+ (?:for|at) .+$"
)


def _job(_value: str, files: Lines) -> tuple[str, list[str]]:
    """The title and the employer; with neither, the one job told in the user's words."""
    user = files.get("USER", [])
    roles = [ln for ln in user if ln.startswith("Works as ")]
    firms = [ln for ln in user if ln.startswith("Works at ")]
    if not roles and not firms:
        told = [ln for ln in user if _WORK_STATED.match(ln)]
        return "USER", told if len(told) == 1 else []
    return "USER", [*roles, *firms] if len(roles) <= 1 and len(firms) <= 1 else []


def _partner(value: str, files: Lines) -> tuple[str, list[str]]:
    return _user(
        files, lambda ln: _PARTNER_LINE.match(ln) and (not value or _partner_named(ln, value))
    )


def _dating(value: str, files: Lines) -> tuple[str, list[str]]:
    return _user(
        files,
        lambda ln: (dm := _DATING_LINE.match(ln)) and fold(dm.group("n")).split()[0] == fold(value),
    )


def _pet(value: str, files: Lines) -> tuple[str, list[str]]:
    return _user(
        files,
        lambda ln: (
            (pm := _PET_LINE.match(ln))
            and not _FAMILY.match(pm.group("k"))
            and fold(pm.group("n")) == fold(value)
        ),
    )


def _animal(value: str, files: Lines) -> tuple[str, list[str]]:
    return _user(
        files,
        lambda ln: (
            (pm := _PET_LINE.match(ln) or _PET_BARE.match(ln))
            and fold(pm.group("k")) == fold(value)
        ),
    )


def _never(value: str, files: Lines) -> tuple[str, list[str]]:
    soul = files.get("SOUL", [])
    return "SOUL", [ln for ln in soul if ln.startswith("Never use ") and _same(ln[10:], value)]


def _cadence(value: str, files: Lines) -> tuple[str, list[str]]:
    memory = files.get("MEMORY", [])
    heads = ("Team cadence: ", "Routine: ")
    return "MEMORY", [ln for ln in memory if ln.startswith(heads) and _same_event(ln, value)]


def _length(_value: str, files: Lines) -> tuple[str, list[str]]:
    return "SOUL", [ln for ln in files.get("SOUL", []) if _LENGTH_LINE.match(ln)]


def _format(_value: str, files: Lines) -> tuple[str, list[str]]:
    return "SOUL", [ln for ln in files.get("SOUL", []) if _FORMAT_LINE.match(ln)]


def _like(value: str, files: Lines) -> tuple[str, list[str]]:
    """The one like holding every word named ("jazz" ends ``Likes jazz``, never ``Plays jazz``)."""
    key = _stems(value)
    return _user(files, lambda ln: bool(key) and _LIKE_LINE.match(ln) and key <= _stems(ln))


def _agreement(value: str, files: Lines) -> tuple[str, list[str]]:
    """The team's agreement on the same thing as the new one (two content words shared: "PRs …
    one approval" ends "every PR needs two approvals"), never the new one itself."""
    head = "Team agreement: "
    key = _topic(value)
    return "MEMORY", [
        ln
        for ln in files.get("MEMORY", [])
        if ln.startswith(head)
        and fold(ln[len(head) :]) != fold(value)
        and len(key & _topic(ln[len(head) :])) >= 2
    ]


def _topic(rule: str) -> set[str]:
    """What a rule is about: its content words, a short plural folded ("PRs" is "PR")."""
    return {w.rstrip("s") if len(w) > 2 else w for w in _stems(rule)} - _RULE_WORDS


#: The words of any rule, that say nothing of what it is about.
_RULE_WORDS = frozenset(
    "need needs must should require requires only always never no every all now still one two "
    "three".split()
)


def _line(value: str, files: Lines) -> tuple[str, list[str]]:
    """The line stating ``value`` word for word (a negated restatement: "I'm not prediabetic
    anymore" ends ``Has prediabetes``), in whichever file holds it."""
    key = fold(value).strip(" .")
    for kind, lines in files.items():
        found = [ln for ln in lines if fold(ln).strip(" .") == key]
        if found:
            return kind, found[:1]
    return "USER", []


#: Each ended attribute: the lines that may state it (one must, for it to leave).
_FINDERS: dict[str, Callable[[str, Lines], tuple[str, list[str]]]] = {
    "home": lambda _v, files: _user(files, lambda ln: ln.startswith("Lives in ")),
    "role": lambda _v, files: _user(files, lambda ln: ln.startswith("Works as ")),
    "job": _job,
    "partner": _partner,
    "dating": _dating,
    "called": lambda v, files: (
        "SOUL",
        [
            ln
            for ln in files.get("SOUL", [])
            if ln.startswith("Call the user ") and fold(ln[14:]).split()[:1] != [fold(v)]
        ],
    ),
    "agreement": _agreement,
    "courting": lambda v, files: _user(
        files,
        lambda ln: (
            ((cm := _COURTING_LINE.match(ln)) and fold(cm.group("n")).split()[0] == fold(v))
            or _UNATTACHED_LINE.match(ln)
        ),
    ),
    "learning": lambda v, files: _user(
        files, lambda ln: ln.startswith("Is learning ") and fold(ln[12:]) == fold(v)
    ),
    "pet": _pet,
    "animal": _animal,
    "diet": lambda _v, files: _user(files, _DIET_LINE.match),
    "allergy": lambda v, files: _user(
        files, lambda ln: ln.startswith("Allergic to ") and _same(ln[12:], v)
    ),
    "never": _never,
    "cadence": _cadence,
    "length": _length,
    "format": _format,
    "like": _like,
    "line": _line,
    "language": lambda v, files: (
        "SOUL",
        [
            ln
            for ln in files.get("SOUL", [])
            if (rm := _REPLY_IN.match(ln)) and _same(rm.group(1), v)
        ],
    ),
}


def _stems(text: str) -> set[str]:
    """Content words, crudely stemmed ("replying" and "reply", "questions" and "question")."""
    out = {stem(w) for w in re.findall(r"[^\W_][\w+#'’]*", text.lower().replace("-", " "))}
    return out - _NOT_ABOUT - {"the", "a", "an", "of", "to", "in", "on", "with", "for", "my", "and"}


def _about(
    files: dict[str, list[str]], value: str, words: str
) -> tuple[str, list[str], str] | None:
    """The one line of any file holding every word the user named (none, or several: unsure); a
    verb of asking ("adding", "putting") is how the user recalls a rule, not its words ("forget
    what I said about always adding links": ``Always include sources with links``)."""
    key = _stems(value)
    key = key - _ASKING if key - _ASKING else key
    if not key:
        return None
    found = [(kind, ln) for kind, lines in files.items() for ln in lines if key <= _stems(ln)]
    if len(found) != 1:
        return None
    return found[0][0], [found[0][1]], words


#: Verbs of asking for something, stemmed as ``_stems`` does.
_ASKING = frozenset(
    stem(w)
    for w in "add adding put putting include including use using give giving make making write "
    "writing send sending show showing keep keeping".split()
)


def _partner_named(line: str, name: str) -> bool:
    m = _PARTNER_LINE.match(line)
    held = (m.group("n") or m.group("m") or "") if m else ""
    return bool(held) and fold(held).split()[0] == fold(name).split()[0]


def _same_event(line: str, event: str) -> bool:
    """ "standups" is the event of "Team cadence: standup daily at 9:15", "team meetings" of
    "Team cadence: team meeting on Mondays": every word of it in the line past its head."""
    held = re.sub(r"^(?:team cadence|routine):\s*", "", fold(line))
    words = {w.rstrip("s") for w in re.findall(r"[\w:-]+", held)}
    return bool(event.strip()) and {w.rstrip("s") for w in fold(event).split()} <= words


def _same(a: str, b: str) -> bool:
    """The same allergen said twice ("peanuts", "Peanuts", "peanut")."""
    x, y = fold(a).strip(" ."), fold(b).strip(" .")
    return x == y or x.rstrip("s") == y.rstrip("s")


#: A value read in the same message ends nothing by a ``Gone:`` fact: it replaces the old line
#: itself ("we moved to Leeds": ``Lives in Leeds`` supersedes the old home, one change).
_READ_AS = {
    "home": ("Lives in ",),
    "role": ("Works as ",),
    "job": ("Works as ", "Works at "),
    "diet": ("Is vegetarian", "Is vegan", "Is pescatarian"),
    "length": ("Keep answers ", "Give detailed answers"),
}


def without_read_values(facts: list[Fact]) -> list[Fact]:
    """The facts of one message less a ``Gone:`` fact whose attribute a fact of it states anew; that
    fact is then a change ("I'm not vegan anymore, … so vegetarian": ``Is vegetarian`` replaces the
    old diet, whatever cue its own clause had)."""
    out = []
    renewed: set[int] = set()
    for fact in facts:
        m = GONE.match(fact.text)
        heads = _READ_AS.get(m.group("k"), ()) if m else ()
        anew = [i for i, f in enumerate(facts) if f is not fact and f.text.startswith(heads)]
        if heads and anew:
            renewed.update(anew)
            continue
        out.append(fact)
    marked = {id(facts[i]) for i in renewed}
    return [Fact(f.text, "correction") if id(f) in marked else f for f in out]
