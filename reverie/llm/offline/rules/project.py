"""What stays true about the user's work: tools in use and their versions, what a service is written
in and runs on, a project's name and database, choices and decisions, team agreements and cadences.

A tool is a technology of ``lexicon.TECH`` or a capitalised name (``values.is_tool``): "we use a
hack" names none. An upgrade ("we upgraded Postgres from 14 to 16") replaces the old version's line;
a decision names what was decided on ("we decided to call it a day" gives nothing).
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..dates import CLOCK_PHRASE, clock
from ..kinds import TECH_WORDS, known_place, technology, technology_names
from .core import MEMORY, Filling, rule, rules_of
from .lexicon import CADENCE, DATABASES, NOT_NAMES, PROJECT_NOUN, TECH
from .person import third_person
from .phrases import NAME, PSTOP, VAL
from .values import clean, is_place, is_project, is_specific, is_tech, is_tool

# A project: a capitalised name, or a described one ("the inventory app"), as the subject of a
# storage fact.
_PROJECT = (
    rf"(?:\b|^)(?<!['’])(?:the |our )?(?P<p>(?-i:[A-Z])[\w-]+|(?-i:[a-z])[\w-]* {PROJECT_NOUN}|"
    rf"(?<=the )(?-i:{PROJECT_NOUN}))"
)


#: What a team holds on a cadence ("we have a retro every Friday"), not "we have fun every time".
_TEAM_EVENT = (
    r"(?:a |an |our |the )?(?:daily |weekly |sprint |team )?(?:standup|stand-up|retro|"
    r"retrospective|demo|sync|"
    r"planning|review|code review|meeting|one-on-one|1:1|all-hands|release|deploy|deployment|"
    r"check-in)s?"
)


def names_a_choice(f: Filling) -> bool:
    """A decision names what was decided on: "we decided to call it a day" gives nothing."""
    raw = f.groups.get("v", "").strip().rstrip(".!")
    return any(
        is_tool(w.strip(",.")) and w[:1].isupper() and w.lower() not in NOT_NAMES
        for w in raw.split()[1:]
    )


def capital_tool(f: Filling) -> bool:
    """ "python" → "Python": a tool typed in lower case, written as its name."""
    tool = f.values.get("t", "")
    f.values["t"] = tool[:1].upper() + tool[1:] if tool.islower() else tool
    return True


def _a_named_tech(value: str) -> bool:
    """A technology by its name: capitalised, or one of the lexicon's typed in lower case
    ("vitest"); never a place, a person or a language."""
    return is_tech(value) and (value[:1].isupper() or value.split()[0].lower() in TECH)


#: The user saying they themselves moved ("I've just moved to Linux"): a person's move, not a
#: team's tool (a subject left out, "switched to vitest", is read as the team's).
_I_MOVED = lazy(r"\bI(?:'ve| have)?(?: \w+)? (?:moved|migrated)\b")


def a_team_switch(f: Filling) -> bool:
    if _I_MOVED.search(f.message or f.match.string):
        return False
    return capital_tool_v(f)


def capital_tool_v(f: Filling) -> bool:
    """ "vitest" → "Vitest"."""
    tool = f.values.get("v", "")
    f.values["v"] = tool[:1].upper() + tool[1:] if tool.islower() else tool
    return True


def whole_event(f: Filling) -> bool:
    """ "Staff meeting at the clinic is every Monday at 7:30am": the event with whom or where."""
    m = f.match
    f.values["e"] = m.string[m.start("e") : m.start("v")].rsplit(" ", 2)[0].strip()
    f.values["e"] = third_person(re.sub(r"\s+(?:is|are|happens?|takes place)$", "", f.values["e"]))
    return keep_at(f)


#: A time said in words after "at" ("at ten in the morning", "at half nine").
_AT_WORDS = lazy(rf"\bat (?P<t>(?=[a-z])(?:{CLOCK_PHRASE}))(?=\s*(?:[,.;!]|$)|\s)", re.I)
#: Where a cadence's clause ends and another begins ("… at three and its always on zoom").
_NEXT_CLAUSE = lazy(
    r",\s+(?=(?:it'?s|its|it is|they|we|i|i'm|im|that|which|but|so)\b)|\s+(?:and|but|so|because)"
    r"\s+(?=(?:it'?s|its|it is|it|they|we|we're|i|i'm|im|that)\b)",
    re.I,
)


#: A team's rule said anew after a vote or a decision, with the words of a rule in it ("needs",
#: "must", "only", "no …"): "the team voted yesterday, PRs under 50 lines only need one approval
#: now", "we agreed: no deploys on Fridays".
TEAM_RULE_CHANGED = (
    r"^(?:(?:so|fyi|heads up|update|btw|oh)[,:!]?\s+)?(?:the team|we|our team)(?: all)? "
    r"(?:voted|agreed|decided)(?: (?:yesterday|today|last week|this week|on (?:mon|tues|wednes|"
    r"thurs|fri)day))?(?:,|:| that)\s*"
    r"(?P<v>(?=[^.;!?]*\b(?:needs?|must|should|requires?|only|always|never|no)\b)[^.;!?]{8,120}?)"
    r"\s*[.!]?$"
)


def a_rule_anew(f: Filling) -> bool:
    """The new rule as said, less the "now" that marks it new ("… only need one approval now")."""
    keep_at(f)
    f.values["v"] = re.sub(r"\s+(?:now|from now on|going forward)$", "", f.values["v"])
    return True


def keep_at(f: Filling) -> bool:
    """A cadence keeps its "at": "at 9:30 every day"; a time said in words is written in digits
    ("at ten in the morning" → "at 10am"), the verb of "we do retro …" is left out, and the
    clause ends where the next one begins ("… and it's always on zoom")."""
    value = _NEXT_CLAUSE.split(clean(f.groups["v"], False, strip=False), maxsplit=1)[0]
    value = value.rstrip(" ,;")
    value = re.sub(r"^(?:do|have|hold|run) (?:an? |our |the )?(?=\w)", "", value)
    f.values["v"] = _AT_WORDS.sub(lambda m: f"at {clock(m.group('t'))}", value)
    return True


#: What a stack is said of: "our backend", "the mobile app", "the warehouse", "client portal".
_PART = (
    r"(?:stack|tech stack|infrastructure|infra|backend|back end|frontend|front end|platform|"
    r"services?|pipeline|"
    r"data pipeline|deployment|app|mobile app|web app|api|site|website|web site|portal|client "
    r"portal|database|"
    r"db|warehouse|data warehouse|design system|codebase|repo|project|system|server|hosting|cms|"
    r"shop|store|"
    r"booking app|ordering)"
)
#: A list of tools with their versions ("Flutter 3.22", "Next.js 14"): a period only inside a word.
_TOOLS = r"(?P<v>(?:[^,.;:!?()]|\.(?=\w)){1,80}?)"
_LIST = lazy(
    r"\s*(?:,\s*(?:and\s+)?|\s+\+\s+|\s+and\s+|\s+with\s+|\s+w/\s+|\s+/\s+|\s+on\s+|"
    r"\s+plus\s+|\s*&\s*)\s*"
)
#: Short names written as the tool's name ("RN 0.74" is React Native 0.74).
_ALIASES = {"RN": "React Native", "k8s": "Kubernetes", "K8s": "Kubernetes"}
#: One tool as named: a word or two ("AWS ECS", "docker compose", "Fly.io").
_A_TOOL = r"[A-Za-z][\w+#-]*(?:\.\w+)*(?: [A-Za-z][\w+#-]*(?:\.\w+)*)?"
#: A host's name, never with the time after it ("azure right now").
_HOST_TOOL = (
    r"[A-Za-z][\w+#-]*(?:\.\w+)*(?: (?!right\b|now\b|currently\b|at\b|for\b)[A-Za-z][\w+#-]*"
    r"(?:\.\w+)*)?"
)
#: One tool, a second word only capitalised or a version ("Kubernetes", "AWS ECS", "Postgres 16").
_NAMED_TOOL = r"[A-Za-z][\w+#-]*(?:\.\w+)*(?: (?:(?-i:[A-Z])[\w+#-]*|\d[\w.]*))?"


#: The records a small business keeps, and what it keeps them in.
_RECORDS = (
    r"(?P<p>accounts|accounting|books|bookkeeping|invoices|invoicing|payroll|inventory|stock|"
    r"stock list|stock inventory|orders|bookings|appointments|expenses|budget|rota|register)"
)
_RECORD_TOOL = (
    r"(?P<v>an? (?:google sheet|google spreadsheet|spreadsheet|excel sheet|excel file)|google "
    r"sheets|excel|(?-i:[A-Z])[\w.+-]*(?: (?-i:[A-Z])[\w.+-]*)?|[a-z]+(?: online)?)"
)
_RECORD_END = r"(?=\s*(?:[,.;!()]|$)|\s+(?:and|but|so|because|now|for|nothing|these days)\b)"
_PLATFORM = (
    r"(?:ios|android|web|desktop|mobile|steam|windows|macos|mac|linux|pc|switch|nintendo switch|"
    r"playstation|ps5|xbox)"
)
_PLATFORM_NAMES = {
    "ios": "iOS",
    "pc": "PC",
    "ps5": "PS5",
    "macos": "macOS",
}


def records_kept(f: Filling) -> bool:
    """A record kept in a tool: a spreadsheet, or a tool by its name (in lower case only one of
    the lexicon's, "quickbooks"); written with its capitals ("a google sheet" → "a Google
    Sheet")."""
    tool = f.values.get("v", "").strip().rstrip(".,")
    low = tool.lower()
    sheet = re.search(r"\b(?:sheet|sheets|spreadsheet|excel)\b", low)
    if not sheet and not (tool[:1].isupper() and is_tool(tool)) and low.split()[0] not in TECH:
        return False
    words = tool.split()
    f.values["v"] = " ".join(
        w if w in ("a", "an") or not w.islower() else _capital(w) for w in words
    )
    f.values["p"] = f.groups.get("p", "").lower()
    return True


def platforms(f: Filling) -> bool:
    """ "android only" → "Android only"; "switch and steam" → "Switch and Steam"."""
    said = f.groups.get("v", "")
    names = re.sub(
        _PLATFORM,
        lambda m: _PLATFORM_NAMES.get(m.group(0).lower(), m.group(0)[:1].upper() + m.group(0)[1:]),
        said,
        flags=re.I,
    )
    f.values["v"] = names + (f.groups.get("o") or "")
    return True


def decided_against(f: Filling) -> bool:
    """A tool decided against, by its name ("kubernetes" → "Kubernetes")."""
    f.values["v"] = f.groups.get("v") or f.groups.get("w") or ""
    return _a_named_tech(f.values["v"]) and capital_tool_v(f)


def hosted(f: Filling) -> bool:
    """ "hosted on azure" → "Hosted on Azure": a technology only (never "hosted on a farm")."""
    tool = (f.groups.get("v") or f.groups.get("w") or "").strip()
    if not is_tech(tool):
        return False
    f.values["v"] = tool
    return deployed(f)


def deployed(f: Filling) -> bool:
    """ "we host …" → "Hosted on …"; a second tool only when it is one ("with my team" is none: no
    line); a tool typed in lower case written as its name ("docker compose" → "Docker
    Compose")."""
    verb = (f.groups.get("k") or f.groups.get("k2") or "").lower()
    if verb.startswith("host"):
        f.template = "Hosted on {v}"
    first, _, second = f.values["v"].partition(" with ")
    if second and not is_tech(second):
        second = ""  # "on Hetzner with my team": the team is no tool
    f.values["v"] = " with ".join(
        " ".join(
            w if re.fullmatch(rf"an?|{_MACHINE}", w) else w[:1].upper() + w[1:] for w in t.split()
        )
        if t.islower()
        else t
        for t in (first, second)
        if t
    )
    return True


def each_tool(text: str) -> list[str]:
    """ "Uses Django 5 with PostgreSQL 16" → one line per tool, each a tool ("… and Gusto for
    payroll" is one, "… with my team" none: the list ends there)."""
    verb, _, rest = text.partition(" ")
    if verb not in ("Uses", "Chose"):
        return [text]
    out = []
    for said in _LIST.split(rest):
        first, _, more = said.strip().partition(" ")
        item = f"{_ALIASES.get(first, first)} {more}".strip()  # "RN 0.74" → "React Native 0.74"
        if not item or not is_tech(item):
            break
        if item.islower():  # "postgres 16" → "Postgres 16" (not its purpose: "… for invoices")
            name, sep, purpose = item.partition(" for ")
            item = " ".join(_capital(w) for w in name.split()) + sep + purpose
        out.append(f"{verb} {item}")
    return out or [text]


#: Names typed in lower case that are written in capitals.
_ACRONYMS = frozenset("aws gcp ecs eks gke aks php sql api ci cd".split())


#: Tools typed in lower case, as their makers write them.
_SPELLED = {
    w.lower(): w
    for w in (
        "MySQL PostgreSQL SQLite MongoDB GitHub GitLab JavaScript TypeScript GraphQL FastAPI "
        "QuickBooks WordPress WooCommerce DigitalOcean Next.js Node.js Vue.js TimescaleDB "
        "ClickHouse DuckDB BigQuery DynamoDB"
    ).split()
}


def _capital(word: str) -> str:
    """ "mysql" → "MySQL", "aws" → "AWS", "django" → "Django"."""
    if word in _ACRONYMS:
        return word.upper()
    return _SPELLED.get(word, word[:1].upper() + word[1:])


def is_tech_list(value: str) -> bool:
    """Tools in a list ("Django 5 + Postgres 16", "kotlin + spring boot 3"): the first is one."""
    first = _LIST.split(value.strip(), maxsplit=1)[0]
    return is_tech(first)


def is_tool_list(value: str) -> bool:
    """As ``is_tech_list``, any tool ("we use Slack", as the older rule read it)."""
    return is_tool(value) or is_tech_list(value)


def _a_tool_no_place(value: str) -> bool:
    """A tool a team moves to, never a town it moves to ("we moved from Bombay to Pune")."""
    return is_tool(value) and not is_place(value)


#: A machine of a host, said after its name ("a DigitalOcean droplet", "a Hetzner VPS").
_MACHINE = r"(?:droplet|server|vps|VPS|instance|box|cluster|vm|VM)"


def a_host(value: str) -> bool:
    """A technology, said with its machine ("a DigitalOcean droplet") or alone ("AWS ECS")."""
    return is_tech(re.sub(rf"^an? |\s+{_MACHINE}$", "", value.split(" with ")[0]))


#: Releases said to recur ("we release every second Thursday", "prod release is every other
#: thursday").
_RELEASES = lazy(
    rf"\b(?:release|ship|deploy)s?\b[^.;!?]{{0,40}}?\b(?:{CADENCE}|on the (?:first|last))", re.I
)


def a_freeze_before(f: Filling) -> bool:
    """A freeze before a release, in a message that says when releases are."""
    f.values["d"] = f.groups.get("d", "").capitalize()
    return bool(_RELEASES.search(f.message or f.match.string))


#: A clause that opens with a part of the user's stack ("Backend is …", "our frontend …").
_OUR_PART = lazy(rf"^(?:(?:the|our|all our|my)\s)?(?:[a-z-]+ )?{_PART}\b", re.I)


def a_part_of_ours(f: Filling) -> bool:
    """A part named after a comma ("…, frontend is Vue 3") only after a part of the user's own
    ("Backend is FastAPI, …"; never "my sister's backend is Rails, frontend is React")."""
    before = f.match.string[: f.match.start()]
    return not before.rstrip().endswith((",", ";", ", and")) or bool(_OUR_PART.match(before))


#: A message that says a choice of tool changed.
_SWITCH_CUE = lazy(
    r"\b(?:switching|switch|scratch that|instead|actually|change of plan|changed (?:our|my) "
    r"minds?|migrating|moving)\b",
    re.I,
)


def switch_said(f: Filling) -> bool:
    """Only in a message that says the choice changed."""
    return bool(_SWITCH_CUE.search(f.message or f.match.string))


def a_database(value: str) -> bool:
    """A database: the one kind of tool a correction with no old value names the line of (the
    file's one database line); "we picked Vue instead" would leave the old framework beside it.
    Its major version may follow it ("Postgres 16"; said in words, ``shorthand.dictated`` has
    written it in digits)."""
    value = _DB_VERSION.sub("", value.strip())
    return is_tech(value) and value.lower() in DATABASES


#: A database's major version said after it ("Postgres 16", "MySQL 8").
_DB_VERSION = lazy(r"\s+v?\d{1,2}(?:\.\d+)?$", re.I)


#: "instead" said of another thing than the one database line: "instead of Memcached", "instead
#: for the cache", "For the analytics we went with ClickHouse instead".
_OTHER_SCOPE_AFTER = lazy(r"^\s+instead\s+(?:for\b|of (?P<o>[\w.-]+))", re.I)
#: A team not the user's own before "team went with": "the other team", "my sister's team".
_SOMEONE_ELSES_TEAM = lazy(r"\b(?:other|another|their|his|her|\w+'s)\s+$", re.I)
_OTHER_SCOPE_BEFORE = lazy(
    # a part named ("for the cache", "on our mobile app"), not a time ("in the end")
    r"\b(?:for|on|in) (?:the|our|my) (?!(?:end|meantime|moment|past|first place|long run|short "
    r"term|time being|other hand)\b)[\w-]+(?: [\w-]+)?,?\s*$",
    re.I,
)


def instead_of_the_line(f: Filling) -> bool:
    """A database chosen "instead" of the one database line, never of another thing named beside
    it ("for the cache we went with Redis instead of Memcached"), nor by another team ("the other
    team went with Postgres instead")."""
    text, end = f.match.string, f.match.end()
    before = re.split(r"[.!?;]\s", text[: f.match.start()])[-1]
    after = _OTHER_SCOPE_AFTER.match(text[end:])
    if after and not (after.group("o") and a_database(after.group("o"))):
        return False  # "instead for the cache", "instead of Memcached" (never "of Postgres")
    if _SOMEONE_ELSES_TEAM.search(before):
        return False
    return not (re.match(r"\s+instead\b", text[end:], re.I) and _OTHER_SCOPE_BEFORE.search(before))


RULES = [
    # project facts and decisions
    rule(
        r"\bwe(?:'ve| have)? (?:now )?(?:switched|moved|migrated) (?:\w+ )?from "
        rf"(?P<o>[^,.;!?()]{{1,40}}?) to "
        rf"(?P<v>[^,.;:!?()]{{1,60}}?){PSTOP}",
        "Uses {v} instead of {o}",
        {"v": _a_tool_no_place, "o": _a_tool_no_place},
        "correction",
        change=True,
    ),
    rule(
        r"\b(?:i|we|the team|our team)(?:'ve| have)? (?:decided|agreed)(?: (?:yesterday|today|this "
        r"morning|last week|together))? "
        r"(?:to |that |on |for )(?P<v>.{3,120}?)\s*[.!]?$",
        "Decided: {v3}",
        finish=names_a_choice,
    ),
    rule(
        rf"\b(?:i|we)(?:'ve| have)? (?:chose|chosen|picked|went with|settled on|opted for) {VAL}",
        "Chose {v}",
        {"v": is_tool},
        split=each_tool,
        finish=instead_of_the_line,
    ),
    rule(
        r"\bwe(?:'re| are|'ve been| have been)? (?:now |currently )?(?:use|using|run on|running "
        r"on|build on|"
        rf"building on|rely on) {_TOOLS}(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and (?:we|it|our|the)|"
        r"but|so|because|"
        r"instead|now|these days)\b)",
        "Uses {v}",
        {"v": is_tool_list},
        split=each_tool,
    ),
    rule(
        r"\bour (?:[a-z]+ )?(?:stack|infrastructure|infra|backend|frontend|platform|services?|"
        r"pipeline|deployment) "
        rf"(?:now )?(?:runs|is running|is built|is deployed) on {_TOOLS}"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and (?:is|we|our|it|the)|but|so|because|now|"
        r"instead)\b)",
        "Uses {v}",
        {"v": is_tool_list},
        split=each_tool,
    ),
    rule(
        rf"{_PROJECT} is (?:written|built|implemented|coded) in {_TOOLS}"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and|but|so|because|with|which)\b)",
        "{p} is written in {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"{_PROJECT} is (?:written|built|implemented) in [^,.;]{{1,40}}? and (?:is )?(?:deployed|"
        r"hosted|running|runs) "
        rf"on (?P<v>{_A_TOOL})",
        "{p} runs on {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"{_PROJECT} (?:is (?:now )?(?:deployed|hosted|running)|(?:now )?runs) on {_TOOLS}"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and|but|so|because|with|which|now)\b)",
        "{p} runs on {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        r"\bwe(?:'ve| have)? (?:just |now |finally )?(?:upgraded|updated|moved|bumped|migrated) "
        r"(?P<t>(?-i:[A-Z])[\w.+-]*)"
        r" from (?:version |v)?(?P<o>\d+(?:\.\d+)*[a-z]?) to (?:version |"
        r"v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v} instead of {t} {o}",
        {"t": is_tool},
        "correction",
        change=True,
    ),
    rule(
        r"\bwe(?:'ve| have)? (?:just |now |finally )?(?:upgraded|updated|bumped) "
        r"(?P<t>(?-i:[A-Z])[\w.+-]*) to "
        r"(?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v}",
        {"t": is_tool},
        "correction",
        change=True,
    ),
    rule(
        r"\bwe(?:'re| are) (?:now |currently |still )?on (?P<t>[A-Za-z][\w.+-]*) (?:version |"
        r"v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v}",
        {"t": is_tool},
        finish=capital_tool,
    ),
    rule(
        r"^(?:we|our team|the team)(?:'ve| have)? (?:all )?(?:agreed|decided) (?:to |that "
        r"we(?:'ll| will) |on )"
        rf"(?P<v>[^.;!?]{{3,80}}?\b(?:{CADENCE})\b[^.;!?]{{0,40}}?)\s*[.!]?$",
        "Team agreement: {v}",
        finish=keep_at,
    ),
    rule(
        r"^(?:we|our team|the team) (?P<v>(?:(?:deploy|release|ship)(?: to (?:production|prod|"
        r"staging|the app store|customers))?|meet|demo|plan|sync|review code|pair|"
        rf"(?:do|have|hold|run) {_TEAM_EVENT}) (?:{CADENCE})[^.;!?]{{0,40}}?)"
        r"\s*(?:[.!]?$|(?=,\s*(?:(?:and )?(?:the )?(?:code )?freeze|and the|so|but)\b))",
        "Team cadence: {v}",
        finish=keep_at,
    ),
    # a code freeze said by the release it comes before: "…, code freeze is the Wednesday before"
    # (in a message that says when releases are)
    rule(
        r"(?:^|,\s*|\band\s+)(?:the )?(?:code )?freeze (?:is )?(?:on )?the (?P<d>(?:mon|tues|"
        r"wednes|thurs|fri|satur|sun)day) before(?: (?:it|each release|every release|the "
        r"release))?(?=\s*(?:[,.;!]|$))",
        "Team cadence: code freeze on the {d} before each release",
        finish=a_freeze_before,
    ),
    rule(
        r"^(?:our |my )?(?P<e>(?:team |weekly |monthly |prod |production )?(?:daily standup|"
        r"standup|stand-up|retro|"
        r"retrospective|sprint planning|"
        r"planning|demo|"
        r"sync|releases?|deploys?|deployments?|sprints?|check-in|check in|staff meeting|team "
        r"meeting|huddle|"
        r"staff huddle|all-hands|1:1|one-on-one|design critique|critique|code review|review|weekly "
        r"call|call))"
        r"(?: (?:with|at) (?:the |our |my )?[a-z][\w ]{1,30}?)? (?:is|are|happens?|takes place) "
        r"(?P<v>(?:at|on|every|"
        r"each|once|twice|weekly|daily|biweekly|fortnightly|mondays|tuesdays|wednesdays|thursdays|"
        r"fridays|"
        r"saturdays|sundays|\w+ weeks long)[^.;!?,]{0,40}?)(?=\s*(?:[.!;]|,\s*(?:and|but)\b|$))",
        "Team cadence: {e} {v}",
        finish=whole_event,
    ),
    rule(
        rf"\bwe (?:no longer use|stopped using|don't use \S+ any ?more) {VAL}",
        "No longer uses {v}",
        {"v": is_tool},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        r"\b(?:the|our|my) (?P<k>project|app|product|service|system|repo|startup|company|team|"
        r"tool|library) is "
        rf"(?:called|named) {NAME}",
        "The {k} is called {v}",
        {"v": is_project},
    ),
    rule(
        r"\bi(?:'m| am) (?:leading|working on|building|running) (?:a|an|the) (?P<k>project|app|"
        r"product|service|"
        rf"startup|tool|library) (?:called|named) {NAME}",
        "The {k} is called {v}",
        {"v": is_project},
    ),
    rule(
        rf"{_PROJECT}(?:'s)? (?:now )?(?:stores|keeps|saves|persists) (?:its|their|all its)? ?data "
        rf"in {VAL}",
        "{p} stores its data in {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"\bwe (?:now )?(?:store|keep|save|persist) {_PROJECT}'s data in {VAL}",
        "{p} stores its data in {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"{_PROJECT}'s (?:database|data store|datastore|storage) is (?:now )?{VAL}",
        "{p} stores its data in {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"\bi (?:don't|do not) (?P<k>use) {VAL}\s+any ?more\b",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi no longer (?P<k>use) {VAL}",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    # "Our backend runs on Django 5 with PostgreSQL 16", "The mobile app is Flutter 3.22, Riverpod
    # …",
    # "backend is kotlin + spring boot 3", "All our infra is Terraform on AWS", "Client portal is
    # Next.js 14", and the next part after a comma ("Backend is FastAPI, frontend is Vue 3")
    rule(
        rf"(?:^|(?<=[,;] )(?:and )?|\b(?:the|our|all our|my)\s)(?:[a-z-]+ )?{_PART}"
        r"(?: for (?:my|our|the) [a-z "
        rf"]{{2,30}}?)?(?:'s)? "
        rf"(?:is built (?:with|on|in|using)|is on|lives in|is|=) "
        rf"{_TOOLS}(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and (?:is|we|our|it|the)|but|so|because|for "
        r"now|instead)\b)",
        "Uses {v}",
        {"v": is_tech_list},
        split=each_tool,
        finish=a_part_of_ours,
    ),
    rule(
        rf"\b(?:we(?:'re| are)|we)\s+(?:now |currently |still )?(?:(?:fully|completely|all|"
        rf"100%) )?on {_TOOLS}"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:for (?:the|our) \w+|now|these days|and (?:we|it))\b)",
        "Uses {v}",
        {"v": is_tech_list},
        split=each_tool,
    ),
    # "For my PhD thesis I'm using PyTorch 2.3"; "I use Vim"
    rule(
        rf"\bi(?:'m| am)? (?:now |currently |mostly |mainly )?(?:using|use) {_TOOLS}"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and|but|so|because|for (?!this\b|that\b))\b)",
        "Uses {v}",
        {"v": is_tech_list},
        split=each_tool,
    ),
    # "we're going with ClickHouse instead", "we'll go with Postgres"
    rule(
        r"\b(?:we(?:'re| are)|we(?:'ll| will)|i(?:'m| am)|let's) (?:now )?(?:going|go) with "
        r"(?P<v>[^,.;:!?()]{1,40}?)"
        r"(?=\s*(?:[,.;!?]|$)|\s+(?:instead|for|now|then)\b)",
        "Uses {v}",
        {"v": is_tech},
        change=True,
    ),
    # a choice said against the old one: "team voted postgres instead", "we picked Vue instead"
    rule(
        r"\b(?:we|the team|team|we all)(?:'ve| have)? (?:voted(?: for)?|picked|chose|settled on|"
        r"opted for|went with) (?P<v>[^,.;:!?()]{1,40}?)(?=\s+instead\b)",
        "Uses {v}",
        {"v": a_database},
        change=True,
        finish=instead_of_the_line,
    ),
    # a tool switched to, said in progress or as someone's call, in a message that says it
    # changes ("scratch that, the team lead wants PostgreSQL, we're switching", "we're switching
    # to Postgres"): the one database line of the file is the old one (``engine``)
    rule(
        r"\b(?:we(?:'re| are)(?: now| finally)? (?:switching|moving|migrating) (?:over )?to|"
        r"(?:the |our )?(?:team lead|tech lead|lead|cto|boss|client|architect|manager|team) "
        r"(?:now )?(?:wants?|prefers?|picked|chose|decided on|insists on)) "
        r"(?P<v>[^,.;:!?()]{1,40}?)"
        r"(?=\s*(?:[,.;!?—–]|$)|\s+(?:instead|for|now|then|so|and)\b)",
        "Uses {v}",
        {"v": a_database},
        "correction",
        change=True,
        finish=switch_said,
    ),
    # "we switched the analytics service to ClickHouse"
    rule(
        r"\bwe(?:'ve| have)? (?:now |just )?(?:switched|moved|migrated) (?:the |our "
        rf")?(?P<p>[a-z][\w-]* {PROJECT_NOUN}) "
        rf"to {VAL}",
        "Uses {v} for the {p}",
        {"v": is_tech},
        change=True,
    ),
    # "project is on python 3.10"
    rule(
        rf"\b(?:the |our |my )?(?:[a-z-]+ )?{_PART} is (?:now |still )?on (?P<t>[A-Za-z][\w.+-]*) "
        r"(?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)\b",
        "Uses {t} {v}",
        {"t": is_tech},
        finish=capital_tool,
    ),
    # a team rule changed by a vote or a decision: "the team voted yesterday, PRs under 50 lines
    # only need one approval now" (the old agreement on the same thing leaves: ``changes``)
    rule(
        TEAM_RULE_CHANGED,
        "Team agreement: {v}",
        None,
        "correction",
        change=True,
        finish=a_rule_anew,
    ),
    # "Team agreement: every PR needs two approvals" (a label of the user's)
    rule(r"^team agreement: (?P<v>.{5,160}?)\s*[.!]?$", "Team agreement: {v}", finish=keep_at),
    # "GoDaddy is cancelled", "Mongo is out", "jest is gone": a tool given up (in lower case only
    # a technology of the lexicon)
    rule(
        r"(?:^|(?<=[,;] )|(?<=[,;] and )|(?<=\bnow and ))(?P<v>[A-Za-z][\w.+-]*(?: "
        r"(?-i:[A-Z])[\w.+-]*)?) is (?:now "
        r")?(?:cancelled|canceled|out|"
        r"gone|retired|deprecated|dead to us)\b",
        "No longer uses {v}",
        {"v": _a_named_tech},
        "correction",
        change=True,
        finish=capital_tool_v,
    ),
    # "switched to vitest yesterday", "we moved over to Vite": the tool now in use (from what is
    # the rule above; a version is ``corrections``' "Now: version")
    rule(
        r"(?:^|\b(?:we|i)(?:'ve| have)? (?:just |now |finally |recently |also )?)(?:switched|"
        r"moved|migrated) (?:over )?to (?P<v>[A-Za-z][\w+#-]*(?:\.\w+)*(?: (?-i:[A-Z])[\w+#-]*)?)"
        r"(?=\s*(?:[,;!?]|\.(?!\w)|$)|\s+(?:yesterday|last|this|now|recently|instead|a while|"
        r"for (?:the|our|all) \w+)\b)",
        "Uses {v}",
        {"v": _a_named_tech},
        change=True,
        finish=a_team_switch,
    ),
    # "We migrated hosting to SiteGround"
    rule(
        r"\bwe(?:'ve| have)? (?:now |just )?(?:migrated|moved|switched) (?:our )?(?P<p>hosting|"
        r"email|payments|"
        rf"billing|auth|search|ci|analytics|storage|dns) to {_TOOLS}(?=\s*(?:[,;!?(]|\.(?!\w)|$)|"
        r"\s+(?:last|this|"
        r"and|but|so|because|now)\b)",
        "Uses {v} for {p}",
        {"v": is_tech},
        change=True,
    ),
    # where a small business keeps its records: "we do accounts in QuickBooks", "the stock list
    # is just a Google Sheet", "Our accounts are in Tally Prime", "the stock inventory I keep in a
    # Google Sheet" ("we use quickbooks online for invoices" is the "we use" rule's)
    *rules_of(
        (
            r"\b(?:we|i) (?:do|keep|track|manage|run|handle) (?:all )?(?:the |our |my )?"
            rf"{_RECORDS} (?:in|on|with|using|through) {_RECORD_TOOL}{_RECORD_END}",
            rf"(?:^|\b(?:the|our|my)\s)(?:[a-z]+ )?{_RECORDS} (?:is|are|lives?|is kept|are kept|is "
            rf"tracked|are tracked|is done|are done|i keep|we keep) (?:just |all |only |still )?"
            rf"(?:in|on) {_RECORD_TOOL}{_RECORD_END}",
            rf"(?:^|\b(?:the|our|my)\s)(?:[a-z]+ )?{_RECORDS} (?:is|are) just {_RECORD_TOOL}"
            rf"{_RECORD_END}",
        ),
        "Uses {v} for {p}",
        None,
        finish=records_kept,
    ),
    # the platforms an app or a game targets: "We target Android only", "targeting switch and
    # steam" (named platforms only)
    rule(
        rf"\b(?:we |it |app |the app |game |the game )?(?:target|targets|targeting|targetting) "
        rf"(?P<v>{_PLATFORM}(?:(?:,| and|,? \+|/| &) {_PLATFORM}){{0,3}})(?P<o> only| first)?\b",
        "Targets {v}",
        None,
        finish=platforms,
    ),
    # a stack as a label: "stack: django 5.1 / postgres 16 / ECS on aws"
    rule(
        rf"^(?:our |the |my )?(?:tech )?stack(?: is)?:\s*{_TOOLS}(?=\s*(?:[,;!?(]|\.(?!\w)|$))",
        "Uses {v}",
        {"v": is_tech_list},
        split=each_tool,
    ),
    # a tool decided against: "we decided not to use Kubernetes", "no kubernetes, team decided
    # it's overkill" (a tool of the lexicon or a capitalised one; never "decided not to go")
    rule(
        r"\b(?:i|we|the team|team|our team)(?:'ve| have)? (?:all )?(?:decided|agreed|chose) not to "
        rf"(?:use|adopt|go with|bother with|run|deploy on) (?P<v>{_NAMED_TOOL})"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:for|because|since|as|yet|at all|here|now)\b)|"
        rf"(?:^|, )no (?P<w>{_NAMED_TOOL}),? (?:the |our )?(?:team|we) (?:all )?"
        r"(?:decided|agreed)\b",
        "Decided: not to use {v}",
        None,
        negative=True,
        finish=decided_against,
    ),
    # "we're hosted on azure right now", "we are hosted with Hetzner" ("were" only with now: a past
    # host is no line)
    rule(
        r"\bwe(?:'re| are) (?:currently |now |all |still )?(?P<k>hosted) (?:on|with|at|in) "
        rf"(?P<v>{_HOST_TOOL})(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and|but|so|because|now|right now|"
        r"at the moment|for now)\b)|"
        rf"\bwere (?:currently )?(?P<k2>hosted) (?:on|with|at|in) (?P<w>{_HOST_TOOL})"
        r"(?= (?:right now|now|currently|at the moment)\b)",
        "Hosted on {v}",
        None,
        finish=lambda f: hosted(f),
    ),
    # "we deploy on Fly.io", "we host everything on Hetzner with docker compose", "…, deployed on
    # AWS ECS" (after a stack said in the clause)
    rule(
        r"(?:\bwe (?P<k>deploy|host) (?:it |everything |the app |our app |all |them )?|"
        r", (?P<k2>deployed|hosted) )(?:on|to|with) "
        rf"(?P<v>(?:an? )?{_A_TOOL}(?: {_MACHINE})?(?: with {_A_TOOL})?)"
        r"(?=\s*(?:[,;!?(]|\.(?!\w)|$)|\s+(?:and|but|so|because|now|to)\b)",
        "Deployed on {v}",
        {"v": a_host},
        finish=deployed,
    ),
]

CANON = [
    (r"^(.+?) is written in (.+)$", MEMORY, "language:{1}"),
    (r"^(.+?) runs on (.+)$", MEMORY, None),
    (r"^Team (?:agreement|cadence): (.+)$", MEMORY, None),
    (r"^The (\w+) is called (.+)$", MEMORY, "name:{1}"),
    (r"^(.+?) stores its data in (.+)$", MEMORY, "database:{1}"),
    (r"^(?:Uses|Chose|Decided:|No longer uses) (.+)$", MEMORY, None),
    (r"^(?:Deployed|Hosted) on (.+)$", MEMORY, None),
    (r"^Targets (.+)$", MEMORY, None),
]


# -- the stack named: every technology of the data a clause of the user's own work names ----------
#
# "our monorepo is pnpm + turborepo, node 20 LTS", "thesis code is python 3.11 + pytorch 2.3", "we
# use kafka for events and clickhouse for the analytics side", "Team decided: React Native with
# Expo": however the clause is worded, each technology ``kinds.technology`` knows is a line
# ``Uses X`` when the clause is about the user's own work (``_OURS``, an "I" doing work with it,
# or a note of nothing but tools) and nothing in it makes it a wish, a question, a plan, a change,
# a past, someone else's or a like (``_NOT_A_STACK``). A tool said as dropped or old ("no more
# Node", "npm's out", "leaving the old Python ones alone") is none. Tried only when no other rule
# read the clause (a ``{K}`` rule: ``extract``).

#: A word of a technology's name, as typed ("next.js", "c++", "shadcn/ui", "m-pesa", ".net").
_TECH_TOKEN = lazy(r"[.]?[A-Za-z0-9][\w.+#/&'’-]*|\+|&")
_TECH_VERSION = lazy(r"v?\d+(?:\.\d+)*(?:\.x|x|\+)?|lts", re.I)
#: The clause is about the user's own work or project.
_OURS = lazy(
    r"\b(?:we|we're|were|we've|we'll|our|ours|us|team|the team|"
    r"my (?:[\w-]+ )?(?:project|app|thesis|code|site|website|game|bot|stack|repo|monorepo|"
    r"services?|server|homelab|setup|lab|pipeline|analysis|research|dissertation|startup|"
    r"business|shop|studio|portfolio|blog)|"
    r"i (?:mostly |mainly |only |also |currently |now )?(?:use|do everything in|record|edit|mix|"
    r"code|program|develop|build|write|deploy|host|keep|track|run|work in|work with|design|"
    r"model|model in|draw|analy[sz]e)|"
    r"i(?:'m| am) (?:mostly |mainly |currently |now |still )?(?:using|on|building|writing|coding|"
    r"developing|programming|running|hosting|deploying|doing (?:it|everything|all|this) in)|"
    rf"(?:^|the |our |my )(?:[\w-]+ )?(?:{PROJECT_NOUN}|code|codebase|thesis|dissertation|"
    r"analysis|monorepo|repo|cluster|clusters|services)|(?:^|the )(?:[\w-]+ )?(?:stack|backend|"
    r"back end|frontend|front end|infra|infrastructure|ci|database|db|tests|monitoring|hosting|"
    r"erp|crm|cms|tooling|dashboards?|metrics|logs|logging|alerts|alerting|auth|payments|emails?|"
    r"search|storage|cache|caching|queues?|builds|deploys|docs|server|servers|client|styling|"
    r"state|orm|warehouse|data layer|bookkeeping|accounts|accounting|invoices|invoicing|"
    r"scheduling|booking|bookings|newsletter|website|site|shop)\b)\b|"
    r"^(?:[\w-]+ ){0,2}(?:stack|backend|frontend|tests?|ci|infra|infrastructure|db|"
    r"database|hosting|monitoring|tools|tooling|setup|app|api|services?|decided|agreed|settled|"
    r"decision|agreement)\s*:",
    re.I,
)
#: The clause is a wish, a question, a plan, a change, a past, someone else's or a feeling: its
#: tools are no stack of the user's (a change is the correction rules' to read).
_NOT_A_STACK = lazy(
    r"\?|\b(?:you|your|learn|learning|learnt|learned|study|studying|course|class|tutorial|"
    r"bootcamp|certificate|certification|exam|interview|hiring|job|jobs|position|love|loved|like|"
    r"liked|hate|hated|enjoy|prefer|favou?rite|fan|want|wanted|wanna|would|should|could|might|"
    r"may|maybe|perhaps|probably|considering|consider|thinking|think|plan|planning|going to|gonna|"
    r"will|try|trying|tried|if|whether|help|how|what|which|why|recommend|suggest|compare|vs|"
    r"versus|better|switch|switched|switching|migrate|migrated|migrating|migration|move|moved|"
    r"moving|upgrade|upgraded|upgrading|replace|replaced|replacing|rewrite|rewriting|port|porting|"
    r"used to|previously|formerly|before|last job|old job|ago|was|were|back then|he|she|they|"
    r"his|her|their|them|friend|friends|brother|sister|wife|husband|partner|son|daughter|boss|"
    r"(?:my|his|her|their|our|the) (?:clients?|colleagues?|manager|lead|tech lead|team lead|cto|"
    r"ceo|boss|architect|founder|co-founder|pm|product manager|freelancer|contractor|agency)|"
    r"dad|mum|mom|someone|somebody|people|everyone|"
    r"play|plays|playing|chose|choose|picked|pick|opted|voted|evaluating|testing|comparing|exploring|or|either|"
    r"candidates?|options?|alternatives?|proposals?|proposed|ideas?|e\.g|such as|like|"
    r"last (?:year|month|week|sprint)|dream|wish|hope|hoping|someday|one day|wondering|anyone|"
    r"tonight|today|tomorrow|"
    r"(?:this|next) (?:week|month|sprint)|examples?|snippets?|by default|answers?|replies|reply|"
    r"respond|please|relies|rely|relying|talk|talks|talking|speaks?|integrat\w*|connects?|"
    r"calls?|sends?|syncs?|pulls?|pushes|feeds?|another|other teams?|runs|run|running|"
    r"^(?:give|show|write|use|answer|explain|assume|keep|always|never|don't|do not|"
    r"stop|format|avoid|include|tell|list|put|make|stick))\b",
    re.I,
)
#: Words in "-ed" that say how a stack is, not what happened to a tool once ("we compared
#: Postgres and MySQL", "we tested GraphQL last year", "we considered Kafka" are none).
_STACK_PAST = frozenset(
    "based built hosted written deployed managed used settled decided agreed standardised "
    "standardized called named kept stored powered backed tracked locked fixed required "
    "needed shared self-hosted automated typed red bed "
    "need speed feed seed embed shed".split()
)
#: Said before a tool, it is dropped, old or not used ("no more Node", "leaving the old Python
#: ones", "from Redux to Zustand").
_NOT_THIS_TOOL = frozenset(
    "no not never without nor non don't dont drop dropping dropped ditch ditched ditching off from "
    "instead except than leave leaving left old older legacy retire retired retiring avoid "
    "avoiding against away more at".split()
)
#: Said after a tool: it is gone ("npm's out", "Mongo is gone").
_GONE_AFTER = frozenset("out gone dead deprecated retired dropped".split())
#: The words of a note of nothing but tools ("flutter 3.22 app, firebase auth + firestore for the
#: backend", "python 3.11 + pytorch 2.3"): any other word makes it no note.
_NOTE_WORDS = frozenset(
    "+ & w/ with and on in for the a an all only just mostly plus app apps backend back frontend "
    "front end api apis stack db database auth tests test unit e2e infra ci cd hosting monorepo "
    "repo services service server mobile web site website strict mode side orm cache queue "
    "search storage styling ui state management analytics events deploy deploys builds build "
    "android ios ".split()
)


def _tool_at(words: list[str], i: int) -> tuple[str, int] | None:
    """The technology named from ``words[i]`` (its spelling, how many words), longest first."""
    for n in range(min(TECH_WORDS, len(words) - i), 0, -1):
        said = " ".join(words[i : i + n])
        found = technology(said)
        if found is None:
            continue
        name, common = found
        version = i + n < len(words) and _TECH_VERSION.fullmatch(words[i + n])
        if common and not version and (name.islower() or not said[:1].isupper() or i == 0):
            # "go", "rust", "express" as words; "Go" opening the clause; a tool its makers write
            # in lower case, written capitalised, is a name ("We had to rehome Pip", R-202)
            return None
        return name, n
    return None


def _words(text: str) -> list[str]:
    """The clause's words, their punctuation off; a word joined by a colon ("CS:GO", "https://")
    is one word and names no tool."""
    out = []
    for said in text.replace("+", " + ").split():
        w = said.strip(".,;:!?()[]{}\"'’“”")
        if not w or ":" in w or not _TECH_TOKEN.fullmatch(w):
            out.append("·")
            continue
        out.append(w[:-2] + " 's" if w.endswith(("'s", "’s")) else w)
    return " ".join(out).split()


#: A clause that gives a name: a pet, a child, a person called like a tool ("a rabbit named Pip",
#: "we named the baby Julia", "our cat is called Rust") names no stack.
_NAMING = lazy(r"\b(?:named|called|nicknamed|name'?s|names? (?:is|are|was))\b", re.I)


def stack_named(text: str) -> list[str]:
    """Every technology the clause names as the user's own stack, each with its version (``Uses
    Go 1.22``), or none (see above)."""
    if (
        _NOT_A_STACK.search(text)
        or _NAMING.search(text)
        or any(w.lower().endswith("ed") and w.lower() not in _STACK_PAST for w in text.split())
    ):
        return []
    words = _words(text)
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        tool = _tool_at(words, i)
        if tool is None:
            i += 1
            continue
        name, n = tool
        end = i + n
        while end < len(words) and _TECH_VERSION.fullmatch(words[end]):
            end += 1
        found.append((i, end, " ".join([name, *words[i + n : end]])))
        i = end
    if not found or not (_OURS.search(text) or _a_note(words, found)):
        return []
    out = []
    read = _read_by_others(text)
    for start, end, said in found:
        if any(said.split()[0].lower() in other for other in read):
            continue  # "Uses Riverpod for state management": another rule of the kind read it
        before = {w.lower() for w in words[max(0, start - 3) : start]}
        after = {w.lower() for w in words[end : end + 3]}
        if before & _NOT_THIS_TOOL or after & _GONE_AFTER or _in_a_place(words, start, end):
            continue
        line = f"Uses {said}"
        if line not in out:
            out.append(line)
    return out


def _read_by_others(text: str) -> list[str]:
    """What the other rules of this kind read in the clause (a match whose values are their
    kinds), in lower case: a tool one of them reads (with its purpose, its host, its version) is
    theirs to write."""
    low = text.lower()
    out = []
    for other in RULES:
        if other.finish is stack_lines or not all(
            any(lit in low for lit in need) for need in other.gate
        ):
            continue
        for m in other.pattern.finditer(text):
            groups = {k: v for k, v in m.groupdict().items() if v}
            if all(check(clean(groups.get(g, ""), True, strip=False)) for g, check in other.kinds):
                out.append(m.group(0).lower())
    return out


def _in_a_place(words: list[str], start: int, end: int) -> bool:
    """The tool's word is part of a place's name ("Swift Current", "Port Harcourt")."""
    before = words[max(0, start - 1) : start]
    after = words[end : end + 1]
    named = " ".join(words[start:end])
    return any(
        known_place(" ".join(part))
        for part in ([*before, named], [named, *after])
        if len(part) > 1 and all(w[:1].isupper() for w in part)
    )


def _a_note(words: list[str], found: list[tuple[int, int, str]]) -> bool:
    """The clause is a note of nothing but tools and the parts they are for."""
    named = {k for start, end, _ in found for k in range(start, end)}
    rest = [w.lower() for k, w in enumerate(words) if k not in named]
    return all(w in _NOTE_WORDS for w in rest) and (len(found) > 1 or len(named) > 1)


def stack_lines(f: Filling) -> bool:
    """The lines ``stack_named`` reads in the clause, one a line (``split``)."""
    lines = stack_named(f.match.string)
    f.values["S"] = "\n".join(lines)
    return bool(lines)


def _any_technology() -> str:
    """A clause naming a technology of the data (any case; ``_tool_at`` decides): the pattern's
    literals are the gate, so a clause naming none runs no code of this rule."""
    names = sorted(technology_names(), key=lambda name: (-len(name), name))
    # a clause this rule refuses is no match at all, so a plain statement of it stays the
    # ``statements`` stage's to read ("Our API relies on Stripe Connect")
    return (
        rf"^(?!.*?(?:{_NOT_A_STACK.pattern}))"
        r"(?!.*?\b(?!(?:" + "|".join(sorted(_STACK_PAST)) + r")\b)[a-z]{2,}ed\b)"
        r".*?(?<![\w.])(?:" + "|".join(map(re.escape, names)) + r")(?![\w+#])"
    )


RULES += [rule(_any_technology(), "{S}", finish=stack_lines, split=lambda text: text.split("\n"))]
