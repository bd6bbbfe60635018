"""What stays true about the user's work: tools in use and their versions, what a service is written
in and runs on, a project's name and database, choices and decisions, team agreements and cadences.

A tool is a technology of ``lexicon.TECH`` or a capitalised name (``values.is_tool``): "we use a
hack" names none. An upgrade ("we upgraded Postgres from 14 to 16") replaces the old version's line;
a decision names what was decided on ("we decided to call it a day" gives nothing).
"""

from __future__ import annotations

from .core import MEMORY, Filling, rule
from .lexicon import NOT_NAMES, PROJECT_NOUN
from .phrases import NAME, VAL
from .values import clean, is_project, is_specific, is_tool

# A project: a capitalised name, or a described one ("the inventory app"), as the subject of a
# storage fact.
_PROJECT = rf"(?:\b|^)(?:the |our )?(?P<p>(?-i:[A-Z])[\w-]+|(?-i:[a-z])[\w-]* {PROJECT_NOUN})"


_CADENCE = (
    r"(?:every|each) (?:other |second |single )?(?:day|weekday|week|month|quarter|year|morning|afternoon|evening|"
    r"sprint|release|\w+day|two|three|four|six|\d+)|(?:once|twice|three times) a (?:day|week|month|quarter|year|"
    r"sprint)|weekly|daily|monthly|biweekly|bi-weekly|fortnightly|quarterly|on (?:mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays)"
)


#: What a team holds on a cadence ("we have a retro every Friday"), not "we have fun every time".
_TEAM_EVENT = (
    r"(?:a |an |our |the )?(?:daily |weekly |sprint |team )?(?:standup|stand-up|retro|retrospective|demo|sync|"
    r"planning|review|code review|meeting|one-on-one|1:1|all-hands|release|deploy|deployment|check-in)s?"
)


def names_a_choice(f: Filling) -> bool:
    """A decision names what was decided on: "we decided to call it a day" gives nothing."""
    raw = f.groups.get("v", "").strip().rstrip(".!")
    return any(
        is_tool(w.strip(",.")) and w[:1].isupper() and w.lower() not in NOT_NAMES
        for w in raw.split()[1:]
    )


def keep_at(f: Filling) -> bool:
    """A cadence keeps its "at": "at 9:30 every day"."""
    f.values["v"] = clean(f.groups["v"], False, strip=False)
    return True


RULES = [
    # project facts and decisions
    rule(
        rf"\bwe(?:'ve| have)? (?:now )?(?:switched|moved|migrated) (?:\w+ )?from (?P<o>[^,.;!?()]{{1,40}}?) to {VAL}",
        "Uses {v} instead of {o}",
        {"v": is_tool, "o": is_tool},
        "correction",
        change=True,
    ),
    rule(
        r"\b(?:i|we)(?:'ve| have)? (?:decided|agreed) (?:to |that |on )(?P<v>.{3,120}?)\s*[.!]?$",
        "Decided: {v3}",
        finish=names_a_choice,
    ),
    rule(
        rf"\b(?:i|we)(?:'ve| have)? (?:chose|chosen|picked|went with|settled on|opted for) {VAL}",
        "Chose {v}",
        {"v": is_tool},
    ),
    rule(
        rf"\bwe(?:'re| are|'ve been| have been)? (?:now |currently )?(?:use|using|run on|running on|build on|"
        rf"building on|rely on) {VAL}",
        "Uses {v}",
        {"v": is_tool},
    ),
    rule(
        rf"\bour (?:stack|infrastructure|infra|backend|frontend|platform|services?|pipeline|deployment) "
        rf"(?:now )?(?:runs|is running|is built|is deployed) on {VAL}",
        "Uses {v}",
        {"v": is_tool},
    ),
    rule(
        rf"{_PROJECT} is (?:written|built|implemented|coded) in {VAL}",
        "{p} is written in {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"{_PROJECT} is (?:written|built|implemented) in [^,.;]{{1,40}}? and (?:is )?(?:deployed|hosted|running|runs) "
        rf"on {VAL}",
        "{p} runs on {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        rf"{_PROJECT} (?:is (?:now )?(?:deployed|hosted|running)|(?:now )?runs) on {VAL}",
        "{p} runs on {v}",
        {"p": is_project, "v": is_tool},
    ),
    rule(
        r"\bwe(?:'ve| have)? (?:just |now |finally )?(?:upgraded|updated|moved|bumped|migrated) (?P<t>(?-i:[A-Z])[\w.+-]*)"
        r" from (?:version |v)?(?P<o>\d+(?:\.\d+)*[a-z]?) to (?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v} instead of {t} {o}",
        {"t": is_tool},
        "correction",
        change=True,
    ),
    rule(
        r"\bwe(?:'ve| have)? (?:just |now |finally )?(?:upgraded|updated|bumped) (?P<t>(?-i:[A-Z])[\w.+-]*) to "
        r"(?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v}",
        {"t": is_tool},
        "correction",
        change=True,
    ),
    rule(
        r"\bwe(?:'re| are) (?:now |currently |still )?on (?P<t>(?-i:[A-Z])[\w.+-]*) (?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v}",
        {"t": is_tool},
    ),
    rule(
        rf"^(?:we|our team|the team)(?:'ve| have)? (?:all )?(?:agreed|decided) (?:to |that we(?:'ll| will) |on )"
        rf"(?P<v>[^.;!?]{{3,80}}?\b(?:{_CADENCE})\b[^.;!?]{{0,40}}?)\s*[.!]?$",
        "Team agreement: {v}",
        finish=keep_at,
    ),
    rule(
        rf"^(?:we|our team|the team) (?P<v>(?:deploy|release|ship|meet|demo|plan|sync|review code|pair|"
        rf"(?:do|have|hold|run) {_TEAM_EVENT}) (?:{_CADENCE})[^.;!?]{{0,40}}?)"
        r"\s*[.!]?$",
        "Team cadence: {v}",
        finish=keep_at,
    ),
    rule(
        r"^our (?P<e>daily standup|standup|stand-up|retro|retrospective|sprint planning|planning|demo|sync|"
        r"releases?|deploys?|deployments?|sprints?) (?:is|are|happens?|takes place) (?P<v>(?:at|on|every|each|once|"
        r"twice|weekly|daily|biweekly|fortnightly|\w+ weeks long)[^.;!?]{0,40}?)\s*[.!]?$",
        "Team cadence: {e} {v}",
        finish=keep_at,
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
        rf"\b(?:the|our|my) (?P<k>project|app|product|service|system|repo|startup|company|team|tool|library) is "
        rf"(?:called|named) {NAME}",
        "The {k} is called {v}",
        {"v": is_project},
    ),
    rule(
        rf"\bi(?:'m| am) (?:leading|working on|building|running) (?:a|an|the) (?P<k>project|app|product|service|"
        rf"startup|tool|library) (?:called|named) {NAME}",
        "The {k} is called {v}",
        {"v": is_project},
    ),
    rule(
        rf"{_PROJECT}(?:'s)? (?:now )?(?:stores|keeps|saves|persists) (?:its|their|all its)? ?data in {VAL}",
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
]

CANON = [
    (r"^(.+?) is written in (.+)$", MEMORY, "language:{1}"),
    (r"^(.+?) runs on (.+)$", MEMORY, None),
    (r"^Team (?:agreement|cadence): (.+)$", MEMORY, None),
    (r"^The (\w+) is called (.+)$", MEMORY, "name:{1}"),
    (r"^(.+?) stores its data in (.+)$", MEMORY, "database:{1}"),
    (r"^(?:Uses|Chose|Decided:|No longer uses) (.+)$", MEMORY, None),
]
