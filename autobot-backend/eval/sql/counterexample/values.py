"""Values as a column holds them: a literal read as the column's value, a value one unit either side, and
values made comparable for the stated rules.

SQLite keeps a date as text (``'2024-12-31'``) and a boolean as 0 or 1; DuckDB and PostgreSQL hand back
``date`` and ``bool``. A value an edit writes keeps the representation the column already uses, so the
neighbour reads back as the base does.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_YEAR = re.compile(r"^(\d{4})$")


def as_date(value: Any) -> date | None:
    """A date value, or the day a date-like string or timestamp names; None for anything else."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and _DAY.match(value):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def comparable(value: Any, like: Any) -> Any:
    """``value`` in a form that compares with ``like`` (a rule's bound): a date string as a date, a Decimal or a
    number as a float; None when they cannot be compared."""
    if isinstance(like, date):
        return as_date(value)
    if isinstance(like, int | float | Decimal) and not isinstance(like, bool):
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return float(value)
        return None
    return value


def written_like(value: date, example: Any) -> Any:
    """The date ``value`` in the representation ``example`` (a value of the same column) uses."""
    if isinstance(example, datetime):
        return datetime.combine(value, example.time())
    if isinstance(example, str):
        return value.isoformat() + example[10:] if len(example) > 10 else value.isoformat()
    return value


def days_of_literal(text: str) -> list[date]:
    """The days a date-like literal names, with one day either side of its ends: ``'2024-12-31'`` is
    Dec 30, 31 and Jan 1; ``'2024-12'`` the month's first and last days and their neighbours; ``'2024'``
    the year's."""
    if _DAY.fullmatch(text) or _DAY.match(text) and len(text) <= 19:
        day = as_date(text)
        return [] if day is None else [day - timedelta(days=1), day, day + timedelta(days=1)]
    found = _MONTH.match(text)
    if found:
        year, month = int(found[1]), int(found[2])
        if not 1 <= month <= 12:
            return []
        first = date(year, month, 1)
        last = date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)
        return [first - timedelta(days=1), first, last, last + timedelta(days=1)]
    found = _YEAR.match(text)
    if found and 1900 <= int(found[1]) <= 2200:
        year = int(found[1])
        return [date(year - 1, 12, 31), date(year, 1, 1), date(year, 12, 31), date(year + 1, 1, 1)]
    return []


def period_of_literal(text: str) -> tuple[date, date] | None:
    """The days a date-like literal names, first and last: ``'2024-12-31'`` that day, ``'2024-12'`` the month,
    ``'2024'`` the year; None for anything else."""
    days = days_of_literal(text)
    if not days:
        return None
    if len(days) == 3:  # a day and one either side
        return days[1], days[1]
    return days[1], days[2]


def steps_of_number(value: int | float | Decimal) -> list[Any]:
    """A number and one unit of its last digit either side: 10 -> 9, 10, 11; 2.5 -> 2.4, 2.5, 2.6."""
    if isinstance(value, int):
        return [value - 1, value, value + 1]
    exact = Decimal(str(value))
    exponent = exact.as_tuple().exponent
    unit = Decimal(1).scaleb(min(0, exponent) if isinstance(exponent, int) else 0)
    return [float(exact - unit), float(exact), float(exact + unit)]


def fits_kind(value: Any, kind: str) -> bool:
    """Whether a literal's value can be written to a column of ``kind``."""
    if value is None:
        return True
    if kind in ("int",):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("real", "decimal"):
        return isinstance(value, int | float | Decimal) and not isinstance(value, bool)
    if kind in ("date", "datetime"):
        return isinstance(value, date)
    if kind == "text":
        return isinstance(value, str)
    return False


def for_column(value: Any, kind: str, example: Any) -> Any:
    """``value`` (a literal's, or a step of one) as the column stores it, ``example`` being one of its values."""
    if isinstance(value, date):
        return written_like(value, example if example is not None else ("" if kind == "text" else value))
    if kind == "int" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "decimal" and isinstance(example, Decimal) and isinstance(value, int | float):
        return Decimal(str(value))
    return value
