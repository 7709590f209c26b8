"""Units of the embedded generator's language handling: tokens, stems (inflection), date
phrases and analytic cue words. Each table names the rule it pins."""

from __future__ import annotations

import datetime as dt

import pytest

from services.embedded.cues import scan
from services.embedded.dates import Relative, find_dates, label
from services.embedded.lexicon import parse_number, stem, tokenize

D = dt.date


@pytest.mark.parametrize("a,b", [
    ("orders", "order"), ("categories", "category"), ("shipped", "ship"), ("shipping", "ship"),
    ("referred", "refer"), ("cancelled", "cancel"), ("prices", "price"), ("boxes", "box"),
    ("signups", "signup"), ("bought", "buy"), ("sold", "sell"), ("people", "person"), ("countries", "country"),
    ("returned", "return"), ("loans", "loan"), ("billings", "bill"), ("no-shows", "no-show"),
], ids=lambda v: v)
def test_inflections_meet_at_one_stem(a, b):
    assert stem(a) == stem(b)


@pytest.mark.parametrize("a,b", [("status", "statu"), ("discount", "discontinued"), ("ship", "shop")],
                         ids=lambda v: v)
def test_different_words_keep_different_stems(a, b):
    # the trap: a stemmer that strips too much merges words a schema keeps apart
    assert stem(a) != stem(b)


def test_tokens_keep_quoted_values_hyphenated_words_and_iso_dates_whole():
    toks = tokenize("Orders of 'USB Hub' month-over-month since 2024-03-01?")
    assert [(t.kind, t.text) for t in toks] == [
        ("word", "Orders"), ("word", "of"), ("quoted", "USB Hub"), ("word", "month-over-month"),
        ("word", "since"), ("number", "2024-03-01"), ("punct", "?")]


@pytest.mark.parametrize("text,value", [("$1,200.50", 1200.5), ("5k", 5000.0), ("12%", 12.0), ("three", 3.0)])
def test_numbers_are_read_with_their_notation(text, value):
    assert parse_number(tokenize(text)[0]) == value


@pytest.mark.parametrize("phrase,lo,hi", [
    ("in 2024", D(2024, 1, 1), D(2025, 1, 1)),
    ("in Q3 2024", D(2024, 7, 1), D(2024, 10, 1)),
    ("during the third quarter of 2023", D(2023, 7, 1), D(2023, 10, 1)),
    ("in March 2024", D(2024, 3, 1), D(2024, 4, 1)),
    ("in December 2024", D(2024, 12, 1), D(2025, 1, 1)),
    ("in H2 2024", D(2024, 7, 1), D(2025, 1, 1)),
    ("in the first half of 2024", D(2024, 1, 1), D(2024, 7, 1)),
    ("on 2024-02-29", D(2024, 2, 29), D(2024, 3, 1)),
    ("between 2024-03-01 and 2024-05-31", D(2024, 3, 1), D(2024, 6, 1)),
    ("from January 2023 to June 2023", D(2023, 1, 1), D(2023, 7, 1)),
    ("since July 2024", D(2024, 7, 1), None),
    ("after 2023", D(2024, 1, 1), None),
    ("before June 2023", None, D(2023, 6, 1)),
    ("until March 2024", None, D(2024, 4, 1)),
], ids=lambda v: v if isinstance(v, str) else None)
def test_date_phrases_become_half_open_ranges(phrase, lo, hi):
    # half-open [lo, hi): a row on the last day of the period is in, the next day is out
    (spec,) = find_dates(tokenize(phrase))
    assert (spec.lo, spec.hi) == (lo, hi)


@pytest.mark.parametrize("phrase,unit,n", [
    ("in the last 3 months", "month", 3), ("over the past year", "year", 1), ("last 30 days", "day", 30),
    ("this month", "month", 1), ("in the last two quarters", "quarter", 2),
])
def test_windows_relative_to_the_data_stay_symbolic(phrase, unit, n):
    (spec,) = find_dates(tokenize(phrase))
    assert spec.relative == Relative(unit, n) and spec.lo is None


def test_may_is_a_month_only_when_written_as_one():
    assert find_dates(tokenize("orders in May 2024"))[0].lo == D(2024, 5, 1)
    assert find_dates(tokenize("what may have happened in the data")) == []


@pytest.mark.parametrize("unit,label_text", [("month", "2024-03"), ("quarter", "2024-Q1"), ("year", "2024")])
def test_period_labels(unit, label_text):
    assert label(D(2024, 3, 31), unit) == label_text


def _cues(text):
    return scan(tokenize(text), text)


@pytest.mark.parametrize("text,unit", [
    ("monthly revenue", "month"), ("orders per quarter", "quarter"), ("signups each year", "year"),
    ("revenue by month", "month"), ("orders for each week", "week"), ("which month had most orders", "month"),
])
def test_grain_cues(text, unit):
    assert [g[0] for g in _cues(text).grains] == [unit]


@pytest.mark.parametrize("text,unit", [
    ("month-over-month change in revenue", "month"), ("quarter over quarter growth", "quarter"),
    ("YoY revenue growth", "year"), ("revenue compared with the previous month", "month"),
])
def test_period_over_period_cues(text, unit):
    cues = _cues(text)
    assert cues.compare_unit == unit and cues.change


def test_previous_month_in_a_comparison_is_not_a_date_window():
    assert _cues("revenue in 2024 compared with the previous month").dates[0].lo == D(2024, 1, 1)
    assert len(_cues("revenue in 2024 compared with the previous month").dates) == 1


@pytest.mark.parametrize("text,op,number", [
    ("more than 15 orders", ">", 15), ("at least 3 items", ">=", 3), ("under $20", "<", 20),
    ("5 or more loans", ">=", 5), ("no more than 2 refills", "<=", 2), ("priced over 1,000", ">", 1000),
])
def test_threshold_cues(text, op, number):
    (th,) = _cues(text).thresholds
    assert (th.op, th.number) == (op, number)


@pytest.mark.parametrize("text,desc,limit", [
    ("top 5 products", True, 5), ("bottom 3 cities", False, 3), ("the 3 cheapest products", False, 3),
    ("the 2 most expensive items", True, 2), ("which category has the least revenue", False, None),
])
def test_ranking_cues(text, desc, limit):
    sup = _cues(text).superlatives[0]
    assert (sup.desc, sup.limit) == (desc, limit)


@pytest.mark.parametrize("text,funcs", [
    ("how many customers", ["count"]), ("number of orders", ["count"]), ("average order value", ["avg"]),
    ("total revenue", ["sum"]), ("the highest price", ["max"]), ("the lowest fee", ["min"]),
    ("average number of orders per customer", ["avg", "count"]),
])
def test_aggregate_cues(text, funcs):
    assert [a.func for a in _cues(text).aggs] == funcs


def test_including_zero_is_heard():
    assert _cues("orders for every customer, including those with none").include_zero
    assert not _cues("orders for every customer").include_zero
