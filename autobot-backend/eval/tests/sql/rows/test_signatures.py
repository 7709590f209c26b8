"""The signatures read before the column-order search (issue 27 point 2): they skip the search only where it
would find nothing, so every verdict is today's, and a wrong answer with its columns in place costs no search."""

from __future__ import annotations

import random
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.sql.rows import VALUE, _columns, compare_results
from eval.sql.rows._columns import find_permutation, value_class
from eval.sql.rows._signatures import no_other_order
from eval.sql.rows._tolerance import Tolerance

CELLS = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.0, 1.004, 2.5, -0.001, 0.0]),
    st.sampled_from([Decimal("1.00"), Decimal("2.50")]),
    st.sampled_from(["a", "b", "2024-01-31", "2024-01-31 00:00:00", "", "10"]),
    st.just(date(2024, 1, 31)),
    st.booleans(),
)


@st.composite
def results(draw):
    width = draw(st.integers(2, 4))
    rows = draw(st.lists(st.tuples(*[CELLS] * width), min_size=1, max_size=6))
    order = draw(st.permutations(range(width)))
    actual = [tuple(row[j] for j in order) for row in rows]
    if draw(st.booleans()):  # sometimes one value changed as well
        r, c = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, width - 1))
        actual[r] = actual[r][:c] + (draw(CELLS),) + actual[r][c + 1 :]
    if draw(st.booleans()):
        actual = draw(st.permutations(actual))
    return rows, actual


def search(expected, actual, tolerance, ordered, gate=True):
    def same(ref_cols, cand_cols):
        return compare_results(
            _columns.project(expected, ref_cols),
            _columns.project(actual, cand_cols),
            ordered=ordered,
            decimals=None if tolerance is None else tolerance.decimals,
        ).match

    if gate:
        return find_permutation(expected, actual, same, tolerance=tolerance, ordered=ordered)
    original = _columns.no_other_order
    _columns.no_other_order = lambda *a: False
    try:
        return find_permutation(expected, actual, same, tolerance=tolerance, ordered=ordered)
    finally:
        _columns.no_other_order = original


@settings(max_examples=400, deadline=None)
@given(results(), st.sampled_from([None, 2, 0]), st.booleans())
def test_the_gate_never_refutes_a_permutation_the_search_finds(case, decimals, ordered):
    expected, actual = case
    if compare_results(expected, actual, ordered=ordered, decimals=decimals).reason != VALUE:
        return  # the search runs only where the positional comparison says value (compare_with_ties)
    tolerance = None if decimals is None else Tolerance(decimals)
    today = search(expected, actual, tolerance, ordered, gate=False)
    if today.permutation is not None:
        assert not no_other_order(expected, actual, len(expected[0]), tolerance, value_class)
    assert search(expected, actual, tolerance, ordered) == today or today.gave_up


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ([(1.0, "a"), (2.5, "b")], [("a", 1.004), ("b", 2.5)]),  # the smallest differs, within the tolerance
        ([(1.0, "a"), (2.5, "b")], [("a", 1.0), ("b", 2.496)]),  # the largest
        ([(1, "x"), (2, "y")], [("x", 1.0), ("y", Decimal("2.00"))]),  # integers against floats and Decimals
        ([("2024-01-31", 1), ("b", 2)], [(1, date(2024, 1, 31)), (2, "b")]),  # text spelling a date
        ([("2024-01-31", "a")], [("a", "2024-01-31 00:00:00")]),  # two spellings of one day, of unequal length
        ([(None, 1, "a"), (2, None, "b")], [(1, None, "a"), (None, 2, "b")]),  # NULLs counted per column
    ],
)
def test_a_permutation_the_policy_accepts_is_never_refuted(expected, actual):
    assert not no_other_order(expected, actual, len(expected[0]), Tolerance(2), value_class)
    assert compare_results(expected, actual, column_order="any").match


def table(n: int, seed: int = 7) -> list[tuple]:
    rng = random.Random(seed)
    return [(i, f"customer-{rng.randrange(5000):04d}", f"cat{i % 20}", rng.randrange(1, 20), i / 100) for i in range(n)]


def test_one_value_differing_is_refuted_by_signatures_without_the_search(monkeypatch):
    rows = table(5000)
    wrong = list(rows)
    wrong[1234] = (*wrong[1234][:3], 99, wrong[1234][4])
    assert no_other_order(rows, wrong, 5, Tolerance(2), value_class)

    def no_search(*_args, **_kw):
        raise AssertionError("the column search ran")

    monkeypatch.setattr(_columns, "_Columns", no_search)
    got = compare_results(rows, wrong, column_order="any")
    assert (got.match, got.reason) == (False, VALUE) and "row 1235" in got.detail


def test_a_result_past_the_search_limit_is_decided_when_signatures_refute_it(monkeypatch):
    """Past SEARCH_CELLS the search gave up (unmeasured under column_order: any); refuted, the answer is wrong."""
    monkeypatch.setattr(_columns, "SEARCH_CELLS", 100)
    rows = table(200)
    wrong = [*rows[:-1], (*rows[-1][:3], 99, rows[-1][4])]
    assert compare_results(rows, wrong, column_order="any").reason == VALUE


@pytest.mark.parametrize(
    "swap",
    [
        lambda r: (r[3], r[1], r[2], r[0], r[4]),  # two integer columns swapped
        lambda r: (r[0], r[2], r[1], r[3], r[4]),  # two text columns swapped
    ],
)
def test_columns_that_could_be_swapped_still_go_to_the_search(swap):
    rows = [(i, f"n{i}", f"n{49 - i}", 49 - i, i / 4) for i in range(50)]
    assert not no_other_order(rows, [swap(r) for r in rows], 5, Tolerance(2), value_class)
    assert compare_results(rows, [swap(r) for r in rows], column_order="any").match


def dated(n: int, seed: int = 11) -> list[tuple]:
    """Rows as SQLite holds them with a date: ISO text, beside a name, which no digit begins."""
    rng = random.Random(seed)
    return [(i, f"customer-{rng.randrange(5000):04d}", date(2024, 1, 1 + i % 28).isoformat(), i % 7) for i in range(n)]


def test_a_column_of_iso_dates_beside_names_is_refuted_by_its_count_of_digit_begun_values(monkeypatch):
    """Issue 40: text that a digit begins had no signature, so a date column and a text column sent every wrong
    answer with two text columns to the search. The dates are counted; the names' lengths still compared."""
    rows = dated(3000)
    wrong = list(rows)
    wrong[42] = (*wrong[42][:3], 99)
    assert no_other_order(rows, wrong, 4, Tolerance(2), value_class)
    monkeypatch.setattr(_columns, "_Columns", lambda *a, **k: pytest.fail("the column search ran"))
    got = compare_results(rows, wrong, column_order="any")
    assert (got.match, got.reason) == (False, VALUE) and "row 43" in got.detail


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        # The same days spelled two ways, and text a digit begins that is no date: counted alike, so never refuted.
        ([("2024-01-31", "x1"), ("10 Main St", "x2")], [("x1", "2024-01-31 00:00:00"), ("x2", "10 Main St")]),
        ([("2024-01-31", "b"), ("", "a")], [("b", "2024-01-31T00:00"), ("a", "")]),
    ],
)
def test_text_a_digit_begins_never_refutes_a_permutation(expected, actual):
    assert not no_other_order(expected, actual, 2, Tolerance(2), value_class)
    assert compare_results(expected, actual, column_order="any").match
