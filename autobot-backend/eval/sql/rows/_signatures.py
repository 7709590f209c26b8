"""Cheap evidence, read before the column-order search, that no other order of the columns can match.

A wrong answer of the usual kind (one value differs, the columns in their place) sent every result
of up to 500,000 cells through the search of ``_columns``, which canonicalises every value and
counts each column: several times the cost of grading a right answer of the same size. The search
only ever finds a permutation whose every reference column ``i`` is held by its candidate column
``p(i)`` (``_columns._fits``). So before it runs, each pair of columns ``i != j`` is tested on
signatures read at C speed, column by column, and only as far as a pair needs:

* the value classes (``value_class``) of the two columns differ;
* their counts of NULL differ (NULL matches only NULL);
* numbers alone (int, float, Decimal, no NaN or infinity): the smallest or the largest differ
  beyond the tolerance (``Tolerance.beyond``; without a tolerance, at all): the search's own test
  pairs the sorted numbers and refuses on any pair beyond it, and the smallest and the largest are
  the first and last pair; integers alone also by their sum (exact values);
* text alone: how many values an ASCII digit begins differs, or the total length of the others. Only
  text that a digit begins can be read as a date or time (``_values._text``: ``'2024-01-31'`` is that day,
  whichever way it is spelled); every other value is its own canonical form, so two columns that hold each
  other hold the same such values, and as many of the rest. A column of ISO dates beside a column of names
  is refuted by the count alone.

Each test says only what the search would also say, never more: a refuted pair is never a fit. A
permutation other than the identity is a set of cycles of fitting pairs ``i -> p(i) -> ... -> i``;
when the pairs not refuted have no cycle, there is none, and the search is not run (its answer is
the same: no permutation). Otherwise the search runs as before, with its own bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import cache, partial
from itertools import compress
from operator import countOf, is_not, itemgetter, ne
from typing import Any

from eval.sql.rows._tolerance import Tolerance

Row = tuple[Any, ...]

_NONE = type(None)
_NUMBERS = frozenset({int, float, Decimal})
_DIGITS = frozenset("0123456789")
"""Only text that begins with an ASCII digit can spell a date or time (``_values._text``)."""


def no_other_order(
    expected: Sequence[Row],
    actual: Sequence[Row],
    width: int,
    tolerance: Tolerance | None,
    value_class: Callable[[type], str],
    kinds: tuple[Sequence[frozenset[type]] | None, Sequence[frozenset[type]] | None] = (None, None),
) -> bool:
    """Whether signatures prove that no order of the candidate's columns but their own holds the reference's.
    ``kinds``: each side's column types as its fetch read them (``Execution.kinds``), or None: read here."""
    ref, cand = _Side(expected, value_class, kinds[0]), _Side(actual, value_class, kinds[1])
    edges = {i: [j for j in range(width) if j != i and not _refuted(ref, i, cand, j, tolerance)] for i in range(width)}
    return not _has_cycle(edges)


class _Side:
    """One side's columns and their signatures, each read once and only when a pair asks for it."""

    def __init__(
        self, rows: Sequence[Row], value_class: Callable[[type], str], kinds: Sequence[frozenset[type]] | None = None
    ) -> None:
        self.rows = rows
        self.value_class = value_class
        self.known = kinds
        self.column = cache(self._column)
        self.kinds = cache(self._kinds)
        self.classes = cache(self._classes)
        self.nulls = cache(self._nulls)
        self.numbers = cache(self._numbers)
        self.text = cache(self._text)

    def _column(self, i: int) -> list[Any]:
        return list(map(itemgetter(i), self.rows))

    def _kinds(self, i: int) -> frozenset[type]:
        if self.known is not None and i < len(self.known):
            return frozenset(self.known[i])
        return frozenset(map(type, self.column(i)))

    def _classes(self, i: int) -> frozenset[str]:
        return frozenset(map(self.value_class, self.kinds(i)))

    def _nulls(self, i: int) -> int:
        return countOf(self.column(i), None) if _NONE in self.kinds(i) else 0

    def _numbers(self, i: int) -> tuple[Any, Any, Any] | None:
        """(smallest, largest, sum of integers or None) of a column of numbers alone, finite; None otherwise."""
        kinds = self.kinds(i) - {_NONE}
        if not kinds or not kinds <= _NUMBERS:
            return None
        values = list(filter(partial(is_not, None), self.column(i))) if self.nulls(i) else self.column(i)
        try:
            if kinds != {int} and any(map(ne, values, values)):  # NaN, the only value unequal to itself
                return None
            low, high = min(values), max(values)
        except ArithmeticError:  # a signalling NaN refuses even comparison
            return None
        if not all(map(_finite, (low, high))):
            return None
        return low, high, sum(values) if kinds == {int} else None

    def _text(self, i: int) -> tuple[int, int] | None:
        """Of a column of text alone: how many values an ASCII digit begins, and the total length of the others
        (their own canonical forms); None for any other column."""
        kinds = self.kinds(i)
        if kinds - {_NONE} != {str}:
            return None
        values = list(filter(partial(is_not, None), self.column(i))) if _NONE in kinds else self.column(i)
        try:
            firsts = "".join(map(itemgetter(0), values))
        except IndexError:  # an empty string, which has no first character (and no length to count)
            values = list(filter(None, values))
            firsts = "".join(map(itemgetter(0), values))
        begun = sum(map(firsts.count, _DIGITS))
        if not begun:
            return 0, sum(map(len, values))
        if begun == len(values):
            return begun, 0
        digit_begun = sum(map(len, compress(values, map(_DIGITS.__contains__, firsts))))
        return begun, sum(map(len, values)) - digit_begun


def _finite(x: Any) -> bool:
    return x == x and x not in (float("inf"), float("-inf"))


def _refuted(ref: _Side, i: int, cand: _Side, j: int, tolerance: Tolerance | None) -> bool:
    """Whether reference column ``i`` provably cannot be candidate column ``j`` (``_columns._fits`` would say no)."""
    if ref.classes(i) != cand.classes(j) or ref.nulls(i) != cand.nulls(j):
        return True
    a, b = ref.numbers(i), cand.numbers(j)
    if a is not None and b is not None:
        if a[2] is not None and b[2] is not None and a != b:  # integers alone: exact values
            return True
        if tolerance is None:
            return (a[0], a[1]) != (b[0], b[1])
        return tolerance.beyond(a[0], b[0]) or tolerance.beyond(a[1], b[1])
    x, y = ref.text(i), cand.text(j)
    return x is not None and y is not None and x != y


def _has_cycle(edges: dict[int, list[int]]) -> bool:
    """Whether the directed graph has a cycle (iterative depth-first search, any width)."""
    state: dict[int, int] = {}  # 1: on the path, 2: done
    for start in edges:
        if start in state:
            continue
        stack = [(start, iter(edges[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                return True
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(edges[child])))
    return False
