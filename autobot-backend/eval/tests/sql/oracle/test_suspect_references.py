"""Suspect references (issue 25 point 5): each check on a real SQLite file (DuckDB for the literal probe),
right shapes left alone, and a suspect reference shown apart and beside its verdict in every output, its
untrusted literal escaped, its question graded as usual."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import duckdb
import pytest
import yaml
from rich.console import Console

from eval.cli.bench_import import main as import_main
from eval.cli.check import main as check_main
from eval.run import main
from eval.sql.corpus.questions import load_corpus
from eval.sql.model import codec
from eval.sql.model.outcome import Verdict
from eval.sql.model.serialise import from_json
from eval.sql.oracle.selfcheck import run_self_check
from eval.sql.oracle.suspect import (
    JOIN_WITHOUT_CONDITION,
    LIMIT_TIE,
    NARROW_LITERAL,
    OUTPUT_COLUMNS,
    UNGROUPED_COLUMN,
    UNMATCHED_LITERAL,
    SuspectCheck,
    by_kind,
)
from eval.sql.render import ci_annotations, render_terminal, to_html, to_junit, to_markdown
from services.readonly.execute import ReadOnlySQL

WORLD = [
    "CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT, continent TEXT, population INTEGER)",
    "INSERT INTO country VALUES ('NL', 'Netherlands', 'Europe', 17), ('US', 'United States', 'North America', 330),"
    " ('CA', 'Canada', 'North America', 38), ('FR', 'France', 'Europe', 67), ('JP', 'Japan', 'Asia', 125)",
    "CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, country_code TEXT, population INTEGER)",
    "INSERT INTO city VALUES (1, 'Amsterdam', 'NL', 1), (2, 'Rotterdam', 'NL', 1), (3, 'New York', 'US', 8),"
    " (4, 'Toronto', 'CA', 3), (5, 'Paris', 'FR', 2), (6, 'Tokyo', 'JP', 14)",
]


def build_world(path: Path) -> str:
    db = sqlite3.connect(path)
    for statement in WORLD:
        db.execute(statement)
    db.commit()
    db.close()
    return f"sqlite:///{path}"


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


def test_the_self_check_flags_the_reference_and_alternatives_and_reuses_its_tie_lint(tmp_path):
    url = build_world(tmp_path / "world.sqlite")
    corpus_file = tmp_path / "mine.yaml"
    questions = [
        {
            "id": "w1",
            "question": "Countries of North America?",
            "sql": "SELECT name FROM country WHERE continent = 'North America'",
            "also": ["SELECT name FROM country WHERE continent = 'north america' OR code IN ('US', 'CA')"],
        },
        {
            "id": "w2",
            "question": "The smallest city?",
            "ordered": True,
            "sql": "SELECT name FROM city ORDER BY population LIMIT 1",
        },
        {
            "id": "w3",
            "question": "Countries per continent?",
            "sql": "SELECT continent, COUNT(*) FROM country GROUP BY continent",
        },
    ]
    corpus_file.write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    corpus = load_corpus([corpus_file], fixtures=None)
    with ReadOnlySQL() as database:
        result = run_self_check(database, corpus, {None: [url]}, lint_rotations=False, snapshot_dir=None)
    assert result.defects == []  # suspects are not defects: every question is graded
    [alt] = result.suspects["w1"]
    assert alt.kind == UNMATCHED_LITERAL and alt.detail.startswith("alternative 2 (also[0]): ")
    [tie] = result.suspects["w2"]
    assert tie.kind == LIMIT_TIE and "LIMIT 1 cuts inside a tie of 2 rows" in tie.detail
    assert "w3" not in result.suspects
    assert by_kind([*result.suspects["w1"], *result.suspects["w2"]]) == {
        UNMATCHED_LITERAL: 1,
        NARROW_LITERAL: 0,
        JOIN_WITHOUT_CONDITION: 0,
        UNGROUPED_COLUMN: 0,
        OUTPUT_COLUMNS: 0,
        LIMIT_TIE: 1,
    }


HOSTILE = "<script>alert(1)</script> | **x** %0A::error::"


@pytest.fixture
def graded(tmp_path, monkeypatch):
    """A run of the reference candidate on a database of one's own: one suspect reference whose literal is hostile."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    db = sqlite3.connect(tmp_path / "w.sqlite")
    for statement in WORLD:
        db.execute(statement)
    db.execute("INSERT INTO country VALUES ('XX', ?, 'Nowhere', 1)", (HOSTILE.upper(),))
    db.commit()
    db.close()
    questions = [
        {
            "id": "h1",
            "question": "The odd country?",
            "sql": f"SELECT code FROM country WHERE name = '{HOSTILE}' OR code = 'XX'",
        },
        {"id": "ok1", "question": "How many countries?", "shape": "scalar", "sql": "SELECT COUNT(*) FROM country"},
        # grouped by the primary key: fine only when the run's database says which column that is
        {
            "id": "ok2",
            "question": "Cities per country?",
            "sql": "SELECT T1.name, COUNT(*) FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code "
            "GROUP BY T1.code",
        },
    ]
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    code = main(
        [
            "--suite",
            "sql",
            "--corpus",
            "mine.yaml",
            "--db-url",
            f"sqlite:///{tmp_path / 'w.sqlite'}",
            "--candidate",
            "reference",
            "--baseline-dir",
            "bl",
            "--json",
            "r.json",
            "--markdown",
            "r.md",
            "--html",
            "r.html",
            "--junit",
            "r.xml",
        ]
    )
    assert code == 0
    return tmp_path


def test_a_suspect_reference_is_graded_and_shown_apart_in_every_output(graded):
    data = json.loads((graded / "r.json").read_text())
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"h1": "pass", "ok1": "pass", "ok2": "pass"}
    [finding] = data["suspect_references"]
    assert finding["question_id"] == "h1" and finding["kind"] == UNMATCHED_LITERAL and HOSTILE in finding["detail"]
    run = from_json(data)
    assert [codec.to_json(s) for s in run.suspect_references] == [finding]  # read back as written
    md = (graded / "r.md").read_text()
    assert (
        "## Suspect references (1 question(s), 1 finding(s))" in md and "| **h1** | pass | unmatched\\_literal |" in md
    )
    assert "<script>" not in md and "\\<script\\>" in md and "\\*\\*x\\*\\*" in md
    html = (graded / "r.html").read_text()
    assert 'id="suspect-references"' in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html
    card = html[html.index('id="q-h1"') :]
    card = card[: card.index("</section>")]
    assert ">suspect reference</span>" in card and "Suspect reference (graded as usual): unmatched_literal:" in card
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in card and "<script>alert" not in card
    other = html[html.index('id="q-ok1"') :]
    assert ">suspect reference</span>" not in other[: other.index("</section>")]
    junit = (graded / "r.xml").read_text()
    assert 'name="suspect_reference.1" value="h1 (pass): suspect reference, unmatched_literal:' in junit
    assert "&lt;script&gt;" in junit and "-- suspect reference (unmatched_literal):" in junit
    [notice] = [line for line in ci_annotations(run) if line.startswith("::notice")]
    assert notice.startswith("::notice title=SQL suspect reference%3A h1::h1 (pass)")
    assert "\n" not in notice and "%250A%3A%3Aerror" not in notice and "%250A::error::" in notice
    console = Console(record=True, width=200, force_terminal=False)
    render_terminal(run, console)
    shown = console.export_text()
    assert "Suspect references (1 question(s), 1 finding(s))" in shown and "unmatched_literal" in shown


def test_a_run_without_suspects_writes_no_suspect_key_or_section(graded):
    run = from_json(json.loads((graded / "r.json").read_text()))
    run.suspect_references = []
    assert "Suspect references" not in to_markdown(run) + to_html(run) + to_junit(run)
    assert not [line for line in ci_annotations(run) if line.startswith("::notice")]


def test_a_failing_question_carries_its_flag_beside_the_verdict(graded):
    run = from_json(json.loads((graded / "r.json").read_text()))
    run.outcomes = [
        dataclasses.replace(o, verdict=Verdict.WRONG, reason="value") if o.question_id == "h1" else o
        for o in run.outcomes
    ]
    md = to_markdown(run)
    assert "### h1: wrong (value)" in md and "Suspect reference (unmatched\\_literal):" in md
    assert '<a href="#q-h1">h1</a>' in to_html(run)
    console = Console(record=True, width=200, force_terminal=False)
    render_terminal(run, console)
    assert "wrong suspect reference" in console.export_text()


SPIDER_GOLD = [
    ("How many countries are in North America?", "SELECT COUNT(*) FROM country WHERE continent = 'north america'"),
    ("Name a country and a city.", "SELECT T1.name, T2.name FROM country AS T1 JOIN city AS T2"),
    ("Countries per continent, and one name?", "SELECT continent, name, COUNT(*) FROM country GROUP BY continent"),
    ("The smallest city?", "SELECT name FROM city ORDER BY population LIMIT 1"),
    ("How many cities?", "SELECT COUNT(*) FROM city"),
    (
        "Cities of Europe?",
        "SELECT T2.name FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code WHERE T1.continent = 'Europe'",
    ),
    ("The population and name of every country?", "SELECT name, population FROM country"),
]


@pytest.fixture
def spider_world(tmp_path, monkeypatch):
    """A Spider folder of its own: database/world_1/world_1.sqlite, dev.json, dev_gold.sql; one gold per kind."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    (tmp_path / "spider" / "database" / "world_1").mkdir(parents=True)
    build_world(tmp_path / "spider" / "database" / "world_1" / "world_1.sqlite")
    items = [{"db_id": "world_1", "question": text, "query": gold} for text, gold in SPIDER_GOLD]
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(items))
    (tmp_path / "spider" / "dev_gold.sql").write_text("".join(f"{gold}\tworld_1\n" for _, gold in SPIDER_GOLD))
    return tmp_path


def test_bench_import_prints_how_many_references_are_suspect_by_kind(spider_world, capsys):
    args = ["spider", "--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--out", "out"]
    assert import_main(args) == 0
    assert "references: checked when the corpus is graded" in capsys.readouterr().out  # by default, not at import
    code = import_main([*args, "--check-references"])
    assert code == 0
    out = capsys.readouterr().out
    assert (
        "suspect references: 5 of 7 question(s) (unmatched_literal 1, narrow_literal 0, join_without_condition 1, "
        "ungrouped_column 1, output_columns 1, limit_tie 1)"
    ) in out
    assert "python -m eval.sql.check" in out and "out/spider.yaml --db-dir" in out


def test_the_corpus_check_lists_suspect_references_without_failing_on_them(spider_world, capsys):
    assert (
        import_main(["spider", "--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--out", "out"]) == 0
    )
    capsys.readouterr()
    assert check_main(["out/spider.yaml", "--db-dir", "spider/database"]) == 0
    out = capsys.readouterr().out.splitlines()
    flagged = [line for line in out if "suspect reference (" in line]
    assert [line.split(": question ")[1].split(":")[0] for line in flagged] == [
        "'spider-0000'",
        "'spider-0001'",
        "'spider-0002'",
        "'spider-0003'",
        "'spider-0006'",
    ]
    assert flagged[0].startswith("out/spider.yaml:") and "(unmatched_literal)" in flagged[0]
    assert "(output_columns)" in flagged[-1]
    assert out[-1] == (
        "clean: 7 question(s) in 1 file(s); 5 suspect reference finding(s) above, graded as usual; every reference ran "
        "and passed the self-check; nothing was graded"
    )


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
