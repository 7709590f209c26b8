"""The numeric tolerance: a rounding to the question's decimals passes, a value that differs at the
declared precision fails whatever its magnitude. Worked examples (the methodology's table), property
tests (hypothesis), and the same on real SQLite and DuckDB results."""

from __future__ import annotations

import math
import sqlite3
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import duckdb
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from eval.sql.rows import VALUE, compare_results
from eval.sql.rows._tolerance import Tolerance

# --- the worked examples of the methodology's tolerance table (decimals 2) ----------------------

AGREE = [
    ((34.76 + 34.77) / 2, 34.77, "the issue's average rounded half up: as doubles 0.0050000000000026 apart"),
    (34.765, 34.77, "the same, written"),
    (34.765, 34.76, "... and half to even, or truncated"),
    (34.764999999999993, 34.77, "a half-way value computed with float noise"),
    (Decimal("34.765"), Decimal("34.77"), "exact decimals, half up"),
    (33.3333, 33.33, "a rounding"),
    (33.331, 33.3359, "less than half a cent apart, neither rounded"),
    (212.4, 212.39999999999998, "float noise"),
    (0.006, 0.01, "a small value and its rounding to the declared decimals"),
    (0.006, 0.0061, "a small value read to its first digit"),
    (0.004, 0.0, "a small value that rounds to zero, and zero"),
    (5.551115123125783e-17, 0.0, "float noise around zero"),
    (1e-10, -1e-10, "float noise on both sides of zero"),
    (10, 10.004, "a whole number and a value within half a cent"),
]
DIFFER = [
    (10.01, 10.02, "a cent apart"),
    (34.7651, 34.76, "truncation past the half-way value"),
    (Decimal("1.0051"), Decimal("1.00"), "just past half a unit"),
    (0.006, 0.002, "0.002 is not 0.006: three times smaller"),
    (0.006, 0.0109, "0.0109 is not 0.006, though both round to 0.01"),
    (0.006, 0.009, "closer than 0.01, but wrong at the digit it claims"),
    (0.006, 0.0, "0.006 rounds to 0.01, not 0.00"),
    (0.0005, 0.0001, "small values read to their own first digit"),
]


@pytest.mark.parametrize(("a", "b", "why"), AGREE, ids=[w for *_, w in AGREE])
def test_the_tables_agreeing_pairs_agree(a, b, why):
    t = Tolerance(2)
    assert t.within(a, b) and t.within(b, a), why


@pytest.mark.parametrize(("a", "b", "why"), DIFFER, ids=[w for *_, w in DIFFER])
def test_the_tables_differing_pairs_differ(a, b, why):
    t = Tolerance(2)
    assert not t.within(a, b) and not t.within(b, a), why
    assert compare_results([(a,)], [(b,)]).reason == VALUE


# --- properties ---------------------------------------------------------------------------------

DECIMALS = st.integers(0, 6)


@st.composite
def true_values(draw, small: bool = False):
    """A value with a few more digits than the question declares, as an exact Decimal."""
    d = draw(DECIMALS)
    extra = draw(st.integers(1, 4))
    digits = draw(st.integers(1, 10**extra - 1) if small else st.integers(-(10**9), 10**9))
    sign = draw(st.sampled_from([1, -1])) if small else 1
    return d, sign * Decimal(digits).scaleb(-(d + extra))


@settings(max_examples=600, deadline=None)
@given(case=st.one_of(true_values(), true_values(small=True)), mode=st.sampled_from([ROUND_HALF_UP, ROUND_HALF_EVEN]))
@example(case=(2, Decimal("34.765")), mode=ROUND_HALF_UP)
@example(case=(2, Decimal("34.765")), mode=ROUND_HALF_EVEN)
@example(case=(2, Decimal("0.006")), mode=ROUND_HALF_UP)
def test_a_rounding_to_the_declared_decimals_passes_both_ways(case, mode):
    d, true = case
    rounded = true.quantize(Decimal(1).scaleb(-d), rounding=mode)
    t = Tolerance(d)
    for reference, candidate in [(true, rounded), (float(true), float(rounded)), (float(true), rounded)]:
        assert t.within(reference, candidate) and t.within(candidate, reference), (d, reference, candidate)


@settings(max_examples=400, deadline=None)
@given(case=true_values(), noise=st.integers(-64, 64))
def test_float_noise_on_a_half_way_value_still_rounds_either_way(case, noise):
    d, true = case
    unit = Decimal(1).scaleb(-d)
    half_way = true.quantize(unit, rounding=ROUND_DOWN) + unit / 2
    computed = float(half_way)
    for _ in range(abs(noise)):  # a few ulps off, as a float sum or average leaves it
        computed = math.nextafter(computed, math.inf if noise > 0 else -math.inf)
    t = Tolerance(d)
    for rounding in (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN):
        assert t.within(computed, float(half_way.quantize(unit, rounding=rounding))), (d, computed, rounding)


@settings(max_examples=600, deadline=None)
@given(case=true_values(), units=st.integers(1, 10**6), sign=st.sampled_from([1, -1]))
def test_a_value_a_unit_or_more_away_fails_whatever_its_magnitude(case, units, sign):
    d, true = case
    other = true + sign * Decimal(units).scaleb(-d)  # at least one unit of the declared place away
    t = Tolerance(d)
    assert not t.within(true, other) and not t.within(float(true), float(other)), (d, true, other)


@settings(max_examples=600, deadline=None)
@given(d=st.integers(0, 6), first=st.integers(1, 9), other=st.integers(1, 9), shift=st.integers(1, 2))
def test_small_values_differing_at_their_first_digit_fail(d, first, other, shift):
    # Two values below one unit of the declared place, with different first significant digits at
    # the same place: 0.006 and 0.002 at 2 decimals. Neither is a rounding of the other.
    assume(first != other)
    place = d + shift
    a, b = Decimal(first).scaleb(-place), Decimal(other).scaleb(-place)
    t = Tolerance(d)
    assert not t.within(a, b) and not t.within(float(a), float(b)), (d, a, b)


NUMBERS = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.decimals(-(10**6), 10**6, allow_nan=False, allow_infinity=False, places=5),
    st.integers(-(10**6), 10**6),
    st.sampled_from([0.006, 0.01, 0.004, 0.0, 0.005, 0.0049, 0.0051, 34.765, 34.77, 34.76]),
)


@settings(max_examples=2000, deadline=None)
@given(x=NUMBERS, y=NUMBERS, d=DECIMALS)
def test_the_relation_is_symmetric_and_neighbours_share_a_bucket(x, y, d):
    t = Tolerance(d)
    assert t.within(x, y) is t.within(y, x)
    if t.within(x, y):
        assert abs(t.bucket(x) - t.bucket(y)) <= 1
        assert not t.beyond(x, y)


@settings(max_examples=2000, deadline=None)
@given(x=NUMBERS, y=NUMBERS, d=DECIMALS)
def test_the_float_shortcuts_agree_with_exact_arithmetic(x, y, d):
    # The rule, in exact arithmetic from its statement in the methodology.
    from eval.tests.sql.rows.test_against_reference import ref_numbers_agree

    assert Tolerance(d).within(x, y) is ref_numbers_agree(Fraction(x), Fraction(y), d), (x, y, d)


# --- on real databases --------------------------------------------------------------------------

PRICES = [("toys", 34.76), ("toys", 34.77), ("books", 12.5), ("books", 12.51), ("games", 0.5), ("games", 0.52)]
"""Each category's average is a half-way value (34.765, 12.505, 0.51 is not): ROUND must pass either way."""


def _sqlite(tmp_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "prices.sqlite")
    conn.execute("CREATE TABLE products (category TEXT, unit_price REAL)")
    conn.executemany("INSERT INTO products VALUES (?, ?)", PRICES)
    conn.execute("CREATE TABLE returns (category TEXT, orders INTEGER, returned INTEGER)")
    conn.executemany("INSERT INTO returns VALUES (?, ?, ?)", [("toys", 1000, 6), ("books", 1000, 2)])
    return conn


def _duckdb(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect(str(tmp_path / "prices.duckdb"))
    conn.execute("CREATE TABLE products (category VARCHAR, unit_price DECIMAL(10, 2))")
    conn.executemany("INSERT INTO products VALUES (?, ?)", PRICES)
    conn.execute("CREATE TABLE returns (category VARCHAR, orders INTEGER, returned INTEGER)")
    conn.executemany("INSERT INTO returns VALUES (?, ?, ?)", [("toys", 1000, 6), ("books", 1000, 2)])
    return conn


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_rounding_the_average_to_the_questions_decimals_passes_on_the_engine(tmp_path, engine):
    conn = _sqlite(tmp_path) if engine == "sqlite" else _duckdb(tmp_path)
    reference = conn.execute("SELECT category, AVG(unit_price) FROM products GROUP BY category").fetchall()
    for candidate in (
        "SELECT category, ROUND(AVG(unit_price), 2) FROM products GROUP BY category",
        "SELECT category, AVG(unit_price) FROM products GROUP BY category",
        "SELECT category, CAST(AVG(unit_price) * 100 AS INTEGER) / 100.0 FROM products GROUP BY category",
    ):
        got = conn.execute(candidate).fetchall()
        assert compare_results(reference, got).match, (candidate, reference, got)
    off = conn.execute("SELECT category, ROUND(AVG(unit_price), 2) + 0.01 FROM products GROUP BY category").fetchall()
    assert compare_results(reference, off).reason == VALUE


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_small_ratio_is_graded_at_its_first_digit_on_the_engine(tmp_path, engine):
    conn = _sqlite(tmp_path) if engine == "sqlite" else _duckdb(tmp_path)
    reference = conn.execute("SELECT category, returned * 1.0 / orders FROM returns").fetchall()  # 0.006, 0.002
    right = conn.execute("SELECT category, ROUND(returned * 1.0 / orders, 2) FROM returns").fetchall()
    swapped = conn.execute(  # each category given the other's ratio: within half a cent, and wrong
        "SELECT a.category, b.returned * 1.0 / b.orders FROM returns a JOIN returns b ON a.category <> b.category"
    ).fetchall()
    assert compare_results(reference, right).match, right
    assert compare_results(reference, swapped).reason == VALUE, swapped
