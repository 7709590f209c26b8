"""One period named at a token of a question: a year, quarter, half, month or day ("Q3 2024", "the
third quarter of 2024", "15 March 2024", "Christmas Day 2023"), the edge of one ("the last week of
2024"), the first end of a range in the second's year ("March to May 2024"), a month or quarter of any
year ("in December", "Q4 revenue"), or a window relative to the data ("the last 3 months").

A period is a half-open range ``[lo, hi)`` of calendar days; a relative window stays symbolic
(:class:`Relative`) until the SQL is built, because only the database knows its latest date.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from services.embedded.lexicon import CALENDAR_UNITS, MONTHS, NUMBER_WORDS, Token

_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


_ISO_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "last": 4,
    "final": 4,
}


_UNITS = CALENDAR_UNITS


_HOLIDAYS = {
    ("new", "year", "eve"): (12, 31),
    ("new", "year", "day"): (1, 1),
    ("christmas", "eve"): (12, 24),
    ("christmas", "day"): (12, 25),
    ("boxing", "day"): (12, 26),
    ("valentine", "day"): (2, 14),
    ("halloween",): (10, 31),
    ("independence", "day"): (7, 4),
}


_RECENT = {"last", "past", "previous", "recent", "latest", "trailing", "most"}


@dataclass(frozen=True)
class Period:
    lo: dt.date
    hi: dt.date
    """Exclusive end."""
    grain: str
    """``day``, ``month``, ``quarter``, ``half``, ``year``: what the phrase named."""


@dataclass(frozen=True)
class Relative:
    unit: str
    n: int


def year_at(tok: Token) -> int | None:
    if tok.kind == "number" and re.fullmatch(r"(19|20)\d\d", tok.low):
        return int(tok.low)
    return None


def month_end(year: int, month: int) -> dt.date:
    return dt.date(year + (month == 12), month % 12 + 1, 1)


def period_at(tokens: list[Token], i: int) -> tuple[Period, int] | None:
    """A named period starting at token ``i``: returns it and the index after it."""
    y: int | None
    n = len(tokens)
    t = tokens[i]
    low = t.low
    m = _ISO.match(low)
    if t.kind == "number" and m:
        day = dt.date(int(m[1]), int(m[2]), int(m[3]))
        return Period(day, day + dt.timedelta(days=1), "day"), i + 1
    m = _ISO_MONTH.match(low)
    if t.kind == "number" and m and 1 <= int(m[2]) <= 12:
        y, mo = int(m[1]), int(m[2])
        return Period(dt.date(y, mo, 1), month_end(y, mo), "month"), i + 1
    year = year_at(t)
    if year is not None:
        return Period(dt.date(year, 1, 1), dt.date(year + 1, 1, 1), "year"), i + 1
    # "Q3 2024", "Q3 of 2024", "2024 Q3"
    qm = re.fullmatch(r"q([1-4])", low)
    hm = re.fullmatch(r"h([12])", low)
    j = i + 1
    if j < n and tokens[j].low == "of":
        j += 1
    if (qm or hm) and j < n and (y := year_at(tokens[j])) is not None:
        if qm:
            q = int(qm[1])
            return Period(dt.date(y, 3 * q - 2, 1), month_end(y, 3 * q), "quarter"), j + 1
        assert hm is not None  # a quarter or a half
        h = int(hm[1])
        return Period(dt.date(y, 6 * h - 5, 1), month_end(y, 6 * h), "half"), j + 1
    # "the third quarter of 2024", "first half of 2024"
    if low in ORDINALS and i + 1 < n and tokens[i + 1].low in ("quarter", "half"):
        j = i + 2
        if j < n and tokens[j].low in ("of", "in"):
            j += 1
        if j < n and (y := year_at(tokens[j])) is not None:
            k = ORDINALS[low]
            if tokens[i + 1].low == "quarter":
                return Period(dt.date(y, 3 * k - 2, 1), month_end(y, 3 * k), "quarter"), j + 1
            k = min(k, 2)
            return Period(dt.date(y, 6 * k - 5, 1), month_end(y, 6 * k), "half"), j + 1
    # "15 March 2024", "1 November, 2024"
    if (
        t.kind == "number"
        and low.isdigit()
        and 1 <= int(low) <= 31
        and i + 3 < n
        and tokens[i + 1].low == "of"
        and tokens[i + 2].low in MONTHS
        and tokens[i + 2].kind == "word"
        and (y := year_at(tokens[i + 3])) is not None
    ):
        try:
            day = dt.date(y, MONTHS[tokens[i + 2].low], int(low))  # "the 3rd of March 2024"
        except ValueError:
            return None
        return Period(day, day + dt.timedelta(days=1), "day"), i + 4
    if (
        t.kind == "number"
        and low.isdigit()
        and 1 <= int(low) <= 31
        and i + 2 < n
        and tokens[i + 1].low in MONTHS
        and tokens[i + 1].kind == "word"
    ):
        k = i + 2 + (tokens[i + 2].low in (",", "of"))
        if k < n and (y := year_at(tokens[k])) is not None:
            try:
                day = dt.date(y, MONTHS[tokens[i + 1].low], int(low))
            except ValueError:
                return None
            return Period(day, day + dt.timedelta(days=1), "day"), k + 1
    # holidays with a fixed date, then the year
    holiday = _holiday_at(tokens, i)
    if holiday is not None:
        k = holiday[2]
        k += k < n and tokens[k].low in (",", "of", "in")
        if k < n and (y := year_at(tokens[k])) is not None:
            day = dt.date(y, *holiday[:2])
            return Period(day, day + dt.timedelta(days=1), "day"), k + 1
    # "March 2024", "March of 2024", "March 5, 2024"
    if t.kind == "word" and low in MONTHS and (low != "may" or t.text[0].isupper()):
        mo = MONTHS[low]
        j = i + 1
        if j < n and tokens[j].low == "of":
            j += 1
        if j < n and (y := year_at(tokens[j])) is not None:
            return Period(dt.date(y, mo, 1), month_end(y, mo), "month"), j + 1
        if j < n and tokens[j].kind == "number" and tokens[j].low.isdigit() and 1 <= int(tokens[j].low) <= 31:
            k = j + 1
            if k < n and tokens[k].low == ",":
                k += 1
            if k < n and (y := year_at(tokens[k])) is not None:
                day = dt.date(y, mo, int(tokens[j].low))
                return Period(day, day + dt.timedelta(days=1), "day"), k + 1
    return None


def _holiday_at(tokens: list[Token], i: int) -> tuple[int, int, int] | None:
    """A holiday with a fixed date at token ``i``: (month, day, index after it)."""
    for size in (3, 2, 1):
        found = _HOLIDAYS.get(tuple(t.low for t in tokens[i : i + size]))
        if found is not None and len(tokens[i : i + size]) == size:
            return found[0], found[1], i + size
    return None


def edge_of(tokens: list[Token], i: int) -> tuple[Period, int] | None:
    """ "the last day of December 2024", "the first week of 2024": the period at one end of another."""
    if tokens[i].low not in ("first", "last", "final", "opening", "closing") or i + 3 >= len(tokens):
        return None
    count, k = 1, i + 1
    word = tokens[k].low
    if (word.isdigit() or word in NUMBER_WORDS and word not in ("a", "single")) and k + 1 < len(tokens):
        count, k = (int(word) if word.isdigit() else NUMBER_WORDS[word]), k + 1  # "the opening five weeks of"
    unit = _UNITS.get(tokens[k].low)
    if unit is None or k + 2 >= len(tokens) or tokens[k + 1].low != "of" or count < 1:
        return None
    found = period_at(tokens, k + 2)
    if found is None:
        return None
    outer, j = found
    first = tokens[i].low in ("first", "opening")
    if count > 1 and unit in ("day", "week"):
        days = count * (1 if unit == "day" else 7)
        lo = outer.lo if first else outer.hi - dt.timedelta(days=days)
        return Period(lo, lo + dt.timedelta(days=days), "days"), j
    if count > 1 and unit == "month":
        y, m = (outer.lo.year, outer.lo.month) if first else (outer.hi.year, outer.hi.month - count)
        while m < 1:
            y, m = y - 1, m + 12
        lo = dt.date(y, m, 1)
        y2, m2 = y + (m - 1 + count) // 12, (m - 1 + count) % 12 + 1
        return Period(lo, dt.date(y2, m2, 1), "months"), j
    if unit == "day":
        day = outer.lo if first else outer.hi - dt.timedelta(days=1)
        return Period(day, day + dt.timedelta(days=1), "day"), j
    if unit == "week":
        lo = outer.lo if first else outer.hi - dt.timedelta(days=7)
        return Period(lo, lo + dt.timedelta(days=7), "week"), j
    if unit in ("month", "quarter"):
        months = 1 if unit == "month" else 3
        if first:
            lo = outer.lo
        else:
            y, m = outer.hi.year, outer.hi.month - months
            while m < 1:
                y, m = y - 1, m + 12
            lo = dt.date(y, m, 1)
        y, m = lo.year, lo.month + months
        while m > 12:
            y, m = y + 1, m - 12
        return Period(lo, dt.date(y, m, 1), unit), j
    return None


def borrowed_year(tokens: list[Token], i: int) -> tuple[Period, int] | None:
    """The first end of a range, in the second end's year, or the year before when it would otherwise
    come after it (a December day "to" a January day of a year)."""
    found = _first_end(tokens, i)
    if found is None:
        return None
    first, j = found
    second = period_at(tokens, j + 1)
    if second is not None and first.lo > second[0].lo:
        try:
            return Period(
                first.lo.replace(year=first.lo.year - 1), first.hi.replace(year=first.hi.year - 1), first.grain
            ), j
        except ValueError:
            return None
    return found


def _first_end(tokens: list[Token], i: int) -> tuple[Period, int] | None:
    """ "from Q3 to Q4 <year>", "between March and May <year>", "between <month> <day> and <month> <day>,
    <year>": the first period takes the second's year."""
    n = len(tokens)
    low = tokens[i].low
    day = None
    j = i + 1
    if (
        low in MONTHS
        and j < n
        and tokens[j].kind == "number"
        and tokens[j].low.isdigit()
        and 1 <= int(tokens[j].low) <= 31
    ):
        day, j = int(tokens[j].low), j + 1
    elif low.isdigit() and 1 <= int(low) <= 31 and j < n and tokens[j].low in MONTHS and tokens[j].kind == "word":
        day, low, j = int(low), tokens[j].low, j + 1  # "3 May to 9 May 2021"
    elif (
        low.isdigit()
        and 1 <= int(low) <= 31
        and j + 1 < n
        and tokens[j].low in ("to", "through", "until", "till", "-", "and")
    ):
        second = period_at(tokens, j + 1)  # "25 to 31 October 2024": the first day in the second's month
        if second is None or second[0].grain != "day" or second[0].lo.day <= int(low):
            return None
        first = second[0].lo.replace(day=int(low))
        return Period(first, first + dt.timedelta(days=1), "day"), j
    else:
        holiday = _holiday_at(tokens, i)
        if holiday is not None:
            j = holiday[2]
            if j + 1 < n and tokens[j].low in ("and", "to", "through", "until", "till", "-"):
                second = period_at(tokens, j + 1)
                if second is not None and second[0].grain == "day":
                    first = dt.date(second[0].lo.year, *holiday[:2])
                    return Period(first, first + dt.timedelta(days=1), "day"), j
            return None
    if j + 1 >= n or tokens[j].low not in ("and", "to", "through", "until", "till", "-"):
        return None
    second = period_at(tokens, j + 1)
    if second is None or second[0].grain not in ("quarter", "month", "day"):
        return None
    year = second[0].lo.year
    qm = re.fullmatch(r"q([1-4])", low)
    if qm and second[0].grain == "quarter":
        q = int(qm[1])
        return Period(dt.date(year, 3 * q - 2, 1), month_end(year, 3 * q), "quarter"), j
    if low in MONTHS and day is None and second[0].grain == "month":
        mo = MONTHS[low]
        return Period(dt.date(year, mo, 1), month_end(year, mo), "month"), j
    if low in MONTHS and day is not None and second[0].grain == "day":
        try:
            first = dt.date(year, MONTHS[low], day)
        except ValueError:
            return None
        return Period(first, first + dt.timedelta(days=1), "day"), j
    return None


_RECURRING_LEAD = {
    "in",
    "during",
    "for",
    "of",
    "on",
    "through",
    "throughout",
    ",",
    "each",
    "every",
    "only",
    "from",
    "to",
    "and",
    "versus",
    "vs",
    "between",
    "with",
}


_EDGE_UNITS = {"month": 1, "quarter": 3, "year": 12}


_NOT_ATTRIBUTIVE = frozenset(
    """is was were are and or to through until till vs versus compared with against than of
in on first then""".split()
)


def recurring_at(tokens: list[Token], i: int) -> tuple[tuple[str, int], int, int] | None:
    """A period named without its year (a bare month or quarter) or a day at the edge of every
    month, quarter or year (its first or last day, in any year): (recurring, start, end)."""
    n = len(tokens)
    t = tokens[i]
    low = t.low
    nxt = tokens[i + 1] if i + 1 < n else None
    if nxt is not None and (nxt.kind == "number" or nxt.low == "of" and i + 2 < n and year_at(tokens[i + 2])):
        return None
    lead = tokens[i - 1].low if i > 0 else ""
    lead_ok = lead in _RECURRING_LEAD or lead == "the" and i > 1 and tokens[i - 2].low in _RECURRING_LEAD
    start = i - 1 if lead in _RECURRING_LEAD else (i - 2 if lead == "the" and lead_ok else i)
    attributive = nxt is not None and nxt.kind == "word" and nxt.low not in _NOT_ATTRIBUTIVE  # "December revenue"
    named = (
        t.kind == "word"
        and low in MONTHS
        and len(low) > 3
        and t.text[0].isupper()
        and low not in ("may", "march")
        and not (i > 0 and tokens[i - 1].kind == "number")
        and attributive
    )
    if (
        t.kind == "word"
        and low in MONTHS
        and (len(low) > 3 or t.text[0].isupper())
        and (lead_ok or named)
        and (low not in ("may", "march") or t.text[0].isupper())
    ):
        return ("month", MONTHS[low]), start, i + 1  # "in December", "December revenue"
    qm = re.fullmatch(r"q([1-4])", low)
    if qm and (lead_ok or attributive):
        return ("quarter", int(qm[1])), start, i + 1  # "in Q4", "Q4 revenue"
    nth = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": 4, "final": 4}.get(low)
    if (
        nth
        and i + 4 < n
        and tokens[i + 1].low == "quarter"
        and tokens[i + 2].low == "of"
        and tokens[i + 3].low in ("each", "every", "any", "a")
        and tokens[i + 4].low == "year"
    ):
        begin = i - 1 if i > 0 and tokens[i - 1].low == "the" else i
        begin = begin - 1 if begin > 0 and tokens[begin - 1].low in _RECURRING_LEAD else begin
        return ("quarter", nth), begin, i + 5  # "the third quarter of every year"
    if low in ("first", "last", "final") and i + 3 < n and tokens[i + 1].low == "day" and tokens[i + 2].low == "of":
        k = i + 3
        while k < n and tokens[k].low in ("a", "an", "each", "every", "any", "the", "calendar"):
            k += 1
        if k < n and tokens[k].low in _EDGE_UNITS and not (k + 1 < n and year_at(tokens[k + 1])):
            edge = "first_day" if low == "first" else "last_day"
            begin = i - 1 if i > 0 and tokens[i - 1].low == "the" else i
            begin = begin - 1 if begin > 0 and tokens[begin - 1].low in ("on", "in") else begin
            return (edge, _EDGE_UNITS[tokens[k].low]), begin, k + 1
    return None


def relative_at(tokens: list[Token], i: int) -> tuple[Relative, int, int] | None:
    """``last 3 months`` / ``the past year`` / ``this month``: (relative, start, end)."""
    n = len(tokens)
    t = tokens[i]
    if t.low not in _RECENT and t.low not in ("this", "current"):
        return None
    j = i + 1
    if t.low == "most" and j < n and tokens[j].low == "recent":
        j += 1
    count = 1
    if j < n and (tokens[j].low.isdigit() or tokens[j].low in NUMBER_WORDS):
        count = int(tokens[j].low) if tokens[j].low.isdigit() else NUMBER_WORDS[tokens[j].low]
        j += 1
    if j < n and tokens[j].low in _UNITS and count > 0:
        return Relative(_UNITS[tokens[j].low], count), i, j + 1
    return None
