"""A simulated year of daily use: does memory keep learning, stay within budget and drop what is no
longer true?

``python -m bench.lifecycle [--days 365] [--clock faketime|inject] [--seed N] [--budgets
MEMORY,USER] [--json PATH]`` (``python -m bench lifecycle`` runs it too; ``--quick`` is 60 days).

Workload (this module's own generator and phrasings, seeded; phrased as a user would, cues of change
included, so that the offline engine can learn them): a user who tells the agent about two durable
facts a day (likes and preferences for USER.md, project decisions and server names for
memory/MEMORY.md), identity facts in the first days (name, birthplace, wife, son, dog), two moves
(Lisbon → Porto → Braga), a job change (Acme Robotics → Globex), three replaced project decisions
("we switched from MySQL to Postgres"), and a deadline every five days with an absolute date 3–20
days ahead. Each day goes through the public API as a user would use it: the messages are appended
to a session, the Consolidator archives them (offline engine), and Dream runs
(``Dream.run(drain=True)``, offline engine); every third day the agent searches memory for an older
fact (``Recall.search``), which records a hit for salience.

Clock: ``faketime`` (default when Debian's libfaketime is installed) re-runs this script under
``LD_PRELOAD`` with ``FAKETIME_TIMESTAMP_FILE`` and moves the whole process's clock day by day
(history timestamps, git commit times, ``date.today()`` in Dream); ``inject`` keeps the real clock
and sets ``Dream.today`` instead (no hits recorded).

Ground truth is known for every fact. The report holds the issue's metrics: batches set aside,
failed runs, budgets held after every run, identity facts in the prompt files, facts learned in the
last 30 days in the prompt files (at the end, and summed over every day from day 30:
``recent_in_prompt_daily``, with its worst day), current facts findable in curated memory (a prompt
file or the archive, in the top 5 of a search for the fact's words; with the session transcripts
indexed too), superseded and expired lines left in the prompt files, and Dream's prompt tokens per
run in the last 30 days against the first 30.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
START = date(2027, 1, 4)

_ADJ = (
    "spicy",
    "smoked",
    "grilled",
    "sweet",
    "sour",
    "roasted",
    "fresh",
    "salted",
    "crispy",
    "steamed",
    "baked",
    "pickled",
    "creamy",
    "fried",
    "iced",
    "stuffed",
    "braised",
    "toasted",
    "cured",
    "glazed",
)
_FOOD = (
    "ramen",
    "tofu",
    "halloumi",
    "paella",
    "dumplings",
    "okra",
    "risotto",
    "gnocchi",
    "kimchi",
    "falafel",
    "burrata",
    "ceviche",
    "polenta",
    "tempeh",
    "couscous",
    "lentils",
    "chorizo",
    "sardines",
    "pierogi",
    "churros",
    "moussaka",
    "bibimbap",
    "tamales",
    "arepas",
    "pho",
    "goulash",
    "borscht",
    "tagine",
    "samosas",
    "gyoza",
    "empanadas",
    "bruschetta",
    "hummus",
    "satay",
    "laksa",
    "pastrami",
    "brioche",
    "baklava",
    "cannoli",
    "mochi",
)
_PREF = (
    "window seats on trains",
    "paper notebooks",
    "morning meetings",
    "dark roast coffee",
    "audiobooks",
    "cold showers",
    "standing desks",
    "mechanical keyboards",
    "long walks after lunch",
    "quiet cafes",
    "night trains",
    "film cameras",
    "handwritten letters",
    "board games on Fridays",
    "early flights",
    "green tea in the afternoon",
    "printed maps",
    "wool sweaters",
    "vinyl records",
    "small hotels",
)
_VERB = (
    "rewrite",
    "split",
    "freeze",
    "retire",
    "document",
    "benchmark",
    "migrate",
    "refactor",
    "audit",
    "cache",
)
_PART = (
    "invoice exporter",
    "search indexer",
    "login flow",
    "billing worker",
    "report builder",
    "mobile sync",
    "email digests",
    "admin console",
    "image resizer",
    "pricing engine",
    "audit log",
    "tax calculator",
    "webhook relay",
    "session store",
    "feature flags",
    "payment retries",
    "csv importer",
    "pdf renderer",
    "notification hub",
    "rate limiter",
    "backup job",
    "geo lookup",
    "label printer",
    "stock forecaster",
    "onboarding wizard",
    "chat widget",
    "metrics exporter",
    "order router",
    "coupon engine",
    "sitemap builder",
)
_WHEN = (
    "in March",
    "before the summer",
    "next quarter",
    "in the autumn",
    "by year end",
    "after the launch",
)
_SERVER = (
    "kestrel",
    "osprey",
    "heron",
    "plover",
    "curlew",
    "dunlin",
    "gannet",
    "merlin",
    "shrike",
    "wryneck",
    "avocet",
    "bittern",
    "godwit",
    "linnet",
    "ouzel",
    "pipit",
    "redpoll",
    "siskin",
    "twite",
    "whimbrel",
)
_ROLE = ("staging", "build", "metrics", "backup", "mail", "cache", "queue", "proxy", "vpn", "ci")
_PROJ = (
    "atlas",
    "beacon",
    "comet",
    "delta",
    "ember",
    "fjord",
    "glacier",
    "harbor",
    "iris",
    "juniper",
)
_DOC = (
    "report",
    "review",
    "budget plan",
    "release notes",
    "grant proposal",
    "design doc",
    "invoice",
    "audit",
)


@dataclass
class Fact:
    line: str  # the line the offline engine writes
    day: int
    kind: str  # identity | durable | deadline | home | job | decision
    due: date | None = None
    superseded_on: int | None = None
    query: str = ""


@dataclass
class Truth:
    facts: list[Fact] = field(default_factory=list)

    def add(self, line: str, day: int, kind: str, **kw: Any) -> Fact:
        f = Fact(line, day, kind, **kw)
        self.facts.append(f)
        return f

    def supersede(self, line: str, day: int) -> None:
        for f in self.facts:
            if f.line == line and f.superseded_on is None:
                f.superseded_on = day


def plan_day(
    d: int, rng: random.Random, truth: Truth, pools: dict[str, list[Any]], scale: float = 1.0
) -> list[str]:
    """The user's messages on day ``d``, with the facts they state recorded in ``truth``. ``scale``
    compresses the year's moves, job change and switched decisions into a shorter run (days/365)."""
    today = START + timedelta(days=d)
    msgs: list[str] = []
    scripted = {
        0: [
            ("My name is Ana Ferreira.", "Name: Ana Ferreira", "identity"),
            ("I'm originally from Coimbra.", "From Coimbra", "identity"),
            ("I live in Lisbon.", "Lives in Lisbon", "home"),
        ],
        1: [
            ("My wife is called Marta.", "Has a wife named Marta", "identity"),
            ("I work at Acme Robotics.", "Works at Acme Robotics", "job"),
        ],
        2: [
            ("My son is named Tiago.", "Has a son named Tiago", "identity"),
            ("We use MySQL for the shop.", "Uses MySQL for the shop", "decision"),
        ],
        3: [
            ("My dog is called Bolota.", "Has a dog named Bolota", "identity"),
            ("We use Jenkins for the builds.", "Uses Jenkins for the builds", "decision"),
        ],
        4: [("We use Trello for planning.", "Uses Trello for planning", "decision")],
    }
    for text, line, kind in scripted.get(d, []):
        msgs.append(text)
        truth.add(line, d, kind)
    changes = {
        120: ("I moved to Porto.", "Lives in Porto", "home", "Lives in Lisbon"),
        250: ("I moved to Braga.", "Lives in Braga", "home", "Lives in Porto"),
        200: ("I work at Globex now.", "Works at Globex", "job", "Works at Acme Robotics"),
        150: (
            "We switched from MySQL to Postgres.",
            "Uses Postgres",
            "decision",
            "Uses MySQL for the shop",
        ),
        180: (
            "We switched from Jenkins to Buildkite.",
            "Uses Buildkite",
            "decision",
            "Uses Jenkins for the builds",
        ),
        300: (
            "We switched from Trello to Linear.",
            "Uses Linear",
            "decision",
            "Uses Trello for planning",
        ),
    }
    changes = {max(5, round(k * scale)) + i: v for i, (k, v) in enumerate(sorted(changes.items()))}
    if d in changes:
        text, line, kind, old = changes[d]
        msgs.append(text)
        truth.supersede(old, d)
        truth.add(line, d, kind)
    if d % 5 == 2:
        due = today + timedelta(days=rng.randint(3, 20))
        proj, doc = pools["deadline"].pop()
        msgs.append(f"The deadline for the {proj} {doc} is on {due.isoformat()}.")
        truth.add(
            f"Deadline for {proj} {doc}: {due.isoformat()}",
            d,
            "deadline",
            due=due,
            query=f"{proj} {doc} deadline",
        )
    for i in range(2):  # two durable facts a day, one about the user, one about the work
        if (d + i) % 2 == 0:
            if rng.random() < 0.75 and pools["food"]:
                adj, food = pools["food"].pop()
                msgs.append(f"I really like {adj} {food}.")
                truth.add(f"Likes {adj} {food}", d, "durable", query=f"{adj} {food}")
            elif pools["pref"]:
                pref = pools["pref"].pop()
                msgs.append(f"I prefer {pref}.")
                truth.add(f"Prefers {pref}", d, "durable", query=pref)
        else:
            if rng.random() < 0.8 and pools["decision"]:
                verb, part, when = pools["decision"].pop()
                proj = _PROJ[
                    len(pools["decision"]) % len(_PROJ)
                ]  # not drawn: the seeded stream stays as it was
                msgs.append(f"We decided to {verb} the {proj.title()} {part} {when}.")
                truth.add(
                    f"Decided: {verb} the {proj.title()} {part} {when}",
                    d,
                    "durable",
                    query=f"{verb} {part}",
                )
            elif pools["server"]:
                role, name = pools["server"].pop()
                msgs.append(f"Remember that our {role} server is called {name}.")
                truth.add(
                    f"Our {role} server is called {name}",
                    d,
                    "durable",
                    query=f"{role} server {name}",
                )
    return msgs


def _pools(rng: random.Random) -> dict[str, list[Any]]:
    pools: dict[str, list[Any]] = {
        "food": [(a, f) for a in _ADJ for f in _FOOD],
        "pref": list(_PREF),
        "decision": [(v, p, w) for v in _VERB for p in _PART for w in _WHEN],
        "server": list(zip(_ROLE, _SERVER)),  # one name per server: a second would be a rename
        "deadline": [(p, doc) for p in _PROJ for doc in _DOC],
    }
    for pool in pools.values():
        rng.shuffle(pool)
    return pools


def _key(text: str) -> str:
    from reverie.text.memline import line_key

    return line_key(text)


@dataclass
class DayLog:
    day: int
    statuses: list[str]
    prompt_tokens: int
    sizes: dict[str, int]
    archived: int
    expired: int


async def simulate(
    root: Path,
    days: int,
    *,
    set_clock: Callable[[datetime], None] | None = None,
    budgets: dict[str, int] | None = None,
    lifecycle: dict[str, Any] | None = None,
    seed: int = 14,
    searches: bool = True,
    progress: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """Run the simulation in a new workspace at ``root``; returns the report (see the module
    docstring)."""
    from reverie.dream.archive import parse_entry
    from reverie.memory.runtime import Runtime
    from reverie.storage.config import Config
    from reverie.storage.workspace import MEMORY, MEMORY_FILES, SOUL, USER, Workspace

    rng = random.Random(seed)
    pools = _pools(rng)
    truth = Truth()
    ws = Workspace(root)
    ws.init()
    config = Config()
    config.memory.history.fsync = False
    config.memory.search.include_sessions = (
        False  # "curated memory": prompt files and the archive, plus history
    )
    for key, value in (budgets or {}).items():
        setattr(config.dream, key, value)
    for key, value in (lifecycle or {}).items():
        setattr(config.dream.lifecycle, key, value)
    limits = {
        SOUL: config.dream.soul_max_chars,
        USER: config.dream.user_max_chars,
        MEMORY: config.dream.memory_max_chars,
    }
    rt = Runtime(ws, config=config)
    rt.git  # noqa: B018 - the memory repo exists before the first day
    session = rt.sessions.get_or_create("sim:main")
    logs: list[DayLog] = []
    over_budget: list[tuple[int, str, int]] = []
    recent_daily: list[
        tuple[int, int]
    ] = []  # per day from day 30: (recent facts in the prompt files, recent facts)
    for d in range(days):
        day = START + timedelta(days=d)
        morning = datetime(day.year, day.month, day.day, 9, 0)
        if set_clock:
            set_clock(morning)
        else:
            rt.dream.today = lambda day=day: day  # type: ignore[misc]
        stamp = morning
        for text in plan_day(d, rng, truth, pools, min(1.0, days / 365)):
            rt.sessions.append(
                session, {"role": "user", "content": text, "timestamp": stamp.isoformat()}
            )
            rt.sessions.append(
                session,
                {
                    "role": "assistant",
                    "content": "Noted.",
                    "timestamp": (stamp + timedelta(seconds=20)).isoformat(),
                },
            )
            stamp += timedelta(minutes=3)
        await rt.consolidator.consolidate_all(session)
        if set_clock:
            set_clock(morning.replace(hour=21))
        result = await rt.dream.run(drain=True)
        parts = list(result.batches) or [result]
        sizes = {rel: len(ws.read(rel)) for rel in MEMORY_FILES}
        for rel, size in sizes.items():
            if size > limits[rel]:
                over_budget.append((d, rel, size))
        logs.append(
            DayLog(
                d,
                [r.status for r in parts],
                result.usage.prompt_tokens,
                sizes,
                result.archived,
                result.expired,
            )
        )
        if d >= 30:
            # the facts learned in the last 30 days that are still true, and how many are in the
            # prompt
            keys = {
                _key(ln) for rel in MEMORY_FILES for ln in ws.read(rel).splitlines() if ln.strip()
            }
            fresh = [
                f
                for f in truth.facts
                if d - 30 < f.day <= d
                and f.superseded_on is None
                and not (f.due and (day - f.due).days > config.dream.lifecycle.grace_days)
            ]
            recent_daily.append((sum(_key(f.line) in keys for f in fresh), len(fresh)))
        if searches and set_clock and d % 3 == 0:
            older = [f for f in truth.facts if f.kind == "durable" and f.day < d - 20]
            if older:
                rt.recall.search(rng.choice(older).query or rng.choice(older).line, k=5)
        if d % 30 == 29:
            progress(f"day {d + 1}: {sizes}")
    # -- the report --------------------------------------------------------------------------------
    last = days - 1
    end = START + timedelta(days=last)
    prompt = {
        rel: {_key(ln) for ln in ws.read(rel).splitlines() if ln.strip()} for rel in MEMORY_FILES
    }
    in_prompt = set().union(*prompt.values())
    grace = config.dream.lifecycle.grace_days
    current = [
        f
        for f in truth.facts
        if f.superseded_on is None and not (f.due and (end - f.due).days > grace)
    ]
    identity = [f for f in truth.facts if f.kind == "identity"]
    recent = [f for f in current if f.day > last - 30]
    stale = [
        f
        for f in truth.facts
        if f.superseded_on is not None or (f.due and (end - f.due).days > grace)
    ]
    stale_left = [f.line for f in stale if _key(f.line) in in_prompt]
    archive_keys: dict[str, set[str]] = {}
    for file in sorted((ws.root / "memory/archive").glob("*.md")):
        rel = f"memory/archive/{file.name}"
        archive_keys[rel] = {
            _key(e[0]) for ln in file.read_text().splitlines() if (e := parse_entry(ln))
        }
    curated_paths = set(MEMORY_FILES) | set(archive_keys)

    def findable_in(recall: Any) -> list[str]:
        """The current facts not found in curated memory in the top 5 of a search for the fact's own
        words."""
        recall.sync()
        missing: list[str] = []
        for f in current:
            ok = False
            for h in recall.search(f.line, k=5, sync=False):
                if h.source.path not in curated_paths or h.source.line_start is None:
                    continue
                lines = ws.read(h.source.path).splitlines()[
                    h.source.line_start - 1 : h.source.line_end
                ]
                keys = {_key(ln) for ln in lines} | {
                    _key(e[0]) for ln in lines if (e := parse_entry(ln))
                }
                if _key(f.line) in keys:
                    ok = True
                    break
            if not ok:
                missing.append(f.line)
        return missing

    missing = findable_in(rt.recall)
    findable = len(current) - len(missing)
    # The same with the session transcripts indexed (Recall's default): the messages that said the
    # facts, and the replies around them, compete with curated memory.
    from reverie.recall import Recall

    with_sessions = config.model_copy(deep=True)
    with_sessions.memory.search.include_sessions = True
    recall = Recall(ws, with_sessions)
    missing_s = findable_in(recall)
    recall.close()
    dead = rt.dream.set_aside()
    statuses = [s for log in logs for s in log.statuses]
    first30 = [log.prompt_tokens for log in logs[:30] if log.prompt_tokens]
    last30 = [log.prompt_tokens for log in logs[-30:] if log.prompt_tokens]
    avg = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731

    def curated(fact: Any) -> bool:
        """In the prompt files or the archive."""
        key = _key(fact.line)
        return key in in_prompt or any(key in v for v in archive_keys.values())

    return {
        "days": days,
        "facts": len(truth.facts),
        "batches_set_aside": len(dead) + statuses.count("dead-lettered"),
        "failed_runs": sum(s in ("failed", "rejected") for s in statuses),
        "runs": len(logs),
        "over_budget_after_runs": over_budget,
        "identity_in_prompt": (
            f"{sum(_key(f.line) in prompt[USER] for f in identity)}/{len(identity)}"
        ),
        "last30_in_prompt": f"{sum(_key(f.line) in in_prompt for f in recent)}/{len(recent)}",
        "last30_missing": [f.line for f in recent if _key(f.line) not in in_prompt][:10],
        "recent_in_prompt_daily": _ratio(recent_daily),
        "recent_in_prompt_worst_day": min(
            (round(k / n, 3) for k, n in recent_daily if n), default=None
        ),
        "current_in_curated": f"{sum(map(curated, current))}/{len(current)}",
        "current_findable_top5": f"{findable}/{len(current)}",
        "findable_missing": missing[:10],
        "current_findable_top5_with_sessions": f"{len(current) - len(missing_s)}/{len(current)}",
        "findable_missing_with_sessions": missing_s[:10],
        "stale_left_in_prompt": stale_left,
        "archived_total": sum(log.archived for log in logs),
        "expired_total": sum(log.expired for log in logs),
        "prompt_tokens_first30": round(avg(first30)),
        "prompt_tokens_last30": round(avg(last30)),
        "prompt_tokens_ratio": round(avg(last30) / avg(first30), 2) if first30 and last30 else None,
        "final_sizes": {rel: f"{len(ws.read(rel))}/{limits[rel]}" for rel in MEMORY_FILES},
        "archive_lines": sum(len(v) for v in archive_keys.values()),
    }


def _ratio(pairs: list[tuple[int, int]]) -> str:
    """``found/total (pct)`` summed over the days."""
    found, total = sum(k for k, _ in pairs), sum(n for _, n in pairs)
    return f"{found}/{total} ({100 * found / total:.1f} %)" if total else "n/a"


def _faketime_setter(path: Path) -> Callable[[datetime], None]:
    def set_clock(when: datetime) -> None:
        path.write_text(when.strftime("@%Y-%m-%d %H:%M:%S"))
        time.sleep(0)  # FAKETIME_NO_CACHE=1: the next clock read sees it

    return set_clock


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.lifecycle", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--quick", action="store_true", help="60 days")
    parser.add_argument("--clock", choices=("faketime", "inject"), default=None)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument(
        "--stale-days", type=int, default=None, help="dream.lifecycle.staleDays (default: config's)"
    )
    parser.add_argument(
        "--budgets",
        metavar="MEMORY,USER",
        default=None,
        help="memoryMaxChars,userMaxChars (default: config's), e.g. 1800,900 for budget pressure",
    )
    args = parser.parse_args(argv)
    days = 60 if args.quick else args.days
    clock = args.clock or ("faketime" if os.path.exists(FAKETIME_LIB) else "inject")
    if clock == "faketime" and "FAKETIME_TIMESTAMP_FILE" not in os.environ:
        stamp = Path(tempfile.mkdtemp(prefix="reverie-faketime-")) / "now"
        stamp.write_text(START.strftime("@%Y-%m-%d 08:00:00"))
        env = {
            **os.environ,
            "LD_PRELOAD": FAKETIME_LIB,
            "FAKETIME_TIMESTAMP_FILE": str(stamp),
            "FAKETIME_NO_CACHE": "1",
        }
        cmd = (
            [
                sys.executable,
                "-m",
                "bench.lifecycle",
                "--days",
                str(days),
                "--clock",
                "faketime",
                "--seed",
                str(args.seed),
            ]
            + (["--json", args.json] if args.json else [])
            + (["--stale-days", str(args.stale_days)] if args.stale_days is not None else [])
            + (["--budgets", args.budgets] if args.budgets else [])
        )
        return subprocess.call(cmd, env=env, cwd=str(Path(__file__).resolve().parent.parent))
    setter = (
        _faketime_setter(Path(os.environ["FAKETIME_TIMESTAMP_FILE"]))
        if clock == "faketime"
        else None
    )
    root = Path(tempfile.mkdtemp(prefix="reverie-year-")) / "ws"
    os.environ.setdefault("REVERIE_HOME", str(root.parent / "home"))
    t0 = time.monotonic()
    life = {"stale_days": args.stale_days} if args.stale_days is not None else None
    sizes = None
    if args.budgets:
        mem, user = (int(x) for x in args.budgets.split(","))
        sizes = {"memory_max_chars": mem, "user_max_chars": user}
    report = asyncio.run(
        simulate(
            root,
            days,
            set_clock=setter,
            seed=args.seed,
            lifecycle=life,
            budgets=sizes,
            progress=lambda s: print(s, file=sys.stderr, flush=True),
        )
    )
    report["budgets"] = args.budgets
    report["clock"] = clock
    report["stale_days"] = args.stale_days
    # libfaketime moves the monotonic clock too: only the real-clock run's wall time means anything
    report["wall_seconds"] = round(time.monotonic() - t0, 1) if clock == "inject" else None
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
