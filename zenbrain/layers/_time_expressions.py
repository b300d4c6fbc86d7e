"""Time named in a question ("last Tuesday", "in March", "two weeks ago", "letzten Montag",
"im März"), resolved against a given "now" into a span of time. Pure functions, English and
German, standard library only.

Why not dateparser: it parses one date from a string that *is* a date, and finding the
expression inside a question is left to its ``search_dates``, which costs about half a second
of import and milliseconds per question and also reads ordinary words ("may", "second",
"now") as dates. Recall runs on every question, so the few forms people use are read here
(measured in ``python -m benchmarks knowledge``, section "Time in the question").

Each form gives the whole span it names: a day, a week (Monday to Monday), a month, a year;
"N days/weeks/months ago" gives the day, week or month around that point.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from zenbrain.text import fold, words

__all__ = ["TimeRange", "asks_about_the_past", "time_range_in"]

TimeRange = tuple[datetime, datetime]

_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4,
    "samstag": 5, "sonnabend": 5, "sonntag": 6,
}  # fmt: skip
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "januar": 1, "jaenner": 1, "februar": 2, "maerz": 3, "mai": 5, "juni": 6, "juli": 7,
    "oktober": 10, "dezember": 12,
}  # fmt: skip
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3,
    "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fuenf": 5, "sechs": 6,
    "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "ein paar": 3,
}  # fmt: skip
_UNITS = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "year": "year", "years": "year", "tag": "day", "tagen": "day",
    "woche": "week", "wochen": "week", "monat": "month", "monaten": "month", "jahr": "year",
    "jahren": "year",
}  # fmt: skip

_WEEKDAY = "|".join(_WEEKDAYS)
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_COUNT = r"\d+|" + "|".join(sorted(_COUNTS, key=len, reverse=True))
_UNIT = "|".join(sorted(_UNITS, key=len, reverse=True))

_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(source))
    for name, source in (
        ("ago", rf"\b(?P<n>{_COUNT})\s+(?P<u>{_UNIT})\s+ago\b"),
        ("ago", rf"\bvor\s+(?P<n>{_COUNT})\s+(?P<u>{_UNIT})\b"),
        ("weekday", rf"\b(?:last|letzten|letzte|letzter|vergangenen|am|on)\s+(?P<d>{_WEEKDAY})\b"),
        ("month_year", rf"\b(?:in|im|during|of)?\s*(?P<m>{_MONTH})\s+(?P<y>(?:19|20)\d\d)\b"),
        ("month", rf"\b(?:in|im|during|last|letzten|since)\s+(?P<m>{_MONTH})\b"),
        ("year", r"\b(?:in|im jahr|im jahre|during)\s+(?P<y>(?:19|20)\d\d)\b"),
        ("last_unit", r"\b(?:last|letzte|letzten|letztes|vergangene|vergangenen|vergangenes)\s+"
                      r"(?P<u>week|month|year|woche|monat|jahr)\b"),
        ("this_unit", r"\b(?:this|diese|diesen|dieses)\s+"
                      r"(?P<u>week|month|year|woche|monat|jahr)\b"),
        ("yesterday", r"\b(?:the day before yesterday|vorgestern)\b"),
        ("yesterday", r"\b(?:yesterday|gestern)\b"),
        ("today", r"\b(?:today|heute)\b"),
    )
)  # fmt: skip


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_span(year: int, month: int) -> TimeRange:
    start = datetime(year, month, 1, tzinfo=None)
    end = datetime(year + (month == 12), month % 12 + 1, 1)
    return start, end


def _with_zone(span: TimeRange, now: datetime) -> TimeRange:
    return span[0].replace(tzinfo=now.tzinfo), span[1].replace(tzinfo=now.tzinfo)


def _count(raw: str) -> int:
    return int(raw) if raw.isdigit() else _COUNTS[raw]


def _resolve(name: str, match: re.Match[str], now: datetime) -> TimeRange | None:
    today = _day(now)
    if name == "today":
        return today, today + timedelta(days=1)
    if name == "yesterday":
        back = 2 if match.group(0) in ("the day before yesterday", "vorgestern") else 1
        return today - timedelta(days=back), today - timedelta(days=back - 1)
    if name == "weekday":
        wanted = _WEEKDAYS[match.group("d")]
        back = (today.weekday() - wanted) % 7 or 7  # "last Tuesday" on a Tuesday: a week ago
        day = today - timedelta(days=back)
        return day, day + timedelta(days=1)
    if name == "ago":
        count, unit = _count(match.group("n")), _UNITS[match.group("u")]
        if unit == "day":
            day = today - timedelta(days=count)
            return day, day + timedelta(days=1)
        if unit == "week":
            point = today - timedelta(weeks=count)
            return point - timedelta(days=3), point + timedelta(days=4)
        if unit == "month":
            point = today - timedelta(days=30 * count)
            return point - timedelta(days=15), point + timedelta(days=16)
        point = today - timedelta(days=365 * count)
        return point - timedelta(days=182), point + timedelta(days=183)
    if name in ("month", "month_year"):
        month = _MONTHS[match.group("m")]
        if name == "month_year":
            year = int(match.group("y"))
        else:  # the latest such month that has begun
            year = now.year if month <= now.month else now.year - 1
        return _with_zone(_month_span(year, month), now)
    if name == "year":
        year = int(match.group("y"))
        return _with_zone((datetime(year, 1, 1), datetime(year + 1, 1, 1)), now)
    unit = _UNITS.get(match.group("u"), match.group("u"))
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        start = monday - timedelta(weeks=1) if name == "last_unit" else monday
        return start, start + timedelta(weeks=1)
    if unit == "month":
        year, month = now.year, now.month
        if name == "last_unit":
            year, month = (year - 1, 12) if month == 1 else (year, month - 1)
        return _with_zone(_month_span(year, month), now)
    year = now.year - (name == "last_unit")
    return _with_zone((datetime(year, 1, 1), datetime(year + 1, 1, 1)), now)


def time_range_in(text: str, now: datetime) -> TimeRange | None:
    """The span of time ``text`` names, relative to ``now`` (an aware datetime; the span is
    in its time zone), or None when it names none. The first form found wins."""
    folded = " ".join(fold(text).split())
    if not any(ch.isdigit() for ch in folded) and not _HINTS.search(folded):
        return None
    for name, pattern in _FORMS:
        match = pattern.search(folded)
        if match is None:
            continue
        if (
            name == "month"
            and match.group("m") == "may"
            and not folded[match.start() :].startswith(
                ("in may", "im mai", "during may", "since may", "last may")
            )
        ):
            continue
        return _resolve(name, match, now)
    return None


_HINTS = re.compile(
    rf"\b(?:ago|vor|last|letzte\w*|vergangen\w*|this|diese\w*|yesterday|gestern|vorgestern|"
    rf"today|heute|{_WEEKDAY}|{_MONTH})\b"
)


def _folded(listed: str) -> frozenset[str]:
    return frozenset(fold(word) for word in listed.split())


# Asking what was said or done then, not what holds now: the past tense of a question's
# verb. English auxiliaries and reporting verbs, German preterite and the participles of
# reporting verbs (a German perfect, "was hat sie gesagt", names its participle).
_PAST_TENSE = _folded(
    """
    did didn was wasn were weren had hadn said told mentioned asked recommended suggested
    war waren warst hatte hatten hattest wurde wurden sagte sagten gesagt erwähnt erzählt
    empfohlen vorgeschlagen gefragt
    """
)
# "was" is German for "what": a question with these words is German, and its "was" is no
# past tense.
_GERMAN = _folded("ist sind hat haben habe hast der die das ich du sie wie wann wo welche mein")
# ... unless it asks for what is current all the same ("what was the latest ...").
_CURRENT = _folded(
    """
    now currently current latest newest recent recently still anymore today nowadays
    jetzt aktuell aktuelle aktuellen derzeit zurzeit inzwischen mittlerweile neueste
    neuesten neuester noch heute
    """
)


def asks_about_the_past(query: str) -> bool:
    """Whether a question asks what was said or done at the time ("what did I say about",
    "how did you recommend", "was hatte sie erzählt") rather than what holds now: its verb
    is in the past tense and it names nothing current ("now", "latest", "jetzt",
    "aktuell"). Such a question is answered by the memory that says it, however old."""
    found = set(words(query))
    if "was" in found and not found.isdisjoint(_GERMAN):
        found.discard("was")
    return not found.isdisjoint(_PAST_TENSE) and found.isdisjoint(_CURRENT)
