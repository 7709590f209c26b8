"""The ``information lost`` lint: a reference result whose numbers the comparison could not tell apart.

At the question's ``decimals``, a non-zero number that rounds to zero, or two distinct numbers of one
column that differ by less than half a unit in the last place (the tolerance of spec 5), make a reference
unfit to grade against. Values that agree to nine significant digits are one value: that is float
summation noise (``100.10000000000001`` and ``100.1``), not two answers.

Every verdict is decided exactly (``Decimal`` arithmetic), but only for the values that can be near each
other: a column's distinct numbers are sorted as they are (Python compares ``int``, ``float`` and
``Decimal`` exactly), neighbours further apart than the tolerance are passed over at C speed, and only the
rest are read as ``Decimal`` (issue 40 point 2: a ``Decimal`` of every value cost 5 s of CPU at 1M rows). A large
column of floats is sorted and screened in numpy, which reads the same floats the same way.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from decimal import Decimal
from itertools import compress, count, repeat
from operator import itemgetter, le, sub
from typing import Any

_NOISE = Decimal("1e-9")
_EXACT_FLOATS = 2**53
"""Integers below this are floats exactly: the C-speed screen reads them as floats."""
VECTOR_FROM = 200_000
"""Values of a column of floats from which it is sorted and screened in numpy: below, the import (about 0.1 s)
costs more than it saves."""
_SCREEN = 1.000001
"""How much wider than the tolerance the float screen looks: a float difference is within a few units in its
last place of the exact one, so no pair the exact test would find is passed over."""


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _exact(v: int | float | Decimal) -> Decimal:
    return v if isinstance(v, Decimal) else Decimal(v)


def _same_value(a: Decimal, b: Decimal) -> bool:
    return abs(a - b) <= _NOISE * max(Decimal(1), abs(a), abs(b))


def information_lost(
    rows: Sequence[Sequence[Any]], decimals: int, kinds: Sequence[frozenset[type]] | None = None
) -> str | None:
    """Why ``rows`` lose information at ``decimals`` (the first column that does), or None. ``kinds``: each column's
    types as the fetch read them (``Execution.kinds``); without them, they are read from the rows."""
    half = Decimal(5).scaleb(-(decimals + 1))
    width = max(map(len, rows), default=0)
    known = kinds is not None and len(kinds) == width
    for col in range(width):
        column = None if known else _column(rows, col)
        types = set(kinds[col]) if kinds is not None and known else set(map(type, column or ()))
        numeric = {k for k in types if issubclass(k, (int, float, Decimal)) and not issubclass(k, bool)}
        if not numeric or numeric == {int}:
            continue  # distinct integers, and an integer and zero, are 1 apart: more than any place's half unit
        column = _column(rows, col) if column is None else column
        found = _lost(column, types, numeric, half)
        if found is not None:
            kind, values = found
            shown = [_shown(column, v) for v in values]
            if kind == "zero":
                return f"column {col + 1}: {shown[0]} is not zero but rounds to zero at {decimals} decimals"
            return (
                f"column {col + 1}: {shown[0]} and {shown[1]} are different values that compare "
                f"equal at {decimals} decimals"
            )
    return None


def _column(rows: Sequence[Sequence[Any]], col: int) -> list[Any]:
    try:
        return list(map(itemgetter(col), rows))
    except IndexError:  # rows of unequal width (not a query's): the ones that reach the column
        return [r[col] for r in rows if col < len(r)]


def _lost(column: list[Any], kinds: set[type], numeric: set[type], half: Decimal) -> tuple[str, tuple[Any, ...]] | None:
    """``("zero", (v,))`` or ``("pair", (a, b))``: the first value, in increasing order, that rounds to zero,
    else the first neighbours the tolerance cannot tell apart; None when the column loses nothing."""
    if len(column) >= VECTOR_FROM and numeric == {float} and kinds - numeric <= {_NONE}:
        values, zeros, pairs = _screened_floats(column, half, _NONE in kinds)
    else:
        values = _sorted_numbers(column, kinds, numeric)
        zeros, pairs = _screened(values, half) or (range(len(values)), range(len(values) - 1))
    for i in zeros:
        v = _exact(values[i])
        if v and abs(v) < half and not _same_value(v, Decimal(0)):
            return "zero", (values[i],)
    for i in pairs:
        a, b = _exact(values[i]), _exact(values[i + 1])
        if b - a < half and not _same_value(a, b):
            return "pair", (values[i], values[i + 1])
    return None


_NONE = type(None)


def _sorted_numbers(column: list[Any], kinds: set[type], numeric: set[type]) -> list[Any]:
    """The column's distinct finite numbers (booleans are not numbers), in increasing order."""
    try:
        distinct = set(column)
    except TypeError:  # an unhashable value (an array, a JSON document) or a signalling NaN
        found = [v for v in column if _is_number(v)]
    else:
        if kinds - numeric <= {_NONE}:
            distinct.discard(None)
            found = list(distinct)
        else:  # booleans (True == 1 would hide a 1 in a set) or text beside the numbers
            found = [v for v in set(v for v in column if type(v) is not bool) if _is_number(v)]
    if not any(issubclass(kind, Decimal) for kind in numeric):
        try:
            return sorted(filter(math.isfinite, found))
        except OverflowError:  # an integer past any float: read exactly below
            pass
    exact = {_exact(v): v for v in found}
    return [exact[k] for k in sorted(k for k in exact if k.is_finite())]


def _screened(values: list[Any], half: Decimal) -> tuple[Sequence[int], Sequence[int]] | None:
    """The positions that may round to zero, and the neighbours that may be within the tolerance, read from the
    values as floats; None when a value is no float exactly (a Decimal, an integer from 2**53): read them all."""
    if not set(map(type, values)) <= {int, float}:
        return None
    if values and max(-values[0], values[-1]) >= _EXACT_FLOATS:
        return None
    floats = list(map(float, values))
    near = float(half) * _SCREEN
    zeros = range(bisect_left(floats, -near), bisect_right(floats, near))
    steps = map(sub, itertools.islice(floats, 1, None), floats)
    return zeros, list(compress(count(), map(le, steps, repeat(near))))


def _screened_floats(column: list[Any], half: Decimal, nulls: bool) -> tuple[list[float], Sequence[int], Sequence[int]]:
    """:func:`_sorted_numbers` and :func:`_screened` of a column of floats (and NULLs where ``nulls``), in numpy: the
    same distinct finite values in the same order (0.0 and -0.0 are one, as in a set), the same positions."""
    import numpy as np

    floats = np.array([v for v in column if v is not None] if nulls else column, dtype=np.float64)
    distinct = np.unique(floats[np.isfinite(floats)])
    near = float(half) * _SCREEN
    zeros = range(int(np.searchsorted(distinct, -near, "left")), int(np.searchsorted(distinct, near, "right")))
    pairs = np.flatnonzero(np.diff(distinct) <= near).tolist()
    return distinct.tolist(), zeros, pairs


def _shown(column: list[Any], value: Any) -> str:
    """How the report shows a value: the last of the column's spellings of it (``1``, ``1.0``), as it always did."""
    for v in reversed(column):
        if _is_number(v) and v == value:
            return repr(v)
    return repr(value)
