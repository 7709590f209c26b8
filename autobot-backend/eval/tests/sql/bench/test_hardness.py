"""Spider's hardness, computed from the gold by the rules of Spider's evaluator (``eval_hardness``), pinned on
cases worked by hand from those rules: each case names its counts (component 1, component 2, others)."""

from __future__ import annotations

import pytest
import sqlglot

from eval.sql.bench.hardness import counts, level, spider_hardness
from eval.sql.model.outcome import SQLOutcome, Verdict, breakdown

CASES = [
    # (gold, (c1, c2, others), label, why)
    ("SELECT count(*) FROM singer", (0, 0, 0), "easy", "one aggregate is not 'more than one'"),
    ("SELECT count(*) FROM cars_data WHERE cylinders > 4", (1, 0, 0), "easy", "the Spider paper's easy example"),
    ("SELECT name, country, age FROM singer ORDER BY age DESC", (1, 0, 1), "medium", "several columns: others 1"),
    (
        "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id "
        "GROUP BY T1.stadium_id",
        (2, 0, 1),
        "medium",
        "the paper's medium example: GROUP BY and one join",
    ),
    ("SELECT count(*) FROM concert WHERE year = 2014 OR year = 2015", (2, 0, 1), "medium", "an OR, two conditions"),
    ("SELECT name FROM singer WHERE song_name LIKE '%Hey%'", (2, 0, 0), "medium", "a LIKE counts beside WHERE"),
    (
        "SELECT country FROM singer WHERE age > 40 INTERSECT SELECT country FROM singer WHERE age < 30",
        (1, 1, 0),
        "hard",
        "a set operation is one component 2; only the first SELECT is counted",
    ),
    (
        "SELECT a FROM t UNION SELECT b FROM u UNION SELECT c FROM w ORDER BY 1 LIMIT 2",
        (0, 1, 0),
        "hard",
        "a chain counts once, and the ORDER BY / LIMIT after it belong to the last SELECT, uncounted",
    ),
    (
        "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)",
        (1, 1, 0),
        "hard",
        "a subquery operand is one component 2; nothing inside it is counted",
    ),
    (
        "SELECT avg(life_expectancy) FROM country WHERE name NOT IN (SELECT T1.name FROM country AS T1 JOIN "
        "country_language AS T2 ON T1.code = T2.country_code WHERE T2.language = 'English' AND T2.is_official = 'T')",
        (1, 1, 1),
        "extra",
        "the paper's extra example: count_agg reads the NOT of a WHERE condition as an aggregate (avg + NOT = 2)",
    ),
    (
        "SELECT a FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) > 2 AND avg(c) < 3",
        (1, 0, 1),
        "medium",
        "count_agg counts the two ANDs between HAVING conditions (never their aggregates): 2 > 1",
    ),
    (
        "SELECT a FROM (SELECT a FROM t WHERE b > 1 ORDER BY b LIMIT 3) JOIN u ON u.a = a",
        (1, 0, 0),
        "easy",
        "a FROM subquery is a table (one join), not a component 2, and its clauses are not counted",
    ),
    (
        "SELECT T2.name, T2.capacity FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id "
        "WHERE T1.year >= 2014 GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1",
        (5, 0, 1),
        "extra",
        "WHERE, GROUP BY, ORDER BY, LIMIT and a join",
    ),
    (
        "SELECT max(a) - min(a), b FROM t ORDER BY sum(c) - sum(d)",
        (1, 0, 2),
        "medium",
        "one aggregate for the SELECT column that starts with one, two for the ORDER BY operands: 3 > 1",
    ),
]


@pytest.mark.parametrize(("sql", "expected", "label", "why"), CASES, ids=[c[3][:40] for c in CASES])
def test_hardness_follows_spiders_rules(sql, expected, label, why):
    assert counts(sqlglot.parse_one(sql, read="sqlite")) == expected, why
    assert spider_hardness(sql) == label, why


@pytest.mark.parametrize(
    ("c1", "c2", "others", "label"),
    [
        (1, 0, 0, "easy"),
        (1, 0, 2, "medium"),
        (2, 0, 1, "medium"),
        (2, 0, 2, "extra"),  # neither medium's second clause (others < 2) nor any of hard's
        (2, 0, 3, "hard"),
        (3, 0, 2, "hard"),
        (4, 0, 0, "extra"),
        (1, 1, 0, "hard"),
        (0, 2, 0, "extra"),
        (1, 1, 1, "extra"),
    ],
)
def test_the_three_counts_make_the_label_by_eval_hardness(c1, c2, others, label):
    assert level(c1, c2, others) == label


def test_a_gold_sqlglot_cannot_read_has_no_hardness():
    assert spider_hardness("SELECT FROM WHERE (") is None


def outcome(qid: str, difficulty: str) -> SQLOutcome:
    return SQLOutcome(question_id=qid, expect="answer", stratum="spider", verdict=Verdict.PASS, difficulty=difficulty)


def test_difficulty_labels_of_one_benchmark_are_shown_easiest_first():
    spider = [outcome("a", "extra"), outcome("b", "medium"), outcome("c", "easy"), outcome("d", "medium")]
    assert list(breakdown(spider, "difficulty")) == ["easy", "medium", "extra"]
    own = [outcome("a", "tricky"), outcome("b", "easy")]
    assert list(breakdown(own, "difficulty")) == ["tricky", "easy"]  # not one scale: first appearance
