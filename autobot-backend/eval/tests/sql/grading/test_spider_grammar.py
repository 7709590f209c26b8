"""What Spider's own parser can read (:mod:`eval.sql.grading.spider_grammar`): each form that the official
per-pair file shows it failing on, the readable forms that must stay readable, and, on the shared Spider sets,
every prediction and reference against the official script's own parse failures, pair by pair."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from eval.sql.grading.spider_grammar import tokens, unreadable
from eval.tests import needs_spider

COLUMNS = {
    "singer": ("singer_id", "name", "country", "age", "value"),
    "concert": ("concert_id", "concert_name", "singer_id", "year"),
}

# Every form the official file's `error` shows (process_sql.py's KeyError / AssertionError), each as the
# token where the parser stops.
UNREADABLE = [
    # KeyError 'inner' / 'left': FROM reads JOIN alone
    ("SELECT T1.name FROM singer AS T1 INNER JOIN concert AS T2 ON T1.singer_id = T2.singer_id", "inner"),
    ("SELECT T1.name FROM singer AS T1 LEFT JOIN concert AS T2 ON T1.singer_id = T2.singer_id", "left"),
    # AssertionError "Error col: as": an alias of a SELECT item
    ("SELECT count(*) AS n FROM singer", "as"),
    ("SELECT country, count(*) AS n FROM singer GROUP BY country ORDER BY n DESC", "as"),
    # parse_value: a parenthesised value closes after one value
    ("SELECT name FROM singer WHERE country IN ('France', 'Spain')", ","),
    ("SELECT name FROM singer WHERE age IN (32, 33)", ","),
    # "Error col: >": <> is two tokens
    ("SELECT name FROM singer WHERE country <> 'France'", ">"),
    # KeyError '`' and '"TV_Channel"': a quoted table name; "Error col: "Citizenship"": a quoted column
    ("SELECT `name` FROM `singer`", "`"),
    ('SELECT "name" FROM "singer"', '"singer"'),
    ('SELECT "Name", max(age) FROM singer GROUP BY "Name"', '"Name"'),
    # KeyError 's', 'pp', ...: a table alias without AS
    ("SELECT s.name FROM singer s JOIN concert c ON s.singer_id = c.singer_id", "s"),
    ("SELECT concert_name FROM concert JOIN singer h ON h.singer_id = concert.singer_id", "h"),
    # KeyError ',': tables separated by a comma
    ("SELECT singer.name, concert.year FROM singer, concert", ","),
    # KeyError '(': a subquery after JOIN
    ("SELECT T1.name FROM singer AS T1 JOIN (SELECT singer_id FROM concert) AS T2 ON T1.singer_id = T2.singer_id", "("),
    # "Error col: null" / "not": IS NULL, IS NOT NULL
    ("SELECT name FROM singer WHERE age IS NULL", "null"),
    ("SELECT name FROM singer WHERE age IS NOT NULL", "not"),
    # "Error col: exists", "any", "select": no EXISTS, ANY, or a subquery as an ORDER BY key
    (
        "SELECT name FROM singer WHERE EXISTS (SELECT 1 FROM concert WHERE concert.singer_id = singer.singer_id)",
        "exists",
    ),
    ("SELECT name FROM singer WHERE age < ANY (SELECT age FROM singer WHERE country = 'France')", "any"),
    ("SELECT name FROM singer ORDER BY (SELECT count(*) FROM concert) ASC LIMIT 1", "select"),
    # parse_val_unit: a condition in parentheses
    ("SELECT name FROM singer WHERE (age > 30 AND country = 'France')", ">"),
    ("SELECT name FROM singer WHERE age > 30 AND (country = 'France' OR country = 'Spain')", "="),
    # parse_col_unit: an aggregate as a compared value
    ("SELECT country FROM singer GROUP BY country HAVING age = MAX(age)", ""),
    # KeyError 'hiring.': a star after a table's name
    ("SELECT singer.* FROM singer", "singer."),
    # "Error col: [": a bracketed placeholder
    ("SELECT name FROM singer WHERE age = [age]", "["),
    # KeyError 'cars_data.make' and "Error col: makeid": a column the table does not have
    ("SELECT T1.nme FROM singer AS T1", "t1.nme"),
    ("SELECT nme FROM singer", "nme"),
    ("SELECT name FROM singer WHERE singer_id IN (SELECT name FROM concert)", "name"),
]

READABLE = [
    "SELECT count(*) FROM singer",
    "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = 2014",
    "SELECT count(DISTINCT country) FROM singer",
    "SELECT DISTINCT country FROM singer WHERE age > 20",
    "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)",
    "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert)",
    "SELECT name FROM singer WHERE age BETWEEN 30 AND 40",
    "SELECT name FROM singer ORDER BY age DESC LIMIT 3",
    "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) > 1",
    "SELECT name FROM singer INTERSECT SELECT concert_name FROM concert",
    "SELECT name FROM singer WHERE name LIKE '%a%' AND country != \"France\"",
    "SELECT name FROM singer WHERE age >= 30 OR age <= 20;",
    "SELECT avg(age), max(age) FROM singer WHERE country = 'France'",
    "SELECT name FROM singer\tWHERE\tage > 30\r",
]


@pytest.mark.parametrize(("sql", "token"), UNREADABLE)
def test_each_form_the_official_script_fails_on_is_unreadable_where_it_stops(sql, token):
    stop = unreadable(sql, COLUMNS)
    assert stop is not None and stop.token == token and stop.why


@pytest.mark.parametrize("sql", READABLE)
def test_the_forms_it_reads_stay_readable(sql):
    assert unreadable(sql, COLUMNS) is None


def test_the_notes_say_why_in_words_a_user_can_act_on():
    def why(sql: str) -> str:
        stop = unreadable(sql, COLUMNS)
        assert stop is not None
        return stop.why

    assert "JOIN alone" in why(UNREADABLE[0][0])
    assert "alias with AS in SELECT" in why(UNREADABLE[2][0])
    assert "IN (a, b)" in why(UNREADABLE[4][0])
    assert "!=" in why(UNREADABLE[6][0])
    assert "a table alias needs AS" in why(UNREADABLE[10][0])
    assert "IS NULL" in why(UNREADABLE[14][0])
    assert "the table singer has no column nme" in why("SELECT T1.nme FROM singer AS T1")
    assert "an alias after a FROM subquery" in why("SELECT x.name FROM (SELECT name FROM singer) AS x")


def test_a_prediction_is_read_with_value_replaced_as_the_script_reads_it():
    """evaluation.py replaces every ``value`` in a prediction by ``1`` before parsing; the gold as written."""
    assert unreadable("SELECT value FROM singer", COLUMNS, prediction=False) is None
    stop = unreadable("SELECT value FROM singer", COLUMNS)
    assert stop is not None and stop.token == "1"


def test_aliases_and_quotes_the_tokenizer_refuses():
    assert unreadable("SELECT name FROM singer WHERE name = 'O'Brien'", COLUMNS) is not None  # an odd quote
    assert unreadable("SELECT name FROM concert AS singer", COLUMNS) is not None  # an alias named like a table
    assert unreadable("SELECT name FROM singer AS", COLUMNS) is not None


def test_tokens_split_as_nltk_word_tokenize_splits_them():
    assert tokens("SELECT a FROM t WHERE b >= 1 AND c != 'X y' AND d <> 2") == [
        *("select", "a", "from", "t", "where", "b", ">=", "1", "and", "c", "!=", '"X y"', "and", "d", "<", ">", "2"),
    ]
    assert tokens("SELECT count(*) FROM t WHERE x IN (9,10) AND y=z") == [
        *("select", "count", "(", "*", ")", "from", "t", "where", "x", "in", "(", "9,10", ")", "and", "y=z"),
    ]
    assert tokens("SELECT t.* FROM `t`;") == ["select", "t.", "*", "from", "`", "t", "`", ";"]
    assert tokens("SELECT a,b FROM t.") == ["select", "a", ",", "b", "from", "t", "."]
    assert tokens("SELECT cannot FROM t") == ["select", "can", "not", "from", "t"]


@needs_spider.mark
def test_on_the_shared_sets_the_reader_fails_exactly_where_the_official_script_failed():
    """Every shared prediction against the official per-pair file's ``error`` (its parser's failure), and every
    dev reference readable (the script reads them all), each over its database's own tables and columns."""
    spider = needs_spider.SPIDER
    assert spider is not None
    dev = json.loads(spider.questions.read_text(encoding="utf-8"))
    schemas: dict[str, dict[str, tuple[str, ...]] | None] = {}
    for q in dev:
        db = q["db_id"]
        if db not in schemas:
            schemas[db] = _columns(spider.databases / db / f"{db}.sqlite")
    gold = [(i, q["query"]) for i, q in enumerate(dev) if schemas[q["db_id"]] is not None]
    assert len(gold) == 972
    assert [(i, str(stop)) for i, sql in gold if (stop := unreadable(sql, schemas[dev[i]["db_id"]] or {}, False))] == []
    lines = {
        name: spider.predictions(name).read_text(encoding="utf-8").split("\n") for name in spider.prediction_sets()
    }
    disagree, failed = [], 0
    for (name, i), row in spider.published("official_exact_match.jsonl").items():
        stop = unreadable(lines[name][i], schemas[dev[i]["db_id"]] or {})
        failed += row["error"] is not None
        if (stop is None) != (row["error"] is None):
            disagree.append((name, i, row["error"], str(stop)))
    assert disagree == [] and failed > 200  # the file's failures, every one found, and no other


def _columns(path: Path) -> dict[str, tuple[str, ...]] | None:
    """A database's tables and columns, lower-case, as the script's ``get_schema`` reads them."""
    if not path.is_file():
        return None
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t.lower(): tuple(r[1].lower() for r in db.execute(f'PRAGMA table_info("{t}")')) for t in tables}
