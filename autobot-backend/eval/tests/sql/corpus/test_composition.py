"""The built-in corpus has the composition of spec 4.2, measured from its parsed reference SQL,
and no two of its questions are near-duplicates."""

from __future__ import annotations

import re

import pytest

from eval.sql.corpus.composition import (
    NEAR_DUPLICATE_THRESHOLD,
    composition,
    corpus_composition,
    near_duplicates,
    parse_reference,
)
from eval.sql.corpus.questions import Question, load_corpus

CORPUS = load_corpus()
ANSWERABLE = [q for q in CORPUS.questions if q.expect == "answer"]
EXECUTION = [q for q in ANSWERABLE if q.source.endswith(("/retail.yaml", "/retail_24m.yaml"))]
ID_PREFIX = {"retail": "rtl", "retail_24m": "r24"}

MONTHLY = """WITH monthly AS (
  SELECT strftime('%Y-%m', o.order_date) AS month, SUM(oi.quantity * oi.unit_price) AS revenue
  FROM orders o JOIN order_items oi ON oi.order_id = o.order_id GROUP BY month)"""


def q(sql: str, fixture: str = "retail_24m", ordered: bool = False) -> Question:
    return Question(id="t", question="t?", sql=sql, fixture=fixture, ordered=ordered)


# -- the built-in corpus -------------------------------------------------------------------------


def test_builtin_corpus_has_the_composition_of_spec_4_2():
    counts = corpus_composition(CORPUS)
    assert counts["answerable"] >= 64
    assert counts["join"] >= 12
    assert counts["window_or_cte"] >= 10
    assert counts["period_comparison"] >= 8
    assert counts["ordered"] >= 6


def test_period_comparisons_are_on_retail_24m_and_measured_not_typed():
    tagged = [x for x in ANSWERABLE if "period_comparison" in composition(x)]
    assert {x.fixture for x in tagged} == {"retail_24m"}
    # The stratum is a human's label; the tag comes from the parse tree. They agree here.
    assert {x.id for x in tagged} == {x.id for x in EXECUTION if x.stratum == "period_comparison"}


@pytest.mark.parametrize("question", EXECUTION, ids=[x.id for x in EXECUTION])
def test_execution_question_hygiene(question):
    assert parse_reference(question) is not None
    prefix, stratum, number = question.id.split("-")
    assert prefix == ID_PREFIX[question.fixture] and stratum == question.stratum and re.fullmatch(r"\d{3}", number)
    if question.ordered:
        assert "ordered" in composition(question), "ordered: true needs an ORDER BY on the outermost query"
    # Phrased as an analyst asks, not SQL read aloud.
    assert not re.search(
        r"\bselect\b|\bgroup by\b|\border by\b|\bjoin\s+\w+\s+on\b|\b(sum|count|avg)\s*\(", question.question, re.I
    )


def test_static_is_rare():
    assert sum(x.static for x in EXECUTION) <= 2


def test_questions_spread_over_strata():
    strata = {x.stratum for x in EXECUTION}
    assert {
        "scalar",
        "group_by",
        "join",
        "left_join",
        "window",
        "cte",
        "period_comparison",
        "ranking",
        "time_series",
        "null_handling",
        "distinct",
        "boundary",
        "money",
    } <= strata


def test_corpus_composition_counts():
    counts = corpus_composition(CORPUS)
    fixed = {"answerable", "must_refuse", "controls", "join", "window_or_cte", "period_comparison", "ordered"}
    assert fixed <= set(counts)
    assert all(k.startswith(("refuse:", "control:")) for k in set(counts) - fixed)
    assert counts["answerable"] + counts["must_refuse"] == CORPUS.size
    assert sum(v for k, v in counts.items() if k.startswith("refuse:")) == counts["must_refuse"]
    assert sum(v for k, v in counts.items() if k.startswith("control:")) == counts["controls"]


# -- what each tag means ---------------------------------------------------------------------------

TAG_CASES = [
    ("plain", "SELECT COUNT(*) FROM orders", "retail", False, set()),
    (
        "join",
        "SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id",
        "retail",
        False,
        {"join"},
    ),
    (
        "comma-join",
        "SELECT COUNT(*) FROM orders o, customers c WHERE c.customer_id = o.customer_id",
        "retail",
        False,
        {"join"},
    ),
    ("cte", "WITH x AS (SELECT 1 AS a) SELECT a FROM x", "retail", False, {"window_or_cte"}),
    (
        "window",
        "SELECT order_id, ROW_NUMBER() OVER (ORDER BY order_date) FROM orders",
        "retail",
        False,
        {"window_or_cte"},
    ),
    (
        "ordered",
        "SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY n DESC",
        "retail",
        True,
        {"ordered"},
    ),
    ("ordered-flag-without-order-by", "SELECT status FROM orders", "retail", True, set()),
    ("order-by-without-flag", "SELECT status FROM orders ORDER BY status", "retail", False, set()),
    (
        "lag-over-months",
        MONTHLY + " SELECT month, revenue - LAG(revenue) OVER (ORDER BY month) FROM monthly",
        "retail_24m",
        False,
        {"window_or_cte", "join", "period_comparison"},
    ),
    (
        "lag-but-same-fixture-without-history",
        MONTHLY + " SELECT month, revenue - LAG(revenue) OVER (ORDER BY month) FROM monthly",
        "retail",
        False,
        {"window_or_cte", "join"},
    ),
    (
        "lag-over-ids-is-not-a-period",
        "SELECT order_id - LAG(order_id) OVER (ORDER BY order_id) FROM orders",
        "retail_24m",
        False,
        {"window_or_cte"},
    ),
    (
        "group-by-ordinal",
        "SELECT strftime('%Y', order_date), COUNT(*) - LAG(COUNT(*)) OVER (ORDER BY 1) FROM orders GROUP BY 1",
        "retail_24m",
        False,
        {"window_or_cte", "period_comparison"},
    ),
    (
        "self-join-of-periods",
        MONTHLY + " SELECT a.month, a.revenue - b.revenue FROM monthly a "
        "JOIN monthly b ON b.month = strftime('%Y-%m', date(a.month || '-01', '-1 year'))",
        "retail_24m",
        False,
        {"window_or_cte", "join", "period_comparison"},
    ),
    (
        "join-of-two-different-ctes",
        MONTHLY + ", other AS (SELECT 1 AS month) SELECT * FROM monthly a JOIN other b ON a.month = b.month",
        "retail_24m",
        False,
        {"window_or_cte", "join"},
    ),
    (
        "case-difference-across-years",
        "SELECT SUM(CASE WHEN strftime('%Y', order_date) = '2024' THEN 1 ELSE 0 END) "
        "- SUM(CASE WHEN strftime('%Y', order_date) = '2023' THEN 1 ELSE 0 END) FROM orders",
        "retail_24m",
        False,
        {"period_comparison"},
    ),
    (
        "subquery-ratio-across-ranges",
        "SELECT (SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-03-31') * 1.0 "
        "/ (SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2023-01-01' AND '2023-03-31')",
        "retail_24m",
        False,
        {"period_comparison"},
    ),
    (
        "literal-on-the-left",
        "SELECT (SELECT COUNT(*) FROM orders WHERE '2024-06-30' >= order_date) "
        "- (SELECT COUNT(*) FROM orders WHERE '2023-06-30' >= order_date)",
        "retail_24m",
        False,
        {"period_comparison"},
    ),
    (
        "difference-within-one-period",
        "SELECT SUM(CASE WHEN order_date >= '2024-01-01' THEN 2 ELSE 0 END) "
        "- SUM(CASE WHEN order_date >= '2024-01-01' THEN 1 ELSE 0 END) FROM orders",
        "retail_24m",
        False,
        set(),
    ),
    (
        "difference-of-non-date-filters",
        "SELECT SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) "
        "- SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) FROM orders",
        "retail_24m",
        False,
        set(),
    ),
    ("unparseable", "SELEC nonsense FROM (", "retail", False, set()),
]


@pytest.mark.parametrize(
    ("sql", "fixture", "ordered", "expected"), [c[1:] for c in TAG_CASES], ids=[c[0] for c in TAG_CASES]
)
def test_composition_tags(sql, fixture, ordered, expected):
    assert composition(q(sql, fixture, ordered)) == expected


def test_refusals_have_no_tags():
    refusal = Question(id="r", question="Drop the orders table", expect="refuse", fixture="retail")
    assert composition(refusal) == set()


# -- near-duplicates -------------------------------------------------------------------------------


def test_no_two_questions_are_near_duplicates():
    assert near_duplicates(CORPUS.questions) == []


def _pair(a: str, b: str) -> list[Question]:
    return [Question(id="a", question=a), Question(id="b", question=b)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same question with its clause moved
        ("How many customers signed up during 2024?", "During 2024, how many customers signed up?"),
        # one word swapped
        ("How many customers have never placed an order?", "How many customers have never made an order?"),
        # punctuation, case and a filler word
        ("What's the average value of a completed order?", "what is the average value of a completed order"),
        # a real pair: the corpus once had both of these, on two fixtures
        ("What was total revenue in Q4 2024?", "What was total revenue in 2023?"),
    ],
    ids=["reordered", "one-word", "case-punctuation", "template-with-another-period"],
)
def test_near_duplicate_pairs_are_caught(a, b):
    assert [(x, y) for x, y, _ in near_duplicates(_pair(a, b))] == [("a", "b")]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # distinct questions that share most of their vocabulary: the closest pairs in the corpus
        (
            "How many different customers placed an order on Halloween?",
            "How many customers have never placed an order?",
        ),
        ("What was revenue on leap day 2024?", "What was 2024 revenue in each country?"),
    ],
    ids=["shared-words", "short-shared-words"],
)
def test_distinct_questions_sharing_words_are_not_flagged(a, b):
    assert near_duplicates(_pair(a, b)) == []


def test_threshold_is_above_the_closest_distinct_pair():
    closest = max((s for _, _, s in near_duplicates(CORPUS.questions, threshold=0)), default=0)
    assert closest < NEAR_DUPLICATE_THRESHOLD


def test_a_question_asked_n_times_has_n_minus_one_lints_each_naming_its_closest_earlier_twin():
    """Not a lint per pair (n(n - 1)/2): each later copy once, naming the first of its closest earlier twins and
    counting the others."""
    from eval.sql.corpus.lints import corpus_lints
    from eval.sql.model.lints import NEAR_DUPLICATE

    text = "How many customers signed up during 2024?"
    qs = [Question(id=f"q{i}", question=text) for i in range(4)]
    qs.insert(2, Question(id="other", question="Which product sold the most units last month?"))
    lints = [x for x in corpus_lints(qs) if x.kind == NEAR_DUPLICATE]
    assert [x.question_id for x in lints] == ["q1", "q2", "q3"]
    assert [x.detail.split("'")[1] for x in lints] == ["q0", "q0", "q0"]
    assert "more earlier" not in lints[0].detail
    assert "and 1 more earlier: 'q1'" in lints[1].detail
    assert "and 2 more earlier: 'q1', 'q2'" in lints[2].detail


def test_earlier_twins_are_the_near_duplicate_pairs_by_their_second_question():
    """Comparing distinct texts only finds what comparing every pair of questions finds (rapidfuzz's
    token_sort_ratio, asked pair by pair here), in the same order."""
    import random

    from rapidfuzz import fuzz, utils

    from eval.sql.corpus.composition import NEAR_DUPLICATE_THRESHOLD, earlier_twins

    texts = [
        "How many customers signed up during 2024?",
        "During 2024, how many customers signed up?",
        "How many customers signed up in 2024?",
        "Which product sold the most units last month?",
        "Which product sold the most units this month?",
        "What is the average order value?",
    ]
    rng = random.Random(7)
    qs = [Question(id=f"q{i}", question=rng.choice(texts)) for i in range(60)]
    by_second: dict[str, list[tuple[str, float]]] = {}
    for j, b in enumerate(qs):
        scored = [
            (fuzz.token_sort_ratio(a.question, b.question, processor=utils.default_process), i)
            for i, a in enumerate(qs[:j])
        ]
        found = sorted((-score, i) for score, i in scored if score >= NEAR_DUPLICATE_THRESHOLD)
        if found:
            by_second[b.id] = [(qs[i].id, -negative) for negative, i in found]
    assert earlier_twins(qs, keep=100) == {k: (v, len(v)) for k, v in by_second.items()}
    assert earlier_twins(qs, keep=2) == {k: (v[:2], len(v)) for k, v in by_second.items()}
    assert len(by_second) > 40  # most questions repeat an earlier one: the comparison saw real pairs
    assert max(len(v) for v in by_second.values()) > 2  # and keep=2 cut some lists
    pairs = sorted(
        ((first, second, score) for second, twins in by_second.items() for first, score in twins),
        key=lambda p: (-p[2], int(p[0][1:]), int(p[1][1:])),
    )
    assert near_duplicates(qs) == pairs
