"""Where the user works and as what: employer, job title, a new job, a job left.

An employer is an organisation that is no department or time zone (``values.is_org``); a job ends
in a job title of ``lexicon.ROLES`` with no judging word before it ("a terrible cook" is no cook by
trade). Leaving one employer for another replaces the old line.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import noun
from .core import USER, Filling, rule
from .lexicon import NOT_NAMES, PEOPLE, ROLES, TIME_WORDS, VAGUE
from .phrases import NAME, OLDTO, PLACE, PROMOTED, VAL, I
from .values import is_firm, is_org, is_place, is_role, is_specific

# longest first; ties in a fixed order, so the pattern's text (and its gate's key) is the same in
# every process whatever the hash seed
_ROLE_NOUN = "|".join(sorted(ROLES, key=lambda r: (-len(r), r)))
#: A job title of up to four words, ending where a preposition or a clause begins.
_ROLE = (
    r"(?P<v>(?:[\w-]+ ){0,4}?[a-z-]+)(?=\s+(?:at|for|in|with|and|but|since|because|so|now|who|"
    r"which|last|this|here|there|"
    r"from|by|on)\b|[,.;:!?()]|$)"
)

#: Words that say a message is about a job: "I left Mercy last month. I'm at Kaiser now, same role."
_JOB_CUE = lazy(
    rf"\b(?:job|role|position|work|working|company|employer|team|hired|joined|{PROMOTED}|quit|"
    r"resigned|"
    r"colleagues|boss|manager|office|teaching|nurse|engineer|developer|teacher)\b",
    re.I,
)


def about_a_job(f: Filling) -> bool:
    """ "I left X" / "I'm at X now" name an employer only in a message about a job."""
    return bool(_JOB_CUE.search(f.message or f.match.string))


#: A start that is today's job: said as recent, or with the old job left in the same message ("I
#: started as a junior dev at X, now I lead it" is a career story).
_RECENT_START = lazy(
    r"\b(?:just started|this (?:week|month)|last (?:week|month)|recently|yesterday|today|on monday|"
    r"new job|left|quit|update)\b",
    re.I,
)


def a_new_start(f: Filling) -> bool:
    message = f.message or f.match.string
    return bool(_RECENT_START.search(message)) and not re.search(r"\bnow i\b", message, re.I)


def lower_case_old(f: Filling) -> bool:
    """The employer left typed in lower case ("left atlassian"): one word that is no noun, no
    place, time or common word ("left work", "left home", "left school" are none). Its name is
    not written, since a lower-case word may be no firm: the new employer replaces the old line as
    any correction of the slot does."""
    old = f.values["o"].strip()
    return (
        old.islower()
        and len(old.split()) == 1
        and not noun(old)
        and old not in NOT_NAMES | TIME_WORDS | VAGUE
        and not is_place(old)
    )


def promoted(f: Filling) -> bool:
    return bool(re.search(rf"\b{PROMOTED}\b", f.message or f.match.string, re.I))


_AS_TITLE = lazy(rf"\s+as (?:an? |the )?{_ROLE}", re.I)


def as_a_title(f: Filling) -> bool:
    """ "I'm at X as Y" names an employer only when Y is a job title (not "with Tom as a
    friend")."""
    m = _AS_TITLE.match(f.match.string, f.match.end())
    return bool(m and is_role(m.group("v")))


#: A field of work after a title, typed in lower case ("lecturer in organic chemistry"): no place,
#: no time.
def role_in_field(value: str) -> bool:
    role, _, field = value.partition(" in ")
    words = field.split()
    return (
        is_role(role)
        and not role.lower().endswith("student")  # a student's line is its own (``student_at``)
        and field.islower()
        and 0 < len(words) <= 4
        and not is_place(field)
        and not set(words) & (TIME_WORDS | VAGUE | NOT_NAMES)
    )


_NUMBER = (
    r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|several)"
)
#: People the user is in charge of at work.
_CHARGES = (
    r"(?:[a-z]+ ){0,2}?(?:students|apprentices|interns|trainees|juniors|engineers|developers|"
    r"nurses|teachers|people|staff|employees|researchers|analysts|designers|volunteers)"
)
#: A student's year, degree and field: "third-year PhD student in linguistics".
_STUDENT = (
    r"(?:(?:first|second|third|fourth|fifth|final|1st|2nd|3rd|4th|5th)[- ](?:year|yr) )?"
    r"(?:phd|ph\.d\.|doctoral|masters?|master's|msc|mba|undergrad(?:uate)?|med(?:ical)?|law|"
    r"nursing|grad(?:uate)?|engineering|art|music|exchange) student(?: in [a-z][a-z -]{2,40}?)?"
)


#: Someone else named in the sentence: a title said bare is then theirs ("Senior engineer at Meta,
#: that's what my brother is").
_SOMEONE_ELSE = lazy(
    rf"\b(?:my|our|his|her|their) (?:{'|'.join(sorted(PEOPLE))})\b|\b(?:he|she|they)(?:'s|'re| is| "
    r"are| was| were)\b",
    re.I,
)


def _said_of_self(f: Filling) -> bool:
    return not _SOMEONE_ELSE.search(f.message or f.match.string)


def _own_job(f: Filling) -> bool:
    """Night shifts said after a job are the user's when the message says the job is theirs."""
    return bool(re.search(r"\bi(?:'m| am| work)\b", f.message or f.match.string, re.I))


def in_charge(f: Filling) -> bool:
    """ "I supervise 4 MSc students" → "Supervises 4 MSc students"."""
    verb = f.groups["b"].lower()
    f.template = f"{verb.capitalize()}{'es' if verb.endswith(('ch', 'sh')) else 's'} {{v}}"
    return True


#: A year of study as typed ("3rd yr", "2nd year"): written in words, as in "third-year".
_YEAR_OF_STUDY = lazy(
    r"\b(1st|2nd|3rd|4th|5th|first|second|third|fourth|fifth|final)[- ](?:year|yr)\b", re.I
)
_ORDINALS = {
    "1st": "first",
    "2nd": "second",
    "3rd": "third",
    "4th": "fourth",
    "5th": "fifth",
    **{w: w for w in ("first", "second", "third", "fourth", "fifth", "final")},
}


def student_at(f: Filling) -> bool:
    """ "a third-year PhD student in linguistics at Tel Aviv University": the place of study is
    part of the line, when it is an organisation."""
    first, _, rest = f.values["v"].partition(" ")
    if first[:1].isupper() and first[1:].islower():  # "Third-year …" opening the sentence
        f.values["v"] = f"{first.lower()} {rest}".strip()
    f.values["v"] = _YEAR_OF_STUDY.sub(
        lambda m: f"{_ORDINALS[m.group(1).lower()]}-year", f.values["v"]
    ).replace(" med student", " medical student")
    place = f.groups.get("o", "").rstrip(".")
    if place and (is_org(place) or re.match(r"(?:the )?(?:university|college)\b", place, re.I)):
        f.template = "Is a {v} at " + place.replace("{", "").replace("}", "")
    if f.values["v"][:1].lower() in "aeiou" or f.values["v"].lower().startswith(("msc", "mba")):
        f.template = f.template.replace("Is a ", "Is an ", 1)
    return True


#: Who starts a new job: the user ("I've just joined …"), or no one said at the clause's start
#: ("Just started as a junior accountant at Deloitte": a note about oneself).
_NEW_JOB = rf"(?:{I}(?:'ve| have)? (?:just |recently |finally )?|^(?:just |recently )?)"

RULES = [
    # night work: "I work nights as a nurse", "I'm on nights", "…, mostly night shifts."
    rule(
        r"\bi (?:mostly |mainly |usually |only )?work (?:mostly |mainly )?(?:nights|night shifts)\b"
        r"|\bi(?:'m| am) (?:on|doing) (?:nights|night shifts)\b"
        r"|(?:^|,\s*)(?:mostly|mainly|usually|always) (?:on )?(?:night shifts|nights|night duty)"
        r"(?=\s*(?:[.;!]|$)|\s+on\b)",
        "Works night shifts",
        finish=_own_job,
    ),
    # "Joiner by trade", "I'm a carpenter by trade", "my job: carpenter, self employed"
    rule(
        rf"(?:^|\bi(?:'m| am) )(?:an? )?{_ROLE} by (?:trade|profession)\b",
        "Works as {v}",
        {"v": is_role},
    ),
    rule(
        rf"^(?:my )?(?:job|work|occupation|profession) ?: ?(?:an? )?{_ROLE}",
        "Works as {v}",
        {"v": is_role},
    ),
    # "my title is Senior ML Engineer"
    rule(rf"\bmy (?:job |official )?title is (?:an? )?{_ROLE}", "Works as {v}", {"v": is_role}),
    # students: "Third-year PhD student in linguistics at Tel Aviv University"
    rule(
        rf"(?:\bi(?:'m| am) (?:now |currently |also )?(?:an? )?|^(?:an? )?)(?P<v>{_STUDENT})"
        r"(?: (?:at|in) (?P<o>(?:the )?[\w&'’.-]+(?: [\w&'’.-]+){0,4}?))?"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|working|doing|since|my)\b)",
        "Is a {v}",
        finish=student_at,
    ),
    # a title with its field: "I'm a postdoc in computational linguistics at …", "Senior lecturer
    # in organic chemistry at the University of Ibadan"
    rule(
        rf"(?:\bi(?:'m| am) (?:now |currently )?(?:an?|the) |^(?:an? )?)(?P<v>(?:[\w-]+ ){{0,3}}?"
        rf"(?:{_ROLE_NOUN}) in [a-z][a-z-]+(?: [a-z-]+){{0,3}}?)"
        r"(?= (?:at|for|with) |\s*(?:[,.;!]|$))",
        "Works as {v}",
        {"v": role_in_field},
        finish=_said_of_self,
    ),
    rule(rf"{I}(?: work| am working|'m working) (?:at|for) {PLACE}", "Works at {v}", {"v": is_org}),
    rule(
        rf"\bi(?:'m| am) (?:now )?(?:employed|working) (?:at|by|for) {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:started (?:a new job|working) at|got a (?:new )?job at|been hired "
        r"by|"
        rf"switched jobs to|moved to a new job at) {PLACE}",
        "Works at {v}",
        {"v": is_org},
        change=True,
    ),
    # "Just started at a new company, Monzo": the new employer named after the noun (never "a new
    # gym near the office")
    rule(
        rf"{_NEW_JOB}(?:joined|started(?: at| with)?) a new (?:company|job|employer|firm|workplace)"
        rf"\s*[,:—–-]+\s*(?:at |with )?{NAME}(?=\s*(?:[.!;,—–]|$))",
        "Works at {v}",
        {"v": is_firm},
        "correction",
        change=True,
    ),
    rule(
        rf"{_NEW_JOB}(?:joined|started at) {PLACE}(?= as an? )",
        "Works at {v}",
        {"v": is_org},
        change=True,
    ),
    rule(
        rf"{_NEW_JOB}(?:joined|started at) [^,.;]{{1,60}}? as an? {_ROLE}",
        "Works as {v}",
        {"v": is_role},
        change=True,
    ),
    # "I started as a data analyst at Standard Bank this month": a new job, title and employer
    rule(
        rf"{_NEW_JOB}started (?:out )?(?:as|working as) an? {_ROLE}",
        "Works as {v}",
        {"v": is_role},
        change=True,
        finish=a_new_start,
    ),
    rule(
        rf"{_NEW_JOB}started (?:out )?(?:as|working as) an? [^,.;]{{1,50}}? at "
        rf"{PLACE}",
        "Works at {v}",
        {"v": is_org},
        change=True,
        finish=a_new_start,
    ),
    rule(
        rf"{I}(?:'ve| have)? left {PLACE}(?=\s+(?:to join|to start|and joined|last (?:week|month|"
        r"year))\b)",
        "No longer works at {v}",
        {"v": is_firm},
        "correction",
        change=True,
    ),
    rule(
        rf"{I}(?: work| am working|'m working)(?: (?:part[- ]time|full[- ]time|freelance|remotely|"
        r"mostly))?"
        rf"(?: (?:at|for) [^,.;]*?)? as (?:an? )?{_ROLE}",
        "Works as {v}",
        {"v": is_role},
    ),
    rule(rf"\bi(?:'m| am) (?:now |currently )?(?:an?|the) {_ROLE}", "Works as {v}", {"v": is_role}),
    # an employer and a title said together: "now I'm at Bradesco as regional coordinator"
    rule(
        rf"\bi(?:'m| am) (?:now )?(?:at|with) {PLACE}(?=\s+as (?:an? |the )?[a-z])",
        "Works at {v}",
        {"v": is_org},
        finish=as_a_title,
    ),
    rule(
        rf"\bi(?:'m| am) (?:now )?(?:at|with) [^,.;]{{1,60}}? as (?:an? |the )?{_ROLE}",
        "Works as {v}",
        {"v": is_role},
    ),
    # a title given by the user's superiors: "the principal made me deputy head", "my boss
    # appointed me team lead"
    rule(
        r"\b(?:the (?:principal|head|headteacher|director|board|boss|company|school|management)|"
        r"my (?:boss|manager|director|principal|company)|management) (?:has |have )?(?:made|"
        rf"appointed|named|promoted) me (?:to )?(?:an? |the )?{_ROLE}",
        "Works as {v}",
        {"v": is_role},
        change=True,
    ),
    # titles said without an article: "I'm CTO and co-founder of …", "head of the science
    # department"
    rule(
        r"\bi(?:'m| am) (?:now |currently )?(?:the )?(?P<v>cto|ceo|cfo|coo|cpo|(?:head|director|"
        r"vp) of (?:the )?"
        r"[a-z][a-z ]{2,40}?)(?=\s+(?:at|of|for|and|in|since)\b|[,.;!]|$)",
        "Works as {v}",
        {"v": is_role},
    ),
    # "I've been a UX researcher at Spotify for four years now"
    rule(
        rf"\bi(?:'ve| have) been an? (?:[a-z-]+ ){{0,3}}(?:{_ROLE_NOUN}) (?:at|for|with) {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    rule(
        rf"\bi(?:'ve| have) been an? {_ROLE}(?= (?:at|for|with) )", "Works as {v}", {"v": is_role}
    ),
    # "Day job is ML engineer at Infosys", "my job is data scientist at Grab"
    rule(
        rf"\b(?:my )?(?:day )?job is (?:an? )?(?:[\w-]+ ){{0,3}}(?:{_ROLE_NOUN}) (?:at|for|with) "
        rf"{PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    rule(rf"^(?:my )?day job is (?:an? )?{_ROLE}", "Works as {v}", {"v": is_role}),
    rule(
        rf"(?:^|\bi(?:'ve| have)? |\bi )(?:just )?(?:got |been |was |get )?{PROMOTED} to (?:an? |"
        rf"the )?{_ROLE}",
        "Works as {v}",
        {"v": is_role},
        change=True,
    ),
    # "got promoted last week!! platform engineering manager now": the title said after a promotion
    rule(
        r"^(?:i(?:'m| am) )?(?:now )?(?:an? |the )?(?P<v>(?:[\w-]+ ){0,3}[a-z-]+) (?:there |here "
        r")?now"
        r"(?=\s*(?:[,.;!]|$))",
        "Works as {v}",
        {"v": is_role},
        change=True,
        finish=promoted,
    ),
    # "I teach 4th grade at Lincoln Elementary", "I lead a team of six developers at Rakuten"
    rule(
        rf"\bi (?:teach|lecture|lead a team|manage a team|run a team|nurse|coach)\b[^,.;]{{0,40}}? "
        rf"at {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    # "I left Booking, I'm at Adyen now", "I'm teaching at Riverside High now"
    rule(
        r"\bi(?:'m| am) (?:now |currently )?(?:teaching |working |nursing )?at "
        rf"{PLACE}(?=[^.;]*?\b(?:now|same role)\b)",
        "Works at {v}",
        {"v": is_org},
        change=True,
        finish=about_a_job,
    ),
    rule(
        rf"{I}(?:'ve| have)? left {PLACE}(?=\s*(?:[,.;!]|$)|\s+(?:last|this|a few|two|three)\b)",
        "No longer works at {v}",
        {"v": is_firm},
        "correction",
        change=True,
        finish=about_a_job,
    ),
    rule(
        r"\bi(?:'m| am| work| am working|'m working) (?:now |currently )?(?:as )?(?:an?|the) "
        rf"(?:[a-z-]+ ){{0,3}}"
        rf"(?:{_ROLE_NOUN})(?: (?:for|of|on|in) (?:the |our )?[a-z][^,.;]{{1,40}}?)? (?:at|for) "
        rf"{PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    rule(rf"\bmy job is (?:an? )?{VAL}", "Works as {v}", {"v": is_role}),
    rule(rf"\bmy (?:current )?employer is {PLACE}", "Works at {v}", {"v": is_org}),
    rule(
        rf"\bi(?:'ve| have) (?:worked|been working) (?:at|for) {PLACE}(?=\s+(?:for|since)\b)",
        "Works at {v}",
        {"v": is_org},
    ),
    # job and home changes said as leaving one for another
    rule(
        rf"{I}(?:'ve| have)? (?:left|quit) {OLDTO} (?:to join|to work at|to work for|and joined) "
        rf"{PLACE}",
        "Works at {v} instead of {o}",
        {"v": is_org, "o": is_org},
        "correction",
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:left|quit) {OLDTO} for {PLACE}",
        "Works at {v} instead of {o}",
        {"v": is_firm, "o": is_firm},
        "correction",
        change=True,
    ),
    # "Left Initech last week, starting at Globex on Monday", "left atlassian last week, starting
    # at Canva on monday": an employer left, then the next one started, with or without the
    # user's subject; the old name is a firm, never the verb or a thing left ("I left my keys at
    # work"), or one word typed in lower case (``lower_case_old``), which the line leaves out
    *(
        rule(
            rf"(?:{I}(?:'ve| have)? |^)(?:left|quit) (?P<o>[^,.;:!?()]{{1,40}}?)"
            r"(?:\s+(?:last (?:week|month|friday)|this (?:week|month)|yesterday|today|"
            r"(?:a few|two|three) (?:days|weeks) ago))?"
            r"\s*,?\s+(?:and\s+)?(?:(?:i'm|i am|im)\s+)?"
            rf"(?:(?:starting|start|beginning)\s+(?:at|with)|joining) {PLACE}",
            template,
            {"v": is_firm, **checks},
            "correction",
            change=True,
            finish=finish,
        )
        for template, checks, finish in (
            ("Works at {v} instead of {o}", {"o": is_firm}, None),
            ("Works at {v}", {}, lower_case_old),
        )
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:quit|left|lost) my (?:job|position|role) (?:at|with) {PLACE}",
        "No longer works at {v}",
        {"v": is_org},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi (?:don't|do not) (?P<k>work at|work for) {VAL}\s+any ?more\b",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi no longer (?P<k>work at|work for) {VAL}",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi(?:'m| am) no longer (?:working|employed) (?:at|for|by) {PLACE}",
        "No longer works at {v}",
        {"v": is_org},
        "correction",
        change=True,
        negative=True,
    ),
    # "I'm head chef at Osteria Lupo", "I'm sous chef at Le Petit Zinc" (a title of two words, no
    # article)
    rule(
        rf"\bi(?:'m| am) (?:now |currently )?(?P<v>[a-z-]+ (?:{_ROLE_NOUN}))(?= (?:at|for) )",
        "Works as {v}",
        {"v": is_role},
    ),
    rule(
        rf"\bi(?:'m| am) (?:now |currently )?[a-z-]+ (?:{_ROLE_NOUN}) (?:at|for) {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
]

RULES += [
    # a title said bare before its employer: "Senior backend engineer at Shopify, been there …"
    rule(
        rf"^(?:an? )?(?:[\w-]+ ){{0,3}}?(?!student\b)(?:{_ROLE_NOUN})"
        rf"(?: in [a-z][a-z -]{{2,40}}?)? (?:at|for) {PLACE}(?=\s*(?:[,.;(]|$))",
        "Works at {v}",
        {"v": is_org},
        finish=_said_of_self,
    ),
    rule(
        rf"^(?:an? )?{_ROLE}(?= (?:at|for) (?-i:[A-Z]))",
        "Works as {v}",
        {"v": lambda v: is_role(v) and not v.lower().endswith("student")},
        finish=_said_of_self,
    ),
    # the people the user is in charge of: "I also supervise 4 MSc students"
    rule(
        rf"\bi (?:also |now |currently )?(?P<b>supervise|mentor|manage|train|lead) "
        rf"(?P<v>{_NUMBER} {_CHARGES})"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|at|in|on|for|across|now)\b)",
        "Supervises {v}",
        finish=in_charge,
    ),
    # "I've got two apprentices under me", "2 apprentices work for me"
    rule(
        rf"\bi(?:'ve| have)?(?: got)? (?P<v>{_NUMBER} (?:apprentices|interns|trainees))"
        r"(?= under me| working for me|\s*(?:[,.;!]|$))",
        "Has {v}",
    ),
    rule(
        rf"(?:^|,\s*|\band\s+)(?P<v>{_NUMBER} (?:apprentices|interns|trainees)) work(?:ing)? "
        r"(?:for|under) me\b",
        "Has {v}",
    ),
    # retired: "Retired bus driver", "I'm a retired teacher", "retired after 30 years at Australia
    # Post", "I retired in 2018"
    rule(
        r"(?:\bi(?:'m| am) (?:now )?an? |^)retired (?P<v>(?:[\w-]+ ){0,3}?[a-z-]+)(?= here\b|"
        r"\s*(?:[,.;!]|$)| (?:at|for|with|from|since)\b)",
        "Is a retired {v}",
        {"v": is_role},
    ),
    rule(
        rf"(?:^i(?:'m| am)\b[^.;]{{0,30}}?,\s*|\bi(?:'m| am)? (?:now )?)retired after "
        rf"(?P<n>{_NUMBER}) years (?:at|with|in) {PLACE}",
        "Retired after {n} years at {v}",
        {"v": is_org},
    ),
    rule(
        r"\bi retired (?:from [^,.;]{2,40}? )?in (?P<n>(?:19|20)\d\d)\b",
        "Retired in {n}",
    ),
]


def _hyphenated(f: Filling) -> bool:
    """ "part time" is written "part-time"."""
    f.values["v"] = f.values["v"].lower().replace(" ", "-")
    return True


def _subject_name(f: Filling) -> bool:
    """A subject named after a language is written with its capital ("Works as English teacher");
    the line is a role, so a job left or a retirement retires it as any title."""
    if f.values["v"].lower() in ("english", "french", "spanish", "german", "italian", "latin"):
        f.values["v"] = f.values["v"].capitalize()
    return True


def _how_often(f: Filling) -> bool:
    """ "I work from home" says no how often: the line ends with where."""
    f.values["m"] = f.groups.get("m") or ""
    return True


def _day_week(f: Filling) -> bool:
    """ "4 day", "4-day", "four day" are written "four-day"."""
    number = re.sub(r"[- ]?day$", "", f.values["v"].lower()).strip()
    f.values["v"] = {"4": "four", "3": "three"}.get(number, number) + "-day"
    return True


#: Subjects taught at a school or a university: "I teach chemistry at a secondary school".
_SUBJECTS = (
    r"chemistry|physics|biology|science|maths?|mathematics|english|history|geography|music|art|"
    r"french|spanish|german|italian|latin|economics|computer science|ict|pe|drama|literature|"
    r"philosophy|psychology|sociology|religious studies|law|nursing|engineering|statistics"
)
#: Where a subject is taught as a job: a school, a college, a university.
_SCHOOL = (
    r"(?:at|in) (?:an?|the|my|our|one) (?:[\w'’-]+ ){0,3}?(?:school|college|university|academy|"
    r"gymnasium|lyc[eé]e|polytechnic|institute)\b"
)
#: Fields of work said as what one does ("I do data science at Grab").
_FIELDS = (
    r"data science|data engineering|machine learning|ml|software engineering|software development|"
    r"engineering|backend|frontend|devops|marketing|sales|hr|finance|accounting|bookkeeping|"
    r"consulting|research|ux|ux design|design|product|product management|customer support|"
    r"support|qa|security|recruiting|payroll|logistics|operations|compliance|legal work|audit"
)

RULES += [
    # "I teach chemistry at a secondary school in Tbilisi": the subject taught is the job
    rule(
        rf"\bi(?: currently| also)? teach (?P<v>{_SUBJECTS}) {_SCHOOL}",
        "Works as {v} teacher",
        finish=_subject_name,
    ),
    # "I've taught maths at a secondary school in Uppsala for 14 years": taught until now
    rule(
        rf"\bi(?:'ve| have) (?:taught|been teaching) (?P<v>{_SUBJECTS}) {_SCHOOL}[^.;]*?"
        r"\b(?:for (?:\d+|a few|many|several|two|three|four|five|six|seven|eight|nine|ten|"
        r"[a-z]+teen|twenty|thirty) years|since)\b",
        "Works as {v} teacher",
        finish=_subject_name,
    ),
    # "I do data science at Grab": a field of work at an employer
    rule(
        rf"\bi(?: currently| mostly| mainly)? do (?:{_FIELDS}) (?:at|for) {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    # how the user works: "I work from home most days", "I work remotely", "I'm fully remote",
    # "I work part-time", "I work a four-day week", "I'm on 4-day weeks"
    rule(
        r"\bi(?: mostly| mainly| usually| now)? work (?P<v>from home|remotely)"
        r"(?P<m> (?:most days|full[- ]time|most of the (?:time|week)|(?:two|three|four|2|3|4) "
        r"days a week))?(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|since|now)\b)",
        "Works {v}{m}",
        finish=_how_often,
    ),
    rule(
        r"\bi(?:'m| am) (?:fully |100% |completely )?remote"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|now)\b)",
        "Works remotely",
    ),
    rule(
        r"\bi(?: only)? work (?P<v>part[- ]time|full[- ]time)(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|"
        r"as|at|for|in|now|since)\b)",
        "Works {v}",
        finish=_hyphenated,
    ),
    rule(
        r"\bi(?:(?: now)? work (?:an?|the) |(?:'m| am) (?:now )?on (?:an? |the )?)"
        r"(?P<v>(?:four|4|three|3)[- ]?day) (?:work ?)?weeks?\b",
        "Works a {v} week",
        finish=_day_week,
    ),
]


CANON = [
    (r"^Works at (.+)$", USER, "employer"),
    (
        r"^Works (?:from home|remotely|part-time|full-time|an? (?:four|three)-day week)\b",
        USER,
        None,
    ),
    (r"^(Works night shifts)$", USER, "shift"),
    # a student's line is their role: "I'm a postdoc now" replaces it
    (r"^Is an? (.+ student\b.*)$", USER, "role"),
    (r"^(?:Supervises|Manages|Mentors|Trains|Leads) (.+)$", USER, None),
    (r"^Has (.+ (?:apprentices|interns|trainees))$", USER, None),
    (r"^Is a retired (.+)$", USER, "role"),
    (r"^Retired (?:after|in) (.+)$", USER, None),
    (r"^Works as (.+)$", USER, "role"),
]
