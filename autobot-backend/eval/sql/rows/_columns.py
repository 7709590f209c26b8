"""Column order: the reference's columns found in the candidate's, in another order.

Positions matter (``column_order="positional"``, the default): a candidate whose columns are the
reference's in another order is still wrong, but its reason is ``column_order`` with the
permutation, not a ``value`` mismatch that sends a reader looking for a wrong number.
``column_order="any"`` accepts the permutation, for those who grade under the Spider convention
(where a result's columns are a set).

The search is complete: it finds a permutation whenever one exists. It is a matching problem
first. A reference column can only be held by a candidate column that holds it on its own (its
values as a multiset, or in order for an ordered question; the ``fits`` graph, decided from
per-column value signatures where no number needs the tolerance). No perfect matching in that
graph: no permutation. For an ordered comparison any perfect matching is the answer (rows agree
when every column does, position by position), found by augmenting paths. For a multiset, a
perfect matching of columns is necessary but not sufficient (each column's values may appear
without the rows lining up), so assignments are searched column by column, each partial one
checked on whole rows of the columns chosen so far (a projection of a valid answer is valid, so
no valid answer is cut off), with a perfect matching of the columns still open required at every
step, and columns identical on every row tried once (swapping them changes nothing).

Before any of it, cheap per-column signatures (``_signatures``) may prove that no order but the
identity can fit, and then nothing is searched: a wrong answer with its columns in place costs a
few C-speed passes over each column, not the search.

The search costs at most :data:`SEARCH_CELLS` values compared; past that it gives up and says
so (``Search.gave_up``): under ``column_order: any`` the question is then unmeasured with that
reason, never silently wrong; by position the answer is wrong either way and the reason stays
``value``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from datetime import date, time
from decimal import Decimal
from operator import itemgetter
from typing import Any, Literal, NamedTuple

from eval.sql.rows._signatures import no_other_order
from eval.sql.rows._tolerance import Tolerance
from eval.sql.rows._values import canonical, is_finite_number
from eval.sql.rows._verdict import COLUMN_ORDER, UNDECIDED, Comparison

Row = tuple[Any, ...]
ColumnOrder = Literal["positional", "any"]
COLUMN_ORDERS: tuple[ColumnOrder, ...] = ("positional", "any")
"""``positional``: column i against column i (the default); ``any``: a permutation of the columns passes."""

SEARCH_CELLS = 5_000_000
"""Values (rows times columns) the search may read, its signatures and row checks together, before it gives up."""

Accept = Callable[[Sequence[int], Sequence[int]], bool]
"""Whether the reference's rows on these columns and the candidate's on those are the answer."""


class Search(NamedTuple):
    """The outcome of a column-order search."""

    permutation: tuple[int, ...] | None
    """The candidate column (0-based) holding each reference column; None when there is none (or it gave up)."""
    gave_up: str | None = None
    """Why the search stopped before deciding; None when it decided."""


class _Budget:
    def __init__(self) -> None:
        self.left = SEARCH_CELLS

    def spend(self, cells: int) -> bool:
        self.left -= cells
        return self.left >= 0


def find_permutation(
    expected: Sequence[Row],
    actual: Sequence[Row],
    accept: Accept,
    *,
    tolerance: Tolerance | None,
    same_values: bool = True,
    ordered: bool = False,
    kinds: tuple[Sequence[frozenset[type]] | None, Sequence[frozenset[type]] | None] = (None, None),
) -> Search:
    """The candidate column holding each reference column, other than the identity, if any.

    Example:
        >>> find_permutation([(1, "a")], [("a", 1)], lambda ref, cand: cand == (1, 0), tolerance=None)
        Search(permutation=(1, 0), gave_up=None)

    Args:
        expected: the reference's rows (at least one, as wide as ``actual``'s).
        actual: the candidate's rows.
        accept: the caller's rule on the reference's rows projected on some columns and the
            candidate's on as many: it must hold for every projection of a valid answer.
        same_values: a reference column's values are its candidate column's (as a multiset, or in
            order when ``ordered``): true for a plain comparison, not at a tie-broken LIMIT cut.
        tolerance: the comparison's numeric tolerance (for the per-column signatures).
        ordered: the rows are compared in order.
        kinds: each side's column types as its fetch read them, for the signatures (None: read from the rows).
    """
    if not expected or not actual:
        return Search(None)
    width = len(expected[0])
    if width < 2 or len(actual[0]) != width:
        return Search(None)
    if same_values and no_other_order(expected, actual, width, tolerance, value_class, kinds):
        return Search(None)  # the per-column signatures refute every order but the identity: nothing to search
    budget = _Budget()
    rows = max(len(expected), len(actual))
    if not budget.spend(2 * rows * width):
        return Search(None, gave_up_reason(rows, width))
    sides = (_Columns(expected, width, ordered, tolerance), _Columns(actual, width, ordered, tolerance))
    fits = _fits(sides, accept, same_values, tolerance, budget)
    if fits is None:
        return Search(None, gave_up_reason(rows, width))
    found = _matching(fits, list(range(width)), set())
    if found is None:
        return Search(None)
    if same_values and ordered:
        # Rows agree when every column does, position by position: any perfect matching is the answer
        # (and not the identity, which the positional comparison refuted). Checked once on whole rows.
        permutation = tuple(found[i] for i in range(width))
        if budget.spend(2 * rows * width) and accept(tuple(range(width)), permutation):
            return Search(permutation)
    return _search(sides, accept, fits, budget, rows)


def gave_up_reason(rows: int, width: int) -> str:
    return (
        f"the column-order search gave up: {rows:,} rows of {width} columns need more than "
        f"{SEARCH_CELLS:,} values read to decide whether they are the reference's columns in another order"
    )


class _Columns:
    """One side's columns: canonical values, value classes, and signatures that decide most fits cheaply."""

    def __init__(self, rows: Sequence[Row], width: int, ordered: bool, tolerance: Tolerance | None) -> None:
        self.rows = len(rows)
        self.ordered = ordered
        self.forms: list[tuple[Any, ...]] = []
        self.kinds: list[frozenset[str]] = []
        self.exact: list[Hashable | None] = []
        """Where no float or Decimal can blur a column: its values (a multiset, or in order); equal is equal."""
        self.numbers: list[list[Any]] = []
        """Each column's finite numbers, sorted."""
        self.others: list[Hashable] = []
        """Each column's other values, as a multiset."""
        self.small: list[bool] = []
        """Whether a column holds a value read past the declared place (where sorting cannot pair)."""
        for col in range(width):
            values = list(map(itemgetter(col), rows))
            kinds = set(map(type, values))
            forms = tuple(map(canonical, values))
            self.forms.append(forms)
            self.kinds.append(frozenset(map(value_class, kinds)))
            blurred = bool(kinds & {float, Decimal})
            self.exact.append(None if blurred else forms if ordered else frozenset(Counter(forms).items()))
            numbers = sorted(v for v in forms if is_finite_number(v))
            self.numbers.append(numbers)
            self.others.append(frozenset(Counter(v for v in forms if not is_finite_number(v)).items()))
            self.small.append(tolerance is not None and any(map(tolerance.is_small, numbers)))

    def classes(self) -> list[int]:
        """A class per column: columns with the same canonical value on every row share one."""
        seen: dict[tuple[Any, ...], int] = {}
        return [seen.setdefault(forms, col) for col, forms in enumerate(self.forms)]


def _fits(
    sides: tuple[_Columns, _Columns], accept: Accept, same_values: bool, tolerance: Tolerance | None, budget: _Budget
) -> list[set[int]] | None:
    """For each reference column, the candidate columns that hold it on their own; None past the budget."""
    ref, cand = sides
    width = len(ref.forms)
    fits: list[set[int]] = [set() for _ in range(width)]
    for i in range(width):
        for j in range(width):
            fit: bool | None = None
            if same_values:
                if ref.kinds[i] != cand.kinds[j]:
                    continue
                if ref.exact[i] is not None and cand.exact[j] is not None:
                    fit = ref.exact[i] == cand.exact[j]
                else:
                    if not budget.spend(ref.rows + cand.rows):
                        return None
                    fit = _numbers_fit(ref, i, cand, j, tolerance)
            if fit is None:
                if not budget.spend(ref.rows + cand.rows):
                    return None
                fit = accept((i,), (j,))
            if fit:
                fits[i].add(j)
    return fits


def _numbers_fit(ref: _Columns, i: int, cand: _Columns, j: int, tolerance: Tolerance | None) -> bool | None:
    """Whether one column can hold the other as a multiset, from their sorted numbers; None: ask the rows.

    Where the tolerance is a distance (no small value), the sorted numbers pair exactly when any
    pairing does; and no pairing has a pair further apart than the sorted one's farthest (a
    bottleneck matching on a line), which refutes it even around small values.
    """
    a, b = ref.numbers[i], cand.numbers[j]
    if ref.others[i] != cand.others[j] or len(a) != len(b):
        return False
    if tolerance is None:
        return (ref.forms[i] == cand.forms[j]) if ref.ordered else a == b
    if not all(x == y or tolerance.within(x, y) for x, y in zip(a, b)):
        if not (ref.small[i] or cand.small[j]) or any(map(tolerance.beyond, a, b)):
            return False
        return None  # around small values a pairing may still exist: the rows decide
    return None if ref.ordered else True  # in order, the multiset is necessary only


def _matching(fits: list[set[int]], left: list[int], taken: set[int]) -> dict[int, int] | None:
    """A perfect matching of the reference columns ``left`` into candidate columns not ``taken``:
    augmenting paths, searched breadth first (no recursion, whatever the width)."""
    by_ref: dict[int, int] = {}
    by_cand: dict[int, int] = {}
    for start in left:
        reached_from: dict[int, int] = {}  # candidate column -> the reference column that reached it
        queue, head, end = [start], 0, None
        while head < len(queue) and end is None:
            i = queue[head]
            head += 1
            for j in sorted(fits[i]):
                if j in taken or j in reached_from:
                    continue
                reached_from[j] = i
                if j not in by_cand:
                    end = j
                    break
                queue.append(by_cand[j])
        if end is None:
            return None
        j = end
        while True:  # flip the path back to its start
            i = reached_from[j]
            previous = by_ref.get(i)
            by_ref[i], by_cand[j] = j, i
            if i == start or previous is None:
                break
            j = previous
    return by_ref


def _search(
    sides: tuple[_Columns, _Columns], accept: Accept, fits: list[set[int]], budget: _Budget, rows: int
) -> Search:
    width = len(fits)
    ref_class, cand_class = sides[0].classes(), sides[1].classes()
    # Most constrained first; identical reference columns side by side (they take candidates in increasing order).
    order = sorted(range(width), key=lambda i: (len(fits[i]), ref_class[i], i))
    chosen: dict[int, int] = {}
    gave_up = False

    def step(k: int) -> tuple[int, ...] | None:
        nonlocal gave_up
        if k == width:
            found = tuple(chosen[i] for i in range(width))
            return None if found == tuple(range(width)) else found
        i = order[k]
        floor = chosen[order[k - 1]] if k and ref_class[order[k - 1]] == ref_class[i] else -1
        tried: set[int] = set()
        for j in sorted(fits[i]):
            if j <= floor or j in chosen.values() or cand_class[j] in tried:
                continue
            tried.add(cand_class[j])  # the lowest unused of identical candidate columns stands for them all
            if not budget.spend(width * width + (2 * rows * (k + 1) if k else 0)):
                gave_up = True
                return None
            chosen[i] = j
            ok = _matching(fits, order[k + 1 :], set(chosen.values())) is not None
            if ok and k:  # one column alone is what `fits` already checked
                cols = order[: k + 1]
                ok = accept(tuple(cols), tuple(chosen[c] for c in cols))
            deeper = step(k + 1) if ok else None
            del chosen[i]
            if deeper is not None or gave_up:
                return deeper
        return None

    found = step(0)
    return Search(None, gave_up_reason(rows, width)) if gave_up else Search(found)


def project(rows: Sequence[Row], columns: Sequence[int]) -> list[Row]:
    """The rows on these columns, in this order."""
    if len(columns) == 1:
        return list(zip(map(itemgetter(columns[0]), rows)))
    pick = itemgetter(*columns)
    return list(map(pick, rows))


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


def settle_columns(plain: Comparison, found: Search, column_order: ColumnOrder, how: str = "") -> Comparison:
    """The verdict once the column-order search is done: a permutation found, none, or a search given up.

    A search given up matters only where a permutation would pass (``column_order: any``); by
    position the answer is wrong whatever it would have found, and the plain reason stands.
    """
    if found.permutation is not None:
        return permuted(plain, found.permutation, column_order, how)
    if found.gave_up is not None and column_order == "any":
        return Comparison(
            False,
            UNDECIDED,
            f"{found.gave_up}; by position: {plain.detail}",
            plain.expected_columns,
            plain.actual_columns,
        )
    return plain


def permuted(plain: Comparison, permutation: tuple[int, ...], column_order: ColumnOrder, how: str = "") -> Comparison:
    """The verdict on rows that are the reference's answer once the candidate's columns are reordered."""
    where = describe(permutation)
    if column_order == "any":
        return Comparison(
            True,
            None,
            f"match{how}: the candidate's columns are the reference's in another order ({where}), "
            "accepted by column_order: any",
            plain.expected_columns,
            plain.actual_columns,
            tie_break=bool(how),
            column_permutation=permutation,
        )
    return Comparison(
        False,
        COLUMN_ORDER,
        f"the candidate's columns are the reference's in another order ({where}){how}: columns are compared "
        "by position (column_order: any accepts a permutation)",
        plain.expected_columns,
        plain.actual_columns,
        column_permutation=permutation,
    )
