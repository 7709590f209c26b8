"""The comparison module's surface: its public names, its doctests, and what it reads and returns."""

from __future__ import annotations

import doctest
import random
from datetime import datetime, timedelta

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
from eval.sql.rows._values import canonical, parse_temporal, raw_forms

NAN = float("nan")
INF = float("inf")


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
