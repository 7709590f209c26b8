"""Column order: the reference's columns found in the candidate's, in another order.

Positions matter (``column_order="positional"``, the default): a candidate whose columns are the
reference's in another order is still wrong, but its reason is ``column_order`` with the
permutation, not a ``value`` mismatch that sends a reader looking for a wrong number.
``column_order="any"`` accepts the permutation, for those who grade under the Spider convention
(where a result's columns are a set).

The search assigns each reference column a distinct candidate column that could hold it (same
broad value class; for a plain comparison also the same values as a multiset, a necessary
condition tested lazily), and verifies each complete assignment on whole rows with the caller's
rule (a plain comparison, or a tie-break of the reference's order).

Known limitation: at most :data:`PERMUTATIONS_TRIED` complete assignments are verified, and none
is searched when the result is larger than :data:`SEARCH_CELLS`; past either the reason stays
``value`` (a wrong answer either way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, time
from decimal import Decimal
from functools import cache
from operator import itemgetter
from typing import Any, Literal

from eval.sql.rows._multiset import comparable_keys, same_multiset
from eval.sql.rows._values import Tolerance

Row = tuple[Any, ...]
ColumnOrder = Literal["positional", "any"]
COLUMN_ORDERS: tuple[ColumnOrder, ...] = ("positional", "any")
"""``positional``: column i against column i (the default); ``any``: a permutation of the columns passes."""

PERMUTATIONS_TRIED = 24
"""Complete column assignments verified on whole rows before the search gives up."""
SEARCH_CELLS = 5_000_000
"""Rows times columns squared above which no permutation is searched (a failing huge result)."""


def find_permutation(
    expected: Sequence[Row],
    actual: Sequence[Row],
    accept: Callable[[list[Row]], bool],
    *,
    tolerance: Tolerance | None,
    same_values: bool = True,
) -> tuple[int, ...] | None:
    """The candidate column holding each reference column (0-based), other than the identity, or None.

    Example:
        >>> find_permutation([(1, "a")], [("a", 1)], lambda rows: rows == [(1, "a")], tolerance=None)
        (1, 0)

    Args:
        expected: the reference's rows (at least one, as wide as ``actual``'s).
        actual: the candidate's rows.
        accept: whether the candidate's rows, columns reordered into the reference's, are the answer.
        tolerance: the numeric tolerance of the comparison.
        same_values: every reference column's values appear in its candidate column as a multiset
            (true for a plain comparison; not at a tie-broken LIMIT cut, where other tied rows may
            come back).
    """
    if not expected or not actual:
        return None
    width = len(expected[0])
    if width < 2 or len(actual[0]) != width or max(len(expected), len(actual)) * width * width > SEARCH_CELLS:
        return None

    @cache
    def column(side: int, col: int) -> list[Row]:
        return list(zip(map(itemgetter(col), expected if side == 0 else actual)))

    @cache
    def classes(side: int, col: int) -> frozenset[str]:
        return frozenset(value_class(type(r[0])) for r in column(side, col))

    @cache
    def fits(i: int, j: int) -> bool:
        if classes(0, i) != classes(1, j):
            return False
        if not same_values:
            return True
        keys_exp, keys_act = comparable_keys(column(0, i), column(1, j))
        return same_multiset(keys_exp, keys_act, tolerance).match

    tried = 0

    def search(i: int, chosen: tuple[int, ...]) -> tuple[int, ...] | None:
        nonlocal tried
        if i == width:
            if chosen == tuple(range(width)):
                return None  # the identity is the positional comparison, already made
            tried += 1
            return chosen if accept([tuple(row[j] for j in chosen) for row in actual]) else None
        for j in range(width):
            if tried >= PERMUTATIONS_TRIED:
                return None
            if j not in chosen and fits(i, j) and (found := search(i + 1, chosen + (j,))) is not None:
                return found
        return None

    return search(0, ())


def describe(permutation: Sequence[int]) -> str:
    """``reference columns 1, 2 are candidate columns 2, 1`` (1-based, as every detail is)."""
    ref = ", ".join(str(i + 1) for i in range(len(permutation)))
    got = ", ".join(str(j + 1) for j in permutation)
    return f"reference columns {ref} are candidate columns {got}"


def value_class(kind: type) -> str:
    """The broad class of a type: values of different classes are never equal (text may spell a date)."""
    if kind is bool:
        return "boolean"
    if kind is type(None):
        return "null"
    if issubclass(kind, (int, float, Decimal)):
        return "number"
    if issubclass(kind, (str, date, time)):
        return "text or temporal"
    if issubclass(kind, (bytes, bytearray, memoryview)):
        return "bytes"
    return kind.__qualname__
