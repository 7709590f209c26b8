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

One limit, :data:`MAX_TIED_ROWS`, bounds the group at the cut for the self-check (a bigger one is
an oracle defect) and for the grader (which weighs any group up to it, ``_choice``); a ``Ties``
past it that reaches the grader anyway makes the comparison ``undecided``, never ``wrong``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from eval.sql.rows._choice import is_choice
from eval.sql.rows._columns import ColumnOrder, find_permutation, project, settle_columns
from eval.sql.rows._compare import compare_results, compare_settled
from eval.sql.rows._multiset import Kinds
from eval.sql.rows._tolerance import Tolerance
from eval.sql.rows._values import values_equal
from eval.sql.rows._verdict import COLUMN_COUNT, COLUMN_ORDER, ROW_COUNT, SHAPE, UNDECIDED, VALUE, Comparison

Row = tuple[Any, ...]
MAX_TIED_ROWS = 10_000
"""Rows of the tie group at a LIMIT cut that are weighed: the self-check flags a bigger group as an
oracle defect, and the grader weighs every group up to it (the one limit of this mechanism)."""


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
    kinds: tuple[Kinds | None, Kinds | None] = (None, None),
) -> Comparison:
    """``compare_results``, then, where it fails on values or order, the reference's tie-breaks
    (with the candidate's columns as they are, then reordered: see ``_columns``).

    Example:
        >>> ties = Ties(groups=(1, 2))
        >>> compare_with_ties([("a", 3), ("b", 2), ("c", 2)], [("a", 3), ("c", 2), ("b", 2)], ties,
        ...                   ordered=True).match
        True
    """
    plain, verdict = compare_settled(
        expected_rows, actual_rows, shape, ordered, decimals, expected_ncols, actual_ncols, column_order, kinds
    )
    if (
        verdict.match
        or ties is None
        or not ties.leaves_a_choice
        or verdict.reason in (COLUMN_COUNT, SHAPE, ROW_COUNT, COLUMN_ORDER)
    ):
        return verdict
    expected = [tuple(r) for r in expected_rows]
    actual = [tuple(r) for r in actual_rows]
    if sum(ties.groups) != len(expected):
        return verdict  # learned on other rows: never loosen the verdict on a mismatch of the oracle's own
    if len(ties.cut) > MAX_TIED_ROWS:
        return Comparison(
            False,
            UNDECIDED,
            f"the LIMIT cuts inside a tie group of {len(ties.cut):,} rows, more than the {MAX_TIED_ROWS:,} "
            f"a choice is weighed among; by position: {plain.detail}",
            plain.expected_columns,
            plain.actual_columns,
        )
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
    if plain.reason is not VALUE:
        return verdict

    def allowed(ref_columns: Sequence[int], columns: Sequence[int]) -> bool:
        cut = tuple(project(ties.cut, ref_columns))
        return _allowed(
            project(expected, ref_columns), project(actual, columns), Ties(ties.groups, cut), ordered, tolerance
        )

    # Within a tie group rows move, so a column's values are the reference's as a multiset only.
    found = find_permutation(expected, actual, allowed, tolerance=tolerance, same_values=not ties.cut, ordered=False)
    if found.permutation is None and found.gave_up is None and (ordered or ties.cut):
        # Every answer the plain search accepts, this one does too: having found none, neither would it.
        return plain
    if found.permutation is None and found.gave_up is None:
        return verdict
    return settle_columns(plain, found, column_order, f" (the reference leaves {what} open)")


def _allowed(expected: list[Row], actual: list[Row], ties: Ties, ordered: bool, tolerance: Tolerance | None) -> bool:
    last = ties.groups[-1]
    if not ordered:
        if not ties.cut:
            return False  # a multiset mismatch that no tie-break explains
        return is_choice(actual, expected[: len(expected) - last], ties.cut, tolerance)
    pos = 0
    for i, size in enumerate(ties.groups):
        want, got = expected[pos : pos + size], actual[pos : pos + size]
        pos += size
        if i == len(ties.groups) - 1 and ties.cut:
            ok = is_choice(got, [], ties.cut, tolerance)
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
