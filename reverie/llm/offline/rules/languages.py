"""The languages the user speaks, was raised in, and is learning (lessons included).

A language is one ISO 639-1 names (``values.is_language``), written with its capital: "Portuguese",
never "Poetry". Every language of a list is a line ("I speak English, French and Portuguese").
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from .clauses import NEGATION
from .core import USER, Filling, rule
from .values import is_language

#: A language named after a cue of speaking, in any case ("fluent in afrikaans, english and zulu").
_LANG = r"(?P<v>[A-Za-z]+(?: [A-Z][a-z]+)?)"


def a_language(value: str) -> bool:
    """A language ISO 639-1 names, typed with or without its capital ("english", "Haitian
    Creole")."""
    value = value.strip()
    return (
        is_language(value[:1].upper() + value[1:])
        or is_language(value.title())
        or value.upper() in _SIGN_LANGUAGES
        or value.lower() == "auslan"
    )


def a_language_first(value: str) -> bool:
    """A list said of languages ("russian and decent english", "Arabic, French"): its first item is
    one (``each_language`` splits the rest)."""
    return a_language(value.split(",")[0].split(" and ")[0])


#: Sign languages by the letters people write them with (ISO 639-1 names none of them).
_SIGN_LANGUAGES = frozenset("ASL BSL LSF NZSL ISL KSL DGS LSE LIS LIBRAS".split())


def capitalised(f: Filling) -> bool:
    f.values["v"] = " ".join(
        w if w in ("and", "or") else w[:1].upper() + w[1:] for w in f.values["v"].split()
    )
    return True


def each_language(text: str) -> list[str]:
    """ "Speaks Afrikaans, English and Zulu" → one line per language, while each is one."""
    head, _, rest = text.partition(" ")
    if head != "Speaks":
        return [text]
    items = [i.strip() for i in _LIST_SPLIT.split(rest) if i.strip()]
    out = []
    for item in items:
        word = item[:1].upper() + item[1:]
        if not a_language(word):
            break
        out.append(f"Speaks {word}")
    return out or [text]


def learnt(f: Filling) -> bool:
    f.values["v"] = f.groups.get("v") or f.groups.get("w") or ""
    return a_language(f.values["v"]) and capitalised(f)


def spoken_where(f: Filling) -> bool:
    """ "Cebuano at home" → "Speaks Cebuano": where, or with whom, it is spoken is left out (a
    language spoken at home is spoken; writers name the place or not)."""
    f.values["v"] = f.values["v"][:1].upper() + f.values["v"][1:]
    return True


def spoken_some(f: Filling) -> bool:
    """ "my Portuguese is rusty" → "Speaks rusty Portuguese"; "ok" → "Speaks OK Portuguese"."""
    degree = f.groups.get("d", "").lower()
    f.values["d"] = {"ok": "OK", "okay": "OK", "ok-ish": "OK", "so-so": "some"}.get(degree, degree)
    return capitalised_v(f)


def capitalised_v(f: Filling) -> bool:
    f.values["v"] = f.values["v"][:1].upper() + f.values["v"][1:]
    return True


#: Where one item of a list of languages starts: the clause's start, after a comma, a colon, or
#: "but"/"and" ("Native Vietnamese, fluent English, Japanese intermediate").
_ITEM = r"(?:^|[,;:]\s*|\b(?:but|and|also)\s+)(?:(?:i'm|im|i am) (?:a |also )?)?"
#: Where it ends: the next item, or a reason or a remark after it.
_ITEM_END = r"(?=\s*(?:[,;.!?(]|$)|\s+(?:but|and|though|tbh|too|as well|now|since|from)\b)"
_L = r"[A-Za-z]+"


def _one_language(f: Filling) -> bool:
    """The one language the item names, in whichever group, capitalised."""
    value = next((f.groups[g] for g in ("v", "w", "x") if f.groups.get(g)), "")
    if not a_language(value):
        return False
    f.values["v"] = value[:1].upper() + value[1:]
    return True


#: A message listing the user's own languages.
_LANGUAGE_LIST = lazy(
    r"\b(?:native|fluent|first language|mother tongue|i speak|my languages?)\b", re.I
)


def _level_item(f: Filling) -> bool:
    f.values["d"] = (f.groups.get("d") or f.groups.get("d2") or "").lower()
    return _one_language(f)


RULES = [
    rule(
        r"(?:\bi(?:'m| am)|, and) (?:just |also |currently |now )?learning (?P<v>[A-Z][a-z]+)\b",
        "Is learning {v}",
        {"v": is_language},
    ),
    # "Learning German has been tough but worth it": the speaker's own experience of it, not "…
    # for him", "… a dream of mine"
    rule(
        r"^learning (?P<v>[A-Z][a-z]+) (?:has been|'s been) (?:really |so |pretty |quite "
        r")?(?:tough|hard|fun|great|"
        r"challenging|rewarding|difficult|amazing|slow|worth it)\b(?!.*\bfor\b)",
        "Is learning {v}",
        {"v": is_language},
    ),
    # lessons the user takes or keeps up with: "I'm taking German lessons", "I'll keep up with my
    # Spanish classes" (not "I quit my German lessons", "my son's French lessons")
    rule(
        r"\bi(?:'m| am|'ve been| have been|'ll| will|'ve| have)? (?:definitely |still |also |now |"
        r"currently |just |recently "
        r")?"
        r"(?:going to |gonna )?(?:keep(?:ing)? up with|keep(?:ing)? going with|continu(?:e|ing) "
        r"with|"
        r"carry(?:ing)? on with|tak(?:e|ing)|lov(?:e|ing)|enjoy(?:ing)?|start(?:ed|ing)?|began|"
        r"signed up for|enrolled in|joined) (?:my |an? |the )?(?:evening |night |weekly |online )?"
        r"(?:"
        r")?(?P<v>[A-Z][a-z]+) "
        r"(?:lessons|classes|course|lesson)\b",
        "Is learning {v}",
        {"v": is_language},
    ),
    rule(r"\bi (?:can )?speak (?:fluent )?(?P<v>[A-Z][a-z]+)\b", "Speaks {v}", {"v": is_language}),
    # typed in lower case, a list of two or three: "i speak greek and english", "i also speak
    # russian and decent english"
    rule(
        r"\bi (?:also |can |can also )?speak (?:fluent )?(?P<v>[a-z]+(?:(?:,| and|, and) "
        r"(?:decent |good |fluent |basic |some )?[a-z]+){0,2})(?=\s*(?:[,.;!]|$)|\s+(?:and|but|at|"
        r"with|too|as well)\b)",
        "Speaks {v}",
        {"v": a_language_first},
        split=each_language,
        finish=lambda f: spoken_list(f),
    ),
    # "Hebrew is native for me", "native in mandarin and cantonese" (one or two, as one line: the
    # native language is one slot)
    rule(
        rf"(?:^|\band |, ){_LANG} is (?:my )?native(?: for me| to me)?(?=\s*(?:[,.;!]|$)|\s+(?:and|"
        r"but|so)\b)|"
        r"(?:^|\bi(?:'m| am) )native in (?P<w>[A-Za-z]+(?: (?:and|&) [A-Za-z]+)?)"
        r"(?=\s*(?:[,.;!]|$)|"
        r"\s+(?:and|but|so)\b)",
        "Native language: {v}",
        None,
        "permanent",
        finish=lambda f: natives(f),
    ),
    # "bilingual french/english", "I'm bilingual English and Welsh": each a line
    rule(
        r"(?:^|\bi(?:'m| am) (?:fully |completely |basically )?)bilingual (?:in )?"
        r"(?P<v>[A-Za-z]+(?:\s*(?:/|&|and)\s*[A-Za-z]+))(?=\s*(?:[,.;!]|$))",
        "Speaks {v}",
        None,
        split=each_language,
        finish=lambda f: a_pair(f),
    ),
    # a label and its list: "Languages: Arabic (native), French (fluent), English (good)"
    rule(
        r"^(?:my )?languages?:\s*(?P<v>[A-Za-z]+(?: \([a-z -]{2,20}\))?(?:\s*(?:,|and|/)\s*"
        r"[A-Za-z]+(?: \([a-z -]{2,20}\))?){0,5})\s*[.!]?$",
        "Speaks {v}",
        None,
        split=lambda t: labelled(t),
        finish=lambda f: bool(f.values.get("v")),
    ),
    rule(
        r"\bmy (?:native|first|mother) (?:language|tongue) is (?P<v>[A-Z][a-z]+)\b",
        "Native language: {v}",
        {"v": is_language},
        "permanent",
    ),
    # "I'm a native Polish speaker", "native speaker of Dutch"
    rule(
        r"\bi(?:'m| am) (?:a )?native (?P<v>[A-Za-z]+) speaker\b|\bi(?:'m| am) a native speaker of "
        r"(?P<v2>[A-Za-z]+)\b",
        "Native language: {v}",
        None,
        "permanent",
        finish=lambda f: _native(f),
    ),
    # a second language: "English is my second language", "Spanish is my first language, English
    # my second", "written English is my second" (never "… my second favourite")
    rule(
        r"(?:^|\band |, (?:and )?|\bthat )(?:written |spoken )?(?P<v>[A-Za-z]+) (?:is )?my "
        r"(?:second|third|fourth|other) ?(?:language)?(?=\s+language\b|\s*(?:[,.;!?]|$)|"
        r"\s+(?:and|but|so|now)\b)",
        "Speaks {v}",
        {"v": a_language},
        finish=capitalised,
    ),
    # "amharic is my first language, english second"
    rule(
        r"\bmy (?:first|native|mother) (?:language|tongue),? (?P<v>[A-Za-z]+) (?:is )?(?:my )?"
        r"(?:second|third)(?: (?:language|one))?(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so)\b)",
        "Speaks {v}",
        {"v": a_language},
        finish=capitalised,
    ),
    rule(
        r"\bmy (?:second|third|other) language is (?P<v>[A-Za-z]+)\b",
        "Speaks {v}",
        {"v": a_language},
        finish=capitalised,
    ),
    # "Portuguese is my first language", "Yoruba is my mother tongue", "(my) mother tongue is Dutch"
    rule(
        rf"(?:^|\band |, |: ){_LANG} is my (?:first|native|mother) (?:language|tongue|languge)\b",
        "Native language: {v}",
        {"v": a_language},
        "permanent",
        finish=capitalised,
    ),
    rule(
        rf"(?:^|\band |, )(?:my )?(?:native|first|mother) (?:language|tongue) is {_LANG}\b",
        "Native language: {v}",
        {"v": a_language},
        "permanent",
        finish=capitalised,
    ),
    # "fluent in English", "bilingual in Catalan and Spanish", "comfortable in French", "my Swedish
    # is
    # basically fluent"
    rule(
        r"(?:\bi(?:'m| am)|\bi grew up|\bi was raised|^|,) (?:(?:also|basically|pretty much|now|"
        r"more|most|quite|very|"
        r"perfectly|fully) )*(?:fluent|bilingual|comfortable) in (?P<v>[A-Za-z]+(?:(?:,| and|, "
        r"and) [A-Za-z]+){0,3})",
        "Speaks {v}",
        {"v": a_language_first},
        split=each_language,
        finish=capitalised,
    ),
    rule(
        r"\bmy (?P<v>[A-Z][a-z]+) is (?:basically |pretty much |now |almost )?(?:fluent|native|"
        r"good|decent|conversational)\b",
        "Speaks {v}",
        {"v": is_language},
    ),
    rule(
        r"\b(?:i(?:'m| am) )?working on my (?P<v>[A-Z][a-z]+)\b",
        "Is learning {v}",
        {"v": is_language},
    ),
    # "I dropped Japanese and switched to Korean": one language given up, the other taken up
    rule(
        r"\bi(?:'ve| have)? (?:dropped|quit|gave up(?: on)?|stopped learning|stopped) "
        r"(?P<v>[A-Z][a-z]+)\b",
        "No longer learning {v}",
        {"v": is_language},
        "correction",
        change=True,
        negative=True,
    ),
    # learning, typed in lower case or with the subject left out: "learning japanese, around n4",
    # "doing arabic on duolingo", "Currently doing Duolingo German", "I've been studying Korean for
    # a year"
    rule(
        r"(?:^|\bi(?:'m| am|'ve been| have been)? |, and )(?:just |also |currently |now |still "
        r"|slowly |trying to )?(?:(?:learning|learn|studying)(?: duolingo)?|doing duolingo) "
        r"(?P<v>[A-Za-z]+)(?=\s*(?:[,.;!()]|$)|\s+(?:on duolingo|on the side|rn|now|at the moment|"
        r"atm|for|since|lessons|classes|in the evenings|every|and|but)\b)|"
        r"(?:^|\bi(?:'m| am)? |, (?:and )?)(?:also |currently |now )?doing (?P<w>[A-Za-z]+) on "
        r"duolingo\b",
        "Is learning {v}",
        None,
        finish=learnt,
    ),
    # where a language is spoken: "We speak Cebuano at home and English at work", "Hindi at home,
    # Marathi with my in-laws, English at work", "I speak Russian with my parents"
    rule(
        r"(?:\bi (?:mostly |mainly |usually |only )?(?:speak|use) |\bi grew up speaking |^|, "
        r"(?:and )?|\band )"
        r"(?P<v>[A-Za-z]+) (?:at home|at work|at school|for work|with (?:my|our) (?:parents|kids|"
        r"children|family|wife|"
        r"husband|partner|in-laws|grandparents|mum|mom|dad|grandmother|grandfather))\b",
        "Speaks {v}",
        {"v": a_language},
        finish=spoken_where,
    ),
    # "I understand Tagalog", "I can follow Tamil" (understood, not spoken)
    rule(
        r"\bi (?:can )?(?:also )?(?:understand|follow) (?:some |a bit of |a little )?"
        r"(?P<v>[A-Za-z]+)\b(?! (?:people|you|him|her|them|what|why|how|the)\b)",
        "Understands {v}",
        {"v": a_language},
        finish=capitalised,
    ),
    # some of a language: "my Cantonese is pretty basic", "My Portuguese is rusty", "kinda rusty
    # german", "a bit of Arabic" (after a cue of speaking)
    rule(
        r"\bmy (?P<v>[A-Za-z]+) is (?:really |pretty |very |quite |a bit |super |still |kinda |"
        r"kind of )?(?P<d>basic|rusty|limited|ok|okay|ok-ish|so-so)\b",
        "Speaks {d} {v}",
        {"v": a_language},
        finish=spoken_some,
    ),
    # the degree said as a fragment in a list of languages: "…, english for work, hindi so-so"
    rule(
        r"(?:, (?:and )?)(?P<v>[A-Za-z]+) (?P<d>so-so|ok-ish|basic|rusty|limited)"
        r"(?=\s*(?:[,.;!]|$))",
        "Speaks {d} {v}",
        {"v": a_language},
        finish=spoken_some,
    ),
    # "I'm a spanish speaker", "Mandarin speaker, my Cantonese is …" (not "a speaker at …")
    rule(
        r"(?:\bi(?:'m| am) an? |^)(?P<v>[A-Za-z]+) speaker\b(?! (?:at|of|for|in)\b)",
        "Speaks {v}",
        {"v": a_language},
        finish=capitalised,
    ),
    # the subject left out, typed in lower case: "gave up on spanish lol", "quit learning german"
    rule(
        r"^(?:(?:so|and|but|welp|well|ok|okay|lol|haha|update)[,!:]? )?(?:i(?:'ve| have)? )?"
        r"(?:finally |officially |kinda |basically )?(?:dropped|quit(?: learning)?|gave up(?: on)?|"
        r"given up(?: on)?|stopped(?: learning| studying)?) "
        r"(?P<v>[A-Za-z]+)\b",
        "No longer learning {v}",
        {"v": a_language},
        "correction",
        change=True,
        negative=True,
        finish=capitalised,
    ),
    # the one taken up instead, said after one given up: "gave up on spanish, doing Portuguese
    # now", "quit German and started Dutch"
    rule(
        r"(?:^|\band |, )(?:(?:i(?:'m| am) )?(?:now )?(?:doing|learning|studying|"
        r"started(?: learning)?|"
        r"picked up|switched to|moved on to|on to|onto)) (?P<v>[A-Za-z]+)(?: now| instead)?"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:now|instead|on duolingo|since|because|as)\b)",
        "Is learning {v}",
        {"v": a_language},
        change=True,
        finish=lambda f: taken_up(f),
    ),
    rule(
        r"\bi(?:'ve| have)? (?:dropped|quit|gave up|stopped)\b[^.;]{1,60}?\b(?:and )?(?:switched|"
        r"moved) to "
        r"(?P<v>[A-Z][a-z]+)\b",
        "Is learning {v}",
        {"v": is_language},
        change=True,
    ),
    rule(
        r"\bi (?:learn|study|am studying|'m studying|am learning) (?P<v>[A-Z][a-z]+)\b",
        "Is learning {v}",
        {"v": is_language},
    ),
    rule(
        r"\bi(?:'m| am) (?:a )?(?P<v>[A-Za-z]+) native speaker\b",
        "Native language: {v}",
        {"v": a_language},
        "permanent",
        finish=capitalised,
    ),
    # the items of a list of languages (after the rules above: a clause they read keeps
    # their order)
    # a native language as an item of a list: "Native Vietnamese, fluent English", "vietnamese
    # native", "Japanese is my first language", "mother tongue is Yoruba", "X is my mother tongue"
    rule(
        rf"{_ITEM}(?:native(?: speaker of)? (?P<v>{_L})(?: speaker)?|(?P<w>{_L}) (?:native|"
        r"is my (?:first|native|mother) (?:language|tongue))|(?:my )?(?:first|native|mother) "
        rf"(?:language|tongue) is (?P<x>{_L})){_ITEM_END}",
        "Native language: {v}",
        None,
        "permanent",
        finish=_one_language,
    ),
    # fluent, as an item: "fluent English", "english fluent", "fluent in Arabic", "my Swedish is
    # basically fluent"
    rule(
        rf"{_ITEM}(?:fluent (?:in )?(?P<v>{_L})|(?P<w>{_L}) fluent|my (?P<x>{_L}) is "
        rf"(?:basically |pretty much |now |very )?fluent){_ITEM_END}",
        "Speaks fluent {v}",
        None,
        finish=_one_language,
    ),
    # learning, as an item after the user's other languages: "first language is Yoruba, fluent
    # in English, learning French"
    rule(
        r"[,;:]\s*(?:(?:and|also|now|currently)\s+)?(?:learning|studying) "
        rf"(?P<v>{_L}){_ITEM_END}",
        "Is learning {v}",
        None,
        finish=lambda f: (
            bool(_LANGUAGE_LIST.search(f.message or f.match.string)) and _one_language(f)
        ),
    ),
    # a level, as an item: "Japanese intermediate", "conversational Spanish", "basic German"
    rule(
        rf"{_ITEM}(?:(?P<v>{_L}) (?P<d>intermediate|conversational|basic|beginner|advanced)|"
        rf"(?P<d2>intermediate|conversational|basic|beginner|advanced) (?P<w>{_L})){_ITEM_END}",
        "Speaks {d} {v}",
        None,
        finish=_level_item,
    ),
]

CANON = [
    (r"^Speaks (.+)$", USER, None),
    (r"^Native language: (.+)$", USER, "native-language"),
    (r"^Is learning (.+)$", USER, None),
    (r"^Understands (.+)$", USER, None),
]


#: A language given up in the message ("gave up on spanish"): the next one named is taken up.
_GAVE_UP = lazy(
    r"(?:^|\bi(?:'ve| have)? |[,.;!:]\s*)(?:(?:so|and|but|well|welp|ok|okay|update)[,!:]? )?"
    r"(?:finally |officially |just |kinda |basically )?(?:dropped|quit|gave up(?: on)?|"
    r"given up(?: on)?|stopped(?: learning| studying)?) "
    r"[A-Za-z]+\b",
    re.I,
)

_SPEAK_LIST = lazy(r"\bi (?:can )?speak (?P<v>[^.;:!?()]{1,120})", re.I)


_LIST_SPLIT = lazy(r"\s*,\s*(?:and\s+|as well as\s+)?|\s+(?:and|as well as)\s+")


def spoken(sentence: str) -> list[str]:
    """Every language of "I speak English, French and Portuguese", in order, up to the first item
    that is not a bare language ("… and a bit of French" stops the list there)."""
    m = _SPEAK_LIST.search(sentence)
    if not m or NEGATION.search(sentence[: m.start()]):
        return []
    out = []
    for item in _LIST_SPLIT.split(m.group("v").strip()):
        item = re.sub(r"^fluent\s+", "", item.strip(), flags=re.I)
        word = item.split(" ", 1)[0]
        if not is_language(word):
            break
        out.append(word)
        if " " in item:  # "Portuguese at home": the list ends here
            break
    return out


def taken_up(f: Filling) -> bool:
    """A language taken up, in a message that gives one up."""
    return bool(_GAVE_UP.search(f.message or f.match.string)) and capitalised(f)


def _native(f: Filling) -> bool:
    value = f.groups.get("v") or f.groups.get("v2") or ""
    if not a_language(value):
        return False
    f.values["v"] = value[:1].upper() + value[1:]
    return True


def natives(f: Filling) -> bool:
    """ "mandarin and cantonese" → "Mandarin and Cantonese": each a language."""
    value = f.groups.get("v") or f.groups.get("w") or ""
    parts = [p for p in re.split(r"\s+(?:and|&)\s+", value.strip()) if p]
    if not parts or not all(a_language(p) for p in parts):
        return False
    f.values["v"] = " and ".join(p[:1].upper() + p[1:] for p in parts)
    return True


def a_pair(f: Filling) -> bool:
    """ "french/english" → "French and English", each a language (``each_language`` splits)."""
    parts = [p for p in re.split(r"\s*(?:/|&|\band\b)\s*", f.values.get("v", "")) if p]
    if len(parts) < 2 or not all(a_language(p) for p in parts):
        return False
    f.values["v"] = " and ".join(p[:1].upper() + p[1:] for p in parts)
    return True


_LABELLED = lazy(r"(?P<v>[A-Za-z]+)(?: \((?P<d>[a-z -]{2,20})\))?")
_NATIVE_DEGREE = frozenset({"native", "mother tongue", "first", "first language", "l1"})


def labelled(text: str) -> list[str]:
    """ "Speaks Arabic (native), French (fluent), English (good)" → a line per language: the native
    one as ``Native language``, the others as spoken; a word that is no language ends the list."""
    out = []
    for item in re.split(r"\s*(?:,|\band\b|/)\s*", text.removeprefix("Speaks ")):
        m = _LABELLED.fullmatch(item.strip())
        if not m or not a_language(m.group("v")):
            break
        name = m.group("v")[:1].upper() + m.group("v")[1:]
        degree = (m.group("d") or "").strip()
        if degree in _NATIVE_DEGREE:
            out.append(f"Native language: {name}")
        elif degree in ("", "fluent", "good", "very good", "excellent", "conversational", "ok"):
            out.append(f"Speaks {name}")
    return out


def spoken_list(f: Filling) -> bool:
    """ "greek and decent english" → "Greek and English": a degree word before a language is left
    out (the line says it is spoken), and the list is cut where a word is no language."""
    value = re.sub(r"\b(?:decent|good|fluent|basic|some) ", "", f.values.get("v", ""))
    f.values["v"] = " ".join(
        w if w in ("and", "or") else w[:1].upper() + w[1:] for w in value.split()
    )
    return True
