"""What the user likes, dislikes, prefers and names as a favourite.

A like must name a lasting thing out of its conversation (``liked``): not a pronoun, not one
occasion ("the feast"), not a scene ("sinking into magical worlds"), nothing unpleasant ("I just
love waiting in traffic" reads as sarcasm). A coordination is read by ``coordination``. A
possessive presupposes what it names: "I wanted to blend my love for dance and fashion" is a like
of each, even under a plan.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import common_given_name, known_place, noun
from .core import USER, Filling, rule, word_set
from .lexicon import INSTRUMENTS, MEDIA, QUALIFIERS, SPORTS
from .phrases import STOP, VAL
from .values import (
    is_about,
    is_activity,
    is_any_thing,
    is_pastime,
    is_pastime_verb,
    is_specific,
    is_thing,
    is_thing_or_title,
    is_title,
)

#: Colours: "Blue is my favourite colour" (said with the word: "Red's my fave" is as often wine).
COLOURS = (
    "red|orange|yellow|green|blue|purple|violet|pink|black|white|grey|gray|brown|teal|turquoise|"
    "navy|"
    "lavender|gold|silver"
)


#: Genres of films, books and games: "action and sci-fi movies" is two likes, "black and white
#: movies" none.
GENRES = (
    "action|adventure|animated|anime|comedy|crime|detective|documentary|drama|dystopian|fantasy|"
    "historical|horror|"
    "indie|mystery|romance|romantic|sci-fi|science fiction|spy|superhero|thriller|war|western|"
    "zombie"
)


#: Verbs that lose a love rather than have it ("I lost my love for cooking"), or seek it again
#: ("find", "get back", "rediscover", "regain").
_LOSING = (
    r"(?:lost|lose|loses|losing|gave|give|gives|giving|quit|quitting|killed|kill|ruined|ruin|"
    r"abandoned|outgrew|"
    r"doubt|doubted|question|questioned|hide|hid|find|finding|found|get|getting|got|"
    r"re(?:discover|gain|kindle|ignite|capture|new|vive|store|cover|claim|turn|connect)[a-z]*)\b"
)


#: The value is no half of "X and Y" ("education" of "improving education and infrastructure"); a
#: determiner after "and" opens a noun phrase of its own ("my love for reading and the joy of …").
_WHOLE = (
    r"(?!\s+and\s+(?!(?:i|we|it|that|how|what|why|when|the|a|an|my|our|your|his|her|"
    r"their)\b)[a-z]+(?<!ing)\b)"
)


#: The value ends its clause: not "creating a safe" of "creating a safe, inviting place".
_CLAUSE_END = (
    r"(?=\s*(?:[.!;]|$)|\s+and\s|\s+but\s|\s+so\s+(?!much|many|far|long|well|good|often|hard|"
    r"bad)\b|"
    r",\s*(?:and|but|so|which|it|that|this|they|i)\b)"
)


#: A like's value ends its clause, or a comma opens the next item of a list of activities ("camping,
#: hiking") or a new clause; never mid-phrase ("creating a safe, inviting place": a comma between
#: two adjectives).
_LIKE_END = (
    r"(?=\s*(?:[.!;?)(]|$)|\s+[-–—]+\s|\s+(?:and|but|since|because|so|now|anymore|any more|these "
    r"days|nowadays|with|"
    r"where|which|who|though|although|instead)\b|\s*[:]|,\s*(?:[a-z]+ing(?=\s*(?:,|and\b|or\b|"
    r"[.!;]|$))|"
    r"(?:and|but|so|which|it|it's|that|this|they|i|i'm|you|we|he|she|especially|like|plus|too|"
    r"though|as|every|each|"
    r"mostly|usually|"
    r"because|cause|'cause|since|even|when|if|or|not|personally|honestly|for sure|of course|to)\b))"
)


def _sport_or_pastime(value: str) -> bool:
    """A sport the engine knows, or a pastime said as one word in -ing ("cricket", "climbing")."""
    words = value.lower().split()
    return bool(words) and (
        bool(re.fullmatch(SPORTS, value.lower()))
        or (len(words) <= 2 and words[-1].endswith("ing") and is_pastime(value))
    )


def is_title_or_name(value: str) -> bool:
    """A team or a club by its name: capitalised, no person, no place alone ("I support Barcelona"
    names a club, but "I support Sarah" a person)."""
    words = value.split()
    return bool(words) and not common_given_name(words[0]) and all(w[:1].isupper() for w in words)


def as_gerund(f: Filling) -> bool:
    """ "I like to collect jerseys" → "Likes collecting jerseys"."""
    f.values["g"] = gerund(f.groups["g"].lower())
    return True


def capital_name(f: Filling) -> bool:
    """A name typed in lower case, written with its capitals ("radiohead" → "Radiohead"); a word
    of the engine's own lists of things (a genre, a colour) is no name."""
    value = f.values.get("v", "")
    if value.lower() in _NOT_NAMES:
        return False
    f.values["v"] = " ".join(w[:1].upper() + w[1:] for w in value.split())
    return True


_NOT_NAMES = frozenset("this that it mine music rock jazz pop metal football food it's".split())


#: An object said before "I like": a short noun phrase that opens its clause or follows ", and".
_FRONTED = (
    r"(?:^|,\s*(?:and |but )?)(?:the |those |these )?(?P<v>[a-z][\w'-]*(?: [a-z][\w'-]*){0,3})"
)
#: The verb ends the clause, but for how much ("very much", "at all").
_FRONTED_END = r"(?: (?:very much|so much|a lot|the most|at all|much|either|too|as well))?\s*[.!]*$"
#: Words that make a fronted phrase no object: a relative or a quantifier ("what I like", "all
#: the people I love"), a pronoun, a verb of the clause before.
_NOT_FRONTED = word_set(
    "what which that who whom whose everything anything something nothing all everyone "
    "someone anyone people person one ones it this i you he she we they me him her us them is "
    "are was were be been do does did have has had if when because so as than"
)


def is_fronted(value: str) -> bool:
    """A fronted object is a thing, with no word of a clause or a relative in it."""
    words = value.lower().split()
    return not set(words) & _NOT_FRONTED and is_thing(value)


#: A pet the message says the user just got or has ("we got a cat and …").
_PET_GOT = lazy(
    r"\b(?:i|we)(?:'ve| have)? (?:just |finally |recently )?(?:got|gotten|adopted|have|brought "
    r"home|took in|rescued) (?:a|an|our|my|another) (?:new |little "
    r"|rescue )?(?P<k>cat|dog|rabbit|hamster|parrot|horse|ferret)\b",
    re.I,
)


def the_pet_kind(f: Filling) -> bool:
    """ "I'm obsessed with her" after "we got a cat": a like of cats (it ends ``Dislikes cats``)."""
    m = _PET_GOT.search(f.message or f.match.string)
    if not m:
        return False
    f.values["v"] = m.group("k").lower() + "s"
    return True


def _own_favourite(value: str) -> bool:
    """A favourite thing named, not a pronoun, a vague word or someone else's ("my grandma's
    feijoada" is the user's favourite, but its line would read "my")."""
    first = value.split(" ", 1)[0].lower() if value.strip() else ""
    return (
        is_thing(value)
        and is_specific(value)
        and first not in ("my", "our", "his", "her", "their", "your")
        and value.lower() not in _NOT_NAMES
    )


#: A disliked thing, ending also where a run-on clause says why ("olives they taste awful",
#: "coriander tastes like soap to me").
_RUN_ON_VAL = (
    r"(?P<v>[^,.;:!?()]{1,60}?)(?=\s+(?:they|it|it's|its|that's|tastes?|smells?|looks?|sounds?|"
    rf"makes? me|gives? me)\b|{STOP[3:-1]})"
)
#: Kinds of favourite whose value is a title or a name, written with its capitals ("Spirited
#: Away", "Crowded House").
_TITLED = frozenset(
    "book novel movie film show series song band singer artist author writer team album "
    "game".split()
)
#: A favourite's value, up to where it ends or a phrase of degree after it ("masala dosa no
#: contest", "Radiohead by a mile").
_FAV_VAL = (
    r"(?P<v>[^,.;:!?()]{1,60}?)(?=\s+(?:no contest|hands down|by far|by a mile|for sure|of all "
    rf"time)\b|{STOP[3:-1]})"
)


def _title_capitals(f: Filling) -> bool:
    """A title typed in lower case is written with its capitals; a food keeps its case."""
    if f.groups.get("k", "").lower() in _TITLED:
        return capital_name(f)
    return True


def _a_kind_of_favourite(f: Filling) -> bool:
    """The kind of a favourite is a noun ("food", "drink", "band"), never a time ("fav part is")."""
    return f.groups.get("k", "").lower() not in ("part", "time", "thing", "way", "day", "moment")


RULES = [
    # a feeling about a pet just named: "we got a cat and I'm completely obsessed with her"
    rule(
        r"\bi(?:'m| am) (?:(?:completely|totally|so|absolutely|utterly|already|just) )*"
        r"(?:obsessed with|in love with|smitten with|besotted with|crazy about) "
        r"(?:her|him|it|them)\b",
        "Likes {v}",
        finish=the_pet_kind,
    ),
    # "Got into running this year", "I've really gotten into climbing": an activity taken up (a
    # gerund only: "got into Oxford", "got into trouble" are none)
    rule(
        r"(?:^|\bi(?:'ve| have)? )(?:finally |really |recently |also )?(?:got|gotten) (?:really |"
        r"properly |"
        r"seriously |big )?into (?P<v>[a-z]{3,}ing)(?=\s*(?:[,.;!]|$)|\s+(?:this year|lately|"
        r"recently|"
        r"these days|again|last year|over the)\b)",
        "Likes {v}",
    ),
    rule(
        rf"\bi (?:don't|do not) (?P<k>like) {VAL}\s+any ?more\b",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi no longer (?P<k>like) {VAL}",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    # an object said first, the feeling last: "fish I love very much", "the new remix things I
    # don't like at all" (the clause ends with the verb and its degree)
    rule(
        rf"{_FRONTED} i (?:really |just |also )?(?:don't|do not) (?:like|enjoy|care for)"
        rf"{_FRONTED_END}",
        "Dislikes {v}",
        {"v": is_fronted},
        negative=True,
    ),
    rule(
        rf"{_FRONTED} i (?:really |just |also |truly )?(?:like|love|enjoy|adore){_FRONTED_END}",
        "Likes {v}",
        {"v": is_fronted},
    ),
    rule(
        rf"{_FRONTED} i (?:really |just )?(?:hate|can't stand|cannot stand|detest){_FRONTED_END}",
        "Dislikes {v}",
        {"v": is_fronted},
        negative=True,
    ),
    # likes, dislikes, preferences
    rule(
        rf"\bi (?:really |also |just )?(?:don't|do not) (?:like|enjoy) {VAL}",
        "Dislikes {v}",
        {"v": is_any_thing},
        negative=True,
    ),
    rule(
        rf"\bi(?:'m| am) not (?:a )?(?:(?:big |huge )?fan of|into) {VAL}",
        "Dislikes {v}",
        {"v": is_any_thing},
        negative=True,
    ),
    rule(
        r"\bi (?:really |also |just )?(?:hate|dislike|detest|can't stand|cannot stand) "
        rf"{_RUN_ON_VAL}",
        "Dislikes {v}",
        {"v": is_any_thing},
        negative=True,
    ),
    rule(
        r"\bi (?:really |also |absolutely |do |truly |just )?(?:like|love|enjoy|adore) "
        rf"{VAL}{_LIKE_END}",
        "Likes {v}",
        {"v": is_thing},
    ),
    rule(
        r"\bi(?:'m| am) (?:(?:a |an )?(?:big |huge |massive )?fan of|really into|(?:much |far "
        rf")?more into|mostly into|into|all about|(?:really )?drawn to) {VAL}"
        rf"{_LIKE_END}",
        "Likes {v}",
        {"v": is_thing},
    ),
    rule(
        rf"\bi(?:'ve| have) (?:always )?been (?:really )?into {VAL}{_LIKE_END}",
        "Likes {v}",
        {"v": is_thing},
    ),
    rule(
        rf"\bi(?:'ve| have| will|'ll) always (?:liked|loved|enjoyed|love|enjoy) {VAL}{_LIKE_END}",
        "Likes {v}",
        {"v": is_thing},
    ),
    # "I love action and sci-fi movies": two genres of one kind of work, a like each ("black and
    # white movies", "rock and roll songs" name no two genres)
    rule(
        rf"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?P<v>{GENRES}) and "
        rf"(?:{GENRES}) "
        rf"(?P<k>{MEDIA})\b",
        "Likes {v} {k}",
        each=True,
    ),  # read whole: the pair is the rule's own
    rule(
        rf"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?:{GENRES}) and "
        rf"(?P<v>{GENRES}) "
        rf"(?P<k>{MEDIA})\b",
        "Likes {v} {k}",
        each=True,
    ),  # read whole: the pair is the rule's own
    # "I love non-fiction books about personal development and mindset": the whole topic, to the
    # sentence's end
    rule(
        r"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?P<v>[a-z][\w "
        r"-]{3,80}?)"
        r"(?=\s*(?:[.!;]|$))",
        "Likes {v}",
        {"v": is_about},
    ),
    # "I love Afrobeats, Burna Boy is my favourite": the liked thing, then its favourite named in a
    # clause of its own (the favourite's kind is unsaid: no line of it)
    rule(
        r"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?P<v>[a-z][\w "
        r"-]{1,60}?),\s*(?:and\s+)?(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,3}(?:'s| is) "
        r"(?:my|the) (?:all[- ]time )?(?:fav|fave|favorite|favourite)\b",
        "Likes {v}",
        {"v": is_thing},
    ),
    # a list of pastimes, every item a gerund of at most two words: "I love cooking, baking, and
    # gardening"
    rule(
        r"\bi (?:really |also |absolutely )?(?:like|love|enjoy|adore) (?P<v>[a-z]+ing(?: "
        r"[a-z]+)?(?:,\s*[a-z]+ing"
        r"(?: [a-z]+)?)*,?\s+and\s+[a-z]+ing(?: [a-z]+)?)(?=\s*(?:[.!;]|$))",
        "Likes {v}",
        {"v": is_activity},
        each=True,
    ),
    rule(
        r"\bi(?:'m| am) (?:totally |so |really |a bit |kind of |absolutely )?(?:obsessed with|"
        r"crazy about|nuts about|wild about|hooked on) "
        rf"{VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_pastime},
    ),
    # "I'm mad about cricket": a sport or a pastime in -ing ("mad about the delay", "… about
    # politics" is anger as often)
    rule(
        rf"\bi(?:'m| am) (?:absolutely |totally |just )?mad about {VAL}{_CLAUSE_END}",
        "Likes {v}",
        {"v": _sport_or_pastime},
    ),
    rule(
        r"^(?P<v>[a-z]+ing(?: [a-z]+){0,2}) (?:is|has always been|has been) (?:my way|how i(?:'ve "
        r"always)?) "
        r"(?:to )?(?:relax|unwind|de-?stress|recharge)\b",
        "Likes {v}",
        {"v": is_activity},
    ),
    # "Playing video games or watching movies helps me unwind": each pastime
    rule(
        r"^(?P<v>[a-z]+ing(?: [\w'-]+){0,3}(?:(?:,| or| and| or just| and just) [a-z]+ing(?: "
        r"[\w'-]+){0,3}){0,2}) "
        r"(?:really |always |just )?helps? me (?:to )?(?:unwind|relax|de-?stress|recharge|chill(?: "
        r"out)?)\b",
        "Likes {v}",
        {"v": is_activity},
        each=True,
    ),
    # "I'm a huge Lakers fan": the team, sport or band before "fan" (one or two words)
    rule(
        r"\bi(?:'m| am) (?:a )?(?:really )?(?:big|huge|massive|die-?hard|lifelong|total|avid) "
        r"(?!(?:movie|film|book|comic|podcast) fan\b)(?P<v>[\w'-]+(?: [\w'-]+)?) fan\b",
        "Likes {v}",
        {"v": is_pastime},
    ),
    # said without "I'm": "big fan of studio ghibli", "big all blacks fan", "boca juniors fan here"
    rule(
        r"^(?:an? )?(?:really )?(?:big|huge|massive|die-?hard|lifelong|avid|long-?time) fan of "
        rf"{VAL}{_LIKE_END}",
        "Likes {v}",
        {"v": is_thing},
    ),
    rule(
        r"^(?:an? )?(?:really )?(?:big|huge|massive|die-?hard|lifelong|total|avid) "
        r"(?!(?:movie|film|book|comic|podcast) fan\b)(?P<v>[\w'-]+(?: [\w'-]+)?) fan\b",
        "Likes {v}",
        {"v": is_pastime},
    ),
    rule(r"^(?P<v>[\w'-]+(?: [\w'-]+)?) fan here\b", "Likes {v}", {"v": is_pastime}),
    # "Manchester United fan", "Boca Juniors fan since i was a kid": a note, the name capitalised
    # (a word alone no noun: "Ceiling fan." names no club)
    rule(
        r"^(?P<v>(?-i:[A-Z])[\w'’.-]+(?: (?-i:[A-Z])[\w'’.-]+){0,2}) fan"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:since|for|through|all my life)\b)",
        "Likes {v}",
        {"v": is_pastime},
        finish=lambda f: " " in f.groups["v"] or not noun(f.groups["v"].lower()),
    ),
    # "I'm a total movie fan": a kind of work, liked in the plural
    rule(
        r"\bi(?:'m| am) (?:a )?(?:really )?(?:big|huge|massive|die-?hard|lifelong|total|avid) "
        r"(?P<v>movie|film|book|comic|podcast) fan\b",
        "Likes {v}s",
    ),
    # A passion is a standing like; a value cut at "and" before a bare noun ("improving education
    # and infrastructure") is half of one object, so it gives nothing.
    rule(
        r"\bi(?:'m| am) (?:really |so |very |truly |also |genuinely )?passionate about "
        rf"{VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_pastime},
    ),
    # only as an object ("following my passion for dance"): "My love for dance grew" puts a verb in
    # the value
    rule(
        r"\b(?:follow(?:ing)?|pursu(?:e|ing)|about|of|sharing|share) my (?:passion|love) (?:for|"
        rf"of) {VAL}{_WHOLE}"
        rf"{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_pastime},
    ),
    # ... and as the object of what the user does ("I wanted to blend my love for dance and
    # fashion", "it lets me combine my love for reading and …", "because of my degree and my passion
    # for …"), unless the verb loses it ("I lost my love for X", "gave up my passion for X")
    rule(
        rf"(?:\b(?:i|we|to|me)\s+(?:(?!{_LOSING})[a-z]+\s+){{1,2}}|\b(?!{_LOSING})[a-z]+ (?:and|"
        r"with|through|into) )my "
        rf"(?:passion|love) (?:for|of) {VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_pastime},
        presupposed=True,
    ),
    # "I've always had a love for horses": a love one has, not had once ("I had a love for X as a
    # kid")
    rule(
        r"\bi(?:'ve| have) (?:always |long )?(?:had |got )?a (?:real |deep |great |huge |big |"
        r"special |strong |"
        rf"soft spot and a )?(?:love|passion) for {VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_pastime},
    ),
    # "Sharing my love for dairy-free desserts has been fun"; "we share a love for reading" (the
    # user and the other, so the user too)
    rule(
        r"^(?:sharing )?my (?:passion|love) (?:for|of) (?P<v>[^,.;:!?()]{1,60}?)(?= (?:has|have) "
        r"been\b| is no secret\b)",
        "Likes {v}",
        {"v": is_pastime},
    ),
    rule(
        r"\b(?:we|i) (?:both )?share (?:a|the|our) (?:passion|love) (?:for|of) "
        rf"{VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_pastime},
    ),
    # "we" is the user with family or friends: only an activity, said of no one occasion; the
    # family or friends it is done with may follow ("we love having movie marathons with our
    # friends")
    rule(
        rf"^we (?:really |all |both |just |also )?(?:love|enjoy|adore) {VAL}{_WHOLE}"
        r"(?: with (?:our|my) (?:friends|family|families|kids|children|parents|"
        r"dogs?)(?=\s*(?:[.!;]|$)))?"
        rf"{_CLAUSE_END}",
        "Likes {v}",
        {"v": is_activity},
    ),
    # "We love Home Alone" (a quoted title, its marks removed): a name of two words or more, no
    # person ("We love Grandma Rose")
    rule(
        r"^we (?:really |all |both |just |also )?(?:love|adore) (?P<v>(?-i:[A-Z])[\w'’-]*(?: (?:of|"
        r"the|and|"
        r"(?-i:[A-Z])[\w'’-]*)){1,4})(?=\s*(?:[.!;,]|$)|\s+[-–—]|\s+too\b)",
        "Likes {v}",
        {"v": is_title},
    ),
    # "Improving education is particularly interesting to me": an activity, no one occasion
    rule(
        r"^(?P<v>[a-z]+ing(?: [\w'-]+){0,5}) (?:is|are) (?:particularly |really |very |so |super |"
        r"always )?"
        r"(?:interesting|fascinating) to me\b",
        "Likes {v}",
        {"v": is_thing},
    ),
    # "Here's a pic of my favorite, Lord of the Rings!": a title after the comma, no person
    rule(
        r"\bmy (?:all-time )?favou?rite, (?P<v>(?-i:[A-Z])[\w'’-]*(?: (?:of|the|and|"
        r"(?-i:[A-Z])[\w'’-]*)){0,5})"
        r"(?=\s*(?:[.!,;]|$))",
        "Likes {v}",
        {"v": is_title},
    ),
    # "I like to collect jerseys": the pastime, as a gerund; a verb of saying or thinking is none
    rule(
        r"\bi (?:really |also |just |do )?(?:like|love|enjoy) to (?P<g>[a-z]{2,12}) "
        r"(?P<v>[a-z][\w' -]{1,40}?)"
        r"(?=\s*(?:[.!;]|$))",
        "Likes {g} {v}",
        {"g": is_pastime_verb, "v": is_thing},
        finish=as_gerund,
    ),
    rule(
        r"\bi (?:really |also |just |do )?(?:like|love|enjoy) to (?P<g>[a-z]{2,12})(?=\s*(?:[.!;]|"
        r"$))",
        "Likes {g}",
        {"g": is_pastime_verb},
        finish=as_gerund,
    ),
    rule(
        r"^(?P<v>[a-z]+ing) makes me (?:so |really |very |super )?happy\b",
        "Likes {v}",
        {"v": is_activity},
    ),
    rule(
        r"^(?P<v>[a-z][\w' -]{1,50}?)(?: is| are|'s| has always been| have always been) (?:really |"
        r"definitely |"
        r"totally |also |always |pretty much |just |mostly )?"
        r"(?:my (?:passion|"
        r"jam|thing|favou?rite (?:hobby|hobbies|pastime|thing to do|activity)|main hobb(?:y|ies)|"
        r"hobby|hobbies|"
        r"go-to for (?:stress relief|relaxing|relaxation|unwinding)|stress relief|stress-buster|"
        r"therapy|reset|happy place|"
        r"favou?rite way to (?:relax|unwind|de-?stress))|"
        r"one of my (?:faves|favou?rites|favou?rite (?:things|hobbies|pastimes|activities)|"
        r"passions|hobbies)|"
        r"my top pick|a favou?rite of mine|a passion of mine|at the top of my list)\b",
        "Likes {v}",
        {"v": is_thing_or_title},
        each=True,
    ),
    # A preference compares, so an unpleasant thing is sincere here ("I prefer early meetings"), not
    # sarcasm.
    rule(
        rf"\bi(?: really| also| generally| usually)? prefer {VAL}",
        "Prefers {v}",
        {"v": is_any_thing},
    ),
    # "rather" takes a verb: only "rather have/drink/eat/use X" names a thing ("I'd rather die"
    # names none)
    rule(
        r"\bi(?: really| also| generally| usually)?(?: would rather|'d rather) (?:have|drink|eat|"
        rf"use|get) {VAL}",
        "Prefers {v}",
        {"v": is_thing},
    ),
    # "my favourite band of all time is crowded house", "my fav food is masala dosa no contest": a
    # favourite with its degree (said without "my" it is left: "fave food is sushi" then "changed
    # my mind, it's ramen now" would leave the old line, as that change is not read)
    rule(
        r"\bmy (?:all[- ]time )?"
        r"(?:fav|fave|favorite|favourite) "
        rf"(?P<k>[a-z]+)(?: of all time| ever| in the world| by far)? is {_FAV_VAL}",
        "Favourite {k}: {v}",
        {"v": _own_favourite},
        finish=lambda f: _a_kind_of_favourite(f) and _title_capitals(f),
    ),
    rule(rf"\bmy favou?rite (?P<k>[a-z]+) is {VAL}", "Favourite {k}: {v}", {"v": is_thing}),
    # "my fav food is nasi lemak": a favourite typed short (said with "my": a subjectless "fave
    # food is sushi" is left, as a later change of it may go unread)
    rule(
        rf"\bmy (?:all[- ]time )?(?:fav|fave|favorite|favourite) (?P<k>[a-z]+) is {VAL}",
        "Favourite {k}: {v}",
        {"v": is_thing},
        finish=_a_kind_of_favourite,
    ),
    # "not a jazz person", "I'm not a coffee person": a dislike
    rule(
        r"^(?:i'm |i am )?(?:really |just |definitely |honestly )?not (?:really )?(?:much of )?an? "
        r"(?P<v>(?!(?:morning|night|people|early|late|big|huge|phone|details?|fan|numbers)\b)"
        r"[a-z]+) person\b",
        "Dislikes {v}",
        negative=True,
    ),
    rule(
        rf"^(?P<v>{COLOURS})(?:'s| is) (?:definitely |always |still )?my (?:fave|favou?rite) "
        r"colou?r"
        r"(?=\s*(?:[,.!;]|$))",
        "Favourite colour: {v}",
    ),
    # "Harry Potter is my favorite book": a named work or team, the kind said; "Dancing is my
    # favourite" names none
    # "radiohead is my all time fav band": a name typed in lower case, the kind said after it
    rule(
        r"^(?P<v>[a-z][\w'’-]*(?: [a-z][\w'’-]*)?) (?:is|are) (?:definitely |probably |still )?my "
        r"(?:all[- ]time )?(?:favou?rite|fave?) (?P<k>band|singer|artist|author|writer|team|album|"
        r"game)(?=\s*(?:[,.;!]|$)|,? no contest\b)",
        "Favourite {k}: {v}",
        {"v": is_specific},
        finish=capital_name,
    ),
    # "khinkali is my favourite food", "spirited away is my all time fav film": a thing or a title
    # typed in lower case, the kind said after it (a title is written with its capitals)
    rule(
        r"^(?P<v>[a-z][\w'’-]*(?: [a-z][\w'’-]*){0,2}) (?:is|are) (?:definitely |probably |still )?"
        r"my (?:all[- ]time )?(?:favou?rite|fave?) (?P<k>food|dish|drink|snack|dessert|cuisine|"
        r"sport|fruit|book|novel|movie|film|show|series|song)"
        r"(?=\s*(?:[,.;!]|$)|,? (?:no contest|hands down|by far|of all time|ever)\b)",
        "Favourite {k}: {v}",
        {"v": _own_favourite},
        finish=_title_capitals,
    ),
    rule(
        r"(?:^|(?<=, ))(?P<v>(?-i:[A-Z])[\w'’-]*(?:\s(?:of|the|and|(?-i:[A-Z])[\w'’-]*)){0,4}) "
        r"(?:is|are) (?:definitely |probably |"
        r"still )?my (?:all[- ]time )?(?:favou?rite|fave?) (?P<k>book|novel|movie|film|show|series|"
        r"band|song|album|team|game|author|"
        r"writer|singer|artist|player|city|dish|food)\b",
        "Favourite {k}: {v}",
        {"v": is_specific},
    ),
    # "Not a morning person at all": a constraint writers list ("I'm a morning person" is left a
    # remark, as the hand corpus reads it)
    rule(
        r"^(?:i'm |i am )?(?:really |just |definitely )?not (?:really )?an? (?P<v>morning person|"
        r"night owl|early bird|early riser)\b",
        "Is not a {v}",
        negative=True,
    ),
    # "been an arsenal supporter since i was a kid", "I'm a lifelong Celtic supporter"
    rule(
        r"(?:\bi(?:'ve| have) been |\bi(?:'m| am) |^(?:been )?)(?:an? )?(?:lifelong |life-?long |"
        r"die-?hard |big |huge |loyal |proud )?(?P<v>[\w'-]+(?: [\w'-]+)?) supporter"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:since|all my life|for|through|here)\b)",
        "Likes {v}",  # as a fan is ("I'm a huge Lakers fan")
        {"v": is_pastime},
    ),
    # "I support Fenerbahce": a team
    rule(
        r"\bi (?:really |also )?support (?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,2})"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:so|and|but|since)\b)",
        "Supports {v}",
        {"v": is_title_or_name},
    ),
    rule(
        r"^(?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,2}) (?:is|has always been|has been) "
        r"my (?:team|club)\b",
        "Supports {v}",
        {"v": is_title_or_name},
    ),
]

CANON = [
    (r"^Favou?rite (\w+): (.+)$", USER, "favourite:{1}"),
    (r"^(?:Likes|Dislikes|Prefers|Supports) (.+)$", USER, None),
    (r"^Is (?:not )?an? (morning person|night owl|early bird|early riser)$", USER, "chronotype"),
]


#: Said after a like, these qualify the saying, not the thing ("I love traveling too").
_LIKE_TAIL = lazy(
    r"(?:^|\s+)(?:too|also|as well|a lot|so much|very much|the most|most of all|"
    r"more than anything|at all|"
    r"personally|for sure|honestly|though|in general|generally|"
    r"(?:even |all the |much |so much |way )?more(?: than ever| than before| now)?)$",
    re.I,
)


#: Words of degree or quantity: a like's object is never only these ("Likes very much").
_DEGREE = word_set(
    "very much so a lot lots loads tons really quite the most all at everything anything "
    "nothing something both either neither any some more less best least"
)


#: Object pronouns: a like of "them" names nothing out of its conversation ("I also like holding
#: them").
_PERSONAL = word_set("him her them us you me myself ourselves yourself themselves himself herself")


#: Besides those, what names nothing as a like's last word ("I like it", "I love those").
_OBJECT_PRONOUNS = word_set("it one ones those these this that stuff things yourselves itself")


#: Particles that end a phrasal verb cut from its object ("curling up [with a book]").
_PARTICLES = word_set("up out down off in on over around away back along through about into")


#: Gerunds that name no pastime without their object ("playing", "pushing").
_TRANSITIVE_GERUNDS = word_set(
    "playing pushing making taking trying putting keeping giving getting doing having watching "
    "using seeing "
    "learning helping building working creating sharing finding"
)


#: Particles that only make a phrasal verb ("hanging around"), never a place ("hiking in the
#: hills").
_ADVERB_PARTICLES = word_set("up out down off around away back along over")


#: Prepositions that tie a gerund to a scene ("sinking into magical worlds", "playing songs on the
#: piano").
_SCENE_PREPOSITIONS = word_set(
    "into onto on in at from about under over through across by to for of with"
)


def liked(text: str) -> str | None:
    """A "Likes …" line as a lasting fact, or None: the qualifier that ends it dropped ("too"), and
    a value that names no lasting thing out of its conversation refused (a pronoun, a cut phrasal
    verb, one occasion: "the feast", a scene: "sinking into different magical worlds"). Precision
    first: a refused like stays in history. A dislike, an allergy or a preference only loses its
    trailing qualifier; any other line is returned as it is."""
    for head in ("Dislikes ", "Allergic to ", "Prefers "):
        if text.startswith(head):
            value = _LIKE_TAIL.sub("", text.removeprefix(head).strip())
            return None if _no_object(value) else head + value
    head, _, value = text.partition(" ")
    if head != "Likes":
        return text
    value = _LIKE_TAIL.sub("", value.strip())
    lasting = None if _no_object(value) else _lasting(value)
    return f"{head} {lasting}" if lasting else None


def _no_object(value: str) -> bool:
    """The words after the verb are only how much, or how many, or a pronoun: no thing is named
    ("fish I love very much", "the remixes I don't like at all", "I like them all")."""
    words = [w.strip(".,!'\"") for w in value.lower().split()]
    return all(w in _DEGREE or w in _OBJECT_PRONOUNS or w in _PERSONAL for w in words)


def _lasting(value: str) -> str | None:
    """The liked value when it names a lasting thing, else None."""
    if re.match(r"having \w", value) and is_thing(value):
        value = value.removeprefix("having ")  # "having picnics": the picnics are the thing liked
    words = value.split()
    lower = [w.lower().strip(".,!'\"") for w in words]
    if _a_topic(value, lower):
        return value
    if not words or len(words) > 4 or _cut_or_personal(words, lower):
        return None
    if any(w[:1].isupper() for w in words[1:]):
        return value  # a title or a name ("Lord of the Rings", "watching LeBron")
    if re.fullmatch(r"\w+ing (?:in|to|at|on) (?:the )?(?:\w+ )?\w+", " ".join(lower)):
        return value  # "cycling to work", "hiking in the mountains": a pursuit with its scene
    return None if _one_scene(lower) else value


def _a_topic(value: str, lower: list[str]) -> bool:
    """ "books about personal development and mindset", "learning about different cultures": a
    topic or a pursuit of one, "different" no occasion."""
    return is_about(value) or (
        len(lower) in (3, 4)
        and lower[0] in ("learning", "reading")
        and lower[1] == "about"
        and lower[2:3] == ["different"]
        and is_thing(" ".join(lower[3:]))
    )


def _cut_or_personal(words: list[str], lower: list[str]) -> bool:
    """About someone, cut from its object, or one occasion's: "holding them", "curling up",
    "watching him play", "hanging around after class", "spending weekends", "a few recipes",
    "playing" alone, "I love Sarah"."""
    if lower[-1] in _OBJECT_PRONOUNS or lower[-1] in _PARTICLES or set(lower) & _PERSONAL:
        return True
    if lower[0].endswith("ing") and (
        len(lower) > 1 and lower[1] in _ADVERB_PARTICLES or lower[0] == "spending"
    ):
        return True
    if set(lower) & QUALIFIERS:
        return True
    if len(lower) == 1 and lower[0] in _TRANSITIVE_GERUNDS:
        return True  # "I enjoy playing and pushing myself": playing what? no pastime named
    return (
        len(words) == 1
        and words[0][:1].isupper()
        and common_given_name(words[0])
        and not known_place(words[0])
    )


def _one_scene(lower: list[str]) -> bool:
    """ "prepping the feast": one occasion ("playing the piano" is a pursuit); "sinking into magical
    worlds", "playing songs on the piano": a scene, not a pursuit."""
    if "the" in lower[1:]:
        the = lower.index("the", 1)
        if not re.fullmatch(f"(?:{INSTRUMENTS}|{SPORTS})", " ".join(lower[the + 1 :])):
            return True
    return lower[0].endswith("ing") and bool(set(lower[1:]) & _SCENE_PREPOSITIONS)


def gerund(verb: str) -> str:
    """The "-ing" form of a verb: "dance" → "dancing", "swim" → "swimming", "cook" → "cooking"."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if len(verb) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"
