"""Dated things: deadlines with their full subject, appointments, trips.

A date is made absolute from the day it was said (``dates.resolve``); a phrase that names no single
day keeps the user's words ("Deadline for thesis: 3/4"), and one that is no date at all ("due
soon") gives no fact.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..dates import DATE_PHRASE, SPELLED_CLOCK, clock
from ..kinds import known_place
from . import project
from .core import MEMORY, USER, Filling, rule
from .lexicon import CADENCE, PEOPLE
from .person import third_person
from .phrases import NAME
from .values import is_any_thing, is_place, is_specific

APPOINTMENTS = (
    "dentist|doctor|doctor's|dental|eye|hair|haircut|vet|physio|therapy|job|interview|medical|"
    "hospital|optician|check-up|checkup"
)
_DATE = rf"(?P<d>{DATE_PHRASE})"


def what_is_due(f: Filling) -> bool:
    """A deadline said with no subject ("the deadline is Friday") is a bare deadline."""
    if "v" not in f.values:
        f.template = f.template.replace("Deadline for {v}", "Deadline")
    elif f.values["v"].lower() in _NO_SUBJECT:
        return (
            False  # "the new deadline is March 17": a date corrected (``corrections``), no subject
        )
    return True


#: Words before "deadline" that name no subject ("the new deadline", "the final date").
_NO_SUBJECT = frozenset("new next final real actual revised updated current same".split())


#: Dated things a deadline is for (a correction of one replaces the old day: ``deadline:<what>``).
_DELIVERABLES = (
    r"(?:release|launch|go-live|go live|submission|delivery|deadline|due date|cutover|rollout)"
)
#: Other dated events, kept as "<event> on <day>".
_EVENTS = (
    r"(?:exam|test|court date|hearing|interview|presentation|demo|conference|wedding|surgery|"
    r"operation|"
    r"defen[cs]e|audit|review|trip|flight|party|move|moving day|opening|graduation)"
)
#: Work a routine is of: a routine with one of these is the work's (MEMORY), else the user's (USER).
_WORK = lazy(
    r"\b(?:meeting|call|1:1|one-on-one|standup|stand-up|sync|payroll|staff|team|clients?|shifts?|"
    r"office|manager|"
    r"developer|freelancer|boss|class|classes|lectures?|patients|review|report|invoices?|"
    r"newsletter)\b",
    re.I,
)


#: The thing a dated deliverable is part of, said before it ("code freeze for the …", "Crunch
#: warning: feature freeze for the …"): one or two words, then "for" or "of".
_PART_BEFORE = lazy(
    r"(?:^|[:,;—–-]\s*|\b(?:the|our|my|a)\s+)(?P<h>[a-z][\w-]*(?: [a-z][\w-]*)?) (?:for|of)"
    r"(?: (?:the|our|my))?\s*$",
    re.I,
)


def dated_event(f: Filling) -> bool:
    """ "Our v2.0 release is on 14 November" → a deadline for it ("… deadline", "deadline for …"
    taken off: the template says it); "Court date for X is March 3" → an event on that day. A
    deliverable that is part of another thing said before it ("code freeze for the Steam launch
    is 1 October") dates that thing: ``Code freeze for the Steam launch on …``, never the
    launch's deadline; with no such thing to name ("… and for the launch is …"), nothing."""
    said = f.values.get("v", "")
    before = f.match.string[: f.match.start()] + f.groups.get("v", "").split(" ", 1)[0] * (
        f.groups.get("v", "").lower().startswith(("for ", "of "))
    )
    inner = re.search(rf"^(?P<h>.+?) (?:for|of) (?:the |our |my )?.*\b(?:{_DELIVERABLES})\b", said)
    part = _PART_BEFORE.search(before) if re.search(r"\b(?:for|of)\s*$", before, re.I) else None
    if re.search(r"\b(?:for|of)\s*$", before, re.I) and (part is None or _DETERMINER_ONLY(part)):
        return False
    deliverable = re.search(rf"\b{_DELIVERABLES}\b", said, re.I)
    what = re.sub(r"\s+deadline$", "", said, flags=re.I)
    what = re.sub(r"^(?:the )?deadline for (?:the |our |my )?", "", what, flags=re.I)
    if part is not None:  # "code freeze" + "for the Steam launch"
        what = f"{part.group('h')} for {re.sub(r'^(?:for|of) ', '', what)}"
        deliverable = None
    elif inner is not None and not re.match(rf"(?:{_DELIVERABLES})\b", said, re.I):
        if re.search(r"\w\s*$", f.match.string[: f.match.start()]):
            return False  # "the rehearsal dinner for the launch": a word of it left before
        deliverable = None  # "dinner for the launch": the dinner is what is dated
    # a memory line is a note about the user: "exam for my class 12 students" is the user's class
    what = third_person(what)
    f.values["v"] = what
    if not what or what.lower() in _NO_SUBJECT:
        return False
    if not deliverable:
        f.template = "{V} on {d}"
        f.values["V"] = what[:1].upper() + what[1:]
    return True


def _DETERMINER_ONLY(part: re.Match[str]) -> bool:
    return part.group("h").lower() in {"it", "is", "and", "but", "that", "this", "them", "us"}


def a_routine(f: Filling) -> bool:
    """The user's routine in their words, third person, in the file of what it is about."""
    text = third_person(f.match.group(0).strip().rstrip(".!"))
    text = re.sub(r"^the user\s+", "", text, flags=re.I)
    f.values["v3"] = text
    if not _WORK.search(f.match.group(0)):
        f.template = "Habit: {v3}"
    return True


#: A team's meeting, by its name ("daily standup", "staff meeting", "lab meeting", "all hands").
_MEETING = (
    r"(?:(?:daily|weekly|monthly|biweekly|quarterly|team|staff|lab|sprint|morning|board|design|"
    r"faculty|department|clinic|ward|project|group|research|leadership|product|engineering) )*"
    r"(?:stand-?up meeting|standup|stand-up|staff meeting|team meeting|"
    r"meeting|huddle|sync|retro|retrospective|planning|all[- ]hands|1:1|one-on-one|check-in|"
    r"critique|review)s?"
)
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_WEEKDAY = rf"{_DAY}s?"
#: A clock time said as people type it ("9:30", "9.30am", "930am", "4pm", "at 8"); a bare number
#: only after "at".
_CLOCK = (
    r"(?:\d{1,2}[:.]\d{2}\s*(?:am|pm)?|\d{3,4}\s*(?:am|pm)|\d{1,2}\s*(?:am|pm)|(?<=at )\d{1,2}"
    r"(?! ?(?:days?|weeks?|months?|years?|people|times|min))|"
    # a time said in words, only after "at": "at eleven", "at half nine", "at ten fifteen"
    rf"(?<=at )(?:{SPELLED_CLOCK})(?! ?(?:days?|weeks?|months?|years?|people|times|of))\b|"
    # or after the meeting's "is": "stand-up is half past nine"
    rf"(?<=is )(?:{SPELLED_CLOCK})(?! ?(?:days?|weeks?|months?|years?|people|times|of))\b)"
)
#: Time zones said by their abbreviations ("daily standup 9.30am EAT"): read, and left out of the
#: line (the time is the user's own; an abbreviation is spelled out differently by everyone).
_ZONE_NAMES = (
    "UTC|GMT|BST|CET|CEST|EET|EEST|WET|WAT|CAT|EAT|SAST|IST|PKT|NPT|ICT|WIB|SGT|HKT|PHT|CST|JST|"
    "KST|AEST|AEDT|ACST|AWST|NZST|NZDT|EST|EDT|CDT|MST|MDT|PST|PDT|AKST|HST|BRT|ART|COT|PET|CLT|"
    "MSK|TRT|GST"
)
#: One part of when a meeting is: a time, a weekday, a cadence, a time zone.
_WHEN_PART = (
    rf"(?:(?:at|@) )?{_CLOCK}(?:\s*-\s*{_CLOCK})?(?: sharp| in the (?:morning|afternoon|evening))?|"
    rf"(?:(?:every|each) (?:day|morning|weekday|week|month|other {_WEEKDAY}|second {_WEEKDAY}|"
    rf"{_WEEKDAY}|thurs|tues|weds)|daily|weekly|monthly|(?:on )?weekdays|mon-fri|monday to friday|"
    rf"(?:on )?{_WEEKDAY}|(?:on )?(?:the )?(?:first|second|third|fourth|last) {_DAY} "
    r"of (?:each|every|the) (?:month|quarter)|(?:every|each) quarter|quarterly)|"
    r"\(?(?-i:[A-Z])[a-z]+\)? time|[a-z]+ time\b|"
    rf"(?-i:(?:{_ZONE_NAMES}))\b"
)
_WHEN = rf"(?P<v>(?:{_WHEN_PART})(?:,? (?:{_WHEN_PART})){{0,4}})(?:,? \(?(?P<z>[A-Za-z]+)\)?)?"
#: Where a meeting's time ends: the clause, or a reason or request after it.
_WHEN_END = (
    r"(?=\s*(?:[.!;]|$)|,\s*(?:so|and|but|dont|don't|do not|please|pls|which|because|that's|"
    r"before|after)\b|\s+(?:so|and|but|dont|don't|please|pls|before|because)\b|"
    r"\s+in (?:room|the|our)\b"
    # where it is held, after it: "…, on Google Meet", "… over Zoom", "…, at the community centre"
    r"|,?\s+(?:on|over|via|in) (?:google meet|meet|zoom|teams|ms teams|slack|skype|discord|"
    r"webex)(?=\s*(?:[.!;,]|$))|,\s*(?:at|in) (?:the|our) [a-z][a-z ]{2,30}(?=\s*(?:[.!;]|$)))"
)


#: A meeting said to recur: a cadence, a weekday in the plural, a day of each month.
_REGULAR = lazy(
    rf"\b(?:every|each|daily|weekly|monthly|biweekly|quarterly|quarter|weekdays|mon-fri|"
    rf"monday to friday|"
    rf"{_DAY}s)\b",
    re.I,
)


def _days(said: str) -> str:
    """ "monday" → "Mondays"; "weekends" kept."""
    day = said.lower()
    return day if day == "weekends" else day.capitalize().removesuffix("s") + "s"


_WEEKS = {"one": "1", "two": "2", "three": "3", "four": "4"}


def sprints(f: Filling) -> bool:
    """ "sprints are 2 weeks, start on mondays" → "2-week sprints starting on Mondays"."""
    weeks = (f.groups.get("n") or f.groups.get("m") or "").lower()
    day = f.groups.get("d") or f.groups.get("e") or ""
    f.values["v3"] = f"{_WEEKS.get(weeks, weeks)}-week sprints" + (
        f" starting on {_days(day)}" if day else ""
    )
    return True


def day_off(f: Filling) -> bool:
    f.values["v"] = _days(f.groups.get("v") or f.groups.get("w") or f.groups.get("x") or "")
    return True


def closed_on(f: Filling) -> bool:
    """ "The restaurant is closed on Mondays" → "Restaurant is closed on Mondays"; "we're closed
    Sundays" → "Closed on Sundays"."""
    f.values["v"] = _days(f.groups.get("v") or f.groups.get("w") or "")
    place = f.groups.get("e", "").lower()
    if place:
        if not re.search(_BUSINESS, place):
            return False  # "the road is closed on Sundays": no business of the user's
        said = f.match.group(0).lower()
        if said.startswith("the ") and not _OWN_WORK.search(f.message or ""):
            return False  # "the bakery is closed on Sundays, so no bread": any bakery
        f.template = f"{place.capitalize()} is closed on {{v}}"
    return True


#: A message about the user's own workplace ("… so Monday is my day off").
_OWN_WORK = lazy(r"\b(?:my (?:day|days) off|i work|my shift|we open|we close)\b", re.I)
#: What a business is, that has days it is closed ("the restaurant", "our clinic").
_BUSINESS = (
    r"\b(?:restaurant|cafe|café|bakery|shop|store|clinic|salon|studio|gym|office|practice|bar|"
    r"pub|gallery|workshop|garage|pharmacy|surgery|library|school|market|stall|kitchen)$"
)


def _older_cadence(clause: str) -> bool:
    """A team cadence rule of ``project`` matches this clause (its line is that rule's: a match is
    enough to leave it to that rule; at worst a line is missed, never doubled)."""
    return any(
        r.template.startswith("Team cadence") and r.pattern.search(clause) is not None
        for r in project.RULES
    )


#: Time zones said by their abbreviations ("daily standup 9.30am EAT").
_ZONES = frozenset(_ZONE_NAMES.split("|"))
_SHORT_DAY = {"thur": "thursday", "tue": "tuesday", "wed": "wednesday"}


def meeting_when(f: Filling) -> bool:
    """ "standup is 9:30 every day, sydney time" → "Team cadence: standup 9:30 every day, Sydney
    time": a meeting with a clock time or a weekday (a cadence alone is the older rules'), the
    time typed "9.30am" or "930am" written "9:30am"."""
    when = f.groups.get("v", "")
    event = f.groups.get("e", "").strip()
    if not _REGULAR.search(f"{event} {when}"):
        return False  # "The standup is at 9:30": today's, maybe
    if _older_cadence(f.match.string):
        return False  # one line per meeting: the cadence rules of ``project`` read this one
    when = re.sub(rf"\bat ({SPELLED_CLOCK})\b", lambda m: f"at {clock(m.group(1))}", when)
    when = re.sub(rf"^({SPELLED_CLOCK})\b", lambda m: f"at {clock(m.group(1))}", when)
    when = re.sub(r"\b(\d{1,2})\.(\d{2})(?!\d)", r"\1:\2", when)
    when = re.sub(r"\bevery (thur|tue|wed)s\b", lambda m: f"every {_SHORT_DAY[m.group(1)]}", when)
    when = re.sub(r"\bat (\d{1,2}(?::\d{2})?) in the morning\b", r"at \1am", when)
    when = re.sub(r"\bat (\d{1,2}(?::\d{2})?) in the (?:afternoon|evening)\b", r"at \1pm", when)
    when = re.sub(r"\b(\d{1,2})(\d{2})(\s*(?:am|pm))", r"\1:\2\3", when)
    when = re.sub(r"\b([a-z]+) time\b", lambda m: f"{m.group(1).capitalize()} time", when)
    when = re.sub(rf",? \b(?:{_ZONE_NAMES})\b", "", when)  # "9.30am EAT": the user's own time
    zone = f.groups.get("z", "")
    if zone in _ZONES:
        zone = ""
    elif zone and not known_place(zone.capitalize()):
        return False  # "standup 9:30 tomorrow": no zone, no line
    else:
        zone = zone.capitalize()
    when = f"{when[:1].lower()}{when[1:]}" + (f", {zone} time" if zone else "")
    # one form for what is said two ways: "every Monday" is "on Mondays", "mon-fri" is "on
    # weekdays", "every morning" (at a time) is "daily", "one-on-one" is "1:1"
    when = re.sub(rf"\bevery ({_DAY})\b", r"on \1s", when, flags=re.I)
    when = re.sub(
        r"\b(?:mon-fri|monday to friday|every weekday)\b", "on weekdays", when, flags=re.I
    )
    when = re.sub(r"\b(?:every|each) morning\b", "daily", when, flags=re.I)
    when = re.sub(r"(?:,\s*)?(?<!on )\bweekdays\b", " on weekdays", when, flags=re.I)
    when = " ".join(when.split())
    event = re.sub(r"\bone-on-one", "1:1", event, flags=re.I)
    event = re.sub(r"\b(?:with|w/?) my\b", "with their", event)
    f.values["v3"] = f"{event[:1].upper()}{event[1:]} {when}"
    return True


#: A group of the user's work that meets on a cadence ("the board", "my committee", "our
#: cooperative"); never a person ("my mum meets …"), nor a pastime's (a book club is the user's
#: own, not the work's schedule).
_GROUP = lazy(
    r"^(?:[a-z]+ )?(?:board|committee|commitee|comittee|cooperative|co-op|council|panel|group|"
    r"team|association|chapter|steering group|working group)$"
)


def a_group_meets(f: Filling) -> bool:
    """ "our cooperative meets first monday every month 7pm" → "Team cadence: Cooperative meets
    first monday every month 7pm"; "every 2nd wednesday" as "every other wednesday"."""
    group = f.groups.get("e", "").strip().lower()
    if not _GROUP.match(group) or set(group.split()) & PEOPLE:
        return False
    group = re.sub(r"\b(?:commitee|comittee)\b", "committee", group)
    # "every 2nd wednesday" is every other one
    when = re.sub(r"\bevery (?:2nd|second)\b", "every other", f.groups.get("v", "").strip())
    when = re.sub(r"\b2nd\b", "second", when)
    when = re.sub(r"\b3rd\b", "third", re.sub(r"\b1st\b", "first", when))
    f.values["v3"] = f"{group[:1].upper()}{group[1:]} meets {when}"
    return True


RULES = [
    # a group that meets on a cadence: "the board meets quarterly", "my commitee meets every 2nd
    # wednesday", "our cooperative meets first monday every month 7pm at the community hall"
    rule(
        r"(?:^|\b(?:and|but|so) )(?:the |our |my )(?P<e>[a-z]+(?: [a-z]+)?) meets? "
        r"(?P<v>(?:every|each|once|twice|weekly|monthly|quarterly|biweekly|fortnightly|(?:on )?the "
        r"(?:first|second|third|last)|first|second|third|last|on (?:mon|tues|wednes|thurs|fri|"
        r"satur|sun)days)\b[^.;!?,]{0,50}?)(?=\s*(?:[.!;,]|$)|\s+(?:so|and|but|because|at the|"
        r"in the|where)\b)",
        "Team cadence: {v3}",
        finish=a_group_meets,
    ),
    # a meeting and when it is, in either order: "standup is 9:30 every day, sydney time", "daily
    # standup 9.30am cairo", "Every Thursday at 4pm I've got my weekly one-on-one with my manager"
    rule(
        rf"^(?:the |our |my )?(?P<e>{_MEETING}) (?:is |are |happens |starts |takes place )?"
        rf"{_WHEN}{_WHEN_END}",
        "Team cadence: {v3}",
        finish=meeting_when,
    ),
    # "We have staff meeting every Monday at 8 in the morning", "1:1 with my manager every
    # thursday 2pm": the team's meeting, or the user's said bare, with whom ("I have a 1:1 …" is
    # the routine rule's: one line per meeting)
    rule(
        r"^(?:we(?:'ve got| have got| have) (?:a |an |our |the )?)?"
        rf"(?P<e>{_MEETING}(?: (?:with|w/?) (?:my|our|the) [a-z]+)?) (?:is |are )?{_WHEN}"
        rf"{_WHEN_END}",
        "Team cadence: {v3}",
        finish=meeting_when,
    ),
    rule(
        rf"^{_WHEN},? (?:is |(?:we|i)(?:'ve got| have got| have)? )(?:our |my |the |a )?"
        rf"(?P<e>{_MEETING})(?: with (?:my|our|the) [a-z]+)?{_WHEN_END}",
        "Team cadence: {v3}",
        finish=meeting_when,
    ),
    rule(
        rf"\bthe deadline (?:for (?P<v>[\w\s-]{{2,40}}?) )?is (?:on |by )?{_DATE}\b",
        "Deadline for {v}: {d}",
        None,
        "ephemeral",
        finish=what_is_due,
    ),
    rule(
        # the subject opens with no preposition, and may end with what it is for ("the grant
        # application for the school library"): never "Deadline for for the school library"
        rf"\b(?<!['’])(?<!['’]s )(?:the |our |my )?"
        rf"(?P<v>(?!(?:for|of|to|in|on|with|about|from|by)\b)[\w-]+"
        rf"(?: [\w-]+(?:\.\w+)*){{0,3}}"
        rf"(?: (?:for|of) (?:the |our |my )?[\w-]+(?: [\w-]+){{0,2}})?) (?:is|are) due "
        rf"(?:on |by )?{_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_any_thing},
        "ephemeral",
        finish=what_is_due,
    ),
    rule(
        r"\bwe (?:need to|have to|must|want to|'ve got to|have got to) (?P<a>ship|release|launch|"
        r"deliver|finish|submit)(?: (?:the |our )?"
        rf"(?P<v>[\w-]+(?: [\w-]+){{0,3}}))? by {_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_any_thing},
        "ephemeral",
        finish=what_is_due,
    ),
    rule(
        rf"\bi(?:'ve| have)(?: got)? an? (?P<k>{APPOINTMENTS}) appointment (?:on |at |for "
        rf")?{_DATE}\b",
        "{K} appointment on {d}",
        None,
        "ephemeral",
    ),
    rule(
        rf"\bi(?:'m| am) (?:going|flying|travelling|traveling|driving|heading) to {NAME} (?:on |"
        rf"this |next )?{_DATE}\b",
        "Travelling to {v} on {d}",
        {"v": is_place},
        "ephemeral",
    ),
    # "Our v2.0 release is on 14 November", "launch is now June 3", "Court date for the Hernandez
    # case
    # is March 3"
    rule(
        rf"\b(?:the |our |my )?(?P<v>(?:[\w.-]+ ){{0,3}}(?:{_DELIVERABLES}|{_EVENTS})(?: for "
        r"(?:the |our |my )?"
        rf"[\w .-]{{2,40}}?)?) (?:is|are|was moved to|has moved to) (?:now |still )?(?:on |set for "
        r"|scheduled for |"
        rf"planned for )?{_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_specific},
        "ephemeral",
        finish=dated_event,
    ),
    # "My thesis submission deadline is 30 June 2026"
    rule(
        rf"\b(?:the |our |my )(?P<v>[\w\s.-]{{2,40}}?) deadline is (?:now |still )?(?:on |by "
        rf")?{_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_any_thing},
        "ephemeral",
        finish=what_is_due,
    ),
    # "We ship v2.0 on November 14th"
    rule(
        r"\bwe(?:'ll| will|'re going to| are going to)? (?:ship|release|launch|go live with|"
        r"deliver) (?:the |our )?"
        rf"(?P<v>[\w.-]+(?: [\w.-]+){{0,2}}?) on {_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_any_thing},
        "ephemeral",
    ),
    # "I have a 1:1 with my manager every Thursday at 4pm", "I run payroll every other Friday": a
    # scheduled thing of the user's, on a cadence
    rule(
        r"^i (?:have|run|attend|host|lead|teach|do) (?:a |an |my |our |the )?(?:weekly |daily |"
        r"monthly |regular )?"
        r"(?:1:1|one-on-one|meeting|call|sync|check-in|standup|stand-up|class|classes|lesson|"
        r"lessons|session|"
        r"review|payroll|shift|shifts|training|practice|rehearsal|appointment|therapy|"
        r"physio)\b[^,;]{0,60}?"
        rf"\b(?:{CADENCE})\b[^,;]{{0,40}}?(?=\s*(?:[,;.!]|$))",
        "Routine: {v3}",
        finish=a_routine,
    ),
    # "I swim three times a week", "I go bouldering every Saturday": a pursuit on a cadence
    rule(
        r"^i (?:swim|cycle|train|work out|climb|go (?:to the gym|running|swimming|climbing|"
        r"bouldering|cycling|"
        r"hiking|dancing)|do (?:yoga|pilates|crossfit))\b[^,;]{0,40}?"
        rf"\b(?:{CADENCE})\b[^,;]{{0,30}}?(?=\s*(?:[,;.!]|$))",
        "Habit: {v3}",
        finish=a_routine,
    ),
    # a sprint's length and its first day: "sprints are 2 weeks, start on mondays", "Two-week
    # sprints: …", "we work in two-week sprints starting Monday"
    rule(
        r"^(?:our |the )?sprints (?:are|last|run) (?P<n>one|two|three|four|1|2|3|4)[- ]weeks?"
        rf"(?: long)?(?:,? (?:and )?(?:they )?start(?:ing|s)? (?:on )?(?P<d>{_DAY}s?))?\b|"
        r"(?:^|\b(?:we (?:work|do|run) (?:in )?|in ))(?P<m>one|two|three|four|1|2|3|4)[- ]week "
        rf"sprints(?:,? start(?:ing|s)? (?:on )?(?P<e>{_DAY}s?))?\b",
        "Team cadence: {v3}",
        finish=sprints,
    ),
    # a day off: "Monday is my day off", "Mondays are my day off", "my day off is Friday", "I work
    # mon–thu, fridays off"
    rule(
        rf"\b(?P<v>{_DAY}s?) (?:is|are) (?:always )?my (?:day|days) off\b|\bmy (?:day|days) off "
        rf"(?:is|are) (?:always )?(?P<w>{_DAY}s?)\b|(?:^|, )(?P<x>{_DAY}s) off\b",
        "Off on {v}",
        None,
        finish=day_off,
    ),
    # a business closed on a day: "The restaurant is closed on Mondays", "we're closed Sundays"
    rule(
        rf"^(?:the |our |my )(?P<e>[a-z]+(?: [a-z]+)?) is (?:always )?closed (?:on )?(?P<v>{_DAY}s|"
        r"weekends)\b|\bwe(?:'re| are) (?:always )?closed (?:on )?"
        rf"(?P<w>{_DAY}s|weekends)\b",
        "Closed on {v}",
        None,
        finish=closed_on,
    ),
    # "i dont work fridays"
    rule(
        r"\bi (?:don't|do not|never) work (?:on )?(?P<v>mondays|tuesdays|wednesdays|thursdays|"
        r"fridays|saturdays|"
        r"sundays|weekends)\b",
        "Doesn't work on {v}",
        negative=True,
        finish=lambda f: f.values.update(v=f.values["v"].capitalize()) is None,
    ),
]

CANON = [
    (r"^Deadline for (.+?): (.+)$", MEMORY, "deadline:{1}"),
    (r"^Deadline: (.+)$", MEMORY, None),
    (r"^(\S+) appointment on (.+)$", MEMORY, None),
    (r"^Travelling to (.+)$", MEMORY, None),
    (r"^Routine: (.+)$", MEMORY, None),
    (r"^Habit: (.+)$", USER, None),
    (r"^Doesn't work on (.+)$", USER, None),
    (r"^Off on (.+)$", MEMORY, None),  # a day off work is the work's schedule
    (r"^(?:.+ is )?[Cc]losed on (.+)$", MEMORY, None),
    (r"^(.+?) on (\d{4}-\d{2}-\d{2})$", MEMORY, "date:{1}"),
]


# -- a dated deliverable, however it is said -----------------------------------------------------
#
# "thesis due 15 june!!!", "The grant application has to be in by 30 September", "My master thesis
# must be handed in until 15 June", "game launches on steam nov 14, cant slip": a clause with a cue
# that something is due (``_DUE``) and one date phrase naming one day gives ``Deadline for X: day``,
# X the thing said before the cue (``_SUBJECT``: at most three words of the user's own work, no
# person, no pronoun). Tried only where the phrase tables above read nothing, and never in a
# question, a plan, someone else's clause or a passing one (``clauses``).

_DUE = (
    r"(?:is |are )?(?:due|has to be (?:in|done|live|submitted|ready|finished|handed in|sent|out)|"
    r"must be (?:in|done|live|submitted|ready|finished|handed in|sent|out)|needs to be (?:in|done|"
    r"live|submitted|ready|finished|handed in|sent|out)|(?:goes|go) live|launch(?:es)?|ships?|"
    r"opens|premieres)"
)
#: The thing that is due: a short noun phrase opening the clause (after "my", "our", "the").
_SUBJECT = lazy(
    rf"^(?:(?:ok|so|also|fyi|reminder|heads up)[,:]? )*(?:the |our |my )?"
    rf"(?P<v>[\w.'’-]+(?: [\w.-]+){{0,2}}?) {_DUE}\b(?: (?:on|by|before|until|in|for))?"
    r"(?: (?:steam|time))?,? "
    rf"(?P<d>{DATE_PHRASE})(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|at|it's|its|that's|no|cant|can't|"
    r"hard|latest)\b)",
    re.I,
)
#: Words that make the thing no deliverable of the user's own ("she", "it", "what").
_NOT_A_THING = frozenset(
    "i i'm im we we're you he she it it's its they this that what which who when where rent bill "
    "baby payment loan".split()
)


def a_dated_deliverable(f: Filling) -> bool:
    """The thing is the user's own work and the date names one day (``fill`` made it absolute)."""
    thing, day = f.values.get("v", ""), f.values.get("d", "")
    words = thing.lower().split()
    if not words or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
        return False
    if words[0] in _NOT_A_THING or set(words) & PEOPLE or known_place(thing):
        return False
    if "'s" in thing or "’s" in thing:
        return False  # "my sister's thesis is due June 15": no work of the user's
    f.values["K"] = f"Deadline for {thing}: {day}"
    return True


RULES += [rule(_SUBJECT.pattern, "{K}", None, "ephemeral", finish=a_dated_deliverable)]
