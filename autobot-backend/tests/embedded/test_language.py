"""Units of the embedded generator's language handling: tokens, stems (inflection), date
phrases and analytic cue words. Each table names the rule it pins."""

from __future__ import annotations

import datetime as dt

import pytest

from services.embedded.cues import scan
from services.embedded.dates import find_dates, label
from services.embedded.lexicon import expand, parse_number, stem, tokenize
from services.embedded.period_phrases import Relative

D = dt.date


@pytest.mark.parametrize(
    "a,b",
    [
        ("orders", "order"),
        ("categories", "category"),
        ("shipped", "ship"),
        ("shipping", "ship"),
        ("referred", "refer"),
        ("cancelled", "cancel"),
        ("prices", "price"),
        ("boxes", "box"),
        ("signups", "signup"),
        ("bought", "buy"),
        ("sold", "sell"),
        ("people", "person"),
        ("countries", "country"),
        ("returned", "return"),
        ("loans", "loan"),
        ("billings", "bill"),
        ("no-shows", "no-show"),
    ],
    ids=lambda v: v,
)
def test_inflections_meet_at_one_stem(a, b):
    assert stem(a) == stem(b)


@pytest.mark.parametrize("a,b", [("status", "statu"), ("discount", "discontinued"), ("ship", "shop")], ids=lambda v: v)
def test_different_words_keep_different_stems(a, b):
    # the trap: a stemmer that strips too much merges words a schema keeps apart
    assert stem(a) != stem(b)


def test_tokens_keep_quoted_values_hyphenated_words_and_iso_dates_whole():
    toks = tokenize("Orders of 'USB Hub' month-over-month since 2024-03-01?")
    assert [(t.kind, t.text) for t in toks] == [
        ("word", "Orders"),
        ("word", "of"),
        ("quoted", "USB Hub"),
        ("word", "month-over-month"),
        ("word", "since"),
        ("number", "2024-03-01"),
        ("punct", "?"),
    ]


@pytest.mark.parametrize("text,value", [("$1,200.50", 1200.5), ("5k", 5000.0), ("12%", 12.0), ("three", 3.0)])
def test_numbers_are_read_with_their_notation(text, value):
    assert parse_number(tokenize(text)[0]) == value


@pytest.mark.parametrize(
    "phrase,lo,hi",
    [
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
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_date_phrases_become_half_open_ranges(phrase, lo, hi):
    # half-open [lo, hi): a row on the last day of the period is in, the next day is out
    (spec,) = find_dates(tokenize(phrase))
    assert (spec.lo, spec.hi) == (lo, hi)


@pytest.mark.parametrize(
    "phrase,unit,n",
    [
        ("in the last 3 months", "month", 3),
        ("over the past year", "year", 1),
        ("last 30 days", "day", 30),
        ("this month", "month", 1),
        ("in the last two quarters", "quarter", 2),
    ],
)
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


@pytest.mark.parametrize(
    "text,unit",
    [
        ("monthly revenue", "month"),
        ("orders per quarter", "quarter"),
        ("signups each year", "year"),
        ("revenue by month", "month"),
        ("orders for each week", "week"),
        ("which month had most orders", "month"),
    ],
)
def test_grain_cues(text, unit):
    assert [g[0] for g in _cues(text).grains] == [unit]


@pytest.mark.parametrize(
    "text,unit",
    [
        ("month-over-month change in revenue", "month"),
        ("quarter over quarter growth", "quarter"),
        ("YoY revenue growth", "year"),
        ("revenue compared with the previous month", "month"),
    ],
)
def test_period_over_period_cues(text, unit):
    cues = _cues(text)
    assert cues.compare_unit == unit and cues.change


def test_previous_month_in_a_comparison_is_not_a_date_window():
    assert _cues("revenue in 2024 compared with the previous month").dates[0].lo == D(2024, 1, 1)
    assert len(_cues("revenue in 2024 compared with the previous month").dates) == 1


@pytest.mark.parametrize(
    "text,op,number",
    [
        ("more than 15 orders", ">", 15),
        ("at least 3 items", ">=", 3),
        ("under $20", "<", 20),
        ("5 or more loans", ">=", 5),
        ("no more than 2 refills", "<=", 2),
        ("priced over 1,000", ">", 1000),
    ],
)
def test_threshold_cues(text, op, number):
    (th,) = _cues(text).thresholds
    assert (th.op, th.number) == (op, number)


@pytest.mark.parametrize(
    "text,desc,limit",
    [
        ("top 5 products", True, 5),
        ("bottom 3 cities", False, 3),
        ("the 3 cheapest products", False, 3),
        ("the 2 most expensive items", True, 2),
        ("which category has the least revenue", False, None),
    ],
)
def test_ranking_cues(text, desc, limit):
    sup = _cues(text).superlatives[0]
    assert (sup.desc, sup.limit) == (desc, limit)


@pytest.mark.parametrize(
    "text,funcs",
    [
        ("how many customers", ["count"]),
        ("number of orders", ["count"]),
        ("average order value", ["avg"]),
        ("total revenue", ["sum"]),
        ("the highest price", ["max"]),
        ("the lowest fee", ["min"]),
        ("average number of orders per customer", ["avg", "count"]),
    ],
)
def test_aggregate_cues(text, funcs):
    assert [a.func for a in _cues(text).aggs] == funcs


def test_including_zero_is_heard():
    assert _cues("orders for every customer, including those with none").include_zero
    assert not _cues("orders for every customer").include_zero


@pytest.mark.parametrize(
    "phrase,lo,hi",
    [
        ("the opening five days of June 2024", D(2024, 6, 1), D(2024, 6, 6)),
        ("the last two weeks of 2023", D(2023, 12, 18), D(2024, 1, 1)),
        ("the first three months of 2024", D(2024, 1, 1), D(2024, 4, 1)),
        ("from 3 May to 9 May 2021", D(2021, 5, 3), D(2021, 5, 10)),
        ("on Boxing Day 2022", D(2022, 12, 26), D(2022, 12, 27)),
        ("from Christmas Eve through New Year's Day 2025", D(2024, 12, 24), D(2025, 1, 2)),
        ("on Halloween 2021", D(2021, 10, 31), D(2021, 11, 1)),
        ("on the 2nd of April 2024", D(2024, 4, 2), D(2024, 4, 3)),
    ],
    ids=lambda v: str(v),
)
def test_edges_of_periods_holidays_and_ordinal_days_are_date_phrases(phrase, lo, hi):
    (spec,) = find_dates(tokenize(expand(phrase)))
    assert (spec.lo, spec.hi) == (lo, hi)


def test_a_decade_is_its_ten_years_and_a_year_in_a_code_is_no_date():
    spec = find_dates(tokenize(expand("hired in the 1990s")))[0]
    assert (spec.lo, spec.hi) == (D(1990, 1, 1), D(2000, 1, 1))
    assert find_dates(tokenize("grades in the 2023-fall term")) == []


@pytest.mark.parametrize(
    "phrase,expected",
    [
        ("What was Q3 revenue?", ("quarter", 3)),
        ("November sales by channel", ("month", 11)),
        ("orders (31 March, 30 June) in 2024", None),
        ("(January is compared with December 2023)", None),
    ],
    ids=lambda v: str(v),
)
def test_a_bare_month_or_quarter_is_a_period_only_before_a_noun(phrase, expected):
    recurring = [s.recurring for s in find_dates(tokenize(phrase)) if s.recurring]
    assert recurring == ([expected] if expected else [])


@pytest.mark.parametrize(
    "phrase,lo,hi",
    [
        ("orders on 7 March 2024", D(2024, 3, 7), D(2024, 3, 8)),
        ("orders on Christmas Day 2023", D(2023, 12, 25), D(2023, 12, 26)),
        ("orders between May 3 and May 9, 2024", D(2024, 5, 3), D(2024, 5, 10)),
        ("revenue month by month through 2023", D(2023, 1, 1), D(2024, 1, 1)),
    ],
    ids=lambda v: str(v),
)
def test_days_holidays_and_a_year_through_are_date_phrases(phrase, lo, hi):
    spec = find_dates(tokenize(phrase))[0]
    assert (spec.lo, spec.hi) == (lo, hi)


@pytest.mark.parametrize(
    "phrase,recurring",
    [
        ("orders in July", ("month", 7)),
        ("sales in Q2", ("quarter", 2)),
        ("orders placed on the first day of a month", ("first_day", 1)),
        ("orders on the last day of each quarter", ("last_day", 3)),
    ],
    ids=lambda v: str(v),
)
def test_periods_without_a_year_recur(phrase, recurring):
    assert find_dates(tokenize(phrase))[0].recurring == recurring


@pytest.mark.parametrize(
    "phrase,lo,hi",
    [
        ("orders from 25 to 31 October 2024", dt.date(2024, 10, 25), dt.date(2024, 11, 1)),
        ("for 3 to 9 May 2021", dt.date(2021, 5, 3), dt.date(2021, 5, 10)),
        ("placed on or after 15 December 2024", dt.date(2024, 12, 15), None),
        ("placed on or before 15 December 2024", None, dt.date(2024, 12, 16)),
        ("placed after 15 December 2024", dt.date(2024, 12, 16), None),
        ("placed up to the end of February 2024", None, dt.date(2024, 3, 1)),
        ("placed until the end of March 2024", None, dt.date(2024, 4, 1)),
    ],
)
def test_a_range_of_days_or_an_open_end_bounds_the_period(phrase, lo, hi):
    (spec,) = find_dates(tokenize(phrase))
    assert (spec.lo, spec.hi) == (lo, hi)


@pytest.mark.parametrize(
    "phrase,recurring",
    [
        ("sailings in the first quarter of each year", ("quarter", 1)),
        ("tickets in the third quarter of every year", ("quarter", 3)),
    ],
)
def test_a_quarter_of_each_year_recurs(phrase, recurring):
    (spec,) = find_dates(tokenize(phrase))
    assert spec.recurring == recurring


@pytest.mark.parametrize(
    "text,funcs",
    [
        ("how many orders does a customer place on average", ["count"]),
        ("the highest daily revenue", ["max"]),
        ("how much did they pay in total", ["sum"]),
    ],
    ids=lambda v: str(v),
)
def test_on_average_a_grain_word_or_in_total_adds_no_aggregate_of_its_own(text, funcs):
    assert [a.func for a in _cues(text).aggs] == funcs


def test_on_average_is_heard_and_is_not_an_aggregate_of_its_own():
    cues = _cues("how many items does an order hold on average")
    assert cues.on_average and [a.func for a in cues.aggs] == ["count"]


@pytest.mark.parametrize(
    "text",
    [
        "how much more revenue did May bring than April",
        "by how much did sales grow",
        "each month's orders against the month before",
        "which region gained the most",
    ],
    ids=lambda v: v[:30],
)
def test_differences_are_heard_as_comparisons(text):
    assert _cues(text).change


def test_falling_on_a_day_is_not_a_fall():
    assert not _cues("orders that fell on a weekend day").change


@pytest.mark.parametrize(
    "text,unit,limit",
    [
        ("which two weeks were busiest", "week", 2),
        ("the slowest month of 2023", "month", None),
        ("our best quarter for revenue", "quarter", None),
    ],
    ids=lambda v: str(v),
)
def test_ranked_periods_are_grains(text, unit, limit):
    cues = _cues(text)
    assert [g[0] for g in cues.grains] == [unit] and cues.grain_limit == limit


@pytest.mark.parametrize(
    "text,sort",
    [
        ("revenue per quarter, oldest quarter first", "time_asc"),
        ("orders by month in chronological order", "time_asc"),
        ("sales by channel, highest first", "desc"),
        ("monthly order growth", None),
    ],
    ids=lambda v: str(v),
)
def test_sort_phrases(text, sort):
    assert _cues(text).sort == sort


def test_a_three_month_moving_average_reads_its_width():
    assert _cues("the three-month moving average of revenue").moving == (3, "avg")


@pytest.mark.parametrize(
    "text",
    [
        "revenue by customer, with 0 for those who bought nothing",
        "every category, zero for categories with no orders",
        "customers with no orders should show 0",
        "counting customers who never ordered as zero",
    ],
    ids=lambda v: v[:30],
)
def test_zeros_asked_for_in_other_words_are_heard(text):
    assert _cues(text).include_zero
