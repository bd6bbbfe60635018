"""What the user does: instruments and sports played, practices, volunteering, memberships, a
business they run.

An instrument or a sport ends its noun phrase: "Guitar Hero" and "tennis elbow" are no pursuit
(the word after it is no noun of the lexicon). A pursuit started years ago counts unless the
sentence gives it up ("… but quit").
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from .core import USER, Filling, rule
from .lexicon import INSTRUMENTS, PEOPLE, SPORTS
from .values import clean, is_no_noun, is_np

#: An instrument, with its kind when said ("acoustic guitar", "grand piano"; not "air guitar").
_INSTRUMENT = (
    rf"(?:(?:acoustic|electric|classical|bass|lead|rhythm|grand|upright|jazz) )?(?:{INSTRUMENTS})"
)


#: The word after an instrument or a sport, checked to be no noun ("Guitar Hero", "tennis elbow").
_NP_END = r"\b(?:[ -](?P<n>[a-z][\w'’-]*))?"


#: Years ago, and nothing after it that ends the pursuit ("… but quit last year", "… then stopped").
_YEARS_AGO = (
    r"(?:about |around |over |some |almost |nearly |like )?(?:\d+ |a few |several |many |a couple "
    r"of |two |three |"
    r"four |five |six |seven |eight |nine |ten |\w+teen |twenty )?years ago\b"
    r"(?!.*\b(?:quit|stopped|gave up|give up|until|then|dropped|abandoned|but)\b)"
)


PRACTICES = (
    "yoga|pilates|kickboxing|boxing|karate|judo|taekwondo|jiu-jitsu|jiu jitsu|aikido|kung fu|"
    "crossfit|"
    "tai chi|capoeira|fencing|archery|aerial yoga|parkour|muay thai|triathlons?|marathons?"
)


GROUPS = (
    "brigade|club|team|choir|band|league|society|association|union|crew|orchestra|ensemble|troupe|"
    "squad|"
    "committee|council|board|guild|chapter"
)


VENTURES = (
    "store|shop|business|studio|bakery|restaurant|café|cafe|company|startup|podcast|blog|channel|"
    "clinic|"
    "practice|agency|gym|salon|bar|brewery|farm|food truck|boutique|nonprofit|charity|firm|"
    "workshop|pharmacy|consultancy|garage"
)


#: A business ends its phrase: "I started a business plan" runs none.
_VENTURE_END = (
    r"(?=\s+(?:and|but|in|with|called|named|last|this|that|on|for|from|which|where|since|a few|two|"
    r"three|"
    r"years?|months?|weeks?|not|so|because|near|downtown)\b|\s*[,.;:!?()\-–—]|\s*$)"
)


def with_article(f: Filling) -> bool:
    """Out of its conversation "the shelter" names no one shelter: "a homeless shelter"."""
    bare = re.sub(
        r"^(?:a|an|the|my|our|my local|our local)\s+",
        "",
        clean(f.groups["v"], False, strip=False),
        flags=re.I,
    )
    f.values["v"] = f"{'an' if bare[:1].lower() in 'aeiou' else 'a'} {bare}"
    return True


#: The name a venture is given after it: "… called Mensah & Co.", "…, Ferretería López,".
_VENTURE_NAME = lazy(
    r"(?:,| called| named) (?P<n>(?-i:[A-Z])[\w&'’.-]*(?: (?:&|(?-i:[A-Z])[\w&'’.-]*)){0,3})"
)


def a_venture(f: Filling) -> bool:
    """ "my own studio" → "a studio", with the article the noun takes; "I own …" is "Owns …"; a
    venture founded with its name is the name ("Founded Tidepool Analytics")."""
    verb = re.match(r"\bi ([\w-]+)", f.match.group(0), re.I)
    named = _VENTURE_NAME.match(f.match.string, f.match.end())
    if verb and verb.group(1).lower() in ("founded", "co-founded") and named:
        f.template = "Founded {v}"
        f.values["v"] = named.group("n").rstrip(".")
        return True
    if verb and verb.group(1).lower() == "own":
        f.template = "Owns {v}"
    value = re.sub(r"^(?:(?:my|our) )?own ", "a ", f.values["v"])
    f.values["v"] = re.sub(
        r"^an? (?=\w)", lambda a: "an " if value[a.end() :][:1] in "aeiou" else "a ", value
    )
    return True


RULES = [
    # activities, memberships, businesses
    # an instrument with its kind ("acoustic guitar"), ending its noun phrase: "Guitar Hero", "piano
    # bar gigs" name no instrument played (the word after it is no noun of the lexicon)
    rule(
        r"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently )?(?:play|playing) (?:the "
        r")?"
        rf"(?P<v>{_INSTRUMENT}){_NP_END}",
        "Plays the {v}",
        {"n": is_no_noun},
    ),
    rule(rf"\bplaying my (?P<v>{_INSTRUMENT}){_NP_END}", "Plays the {v}", {"n": is_no_noun}),
    rule(
        r"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently )?(?:play|playing) "
        rf"(?P<v>{SPORTS}){_NP_END}",
        "Plays {v}",
        {"n": is_no_noun},
    ),
    # a pursuit started years ago and not given up since: "I started playing acoustic guitar about
    # five years ago" (not "… a week ago", "… but quit")
    rule(
        rf"\bi (?:first )?started (?:playing|to play) (?:the )?(?P<v>{_INSTRUMENT}) {_YEARS_AGO}",
        "Plays the {v}",
    ),
    rule(rf"\bi (?:first )?started (?:playing|to play) (?P<v>{SPORTS}) {_YEARS_AGO}", "Plays {v}"),
    rule(
        r"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently )?(?:do|doing|practi[sc]e|"
        r"practi[sc]ing) "
        rf"(?P<v>{PRACTICES})\b",
        "Does {v}",
    ),
    rule(
        rf"\bi(?:'m| am)(?: (?!my\b|his\b|her\b|their\b|the\b|an?\b|our\b|your\b)[a-z]+){{0,3}}?,? "
        r"(?:just |also |"
        rf"currently |now )?learning (?:(?:how )?to play )?(?:the )?(?P<v>{INSTRUMENTS})\b",
        "Is learning the {v}",
    ),
    rule(
        r"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently |now |definitely "
        r")?(?:carrying on |continuing |"
        r"keeping up )?(?:volunteer|volunteering) (?:at|with|for) "
        r"(?P<v>(?:a|an|the|my local|our local) [a-z][a-z -]{2,40}?)(?=\s+(?:and|but|since|because|"
        r"so|on|every|"
        r"twice|once|for)\b|[,.;:!?()]|$)",
        "Volunteers at {v}",
        {"v": is_np},
        finish=with_article,
    ),
    # a participle after the user's own clause has the user for its subject: "I'm doing my part too,
    # volunteering at a homeless shelter" (not after someone named in that clause: "I'm proud of
    # you, volunteering at …")
    rule(
        rf"^i(?:'m| am)\b(?![^,]*\b(?:you|him|her|them|us|he|she|they|{'|'.join(sorted(PEOPLE))}|"
        r"friends?|kids?|children|(?-i:[A-Z])\w+)\b)[^,]{1,60},\s+volunteering (?:at|with|for) "
        r"(?P<v>(?:a|an|the|my local|our local) [a-z][a-z -]{2,40}?)(?=[,.;:!?()]|$)",
        "Volunteers at {v}",
        {"v": is_np},
        finish=with_article,
    ),
    rule(r"\bi (?:started|began) volunteering\b", "Volunteers"),
    rule(
        r"\bi(?:'ve| have)? (?:just |recently |also )?joined (?P<v>(?:a|an|the|our local|my "
        rf"local) [a-z][a-z -]{{0,40}}?"
        rf"(?:{GROUPS}))\b",
        "Is a member of {v}",
        {"v": is_np},
        change=True,
        finish=with_article,
    ),
    rule(
        r"\bi(?:'m| am) (?:now |also |still )?(?:a )?(?:part|member) of (?P<v>(?:a|an|the|our "
        r"local|my local) "
        rf"[a-z][a-z -]{{0,40}}?(?:{GROUPS}))\b",
        "Is a member of {v}",
        {"v": is_np},
        finish=with_article,
    ),
    rule(
        r"\bi (?:run|own|opened|started|launched|founded|co-founded)(?: up)? (?P<v>(?:a|an|my own) "
        r"(?:[\w-]+ "
        rf"){{0,3}}?"
        rf"(?:{VENTURES})){_VENTURE_END}",
        "Runs {v}",
        finish=a_venture,
    ),
    rule(
        r"\bi (?:love |enjoy |like )?running (?P<v>my own (?:[\w-]+ "
        rf"){{0,3}}?(?:{VENTURES})){_VENTURE_END}",
        "Runs {v}",
        finish=a_venture,
    ),
]

RULES += [
    # a collection: "I collect old Soviet stamps", "we collect vinyl"
    rule(
        r"\b(?:i|we) (?:also |still )?collect (?P<v>(?!(?:my|the|our|his|her|their|them|it|"
        r"a|an|some|kids|children)\b)[a-z][\w'’ -]{1,40}?(?:s|vinyl|art|lego|porcelain))"
        r"(?=\s*(?:[,.;:!?()]|$)|\s+(?:and|but|so|since|from|for)\b)",
        "Collects {v}",
    ),
]

CANON = [
    (r"^Collects (.+)$", USER, None),
    (r"^(?:Plays|Does|Volunteers at|Is a member of|Runs|Owns|Founded) (.+)$", USER, None),
    (r"^(Volunteers)$", USER, None),
]
