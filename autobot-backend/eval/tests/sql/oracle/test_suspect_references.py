"""Suspect references (issue 25 point 5): each check on a real SQLite file (DuckDB for the literal probe),
right shapes left alone, the run's shared parse untouched and a repeated reference probed once per database.

Where a suspect reference is reported (the self-check, every output of a run with its untrusted literal
escaped, the bench import and the corpus check) is ``test_suspect_reports.py``."""

from __future__ import annotations

import duckdb
import pytest

from eval.sql.oracle.suspect import (
    JOIN_WITHOUT_CONDITION,
    UNGROUPED_COLUMN,
    UNMATCHED_LITERAL,
    SuspectCheck,
)
from eval.tests.sql.oracle._helpers import build_world
from services.readonly.execute import ReadOnlySQL


@pytest.fixture
def world(tmp_path):
    url = build_world(tmp_path / "world.sqlite")
    with ReadOnlySQL() as database:
        check = SuspectCheck(database)
        yield lambda sql: check.query(sql, url, "sqlite")


def kinds(found: list[tuple[str, str]]) -> list[str]:
    return [kind for kind, _ in found]


@pytest.mark.parametrize(
    ("sql", "literal", "near"),
    [
        ("SELECT name FROM country WHERE continent = 'north america'", "'north america'", "'North America'"),
        ("SELECT name FROM country WHERE 'europe ' = continent", "'europe '", "'Europe'"),
        ("SELECT name FROM country WHERE continent IN ('Asia', 'europe')", "'europe'", "'Europe'"),
        ("SELECT name FROM country WHERE continent = 'North'", "'North'", "'North America'"),
        # Spider's gold writes strings in double quotes, which SQLite reads as a string when no column has the name
        ('SELECT name FROM country WHERE continent = "north america"', "'north america'", "'North America'"),
        (
            "SELECT T2.name FROM city AS T2 JOIN country AS T1 ON T1.code = T2.country_code WHERE T1.name = 'france'",
            "'france'",
            "'France'",
        ),
        (
            "SELECT name FROM city WHERE country_code IN (SELECT code FROM country WHERE continent = 'asia')",
            "'asia'",
            "'Asia'",
        ),
    ],
)
def test_a_literal_no_value_matches_while_a_near_one_does_is_flagged_naming_both(world, sql, literal, near):
    [(kind, detail)] = world(sql)
    assert kind == UNMATCHED_LITERAL
    assert literal in detail and near in detail and "country." in detail


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM country WHERE continent = 'North America'",  # matches exactly
        "SELECT name FROM country WHERE continent = 'Antarctica'",  # nothing near: not the reference's typo
        "SELECT name FROM country WHERE continent IN ('Asia', 'Europe')",
        "SELECT name FROM country WHERE continent LIKE 'north%'",  # SQLite's LIKE ignores case: it matches
        "SELECT name FROM country WHERE code = 'NL'",
        'SELECT name FROM country WHERE continent = "North America"',
        'SELECT code FROM country WHERE "name" = "Japan"',
    ],
)
def test_a_literal_that_matches_or_has_nothing_near_is_fine(world, sql):
    assert world(sql) == []


def test_a_finding_says_which_comparison_it_read(world):
    [(_, detail)] = world("SELECT name FROM country WHERE continent IN ('Asia', 'europe')")
    assert detail.startswith("country.continent IN (...): 'europe' matches no stored value, but 'Europe' does")
    [(_, detail)] = world("SELECT name FROM country WHERE continent = 'north america'")
    assert detail.startswith("country.continent = 'north america' matches no stored value, but 'North America'")


def test_a_like_pattern_matching_nothing_with_a_near_value_is_flagged(world):
    [(kind, detail)] = world("SELECT name FROM country WHERE continent LIKE 'Eur'")
    assert kind == UNMATCHED_LITERAL and "LIKE 'Eur'" in detail and "'Europe'" in detail


def test_a_literal_probe_reads_a_duckdb_file_too(tmp_path):
    path = tmp_path / "world.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT, continent TEXT)")
    conn.execute("INSERT INTO country VALUES ('NL', 'Netherlands', 'Europe'), ('JP', 'Japan', 'Asia')")
    conn.close()
    url = f"duckdb:///{path}"
    with ReadOnlySQL() as database:
        check = SuspectCheck(database)
        [(kind, detail)] = check.query("SELECT name FROM country WHERE continent = 'europe'", url, "duckdb")
        assert kind == UNMATCHED_LITERAL and "'Europe'" in detail
        assert check.query("SELECT name FROM country WHERE continent = 'Europe'", url, "duckdb") == []


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT T1.name FROM country AS T1 JOIN city AS T2 WHERE T2.population > 2",
        "SELECT country.name FROM country, city WHERE city.population > 2",
        "SELECT country.name FROM country CROSS JOIN city",
        "SELECT country.name FROM country, city, city AS c2 WHERE country.code = city.country_code",
    ],
)
def test_a_join_without_condition_is_flagged_naming_both_tables(world, sql):
    [(kind, detail)] = world(sql)
    assert kind == JOIN_WITHOUT_CONDITION and "`city`" in detail and "`country`" in detail


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT T1.name FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code",
        "SELECT T1.name FROM country AS T1, city AS T2 WHERE T1.code = T2.country_code AND T2.population > 2",
        "SELECT name FROM country JOIN city USING (name)",
        "SELECT name FROM country, (SELECT AVG(population) AS a FROM city) AS s WHERE population > s.a",
        "SELECT country.name FROM country, city, (SELECT MAX(id) AS m FROM city) AS x WHERE country.code = "
        "city.country_code AND city.id = x.m",
        # a table function reads the row it is joined to
        "SELECT j.value FROM country, json_each('[1, 2]') AS j",
    ],
)
def test_a_join_with_a_condition_or_a_single_row_source_is_fine(world, sql):
    assert world(sql) == []


@pytest.mark.parametrize(
    ("sql", "column"),
    [
        ("SELECT continent, name FROM country GROUP BY continent", "country.name"),
        ("SELECT name, COUNT(*) FROM country", "country.name"),
        (
            "SELECT T2.name, COUNT(*) FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code GROUP BY T1.code",
            "city.name",
        ),
        ("SELECT continent, COUNT(*) FROM country GROUP BY continent ORDER BY population", "country.population"),
    ],
)
def test_a_column_neither_grouped_nor_aggregated_is_flagged_by_name(world, sql, column):
    [(kind, detail)] = world(sql)
    assert kind == UNGROUPED_COLUMN and f"`{column}`" in detail


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT continent, COUNT(*) FROM country GROUP BY continent",
        # grouped by the primary key: one name per group
        "SELECT T1.name, COUNT(*) FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code GROUP BY T1.code",
        # grouped by a column the join makes equal to the primary key (Spider's usual shape)
        "SELECT T1.name FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code GROUP BY T2.country_code "
        "ORDER BY COUNT(*) DESC LIMIT 1",
        "SELECT T1.name, COUNT(*) FROM country AS T1, city AS T2 WHERE T2.country_code = T1.code GROUP BY "
        "T2.country_code",
        "SELECT continent AS c, COUNT(*) FROM country GROUP BY c ORDER BY c",
        "SELECT continent, COUNT(*) FROM country GROUP BY 1 ORDER BY COUNT(*) DESC",
        "SELECT SUBSTR(name, 1, 1), COUNT(*) FROM country GROUP BY SUBSTR(name, 1, 1)",
        # SQLite's documented rule: the bare column comes from the row of the one MAX
        "SELECT name, MAX(population) FROM country",
    ],
)
def test_grouped_aggregated_and_functionally_dependent_columns_are_fine(world, sql):
    assert world(sql) == []


def test_without_the_schema_a_grouped_key_is_given_the_benefit_of_the_doubt(tmp_path):
    """A database that cannot say its schema (no primary keys known): a column beside a grouped one may depend
    on it, so it is not flagged; one in an aggregate without GROUP BY still is."""
    url = build_world(tmp_path / "world.sqlite")

    class Bare:  # runs SQL, says nothing of its schema
        def __init__(self, database: ReadOnlySQL) -> None:
            self.database = database

        def run_readonly(self, sql: str, db_url: str):
            return self.database.run_readonly(sql, db_url)

        def dialect(self, db_url: str) -> str:
            return self.database.dialect(db_url)

    with ReadOnlySQL() as database:
        check = SuspectCheck(Bare(database))
        assert check.query("SELECT name, COUNT(*) FROM country GROUP BY code", url, "sqlite") == []
        assert kinds(check.query("SELECT name, COUNT(*) FROM country", url, "sqlite")) == [UNGROUPED_COLUMN]


def test_reading_a_query_leaves_the_runs_shared_parse_as_it_was():
    """The reader starts from the run's one parse and changes its own copy (a double-quoted word becomes a
    string): the shared tree, which the guard and the lints read after it, is the parser's still."""
    from sqlglot import exp

    from eval.sql.oracle.suspect_shapes import read
    from services.readonly.parsed import statement_tree

    sql = 'SELECT COUNT(*) FROM orders WHERE status = "completed"'
    shared = statement_tree(sql, "sqlite")
    before = shared.sql()
    assert read(sql, "sqlite", {"orders": {"status": "TEXT"}}) is not None
    assert statement_tree(sql, "sqlite") is shared
    assert shared.sql() == before
    assert isinstance(shared.find(exp.EQ).expression, exp.Column)  # the parser's reading: an identifier


def test_a_repeated_reference_is_read_and_probed_once_per_database(tmp_path):
    """Paraphrased questions share a reference: the second asks nothing of the database and gets the
    first's findings; on another database it is probed again."""
    first, second = build_world(tmp_path / "a.sqlite"), build_world(tmp_path / "b.sqlite")
    sql = "SELECT name FROM country WHERE continent = 'north america'"

    class Counted:  # the real database, each statement it is asked to run counted
        def __init__(self, database: ReadOnlySQL) -> None:
            self.database, self.asked = database, 0

        def run_readonly(self, sql: str, db_url: str, **kw: object):  # type: ignore[no-untyped-def]
            self.asked += 1
            return self.database.run_readonly(sql, db_url, **kw)

        def dialect(self, db_url: str) -> str:
            return self.database.dialect(db_url)

        def structure(self, db_url: str):  # type: ignore[no-untyped-def]
            return self.database.structure(db_url)

    with ReadOnlySQL() as database:
        counted = Counted(database)
        check = SuspectCheck(counted)
        found = check.query(sql, first, "sqlite")
        probes = counted.asked
        assert kinds(found) == [UNMATCHED_LITERAL] and probes >= 2
        assert check.query(sql, first, "sqlite") == found
        assert counted.asked == probes  # nothing asked again
        assert check.query(sql, second, "sqlite") == found
        assert counted.asked == 2 * probes  # another database is probed
