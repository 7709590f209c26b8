"""The diagnosis reads rows as one definition says, value by value (``_cell``), however it reads them: a column of
values ``_cell`` keeps is passed over whole, every other column is read value by value, rows of unequal width
the old way. A property test holds the column-wise reading to the value-by-value one on mixed rows."""

from __future__ import annotations

import datetime
import decimal
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from eval.sql.diagnosis._results import _cell, _rows

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, allow_infinity=False, places=4),
    st.text(max_size=6),
    st.binary(max_size=4),
    st.dates(),
    st.datetimes(),
)


def value_by_value(rows, decimals):
    return [tuple(_cell(v, decimals) for v in r) for r in rows]


def same(a, b) -> bool:
    """Equal, NaN being itself (a float NaN is kept as it is, and NaN != NaN)."""
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b):
        if len(ra) != len(rb):
            return False
        for x, y in zip(ra, rb):
            if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
                continue
            if type(x) is not type(y) or x != y:
                return False
    return True


@settings(max_examples=400, deadline=None)
@given(
    width=st.integers(min_value=0, max_value=4),
    data=st.data(),
    decimals=st.integers(min_value=0, max_value=4),
    as_lists=st.booleans(),
)
def test_rows_read_column_wise_are_the_values_read_one_by_one(width, data, decimals, as_lists):
    kinds = [VALUES, st.text(max_size=5), st.none() | st.text()]
    column_kinds = [data.draw(st.sampled_from(kinds)) for _ in range(width)]
    rows = data.draw(st.lists(st.tuples(*column_kinds) if width else st.just(()), max_size=12))
    if as_lists:
        rows = [list(r) for r in rows]
    got = _rows(rows, decimals)
    assert all(type(r) is tuple for r in got)
    assert same(got, value_by_value(rows, decimals))


@given(rows=st.lists(st.lists(VALUES, max_size=3), max_size=6), decimals=st.integers(min_value=0, max_value=3))
def test_rows_of_unequal_width_are_read_as_before(rows, decimals):
    assert same(_rows(rows, decimals), value_by_value(rows, decimals))


def test_a_text_column_is_kept_and_numbers_and_dates_are_read():
    rows = [("a", 1, 2.345, decimal.Decimal("1.005"), datetime.date(2024, 1, 31), True, None)]
    assert _rows(rows, 2) == [("a", 1.0, 2.35, 1.0, "2024-01-31", True, None)]
    text = [("x", None), ("y", "z")]
    assert _rows(text, 2) == text
