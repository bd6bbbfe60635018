"""Standing instructions addressed to the agent (SOUL.md): reply language, answer length and
format, what to call the user, "Always …" / "Never …".

A rule for the agent is *addressed to it*: an imperative that opens its sentence (after "please",
"from now on", "always" …) or a request ("I'd like you to …", "you can …"), never a description of
the user's life ("At home we speak Portuguese", "Never have I ever …") and never about one reply
("… in the summary below", "this time").
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

from ....text.lazyre import lazy
from ..kinds import noun
from .changes import said
from .core import SOUL, Filling, Rule, change, rule, rules_of, word_set
from .lexicon import NOT_NAMES
from .person import third_person
from .phrases import NAME
from .values import is_language, is_name, is_place

#: How a sentence addressed to the agent opens: an imperative (after "please", "from now on",
#: "always" …) or a request ("I'd like you to …", "you can …"). "At home we speak Portuguese" is no
#: rule for the agent.
TO_AGENT = (
    r"(?:^(?:(?:please|pls|kindly|just|and|also|so|always|only|from now on|going forward|"
    r"in (?:the )?future|feel free to)[,\s]+)*"
    r"|\byou (?:should |must |can |could |may |will |'ll )?(?:please )?(?:just )?(?:always |only )?"
    r"|\b(?:i(?:'d| would)? (?:like|want|need|prefer) you to|make sure (?:to|you)|remember to|"
    r"(?:it(?:'d| would) be (?:great|nice|good|helpful|ideal)|i(?:'d| would) appreciate it) if "
    r"you (?:could|would|can) (?:please )?) "
    r"(?:always |only )?)"
)


ONE_OFF = lazy(
    # ("make that Australian English" corrects a rule, it names no reply)
    r"\b(?:this|(?<!make )that|these|those|for now|today|tonight|tomorrow|right now|yet|below|"
    # "here" is where the user lives in "it's what we use here", "over here" (a reason, no reply)
    r"above|next one|"
    r"(?<!use )(?<!used )(?<!say )(?<!live )(?<!over )(?<!round )(?<!around )here)\b",
    re.I,
)


_GERUND = {
    "puting": "put",
    "using": "use",
    "adding": "add",
    "putting": "put",
    "writing": "write",
    "including": "include",
}


_NOT_A_RULE = word_set(
    "mind heard been seen knew thought happened did was were had again ever forget forgot felt "
    "got said saw liked loved wanted needed understood managed worked lived the a my i it this "
    "that so true fun easy works"
)


#: What an agent does when it answers or acts for the user: a free rule opens with one of these.
#: Between people "always" and "never" open advice and remarks ("Don't ever quit on what you love",
#: "Always up for something sweet"), which are no instruction to the agent.
AGENT_VERBS = word_set(
    "answer respond reply write use cite show ask apologise apologize include add explain give "
    "keep format "
    "mention quote link check confirm run test summarise summarize suggest recommend call address "
    "refer sign "
    "start end put say translate spell tell list number wrap comment commit push delete remove "
    "send mark label "
    "avoid default assume make greet double-check verify print output return lead open close "
    "reference note "
    "warn offer provide read search look review proofread copy paste edit rewrite shorten simplify"
)


def imperative(text: str) -> bool:
    """Free text addressed to the agent starts with a verb it can follow ("cite", "use"), not
    "been", "thought", and not a verb of advice between people ("quit", "give up")."""
    first = text.split(" ", 1)[0].lower().strip(",.!")
    if not re.fullmatch(r"[a-z-]+", first) or first in _NOT_A_RULE or first not in AGENT_VERBS:
        return False
    if re.match(r"^\w+ up\b", text, re.I):
        return False  # "never give up", "always look up to …"
    if re.match(r"^\w+ (?:i|we|he|she|they|it|you)\b", text, re.I):
        return (
            False  # an inversion ("never have I ever been …", "never did we …"): a remark, no rule
        )
    if first.endswith("ed") and not first.endswith("eed"):
        return False
    return not (first.endswith("s") and not first.endswith(("ss", "us")))


def an_instruction(f: Filling) -> bool:
    """Free text after "always" / "never" is a rule only as an instruction the agent can follow,
    about
    no one reply: "always been like that", "always check the logs first when debugging this one" are
    none."""
    raw = f.groups.get("v", "").strip().rstrip(".!")
    polite = re.search(r",?\s+(?:please|pls|thanks|thank you)$", raw, re.I)
    if polite:  # "always use metric units please": the courtesy is no part of the rule
        raw = raw[: polite.start()]
        f.values["v3"] = third_person(raw)
    reason = _REASON.search(raw)
    if reason:  # "never suggest peanuts, I'm allergic": the reason is a fact, no part of the rule
        if "allergic" in reason.group(0).lower():
            return False  # the allergy is the fact (``health``); the rule follows from it
        raw = raw[: reason.start()].strip()
        f.values["v3"] = third_person(raw)
    if not (bool(raw) and imperative(raw) and not ONE_OFF.search(raw)):
        return False
    scope = _scope_of(raw, f.message)
    if scope:  # "when you explain grammar, explain in English": the rule holds there only
        f.values["v3"] = f"{f.values.get('v3') or third_person(raw)}, {scope}"
    return True


#: The scope a rule was said with, before it: "when you explain grammar to me, …", "so when I ask
#: about traffic, …" (the clause stage reads the rule alone, as "Always …").
_SCOPE = r"\b(?P<s>when(?:ever)? (?:i|you) [^,.;:!?]{2,80}),\s+(?:please |pls |just |always )*"


def _scope_of(raw: str, message: str) -> str | None:
    """The rule's scope in its message, in the third person ("when the user asks about traffic"),
    or None when it was said without one."""
    head = " ".join(raw.split()[:3])
    if not message or not head:
        return None
    m = re.search(_SCOPE + re.escape(head), message, re.I)
    if not m:
        return None
    scope = m.group("s")
    return f"{scope.split(' ', 1)[0].lower()} {third_person(scope.split(' ', 1)[1])}"


#: A reason given after a rule ("…, I'm allergic (badly)", "… because I'm vegan").
_REASON = lazy(
    r",?\s*(?:\b(?:because|since|cause|cuz|coz|cos)\b|,\s*(?:as|i|i'm|i've|we|we're|it|it's|"
    r"they|that's)\b).*$",
    re.I,
)


def a_convention(f: Filling) -> bool:
    """ "metric" is "metric units" (the one template of its kind); a word said alone is no rule
    ("metric" may answer a question)."""
    if not re.search(r"\b(?:use|only|please|pls|always|from now on)\b", f.match.group(0), re.I):
        return False
    value = " ".join(f.values["v"].lower().split())
    value = re.sub(r"^twenty[- ]four[- ]hour", "24-hour", value)
    value = _CONVENTION_AS.get(value, value)
    if value in ("metric", "imperial"):
        value = f"{value} units"
    f.values["v"] = value.capitalize() if value in ("celsius", "fahrenheit") else value
    return True


def stop_doing(f: Filling) -> bool:
    """ "stop using emojis" → "Never use emojis"."""
    verb = (f.groups.get("g") or f.groups.get("b") or "use").lower()
    f.values["verb"] = _GERUND.get(verb, verb)
    f.values["v"] = f.groups["v"].lower()
    if f.values["verb"] == "put" and f.values["v"].startswith(("emoji", "emoticon")):
        f.values["verb"] = "use"  # emojis are used, wherever they are put
    if _FORMATS.match(f.values["v"]) and _CHANGED.search(f.message or f.match.string):
        f.template += f" (replaces: Answer in {f.values['v']})"
    return True


_NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
_COUNT = r"(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten)"
_UNIT = r"(?P<u>sentences|words|lines|paragraphs|bullet points)"


def at_most(f: Filling) -> bool:
    """ "Five sentences max" → "Keep answers under 5 sentences"."""
    n = f.groups["n"].lower()
    f.values["v"] = f"{_NUMBER_WORDS.get(n, n)} {f.groups['u'].lower()}"
    return True


#: A length said with a number as its own part of the message ("…, 5 sentences max", "… no more
#: than five sentences or so", "like 3-4 sentences max": the upper bound), with a word that makes
#: it a limit ("max", "no more than", "like", "or so"); "I wrote 500 words today" is none.
_LENGTH = lazy(
    r"(?:(?:please|pls|so|and|but|just)\s+)?(?P<q>(?:like|around|about|max(?:imum)?|at most|no "
    r"more than|not more than|under|up to|within)\s+)?(?P<r>\d+ ?[-–] ?)?"
    rf"{_COUNT} (?P<u>sentences|words|lines|paragraphs)"
    r"(?P<t>\s+(?:max|maximum|tops|at most|or so|or less|or fewer))?"
    r"(?:\s+(?:please|pls|thanks|per (?:answer|reply|response)|unless .*))?",
    re.I,
)
_PARTS = lazy(r"\s*(?:[.!?;,:]+|\s[-–—]+\s)\s*")


def with_number(f: Filling) -> bool:
    """ "Keep your answers short please, 5 sentences max": the number is the rule ("Keep answers
    under 5 sentences"); a length without one stays "short", two (one per topic) give nothing."""
    limits = [
        m
        for part in _PARTS.split(f.message or f.match.string)
        if (m := _LENGTH.fullmatch(part.strip())) and (m.group("q") or m.group("t"))
    ]
    if len(limits) != 1:
        return not limits
    n = limits[0].group("n").lower()
    unit = limits[0].group("u").lower()
    f.template = "Keep answers under {v}"
    f.values["v"] = f"{_NUMBER_WORDS.get(n, n)} {unit}"
    if limits[0].group("r"):  # "3-4 sentences": the range, as said
        f.template = "Keep answers to {v}"
        f.values["v"] = f"{limits[0].group('r').strip(' -–')}-{f.values['v']}"
    return True


def _a_limit_said(f: Filling) -> bool:
    """ "keep it short" with one length limit said beside it: the limit is the rule."""
    return with_number(f) and f.template != "Keep answers short"


def _a_max_limit(f: Filling) -> bool:
    """ "max 5 bullets": the limit as the template writes it ("5 bullet points")."""
    unit = f.groups.get("u", "")
    f.values["v"] = f"{f.groups.get('n', '')} {'bullet points' if unit == 'bullets' else unit}"
    return True


def a_language_reply(f: Filling) -> bool:
    value = f.groups.get("v", "")
    f.values["v"] = value[:1].upper() + value[1:].lower()
    return is_language(f.values["v"])


#: The things a "no X" request bans from answers.
_BANNED = (
    r"emojis?|emoticons|exclamation marks|bullet points|bullets|jargon|legal jargon|technical "
    r"jargon|"
    r"corporate jargon|markdown tables|markdown|tables|headings|small talk|filler|fluff|"
    r"disclaimers|lists|numbered "
    r"lists|"
    r"apologies|hashtags|code blocks"
)
#: Tones an answer can be asked to take ("Be blunt with me").
_TONES = (
    r"blunt|direct|honest|candid|formal|informal|casual|friendly|patient|critical|straightforward|"
    r"specific|"
    r"precise|thorough|gentle|encouraging|objective|frank|polite"
)

#: Conventions an answer can be asked to keep, said bare ("metric", "celsius").
_CONVENTION = (
    r"metric(?: units)?|imperial(?: units)?|celsius|fahrenheit|british spelling|american spelling|"
    r"24-hour time|iso dates|"
    # the same conventions in other words ("24-hour clock", "military time", "UK English")
    r"24[- ]hour clock|24 hour time|twenty[- ]four[- ]hour (?:time|clock)|military time|"
    r"(?:british|uk) english(?: spelling)?|uk spelling"
)
#: A convention's other words, as its one template names it.
_CONVENTION_AS = {
    **dict.fromkeys(
        ("24-hour clock", "24 hour clock", "24 hour time", "military time"), "24-hour time"
    ),
    **dict.fromkeys(
        ("british english", "uk english", "british english spelling", "uk english spelling"),
        "british spelling",
    ),
    "uk spelling": "british spelling",
    "australian english": "australian spelling",
    "canadian english": "canadian spelling",
    "american english": "american spelling",
}


def a_convention_anew(f: Filling) -> bool:
    """A convention said anew in other words ("make that Australian English"): as its template
    names it (the one of its kind it replaces)."""
    value = " ".join(f.values["v"].lower().split())
    f.values["v"] = _CONVENTION_AS.get(value, value)
    said = f.message or f.match.string
    return bool(re.search(rf"\bmake (?:that|it) {re.escape(f.groups['v'])}", said, re.I))


#: The conventions a request names with no verb ("short answers", "bullet points", "UK
#: spelling", "metric", "ISO dates"), each a group its line is made from (``_verbless``).
_VERBLESS = (
    r"(?P<len>short|shorter|brief|briefer|concise|quick) (?:answers|replies|responses)"
    # the length said after them: "Answers short please"
    r"|(?:answers|replies|responses) (?P<len2>short|shorter|brief|briefer|concise)"
    r"|(?P<fmt>bullet points|bullets|numbered lists|short paragraphs|plain text|plain prose)"
    r"|(?P<sp>british|uk|american|us|australian|canadian)(?: english)? spelling"
    r"|(?P<sp2>british|australian|canadian) english"
    r"|(?P<unit>metric|imperial)(?: units)?"
    r"|(?P<iso>iso(?: 8601)? dates|iso 8601)"
)
_SPELLING = {"uk": "British", "us": "American"}

#: A format of answers said as what helps the user read them (``_helps``): "Bullet points help me
#: a lot", "so tables work better for me", "Numbered lists are easier for me to follow".
_HELPFUL_FORMAT = (
    r"(?P<fmt>bullet points|bullets|numbered lists|short paragraphs|tables)"
    r"(?: (?:really|genuinely|always|honestly|definitely))?"
    r" (?:(?:help|helps)(?: me)?(?: (?:a lot|loads|heaps|so much|a great deal|massively|hugely))?"
    r"|(?:work|works) (?:(?:much|way|so much|a lot|far) )?better for me"
    r"|(?:are|is) (?:(?:much|way|so much|a lot|far) )?easier for me(?: to (?:read|follow|take in|"
    r"digest|skim))?)"
)


#: The clause is a format said to help the user: a statement of theirs, so it may follow another
#: clause ("I have ADHD, so bullet points help a lot"), which an instruction to the agent may not.
HELPS_THE_USER = lazy(
    r"^(?:(?:so|and|also|honestly|tbh|plus|but|generally|personally)[,\s]+)*"
    rf"{_HELPFUL_FORMAT}\s*[.!]*$",
    re.I,
)


#: How an answer is opened or closed, as a request to stop says it ("stop ending every answer
#: with …", "don't start your replies with …"): the verb in its base form.
_ENDS = {
    "ending": "end",
    "end": "end",
    "finishing": "end",
    "finish": "end",
    "closing": "end",
    "close": "end",
    "starting": "start",
    "start": "start",
    "opening": "start",
    "open": "start",
    "beginning": "start",
    "begin": "start",
}


#: What follows "with" when the thing itself was a quote the clause stage took out.
_NO_THING = lazy(r"^(?:or|and|anything|something|stuff|that|this|it|things)\b", re.I)


def _answers_framed(f: Filling) -> bool:
    """ "Stop ending every answer with a question" → "Never end answers with a question"."""
    what = third_person(f.groups["v"].strip().strip("'\"‘’“”").rstrip(".!"))
    if not what or len(what.split()) > 10 or _NO_THING.match(what):
        return False  # "… with 'Great question!' or anything like it": the quote was the thing
    f.values["line"] = f"Never {_ENDS[f.groups['e'].lower()]} answers with {what}"
    return True


def _helps(f: Filling) -> bool:
    """ "Bullet points help me a lot": the format, as the line of the rule."""
    f.values["line"] = f"Answer in {f.groups['fmt'].lower()}"
    return True


def _verbless(f: Filling) -> bool:
    """The line of a request said with no verb, when a marker makes it one ("please", "pls",
    "always", "from now on" …): "short answers" alone may describe one answer."""
    g = f.groups
    if not (g.get("pre") or "").strip() and not (g.get("post") or "").strip():
        return False
    spelling = (g.get("sp") or g.get("sp2") or "").lower()
    if g.get("len") or g.get("len2"):
        f.values["line"] = "Keep answers short"
    elif g.get("fmt"):
        f.values["line"] = f"Answer in {g['fmt'].lower()}"
    elif spelling:
        f.values["line"] = f"Use {_SPELLING.get(spelling, spelling.capitalize())} spelling"
    elif g.get("unit"):
        f.values["line"] = f"Use {g['unit'].lower()} units"
    elif g.get("iso"):
        f.values["line"] = "Dates as YYYY-MM-DD"
    return bool(f.values.get("line"))


_TITLE = r"(?-i:Dr|Prof|Mr|Mrs|Ms|Mx|Doctor|Professor)"
#: The title and the surname after it, as the message says them.
_TITLED = lazy(
    rf"\b(?:call|address) me (?:as )?(?P<t>{_TITLE})(?P<p>\.?) (?P<s>(?-i:[A-Z])[\w'’-]+)"
    r"(?=\s*(?:[,.;!]|$)|\s+(?:please|pls|not|from now on|always|in|when)\b)",
    re.I,
)

#: A date format as people type it ("DD.MM.YYYY", "yyyy-mm-dd", "dd/mm").
_DATE_FORMAT = r"(?:dd|mm|yyyy|yy|d|m)(?:[./-](?:dd|mm|yyyy|yy|d|m)){1,2}|iso(?: 8601)?(?: format)?"
#: A time zone said by its region ("New Zealand", "Pacific", "NZ"; a place the gazetteer knows).
_ZONE = r"(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+)?"
_ZONE_NAMES = {"nz": "New Zealand", "uk": "UK", "us": "US"}
_ZONES = word_set("pacific eastern central mountain atlantic gmt utc cet est pst ist jst aest")


def _a_zone(f: Filling) -> bool:
    """The zone is a region the gazetteer knows or a zone's own name ("Pacific", "GMT"), its short
    form written out ("NZ" → "New Zealand")."""
    value = f.values["v"]
    f.values["v"] = _ZONE_NAMES.get(value.lower(), value)
    return value.lower() in _ZONES or value.lower() in _ZONE_NAMES or is_place(value)


#: Languages code is written in, as named in a request ("TS", "typescript", "C#").
_CODE_LANGUAGE = (
    r"typescript|ts|javascript|js|python|rust|go|golang|java|kotlin|swift|c#|c\+\+|ruby|php|"
    r"scala|elixir|haskell|dart|lua|julia|bash|powershell|sql"
)
_CODE_NAMES = {
    "ts": "TypeScript",
    "typescript": "TypeScript",
    "js": "JavaScript",
    "javascript": "JavaScript",
    "golang": "Go",
    "c#": "C#",
    "c++": "C++",
    "php": "PHP",
    "sql": "SQL",
}

_NO_TITLE = r"(?!(?:dr|mr|mrs|ms|mx|prof|doctor|professor|sir|dame|madam)\b)"

RULES = [
    # rules for the agent
    # (these before the free "Always …" rule, which gives nothing once one of them read the clause)
    # "always use metric for me kilos kilometres celsius all that"
    rule(
        r"^(?:please |pls )?(?:always )?use (?P<v>metric|imperial)(?: units)? (?:for|with) me\b",
        "Use {v} units",
        finish=lambda f: bool(f.values.update(v=f.values["v"].lower()) or True),
    ),
    # "keep the tone casual", "use a friendly tone with me"
    rule(
        rf"{TO_AGENT}(?:keep (?:the |your |a )?tone (?:(?:nice and|more|very) )?(?P<v>{_TONES})|"
        rf"(?:use|keep|take) an? (?:(?:more|very) )?(?P<w>{_TONES}) tone)"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:please|pls|with me|in your (?:answers|replies))\b)",
        "Be {v}",
        finish=lambda f: bool(
            f.values.update(v=(f.groups.get("v") or f.groups.get("w") or "").lower())
            or f.values["v"]
        ),
    ),
    # "Always finish with a one-line summary", "end every answer with a short tl;dr" ("always end
    # with a summary" stays the free rule it was, which "stop ending with …" retires)
    rule(
        rf"{TO_AGENT}(?:(?:finish|close|wrap up) (?:every |each |all |your )?(?:answers? |replies "
        r"|reply |responses? )?|end (?:every |each |all |your )?(?:answers? |replies |reply "
        r"|responses? ))with (?:a |an )?(?P<v>(?:one-line |one line |short |brief |quick )?"
        r"(?:summary|tl;?dr|recap|takeaway))(?=\s*(?:[,.;!]|$)|\s+(?:please|pls|always)\b)",
        "End answers with a {v}",
    ),
    # "pls keep it short, 150 words max": "keep it short" alone may be about one answer (the hand
    # corpus's "Please keep it short."), a limit beside it makes it the rule
    rule(
        rf"{TO_AGENT}keep it (?:short|brief|concise)\b",
        "Keep answers short",
        finish=lambda f: _a_limit_said(f),
    ),
    # "Currency in rand please", "prices in pesos pls"
    rule(
        r"^(?:please[,\s]+)?(?:always[,\s]+)?(?:give |show |quote |list |display |put |write "
        r")?(?:me )?(?:the |all )?(?:currency|prices|amounts|money|costs)(?: in| as) "
        r"(?P<v>[a-z]+(?: (?!please|pls|not|instead)[a-z]+)?)(?=\s*(?:[,.;!]|$)|\s+(?:please|not|"
        r"instead)\b)",
        "Prices in {v}",
    ),
    # a title is no name ("address me as Dr. Okafor" is left to a model, never "Goes by Dr")
    rule(
        rf"{TO_AGENT}(?:call|address) me (?:as )?{_NO_TITLE}{NAME}",
        "Call the user {v}",
        {"v": is_name},
    ),
    rule(
        rf"{TO_AGENT}(?:call|address) me (?:as )?{_NO_TITLE}{NAME}", "Goes by {v}", {"v": is_name}
    ),
    rule(
        rf"{TO_AGENT}(?:reply|respond|answer|talk|speak|write)(?: to me| me| back)?(?: only| "
        r"always)? in "
        r"(?P<v>[A-Z][a-z]+)\b",
        "Reply in {v}",
        finish=a_language_reply,  # "reply in arabic": typed without its capital
    ),
    # "Medium length please, a few paragraphs maximum": a middle length, with its limit said (a
    # limit alone, "a few paragraphs max", may be one answer's)
    rule(
        r"\bmedium(?:[- ]length| sized?)?(?: (?:answers|replies|responses))?(?: please| pls)?"
        r"(?:,\s*|\s+)(?:(?:about|around|like|just) )?(?P<v>a few|a couple of|two or three|2-3|"
        r"2 or 3|three or four|3-4) paragraphs(?: max(?:imum)?| at most| tops)?(?=\s*(?:[,.;!]|$))",
        "Keep answers to {v} paragraphs",
        change=True,
    ),
    # "English please from now on", "in english going forward": a language said alone as the one
    # for every reply from now on (never "English please" for one answer, "from now on I'll speak
    # English")
    rule(
        r"^(?:(?:ok|okay|so|and|then|but|actually|nvm)[,!.]?\s+)*(?:(?:reply|answer|write) )?"
        r"(?:in )?(?P<v>[A-Za-z]+)(?: (?:please|pls|plz))?,? (?:from now on|going forward|from "
        r"here on(?: out)?)(?: (?:please|pls|plz))?(?=\s*(?:[,.;!]|$))",
        "Reply in {v}",
        change=True,
        finish=a_language_reply,
    ),
    # "switch back to English please", "go back to replying in English": the reply language changed
    rule(
        r"^(?:please |can you |could you |pls |let's |lets |ok,? |okay,? )?(?:switch|go|change|"
        r"get) back "
        r"to (?:replying |answering |writing )?(?:in )?(?P<v>[A-Z][a-z]+)\b(?=\s*(?:[,.;!?]|$)|"
        r"\s+(?:please|"
        r"pls|again|from now on|for (?:answers|replies|responses|your answers))\b)",
        "Reply in {v}",
        change=True,
        finish=a_language_reply,
    ),
    rule(
        r"\b(?:keep|make) (?:your |the )?(?:answers|replies|responses) (?:short|brief|concise)"
        r"|^(?:please )?(?:always )?be (?:more )?(?:brief|concise)\b"
        r"|^(?:please )?(?:always )?(?:answer|reply|respond) (?:more )?(?:briefly|concisely)\b"
        r"|\bi (?:prefer|like|want) (?:short|brief|concise) "
        r"(?:answers|replies)"
        r"|^(?:short|shorter|brief|briefer|concise) (?:answers|replies|responses)(?:,)? "
        r"(?:please|pls|plz)\b"
        r"|^(?:short|brief|concise) (?:answers|replies|responses) only\b"
        r"|\bi(?:'d| would) (?:really |much )?(?:prefer|like) (?:short|shorter|brief|concise) "
        r"(?:answers|replies|responses)\b",
        "Keep answers short",
        finish=with_number,
    ),
    rule(
        rf"{TO_AGENT}keep (?:it|them|answers|your answers|replies|your replies|responses) (?:under|"
        r"below|to|within) "
        r"(?P<v>\d+ (?:sentences|words|lines|paragraphs|bullet points))\b",
        "Keep answers under {v}",
    ),
    # "keep answers to max 5 bullets": the limit said before its number, bullets for bullet points
    rule(
        rf"{TO_AGENT}keep (?:it|them|answers|your answers|replies|your replies|responses) (?:to|"
        r"at|within) (?:a )?(?:max(?:imum)?(?: of)?|at most) (?P<n>\d+) (?P<u>sentences|words|"
        r"lines|paragraphs|bullet points|bullets)(?=\s*(?:[,.;!]|$)|\s+(?:please|pls|per)\b)",
        "Keep answers under {v}",
        finish=_a_max_limit,
    ),
    rule(
        r"^(?:please[,\s]+)?(?:answer|reply|respond) (?:in|with|using) no more than (?P<v>\d+ "
        r"(?:sentences|words|lines))\b",
        "Keep answers under {v}",
        negative=True,
    ),
    rule(
        rf"{TO_AGENT}(?:answer|reply|respond|write)(?: to me)? (?:in|with|using) (?P<v>bullet "
        r"points|bullets|"
        r"numbered lists|short paragraphs|plain text|plain prose|tables)\b",
        "Answer in {v}",
    ),
    # "just write normal paragraphs from now on", "plain paragraphs work better": a format changed
    rule(
        rf"(?:{TO_AGENT}|,\s*(?:just |please )?)(?:write|use|give me|stick to|go with|answer in|"
        r"reply in) "
        r"(?:normal |plain |regular "
        r"|full )?(?P<v>paragraphs)\b(?! for\b| when\b| if\b)|^(?:no bullet points|no "
        r"bullets)\W+(?:just |use )?"
        r"(?:normal |plain |regular )?(?P<w>paragraphs)\b|^(?:normal |plain |regular "
        r")(?P<x>paragraphs)"
        r"(?: work better| are better| please| instead)\b",
        "Answer in paragraphs",
        None,
        "correction",
        change=True,
    ),
    # "use bullet points", "could you use numbered lists?": the format, said as the thing used
    rule(
        rf"{TO_AGENT}use (?P<v>bullet points|numbered lists|short paragraphs|plain text)"
        r"(?=\s*(?:[,.;!?]|$)|\s+(?:please|pls|always|from now on|in (?:your|the|all) (?:answers|"
        r"replies|responses))\b)",
        "Answer in {v}",
    ),
    # "always give me answers in bullet points"
    rule(
        rf"{TO_AGENT}(?:give me|write|format|put) (?:your |the |all )?(?:answers|replies|"
        r"responses) (?:in|as|with) "
        r"(?P<v>bullet points|bullets|numbered lists|tables)\b",
        "Answer in {v}",
    ),
    rule(
        rf"{TO_AGENT}(?:show|give|put) (?:me )?(?:the )?code first\b",
        "Give the code first, then the explanation",
    ),
    rule(
        r"^(?:please[,\s]+)?use (?P<v>metric units|imperial units|british spelling|american "
        r"spelling|australian spelling|canadian spelling|uk english|us english|"
        r"celsius|fahrenheit|24-hour time|12-hour time|iso dates)\b",
        "Use {v}",
    ),
    # a convention said bare, with "only", "please" or "always": "metric units only pls", "please
    # use metric", "celsius please" ("Always use metric units" stays the rule it says)
    rule(
        rf"^(?:(?:please|pls)[,\s]+)?(?:use )?(?P<v>{_CONVENTION})"
        # … with its examples after it: "british spelling pls (colour, optimise etc)"
        r"(?: only| always| from now on)?(?:,?\s*(?:please|pls|thanks))?(?:\s*\([^()]{1,60}\))?"
        r"\s*[.!]*$",
        "Use {v}",
        finish=a_convention,
    ),
    # two conventions said bare: "Always metric and Celsius", "metric and 24-hour time please"
    *rules_of(
        (
            # the courtesy may come last ("Metric and Celsius please."): it is the request's
            rf"^(?:(?:always|please|pls)[,\s]+)*(?:use )?(?P<v>{_CONVENTION}) and (?:use )?"
            rf"(?:{_CONVENTION})(?:\s+(?:please|pls|only|always)\b|(?=\s*(?:[,.;!]|$)))",
            rf"^(?:(?:always|please|pls)[,\s]+)*(?:use )?(?:{_CONVENTION}) and (?:use )?"
            rf"(?P<v>{_CONVENTION})(?:\s+(?:please|pls|only|always)\b|(?=\s*(?:[,.;!]|$)))",
        ),
        "Use {v}",
        finish=a_convention,
    ),
    # "actually make that Australian English": the spelling said anew, as a correction
    rule(
        # (the clause may reach the rules with "make that" read off as the correction's cue)
        r"(?:^|\bmake (?:that|it) )(?P<v>(?:british|american|australian|canadian) (?:english|"
        r"spelling))(?=\s*(?:[,.;!—–]|$))",
        "Use {v}",
        None,
        "correction",
        change=True,
        finish=a_convention_anew,
    ),
    # "switch to american spelling pls": the convention changed (it replaces the one of its kind)
    rule(
        r"^(?:please[,\s]+)?(?:switch|change|go|move) (?:back )?to (?P<v>metric units|imperial "
        r"units|"
        r"british spelling|american spelling|australian spelling|canadian spelling|uk english|"
        r"us english|celsius|fahrenheit|24-hour time|12-hour time|iso dates)\b",
        "Use {v}",
        None,
        "correction",
        change=True,
    ),
    rule(
        r"\b(?:give|write) (?:me )?(?:more )?detailed (?:answers|replies)"
        r"|\bi (?:prefer|like|want|love) (?:long|longer|detailed|in-depth) (?:answers|replies|"
        r"explanations|responses)"
        # "I'd rather have detailed answers now": the length rule reversed
        r"|\bi(?:'d| would) (?:much |really )?(?:rather|prefer|like) (?:have |get |you gave me "
        r"|you wrote )?(?:long|longer|detailed|more detailed|in-depth|fuller) (?:answers|replies|"
        r"explanations|responses)\b",
        "Give detailed answers",
    ),
    # a length rule loosened: "you can go longer now", "longer answers are fine again" (the old
    # rule leaves, archived with these words; "… are fine for code" narrows it: ``changes``)
    change(
        r"\b(?:you can|you may|feel free to|it's (?:fine|ok|okay) to|go ahead and) (?:go|write|"
        r"make (?:them|it|answers|your answers)|be|get) (?:a bit |a little |much )?(?:longer|more "
        r"detailed|into more detail)(?: again| now| from now on| after all)?(?=\s*(?:[,.;!]|$))"
        r"|\b(?:longer|long|detailed) (?:answers|replies|responses) (?:are|is) (?:fine|ok|okay|"
        r"allowed) (?:again|now|after all)(?=\s*(?:[,.;!]|$))",
        "Gone: length",
        finish=said,
    ),
    # a request said with no verb, its marker before or after it: "pls short answers", "bullet
    # points pls", "UK spelling pls, not American", "metric please", "ISO dates (YYYY-MM-DD)
    # everywhere" ("Short answers." alone may describe the last one: no marker, no rule)
    rule(
        rf"^(?P<pre>(?:(?:please|pls|plz|always|only|and|also|just|so)[,\s]+)*)(?:{_VERBLESS})"
        r"(?: \([^)]{2,20}\))?"
        r"(?P<post>(?:[,\s]+(?:please|pls|plz|from now on|going forward|always|only|every time|"
        r"everywhere|thanks|thank you|whenever (?:you )?can|if you can|if possible|for everything|"
        r"in (?:your|all) (?:answers|replies)))*)"
        r"(?:,\s*not (?:in )?[a-z]+(?: ones)?)?\s*[.!]*$",
        "{line}",
        finish=lambda f: _verbless(f),
    ),
    # how answers open or close, asked to stop: "Stop ending every answer with a question", "please
    # don't start your replies with 'Great question!'" (not "… every email", "stop ending the
    # meeting with …")
    rule(
        r"^(?:(?:please|pls|and|also|oh and)[,\s]+)*(?:can you |could you )?"
        r"(?:stop|quit|don't|do not|no more) (?P<e>ending|starting|opening|closing|finishing|"
        r"beginning|end|start|open|close|finish|begin) "
        r"(?:every|each|all|all of|your|every single|all your) (?:(?:single|one of your|of your) )?"
        r"(?:answers?|repl(?:y|ies)|responses?|messages?) with "
        r"(?P<v>'[^']{1,40}'|\"[^\"]{1,40}\"|‘[^’]{1,40}’|“[^”]{1,40}”|[^.;!?,'\"‘“]{2,80}?)"
        r"(?:,? (?:please|pls|thanks))?\s*[.!]*$",
        "{line}",
        negative=True,
        finish=_answers_framed,
    ),
    # a format said as what helps the user read the answers, the clause nothing else: "Bullet
    # points help me a lot", "so tables work better for me" (not "… help me at work", "her bullet
    # points help", "would tables help?")
    rule(
        HELPS_THE_USER.pattern,
        "{line}",
        finish=_helps,
    ),
    rule(
        r"^(?:(?:please|from now on|going forward|in (?:the )?future|and|also|so)[,\s]+)*"
        r"(?:you should |you must |make sure to |remember to )?(?P<k>always|never) "
        r"(?P<v>.{3,120}?)\s*[.!]?$",
        "{K} {v3}",
        negative=True,
        finish=an_instruction,
    ),
    rule(
        r"^(?:(?:please|from now on|going forward|and|also)[,\s]+)*(?:don't|do not) ever "
        r"(?P<v>.{3,120}?)\s*[.!]?$",
        "Never {v3}",
        negative=True,
        finish=an_instruction,
    ),
    rule(
        r"^(?:please[,\s]+|can (?:you|u) (?:please |pls )?)?(?:stop (?P<g>using|adding|putting|"
        r"puting|writing|including)|(?:don't|do not) "
        r"(?P<b>use|add|put|write|include)) (?:any )?(?P<v>emojis?|emoticons|exclamation marks|"
        r"bullet points|bullets|numbered lists|tables|jargon|markdown tables|headings|filler|"
        r"small talk|disclaimers|caveats|"
        r"warnings)\b[^.!?]*[.!]?$",
        "Never {verb} {v}",
        negative=True,
        finish=stop_doing,
    ),
    rule(
        r"^(?:from now on|going forward|in (?:the )?future)[,\s]+(?:please )?(?P<v>(?!i\b|we\b|"
        r"my\b|the\b|it\b)"
        r"[a-z]+ .{3,120}?)\s*[.!]?$",
        "Always {v3}",
        finish=an_instruction,
    ),
    # "Max 150 words per answer", "Five sentences max.", "no more than 3 sentences"
    rule(
        rf"^(?:max(?:imum)?|at most|no more than|not more than|under|up to) {_COUNT} {_UNIT}(?: "
        r"(?:per|in|for) (?:an? )?"
        r"(?:answer|reply|response|message))?\b",
        "Keep answers under {v}",
        finish=at_most,
    ),
    rule(
        rf"^{_COUNT} {_UNIT} (?:max|maximum|tops|at most)\b",
        "Keep answers under {v}",
        finish=at_most,
    ),
    # "No emojis. Ever.", "no bullet points unless i ask for them", "pls no emojis"
    rule(
        rf"^(?:please[,\s]+)?no (?:more )?(?P<v>{_BANNED})(?:[,\s]+(?:please|ever|"
        r"thanks))*\s*[.!]*$"
        rf"|^(?:please|pls)[,\s]+no (?:more )?(?P<x>{_BANNED})(?=\s*[,;]\s*(?:just |please |pls )?"
        r"(?:write|use|give|answer|reply|keep|stick)\b)"
        rf"|^(?:please[,\s]+)?no (?:more )?(?P<w>{_BANNED}) (?:in|for) (?:your |the |my )?"
        r"(?:answers|replies|responses|messages)\b",
        "Never use {v}",
        negative=True,
        finish=lambda f: _banned(f),
    ),
    # "Be blunt with me", "Please be more direct"
    rule(
        r"^(?:please[,\s]+)?(?:just |always )?be (?:more |very |really |totally |brutally "
        rf")?(?P<v>{_TONES})"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:with me|in your (?:answers|replies|feedback)|with (?:your |the "
        r")?feedback|with (?:my|your) (?:feedback|critique|review))\b)",
        "Be {v}",
    ),
    # "Give me the answer first, then explain", "lead with the summary"
    rule(
        rf"{TO_AGENT}(?:show|give|put|lead with|start with|open with) (?:me )?(?:the "
        r")?(?P<v>answer|short answer|"
        r"summary|conclusion|bottom line|tl;?dr|result|recommendation)(?: first)?\b",
        "Give the {v} first",
    ),
    # "spanish replies only", "Answers in French only"
    rule(
        r"^(?P<v>[A-Za-z]+) (?:replies|answers|responses) only\b|^(?:replies|answers|responses) in "
        r"(?P<w>[A-Za-z]+) only\b",
        "Reply in {v}",
        finish=lambda f: _reply_language(f),
    ),
    # "Please use metric units and 24-hour time": the second unit too
    rule(
        r"^(?:please[,\s]+)?use (?:metric units|imperial units|british spelling|american spelling|"
        r"uk english|"
        r"us english|celsius|fahrenheit|24-hour time|iso dates) and (?P<v>metric units|imperial "
        r"units|celsius|"
        r"fahrenheit|24-hour time|iso dates)\b",
        "Use {v}",
    ),
    # "explain things simple, im not a tech person", "please explain it like I'm five"
    rule(
        rf"{TO_AGENT}explain(?: (?:things|stuff|it|everything))? (?:simply|simple|in simple "
        r"(?:terms|words|language|english)|in plain (?:english|language|terms|words)|"
        r"like i'?m (?:five|5)|"
        r"like i am (?:five|10|ten|5)|without (?:the )?jargon)\b",
        "Explain things simply",
    ),
    # "Call me Dr. Okafor please": a title with a surname is how to address the user (the
    # sentence may have been cut after "Dr.": the surname is read in the message)
    rule(
        rf"{TO_AGENT}(?:call|address) me (?:as )?(?P<v>{_TITLE})\b",
        "Call the user {v}",
        finish=lambda f: _a_surname(f),
    ),
    # what not to recommend: "dont recommend horror movies", "please no horror recommendations",
    # "don't recommend them" after the dislike it points back to
    rule(
        rf"{TO_AGENT}(?:don't|do not|never) (?:ever )?recommend (?P<v>(?!(?:them|those|it|any|"
        r"anything|that|this|me)\b)[a-z][a-z -]{2,40}?)(?=\s*(?:[.;!]|$)|\s+(?:to me|please|pls|"
        r"ever|again)\b)",
        "Never recommend {v}",
        negative=True,
    ),
    rule(
        r"^(?:please |pls )?no (?P<v>(?!(?:more|other|further|new|long|links?)\b)[a-z]+(?: "
        r"[a-z]+)?) (?:recommendations|suggestions|recs)\b",
        "Never recommend {v}",
        negative=True,
    ),
    rule(
        r"^(?:i )?(?:really |just )?(?:(?:don't|do not) (?:really )?like|hate|can't stand|can't "
        r"handle|(?:am|'m) not a (?:big )?fan of) (?P<v>(?:[a-z-]+ ){0,2}(?:films|movies|books|"
        r"novels|shows|series|podcasts|games))(?: at all| much)?,\s*(?:so |and )?(?:please |pls "
        r")?(?:(?:don't|do not|never) (?:ever )?(?:recommend|suggest) (?:them|those|any)|(?:leave|"
        r"keep) (?:them|those) out when you (?:recommend|suggest))\b",
        "Never recommend {v}",
        negative=True,
    ),
    # a date format: "Dates as DD.MM.YYYY please", "write dates as YYYY-MM-DD", "dd/mm/yyyy dates"
    rule(
        r"(?:^|\band )(?:please )?(?:(?:always )?(?:write|use|give|format|put) (?:the |all |my )?)?"
        rf"dates (?:as|like|in) (?P<v>{_DATE_FORMAT})(?![\w/-])(?!\.\w)"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:please|pls|thanks|only|always|from now on)\b)"
        rf"|^(?:please |pls )?(?:always )?use (?:[a-z0-9 -]{{2,20}} and )?(?P<w>{_DATE_FORMAT}) "
        r"dates\b",
        "Dates as {v}",
        finish=lambda f: _date_format(f),
    ),
    rule(
        r"^(?:please |pls )?(?:always )?use (?:the )?(?:24h|24 ?hour|24-hour)(?: time| clock)\b",
        "Use 24-hour time",
    ),
    # "use metric always, no miles or pounds", "Please give me everything in metric"
    rule(
        r"^(?:please |pls )?(?:always )?use (?P<v>metric|imperial)(?: units)? (?:always|only)\b"
        rf"|{TO_AGENT}(?:give me |put |write )?(?:everything|all measurements|measurements|all "
        r"units|units) in (?P<w>metric|imperial)\b",
        "Use {v} units",
        finish=lambda f: bool(f.values.setdefault("v", (f.groups.get("w") or "").lower())),
    ),
    # a language for code: "use typescript for code examples, not plain js", "Code samples in TS"
    rule(
        rf"{TO_AGENT}(?:use|write|give me|show me|give) (?P<v>{_CODE_LANGUAGE}) for (?:all |the |"
        r"your )?(?:code|code examples|code samples|examples|snippets)\b"
        rf"|{TO_AGENT}(?:give|write|show)(?: me)? (?:all |the |your )?(?:code|code examples|code "
        rf"samples|examples|snippets) in (?P<w>{_CODE_LANGUAGE})(?![\w+#])"
        rf"|^(?:code|code examples|code samples|examples|snippets) in (?P<x>{_CODE_LANGUAGE})"
        r"(?![\w+#])",
        "Code examples in {v}",
        finish=lambda f: _code_language(f),
    ),
    # "skip the emojis", "if you could avoid jargon, that would help"
    rule(
        rf"{TO_AGENT}(?:skip|avoid|drop|ditch|cut out|leave out) (?:the |all |any |all the )?"
        rf"(?P<v>{_BANNED})(?=\s*(?:[,.;!?]|$)|\s+(?:please|pls|in (?:your|the|all) (?:answers|"
        r"replies|responses)|from now on|always|thanks)\b)",
        "Never use {v}",
        negative=True,
        finish=lambda f: _banned(f),
    ),
    # "give me metric units", "it'd be great if you could always give me metric"
    rule(
        rf"{TO_AGENT}give me (?P<v>metric|imperial)(?: units| measurements)?"
        r"(?=\s*(?:[,.;!?]|$)|\s+(?:please|pls|always|only|from now on|thanks)\b)",
        "Use {v} units",
        finish=lambda f: bool(f.values.update(v=f.values["v"].lower()) or True),
    ),
    # "Assume New Zealand time", "please default to NZ time for anything time-related": the time
    # zone times are given in
    rule(
        rf"{TO_AGENT}(?:assume|default to|use|go by) (?P<v>{_ZONE}) time"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:please|pls|for|when|whenever|always|from now on|unless)\b)",
        "Assume {v} time",
        finish=_a_zone,
    ),
    # "Please leave the emojis out of your replies"
    rule(
        rf"{TO_AGENT}(?:leave|keep) (?:the |all )?(?P<v>{_BANNED}) out\b",
        "Never use {v}",
        negative=True,
        finish=lambda f: _banned(f),
    ),
    # "Shorter, well-structured answers really help me"
    rule(
        r"\b(?:short|shorter|brief|concise)(?:,? [\w-]+)? (?:answers|replies|responses) (?:really "
        r")?help me\b",
        "Keep answers short",
    ),
]

#: A rule for the agent with its reason after it: "No emojis please, I copy your answers into
#: work documents", "no markdown tables, they render badly in my terminal". The reason is a
#: statement of the user's or about the thing banned (its subject opens it); a fact in it is read
#: by its own kind.
_REASON_AHEAD = (
    r"(?=\s*[,;]\s*(?:i|i'm|im|i've|ive|it|its|it's|they|they're|theyre|that's|thats|my|we|"
    r"we're)\b[^,;]{2,160}$)"
)


def _with_reason(r: Rule) -> Rule | None:
    """The twin of a rule that ends its clause (``$``): the same rule, ending where a reason
    begins; None for a rule that reads on to the clause's end anyway or takes free text."""
    if "$" not in r.source or r.template.startswith(("{K}", "Always", "Never {v3}")):
        return None
    return replace(r, source=re.sub(r"(?<!\\)\$", lambda _: _REASON_AHEAD, r.source))


RULES += [twin for twin in map(_with_reason, RULES) if twin is not None]

CANON = [
    (r"^Call the user (.+)$", SOUL, "call"),
    (r"^Keep answers (?:under|to) (.+)$", SOUL, "length"),
    (
        r"^Answer in (bullet points|bullets|numbered lists|short paragraphs|paragraphs|plain text|"
        r"plain prose|tables)$",
        SOUL,
        "format",
    ),
    (r"^(Give the code first, then the explanation)$", SOUL, None),
    # one convention of each kind: a new one replaces the old when said as a change
    (r"^Use (?:metric|imperial) (units)$", SOUL, "use:{1}"),
    (r"^Use (?:british|american|australian|canadian) (spelling)$", SOUL, "use:{1}"),
    (r"^Use (?:uk|us) (english)$", SOUL, "use:spelling"),
    (r"^Use (?:celsius|fahrenheit)$", SOUL, "use:temperature"),
    (r"^Use (?:24|12)-hour (time)$", SOUL, "use:{1}"),
    (r"^Use (iso dates)$", SOUL, None),
    (r"^Reply in (.+)$", SOUL, "language"),
    (r"^(Keep answers short|Give detailed answers)$", SOUL, "length"),
    (r"^(?:Always|Never) (.+)$", SOUL, None),
    (r"^(End answers with an? .+)$", SOUL, None),
    (rf"^Be ({_TONES})$", SOUL, None),
    (r"^Give the (.+) first$", SOUL, None),
    (r"^(?:Give )?[Pp]rices in (.+)$", SOUL, "currency"),
    (r"^(Explain things simply)$", SOUL, None),
    (r"^Dates as (.+)$", SOUL, "dates"),
    (r"^Code examples in (.+)$", SOUL, "code language"),
    (r"^Assume (.+) time$", SOUL, "time zone"),
]


_NOT_SURNAMES = word_set("right wrong later soon now please boss sir whatever nobody")


def _a_surname(f: Filling) -> bool:
    """ "Dr. Okafor", not "Dr. Later" or "Mr. Right": the word after the title is no common one."""
    m = _TITLED.search(f.message or f.match.string)
    surname = m.group("s").lower() if m else ""
    if m is None or surname in NOT_NAMES | _NOT_SURNAMES or noun(surname):
        return False
    f.values["v"] = f"{m.group('t')}{m.group('p')} {m.group('s')}"
    return True


def _date_format(f: Filling) -> bool:
    """ "DD.MM.YYYY" as typed, in capitals ("dd/mm/yyyy" → "DD/MM/YYYY"); ISO as "YYYY-MM-DD"."""
    value = (f.groups.get("v") or f.groups.get("w") or "").strip()
    f.values["v"] = "YYYY-MM-DD" if value.lower().startswith("iso") else value.upper()
    return bool(value)


def _code_language(f: Filling) -> bool:
    """ "TS" → "TypeScript", "python" → "Python"."""
    value = (f.groups.get("v") or f.groups.get("w") or f.groups.get("x") or "").lower()
    f.values["v"] = _CODE_NAMES.get(value, value.capitalize())
    return bool(value)


#: A cue that a rule said is a change of an earlier one.
_CHANGED = lazy(
    r"\b(?:actually|changed my mind|change of plan|scratch that|on second thought|instead|now|"
    r"any ?more|no longer|from now on|after all)\b",
    re.I,
)


#: The formats an answer is given in, which a ban said as a change reverses.
_FORMATS = lazy(r"^(?:bullet points|bullets|numbered lists|tables)$")


def _banned(f: Filling) -> bool:
    value = (f.groups.get("v") or f.groups.get("w") or f.groups.get("x") or "").lower()
    f.values["v"] = value
    if _FORMATS.match(value) and _CHANGED.search(f.message or f.match.string):
        # "changed my mind, no bullet points": the format line it reverses is replaced
        f.template += f" (replaces: Answer in {value})"
    return bool(value)


def _reply_language(f: Filling) -> bool:
    f.groups["v"] = f.groups.get("v") or f.groups.get("w") or ""
    return a_language_reply(f)


#: A reply language with the condition it holds under, said as one sentence: "Reply in Romanian
#: unless I write to you in English", "reply in Greek when I write in Greek, and in English
#: otherwise", "if I write in Spanish reply in Spanish, otherwise English". The clause stage reads
#: no condition (``unless``, ``if`` make no statement) and the reply rule alone would drop it
#: (``extract._narrowed``): this reads the whole sentence and keeps the condition in the line.
_REPLY = r"(?:reply|answer|respond|write back|write)(?: to me| me)?"
_WRITES = r"(?:i|we) (?:write|message|text|speak|talk|type)(?: to you| you)?"
_CONDITIONAL_REPLY = (
    # a preamble before a colon ("Something I'd really appreciate: …")
    r"^(?:[^:]{3,60}:\s+)?(?:(?:please|pls|always|and|also|so|could you|can you|would you|"
    r"will you)[,\s]+)*"
    rf"(?:{_REPLY} in (?P<x>[a-z]+) (?:(?P<c>unless) {_WRITES} in (?P<y>[a-z]+)"
    rf"|(?P<w>when|whenever|if) {_WRITES} in (?P<x2>[a-z]+),? (?:and |but )?(?:in )?(?P<o>[a-z]+)"
    r" otherwise|(?P<w2>when|whenever|if) "
    rf"{_WRITES} in (?P<x3>[a-z]+),? (?:and |but )?otherwise (?:in )?(?P<o2>[a-z]+))"
    rf"|(?P<w3>if|when|whenever) {_WRITES} in (?P<x4>[a-z]+),? (?:please |pls )?{_REPLY} in "
    r"(?P<x5>[a-z]+),? (?:and |but )?otherwise (?:in )?(?P<o3>[a-z]+)(?: is (?:fine|ok|okay))?)"
    r"(?:,?\s*(?:please|pls|thanks|thank you))?\s*[.!?]*$"
)
#: The words without which no sentence is a conditioned reply (a cheap test before the pattern).
CONDITIONED = lazy(r"\b(?:unless|otherwise)\b", re.I)


@cache
def _conditional_reply_rx() -> re.Pattern[str]:
    """Compiled on first use: importing the engine compiles no rule (``gate``)."""
    return re.compile(_CONDITIONAL_REPLY, re.I)


def conditional_reply(sentence: str) -> str | None:
    """The reply language said with its condition, as a SOUL line ("Reply in Romanian unless the
    user writes in English"), or None when the sentence is none or a name in it is no language."""
    m = _conditional_reply_rx().match(sentence.strip())
    if m is None:
        return None
    g = {k: (v or "").capitalize() for k, v in m.groupdict().items()}
    if m.group("c"):
        langs, line = (g["x"], g["y"]), f"Reply in {g['x']} unless the user writes in {g['y']}"
    else:
        x = g["x"] or g["x5"]
        said = g["x2"] or g["x3"] or g["x4"]
        other = g["o"] or g["o2"] or g["o3"]
        word = (m.group("w") or m.group("w2") or m.group("w3") or "").lower()
        if x != said:
            return None  # "reply in Greek when I write in Spanish": no rule the user would give
        langs = (x, other)
        line = f"Reply in {x} {word} the user writes in {x}, otherwise in {other}"
    return line if all(is_language(lang) for lang in langs) and langs[0] != langs[1] else None
