"""What the two result sets say about a wrong answer, whatever its SQL: the evidence a diagnosis quotes,
and the category it points at when the SQL cannot be compared.

The first of these that holds is the evidence (values compared as the grader shows them: numbers
rounded to the question's ``decimals``):

* another number of columns, the reference's columns among the candidate's (or the other way): ``projection``;
* the same rows in another order: ``ordering``;
* the same values in another column order: ``projection``;
* the same rows with their numbers rounded, or written another way (``'12.50'`` for ``12.5``): ``value_format``;
* the same rows with one date column a day (dates) or a month (``YYYY-MM``) off, every row alike: the
  period's boundaries moved (``filter``);
* the same distinct rows, only the duplicates differ: ``distinct``;
* an ordered question, and one side's rows are the other's first rows (a LIMIT): ``ordering``;
* every number the same whole multiple (2x, 3x, ..) of the reference's, the other values alike, over at
  least two numbers (join fan-out): ``join``;
* the candidate's rows a superset or a subset of the reference's: ``filter``;
* otherwise the row counts, and no category.

Reading rows costs the evidence some microseconds a value (each is rounded, several readings are counted), so
a result is read only up to :data:`MAX_CELLS` values: past it (a result no grader of a model's answer returns
under the default row cap) the evidence is the row counts alone, and says so (issue 40 point 2: the row
evidence of a 100k-row answer cost more than grading it).
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from eval.sql.model.diagnosis import Category

Row = Sequence[Any]
MAX_PERMUTED_COLUMNS = 6
"""Column orders tried for "the same values in another column order" (6! = 720 at most)."""
MIN_MULTIPLIED = 2
"""Numbers that must share the factor: one number is a multiple of any other, which says nothing."""
MAX_PLACEMENTS = 720
"""Placements of a narrower result's columns among a wider one's tried (as many as 6 columns' orders)."""
MAX_CELLS = 20_000
"""Values (rows times columns) of the larger result the evidence reads; past it, only the counts are compared."""


@dataclass(frozen=True)
class Evidence:
    category: Category | None
    """The category it points at; None when it points at none."""
    text: str
    proof: bool = False
    """The rows alone prove that one change of that category makes the answer right (the same rows in another
    order, the same values in another column order, the reference's columns among more, ...): the SQL's
    other differences then changed nothing, and this is the primary."""


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float, decimal.Decimal)):
        f = float(v)
        return f if math.isfinite(f) else None
    return None


def _cell(v: Any, decimals: int) -> Any:
    n = _number(v)
    if n is not None:
        return round(n, decimals) + 0.0
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


_KEPT_AS_IS = frozenset({str, bytes, bool, type(None)})
"""Types :func:`_cell` gives back unchanged: a column of these alone is not read value by value."""


def _rows(rows: Sequence[Row], decimals: int) -> list[tuple[Any, ...]]:
    """Each row with :func:`_cell` of every value; a column whose values are all of a type ``_cell`` keeps (text, the
    usual case) is not read value by value, so an edit's result of thousands of rows costs a pass per column."""
    width = len(rows[0]) if rows else 0
    if not rows or set(map(len, rows)) != {width}:
        return [tuple(_cell(v, decimals) for v in r) for r in rows]
    columns: list[Sequence[Any]] = []
    changed = False
    for col in range(width):
        column = list(map(itemgetter(col), rows))
        if not set(map(type, column)) <= _KEPT_AS_IS:
            column, changed = [_cell(v, decimals) for v in column], True
        columns.append(column)
    if not changed:
        return list(map(tuple, rows))
    return list(zip(*columns))


def readable(*results: Sequence[Row]) -> bool:
    """Whether every result is within :data:`MAX_CELLS` values: what the evidence, and an edit's judge, read."""
    return all(len(rows) * (len(rows[0]) if rows else 0) <= MAX_CELLS for rows in results)


# Complexity (radon E or F), kept as one function: the row proofs, strongest first, each a return: one list read top
# to bottom is the precedence the diagnosis page states.
def evidence(ref_rows: Sequence[Row], got_rows: Sequence[Row], *, ordered: bool = False, decimals: int = 2) -> Evidence:
    """The strongest evidence the two results give (see the module docstring for the order)."""
    nr, ng = len(ref_rows), len(got_rows)
    if not readable(ref_rows, got_rows):
        return Evidence(None, f"{ng} rows against the reference's {nr}, too many to read (over {MAX_CELLS:,} values)")
    ref, got = _rows(ref_rows, decimals), _rows(got_rows, decimals)
    wr, wg = (len(ref[0]) if ref else None), (len(got[0]) if got else None)
    if wr is not None and wg is not None and wr != wg:
        return _widths(ref, got, wr, wg)
    cr, cg = Counter(ref), Counter(got)
    if cr == cg:
        if ordered and ref != got:
            return Evidence(Category.ORDERING, "the same rows in another order", proof=True)
        return Evidence(None, "the same rows as the reference's, read as the diagnosis reads them")
    if ref and got and len(ref) == len(got) and _permuted(cr, cg, wr or 0):
        return Evidence(Category.PROJECTION, "the same values in another column order", proof=True)
    if ref and got and len(ref) == len(got) and _same_loosely(ref, got, decimals):
        return Evidence(Category.VALUE_FORMAT, "the same rows, values rounded or written another way", proof=True)
    if ref and got and len(ref) == len(got) and (moved := _off_by_one_period(cr, cg, wr or 0)):
        return Evidence(Category.FILTER, f"the same rows off by one period ({moved})", proof=True)
    if set(cr) == set(cg):
        # Proof when DISTINCT alone makes the candidate's rows the reference's (which has no duplicate).
        once = all(n == 1 for n in cr.values()) and ng > nr
        return Evidence(Category.DISTINCT, f"the same distinct rows, duplicates differ ({ng - nr:+d} rows)", once)
    if ordered and ref and got and ng != nr and (ref[:ng] == got or got[:nr] == ref):
        return Evidence(
            Category.ORDERING,
            f"candidate rows are the reference's first {ng} of {nr}"
            if ng < nr
            else f"reference rows are the candidate's first {nr} of {ng}",
            proof=True,
        )
    factor = _multiple(ref, got)
    if factor is not None:
        return Evidence(Category.JOIN, f"values are {factor:g}x the reference's (rows multiplied, as by a join)")
    if not cr - cg and cg - cr:
        return Evidence(Category.FILTER, f"candidate rows are a superset ({ng - nr:+d})")
    if not cg - cr and cr - cg:
        return Evidence(Category.FILTER, f"candidate rows are a subset ({ng - nr:+d})")
    common = sum((cr & cg).values())
    return Evidence(None, f"{ng} rows against the reference's {nr}, {common} in common")


def _widths(ref: list[tuple[Any, ...]], got: list[tuple[Any, ...]], wr: int, wg: int) -> Evidence:
    wide, narrow = (got, ref) if wg > wr else (ref, got)
    inside = len(wide) == len(narrow) and _embedded(Counter(narrow), wide, min(wr, wg), max(wr, wg))
    if wg > wr:
        how = f"candidate returns {wg - wr} column(s) more" + (", the reference's among them" if inside else "")
    else:
        how = f"candidate returns {wr - wg} column(s) fewer" + (", each one of the reference's" if inside else "")
    return Evidence(Category.PROJECTION, how, proof=inside)


def _embedded(narrow: Counter[tuple[Any, ...]], wide: list[tuple[Any, ...]], nw: int, ww: int) -> bool:
    """Some ``nw`` of the ``ww`` columns of ``wide``, in some order, are the rows of ``narrow`` (the same
    multiset). Only placements where each column holds the same values as the one it stands for are tried
    (at most :data:`MAX_PLACEMENTS`)."""
    wide_cols = [sorted(map(repr, col)) for col in zip(*wide)] if wide else []
    narrow_cols = [sorted(map(repr, col)) for col in zip(*narrow.elements())] if narrow else []
    if len(narrow_cols) != nw or len(wide_cols) != ww:
        return False
    places = [[j for j in range(ww) if wide_cols[j] == narrow_cols[i]] for i in range(nw)]
    if any(not p for p in places):
        return False
    for n, order in enumerate(itertools.product(*places)):
        if n >= MAX_PLACEMENTS:
            return False
        if len(set(order)) == nw and Counter(tuple(r[i] for i in order) for r in wide) == narrow:
            return True
    return False


def _permuted(cr: Counter[tuple[Any, ...]], cg: Counter[tuple[Any, ...]], width: int) -> bool:
    """The candidate's columns, in some other order, are the reference's rows. Only orders that put each
    column where a reference column holds the same values are tried (at most 720, for 6 columns)."""
    if width < 2 or width > MAX_PERMUTED_COLUMNS:
        return False
    ref_cols = [sorted(map(repr, col)) for col in zip(*cr.elements())]
    got_cols = [sorted(map(repr, col)) for col in zip(*cg.elements())]
    places = [[j for j in range(width) if got_cols[j] == ref_cols[i]] for i in range(width)]
    if any(not p for p in places):
        return False
    for order in itertools.product(*places):
        if len(set(order)) != width or list(order) == list(range(width)):
            continue
        if Counter(tuple(r[i] for i in order) for r in cg.elements()) == cr:
            return True
    return False


def _loose(v: Any, places: int | None) -> Any:
    """A value as a number when it is one or reads as one (rounded to ``places`` when given); else its text."""
    n = _number(v)
    if n is None and isinstance(v, str):
        try:
            n = float(v.strip().replace(",", "").lstrip("$"))
        except ValueError:
            n = None
    if n is None:
        return str(v).strip().lower() if v is not None else None
    return (round(n, places) if places is not None else n) + 0.0


def _same_loosely(ref: list[tuple[Any, ...]], got: list[tuple[Any, ...]], decimals: int) -> bool:
    """One side's rows are the other's with numbers rounded (to whole units, or to fewer places) or written
    another way (``'12.50'`` for ``12.5``): the other side is the coarser one, taken as it is. Two numbers that
    only round alike are not this (52.4 and 51.6 are no rounding of each other)."""
    for coarse, fine in ((got, ref), (ref, got)):
        want = Counter(tuple(_loose(v, None) for v in r) for r in coarse)
        if any(want == Counter(tuple(_loose(v, k) for v in r) for r in fine) for k in range(decimals + 1)):
            return True
    return False


def _multiple(ref: list[tuple[Any, ...]], got: list[tuple[Any, ...]]) -> float | None:
    """k when every number of ``got`` is k times the reference's, k a whole number from 2 (a join repeats
    rows a whole number of times), over at least :data:`MIN_MULTIPLIED` numbers, matched by the other values."""
    if len(ref) != len(got) or not ref:
        return None

    def key(r: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(v for v in r if _number(v) is None)

    ra, ga = sorted(ref, key=lambda r: repr(key(r))), sorted(got, key=lambda r: repr(key(r)))
    ratios: list[float] = []
    for r, g in zip(ra, ga):
        if key(r) != key(g):
            return None
        for a, b in zip(r, g):
            x, y = _number(a), _number(b)
            if x is None or y is None or x == y:
                continue  # alike (a key, a count the join did not touch)
            if x == 0:
                return None
            ratios.append(round(y / x, 3))
    if len(ratios) < MIN_MULTIPLIED or len(set(ratios)) != 1:
        return None
    k = ratios[0]
    return k if k >= 2 and k == round(k) else None


DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MONTH = re.compile(r"^\d{4}-\d{2}$")


def _shift(v: Any, by: int) -> Any:
    """A ``YYYY-MM-DD`` value ``by`` days on, a ``YYYY-MM`` value ``by`` months on; None for anything else."""
    if isinstance(v, str) and DAY.match(v):
        try:
            return (datetime.date.fromisoformat(v) + datetime.timedelta(days=by)).isoformat()
        except ValueError:
            return None
    if isinstance(v, str) and MONTH.match(v):
        year, month = int(v[:4]), int(v[5:])
        if not 1 <= month <= 12:
            return None
        n = year * 12 + month - 1 + by
        return f"{n // 12:04d}-{n % 12 + 1:02d}"
    return None


def _off_by_one_period(cr: Counter[tuple[Any, ...]], cg: Counter[tuple[Any, ...]], width: int) -> str | None:
    """``column k one period later/earlier`` when shifting one date column of the candidate's rows by one
    day (or month) gives the reference's rows; None otherwise."""
    rows = list(cg.elements())
    for col in range(width):
        if not all(_shift(r[col], 0) is not None for r in rows):
            continue
        for by in (-1, 1):
            moved = Counter(tuple(_shift(v, by) if i == col else v for i, v in enumerate(r)) for r in rows)
            if moved == cr:
                return f"column {col + 1} one period {'later' if by < 0 else 'earlier'} than the reference's"
    return None
