"""Units of :mod:`services.embedded.answer_spec`: finding the list of columns a question spells out,
classifying its items, and what the list changes in a plan. Probes written for the rules, over the
dev retail schema."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from services.embedded.answer_spec import Item, Spec, apply_spec, read_spec
from services.embedded.cues import scan
from services.embedded.index import index_for
from services.embedded.lexicon import expand, tokenize
from services.embedded.linking import link
from services.embedded.plan import ColRef, Compare, Dim, Measure, Plan, Rank, Window
from services.schema_context import inspect_schema
from tests.schemas.dev import write_db


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    engine = sa.create_engine(write_db(tmp_path_factory.mktemp("spec") / "retail.db", "retail"))
    ctx = inspect_schema(engine)
    engine.dispose()
    return index_for(ctx)


def spec_of(index, question: str) -> Spec | None:
    text = expand(question)
    tokens = tokenize(text)
    return read_spec(tokens, link(tokens, index, scan(tokens, text).skip).links, index)


@pytest.mark.parametrize(
    "question,kinds",
    [
        ("Sales by region last year? Region and total.", ["dim", "measure"]),
        ("Top spenders in 2024. Give the customer id, name and revenue.", ["key", "label", "measure"]),
        ("Weekly signups in 2024 (week, signups, running total)", ["period", "measure", "measure"]),
        ("Rank the categories by revenue, showing category and revenue.", ["dim", "measure"]),
        ("Orders per quarter — quarter (YYYY-Qn) and how many orders.", ["period", "measure"]),
        (
            "Best channel per month. Return month, channel and rank, where rank 1 is the best.",
            ["period", "dim", "rank"],
        ),
        ("Which month was busiest? Month as YYYY-MM.", ["period"]),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_the_list_and_its_items_are_read(index, question, kinds):
    spec = spec_of(index, question)
    assert spec is not None
    assert [i.kind for i in spec.items] == kinds


@pytest.mark.parametrize(
    "question",
    [
        "How many orders were placed in March 2024?",
        "Revenue by category for 2024, highest first.",
        "Which customers ordered most in 2024? Rank them.",
        "List orders over 500 in value.",
    ],
    ids=lambda q: q[:40],
)
def test_a_question_without_a_list_has_none(index, question):
    assert spec_of(index, question) is None


def _ranked_plan() -> Plan:
    return Plan(
        subject="orders",
        measures=[Measure("metric", "order_items", metric="revenue")],
        dims=[Dim("entity", "customers")],
        rank=Rank(True, 3),
        hide_measures=True,
    )


def test_a_measure_in_the_list_is_shown_and_a_list_without_one_hides_it(index):
    shown = apply_spec(_ranked_plan(), Spec((Item("label"), Item("measure")), 0), index)
    assert not shown.hide_measures
    hidden = _ranked_plan()
    hidden.hide_measures = False
    assert apply_spec(hidden, Spec((Item("label"),), 0), index).hide_measures


def test_an_id_in_the_list_shows_the_entity_key(index):
    plan = apply_spec(_ranked_plan(), Spec((Item("key"), Item("label"), Item("measure")), 0), index)
    assert plan.dims[0].show_key
    listing = Plan(subject="customers", projection=[ColRef("customers", "name")])
    assert apply_spec(listing, Spec((Item("key"), Item("label")), 0), index).projection == [
        ColRef("customers", "customer_id"),
        ColRef("customers", "name"),
    ]


def test_a_period_the_list_names_becomes_a_grouping(index):
    plan = Plan(subject="orders", measures=[Measure("count", "orders")])
    plan = apply_spec(plan, Spec((Item("period", unit="quarter"), Item("measure")), 0), index)
    assert [(d.kind, d.unit) for d in plan.dims] == [("grain", "quarter")]


def test_two_measures_beside_a_window_or_a_change_show_each_period_value(index):
    windowed = Plan(
        subject="orders",
        measures=[Measure("count", "orders")],
        window=Window("running"),
        dims=[Dim("grain", "", None, "month")],
    )
    assert apply_spec(
        windowed, Spec((Item("period", unit="month"), Item("measure"), Item("measure")), 0), index
    ).window.show_value
    series = Plan(subject="orders", measures=[Measure("count", "orders")], compare=Compare("month", False))
    assert apply_spec(
        series, Spec((Item("period", unit="month"), Item("measure"), Item("measure")), 0), index
    ).compare.with_measure
    alone = Plan(
        subject="orders", measures=[Measure("count", "orders")], compare=Compare("month", False, with_measure=True)
    )
    assert not apply_spec(alone, Spec((Item("period", unit="month"), Item("measure")), 0), index).compare.with_measure


def test_a_value_and_its_share_are_two_columns(index):
    plan = Plan(
        subject="orders",
        measures=[Measure("metric", "order_items", metric="revenue", share_of_total=True)],
        dims=[Dim("column", "orders", "channel")],
    )
    plan = apply_spec(plan, Spec((Item("dim", "orders", "channel"), Item("measure"), Item("measure")), 0), index)
    assert [m.share_of_total for m in plan.measures] == [False, True]


def test_a_rank_in_the_list_is_a_rank_column(index):
    plan = apply_spec(_ranked_plan(), Spec((Item("label"), Item("rank")), 0), index)
    assert plan.show_rank and plan.hide_measures
