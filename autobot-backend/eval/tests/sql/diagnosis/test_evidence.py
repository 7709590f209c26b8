"""The diagnosis, evidence first (issue 34): what the rows prove, what one edit of the candidate run on the
database proves, and the differences that are harmless on the schema, each a general rule on hand-written
pairs over a real SQLite file with keys, NOT NULL columns and foreign keys, diagnosed through the grader's own
path (:func:`eval.sql.grading.diagnosed.of_wrong`: the catalog read from the database, edits run read-only
and judged by the grader's comparison)."""

from __future__ import annotations

import sqlite3

import pytest

from eval.sql.corpus.questions import Question
from eval.sql.diagnosis import diagnose_error
from eval.sql.grading import diagnosed
from eval.sql.grading.grade import as_graded
from eval.sql.model.diagnosis import Category, Diagnosis
from services.readonly.execute import Execution, ReadOnlySQL

SCHEMA = """
CREATE TABLE countries (country_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, continent TEXT NOT NULL);
CREATE TABLE makers (maker_id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, country_id INTEGER NOT NULL
    REFERENCES countries (country_id));
CREATE TABLE models (model_id INTEGER PRIMARY KEY, maker_id INTEGER NOT NULL REFERENCES makers (maker_id),
    model TEXT NOT NULL, weight INTEGER);
"""
COUNTRIES = [(1, "France", "Europe"), (2, "Japan", "Asia"), (3, "Angola", "Africa"), (4, "Italy", "Europe")]
MAKERS = [(10, "Peugeot", 1), (11, "Renault", 1), (12, "Toyota", 2), (13, "Honda", 2), (14, "Fiat", 4)]
MODELS = [
    (100, 10, "208", 1100),
    (101, 10, "3008", 1500),
    (102, 11, "clio", 1050),
    (103, 12, "corolla", 1300),
    (104, 12, "yaris", 1000),
    (105, 13, "civic", 1250),
    (106, 14, "panda", 900),
    (107, 12, "prius", 1350),
]


@pytest.fixture(scope="module")
def cars(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("evidence") / "cars.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(SCHEMA)
        con.executemany("INSERT INTO countries VALUES (?, ?, ?)", COUNTRIES)
        con.executemany("INSERT INTO makers VALUES (?, ?, ?)", MAKERS)
        con.executemany("INSERT INTO models VALUES (?, ?, ?, ?)", MODELS)
    return f"sqlite:///{path}"


@pytest.fixture(scope="module")
def database() -> ReadOnlySQL:
    sql = ReadOnlySQL()
    yield sql
    sql.close()


def why(database: ReadOnlySQL, url: str, candidate: str, reference: str, *, ordered: bool = False) -> Diagnosis:
    """``candidate`` diagnosed against ``reference`` as the grader diagnoses a wrong answer."""
    q = Question(id="q", question="?", sql=reference, ordered=ordered)
    ref, got = database.run_readonly(reference, url), database.run_readonly(candidate, url)
    assert ref.ok and got.ok, (ref.reason, got.reason)
    assert not as_graded(q, ref, got, None).match, "the pair must be a wrong answer"

    def right(done: Execution) -> bool:
        return done.ok and as_graded(q, ref, done, None).match

    found = diagnosed.of_wrong(q, candidate, ref, got, "sqlite", database=database, url=url, judge=right)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("candidate", "reference", "primary", "harmless"),
    [
        pytest.param(
            # An extra GROUP BY key the grouped primary key determines, and a wrong literal: the literal decides.
            "SELECT countries.name, COUNT(*) FROM countries JOIN makers ON makers.country_id = countries.country_id "
            "WHERE countries.continent = 'Asia' GROUP BY countries.country_id, countries.name",
            "SELECT countries.name, COUNT(*) FROM countries JOIN makers ON makers.country_id = countries.country_id "
            "WHERE countries.continent = 'Europe' GROUP BY countries.country_id",
            Category.FILTER,
            "GROUP BY",
            id="group-key-the-key-determines",
        ),
        pytest.param(
            # The join key from the other side of the equality, and COUNT(col) on a NOT NULL column: no difference.
            "SELECT m.country_id, COUNT(m.full_name) FROM countries c JOIN makers m ON m.country_id = c.country_id "
            "WHERE c.continent = 'Asia' GROUP BY m.country_id",
            "SELECT c.country_id, COUNT(*) FROM countries c JOIN makers m ON m.country_id = c.country_id "
            "WHERE c.continent = 'Europe' GROUP BY c.country_id",
            Category.FILTER,
            None,
            id="join-equality-and-count-not-null",
        ),
        pytest.param(
            # ``>= 3`` is ``> 2`` on whole numbers; the real mistake is the table counted.
            "SELECT country_id FROM makers GROUP BY country_id HAVING COUNT(*) >= 2",
            "SELECT country_id FROM makers GROUP BY country_id HAVING COUNT(*) > 1 ORDER BY country_id LIMIT 1",
            Category.ORDERING,
            None,
            id="integer-bounds",
        ),
    ],
)
def test_a_harmless_difference_never_decides(database, cars, candidate, reference, primary, harmless):
    found = why(database, cars, candidate, reference)
    assert found.primary is primary, found
    if harmless:
        assert any(c[0] == f"{harmless} (harmless here)" for c in found.clauses), found.clauses
    assert Category.GROUPING not in found.tags and Category.AGGREGATION not in found.tags, found


def test_a_column_permutation_is_projection_whatever_else_differs(database, cars):
    """The rows prove it: the same values in another column order. The GROUP BY and the COUNT spelled otherwise
    change nothing, so they never decide."""
    found = why(
        database,
        cars,
        "SELECT COUNT(models.model_id), makers.full_name FROM makers JOIN models ON models.maker_id = makers.maker_id "
        "GROUP BY makers.maker_id, makers.full_name",
        "SELECT makers.full_name, COUNT(*) FROM makers JOIN models ON models.maker_id = makers.maker_id "
        "GROUP BY makers.maker_id",
    )
    assert found.primary is Category.PROJECTION, found
    assert found.line.startswith("the rows show it: the same values in another column order"), found.line


def test_a_subquery_for_a_join_is_no_mistake_the_literal_is(database, cars):
    """The candidate reaches the countries through IN (subquery), the reference through a join; the one real
    difference is the literal's case, which an edit taking the reference's literal proves."""
    found = why(
        database,
        cars,
        "SELECT full_name FROM makers WHERE country_id IN (SELECT country_id FROM countries WHERE name = 'france')",
        "SELECT m.full_name FROM makers m JOIN countries c ON c.country_id = m.country_id WHERE c.name = 'France'",
    )
    assert found.primary is Category.FILTER, found
    assert "makes the rows the reference's" in found.line, found.line
    assert Category.JOIN not in found.tags, found


def test_sqlite_reads_a_double_quoted_word_that_names_no_column_as_a_string(database, cars):
    """``name = "Angola"`` is ``name = 'Angola'`` (SQLite's rule): the only difference is the continent."""
    found = why(
        database,
        cars,
        "SELECT name FROM countries WHERE name = 'Angola' OR continent = 'Asia'",
        'SELECT name FROM countries WHERE name = "Angola" OR continent = "Europe"',
    )
    assert found.primary is Category.FILTER, found
    assert found.clauses[0][1] == "name = 'Angola' OR continent = 'Europe'", found.clauses  # a string, not a name


def test_an_answer_like_the_minimum_by_a_subquery_differs_by_its_column(database, cars):
    """``= (SELECT MIN(..))`` against ``ORDER BY .. LIMIT 1``: the rows agree where there is no tie, so the shape
    is harmless; taking the reference's SELECT list proves the mistake is the column."""
    found = why(
        database,
        cars,
        "SELECT model_id FROM models WHERE weight = (SELECT MIN(weight) FROM models)",
        "SELECT model FROM models ORDER BY weight LIMIT 1",
        ordered=True,
    )
    assert found.primary is Category.PROJECTION, found


def test_a_join_that_only_reaches_the_column_asked_for_goes_with_the_column(database, cars):
    """The candidate returns makers' ids; the reference joins makers to return their names. The join serves the
    SELECT change (a join on the makers' key adds no rows): ``projection``, not ``join``."""
    found = why(
        database,
        cars,
        "SELECT maker_id FROM models GROUP BY maker_id HAVING COUNT(*) > 1",
        "SELECT mk.full_name FROM makers mk JOIN models mo ON mo.maker_id = mk.maker_id GROUP BY mk.full_name "
        "HAVING COUNT(*) > 1",
    )
    assert found.primary is Category.PROJECTION, found


def test_a_join_condition_wrong_is_a_join_mistake(database, cars):
    """An ON condition between columns that an edit proves wrong is a join's, not a filter's."""
    found = why(
        database,
        cars,
        "SELECT COUNT(*) FROM models JOIN makers ON makers.maker_id = models.model_id",
        "SELECT COUNT(*) FROM models JOIN makers ON makers.maker_id = models.maker_id",
    )
    assert found.primary is Category.JOIN, found


def test_an_aggregate_left_over_is_aggregation_though_the_rows_show_a_column_extra(database, cars):
    found = why(
        database,
        cars,
        "SELECT maker_id, AVG(weight), AVG(maker_id) FROM models GROUP BY maker_id",
        "SELECT maker_id, AVG(weight) FROM models GROUP BY maker_id",
    )
    assert found.primary is Category.AGGREGATION, found


def test_a_prefix_without_a_limit_is_no_ordering_mistake(database, cars):
    """Rows cut at the end of the order by a condition, not by a LIMIT: the condition is the mistake."""
    found = why(
        database,
        cars,
        "SELECT model FROM models WHERE weight < 1200 ORDER BY weight",
        "SELECT model FROM models WHERE weight < 1400 ORDER BY weight",
        ordered=True,
    )
    assert found.primary is Category.FILTER, found


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("The database rejected the query: no such column: transcript_id", Category.SCHEMA),
        ("The database rejected the query: no such table: car", Category.SCHEMA),
        ("The database rejected the query: ambiguous column name: name", Category.SCHEMA),
        ('The database rejected the query: near "FROM": syntax error', Category.RUNTIME),
        ("read-only guard: Could not parse this as sqlite SQL (Expecting ))", Category.RUNTIME),
    ],
)
def test_an_error_is_schema_when_a_name_does_not_resolve(message, category):
    """A name the schema does not have, or one it cannot resolve to one column, is the wrong schema; every other
    failure to run is ``runtime``."""
    assert diagnose_error(message).primary is category


def test_without_the_database_the_diagnosis_still_reads_the_sql(database, cars):
    """No catalog and no probe (a report read back, a database gone): the SQL side alone still decides."""
    q = Question(id="q", question="?", sql="SELECT name FROM countries WHERE continent = 'Europe'")
    ref = database.run_readonly(q.sql or "", cars)
    got = database.run_readonly("SELECT name FROM countries WHERE continent = 'Asia'", cars)
    found = diagnosed.of_wrong(q, "SELECT name FROM countries WHERE continent = 'Asia'", ref, got, "sqlite")
    assert found is not None and found.primary is Category.FILTER


def test_the_edits_are_bounded(database, cars, monkeypatch):
    """However many differences, a diagnosis runs at most MAX_EDITS edited queries."""
    from eval.sql.diagnosis import _repair

    ran: list[str] = []
    real = database.run_readonly

    def counting(sql: str, url: str, **kw: object) -> Execution:
        ran.append(sql)
        return real(sql, url, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(database, "run_readonly", counting)
    why(
        database,
        cars,
        "SELECT c.name, m.full_name FROM countries c LEFT JOIN makers m ON m.country_id = c.country_id "
        "WHERE c.continent = 'Asia' AND c.name <> 'x' AND c.name <> 'y' ORDER BY 2 DESC LIMIT 3",
        "SELECT DISTINCT c.continent, COUNT(*) FROM countries c JOIN makers m ON m.country_id = c.country_id "
        "WHERE c.continent = 'Europe' AND c.name = 'z' GROUP BY c.continent HAVING COUNT(*) > 1 ORDER BY 1 LIMIT 1",
    )
    assert len(ran) - 2 <= _repair.MAX_EDITS  # the two runs of `why` itself, then the edits


def test_a_result_past_the_evidence_bound_is_diagnosed_from_its_sql_and_counts_alone(tmp_path, monkeypatch):
    """Issue 40: the rows and the edits of a diagnosis cost more than grading a large answer did. Past
    MAX_CELLS values the evidence is the row counts, and no edit runs (each would fetch as much again)."""
    from eval.sql.diagnosis import _results

    path = tmp_path / "big.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, qty INTEGER NOT NULL, day TEXT NOT NULL)")
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", ((i, i % 7, f"2024-01-{1 + i % 28:02d}") for i in range(300)))
    url = f"sqlite:///{path}"
    database = ReadOnlySQL()
    ran: list[str] = []
    real = database.run_readonly

    def counting(sql: str, url: str, **kw: object) -> Execution:
        ran.append(sql)
        return real(sql, url, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(database, "run_readonly", counting)
    candidate, reference = "SELECT id, qty + 1, day FROM t", "SELECT id, qty, day FROM t"
    small = why(database, url, candidate, reference)
    assert "makes the rows the reference's" in small.line and len(ran) > 2  # an edit ran and proved it
    ran.clear()
    monkeypatch.setattr(_results, "MAX_CELLS", 899)  # 300 rows x 3 columns: one value past the bound
    big = why(database, url, candidate, reference)
    assert len(ran) == 2 and big.primary is Category.PROJECTION  # `why`'s own two runs; the SELECT list decides
    assert "300 rows against the reference's 300, too many to read (over 899 values)" in big.line
    database.close()
