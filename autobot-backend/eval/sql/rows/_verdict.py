"""What a comparison says: the verdict, why not, and where (``Comparison``, ``Mismatch``, ``Location``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Mismatch(StrEnum):
    """Why a candidate's rows are not the reference's answer (``Comparison.reason``)."""

    COLUMN_COUNT = "column_count"
    """A different number of columns; ``projection_superset`` says whether it is only extra columns."""

    ROW_COUNT = "row_count"
    """A different number of rows (duplicates count: rows are a multiset)."""

    VALUE = "value"
    """Same shape, but some row has no equal row on the other side; the detail names the first."""

    ORDER = "order"
    """An ordered question: the right rows in the wrong order."""

    SHAPE = "shape"
    """A scalar question answered with other than exactly one row."""

    COLUMN_ORDER = "column_order"
    """The reference's columns in another order (``Comparison.column_permutation`` says which):
    positions matter unless the comparison accepts any column order."""

    UNDECIDED = "undecided"
    """Not a mismatch: a search the verdict needs gave up at its limit (the detail says which). The
    question is unmeasured with this reason, never ``wrong``."""


COLUMN_COUNT = Mismatch.COLUMN_COUNT
ROW_COUNT = Mismatch.ROW_COUNT
VALUE = Mismatch.VALUE
ORDER = Mismatch.ORDER
SHAPE = Mismatch.SHAPE
COLUMN_ORDER = Mismatch.COLUMN_ORDER
UNDECIDED = Mismatch.UNDECIDED


@dataclass(frozen=True)
class Comparison:
    """The verdict on one pair of results, and the evidence a reader or a report needs."""

    match: bool
    """True when the candidate's rows are the reference's answer under the policy."""

    reason: Mismatch | None
    """None on a match; otherwise the machine-readable reason (a ``Mismatch``, which is a ``str``)."""

    detail: str
    """One line for a human: ``"row 3 col 2: expected 212.4, got 212.0"``. Rows and columns are 1-based."""

    expected_columns: int
    """The reference's column count; 0 when it cannot be known (no rows and no count given)."""

    actual_columns: int
    """The candidate's column count; 0 when it cannot be known."""

    projection_superset: bool = False
    """On ``column_count``: the reference's columns appear among the candidate's, in order, with
    matching rows, so dropping the extra columns would make it a match (a projection difference,
    not a wrong number)."""

    tie_break: bool = False
    """On a match: it needed a tie-break the reference's ORDER BY leaves open (``compare_with_ties``)."""

    column_permutation: tuple[int, ...] | None = None
    """On ``column_order``, or a match under ``column_order="any"`` that needed one: the candidate
    column (0-based) holding each reference column."""

    at: Location | None = None
    """On ``value`` and ``order``: where the detail points, for a report to highlight; None otherwise."""


@dataclass(frozen=True)
class Location:
    """The cell (or row) a mismatch's detail names, 0-based."""

    expected_row: int
    actual_row: int
    """The candidate's row set against it (the same index when compared in order; the nearest unpaired
    row when compared as a multiset)."""
    column: int | None
    """None when the whole row is the point (rows out of order, or equal to its nearest)."""
