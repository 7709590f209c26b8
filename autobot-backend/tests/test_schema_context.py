"""What a generator is told about a database, read from the live database."""

import pytest
import sqlalchemy as sa

from services.schema_context import ENUM_LIMIT, EXAMPLES, inspect_schema, sqlite_column_comments


@pytest.mark.parametrize(
    "ddl, expected",
    [
        ("CREATE TABLE t (a INT /* first, of two */, b TEXT)", {"a": "first, of two"}),
        (
            "CREATE TABLE t (a INT NOT NULL /* it's 'quoted' (and nested) */, b TEXT /* b */)",
            {"a": "it's 'quoted' (and nested)", "b": "b"},
        ),
        ('CREATE TABLE t ("odd name" INT /* quoted identifier */)', {"odd name": "quoted identifier"}),
        (
            "CREATE TABLE t (a INT /* x */, PRIMARY KEY (a), FOREIGN KEY (a) REFERENCES u (id), CHECK (a > 0))",
            {"a": "x"},
        ),
        ("CREATE TABLE t (a INT, b TEXT)", {}),
        ("CREATE TABLE t (a NUMERIC(10, 2) /* money, with cents */)", {"a": "money, with cents"}),
    ],
    ids=["comma", "quotes-and-parens", "quoted-identifier", "table-constraints", "none", "type-with-comma"],
)
def test_sqlite_column_comments(ddl, expected):
    assert sqlite_column_comments(ddl) == expected


@pytest.fixture
def engine(tmp_path):
    md = sa.MetaData()
    sa.Table(
        "teams",
        md,
        sa.Column("team_id", sa.Integer, primary_key=True, comment="Team key"),
        sa.Column("league", sa.Text, nullable=False, comment="League, e.g. 'East, North'"),
    )
    sa.Table(
        "players",
        md,
        sa.Column("player_id", sa.Integer, primary_key=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.team_id"), comment="Team; NULL for free agents"),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("salary", sa.Numeric(10, 2)),
    )
    eng = sa.create_engine(f"sqlite:///{tmp_path / 'league.db'}")
    import services.schema_context  # noqa: F401  (the comment hook is registered on import)

    md.create_all(eng)
    with eng.begin() as c:
        c.execute(md.tables["teams"].insert(), [{"team_id": i, "league": ["East", "West"][i % 2]} for i in range(1, 5)])
        c.execute(
            md.tables["players"].insert(),
            [
                {
                    "player_id": i,
                    "team_id": (i % 4) + 1 if i % 7 else None,
                    "name": f"Player {i:03d}",
                    "salary": i * 1000.5,
                }
                for i in range(1, ENUM_LIMIT + 20)
            ],
        )
    yield eng
    eng.dispose()


def test_inspection_reads_tables_columns_keys_comments_and_values(engine):
    ctx = inspect_schema(engine)
    assert ctx.dialect == "sqlite" and [t.name for t in ctx.tables] == ["players", "teams"]
    teams, players = ctx.table("teams"), ctx.table("players")
    assert teams.column("team_id").primary_key and teams.column("team_id").comment == "Team key"
    league = teams.column("league")
    assert (league.values, league.values_complete, league.distinct_count) == (("East", "West"), True, 2)
    assert league.comment == "League, e.g. 'East, North'" and not league.nullable
    names = players.column("name")
    assert names.values_complete is False and len(names.values) == EXAMPLES
    assert players.column("salary").values == ()  # numbers are not sampled
    [fk] = players.foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (("team_id",), "teams", ("team_id",))
    assert players.row_count == ENUM_LIMIT + 19


def test_describe_is_deterministic_and_carries_what_a_prompt_needs(engine):
    text = inspect_schema(engine).describe()
    assert text == inspect_schema(engine).describe()
    assert (
        "TABLE teams" in text and "league TEXT NOT NULL  -- League, e.g. 'East, North' [values: 'East', 'West']" in text
    )
    assert "FOREIGN KEY (team_id) REFERENCES teams (team_id)" in text
    assert "[e.g. 'Player 001'" in text


def test_inspection_without_sampling_reads_no_rows(engine):
    ctx = inspect_schema(engine, sample_values=False)
    assert all(c.values == () for t in ctx.tables for c in t.columns)
    assert all(t.row_count is None for t in ctx.tables)
