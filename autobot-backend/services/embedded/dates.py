"""Date phrases: each date phrase of a question with the tokens it covers, as a :class:`DateSpec`.

Every absolute phrase becomes a half-open range ``[lo, hi)`` of calendar days, so "in Q3 2024"
is ``>= 2024-07-01 AND < 2024-10-01`` (portable, and right at both period boundaries): one period
(:mod:`.period_phrases`), a range between two ("between March and May 2024"), or an open end ("since
2023", "on or before 15 December", "until the end of March"). "Last N months" has no fixed dates: it
is relative to the latest date in the data, which only the database knows, so it stays symbolic
(:class:`~.period_phrases.Relative`) until the SQL is built.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import cast

from services.embedded.lexicon import MONTHS, Token
from services.embedded.period_phrases import (
    ORDINALS,
    Period,
    Relative,
    borrowed_year,
    edge_of,
    month_end,
    period_at,
    recurring_at,
    relative_at,
    year_at,
)


@dataclass(frozen=True)
class DateSpec:
    start: int
    end: int
    """Token span ``[start, end)`` of the whole phrase, cue words included."""
    lo: dt.date | None = None
    hi: dt.date | None = None
    relative: Relative | None = None
    period: Period | None = None
    """The single named period, when the phrase is exactly one (for period comparisons)."""
    parts: tuple[Period, ...] = ()
    """Both ends of "between X and Y" / "from X to Y", which a comparison reads as two periods."""
    recurring: tuple[str, int] | None = None
    """A period that recurs every year or month, with no year named: ``("month", 12)`` for "in
    December", ``("quarter", 4)`` for a bare Q4, ``("first_day", 1)`` / ``("last_day", 1)`` for the
    first or last day of any month, ``("last_day", 3)`` of any quarter, ``("last_day", 12)`` of a year."""

    @property
    def named_period(self) -> Period:
        """The single named period of a phrase that names one (``period`` is set)."""
        return cast(Period, self.period)


def find_dates(tokens: list[Token]) -> list[DateSpec]:
    """Every date phrase in the question, left to right, with the tokens it covers.

    Example:
        >>> from services.embedded.lexicon import tokenize
        >>> [(s.lo.isoformat(), s.hi.isoformat()) for s in find_dates(tokenize("orders in Q3 2024"))]
        [('2024-07-01', '2024-10-01')]
    """
    out: list[DateSpec] = []
    i, n = 0, len(tokens)
    while i < n:
        low = tokens[i].low
        start = i - 1 if i > 0 and tokens[i - 1].low in ("the",) else i
        edge = edge_of(tokens, i)
        if edge is not None:
            p, j = edge
            s = start - 1 if start > 0 and tokens[start - 1].low in ("in", "on", "during", "for") else start
            out.append(DateSpec(s, j, lo=p.lo, hi=p.hi, period=p))
            i = j
            continue
        day_edge = recurring_at(tokens, i) if low in ("first", "last", "final", "second", "third", "fourth") else None
        if day_edge is not None:
            rec, s, e = day_edge
            out.append(DateSpec(s, e, recurring=rec))
            i = e
            continue
        rel = relative_at(tokens, i)
        if rel is not None:
            relative, s, e = rel
            s = s - 1 if s > 0 and tokens[s - 1].low in ("the",) else s
            s = s - 1 if s > 0 and tokens[s - 1].low in ("in", "over", "during", "for", "within") else s
            out.append(DateSpec(s, e, relative=relative))
            i = e
            continue
        if low in ("between", "from") and i + 1 < n:
            first = period_at(tokens, i + 1) or borrowed_year(tokens, i + 1)
            if first is not None:
                p1, j = first
                if j < n and tokens[j].low in ("and", "to", "through", "until", "till", "-"):
                    second = period_at(tokens, j + 1)
                    if second is not None:
                        p2, k = second
                        out.append(DateSpec(i, k, lo=p1.lo, hi=p2.hi, parts=(p1, p2)))
                        i = k
                        continue
                if low == "from":
                    out.append(DateSpec(i, j, lo=p1.lo))
                    i = j
                    continue
        if (
            low == "up"
            and i + 2 < n
            and tokens[i + 1].low == "to"
            and period_at(tokens, i + 2) is None
            and i + 4 < n
            and tokens[i + 2].low == "the"
            and tokens[i + 3].low in ("end", "close")
        ):
            low = "until"  # "up to the end of February": until then
        if low in ("since", "after", "before", "until", "till", "through", "starting", "prior", "up") and i + 1 < n:
            k = i + 1
            if (low == "prior" or tokens[i].low == "up") and tokens[k].low == "to":
                k += 1
            if (
                tokens[k].low == "the"
                and k + 2 < n
                and tokens[k + 1].low in ("end", "close")
                and tokens[k + 2].low == "of"
                and low in ("until", "till", "through", "up", "by")
            ):
                k += 3  # "until the end of March 2024": until March is over
            inclusive = i > 1 and tokens[i - 1].low == "or" and tokens[i - 2].low in ("on", "in")
            if inclusive:  # "on or after 15 December": that day too
                low = {"after": "since", "before": "through_day"}.get(low, low)
            if low == "starting" and tokens[k].low in ("in", "from", "on"):
                k += 1
            found = period_at(tokens, k) if k < n else None
            if found is not None:
                p, j = found
                if low in ("since", "starting"):
                    spec = DateSpec(i - 2 if inclusive else i, j, lo=p.lo)
                elif low == "after":
                    spec = DateSpec(i, j, lo=p.hi)
                elif low in ("before", "prior"):
                    spec = DateSpec(i, j, hi=p.lo)
                elif low == "through" and p.grain == "year":
                    spec = DateSpec(i, j, lo=p.lo, hi=p.hi, period=p)  # "month by month through 2024"
                elif low == "through_day":
                    spec = DateSpec(i - 2, j, hi=p.hi)
                else:
                    spec = DateSpec(i, j, hi=p.hi)
                out.append(spec)
                i = j
                continue
        borrowed = (
            borrowed_year(tokens, i)
            if low in MONTHS
            or re.fullmatch(r"q[1-4]", low)
            or (
                low.isdigit()
                and tokens[i].kind == "number"
                and i + 1 < n
                and tokens[i + 1].low in ("to", "-", "through", "until", "till")
            )
            else None
        )
        second = period_at(tokens, borrowed[1] + 1) if borrowed is not None else None
        if borrowed is not None and second is not None:
            # "January to June 2024" (no "from"): a range, the first end in the second's year
            (p1, _j), (p2, k) = borrowed, second
            s = start - 1 if start > 0 and tokens[start - 1].low in ("in", "for", "during", "over") else start
            out.append(DateSpec(s, k, lo=p1.lo, hi=p2.hi, parts=(p1, p2)))
            i = k
            continue
        if _order_hint(tokens, i):
            i += 1
            continue
        found = period_at(tokens, i) or _same_year(tokens, i, out)
        recurring = recurring_at(tokens, i) if found is None else None
        if recurring is not None:
            rec, s, e = recurring
            out.append(DateSpec(s, e, recurring=rec))
            i = e
            continue
        if found is not None:
            p, j = found
            s = start
            if s > 0 and tokens[s - 1].low in ("in", "during", "for", "of", "on", "within", "throughout"):
                s -= 1
            elif tokens[i - 1].low in ("in", "during", "for", "of", "on", "within", "throughout") and i > 0:
                s = i - 1
            out.append(DateSpec(s, j, lo=p.lo, hi=p.hi, period=p))
            i = j
            continue
        i += 1
    return out


def _order_hint(tokens: list[Token], i: int) -> bool:
    """ "(2024 first)", "then 2024": a year that orders the answer's columns, not a period to filter."""
    if year_at(tokens[i]) is None:
        return False
    nxt = tokens[i + 1].low if i + 1 < len(tokens) else ""
    if (
        nxt in ("minus", "less")
        and i + 2 < len(tokens)
        and year_at(tokens[i + 2]) is not None
        or i > 0
        and tokens[i - 1].low == "minus"
    ):
        return True  # "2024 minus 2023": which way round the difference goes
    return nxt == "first" or i > 0 and tokens[i - 1].low == "then" and nxt in (")", "", ".", "?")


def _same_year(tokens: list[Token], i: int, found: list[DateSpec]) -> tuple[Period, int] | None:
    """ "the second half" after "the first half of 2024": a quarter or half in the year named before."""
    low = tokens[i].low
    if low not in ORDINALS or i + 1 >= len(tokens) or tokens[i + 1].low not in ("quarter", "half"):
        return None
    years = [s.period.lo.year for s in found if s.period is not None and s.period.grain in ("quarter", "half")]
    if not years:
        return None
    y, k = years[-1], ORDINALS[low]
    if tokens[i + 1].low == "quarter":
        return Period(dt.date(y, 3 * k - 2, 1), month_end(y, 3 * k), "quarter"), i + 2
    k = min(k, 2)
    return Period(dt.date(y, 6 * k - 5, 1), month_end(y, 6 * k), "half"), i + 2


def label(day: dt.date, unit: str) -> str:
    """The period label of ``day`` in the format the generated SQL uses for ``unit``."""
    if unit == "year":
        return f"{day.year:04d}"
    if unit == "quarter":
        return f"{day.year:04d}-Q{(day.month + 2) // 3}"
    if unit == "month":
        return f"{day.year:04d}-{day.month:02d}"
    if unit == "week":
        return day.strftime("%Y-%W")
    return day.isoformat()
