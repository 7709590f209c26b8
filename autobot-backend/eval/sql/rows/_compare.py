"""``compare_results``: the candidate's rows against the reference's, as one verdict with its evidence."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from itertools import compress, count, repeat
from operator import add, eq, itemgetter, ne
from typing import Any, Literal

from eval.sql.rows._columns import (
    SEARCH_CELLS,
    ColumnOrder,
    Search,
    find_permutation,
    gave_up_reason,
    project,
    settle_columns,
    value_class,
)
from eval.sql.rows._multiset import Kinds, Row, Settlement, canonical_rows, comparable_keys, same_multiset
from eval.sql.rows._tolerance import Tolerance
from eval.sql.rows._values import show_pair, show_row, values_equal
from eval.sql.rows._verdict import (
    COLUMN_COUNT,
    ORDER,
    ROW_COUNT,
    SHAPE,
    VALUE,
    Comparison,
    Location,
    Mismatch,
)

__all__ = ["compare_results", "compare_settled"]

_NEAREST_SCAN = 1000
"""How many unpaired candidate rows are scored by the policy when naming the one nearest a missing row."""

_FEW = 8
"""Up to this many missing rows are located by ``list.index`` (one linear scan each)."""

_EMBEDDINGS_TRIED = 16
"""How many column choices (each passing the per-column test) are verified row by row for a projection."""


def compare_results(
    expected_rows: Sequence[Sequence[Any]],
    actual_rows: Sequence[Sequence[Any]],
    *,
    shape: Literal["scalar", "rows"] = "rows",
    ordered: bool = False,
    decimals: int | None = 2,
    expected_ncols: int | None = None,
    actual_ncols: int | None = None,
    column_order: ColumnOrder = "positional",
    kinds: tuple[Kinds | None, Kinds | None] = (None, None),
) -> Comparison:
    """Whether the candidate's rows are the same answer as the reference's rows (spec section 5).

    Checks run in this order and the first failure is the reason: column count, scalar shape,
    row count, then values (and, for an ordered question, order). Rows that match only with the
    candidate's columns in another order are ``column_order`` (or, under ``column_order="any"``, a
    match). See the package docstring for the value policy.

    Example:
        >>> compare_results([(1, "a"), (2, "b")], [(2.0, "b"), (1, "a")]).match
        True
        >>> compare_results([(10.01,)], [(10.02,)], ordered=True).detail
        'expected 10.01, got 10.02'
        >>> compare_results([(1, 86.38144329896907)], [(1, 86.3)], ordered=True).detail
        'row 1 col 2: expected 86.38, got 86.3'

    Args:
        expected_rows: the reference's rows, as the driver returned them.
        actual_rows: the candidate's rows.
        shape: ``"scalar"`` requires the candidate to return exactly one row and one column.
        ordered: row order is part of the answer.
        decimals: numbers are equal when they differ by less than half a unit in this decimal
            place; None is zero tolerance (values still type-normalised, numbers exactly equal).
        expected_ncols: the reference's column count, needed when it returned no rows (the count
            cannot be read from rows then). When rows exist it must agree with them.
        actual_ncols: the same for the candidate.
        column_order: ``"positional"`` (column i against column i) or ``"any"`` (a permutation of
            the candidate's columns may pass: the Spider convention).
        kinds: each side's column types as its fetch read them (``Execution.kinds``), or None: read from the rows.

    Raises:
        ValueError: a bad argument, rows of unequal width, or a column count that contradicts the rows.
    """
    return compare_settled(
        expected_rows, actual_rows, shape, ordered, decimals, expected_ncols, actual_ncols, column_order, kinds
    )[1]


def _check(shape: str, decimals: int | None, column_order: str) -> None:
    if shape not in ("scalar", "rows"):
        raise ValueError(f"shape must be 'scalar' or 'rows', not {shape!r}")
    if decimals is not None and (type(decimals) is not int or decimals < 0):
        raise ValueError(f"decimals must be a non-negative int or None, not {decimals!r}")
    if column_order not in ("positional", "any"):
        raise ValueError(f"column_order must be 'positional' or 'any', not {column_order!r}")


def compare_settled(
    expected_rows: Sequence[Sequence[Any]],
    actual_rows: Sequence[Sequence[Any]],
    shape: Literal["scalar", "rows"],
    ordered: bool,
    decimals: int | None,
    expected_ncols: int | None,
    actual_ncols: int | None,
    column_order: ColumnOrder,
    kinds: tuple[Kinds | None, Kinds | None],
) -> tuple[Comparison, Comparison]:
    """The positional verdict, and the verdict once the candidate's columns are settled (:func:`compare_results`'s):
    where the positional one is ``value``, the reference's columns are searched for in another order of the
    candidate's. The tie-aware comparison starts from both.

    By position (``column_order="positional"``) a search past its limit gives up before reading anything,
    as it always did: the answer is ``value`` whatever it would find, so its signatures are not read either.
    """
    _check(shape, decimals, column_order)
    tolerance = None if decimals is None else Tolerance(decimals)
    expected, actual = _tuples(expected_rows), _tuples(actual_rows)
    with _gc_paused():
        plain = _compare(expected, actual, shape, ordered, tolerance, expected_ncols, actual_ncols, kinds)
        if plain.reason is not VALUE:  # the right rows in another order are `order`, whatever the columns
            return plain, plain

        def same(ref_columns: Sequence[int], columns: Sequence[int]) -> bool:
            return _compare(
                project(expected, ref_columns), project(actual, columns), shape, ordered, tolerance, None, None
            ).match

        width = plain.expected_columns
        if column_order == "positional" and 2 * max(len(expected), len(actual)) * width > SEARCH_CELLS:
            found = Search(None, gave_up_reason(max(len(expected), len(actual)), width))
        else:
            found = find_permutation(expected, actual, same, tolerance=tolerance, ordered=ordered, kinds=kinds)
    return plain, settle_columns(plain, found, column_order)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector, as ``timeit`` does.

    A comparison allocates up to millions of tuples and lists that hold no cycles; every young
    collection would traverse them and the caller's rows again (measured: 15x slower grouping).
    Reference counting still frees everything; the collector resumes at the end.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _compare(
    expected: list[Row],
    actual: list[Row],
    shape: str,
    ordered: bool,
    tolerance: Tolerance | None,
    expected_ncols: int | None,
    actual_ncols: int | None,
    kinds: tuple[Kinds | None, Kinds | None] = (None, None),
) -> Comparison:
    n_exp = _width(expected, expected_ncols, "expected", kinds[0])
    n_act = _width(actual, actual_ncols, "actual", kinds[1])

    def verdict(reason: Mismatch | None, detail: str, superset: bool = False, at: Location | None = None) -> Comparison:
        return Comparison(reason is None, reason, detail, n_exp, n_act, superset, at=at)

    if n_exp and n_act and n_exp != n_act:
        columns = _embedding(expected, actual, n_exp, n_act, ordered, tolerance)
        detail = f"expected {_count(n_exp, 'column')}, got {n_act}"
        if columns is not None:
            where = ", ".join(str(c + 1) for c in columns)
            detail += (
                f"; the reference's columns appear in the candidate's in order (candidate columns {where}): "
                "a projection difference, not a wrong number"
            )
        elif n_act > n_exp:
            detail += "; the reference's columns do not appear among the candidate's in order"
        return verdict(COLUMN_COUNT, detail, columns is not None)
    if shape == "scalar":
        if n_act > 1:
            return verdict(COLUMN_COUNT, f"a scalar answer is one column; got {n_act} columns")
        if len(actual) != 1:
            return verdict(SHAPE, f"a scalar answer is exactly one row; got {_count(len(actual), 'row')}")
    if len(expected) != len(actual):
        return verdict(ROW_COUNT, f"expected {_count(len(expected), 'row')}, got {len(actual)}")
    if not expected:
        return verdict(None, "match: both results are empty")
    keys_exp, keys_act = comparable_keys(expected, actual, kinds)
    if len(expected) == 1 and n_exp == 1 and _first_unequal_row(keys_exp, keys_act, tolerance) is not None:
        want, got = show_pair(expected[0][0], actual[0][0], tolerance)  # one value each: nothing to pair or order
        return verdict(VALUE, f"expected {want}, got {got}", at=Location(0, 0, 0))
    if ordered:
        return _ordered(expected, actual, keys_exp, keys_act, tolerance, verdict)
    settled = same_multiset(keys_exp, keys_act, tolerance)
    if settled.match:
        return verdict(None, f"match: {_count(len(expected), 'row')}, compared as a multiset")
    detail, at = _missing_row(expected, actual, settled, tolerance)
    return verdict(VALUE, detail, at=at)


def _ordered(
    expected: list[Row],
    actual: list[Row],
    keys_exp: Sequence[Row],
    keys_act: Sequence[Row],
    tolerance: Tolerance | None,
    verdict: Callable[..., Comparison],
) -> Comparison:
    first = _first_unequal_row(keys_exp, keys_act, tolerance)
    if first is None:
        return verdict(None, f"match: {_count(len(expected), 'row')}, compared in order")
    i, col = first
    if same_multiset(keys_exp, keys_act, tolerance).match:
        return verdict(
            ORDER,
            f"the rows match as a multiset but not in order: row {i + 1} expected "
            f"{show_row(expected[i])}, got {show_row(actual[i])}",
            at=Location(i, i, None),
        )
    want, got = show_pair(expected[i][col], actual[i][col], tolerance)
    return verdict(VALUE, f"row {i + 1} col {col + 1}: expected {want}, got {got}", at=Location(i, i, col))


def _first_unequal_row(
    keys_exp: Sequence[Row], keys_act: Sequence[Row], tolerance: Tolerance | None
) -> tuple[int, int] | None:
    """The first (row, column) where row i of one side is not equal to row i of the other."""
    try:
        if keys_exp == keys_act:
            return None
        # Keys that Python finds equal are equal under the policy; only the others are looked at.
        for i in compress(count(), map(ne, keys_exp, keys_act)):
            col = _first_unequal(keys_exp[i], keys_act[i], tolerance)
            if col is not None:
                return i, col
        return None
    except ArithmeticError:  # a signalling NaN refuses comparison
        return _first_unequal_row(canonical_rows(keys_exp), canonical_rows(keys_act), tolerance)


def _missing_row(
    expected: list[Row], actual: list[Row], settled: Settlement, tolerance: Tolerance | None
) -> tuple[str, Location]:
    """Name the first expected row left without a partner, and the unpartnered candidate row nearest to it."""
    keys_exp, keys_act = settled.keys
    lost = settled.unmatched_expected
    if len(lost) <= _FEW:
        i = min(map(keys_exp.index, lost))  # a C-level scan per row: cheaper than hashing every row
    else:
        i = next(compress(count(), map(lost.__contains__, keys_exp)))
    want = keys_exp[i]

    def agreement(key: Row) -> int:
        return sum(values_equal(x, y, tolerance) for x, y in zip(want, key))

    pool = list(settled.unmatched_actual)
    if len(pool) > _NEAREST_SCAN:
        # Rank every unpaired row by its exactly equal columns (C speed); the policy refines the best.
        hits = [0] * len(pool)
        for c, value in enumerate(want):
            hits = list(map(add, hits, map(eq, map(itemgetter(c), pool), repeat(value))))
        best = sorted(range(len(pool)), key=hits.__getitem__, reverse=True)[:_NEAREST_SCAN]
        pool = [pool[j] for j in sorted(best)]
    nearest = max(pool, key=agreement)
    k = keys_act.index(nearest)
    col = _first_unequal(want, nearest, tolerance)
    want, got = expected[i], actual[k]
    others = sum(settled.unmatched_expected.values()) - 1
    more = f"; {others} more expected row{'s' if others > 1 else ''} without one" if others else ""
    why = (
        f"rows compared as a multiset: expected row {i + 1} has no equal candidate row left to pair with; "
        f"nearest unpaired candidate row is {k + 1}{more}"
    )
    if col is None:  # equal to its nearest, which a maximum matching would have paired: say so plainly
        return f"row {i + 1}: expected {show_row(want)} ({why})", Location(i, k, None)
    shown = show_pair(want[col], got[col], tolerance)
    return f"row {i + 1} col {col + 1}: expected {shown[0]}, got {shown[1]} ({why})", Location(i, k, col)


def _first_unequal(want: Row, got: Row, tolerance: Tolerance | None) -> int | None:
    """The first unequal column of two keys (raw rows from ``comparable_keys`` or canonical rows)."""
    for col, (x, y) in enumerate(zip(want, got)):
        if not (x is y or x == y or values_equal(x, y, tolerance)):
            return col
    return None


def _embedding(
    expected: list[Row], actual: list[Row], n_exp: int, n_act: int, ordered: bool, tolerance: Tolerance | None
) -> tuple[int, ...] | None:
    """Candidate columns (increasing) that reproduce the reference's rows, or None.

    Column choices are searched in lexicographic order, so the first one tried is the greedy
    leftmost one: the answer when the candidate only added columns. A reference column may only
    take a candidate column that matches it on its own (a necessary condition, tested lazily and
    remembered); a complete choice is then verified on whole rows. At most ``_EMBEDDINGS_TRIED``
    complete choices are verified.
    """
    if n_exp > n_act or len(expected) != len(actual):
        return None
    if not expected:
        return tuple(range(n_exp))

    def same(exp: list[Row], act: list[Row]) -> bool:
        keys_exp, keys_act = comparable_keys(exp, act)
        if ordered:
            return _first_unequal_row(keys_exp, keys_act, tolerance) is None
        return same_multiset(keys_exp, keys_act, tolerance).match

    @cache
    def column(side: int, col: int) -> list[Row]:
        return list(zip(map(itemgetter(col), expected if side == 0 else actual)))

    @cache
    def classes(side: int, col: int) -> frozenset[str]:
        return frozenset(
            value_class(kind) for kind in set(map(type, map(itemgetter(col), expected if side == 0 else actual)))
        )

    @cache
    def fits(i: int, j: int) -> bool:
        # Every value needs a partner of its class: a cheap refusal before the real test.
        return classes(0, i) == classes(1, j) and same(column(0, i), column(1, j))

    tried = 0

    def search(i: int, start: int, chosen: tuple[int, ...]) -> tuple[int, ...] | None:
        nonlocal tried
        if i == n_exp:
            tried += 1
            return (
                chosen
                if same(expected, list(map(itemgetter(*chosen), actual)) if n_exp > 1 else column(1, chosen[0]))
                else None
            )
        for j in range(start, n_act - (n_exp - i) + 1):
            if tried >= _EMBEDDINGS_TRIED:
                return None
            if fits(i, j) and (found := search(i + 1, j + 1, chosen + (j,))) is not None:
                return found
        return None

    return search(0, 0, ())


def _tuples(rows: Sequence[Sequence[Any]]) -> list[Row]:
    # Driver rows (sqlite3.Row, SQLAlchemy Row) become plain tuples so that both sides hash alike. A
    # driver's rows share one type, so the first row decides; a stray other row is still compared
    # correctly (canonically), only not by the fast path.
    if type(rows) is list and (not rows or type(rows[0]) is tuple):
        return rows
    return list(map(tuple, rows))


def _width(rows: list[Row], declared: int | None, side: str, kinds: Kinds | None = None) -> int:
    if not rows:
        return declared or 0
    # A fetch that read each column's types (kinds) read rows of one width, a driver's: the first row tells it.
    widths = {len(rows[0])} if kinds is not None and len(kinds) == len(rows[0]) else set(map(len, rows))
    if len(widths) > 1:
        raise ValueError(f"{side} rows have unequal widths {sorted(widths)}: not a query result")
    (width,) = widths
    if declared is not None and declared != width:
        raise ValueError(f"{side}_ncols={declared} but the {side} rows have {width} columns")
    return width


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
