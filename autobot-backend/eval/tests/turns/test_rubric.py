"""The rubric's arithmetic, pinned to exact numbers: weights, renormalisation, clamping, every cap, the bands."""

from __future__ import annotations

from fractions import Fraction

import pytest

from eval.turns.format import parse_turn
from eval.turns.prompt import SYSTEM_PROMPT
from eval.turns.rubric import (
    ALL_SQL_FAILED,
    CAPS,
    FIGURES_WITHOUT_ROWS,
    RUBRIC_VERSION,
    band_of,
    caps_for,
    compose,
    figures,
    rubric_fingerprint,
)


def scores(i, s, r, f):
    return {"intent": i, "sql_quality": s, "result_relevance": r, "answer_faithfulness": f}


def test_the_four_weights_30_25_25_20():
    a = compose(scores(8, 6, 7, 5), "partial")
    # 0.30*8 + 0.25*6 + 0.25*7 + 0.20*5 = 2.4 + 1.5 + 1.75 + 1.0 = 6.65 -> 66.5 out of 100
    assert [float(d.contribution) for d in a.dimensions] == [24.0, 15.0, 17.5, 10.0]
    assert [float(d.effective_weight) for d in a.dimensions] == [0.3, 0.25, 0.25, 0.2]
    assert a.pre_cap == a.composite == Fraction(133, 2)
    assert a.band == "partial" and a.band_agrees


def test_a_null_faithfulness_drops_out_and_the_others_renormalise():
    a = compose(scores(8, 6, 7, None), "good")
    assert [d.effective_weight for d in a.dimensions] == [Fraction(3, 8), Fraction(5, 16), Fraction(5, 16), 0]
    assert [float(d.effective_weight) for d in a.dimensions] == [0.375, 0.3125, 0.3125, 0.0]
    assert [float(d.nominal_weight) for d in a.dimensions] == [0.3, 0.25, 0.25, 0.2]
    # 0.375*8 + 0.3125*6 + 0.3125*7 = 3 + 1.875 + 2.1875 = 7.0625 -> 70.625
    assert [float(d.contribution) for d in a.dimensions] == [30.0, 18.75, 21.875, 0.0]
    assert float(a.composite) == 70.625
    assert a.dimensions[3].value is None and a.dimensions[3].used is None
    assert a.band == "partial" and not a.band_agrees  # the judge said good; the composite says partial


def test_perfect_and_zero_turns_are_100_and_0_with_or_without_faithfulness():
    assert compose(scores(10, 10, 10, 10), "good").composite == 100
    assert compose(scores(10, 10, 10, None), "good").composite == 100
    assert compose(scores(0, 0, 0, 0), "poor").composite == 0
    assert compose(scores(0, 0, 0, None), "poor").composite == 0


def test_subscores_outside_0_10_are_clamped_and_say_so():
    a = compose(scores(14, -3, 10, 10), "good")
    assert [(d.value, d.used, d.clamped) for d in a.dimensions] == [
        (14, 10, True),
        (-3, 0, True),
        (10, 10, False),
        (10, 10, False),
    ]
    assert float(a.composite) == 75.0  # 30 + 0 + 25 + 20


@pytest.mark.parametrize("bad", [None, 7.5, "7", True])
def test_a_required_dimension_must_be_an_integer(bad):
    with pytest.raises(ValueError):
        compose(scores(bad, 5, 5, 5), "good")


def test_caps_only_push_down_and_record_whether_they_bit():
    a = compose(scores(9, 7, 8, 8), "good", [(ALL_SQL_FAILED, "1 failed")])
    assert float(a.pre_cap) == 80.5 and float(a.composite) == 40.0 and a.band == "poor"
    assert [(c.name, c.limit, c.binding) for c in a.caps] == [("all_sql_failed", 40, True)]
    low = compose(scores(3, 2, 1, 0), "poor", [(ALL_SQL_FAILED, "1 failed")])
    # 0.3*3 + 0.25*2 + 0.25*1 + 0.2*0 = 1.65: below the cap, so unchanged (a cap never raises a score)
    assert float(low.pre_cap) == 16.5 and float(low.composite) == 16.5
    assert [c.binding for c in low.caps] == [False]


def test_two_caps_the_lower_wins():
    a = compose(scores(10, 10, 10, 10), "good", [(ALL_SQL_FAILED, "x"), (FIGURES_WITHOUT_ROWS, "y")])
    assert float(a.composite) == 20.0 and [c.binding for c in a.caps] == [True, True]
    assert a.to_json()["caps"] == [
        {"name": "all_sql_failed", "limit": 40, "binding": True, "detail": "x"},
        {"name": "figures_without_rows", "limit": 20, "binding": True, "detail": "y"},
    ]


@pytest.mark.parametrize(
    ("score", "band"),
    [(100, "good"), (75, "good"), (74.875, "partial"), (45, "partial"), (44.875, "poor"), (0, "poor")],
)
def test_band_thresholds(score, band):
    assert band_of(score) == band


def test_a_scored_turns_arithmetic_serialises_every_step():
    assert compose(scores(8, 6, 7, None), "good").to_json() == {
        "dimensions": [
            {"name": "intent", "value": 8, "used": 8, "clamped": False, "nominal_weight": 0.3,
             "effective_weight": 0.375, "contribution": 30.0},
            {"name": "sql_quality", "value": 6, "used": 6, "clamped": False, "nominal_weight": 0.25,
             "effective_weight": 0.3125, "contribution": 18.75},
            {"name": "result_relevance", "value": 7, "used": 7, "clamped": False, "nominal_weight": 0.25,
             "effective_weight": 0.3125, "contribution": 21.875},
            {"name": "answer_faithfulness", "value": None, "used": None, "clamped": False, "nominal_weight": 0.2,
             "effective_weight": 0.0, "contribution": 0.0},
        ],
        "pre_cap": 70.625,
        "caps": [],
        "composite": 70.625,
        "band": "partial",
        "judge_band": "good",
        "band_agrees": False,
    }  # fmt: skip


# -- when the caps apply, read from the evidence alone -------------------------------------------------


def turn(trajectory, answer=None, question="How many orders were placed in 2024?", tools=None):
    data = {"turn_id": "t", "time": "2026-12-01T10:00:00Z", "question": question, "trajectory": trajectory}
    data |= {"answer": answer} | ({"tools": tools} if tools else {})
    return parse_turn(data)


OK = {"sql": "SELECT 1", "status": "ok", "row_count": 1, "columns": ["n"], "rows": [[1]]}
EMPTY = {"sql": "SELECT 1 WHERE 0", "status": "ok", "row_count": 0, "columns": ["n"], "rows": []}
ERROR = {"sql": "SELECT x", "status": "error", "error": "no such column: x"}
BLOCKED = {"sql": "DELETE FROM orders", "status": "blocked", "error": "writes data"}


@pytest.mark.parametrize(
    ("trajectory", "caps"),
    [
        ([ERROR], ["all_sql_failed"]),
        ([ERROR, ERROR], ["all_sql_failed"]),
        ([ERROR, OK], []),  # a recovered error is not a failed turn
        ([BLOCKED], []),  # a guard block of a write is the system working
        ([BLOCKED, ERROR], ["all_sql_failed"]),
        ([], []),  # nothing ran: a refusal, judged on its merits
        ([EMPTY], []),  # it ran, and returned nothing
    ],
)
def test_all_sql_failed_counts_errors_not_guard_blocks(trajectory, caps):
    assert [c.name for c, _ in caps_for(turn(trajectory))] == caps


@pytest.mark.parametrize(
    ("trajectory", "answer", "tools", "capped"),
    [
        ([EMPTY], "There were 1,204 orders.", None, True),
        ([], "There were 1204 orders.", None, True),
        ([BLOCKED], "I deleted 12 orders.", None, True),
        ([OK], "There were 1,204 orders.", None, False),  # rows came back: the judge weighs the figure
        ([EMPTY], "No orders were placed in 2024.", None, False),  # the only number is the question's
        ([EMPTY], "There were none.", None, False),
        ([], "There were 1,204 orders.", ["warehouse_api"], False),  # another tool's output is not captured
        ([EMPTY], None, None, False),  # no answer text
    ],
)
def test_figures_without_rows(trajectory, answer, tools, capped):
    names = [c.name for c, _ in caps_for(turn(trajectory, answer, tools=tools))]
    assert ("figures_without_rows" in names) is capped


def test_figures_are_numbers_in_digits_that_the_question_does_not_hold():
    assert figures("In 2024 we had 1,204 orders, 31.5% more; Q3 led", "How many orders in 2024?") == ["1,204", "31.5"]
    assert figures("the 3rd week of 2024-10", "") == ["2024", "10"]
    assert figures("2,024 orders", "in 2024?") == []  # the same number, grouped differently


def test_every_cap_is_documented_and_only_lowers():
    assert {c.name for c in CAPS} == {"all_sql_failed", "figures_without_rows"}
    assert all(0 <= c.limit < 100 and c.rule for c in CAPS)


def test_the_rubric_is_versioned_a_change_to_it_needs_a_new_version():
    # Changing the prompt, a weight, a cap or a threshold changes this fingerprint. Scores of two versions are
    # never aggregated, so a change must come with a new RUBRIC_VERSION (and this pin updated beside it).
    assert RUBRIC_VERSION == "turns-rubric-v1"
    assert rubric_fingerprint(SYSTEM_PROMPT) == PINNED


PINNED = "269c391ee192ff276786d8565005e11aea16e211803094cd0c7a77811284364e"
