"""A counterexample made small: delta debugging over its edits, then over its rows.

First the edits: the fewest of the neighbour's edits that still make the answer wrong (Zeller's ddmin,
removing chunks and halving them while nothing can go). Then the rows, table by table, root tables first: as
many rows as can be deleted, each with everything that refers to it, while the answer stays wrong and every
rule holds. What is left is a database a person can read: usually a handful of rows, on which the two queries'
results differ. The tests are bounded (:data:`MAX_TESTS`), so a shrink always ends; past the bound the
database is as small as it got.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from eval.sql.counterexample.data import Working
from eval.sql.counterexample.edits import Drop, Edit

T = TypeVar("T")
MAX_TESTS = 300
"""The most neighbours one shrink judges."""


def ddmin(items: Sequence[T], still: Callable[[list[T]], bool], tests: list[int]) -> list[T]:
    """The items (in order) whose removal is not needed: ``still(removed)`` says whether the failure survives
    removing ``removed``; each call counts in ``tests[0]``, stopping at :data:`MAX_TESTS`."""
    kept: list[T] = list(items)
    removed: list[T] = []
    n = 2
    while len(kept) >= 1 and tests[0] < MAX_TESTS:
        size = max(1, -(-len(kept) // n))
        chunks = [kept[i : i + size] for i in range(0, len(kept), size)]
        for chunk in chunks:
            if tests[0] >= MAX_TESTS:
                break
            tests[0] += 1
            if still(removed + chunk):
                removed += chunk
                gone = set(chunk)
                kept = [x for x in kept if x not in gone]
                n = max(n - 1, 2)
                break
        else:
            if size == 1:
                break
            n = min(len(kept), n * 2)
    return kept


def shrink(
    edits: Sequence[Edit], refutes: Callable[[list[Edit]], Working | None], order: Sequence[str]
) -> tuple[list[Edit], Working]:
    """The smallest edits, then rows dropped, that still refute; ``refutes(edits)`` is the neighbour those edits
    make when the answer is wrong on it (None otherwise); ``order``: the tables, roots first."""
    tests = [0]
    kept = ddmin(edits, lambda gone: refutes([e for e in edits if e not in gone]) is not None, tests)
    current = refutes(kept)
    if current is None:  # cannot happen: the edits refuted before shrinking (ddmin keeps a refuting set)
        current = refutes(list(edits))
        kept = list(edits)
    assert current is not None
    drops: list[Edit] = []
    for table in order:
        rows = sorted(current.rows(table))
        if not rows:
            continue

        def still(gone: list[int], t: str = table) -> bool:
            return refutes([*kept, *drops, Drop(t, frozenset(gone))]) is not None

        needed = set(ddmin(rows, still, tests))
        if len(needed) == len(rows):
            continue
        drop = Drop(table, frozenset(r for r in rows if r not in needed))
        found = refutes([*kept, *drops, drop])
        if found is not None:
            drops.append(drop)
            current = found
    return [*kept, *drops], current
