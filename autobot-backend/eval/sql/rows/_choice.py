"""Whether rows are a choice among tied rows: ``must`` plus some of ``may``, under the policy.

A LIMIT that cuts inside a tie group lets the engine pick which tied rows come back; any pick is
the answer. The question is a perfect b-matching: the candidate's rows, plus a wildcard standing
for the tied rows left out, against the rows that must come back and the tied rows that may. The
pairs are found by hashing, not by comparing every row with every other: each row is keyed by its
values that are not numbers (canonical, exact) and the tolerance bucket of its first number, and a
row can only pair with rows under its key in the neighbouring buckets (values that agree are at
most one bucket apart). Identical rows are one node with a count. So a tie group of
:data:`~eval.sql.rows._ties.MAX_TIED_ROWS` rows costs about as many lookups, not their square.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from eval.sql.rows._matching import max_flow
from eval.sql.rows._multiset import canonical_rows
from eval.sql.rows._tolerance import Tolerance
from eval.sql.rows._values import _Tag, is_finite_number

Row = tuple[Any, ...]
_NUMBER = _Tag("NUMBER")


def is_choice(rows: Sequence[Row], must: Sequence[Row], may: Sequence[Row], tolerance: Tolerance | None) -> bool:
    """Whether ``rows`` are ``must`` plus some ``len(rows) - len(must)`` of ``may``, as multisets.

    Example:
        >>> is_choice([("a", 1), ("c", 2)], [("a", 1)], [("b", 2), ("c", 2)], None)
        True
    """
    chosen = len(rows) - len(must)
    spare = len(may) - chosen
    if chosen < 0 or spare < 0:
        return False
    left, left_counts = _distinct(canonical_rows(rows))
    musts, must_counts = _distinct(canonical_rows(must))
    mays, may_counts = _distinct(canonical_rows(may))
    right = musts + mays
    edges = _pairs(left, right, tolerance)
    offset = len(musts)
    if spare:  # the wildcard takes the tied rows left out: any of `may`
        edges.append(list(range(offset, offset + len(mays))))
        left_counts.append(spare)
    lost_left, lost_right = max_flow(left_counts, must_counts + may_counts, edges)
    return not any(lost_left) and not any(lost_right)


def _distinct(rows: list[Row]) -> tuple[list[Row], list[int]]:
    counts = Counter(rows)
    return list(counts), list(counts.values())


def _pairs(left: list[Row], right: list[Row], tolerance: Tolerance | None) -> list[list[int]]:
    """For each left row, the right rows equal to it under the policy (canonical rows in, no duplicates)."""

    def key(row: Row) -> tuple[Row, tuple[Any, ...], int | None]:
        numbers = tuple(v for v in row if is_finite_number(v)) if tolerance is not None else ()
        exact = tuple(_NUMBER if tolerance is not None and is_finite_number(v) else v for v in row)
        return exact, numbers, tolerance.bucket(numbers[0]) if numbers and tolerance is not None else None

    index: dict[tuple[Row, int | None], list[tuple[int, tuple[Any, ...]]]] = {}
    for j, row in enumerate(right):
        exact, numbers, bucket = key(row)
        index.setdefault((exact, bucket), []).append((j, numbers))
    edges = []
    for row in left:
        exact, numbers, bucket = key(row)
        near = [bucket] if bucket is None else [bucket - 1, bucket, bucket + 1]
        found = []
        for b in near:
            for j, theirs in index.get((exact, b), ()):
                if numbers == theirs or (
                    tolerance is not None and all(x == y or tolerance.within(x, y) for x, y in zip(numbers, theirs))
                ):
                    found.append(j)
        edges.append(found)
    return edges
