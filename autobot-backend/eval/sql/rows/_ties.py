"""Tie-aware grading: an answer that any tie-break of the reference's ORDER BY allows is the answer.

Where the reference's ordering key ties between different rows, their order is the engine's
accident, and where ``ORDER BY ... LIMIT`` cuts inside a tie group, *which* of the tied rows come
back is too. The self-check learns the key of every reference row from the reference itself (a
rewrite that also selects the ordering expressions, without the LIMIT, on the same database) and
hands the grader a :class:`Ties`: the sizes of the consecutive groups of rows that share a key,
and every row of the group the cut falls in. Then:

* ordered: the candidate's rows, taken group by group in the reference's positions, must be each
  group's rows in any order; in the group at the cut, any choice of as many rows of the whole
  tied group;
* unordered: only the cut matters: the rows before the cut's group, plus any choice of the tied rows.

Moving a row across a tie group's boundary is still ``order``; everything else (column count,
shape, row count, values) is decided exactly as by ``compare_results``, which runs first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from eval.sql.rows._columns import ColumnOrder, find_permutation
from eval.sql.rows._compare import (
    COLUMN_COUNT,
    COLUMN_ORDER,
    ROW_COUNT,
    SHAPE,
    VALUE,
    Comparison,
    compare_results,
    permuted,
)
from eval.sql.rows._matching import max_flow
from eval.sql.rows._values import Tolerance, values_equal

Row = tuple[Any, ...]
MAX_PAIRS = 4_000_000
"""Row comparisons a choice at the cut may cost; a larger tie group is left to the self-check to flag."""


@dataclass(frozen=True)
class Ties:
    """Where the reference's ORDER BY leaves a choice, learned from the reference on one database."""

    groups: tuple[int, ...]
    """Sizes of consecutive groups of the reference's rows that share an ordering key (sum: its row count)."""
    cut: tuple[Row, ...] = ()
    """When LIMIT cuts inside the last group: every row of that group in the whole result (output
    columns only); any ``groups[-1]`` of them, in any order, are the answer. Empty otherwise."""

    @property
    def leaves_a_choice(self) -> bool:
        return bool(self.cut) or any(size > 1 for size in self.groups)


def compare_with_ties(
    expected_rows: Sequence[Sequence[Any]],
    actual_rows: Sequence[Sequence[Any]],
    ties: Ties | None,
    *,
    shape: Literal["scalar", "rows"] = "rows",
    ordered: bool = False,
    decimals: int | None = 2,
    expected_ncols: int | None = None,
    actual_ncols: int | None = None,
    column_order: ColumnOrder = "positional",
) -> Comparison:
    """``compare_results``, then, where it fails on values or order, the reference's tie-breaks
    (with the candidate's columns as they are, then reordered: see ``_columns``).

    Example:
        >>> ties = Ties(groups=(1, 2))
        >>> compare_with_ties([("a", 3), ("b", 2), ("c", 2)], [("a", 3), ("c", 2), ("b", 2)], ties,
        ...                   ordered=True).match
        True
    """
    plain = compare_results(
        expected_rows,
        actual_rows,
        shape=shape,
        ordered=ordered,
        decimals=decimals,
        expected_ncols=expected_ncols,
        actual_ncols=actual_ncols,
        column_order=column_order,
    )
    if (
        plain.match
        or ties is None
        or not ties.leaves_a_choice
        or plain.reason in (COLUMN_COUNT, SHAPE, ROW_COUNT, COLUMN_ORDER)
    ):
        return plain
    expected = [tuple(r) for r in expected_rows]
    actual = [tuple(r) for r in actual_rows]
    if sum(ties.groups) != len(expected):
        return plain  # learned on other rows: never loosen the verdict on a mismatch of the oracle's own
    tolerance = None if decimals is None else Tolerance(decimals)
    what = "the order among rows that tie on the ordering key" if ordered else "which tied rows the LIMIT kept"
    if _allowed(expected, actual, ties, ordered, tolerance):
        return Comparison(
            True,
            None,
            f"match: the reference leaves {what} open",
            plain.expected_columns,
            plain.actual_columns,
            tie_break=True,
        )
    found = (
        None
        if plain.reason is not VALUE
        else find_permutation(
            expected,
            actual,
            lambda rows: _allowed(expected, rows, ties, ordered, tolerance),
            tolerance=tolerance,
            same_values=not ties.cut,
        )
    )
    return plain if found is None else permuted(plain, found, column_order, f" (the reference leaves {what} open)")


def _allowed(expected: list[Row], actual: list[Row], ties: Ties, ordered: bool, tolerance: Tolerance | None) -> bool:
    last = ties.groups[-1]
    if not ordered:
        if not ties.cut:
            return False  # a multiset mismatch that no tie-break explains
        return _choice(actual, expected[: len(expected) - last], ties.cut, tolerance)
    pos = 0
    for i, size in enumerate(ties.groups):
        want, got = expected[pos : pos + size], actual[pos : pos + size]
        pos += size
        if i == len(ties.groups) - 1 and ties.cut:
            ok = _choice(got, [], ties.cut, tolerance)
        elif size == 1:
            ok = _rows_equal(want[0], got[0], tolerance)
        else:
            ok = compare_results(
                want,
                got,
                ordered=False,
                decimals=None if tolerance is None else tolerance.decimals,
                expected_ncols=len(want[0]),
                actual_ncols=len(got[0]),
            ).match
        if not ok:
            return False
    return True


def _rows_equal(a: Row, b: Row, tolerance: Tolerance | None) -> bool:
    return len(a) == len(b) and all(values_equal(x, y, tolerance) for x, y in zip(a, b))


def _choice(rows: Sequence[Row], must: Sequence[Row], may: Sequence[Row], tolerance: Tolerance | None) -> bool:
    """Whether ``rows`` are ``must`` plus some ``len(rows) - len(must)`` of ``may``, as multisets.

    A perfect b-matching on both sides of: rows + (unchosen count) wildcards against must + may,
    where a wildcard pairs with any row of ``may``: the wildcards take exactly the rows not chosen.
    """
    chosen = len(rows) - len(must)
    spare = len(may) - chosen
    if chosen < 0 or spare < 0 or len(rows) * (len(must) + len(may)) > MAX_PAIRS:
        return False
    right = list(must) + list(may)
    edges = [[j for j, r in enumerate(right) if _rows_equal(row, r, tolerance)] for row in rows]
    offset = len(must)
    edges += [list(range(offset, offset + len(may)))] if spare else []
    left = [1] * len(rows) + ([spare] if spare else [])
    lost_left, lost_right = max_flow(left, [1] * len(right), edges)
    return not any(lost_left) and not any(lost_right)
