"""The comparison policy (spec section 5): one behaviour per test, named as the rule.

The last part checks the fast algorithm against an obviously correct reference (per-value rules
written from the spec, and brute-force or augmenting-path bipartite matching) on random cases.
"""

from __future__ import annotations

import doctest
import gc
import math
import random
import sqlite3
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from fractions import Fraction
from itertools import combinations, permutations

import pytest

import eval.sql.rows as compare_module
from eval.sql.rows import (
    COLUMN_COUNT,
    COLUMN_ORDER,
    NORMALISERS,
    ORDER,
    ROW_COUNT,
    SHAPE,
    UNDECIDED,
    VALUE,
    Comparison,
    Mismatch,
    _choice,
    _columns,
    _compare,
    _ties,
    _tolerance,
    _values,
    compare_results,
)
from eval.sql.rows._values import Tolerance, canonical, parse_temporal, raw_forms

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


# --- module surface -----------------------------------------------------------------------------


def test_public_names():
    assert sorted(compare_module.__all__) == sorted(
        [
            "COLUMN_COUNT",
            "COLUMN_ORDER",
            "COLUMN_ORDERS",
            "MAX_TIED_ROWS",
            "NORMALISERS",
            "ORDER",
            "POLICY_VERSION",
            "ROW_COUNT",
            "SHAPE",
            "UNDECIDED",
            "VALUE",
            "ColumnOrder",
            "Comparison",
            "Location",
            "Mismatch",
            "Normaliser",
            "Ties",
            "compare_results",
            "compare_with_ties",
            "show",
        ]
    )


def test_reason_constants_are_the_documented_strings():
    assert (
        [COLUMN_COUNT, ROW_COUNT, VALUE, ORDER, SHAPE, COLUMN_ORDER, UNDECIDED]
        == ["column_count", "row_count", "value", "order", "shape", "column_order", "undecided"]
        == [m.value for m in Mismatch]
    )


def test_comparison_is_frozen():
    result = compare_results([(1,)], [(1,)])
    assert isinstance(result, Comparison)
    with pytest.raises(AttributeError):
        result.match = False  # type: ignore[misc]


@pytest.mark.parametrize("module", [_compare, _values, _tolerance, _columns, _choice, _ties], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    failed, attempted = doctest.testmod(module)
    assert attempted and not failed


def test_every_normaliser_is_named_in_the_policy_table():
    for step in NORMALISERS:
        assert step.name in compare_module.__doc__, step.name


@pytest.mark.parametrize(
    "text",
    [
        "2024-01-31",
        "2024-01-31 00:00",
        "2024-01-31T00:00:00.000",
        "2024-01-31 13:45:00.5",
        "2024-01-31T13:45:07.120000",
        "13:45:00",
        "13:45:00.25",
        "2024-01-31",
    ],
)
def test_every_iso_spelling_is_listed_among_the_raw_forms_of_its_value(text):
    # The speed path finds candidate partners by looking these spellings up; a missing one would hide a partner.
    assert text in raw_forms(canonical(text))


def test_raw_forms_cover_random_iso_spellings():
    rng = random.Random(11)
    for _ in range(300):
        moment = datetime(2000, 1, 1) + timedelta(
            seconds=rng.randrange(10**9), microseconds=rng.choice([0, 0, 500000, 120000, rng.randrange(10**6)])
        )
        if rng.random() < 0.3:
            moment = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        digits = rng.randint(0, 6)
        text = moment.isoformat(sep=rng.choice(" T"), timespec="seconds")
        if digits:
            fraction = f"{moment.microsecond:06d}"
            if fraction[digits:].strip("0"):
                continue
            text += "." + fraction[:digits]
        elif moment.microsecond:
            continue
        assert parse_temporal(text) is not None, text
        assert text in raw_forms(canonical(text)), text


# --- the fast algorithm against an obviously correct reference -----------------------------------


def _ref_temporal(value):
    if isinstance(value, str):
        if len(value) >= 5 and value[2] == ":":
            return ("time", time.fromisoformat(value))
        if len(value) >= 10 and value[4] == "-" and value[7] == "-" and value[:4].isdigit():
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        else:
            return None
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return ("instant", value)
        return ("day", value.date()) if value.time() == time() else ("timestamp", value)
    if isinstance(value, date):
        return ("day", value)
    if isinstance(value, time):
        return ("time", value)
    return None


def ref_equal(x, y, decimals):
    """The policy, value by value, written from the spec without the module's machinery."""
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    numbers = (int, float, Decimal)
    if isinstance(x, numbers) or isinstance(y, numbers):
        if not (isinstance(x, numbers) and isinstance(y, numbers)):
            return False
        if x != x or y != y:
            return x != x and y != y
        if x in (INF, -INF) or y in (INF, -INF):
            return x == y
        if decimals is None:
            return Fraction(x) == Fraction(y)
        return ref_numbers_agree(Fraction(x), Fraction(y), decimals)
    tx, ty = _ref_temporal(x), _ref_temporal(y)
    if tx is not None or ty is not None:
        return tx is not None and ty is not None and tx[0] == ty[0] and tx[1] == ty[1]
    return type(x) is type(y) and x == y


NOISE = Fraction(1, 10**6)


def ref_numbers_agree(x: Fraction, y: Fraction, d: int) -> bool:
    """The methodology's rule, word for word, in exact arithmetic."""

    def place(v):  # d, or a small value's first significant digit (read from the value as a double)
        size = abs(float(v)) * (1 + 1e-6)
        if abs(float(v)) <= 1e-9 or size >= 10.0**-d:
            return d
        p = d + 1
        while size < 10.0**-p:
            p += 1
        return p

    def reach(p):  # half a unit at p, widened for float noise
        half = Fraction(1, 2 * 10**p)
        return half * (1 + NOISE) + min(Fraction(1, 2**44) * min(abs(x), abs(y)), half / 2)

    def rounded(v):  # a number of d decimals, or zero
        return abs(float(v)) <= 1e-9 or abs(v * 10**d - round(v * 10**d)) <= NOISE / 2

    px, py, gap = place(x), place(y), abs(x - y)
    if gap <= reach(max(px, py)):
        return True
    if (px > d) == (py > d):  # neither small (compared at d already), or both
        return False
    return gap <= reach(d) and rounded(y if px > d else x)


def ref_rows_equal(a, b, decimals):
    return len(a) == len(b) and all(ref_equal(x, y, decimals) for x, y in zip(a, b))


def ref_multiset_match(expected, actual, decimals):
    """Is there a perfect matching? Brute force on tiny inputs, Kuhn's augmenting paths otherwise."""
    if len(expected) != len(actual):
        return False
    if len(expected) <= 6:
        return any(
            all(ref_rows_equal(e, actual[j], decimals) for e, j in zip(expected, perm))
            for perm in permutations(range(len(actual)))
        )
    partner: dict[int, int] = {}
    edges = [[j for j, a in enumerate(actual) if ref_rows_equal(e, a, decimals)] for e in expected]

    def augment(i, seen):
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in partner or augment(partner[j], seen):
                    partner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(expected)))


POOL = [
    0,
    0.0,
    1,
    1.0,
    -0.004,
    0.004,
    0.0049,
    0.005,
    0.0051,
    0.006,
    0.009,
    0.01,
    0.014,
    Decimal("0.005"),
    Decimal("0.0049"),
    Decimal("1.00"),
    True,
    False,
    None,
    NAN,
    INF,
    "a",
    "A",
    "1",
    "",
    "NULL",
    date(2024, 1, 31),
    datetime(2024, 1, 31),
    datetime(2024, 1, 31, 13, 45),
    "2024-01-31",
    "2024-01-31 00:00:00",
    "2024-01-31 13:45:00",
    "13:45:00",
    "13:45",
    time(13, 45),
    b"a",
]
NUMBERS = [0, 0.0, -0.004, 0.004, 0.0049, 0.005, 0.0051, 0.006, 0.009, 0.01, 0.014, Decimal("0.005"), 1, 1.0]


def _random_case(rng: random.Random):
    width = rng.randint(1, 3)
    pools = [rng.choice([POOL, NUMBERS, NUMBERS]) for _ in range(width)]
    expected = [tuple(rng.choice(pool) for pool in pools) for _ in range(rng.randint(0, 5))]
    actual = list(expected)
    rng.shuffle(actual)
    for _ in range(rng.choice([0, 0, 1, 2])):
        if actual:
            i, col = rng.randrange(len(actual)), rng.randrange(width)
            row = list(actual[i])
            row[col] = rng.choice(pools[col])
            actual[i] = tuple(row)
    if rng.random() < 0.1 and actual:
        actual.pop()
    return expected, actual


def ref_permuted_match(expected, actual, ordered, decimals):
    """Some other order of the candidate's columns matches (the reference rule for `column_order`)."""
    if not expected or not actual:
        return False
    width = len(expected[0])
    for perm in permutations(range(width)):
        if perm == tuple(range(width)):
            continue
        moved = [tuple(row[j] for j in perm) for row in actual]
        if ordered and all(ref_rows_equal(e, a, decimals) for e, a in zip(expected, moved)):
            return True
        if not ordered and ref_multiset_match(expected, moved, decimals):
            return True
    return False


def test_random_small_cases_agree_with_brute_force_matching():
    rng = random.Random(20261129)
    outcomes = {True: 0, False: 0}
    for case in range(600):
        expected, actual = _random_case(rng)
        decimals = rng.choice([2, 2, 1, 0, None])
        ordered = rng.random() < 0.25
        result = compare_results(expected, actual, ordered=ordered, decimals=decimals)
        if len(expected) != len(actual):
            want = (False, ROW_COUNT)
        elif ordered:
            in_order = all(ref_rows_equal(e, a, decimals) for e, a in zip(expected, actual))
            as_multiset = ref_multiset_match(expected, actual, decimals)
            want = (True, None) if in_order else (False, ORDER if as_multiset else VALUE)
        else:
            want = (True, None) if ref_multiset_match(expected, actual, decimals) else (False, VALUE)
        if want == (False, VALUE) and ref_permuted_match(expected, actual, ordered, decimals):
            want = (False, COLUMN_ORDER)
        assert (result.match, result.reason) == want, (case, expected, actual, ordered, decimals, result.detail)
        outcomes[result.match] += 1
    assert min(outcomes.values()) > 100, outcomes  # both verdicts are well exercised


SPELLINGS = [
    "a",
    "b",
    "2024-01-31",
    "2024-01-31 00:00:00",
    "2024-01-31T00:00",
    "2024-01-31T00:00:00.00",
    date(2024, 1, 31),
    datetime(2024, 1, 31),
    None,
    True,
]
"""One day spelled every way (and a few other values): partners found by hashing must include them all."""


@pytest.mark.parametrize("duplicates", [False, True], ids=["distinct-rows", "with-duplicates"])
def test_random_larger_cases_agree_with_augmenting_path_matching(duplicates):
    # Enough rows that equal rows are cancelled by hashing first, then the neighbourhood is re-settled.
    rng = random.Random(7 + duplicates)
    for case in range(60):
        n = rng.randint(20, 60)
        texts = [rng.choice(SPELLINGS) for _ in range(n)]
        expected = [(t, rng.choice(NUMBERS[:11]), i if not duplicates else i % 5) for i, t in enumerate(texts)]
        actual = list(expected)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(n)
            actual[i] = (actual[i][0], rng.choice(NUMBERS[:11]), actual[i][2])
        rng.shuffle(actual)
        result = compare_results(expected, actual)
        assert result.match is ref_multiset_match(expected, actual, 2), (case, result.detail)


@pytest.mark.parametrize(
    ("expected", "actual", "ordered", "at"),
    [
        ([(1, "a"), (2, "b")], [(1, "a"), (2, "c")], True, (1, 1, 1)),
        ([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], True, (0, 0, None)),
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (9, "b"), (1, "a")], False, (1, 1, 0)),
    ],
)
def test_a_mismatch_says_where_it_is_for_a_report_to_point_at(expected, actual, ordered, at):
    got = compare_results(expected, actual, ordered=ordered)
    assert not got.match and got.at is not None
    assert (got.at.expected_row, got.at.actual_row, got.at.column) == at


def test_a_shape_mismatch_points_at_no_cell():
    assert compare_results([(1,), (2,)], [(1,)]).at is None


def test_random_columns_near_every_bound_agree_with_augmenting_path_matching():
    # One numeric column (settled by sorting, or around small values by a flow), values placed at the
    # bounds of the rule: half-way values, their roundings, float noise, large magnitudes, small values.
    rng = random.Random(20261204)
    outcomes = {True: 0, False: 0}
    for case in range(300):
        decimals = rng.choice([0, 1, 2, 2, 3])
        unit = 10.0**-decimals
        base = rng.choice([0.0, 1.0, 34.76, 1e9, rng.uniform(-1e4, 1e4)])
        pool = [base + k * unit / 2 for k in range(-3, 4)] + [unit * f for f in (0.2, 0.4, 0.6, 0.9)]
        pool += [math.nextafter(v, math.inf) for v in pool[:3]] + [round(v, decimals) for v in pool[3:6]]
        n = rng.randint(2, 7)
        expected = [(rng.choice(pool),) for _ in range(n)]
        actual = [(rng.choice(pool),) if rng.random() < 0.4 else row for row in expected]
        rng.shuffle(actual)
        got = compare_results(expected, actual, decimals=decimals)
        assert got.match is ref_multiset_match(expected, actual, decimals), (case, decimals, expected, actual)
        outcomes[got.match] += 1
    assert min(outcomes.values()) > 60, outcomes


@pytest.mark.parametrize(
    ("expected", "actual", "match"),
    [
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2, "b")], True),
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (1, "a")], False),  # a second copy of a taken row
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (9, "z"), (9, "z")], False),  # a foreign row twice
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2.001, "b")], True),  # within the tolerance
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2.1, "b")], False),
        ([(i, "x") for i in range(30)], [(i + 100, "x") for i in range(30)], False),  # many left over
    ],
)
def test_distinct_rows_settled_with_one_dict_give_the_verdict_of_every_row_counted(expected, actual, match):
    """Issue 40: rows of each side taken out of one dict (not a set of each side); the duplicates and the left-overs
    beyond a few go the way they went before, and the verdict is the brute force's."""
    assert compare_results(expected, actual).match is match is ref_multiset_match(expected, actual, 2)


def test_the_kinds_a_fetch_read_keep_true_apart_from_one():
    """Issue 40: each column's types come from the fetch when it read them; a boolean column against an integer one
    is still compared canonically (Python's True == 1 is not followed)."""
    kinds = ((frozenset({bool}), frozenset({str})), (frozenset({int}), frozenset({str})))
    got = compare_results([(True, "a"), (False, "b")], [(1, "a"), (0, "b")], kinds=kinds)
    assert not got.match and got.reason == VALUE
    same = ((frozenset({int}), frozenset({str})), (frozenset({int}), frozenset({str})))
    assert compare_results([(1, "a"), (0, "b")], [(0, "b"), (1, "a")], kinds=same).match
