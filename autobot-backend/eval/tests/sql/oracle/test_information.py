"""The information-lost lint reads only the values that can be near each other (issue 40 point 2), and says what
the exact reading of every value said: the same first column, values and words, on any mix of numbers."""

from __future__ import annotations

import itertools
import random
from decimal import Decimal
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from eval.sql.oracle import information
from eval.sql.oracle.information import information_lost

_NOISE = Decimal("1e-9")


def every_value_read(rows, decimals):
    """The lint as it was: a Decimal of every value of every row (the specification the screen must keep)."""

    def number(v):
        return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)

    def exact(v):
        return v if isinstance(v, Decimal) else Decimal(v)

    def same(a, b):
        return abs(a - b) <= _NOISE * max(Decimal(1), abs(a), abs(b))

    half = Decimal(5).scaleb(-(decimals + 1))
    for col in range(max((len(r) for r in rows), default=0)):
        shown = {exact(r[col]): r[col] for r in rows if col < len(r) and number(r[col])}
        values = sorted(v for v in shown if v.is_finite())
        for v in values:
            if v and abs(v) < half and not same(v, Decimal(0)):
                return f"column {col + 1}: {shown[v]!r} is not zero but rounds to zero at {decimals} decimals"
        for a, b in itertools.pairwise(values):
            if b - a < half and not same(a, b):
                return (
                    f"column {col + 1}: {shown[a]!r} and {shown[b]!r} are different values that compare "
                    f"equal at {decimals} decimals"
                )
    return None


CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.integers(2**53 - 2, 2**53 + 2),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.floats(-1, 1),
    st.sampled_from([0.0, -0.0, 0.004, 0.005, 0.0051, 1.0, 1.004, 1.0049999, 100.1, 100.10000000000001, 1e300]),
    st.decimals(allow_nan=False, places=4, min_value=-2, max_value=2),
    st.sampled_from([Decimal("0.30"), Decimal("0.3049"), Decimal("NaN"), Decimal("Infinity")]),
    st.sampled_from(["a", "1.5", ""]),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(CELLS, CELLS), max_size=12), st.sampled_from([0, 1, 2, 4]))
def test_the_screened_lint_says_what_reading_every_value_said(rows, decimals):
    assert information_lost(rows, decimals) == every_value_read(rows, decimals)


def test_a_large_column_on_a_grid_wider_than_the_tolerance_loses_nothing_and_one_pair_is_found():
    rng = random.Random(3)
    rows = [(i, rng.randrange(1, 500_000) / 100) for i in range(50_000)]
    assert information_lost(rows, 2) is None
    near = rows[123][1] + 0.001  # a value the tolerance cannot tell from one already there
    rows.append((7, near))
    found = information_lost(rows, 2)
    assert found == every_value_read(rows, 2) and repr(near) in found


def test_the_kinds_the_fetch_read_give_the_verdict_the_rows_give():
    """Issue 40: the fetch hands each column's types to the lint (no scan of every value for them)."""
    rows = [(1, "a", 0.5), (2, "b", 0.501), (3, "c", 2.0)]
    kinds = (frozenset({int}), frozenset({str}), frozenset({float}))
    assert information_lost(rows, 2, kinds) == information_lost(rows, 2) == every_value_read(rows, 2)
    assert "0.5 and 0.501" in information_lost(rows, 2, kinds)


FLOATS = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.floats(-1, 1),
    st.sampled_from([0.0, -0.0, 0.004, 0.005, 0.0051, 1.0, 1.004, 1.0049999, 100.1, 100.10000000000001, 1e300]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(FLOATS, FLOATS), min_size=1, max_size=12), st.sampled_from([0, 1, 2, 4]))
def test_columns_of_floats_read_in_numpy_say_what_reading_every_value_said(rows, decimals):
    """A large column of floats is sorted and screened in numpy (``VECTOR_FROM``, here every column)."""
    kinds = tuple(frozenset(map(type, col)) for col in zip(*rows, strict=True))
    with mock.patch.object(information, "VECTOR_FROM", 1):
        assert information_lost(rows, decimals, kinds) == every_value_read(rows, decimals)


def test_a_column_of_floats_past_the_numpy_size_finds_the_pair_the_exact_reading_finds():
    rng = random.Random(5)
    rows = [(rng.randrange(1, 500_000) / 100 if i % 50 else None,) for i in range(information.VECTOR_FROM + 1000)]
    kinds = (frozenset({float, type(None)}),)
    assert information_lost(rows, 2, kinds) is None
    near = rows[123][0] + 0.001
    rows.append((near,))
    found = information_lost(rows, 2, kinds)
    with mock.patch.object(information, "VECTOR_FROM", len(rows) + 1):  # the pure path
        assert found == information_lost(rows, 2, kinds) == every_value_read(rows, 2)
    assert repr(near) in found
