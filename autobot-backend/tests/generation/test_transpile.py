"""SQL written with SQLite's meaning keeps it on another engine, and the generator is told the engine's dialect."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from eval.sql.engines.setup import DuckDBHost
from eval.sql.fixtures.seeded import FIXTURES, write
from services.generation.protocol import Generation
from services.generation.transpile import from_sqlite, render_as_sqlite_means
from services.nl_database_service import NLDatabaseService
from services.schema_context import SchemaContext

# Integer division of integers, a division by zero, and a division that is not of integers.
SQLITE = "SELECT (CAST('11' AS INTEGER) + 2) / 3, 7 / 0, 7.0 / 2, -7 / 2"
EXPECTED = [(4, None, 3.5, -3)]


def test_sqlites_division_means_the_same_on_duckdb():
    assert sqlite3.connect(":memory:").execute(SQLITE).fetchall() == EXPECTED
    plain = duckdb.connect().execute(SQLITE).fetchall()
    assert plain != EXPECTED  # DuckDB's own / divides exactly: the same text is another answer there
    assert duckdb.connect().execute(from_sqlite(SQLITE, "duckdb")).fetchall() == EXPECTED


def test_a_tree_built_with_sqlites_meaning_renders_it_on_duckdb():
    # As the built-in generator builds them: parts read from SQLite text, and parts built in code.
    read = sqlglot.parse_one("SELECT (CAST('11' AS INTEGER) + 2) / 3, 7 / 0", read="sqlite")
    built = exp.Div(this=exp.Literal.number(7), expression=exp.Literal.number(2))  # no SQLite mark: exact
    tree = read.select(built)
    on_sqlite = render_as_sqlite_means(tree, "sqlite")
    assert on_sqlite == "SELECT (CAST('11' AS INTEGER) + 2) / 3, 7 / 0, CAST(7 AS REAL) / 2"
    assert sqlite3.connect(":memory:").execute(on_sqlite).fetchall() == [(4, None, 3.5)]
    assert duckdb.connect().execute(render_as_sqlite_means(tree, "duckdb")).fetchall() == [(4, None, 3.5)]
    assert tree.sql("sqlite") == on_sqlite  # the caller's tree is left as it was


class _Listening:
    """A generator that remembers the dialect it was told, and answers SELECT 1."""

    name = model = "listening"

    def __init__(self) -> None:
        self.told: list[str] = []

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        self.told.append(schema.dialect)
        return Generation(sql="SELECT 1")


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_the_service_tells_the_generator_the_engines_dialect(engine, tmp_path: Path):
    if engine == "duckdb":
        url = DuckDBHost(tmp_path).build_rotations(FIXTURES["retail"], 0, 1)[0]
    else:
        url = write(tmp_path / "r.db", "retail", 0)
    generator = _Listening()
    with NLDatabaseService(generator) as service:
        answer = service.answer("How many orders are there?", url)
    assert answer.status == "ok" and generator.told == [engine]
