"""Whether two lists of rows are the same multiset under the policy: hash first, match only where needed.

Rows are equal when every column is equal (``values_equal``). Without the numeric tolerance that
is an equivalence, so counting canonical rows decides it. With the tolerance it is not
(expected [0.000, -0.004] and actual [0.000, 0.004] at 2 places match only by pairing 0.000 with
0.004), so equal rows cannot simply cancel: the question is whether a perfect matching exists
between the two sides in the graph of "equal under the policy".

The algorithm, and what each step guarantees:

1. Hash the rows. Equal lists (same order), or distinct rows as many on each side that each take
   their partner out of one set (one in memory, not a set of each side), or equal ``Counter`` s when rows repeat:
   a match, done, with no value normalised. Sound because the keys' Python equality never says
   more than the policy (``comparable_keys``). Equal results end here, whatever their types.
2. Otherwise take the rows left over on each side. If no left-over row holds a number (or the
   tolerance is zero), the relation among them is an equivalence and the left-overs alone decide.
3. Else a left-over row's matching partners may be rows that did cancel, and theirs further rows
   (a chain). Every row in such a chain has the same canonical value as the left-over in any
   column where the left-over holds a non-number; one hash lookup per row and such column
   collects a superset of every chain (``raw_forms``). Rows outside it are cancelled pairs whose
   graph components hold no left-over, so identity matches them. With no such column, or when
   most rows are left over, all rows are kept.
4. The kept rows are canonicalised column by column and split into a non-numeric part (a hash
   key, exact) and their numbers in the fuzzy (float or Decimal) columns. Rows pair only within
   one non-numeric part. When it is unique on each side (an id column) the pairs come from one
   hash lookup each. Otherwise, with one fuzzy column a group's rows are points on a line, where
   sorting both sides and a greedy walk finds a maximum matching (``line_matching``); with more,
   a grid, components and max-flow do (``grid_matching``).

Guarantee: the answer is exact (a match exactly when a perfect matching exists). Cost: steps
1-3 are linear; step 4 is O(n log n) per group with at most one fuzzy column. Known limitation:
with several fuzzy columns, a dense component (many rows within a unit of each other in every
fuzzy column) makes the flow step super-linear in that component's size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import date, time
from decimal import Decimal
from itertools import chain, compress
from operator import itemgetter, ne
from typing import Any, NamedTuple

from eval.sql.rows._matching import Entry, grid_matching, line_matching
from eval.sql.rows._tolerance import Tolerance
from eval.sql.rows._values import _Tag, _text, canonical, is_finite_number, raw_forms

Row = tuple[Any, ...]

_NUMBER = _Tag("NUMBER")
_NUMBER_TYPES = {int, float, Decimal}
_AS_IS = {type(None), int, date, time, bytes}
"""Types whose values are their own canonical form (a ``datetime`` is not: midnight becomes a date)."""


class Settlement(NamedTuple):
    """The outcome of a multiset comparison, with the rows left without a partner (key: how many)."""

    match: bool
    unmatched_expected: dict[Row, int]
    unmatched_actual: dict[Row, int]
    keys: tuple[Sequence[Row], Sequence[Row]] = ((), ())
    """The row keys the unmatched rows are drawn from (canonical rows when raw ones would not hash)."""


def canonical_rows(rows: Iterable[Row]) -> list[Row]:
    return [tuple(map(canonical, row)) for row in rows]


Kinds = tuple[frozenset[type], ...]
"""Each column's types, as the fetch read them (``Execution.kinds``): what the comparison would scan for."""


def comparable_keys(
    expected: Sequence[Row], actual: Sequence[Row], kinds: tuple[Kinds | None, Kinds | None] = (None, None)
) -> tuple[Sequence[Row], Sequence[Row]]:
    """Rows whose Python equality never says more than the policy does.

    Raw rows qualify unless a column mixes booleans with numbers (``True == 1`` in Python) or a
    value cannot be hashed (an array as a list); then both sides are canonicalised. Values that
    Python finds equal are otherwise equal under the policy too (the reverse need not hold:
    ``'2024-01-31'`` and ``date(2024, 1, 31)``). Each side's column types are read from ``kinds`` when
    the fetch gave them, else from every value.
    """
    width = len((expected or actual)[0]) if expected or actual else 0
    columns = [_column_kinds(rows, known, width) for rows, known in zip((expected, actual), kinds)]
    types = set().union(*columns[0], *columns[1])
    if memoryview in types or any(kind.__hash__ is None for kind in types):
        return canonical_rows(expected), canonical_rows(actual)
    if bool in types and types & _NUMBER_TYPES:
        for col in range(width):
            col_types = columns[0][col] | columns[1][col]
            if bool in col_types and col_types & _NUMBER_TYPES:
                return canonical_rows(expected), canonical_rows(actual)
    return expected, actual


def _column_kinds(rows: Sequence[Row], known: Kinds | None, width: int) -> list[frozenset[type]]:
    if known is not None and len(known) == width:
        return list(known)
    if not rows:
        return [frozenset()] * width
    return [frozenset(map(type, map(itemgetter(col), rows))) for col in range(width)]


def same_multiset(expected: Sequence[Row], actual: Sequence[Row], tolerance: Tolerance | None) -> Settlement:
    """Whether ``expected`` and ``actual`` (keys from ``comparable_keys``) are the same multiset of rows."""
    try:
        if expected == actual:  # the same order: one sequential pass, no hashing
            return Settlement(True, {}, {})
        pending = set(expected)
        distinct = len(pending) == len(expected)
        one_set = _one_set(pending, expected, actual) if distinct else None
        want: Counter[Row] | set[Row] = set()
        have: Counter[Row] | set[Row] = set()
        if one_set is not None:  # distinct rows: the counts are 1, which empty sets say (``_counts``)
            left_want, left_have = one_set
        elif distinct and len(have_set := set(actual)) == len(actual):
            # Distinct rows (the usual case): a set's symmetric difference is the left-overs.
            want_set = pending if len(pending) == len(expected) else set(expected)  # whole unless rows were taken
            want, have = want_set, have_set
            odd = want_set ^ have_set
            if len(odd) > len(expected):  # mostly left-overs: settle every row, in list (memory) order
                return _settle(
                    list(expected), [1] * len(expected), list(actual), [1] * len(actual), tolerance
                )._replace(keys=(expected, actual))
            left_want = {row: 1 for row in odd if row in want}
            left_have = {row: 1 for row in odd if row not in want}
        else:
            want, have = Counter(expected), Counter(actual)
            left_want = {row: n - have.get(row, 0) for row, n in want.items() if have.get(row, 0) < n}
            left_have = {row: n - want.get(row, 0) for row, n in have.items() if want.get(row, 0) < n}
    except (TypeError, ArithmeticError):
        # A value that refuses hashing or comparison (a signalling NaN): compare canonical forms.
        return same_multiset(canonical_rows(expected), canonical_rows(actual), tolerance)
    if not (left_want or left_have):
        return Settlement(True, {}, {})
    return _left_overs(expected, actual, left_want, left_have, want, have, tolerance)


_FEW_MISSES = 8
"""Candidate rows without a partner that :func:`_one_set` tells apart by a scan of the reference each."""


def _one_set(
    pending: set[Row], expected: Sequence[Row], actual: Sequence[Row]
) -> tuple[dict[Row, int], dict[Row, int]] | None:
    """Distinct reference rows (``pending``: their set, which this takes rows out of) and as many candidate rows,
    settled with one set in memory (not a set of each): each candidate row takes its partner out; the reference's
    rows left are its left-overs (in its order), the candidate rows that took nothing are the candidate's.
    ``({}, {})`` is a match; None when the candidate's rows are not distinct or more than :data:`_FEW_MISSES` of
    them found no partner (the caller counts them as before).

    A set, not a dict: its table holds each row's hash beside the row, so a row shuffled against the reference is
    found with one random read of memory where a dict makes two (docs/eval/performance.md)."""
    if len(actual) != len(expected):
        return None
    take = pending.remove
    misses: list[Row] = []
    for row in actual:
        try:
            take(row)
        except KeyError:
            misses.append(row)
            if len(misses) > _FEW_MISSES:
                return None
    if not pending:
        return {}, {}
    # A miss equal to a reference row is a second copy of a candidate row (its partner was taken): not distinct.
    if len(set(misses)) < len(misses) or any(map(expected.__contains__, misses)):
        return None
    left = set(map(id, pending))  # the reference's own row objects: its left-overs in its order, by identity
    return dict.fromkeys(compress(expected, map(left.__contains__, map(id, expected))), 1), dict.fromkeys(misses, 1)


def _left_overs(
    expected: Sequence[Row],
    actual: Sequence[Row],
    left_want: dict[Row, int],
    left_have: dict[Row, int],
    want: Counter[Row] | set[Row],
    have: Counter[Row] | set[Row],
    tolerance: Tolerance | None,
) -> Settlement:
    """Settle the rows left over (``want`` and ``have``: each side's row counts, a set when its rows are distinct)."""
    if tolerance is None or not any(
        map(is_finite_number, map(canonical, chain.from_iterable(chain(left_want, left_have))))
    ):
        settled = _settle(
            list(left_want), list(left_want.values()), list(left_have), list(left_have.values()), tolerance
        )
    else:
        keep = _chain_filter(list(left_want) + list(left_have)) if len(left_want) < len(expected) // 2 else None
        # The lists, not the sets, are scanned: in their own order their rows sit sequentially in memory.
        rows_want = list(dict.fromkeys(keep(expected) if keep else expected))
        rows_have = list(dict.fromkeys(keep(actual) if keep else actual))
        settled = _settle(rows_want, _counts(rows_want, want), rows_have, _counts(rows_have, have), tolerance)
    return settled._replace(keys=(expected, actual))


def _counts(rows: list[Row], source: Counter[Row] | set[Row]) -> list[int]:
    return list(map(source.__getitem__, rows)) if isinstance(source, Counter) else [1] * len(rows)


def _chain_filter(leftovers: list[Row]) -> Callable[[Sequence[Row]], list[Row]] | None:
    """A function selecting, from a list of rows, a superset of every chain through ``leftovers``.

    None when no column qualifies: a column does when every left-over row holds there a value
    whose raw spellings can be listed (not a number, not NaN, not an aware timestamp).
    """
    columns = []
    for col in range(len(leftovers[0])):
        spellings: set[Any] = set()
        for form in {canonical(value) for value in map(itemgetter(col), leftovers)}:
            forms = raw_forms(form)
            if forms is None:
                break
            spellings |= forms
        else:
            columns.append((itemgetter(col), spellings))
    if not columns:
        return None

    def keep(rows: Sequence[Row]) -> list[Row]:
        pick, spellings = columns[0]
        kept = list(compress(rows, map(spellings.__contains__, map(pick, rows))))
        for pick, spellings in columns[1:]:
            kept = [row for row in kept if pick(row) in spellings]
        return kept

    return keep


def _canonical_column(values: list[Any]) -> list[Any]:
    """``canonical`` over one column, choosing the work once from the column's types."""
    kinds = set(map(type, values))
    if kinds <= _AS_IS:
        return values
    if kinds <= {str, type(None)}:
        # Only the distinct strings that could be ISO dates are parsed; the rest stay as they are.
        spelled = {s: form for s in set(values) if s is not None and s[:1].isdigit() and (form := _text(s)) is not s}
        return list(map(spelled.get, values, values)) if spelled else values
    if kinds <= {float, int, Decimal, type(None)}:
        try:
            if not any(map(ne, values, values)):  # NaN is the only value unequal to itself
                return values
        except ArithmeticError:  # a signalling NaN refuses even that question
            pass
    return list(map(canonical, values))


class _Side(NamedTuple):
    """One side's distinct canonical rows: the forms, how many of each, a raw key each, and the columns."""

    forms: list[Row]
    counts: list[int]
    keys: list[Row]
    columns: list[list[Any]]


def _side(keys: list[Row], counts: list[int]) -> _Side:
    """Canonicalise rows column by column, then merge rows whose canonical forms are equal."""
    if not keys:
        return _Side([], [], [], [])
    columns = [_canonical_column(list(map(itemgetter(col), keys))) for col in range(len(keys[0]))]
    forms = list(zip(*columns))
    if len(set(forms)) == len(forms):
        return _Side(forms, counts, keys, columns)
    merged: dict[Row, list[Any]] = {}
    for form, key, n in zip(forms, keys, counts):
        slot = merged.get(form)
        if slot is None:
            merged[form] = [n, key]
        else:
            slot[0] += n
    forms = list(merged)
    return _Side(
        forms,
        [n for n, _ in merged.values()],
        [key for _, key in merged.values()],
        [list(map(itemgetter(col), forms)) for col in range(len(columns))],
    )


def _settle(
    want_keys: list[Row],
    want_counts: list[int],
    have_keys: list[Row],
    have_counts: list[int],
    tolerance: Tolerance | None,
) -> Settlement:
    """Decide the multiset question exactly for the rows given (distinct keys, with their counts)."""
    want, have = _side(want_keys, want_counts), _side(have_keys, have_counts)
    fuzzy = (
        []
        if tolerance is None
        else sorted(
            {
                col
                for side in (want, have)
                for col, values in enumerate(side.columns)
                if set(map(type, values)) & {float, Decimal}
            }
        )
    )
    if not fuzzy:
        return _settle_exact(want, have)
    assert tolerance is not None  # fuzzy columns exist only with a tolerance
    if len(fuzzy) == 1:

        def close(x: Any, y: Any) -> bool:
            return x == y or tolerance.within(x, y)
    else:

        def close(x: Any, y: Any) -> bool:
            return all(a == b or tolerance.within(a, b) for a, b in zip(x, y))

    (want_discrete, want_vectors), (have_discrete, have_vectors) = _split(want, fuzzy), _split(have, fuzzy)
    lost: tuple[dict[Row, int], dict[Row, int]] = ({}, {})
    index = dict(zip(want_discrete, range(len(want_discrete))))
    if len(index) == len(want_discrete) and len(set(have_discrete)) == len(have_discrete):
        # Each non-numeric part occurs once a side (an id column, say): pairs come straight from a hash lookup.
        partner = list(map(index.get, have_discrete))
        paired = set(partner)
        lost[0].update((want.keys[i], want.counts[i]) for i in range(len(want.keys)) if i not in paired)
        for j, i in enumerate(partner):
            if i is None:
                lost[1][have.keys[j]] = have.counts[j]
            else:
                _settle_pair(
                    (want_vectors[i], want.counts[i], want.keys[i]),
                    (have_vectors[j], have.counts[j], have.keys[j]),
                    close,
                    lost,
                )
        return Settlement(not (lost[0] or lost[1]), *lost)
    groups: dict[Row, tuple[list[Entry], list[Entry]]] = {}
    for side, discrete, vectors in ((0, want_discrete, want_vectors), (1, have_discrete, have_vectors)):
        entries = want if side == 0 else have
        for key, vector, n, row in zip(discrete, vectors, entries.counts, entries.keys):
            pair = groups.get(key)
            if pair is None:
                pair = groups[key] = ([], [])
            pair[side].append((vector, n, row))
    solve = line_matching if len(fuzzy) == 1 else grid_matching
    for want_group, have_group in groups.values():
        if len(want_group) == 1 and len(have_group) == 1:
            _settle_pair(want_group[0], have_group[0], close, lost)
        elif not want_group or not have_group:
            lost[0].update((row, n) for _, n, row in want_group)
            lost[1].update((row, n) for _, n, row in have_group)
        else:  # several rows differing only in numbers (rows without numbers are one form per side)
            lost_want, lost_have = solve(want_group, have_group, tolerance)
            lost[0].update(lost_want)
            lost[1].update(lost_have)
    return Settlement(not (lost[0] or lost[1]), *lost)


def _split(side: _Side, fuzzy: list[int]) -> tuple[list[Row], list[Any]]:
    """Each row as (its non-numeric part, a hash key; its finite numbers in the fuzzy columns, or None)."""
    finite = [list(map(is_finite_number, side.columns[col])) for col in fuzzy]
    discrete_columns = list(side.columns)
    for col, marks in zip(fuzzy, finite):
        discrete_columns[col] = [_NUMBER if mark else v for v, mark in zip(side.columns[col], marks)]
    if len(fuzzy) == 1:
        vectors = [v if mark else None for v, mark in zip(side.columns[fuzzy[0]], finite[0])]
    else:
        vectors = [
            tuple(v for v, mark in zip(values, marks) if mark) or None
            for values, marks in zip(zip(*(side.columns[col] for col in fuzzy)), zip(*finite))
        ]
    return list(zip(*discrete_columns)), vectors


def _settle_pair(
    want: Entry, have: Entry, close: Callable[[Any, Any], bool], lost: tuple[dict[Row, int], dict[Row, int]]
) -> None:
    """Two rows with the same non-numeric part: partners if their numbers are close; then counts decide."""
    (x, n_want, key_want), (y, n_have, key_have) = want, have
    # No numbers (x is None) means the canonical forms are equal.
    if x is None or close(x, y):
        if n_want > n_have:
            lost[0][key_want] = n_want - n_have
        elif n_have > n_want:
            lost[1][key_have] = n_have - n_want
    else:
        lost[0][key_want] = n_want
        lost[1][key_have] = n_have


def _settle_exact(want: _Side, have: _Side) -> Settlement:
    remaining = dict(zip(have.forms, zip(have.counts, have.keys)))
    lost: tuple[dict[Row, int], dict[Row, int]] = ({}, {})
    for form, n, key in zip(want.forms, want.counts, want.keys):
        m, key_have = remaining.pop(form, (0, None))
        if n > m:
            lost[0][key] = n - m
        elif m > n and key_have is not None:
            lost[1][key_have] = m - n
    lost[1].update((key, m) for m, key in remaining.values())
    return Settlement(not (lost[0] or lost[1]), *lost)
