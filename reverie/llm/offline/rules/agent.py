"""Standing instructions addressed to the agent (SOUL.md): reply language, answer length and
format, what to call the user, "Always …" / "Never …".

A rule for the agent is *addressed to it*: an imperative that opens its sentence (after "please",
"from now on", "always" …) or a request ("I'd like you to …", "you can …"), never a description of
the user's life ("At home we speak Portuguese", "Never have I ever …") and never about one reply
("… in the summary below", "this time").
"""

from __future__ import annotations

import re

from .core import SOUL, Filling, rule, word_set
from .phrases import NAME
from .values import is_language, is_name

#: How a sentence addressed to the agent opens: an imperative (after "please", "from now on",
#: "always" …) or a request ("I'd like you to …", "you can …"). "At home we speak Portuguese" is no
#: rule for the agent.
TO_AGENT = (
    r"(?:^(?:(?:please|pls|kindly|just|and|also|so|always|only|from now on|going forward|"
    r"in (?:the )?future|feel free to)[,\s]+)*"
    r"|\byou (?:should |must |can |could |may |will |'ll )?(?:please )?(?:just )?(?:always |only )?"
    r"|\b(?:i(?:'d| would)? (?:like|want|need|prefer) you to|make sure (?:to|you)|remember to) "
    r"(?:always |only )?)"
)


ONE_OFF = re.compile(
    r"\b(?:this|that|these|those|for now|today|tonight|tomorrow|right now|here|yet|below|above|"
    r"next one)\b",
    re.I,
)


_GERUND = {
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
_AGENT_VERBS = word_set(
    "answer respond reply write use cite show ask apologise apologize include add explain give keep format "
    "mention quote link check confirm run test summarise summarize suggest recommend call address refer sign "
    "start end put say translate spell tell list number wrap comment commit push delete remove send mark label "
    "avoid default assume make greet double-check verify print output return lead open close reference note "
    "warn offer provide read search look review proofread copy paste edit rewrite shorten simplify"
)


def imperative(text: str) -> bool:
    """Free text addressed to the agent starts with a verb it can follow ("cite", "use"), not
    "been", "thought", and not a verb of advice between people ("quit", "give up")."""
    first = text.split(" ", 1)[0].lower().strip(",.!")
    if not re.fullmatch(r"[a-z-]+", first) or first in _NOT_A_RULE or first not in _AGENT_VERBS:
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
    """Free text after "always" / "never" is a rule only as an instruction the agent can follow, about
    no one reply: "always been like that", "always check the logs first when debugging this one" are
    none."""
    raw = f.groups.get("v", "").strip().rstrip(".!")
    return imperative(raw) and not ONE_OFF.search(raw)


def stop_doing(f: Filling) -> bool:
    """ "stop using emojis" → "Never use emojis"."""
    verb = (f.groups.get("g") or f.groups.get("b") or "use").lower()
    f.values["verb"] = _GERUND.get(verb, verb)
    f.values["v"] = f.groups["v"].lower()
    return True


RULES = [
    # rules for the agent
    rule(rf"{TO_AGENT}(?:call|address) me (?:as )?{NAME}", "Call the user {v}", {"v": is_name}),
    rule(rf"{TO_AGENT}(?:call|address) me (?:as )?{NAME}", "Goes by {v}", {"v": is_name}),
    rule(
        rf"{TO_AGENT}(?:reply|respond|answer|talk|speak|write)(?: to me| me| back)?(?: only| always)? in "
        r"(?P<v>[A-Z][a-z]+)\b",
        "Reply in {v}",
        {"v": is_language},
    ),
    rule(
        r"\b(?:keep|make) (?:your |the )?(?:answers|replies|responses) (?:short|brief|concise)"
        r"|^(?:please )?be (?:brief|concise)\b|\bi (?:prefer|like|want) (?:short|brief|concise) (?:answers|replies)",
        "Keep answers short",
    ),
    rule(
        rf"{TO_AGENT}keep (?:it|them|answers|your answers|replies|your replies|responses) (?:under|below|to|within) "
        r"(?P<v>\d+ (?:sentences|words|lines|paragraphs|bullet points))\b",
        "Keep answers under {v}",
    ),
    rule(
        r"^(?:please[,\s]+)?(?:answer|reply|respond) (?:in|with|using) no more than (?P<v>\d+ (?:sentences|words|lines))\b",
        "Keep answers under {v}",
        negative=True,
    ),
    rule(
        rf"{TO_AGENT}(?:answer|reply|respond|write)(?: to me)? (?:in|with|using) (?P<v>bullet points|bullets|"
        r"numbered lists|short paragraphs|plain text|plain prose|tables)\b",
        "Answer in {v}",
    ),
    rule(
        rf"{TO_AGENT}(?:show|give|put) (?:me )?(?:the )?code first\b",
        "Give the code first, then the explanation",
    ),
    rule(
        r"^(?:please[,\s]+)?use (?P<v>metric units|imperial units|british spelling|american spelling|uk english|us english|"
        r"celsius|fahrenheit|24-hour time|iso dates)\b",
        "Use {v}",
    ),
    rule(
        r"\b(?:give|write) (?:me )?(?:more )?detailed (?:answers|replies)"
        r"|\bi (?:prefer|like|want) (?:long|longer|detailed) (?:answers|replies)",
        "Give detailed answers",
    ),
    rule(
        r"^(?:(?:please|from now on|going forward|in (?:the )?future|and|also|so)[,\s]+)*"
        r"(?:you should |you must |make sure to |remember to )?(?P<k>always|never) (?P<v>.{3,120}?)\s*[.!]?$",
        "{K} {v3}",
        negative=True,
        finish=an_instruction,
    ),
    rule(
        r"^(?:(?:please|from now on|going forward|and|also)[,\s]+)*(?:don't|do not) ever (?P<v>.{3,120}?)\s*[.!]?$",
        "Never {v3}",
        negative=True,
        finish=an_instruction,
    ),
    rule(
        r"^(?:please[,\s]+)?(?:stop (?P<g>using|adding|putting|writing|including)|(?:don't|do not) "
        r"(?P<b>use|add|put|write|include)) (?P<v>emojis?|emoticons|exclamation marks|bullet points|jargon|"
        r"markdown tables|headings|filler|small talk)\b[^.!?]*[.!]?$",
        "Never {verb} {v}",
        negative=True,
        finish=stop_doing,
    ),
    rule(
        r"^(?:from now on|going forward|in (?:the )?future)[,\s]+(?:please )?(?P<v>(?!i\b|we\b|my\b|the\b|it\b)"
        r"[a-z]+ .{3,120}?)\s*[.!]?$",
        "Always {v3}",
        finish=an_instruction,
    ),
]

CANON = [
    (r"^Call the user (.+)$", SOUL, "call"),
    (r"^Keep answers under (.+)$", SOUL, "length"),
    (
        r"^Answer in (bullet points|bullets|numbered lists|short paragraphs|plain text|plain prose|tables)$",
        SOUL,
        "format",
    ),
    (r"^(Give the code first, then the explanation)$", SOUL, None),
    (
        r"^Use (metric units|imperial units|british spelling|american spelling|uk english|us english|celsius|"
        r"fahrenheit|24-hour time|iso dates)$",
        SOUL,
        None,
    ),
    (r"^Reply in (.+)$", SOUL, "language"),
    (r"^(Keep answers short|Give detailed answers)$", SOUL, "length"),
    (r"^(?:Always|Never) (.+)$", SOUL, None),
]
