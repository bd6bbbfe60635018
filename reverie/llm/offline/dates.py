"""Dates for the offline engine: what day a user's "next Friday" or "March 14" meant, from when they
said it.

A dated fact is stored with an absolute ISO date (``Deadline for launch: 2027-03-14``) so that a
later step can tell when it has passed. ``resolve(expr, said_on)`` turns the phrase into that date,
counted from the day the history entry (or transcript line) was written; a phrase it cannot pin to
one day returns None and the fact keeps the user's words.

Conventions (one reading each, documented rather than guessed per case):

- ``today`` / ``tonight`` → that day; ``tomorrow`` → the next; ``the day after tomorrow`` → two days
  on.
- ``Friday`` / ``on Friday`` / ``this Friday`` → the next Friday after that day (a week on if said
  on a Friday).
- ``next Friday`` → the Friday of the following calendar week (weeks start on Monday).
- ``in 3 days`` / ``in two weeks`` / ``in a month`` → counted from that day (months keep the day of
  the month, clamped to the month's end).
- ``March 14``, ``14 March``, ``the 14th of March`` without a year → the next such day on or after
  that day.
- ``end of the month`` / ``quarter`` / ``year`` → its last day.
- ``2027-03-14`` and ``14.03.2027`` (day first) as written; ``3/14/2027`` only when one number is
  over 12.
- ``next week``, ``soon``, ``end of the week`` … are not one day: None.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, timedelta

from ...text.dates import MONTH_NAME, month_number, parse_timestamp
from ...text.lazyre import lazy

__all__ = [
    "resolve",
    "parse_day",
    "absolute",
    "DATE_PHRASE",
    "CLOCK_PHRASE",
    "SPELLED_CLOCK",
    "clock",
]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a few": 3,
}

_WD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MON = rf"{MONTH_NAME}\.?"
_ORD = r"(?:st|nd|rd|th)?"
_COUNT = (
    r"(?:\d{1,3}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve)"
)
#: A date phrase as it appears in a sentence (used by the sentence rules as their ``{d}`` group).
DATE_PHRASE = (
    rf"\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?"
    rf"|(?:next |this |on )?{_WD}"
    rf"|{_MON} \d{{1,2}}{_ORD}(?:,? \d{{4}})?|(?:the )?\d{{1,2}}{_ORD} (?:of )?{_MON}(?:,? "
    rf"\d{{4}})?"
    rf"|(?:the )?day after tomorrow|tomorrow|today|tonight"
    rf"|in {_COUNT} (?:days?|weeks?|months?)"
    rf"|next week|next month|(?:at )?(?:the )?end of (?:the )?(?:day|week|month|quarter|year)"
)


def parse_day(stamp: str) -> date | None:
    """The day of a history or transcript timestamp (``YYYY-MM-DD HH:MM``, ISO forms too), else
    None."""
    m = re.match(r"\s*(\d{4}-\d{2}-\d{2})", stamp or "")
    when = parse_timestamp(m.group(1)) if m else None
    return None if when is None else when.date()


def _add_months(day: date, months: int) -> date:
    y, m = divmod(day.month - 1 + months, 12)
    year, month = day.year + y, m + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_day(month: int, day: int, year: int | None, said_on: date) -> date | None:
    if year is not None:
        return _safe(year, month, day)
    found = _safe(said_on.year, month, day)
    if found is None or found < said_on:
        found = _safe(said_on.year + 1, month, day)
    return found


#: One form of date phrase: its match and the day it was said → the day it names.
_Form = Callable[[re.Match[str], date | None], date | None]


def _iso(m: re.Match[str], said_on: date | None) -> date | None:
    return _safe(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _numeric(m: re.Match[str], said_on: date | None) -> date | None:
    """14.03.2027 (dotted: day first), 3/14/2027 only when one number is over 12; 3/4 is not
    guessed."""
    a, sep, b = int(m.group(1)), m.group(2), int(m.group(3))
    year = int(m.group(4)) if m.group(4) else None
    if year is not None and year < 100:
        year += 2000
    if sep == ".":
        day, month = a, b  # dotted dates are written day first
    elif a > 12 >= b:
        day, month = a, b
    elif b > 12 >= a:
        day, month = b, a
    else:
        return None  # 3/4: March 4th or April 3rd — not guessed
    if said_on is None and year is None:
        return None
    return _month_day(month, day, year, said_on or date.today())


def _named(day: int, month_name: str, year_text: str | None, said_on: date | None) -> date | None:
    if year_text is None and said_on is None:
        return None
    month = month_number(month_name.rstrip("."))
    return _month_day(month, day, int(year_text) if year_text else None, said_on or date.today())


def _day_month(m: re.Match[str], said_on: date | None) -> date | None:
    return _named(int(m.group(1)), m.group(2), m.group(3), said_on)


def _month_first(m: re.Match[str], said_on: date | None) -> date | None:
    return _named(int(m.group(2)), m.group(1), m.group(3), said_on)


def _days_on(days: int) -> _Form:
    def handler(m: re.Match[str], said_on: date | None) -> date | None:
        return said_on + timedelta(days=days) if said_on else None

    return handler


def _weekday(m: re.Match[str], said_on: date | None) -> date | None:
    """Friday / this Friday: the next one after that day; next Friday: the following week's."""
    if said_on is None:
        return None
    target = _WEEKDAYS.index(m.group(2))
    if m.group(1) == "next ":
        monday = said_on - timedelta(days=said_on.weekday()) + timedelta(days=7)
        return monday + timedelta(days=target)
    ahead = (target - said_on.weekday()) % 7 or 7
    return said_on + timedelta(days=ahead)


def _counted(m: re.Match[str], said_on: date | None) -> date | None:
    """in 3 days / two weeks / a month (a month keeps the day, clamped to the month's end)."""
    if said_on is None:
        return None
    n = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1)]
    if m.group(2) == "day":
        return said_on + timedelta(days=n)
    if m.group(2) == "week":
        return said_on + timedelta(weeks=n)
    return _add_months(said_on, n)


def _end_of(m: re.Match[str], said_on: date | None) -> date | None:
    if said_on is None:
        return None
    if m.group(1) == "year":
        return date(said_on.year, 12, 31)
    month = said_on.month if m.group(1) == "month" else ((said_on.month - 1) // 3 + 1) * 3
    return date(said_on.year, month, calendar.monthrange(said_on.year, month)[1])


#: Each form a phrase can take, tried in order (every pattern must match the whole phrase).
_FORMS: list[tuple[re.Pattern[str], _Form]] = [
    (lazy(r"(\d{4})-(\d{2})-(\d{2})"), _iso),
    (lazy(r"(\d{1,2})([/.])(\d{1,2})(?:[/.](\d{2,4}))?\.?"), _numeric),
    (lazy(rf"(?:the )?(\d{{1,2}}){_ORD} (?:of )?({_MON})(?: (\d{{4}}))?"), _day_month),
    (lazy(rf"({_MON}) (\d{{1,2}}){_ORD}(?: (\d{{4}}))?"), _month_first),
    (lazy(r"today|tonight"), _days_on(0)),
    (lazy(r"tomorrow"), _days_on(1)),
    (lazy(r"(?:the )?day after tomorrow"), _days_on(2)),
    (lazy(rf"(next |this )?({_WD})"), _weekday),
    (lazy(rf"in ({_COUNT}) (day|week|month)s?"), _counted),
    (lazy(r"end of (?:the )?(month|quarter|year)"), _end_of),
]


def resolve(expr: str, said_on: date | None) -> date | None:
    """The one day ``expr`` names, counted from ``said_on``; None when it names no single day (or no
    day is known for a relative phrase)."""
    text = " ".join(expr.lower().replace(",", " ").split()).strip(". ")
    text = re.sub(r"^(?:on|by|before|until|at)\s+(?=\S)", "", text)
    text = re.sub(r"^the (?=end of)", "", text)
    for pattern, form in _FORMS:
        m = pattern.fullmatch(text)
        if m:
            return form(m, said_on)
    return None


# In free text only phrases made of words count: "Python 3.11" or "3/4 done" are no dates.
_WORDY = lazy(
    rf"\b(?P<pre>(?:on|by|before|until) )?(?P<d>(?:next |this )?{_WD}|{_MON} \d{{1,2}}{_ORD}(?:,? "
    rf"\d{{4}})?"
    rf"|(?:the )?\d{{1,2}}{_ORD} (?:of )?{_MON}(?:,? \d{{4}})?|(?:the )?day after tomorrow|"
    r"tomorrow|tonight"
    rf"|in {_COUNT} (?:days?|weeks?|months?)|(?:at )?(?:the )?end of (?:the )?(?:month|quarter|"
    r"year))\b",
    re.I,
)


def absolute(text: str, said_on: date | None) -> str:
    """``text`` with each date phrase that names one day replaced by that day ("Dentist next Friday"
    → "Dentist on 2027-01-15"); phrases naming no single day, and numbers, are left as written."""

    def sub(m: re.Match[str]) -> str:
        if not m.group("pre") and re.fullmatch(_WD, m.group("d"), re.I):
            return m.group(0)  # "Likes Sunday brunch": a bare weekday is a habit, not a date
        day = resolve(m.group("d"), said_on)
        if day is None:
            return m.group(0)
        return f"{m.group('pre') or 'on '}{day.isoformat()}"

    return _WORDY.sub(sub, text)


# -- a time of day said in words ("ten fifteen", "half nine", "quarter past ten") ---------------
_HOURS = {w: n for w, n in _NUMBERS.items() if w not in ("a", "an", "a couple of", "a few")} | {
    "noon": 12
}
_MINUTES = {
    "o'clock": 0,
    "oclock": 0,
    "oh five": 5,
    "ten": 10,
    "fifteen": 15,
    "twenty": 20,
    "twenty five": 25,
    "thirty": 30,
    "forty": 40,
    "forty five": 45,
    "fifty": 50,
}
_HOUR = "(?:" + "|".join(w for w in _HOURS if w != "noon") + ")"  # the words of _HOURS
_MINUTE = r"(?:o'?clock|oh five|ten|fifteen|twenty(?:[ -]five)?|thirty|forty(?:[ -]five)?|fifty)"
_DIGITS = r"\d{1,2}(?::\d{2}|\.\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?"
_MERIDIEM = r"(?:\s*(?:am|pm|in the (?:morning|afternoon|evening)))?"
#: A time of day as people say it: "10:15", "9.30am", "3pm", "ten fifteen", "half nine",
#: "quarter past ten", "quarter to three", "noon", "ten am".
CLOCK_PHRASE = (
    rf"(?:{_DIGITS}|{_HOUR}(?:[ -]{_MINUTE})?{_MERIDIEM}|half (?:past )?{_HOUR}|quarter (?:past|"
    rf"to) {_HOUR}|noon|midday)"
)
#: A time of day said in words only ("eleven", "ten fifteen", "half nine", "eight o'clock").
SPELLED_CLOCK = (
    rf"(?:{_HOUR}(?:[ -]{_MINUTE})?|half (?:past )?{_HOUR}|quarter (?:past|to) {_HOUR}|noon|midday)"
)
_SPELLED = lazy(
    rf"^(?:(?P<h>{_HOUR})(?:[ -](?P<m>{_MINUTE}))?(?P<x>{_MERIDIEM})|half (?:past )?(?P<hh>{_HOUR})"
    rf"|quarter (?P<q>past|to) (?P<qh>{_HOUR})|(?P<noon>noon|midday))$",
    re.I,
)


def clock(said: str) -> str:
    """A time of day in digits as the templates write it ("ten fifteen" → "10:15", "half nine" →
    "9:30", "quarter to three" → "2:45", "ten am" → "10am", "three" → "3"); digits are kept as
    said."""
    text = " ".join(said.lower().replace("-", " ").split())
    m = _SPELLED.match(text)
    if m is None:
        return said.strip()
    if m.group("noon"):
        return "12pm"
    if m.group("hh"):
        return f"{_HOURS[m.group('hh')]}:30"
    if m.group("q"):
        hour = _HOURS[m.group("qh")]
        return f"{hour}:15" if m.group("q") == "past" else f"{(hour - 2) % 12 + 1}:45"
    hour, minute = _HOURS[m.group("h")], _MINUTES.get(m.group("m") or "o'clock", 0)
    mark = (m.group("x") or "").strip()
    suffix = {"in the morning": "am", "in the afternoon": "pm", "in the evening": "pm"}.get(
        mark, mark
    )
    return f"{hour}:{minute:02d}{suffix}" if minute else f"{hour}{suffix}"
