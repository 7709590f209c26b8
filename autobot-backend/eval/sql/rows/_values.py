"""When two single values are the same answer: the named normalisers, then the numeric tolerance.

A value is first mapped to its canonical form by the first normaliser of ``NORMALISERS`` that
takes its type (order matters: ``bool`` is an ``int`` and ``datetime`` is a ``date`` in Python).
Two canonical forms that are equal (``==``, with a hash to match) are the same value. Numbers
get one more chance, outside the normalisers because it is not an equivalence: two finite
numbers the same at the question's ``decimals`` are equal (``_tolerance.Tolerance``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any, NamedTuple

from eval.sql.rows._tolerance import Tolerance


class _Tag:
    """A canonical form no database value can equal (identity equality)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NAN = _Tag("NaN")
TRUE = _Tag("TRUE")
FALSE = _Tag("FALSE")


@dataclass(frozen=True)
class _Opaque:
    """An unhashable value of an unknown type (a JSON list, an array), compared by its repr."""

    type_name: str
    text: str


def _keep(value: Any) -> Any:
    return value


def _boolean(value: bool) -> _Tag:
    # In Python True == 1 and hash(True) == hash(1): a tag keeps an engine's boolean apart.
    return TRUE if value else FALSE


def _number(value: int | float | Decimal) -> Any:
    # int, float and Decimal already compare (and hash) by exact value; only NaN needs help:
    # it is unequal to itself, and a signalling Decimal NaN raises on comparison.
    if type(value) is float:
        return NAN if value != value else value
    if type(value) is Decimal and value.is_nan():
        return NAN
    return value


def _temporal(value: date | time) -> Any:
    # A naive midnight timestamp is a day; an aware one is an instant (no calendar day without a zone).
    if (
        type(value) is datetime
        and value.tzinfo is None
        and not (value.hour or value.minute or value.second or value.microsecond)
    ):
        return value.date()
    return value


_ISO_DATETIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?(Z|[+-]\d\d(?::?\d\d)?)?)?", re.ASCII
)
_ISO_TIME = re.compile(r"(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?", re.ASCII)


def _zone(text: str) -> timezone:
    if text == "Z":
        return UTC
    digits = text[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    return timezone(-offset if text[0] == "-" else offset)


def parse_temporal(text: str) -> date | time | None:
    """The date, timestamp or time an ISO 8601 string spells, or None if it spells none.

    Accepted: ``YYYY-MM-DD``, then optionally ``T`` or a space, ``HH:MM``, ``:SS``, ``.f`` (1-6
    digits) and a zone (``Z``, ``+HH``, ``+HHMM``, ``+HH:MM``); or a time ``HH:MM[:SS[.f]]`` (a
    timestamp's clock may stop at the minute, so a time's may too). A string like ``20240131``,
    ``2024-02-30`` or ``25:00`` is not a date or time and stays a string.

    Example:
        >>> parse_temporal("2024-01-31T00:00:00.000")
        datetime.datetime(2024, 1, 31, 0, 0)
        >>> parse_temporal("2024-02-30") is None
        True
    """
    try:
        if m := _ISO_DATETIME.fullmatch(text):
            y, mo, d, hh, mm, ss, frac, zone = m.groups()
            if hh is None:
                return date(int(y), int(mo), int(d))
            return datetime(
                int(y),
                int(mo),
                int(d),
                int(hh),
                int(mm),
                int(ss or 0),
                int((frac or "0").ljust(6, "0")),
                tzinfo=_zone(zone) if zone else None,
            )
        if m := _ISO_TIME.fullmatch(text):
            hh, mm, ss, frac = m.groups()
            return time(int(hh), int(mm), int(ss or 0), int((frac or "0").ljust(6, "0")))
    except ValueError:
        return None
    return None


def _text(value: str) -> Any:
    # Engines return the same day as a date or as text (SQLite has no date type).
    if value[:1].isdigit() and (parsed := parse_temporal(value)) is not None:
        return _temporal(parsed)
    return value


def _binary(value: bytes | bytearray | memoryview) -> bytes:
    return bytes(value)


class Normaliser(NamedTuple):
    """One named step of the policy: the types it takes and what it makes of them."""

    name: str
    types: tuple[type, ...]
    convert: Callable[[Any], Any]
    rule: str
    """What this step makes equal (or keeps apart): the policy table's row, in words."""


NORMALISERS: tuple[Normaliser, ...] = (
    Normaliser("null", (type(None),), _keep, "NULL matches only NULL: not 0, not '', not 'NULL'"),
    Normaliser("boolean", (bool,), _boolean, "true matches only true: never 1 (Python's True == 1 is not followed)"),
    Normaliser(
        "number",
        (int, float, Decimal),
        _number,
        "exact value across types: 10 == 10.0 == Decimal('10.00'); NaN matches only NaN; inf only inf",
    ),
    Normaliser(
        "temporal",
        (date, time),
        _temporal,
        "a naive midnight timestamp is its date; other timestamps, and every aware one, stay instants",
    ),
    Normaliser(
        "text", (str,), _text, "exact and case-sensitive; an ISO date/timestamp/time string is that date/timestamp/time"
    ),
    Normaliser("binary", (bytes, bytearray, memoryview), _binary, "bytes by content, never equal to text"),
)

_BY_TYPE: dict[type, Callable[[Any], Any]] = {}


def _resolve(kind: type) -> Callable[[Any], Any]:
    for step in NORMALISERS:
        if issubclass(kind, step.types):
            return step.convert
    return _other


def _other(value: Any) -> Any:
    # Types the policy does not name (UUID, interval, JSON) compare by their own equality.
    try:
        hash(value)
    except TypeError:
        return _Opaque(type(value).__qualname__, repr(value))
    return value


def canonical(value: Any) -> Any:
    """The canonical form of one value: equal forms are the same answer (numbers aside, see ``Tolerance``).

    Example:
        >>> canonical("2024-01-31 00:00:00") == canonical(date(2024, 1, 31))
        True
        >>> canonical(True) == canonical(1)
        False
    """
    convert = _BY_TYPE.get(type(value))
    if convert is None:
        convert = _BY_TYPE[type(value)] = _resolve(type(value))
    return convert(value)


def is_finite_number(form: Any) -> bool:
    """True for a canonical form that the tolerance applies to (bools are tags by now)."""
    if isinstance(form, float):
        return math.isfinite(form)
    if isinstance(form, Decimal):
        return form.is_finite()
    return isinstance(form, int)


def values_equal(x: Any, y: Any, tolerance: Tolerance | None) -> bool:
    """Whether two raw values are the same answer under the policy."""
    cx, cy = canonical(x), canonical(y)
    if cx == cy:
        return True
    return tolerance is not None and is_finite_number(cx) and is_finite_number(cy) and tolerance.within(cx, cy)


def raw_forms(form: Any) -> set[Any] | None:
    """Every hashable raw value whose canonical form is ``form``, or None when they cannot be listed.

    Numbers have no such list (tolerance), nor do NaN and aware timestamps (any zone spells the
    same instant). Used to find, with one hash lookup per row, every row that could be equal to a
    given one in a column. The set may hold extra values (``True`` also finds ``1``): the caller
    checks what it finds.
    """
    if form is NAN or is_finite_number(form) or type(form) in (float, Decimal):
        return None
    if form is TRUE or form is FALSE:
        return {form, form is TRUE}
    if isinstance(form, (date, time)):
        if getattr(form, "tzinfo", None) is not None:
            return None
        return {form, *_temporal_spellings(form)} | ({datetime.combine(form, time())} if type(form) is date else set())
    return {form}


def _temporal_spellings(form: date | time) -> Iterator[str]:
    clocks: list[str]
    if isinstance(form, time):
        clocks, days = list(_clock_spellings(form, minutes_only=True)), [""]
    else:
        moment = form if isinstance(form, datetime) else datetime.combine(form, time())
        clocks, days = list(_clock_spellings(moment.time(), minutes_only=True)), [moment.date().isoformat()]
        if type(form) is date:
            yield days[0]
        days = [days[0] + "T", days[0] + " "]
    for day in days:
        for clock in clocks:
            yield day + clock


def _clock_spellings(clock: time, minutes_only: bool = False) -> Iterator[str]:
    hm = f"{clock.hour:02d}:{clock.minute:02d}"
    if minutes_only and not (clock.second or clock.microsecond):
        yield hm
    hms = f"{hm}:{clock.second:02d}"
    if not clock.microsecond:
        yield hms
    digits = f"{clock.microsecond:06d}"
    for n in range(1, 7):
        if not digits[n:].strip("0"):
            yield f"{hms}.{digits[:n]}"


def show(value: Any, limit: int = 40) -> str:
    """A value as a reader expects it in a one-line explanation, cut at ``limit`` characters; a float to the 15
    significant digits a double holds (a sum's ``77013.06000000001`` is ``77013.06``).

    Example:
        >>> show(77013.06000000001), show(0.1 + 0.2), show("x"), show(None)
        ('77013.06', '0.3', "'x'", 'NULL')
    """
    if value is None:
        text = "NULL"
    elif type(value) is float and math.isfinite(value):
        text = repr(float(f"{value:.15g}"))
    elif type(value) is Decimal:
        text = str(value)
    elif isinstance(value, (date, time)):
        text = value.isoformat(sep=" ") if type(value) is datetime else value.isoformat()
    elif isinstance(value, (bytearray, memoryview)):
        text = repr(bytes(value))
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_pair(x: Any, y: Any, tolerance: Tolerance | None) -> tuple[str, str]:
    """Two values a detail says differ, as a person reads them: numbers at the place the comparison reads them to
    (the question's decimals, or a small value's first significant digit), trailing zeros dropped, and one place
    finer where that would show them equal (at the finer place they never are: they differ by more than half a
    unit of the coarser one). Anything else as :func:`show` writes it.

    Example:
        >>> t = Tolerance(2)
        >>> show_pair(86.38144329896907, 86, t), show_pair(27, 400, t), show_pair(0.3750001, 0.3849, t)
        (('86.38', '86'), ('27', '400'), ('0.375', '0.385'))
        >>> show_pair(667.74, 200.5, t), show_pair("a", 1.5, t), show_pair(1.0, float("nan"), t)
        (('667.74', '200.5'), ("'a'", '1.5'), ('1.0', 'nan'))
    """
    if tolerance is None or not (_finite_number(x) and _finite_number(y)):
        return show(x), show(y)
    place = max(tolerance.place(x), tolerance.place(y))
    a, b = _at_place(x, place), _at_place(y, place)
    if a == b:
        a, b = _at_place(x, place + 1), _at_place(y, place + 1)
    return a, b


def _finite_number(v: Any) -> bool:
    return type(v) in (int, float, Decimal) and (type(v) is int or math.isfinite(v))


def _at_place(v: int | float | Decimal, place: int) -> str:
    if type(v) is int:
        return str(v)
    text = f"{v:.{place}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("", "-0") else text


def show_row(row: tuple[Any, ...], limit: int = 80) -> str:
    text = "(" + ", ".join(show(v, 24) for v in row) + ("," if len(row) == 1 else "") + ")"
    return text if len(text) <= limit else text[: limit - 2] + "…)"
