"""The comparison policy (spec section 5): one behaviour per test, named as the rule. The module's surface is
in test_surface.py; the fast algorithm against an obviously correct reference in test_against_reference.py."""

from __future__ import annotations

import gc
import math
import random
import sqlite3
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from fractions import Fraction
from itertools import combinations

import pytest

from eval.sql.rows import (
    COLUMN_COUNT,
    COLUMN_ORDER,
    ORDER,
    ROW_COUNT,
    SHAPE,
    VALUE,
    compare_results,
)
from eval.sql.rows._values import Tolerance
from eval.tests.sql.rows.test_against_reference import ref_equal

NAN = float("nan")
INF = float("inf")


# --- equal and unequal tables --------------------------------------------------------------------

EQUAL = [
    pytest.param([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], {}, id="unordered-rows-in-another-order"),
    pytest.param([(10.00,)], [(10.000,)], {}, id="10.00-equals-10.000"),
    pytest.param([(Decimal("10.00"),)], [(Decimal("10.000"),)], {}, id="decimal-10.00-equals-10.000"),
    pytest.param([(33.33,)], [(33.3333,)], {}, id="33.33-equals-33.3333-at-2"),
    pytest.param([(3,)], [(3.0,)], {}, id="int-equals-float-of-equal-value"),
    pytest.param([(Decimal("212.40"),)], [(212.4,)], {}, id="decimal-equals-float"),
    pytest.param([(212.4,)], [(212.39999999999998,)], {"decimals": 2}, id="float-noise-within-tolerance"),
    pytest.param([(True,)], [(True,)], {}, id="true-equals-true"),
    pytest.param([(None,)], [(None,)], {}, id="null-equals-null"),
    pytest.param([(NAN,)], [(float("nan"),)], {}, id="nan-equals-nan"),
    pytest.param([(Decimal("NaN"),)], [(NAN,)], {}, id="decimal-nan-equals-float-nan"),
    pytest.param([(INF,)], [(Decimal("Infinity"),)], {}, id="inf-equals-inf"),
    pytest.param([(0.0,)], [(-0.0,)], {"decimals": None}, id="zero-equals-negative-zero"),
    pytest.param([("Lyon",)], [("Lyon",)], {}, id="strings-equal"),
    pytest.param([(b"\x00\x01",)], [(memoryview(b"\x00\x01"),)], {}, id="bytes-equal-memoryview"),
    pytest.param([(time(13, 45),)], [("13:45:00",)], {}, id="time-equals-iso-time-string"),
    pytest.param([(time(10, 0),)], [("10:00",)], {}, id="time-equals-hh-mm-string"),
    pytest.param([("10:00",)], [("10:00:00.000",)], {}, id="hh-mm-string-equals-its-seconds-spelling"),
    pytest.param([(34.765,)], [(34.77,)], {}, id="a-half-way-value-and-its-rounding-up"),
    pytest.param([(34.765,)], [(34.76,)], {}, id="a-half-way-value-and-its-rounding-down"),
    pytest.param([(Decimal("1.005"),)], [(Decimal("1.000"),)], {}, id="exactly-half-a-unit-is-a-rounding"),
    pytest.param([(0.006,)], [(0.01,)], {}, id="a-small-value-and-its-rounding"),
    pytest.param([(0.006,)], [(0.0061,)], {}, id="a-small-value-at-its-first-digit"),
    pytest.param([(datetime(2024, 1, 31, 13, 45),)], [("2024-01-31T13:45:00.000",)], {}, id="timestamp-equals-iso"),
    pytest.param(
        [(datetime(2024, 1, 31, 12, tzinfo=UTC),)],
        [(datetime(2024, 1, 31, 14, tzinfo=timezone(timedelta(hours=2))),)],
        {},
        id="aware-same-instant-in-two-zones",
    ),
    pytest.param(
        [(datetime(2024, 1, 31, 12, tzinfo=UTC),)], [("2024-01-31T12:00:00Z",)], {}, id="aware-equals-iso-with-zone"
    ),
    pytest.param([([1, 2],)], [([1, 2],)], {}, id="unhashable-array-values"),
    pytest.param([(1, "x")] * 3 + [(2, "y")], [(2, "y")] + [(1, "x")] * 3, {}, id="duplicates-same-counts"),
    pytest.param([(3,)], [(3,)], {"shape": "scalar"}, id="scalar-one-row-one-column"),
    pytest.param([], [], {}, id="empty-vs-empty"),
    pytest.param([(True, "a"), (1, "b")], [(1, "b"), (True, "a")], {}, id="bool-and-int-in-one-column-paired-right"),
]

UNEQUAL = [
    pytest.param([(1, "a")], [("a", 1)], {}, COLUMN_ORDER, id="swapped-columns"),
    pytest.param([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], {"ordered": True}, ORDER, id="ordered-other-order"),
    pytest.param([(1,), (1,), (2,)], [(1,), (2,), (2,)], {}, VALUE, id="duplicates-count-multiset-not-set"),
    pytest.param([(1,), (1,), (2,)], [(1,), (2,)], {}, ROW_COUNT, id="missing-duplicate-row-count"),
    pytest.param([(10.01,)], [(10.02,)], {}, VALUE, id="10.01-differs-from-10.02"),
    pytest.param([(10.001,)], [(10.0,)], {"decimals": None}, VALUE, id="zero-tolerance-rejects-10.001"),
    pytest.param([(0.1 + 0.2,)], [(0.3,)], {"decimals": None}, VALUE, id="zero-tolerance-sees-float-noise"),
    pytest.param([(Decimal("1.0051"),)], [(Decimal("1.000"),)], {}, VALUE, id="past-half-a-unit-is-not-a-rounding"),
    pytest.param([(34.7651,)], [(34.76,)], {}, VALUE, id="truncating-past-the-half-is-not-rounding"),
    pytest.param([(0.006,)], [(0.002,)], {}, VALUE, id="0.002-is-not-0.006"),
    pytest.param([(0.006,)], [(0.0109,)], {}, VALUE, id="0.0109-is-not-0.006"),
    pytest.param([(0.006,)], [(0.0,)], {}, VALUE, id="0.006-does-not-round-to-zero"),
    pytest.param([("10:00",)], [("10:01",)], {}, VALUE, id="hh-mm-strings-differ-by-a-minute"),
    pytest.param([(None,)], [(0,)], {}, VALUE, id="null-is-not-0"),
    pytest.param([(None,)], [("",)], {}, VALUE, id="null-is-not-empty-string"),
    pytest.param([(None,)], [("NULL",)], {}, VALUE, id="null-is-not-the-string-NULL"),
    pytest.param([(True,)], [(1,)], {}, VALUE, id="true-is-not-1"),
    pytest.param([(False,)], [(0,)], {}, VALUE, id="false-is-not-0"),
    pytest.param([(True,)], [(1.0,)], {}, VALUE, id="true-is-not-1.0"),
    pytest.param(
        [(True, "a"), (1, "b")], [(1, "a"), (True, "b")], {}, VALUE, id="bool-and-int-swapped-between-rows"
    ),  # Python hashes both rows alike
    pytest.param([(NAN,)], [(None,)], {}, VALUE, id="nan-is-not-null"),
    pytest.param([(INF,)], [(-INF,)], {}, VALUE, id="inf-is-not-minus-inf"),
    pytest.param([(10,)], [("10",)], {}, VALUE, id="numeric-string-is-not-a-number"),
    pytest.param([("Lyon",)], [("lyon",)], {}, VALUE, id="strings-are-case-sensitive"),
    pytest.param([("Lyon",)], [("Lyon ",)], {}, VALUE, id="strings-keep-whitespace"),
    pytest.param([(b"a",)], [("a",)], {}, VALUE, id="bytes-are-not-text"),
    pytest.param(
        [(date(2024, 1, 31),)],
        [(datetime(2024, 1, 31, 13, 45),)],
        {},
        VALUE,
        id="timestamp-with-time-of-day-is-not-its-date",
    ),
    pytest.param(
        [("2024-01-31",)], [("2024-01-31 13:45:00",)], {}, VALUE, id="iso-timestamp-with-time-of-day-is-not-its-date"
    ),
    pytest.param(
        [(date(2024, 1, 31),)],
        [(datetime(2024, 1, 31, tzinfo=UTC),)],
        {},
        VALUE,
        id="aware-midnight-is-an-instant-not-a-day",
    ),
    pytest.param(
        [(datetime(2024, 1, 31, 12),)],
        [(datetime(2024, 1, 31, 12, tzinfo=UTC),)],
        {},
        VALUE,
        id="naive-timestamp-is-not-an-aware-one",
    ),
    pytest.param([("20240131",)], [(date(2024, 1, 31),)], {}, VALUE, id="compact-digits-are-not-a-date"),
    pytest.param([(5,)], [(5, "x")], {"shape": "scalar"}, COLUMN_COUNT, id="scalar-with-two-columns"),
    pytest.param([(5,)], [(5,), (5,)], {"shape": "scalar"}, SHAPE, id="scalar-with-two-rows"),
    pytest.param([(5,)], [], {"shape": "scalar", "actual_ncols": 1}, SHAPE, id="scalar-with-no-rows"),
    pytest.param([], [(1,)], {}, ROW_COUNT, id="empty-vs-non-empty"),
    pytest.param([(1,)], [], {}, ROW_COUNT, id="non-empty-vs-empty"),
    pytest.param([], [], {"expected_ncols": 2, "actual_ncols": 1}, COLUMN_COUNT, id="empty-results-column-counts"),
]


@pytest.mark.parametrize(("expected", "actual", "options"), EQUAL)
def test_equal_results_match(expected, actual, options):
    result = compare_results(expected, actual, **options)
    assert (result.match, result.reason) == (True, None), result.detail


@pytest.mark.parametrize(("expected", "actual", "options", "reason"), UNEQUAL)
def test_unequal_results_fail_with_their_reason(expected, actual, options, reason):
    result = compare_results(expected, actual, **options)
    assert (result.match, result.reason) == (False, reason), result.detail


# --- the rules one by one -----------------------------------------------------------------------


def test_alias_differences_pass_because_names_are_never_compared():
    db = sqlite3.connect(":memory:")
    first = db.execute("SELECT 7 AS revenue, 'x' AS region")
    second = db.execute("SELECT 7 AS total, 'x' AS r")
    assert [d[0] for d in first.description] != [d[0] for d in second.description]
    assert compare_results(first.fetchall(), second.fetchall()).match


def test_driver_row_objects_compare_like_tuples():
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    rows = db.execute("SELECT 1 AS a, 'b' AS b UNION ALL SELECT 2, 'c'").fetchall()
    assert compare_results(rows, [(2, "c"), (1, "b")]).match


@pytest.mark.parametrize(
    ("left", "right"),
    list(
        combinations(
            [
                date(2024, 1, 31),
                datetime(2024, 1, 31),
                "2024-01-31",
                "2024-01-31 00:00:00",
                "2024-01-31T00:00:00",
                "2024-01-31 00:00:00.000",
                "2024-01-31T00:00",
            ],
            2,
        )
    ),
    ids=repr,
)
def test_date_midnight_timestamp_and_iso_strings_are_the_same_day(left, right):
    assert compare_results([(left,)], [(right,)]).match


def test_the_same_day_also_matches_at_zero_tolerance():
    assert compare_results([(date(2024, 1, 31), 3)], [("2024-01-31 00:00:00", 3.0)], decimals=None).match


def test_ordered_value_mismatch_names_row_and_column():
    result = compare_results([(1, "a"), (2, 212.4)], [(1, "a"), (2, 212.0)], ordered=True)
    assert (result.reason, result.detail) == (VALUE, "row 2 col 2: expected 212.4, got 212")


def test_ordered_rows_of_another_multiset_fail_with_value_not_order():
    result = compare_results([(1,), (2,)], [(2,), (3,)], ordered=True)
    assert (result.reason, result.detail) == (VALUE, "row 1 col 1: expected 1, got 2")


def test_order_detail_shows_the_first_row_out_of_place():
    result = compare_results([(1, "a"), (2, "b"), (3, "c")], [(1, "a"), (3, "c"), (2, "b")], ordered=True)
    assert result.detail == "the rows match as a multiset but not in order: row 2 expected (2, 'b'), got (3, 'c')"


def test_unordered_mismatch_names_the_missing_row_and_the_nearest_candidate_row():
    result = compare_results(
        [(1, "a", 10.0), (2, "b", 212.4), (3, "c", 5.0)], [(3, "c", 5.0), (1, "a", 10.0), (2, "b", 212.0)]
    )
    assert result.reason == VALUE
    assert result.detail.startswith("row 2 col 3: expected 212.4, got 212 (")
    assert "nearest unpaired candidate row is 3" in result.detail


def test_unordered_mismatch_counts_the_other_missing_rows():
    result = compare_results([(1,), (2,), (3,)], [(1,), (7,), (8,)])
    assert result.detail.endswith("; 1 more expected row without one)")


def test_long_values_are_truncated_in_the_detail():
    result = compare_results([("x" * 500,)], [("y" * 500,)], ordered=True)
    assert len(result.detail) < 120 and "…" in result.detail


def test_row_count_detail_states_both_counts():
    assert compare_results([(1,), (2,), (3,)], [(1,)]).detail == "expected 3 rows, got 1"


@pytest.mark.parametrize("shape", ["scalar", "rows"])
def test_one_value_against_one_value_reads_expected_and_got_not_a_pairing(shape):
    # issue 37: a scalar mismatch read "row 1 col 1: expected 27, got 400 (rows compared as a multiset: ...)"
    assert compare_results([(27,)], [(400,)], shape=shape).detail == "expected 27, got 400"
    noisy = compare_results([(86.38144329896907,)], [(86.0,)], shape=shape, decimals=2)
    assert (noisy.reason, noisy.detail) == (VALUE, "expected 86.38, got 86")


def test_numbers_in_a_detail_are_read_finer_where_the_question_s_place_would_show_them_equal():
    detail = compare_results([(1, 0.3750001)], [(1, 0.3849)], decimals=2).detail
    assert detail.startswith("row 1 col 2: expected 0.375, got 0.385")


def test_scalar_detail_names_the_row_count():
    assert (
        compare_results([(5,)], [(5,), (6,)], shape="scalar").detail == "a scalar answer is exactly one row; got 2 rows"
    )


def test_projection_superset_is_reported_as_such():
    result = compare_results([(1, 10.0), (2, 20.0)], [(2, "b", 20.0), (1, "a", 10.0)])
    assert (result.reason, result.projection_superset) == (COLUMN_COUNT, True)
    assert result.detail == (
        "expected 2 columns, got 3; the reference's columns appear in the candidate's in "
        "order (candidate columns 1, 3): a projection difference, not a wrong number"
    )
    assert (result.expected_columns, result.actual_columns) == (2, 3)


def test_extra_columns_with_a_wrong_number_are_not_a_projection_superset():
    result = compare_results([(1, 10.0), (2, 20.0)], [(1, "a", 10.0), (2, "b", 21.0)])
    assert (result.reason, result.projection_superset) == (COLUMN_COUNT, False)
    assert result.detail.endswith("do not appear among the candidate's in order")


def test_reference_columns_in_another_order_are_not_a_projection_superset():
    assert not compare_results([(1, "a")], [("a", "z", 1)]).projection_superset


def test_projection_needs_the_rows_to_line_up_not_only_the_columns():
    # Each reference column exists in the candidate on its own, but not row by row.
    result = compare_results([(1, "a"), (2, "b")], [(1, "b", 0), (2, "a", 0)])
    assert not result.projection_superset


def test_projection_search_goes_past_a_column_that_fits_alone_but_not_row_by_row():
    # Candidate column 2 holds the right letters in the wrong rows; column 3 holds them in the right rows.
    result = compare_results([(1, "a"), (2, "b")], [(1, "b", "a"), (2, "a", "b")])
    assert result.projection_superset and "candidate columns 1, 3" in result.detail


def test_an_ordered_projection_must_keep_the_order():
    expected = [(1, "a"), (2, "b")]
    assert compare_results(expected, [(1, "x", "a"), (2, "y", "b")], ordered=True).projection_superset
    assert not compare_results(expected, [(2, "y", "b"), (1, "x", "a")], ordered=True).projection_superset


def test_fewer_columns_than_the_reference_is_column_count():
    result = compare_results([(1, "a")], [(1,)])
    assert (result.reason, result.projection_superset, result.detail) == (
        COLUMN_COUNT,
        False,
        "expected 2 columns, got 1",
    )


def test_column_counts_of_empty_results_come_from_the_caller():
    assert compare_results([], [], expected_ncols=2, actual_ncols=2).match
    unknown = compare_results([], [])
    assert (unknown.match, unknown.expected_columns, unknown.actual_columns) == (True, 0, 0)


def test_declared_column_count_must_agree_with_the_rows():
    with pytest.raises(ValueError, match="expected_ncols=3 but the expected rows have 2 columns"):
        compare_results([(1, 2)], [(1, 2)], expected_ncols=3)


def test_rows_of_unequal_width_are_refused():
    with pytest.raises(ValueError, match="unequal widths"):
        compare_results([(1, 2), (1,)], [(1, 2), (1, 2)])


@pytest.mark.parametrize("decimals", [-1, 2.0, True, "2"])
def test_decimals_must_be_a_non_negative_int_or_none(decimals):
    with pytest.raises(ValueError, match="decimals"):
        compare_results([(1,)], [(1,)], decimals=decimals)


def test_shape_must_be_scalar_or_rows():
    with pytest.raises(ValueError, match="shape"):
        compare_results([(1,)], [(1,)], shape="table")


@pytest.mark.parametrize(
    ("decimals", "equal", "unequal"),
    [
        (0, (10.4, 10.0), (10.6, 10.0)),
        (1, (10.04, 10.0), (10.06, 10.0)),
        (3, (10.0004, 10.0), (10.0006, 10.0)),
    ],
)
def test_tolerance_is_half_a_unit_in_the_last_declared_place(decimals, equal, unequal):
    assert compare_results([(equal[0],)], [(equal[1],)], decimals=decimals).match
    assert not compare_results([(unequal[0],)], [(unequal[1],)], decimals=decimals).match


def test_integers_never_blur_even_at_zero_decimals():
    assert not compare_results([(1,)], [(2,)], decimals=0).match


def test_garbage_collector_state_is_restored():
    assert gc.isenabled()
    compare_results([(1,)], [(2,)])
    assert gc.isenabled()
    gc.disable()
    try:
        compare_results([(1,)], [(1,)])
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- the non-transitive tolerance: bucket, then settle the neighbours ----------------------------


@pytest.mark.parametrize(
    ("expected", "actual", "match"),
    [
        pytest.param([1.004, 1.006], [1.006, 1.004], True, id="straddling-a-bucket-edge"),
        pytest.param([1.0049, 1.0051], [1.0051, 1.0049], True, id="either-side-of-the-half"),
        pytest.param([1.0, 0.996], [1.0, 1.004], True, id="only-by-not-pairing-the-identical-ones"),
        pytest.param([1.0, 1.003], [1.004, 1.02], False, id="two-rows-want-one-partner"),
        pytest.param([0.996, 1.0], [1.004, 1.0051], False, id="no-matching-exists"),
        pytest.param([1.0, 1.004, 1.008, 1.012], [1.002, 1.006, 1.01, 1.014], True, id="a-chain-shifted-by-one"),
        pytest.param([1.0, 1.004, 1.008, 1.012], [1.002, 1.006, 1.01, 1.0171], False, id="a-chain-broken-at-the-end"),
        # Small values are read to their first digit, so 0.004 and 0.006 differ, but each agrees with its
        # rounding: 0.006 with 0.01 (and not with 0.009, which is closer), 0.004 with 0.00.
        pytest.param([0.004, 0.006], [0.006, 0.004], True, id="small-values-swapped"),
        pytest.param([0.006, 0.0091], [0.009, 0.01], True, id="small-value-paired-with-its-rounding-not-nearest"),
        pytest.param([0.006, 0.004], [0.0, 0.01], True, id="two-small-values-and-their-roundings"),
        pytest.param([0.006, 0.0061], [0.009, 0.01], False, id="no-rounding-for-the-second"),
    ],
)
def test_neighbouring_values_match_when_a_valid_pairing_exists(expected, actual, match):
    assert compare_results([(x,) for x in expected], [(y,) for y in actual]).match is match


def test_several_fuzzy_columns_are_settled_by_a_matching_not_by_sorting():
    # Sorted row by row, (1, 1) meets (1, 1.006): too far. Paired crosswise, both pairs are within 0.005.
    expected = [("k", 1.0, 1.0), ("k", 1.0, 1.003)]
    actual = [("k", 1.0, 1.006), ("k", 1.003, 1.0)]
    assert compare_results(expected, actual).match
    assert not compare_results(expected, [("k", 1.0, 1.009), ("k", 1.003, 1.0)]).match


def test_cancelled_identical_rows_are_reconsidered_around_a_mismatch():
    # Many rows share the text; the identical 0.000 rows cancel first, yet the answer needs them.
    expected = [(f"r{i}", float(i)) for i in range(40)] + [("k", 1.0), ("k", 0.996)]
    actual = [(f"r{i}", float(i)) for i in range(40)] + [("k", 1.0), ("k", 1.004)]
    random.Random(3).shuffle(actual)
    assert compare_results(expected, actual).match


def test_float_shortcut_of_the_tolerance_agrees_with_exact_arithmetic_at_the_edge():
    rng = random.Random(5)
    for _ in range(3000):
        decimals = rng.randint(0, 6)
        tolerance, reach = Tolerance(decimals), Fraction(1, 2 * 10**decimals) * (1 + Fraction(1, 10**6))
        if rng.random() < 0.5:
            reach += Fraction(1, 2**44) * abs(Fraction(rng.uniform(-1e6, 1e6)))  # near the magnitude term too
        x = rng.choice([rng.uniform(-1e6, 1e6), rng.uniform(-1, 1), float(rng.randrange(10**9)) / 10**decimals])
        y = x - rng.choice([1, -1]) * float(reach)
        y = rng.choice([y, math.nextafter(y, 0), math.nextafter(y, -math.inf), math.nextafter(y, math.inf)])
        assert tolerance.within(x, y) is ref_equal(x, y, decimals), (decimals, x, y)


def test_values_within_the_tolerance_are_at_most_one_bucket_apart():
    rng = random.Random(6)
    tolerance = Tolerance(2)
    for _ in range(3000):
        x = rng.choice([rng.uniform(-10, 10), Decimal(rng.randrange(-(10**6), 10**6)) / 10**4, rng.randrange(-99, 99)])
        y = float(x) + rng.uniform(-0.005, 0.005)
        if tolerance.within(x, y):
            assert abs(tolerance.bucket(x) - tolerance.bucket(y)) <= 1, (x, y)
