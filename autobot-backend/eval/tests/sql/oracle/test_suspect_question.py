"""Suspect references that compare the reference with its question (issue 34 point 6): ``narrow_literal`` and
``output_columns``, each both ways on a real SQLite file (and the literal probe on DuckDB, whose SQL differs);
and ``ungrouped_column`` following primary and UNIQUE keys, and the data, before it flags."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
import pytest
import yaml

from eval.run import main as run_main
from eval.sql.oracle.suspect import NARROW_LITERAL, OUTPUT_COLUMNS, UNGROUPED_COLUMN, SuspectCheck
from services.readonly.execute import Execution, ReadOnlySQL

NATIONS = [
    "CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT, Continent TEXT, Population INTEGER, SurfaceArea REAL,"
    " IndepYear INTEGER, GovernmentForm TEXT, Language TEXT)",
    "INSERT INTO country VALUES"
    " ('FR', 'France', 'Europe', 67, 551.0, 843, 'Republic', 'French'),"
    " ('DE', 'Germany', 'Europe', 83, 357.0, 1955, 'Federal Republic', 'German'),"
    " ('IR', 'Iran', 'Asia', 85, 1648.0, 1906, 'Islamic Republic', 'Persian'),"
    " ('NL', 'Netherlands', 'Europe', 17, 41.5, 1581, 'Constitutional Monarchy', 'Dutch'),"
    " ('SA', 'Saudi Arabia', 'Asia', 35, 2149.0, 1932, 'Monarchy', 'Arabic'),"
    " ('CM', 'Cameroon', 'Africa', 27, 475.0, 1960, 'Republic', 'English'),"
    " ('MY', 'Malaysia', 'Asia', 33, 330.0, 1957, 'Constitutional Monarchy', 'Malay-English'),"
    " ('OM', 'Oman', 'Asia', 5, 309.5, 1951, 'Monarchy', 'Arabic')",
    "CREATE TABLE museum (Museum_ID INTEGER PRIMARY KEY, Name TEXT, Num_of_Staff INTEGER, Open_Year TEXT)",
    "INSERT INTO museum VALUES (1, 'Plaza Museum', 62, '2000'), (2, 'Capital Plaza Museum', 25, '2012')",
    "CREATE TABLE owner (owner_id INTEGER PRIMARY KEY, name TEXT, email TEXT UNIQUE, city TEXT)",
    "INSERT INTO owner VALUES (1, 'Ann', 'ann@x', 'Paris'), (2, 'Bob', 'bob@x', 'Paris'), (3, 'Cy', 'cy@x', 'Rome')",
    "CREATE TABLE dog (dog_id INTEGER PRIMARY KEY, owner_id INTEGER, name TEXT, age INTEGER)",
    "INSERT INTO dog VALUES (1, 1, 'Rex', 3), (2, 1, 'Fido', 5), (3, 2, 'Max', 2), (4, 3, 'Bo', 9)",
]


def build(path: Path) -> str:
    db = sqlite3.connect(path)
    for statement in NATIONS:
        db.execute(statement)
    db.commit()
    db.close()
    return f"sqlite:///{path}"


class Counting:
    """The read-only path, counting the statements the checks send (schema reads are not statements)."""

    def __init__(self, database: ReadOnlySQL) -> None:
        self.database = database
        self.sent: list[str] = []

    def run_readonly(self, sql: str, db_url: str, *, fresh: bool = False, reference: bool = False) -> Execution:
        self.sent.append(sql)
        return self.database.run_readonly(sql, db_url)

    def dialect(self, db_url: str) -> str:
        return self.database.dialect(db_url)

    def structure(self, db_url: str) -> list:
        return self.database.structure(db_url)

    def unique_keys(self, db_url: str) -> dict:
        return self.database.unique_keys(db_url)


@pytest.fixture
def nations(tmp_path):
    url = build(tmp_path / "nations.sqlite")
    with ReadOnlySQL() as database:
        counting = Counting(database)
        check = SuspectCheck(counting)

        def ask(question: str, sql: str, kind: str | None = None) -> list[str]:
            return [d for k, d in check.query(sql, url, "sqlite", question=question) if kind is None or k == kind]

        ask.sent = counting.sent  # type: ignore[attr-defined]
        yield ask


# --- narrow_literal -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "sql", "word"),
    [
        (
            "How many countries are republics?",
            "SELECT COUNT(*) FROM country WHERE GovernmentForm = 'Republic'",
            "'republics'",
        ),
        (
            "How many countries have a republic as their form of government?",
            'SELECT COUNT(*) FROM country WHERE GovernmentForm = "Republic"',
            "'republic'",
        ),
        (
            "Which countries are republics or in Asia?",
            "SELECT Name FROM country WHERE GovernmentForm IN ('Republic') OR Continent = 'Asia'",
            "'republics'",
        ),
    ],
)
def test_a_literal_one_of_several_values_the_questions_word_names_is_flagged(nations, question, sql, word):
    [detail] = nations(question, sql, NARROW_LITERAL)
    assert word in detail and "'Federal Republic'" in detail and "'Islamic Republic'" in detail
    assert "country.governmentform" in detail.lower() and "'Republic' matches one stored value" in detail
    assert "leaves out" in detail


def test_a_negated_narrow_literal_says_the_other_values_are_kept(nations):
    [detail] = nations(
        "Which countries are not republics?",
        "SELECT Name FROM country WHERE GovernmentForm != 'Republic'",
        NARROW_LITERAL,
    )
    assert detail.startswith("country.governmentform != 'Republic'") and detail.endswith("which the comparison keeps")


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        # the question quotes the value: it names it exactly
        (
            "Which countries have the government form 'Republic'?",
            "SELECT Name FROM country WHERE GovernmentForm = 'Republic'",
        ),
        # a capitalised singular is a name, not a class
        ("Which countries are a Republic?", "SELECT Name FROM country WHERE GovernmentForm = 'Republic'"),
        # a question that ignores case says nothing by it
        ("which countries have a republic government?", "SELECT Name FROM country WHERE GovernmentForm = 'Republic'"),
        # every value the word names is compared with
        (
            "Which countries are republics?",
            "SELECT Name FROM country WHERE GovernmentForm IN ('Republic', 'Federal Republic', 'Islamic Republic')",
        ),
        # the question names the wider value itself
        (
            "Which countries are federal republics?",
            "SELECT Name FROM country WHERE GovernmentForm = 'Federal Republic'",
        ),
        # one word for one thing (a hyphen), not a kind of English
        ("Which countries speak english?", "SELECT Name FROM country WHERE Language = 'English'"),
        # a value the column does not store is not narrow (nor near anything)
        ("Which countries are empires?", "SELECT Name FROM country WHERE GovernmentForm = 'Empire'"),
        # a value one row holds is a name, not a class ('Capital Plaza Museum' is another museum)
        ("How many plaza museums are there?", "SELECT COUNT(*) FROM museum WHERE Name = 'Plaza Museum'"),
    ],
)
def test_a_literal_the_question_names_exactly_or_alone_is_not_narrow(nations, question, sql):
    assert nations(question, sql, NARROW_LITERAL) == []


def test_the_narrow_probe_runs_only_when_the_question_uses_the_word_as_a_class(nations):
    sql = "SELECT Name FROM country WHERE GovernmentForm = 'Monarchy'"
    nations("Which countries are a Monarchy?", sql)
    assert len(nations.sent) == 1  # the exact probe the unmatched check needs anyway
    [detail] = nations("Which countries are monarchies?", sql, NARROW_LITERAL)
    assert "'Constitutional Monarchy'" in detail and len(nations.sent) == 2
    nations("Which states are monarchies?", sql)
    assert len(nations.sent) == 2  # the stored values were read once per (database, comparison)


def test_the_narrow_probe_reads_a_duckdb_file_too(tmp_path):
    path = tmp_path / "nations.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT, government_form TEXT)")
    conn.execute(
        "INSERT INTO country VALUES ('FR', 'France', 'Republic'), ('DE', 'Germany', 'Federal Republic'), "
        "('NL', 'Netherlands', 'Monarchy'), ('IT', 'Italy', 'Republic')"
    )
    conn.close()
    url = f"duckdb:///{path}"
    sql = "SELECT name FROM country WHERE government_form = 'Republic'"
    with ReadOnlySQL() as database:
        check = SuspectCheck(database)
        [(kind, detail)] = check.query(sql, url, "duckdb", question="Which countries are republics?")
        assert kind == NARROW_LITERAL and "'Federal Republic'" in detail
        assert check.query(sql, url, "duckdb", question="Which countries are a Republic?") == []


# --- output_columns -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "sql", "first", "second"),
    [
        (
            "What are the opening year and staff number of the museum named Plaza Museum?",
            "SELECT Num_of_Staff, Open_Year FROM museum WHERE Name = 'Plaza Museum'",
            "museum.Num_of_Staff",
            "museum.Open_Year",
        ),
        (
            "What are the name, independence year, and surface area of the country with the smallest population?",
            "SELECT Name, SurfaceArea, IndepYear FROM country ORDER BY Population LIMIT 1",
            "country.SurfaceArea",
            "country.IndepYear",
        ),
        (
            "What are the different continents and the total population of each?",
            "SELECT SUM(Population), Continent FROM country GROUP BY Continent",
            "SUM(country.Population)",
            "country.Continent",
        ),
    ],
)
def test_columns_returned_in_another_order_than_the_question_lists_them_are_flagged(
    nations, question, sql, first, second
):
    [detail] = nations(question, sql, OUTPUT_COLUMNS)
    assert f"returns `{first}`" in detail and f"before `{second}`" in detail


def test_a_listed_column_the_reference_does_not_return_is_flagged(nations):
    [detail] = nations(
        "List the name, population and continent of each country.",
        "SELECT Name, Population FROM country",
        OUTPUT_COLUMNS,
    )
    assert "asks for `country.Continent`" in detail and "does not return it" in detail


@pytest.mark.parametrize(
    ("question", "sql", "what"),
    [
        (
            "Return the codes of countries in Europe.",
            "SELECT Code, MAX(Population) FROM country WHERE Continent = 'Europe' GROUP BY Code",
            "`MAX(country.Population)`",
        ),
        (
            "Which continent has the most countries?",
            "SELECT Continent, COUNT(*) FROM country GROUP BY Continent ORDER BY COUNT(*) DESC LIMIT 1",
            "`COUNT(*)`",
        ),
    ],
)
def test_an_aggregate_no_word_of_the_question_asks_for_is_flagged(nations, question, sql, what):
    [detail] = nations(question, sql, OUTPUT_COLUMNS)
    assert what in detail and "the question says no" in detail


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        ("What are the name and population of France?", "SELECT Name, Population FROM country WHERE Code = 'FR'"),
        (
            "Show the names of countries in ascending order of population.",
            "SELECT Name FROM country ORDER BY Population",
        ),
        ("Countries per continent?", "SELECT Continent, COUNT(*) FROM country GROUP BY Continent"),
        (
            "How many people live in Asia, and what is the largest area?",
            "SELECT SUM(Population), MAX(SurfaceArea) FROM country WHERE Continent = 'Asia'",
        ),
        ("List every country and its code.", "SELECT * FROM country"),
        # two returned columns with the same words: which is which cannot be told
        (
            "What are the names of owners and dogs?",
            "SELECT T2.name, T1.name FROM owner AS T1 JOIN dog AS T2 ON T1.owner_id = T2.owner_id",
        ),
        # a filter's words are not a column the question asks for
        (
            "What is the name of the museum with staff number 62 and open year 2000?",
            "SELECT Name FROM museum WHERE Num_of_Staff = 62 AND Open_Year = '2000'",
        ),
        # a list that does not name every returned column is not the whole of what is asked
        ("What are the name and age of each dog?", "SELECT name, age, owner_id FROM dog"),
    ],
)
def test_columns_as_the_question_lists_them_or_unclear_are_fine(nations, question, sql):
    assert nations(question, sql, OUTPUT_COLUMNS) == []


def test_the_question_kinds_need_the_question(nations):
    sql = "SELECT Num_of_Staff, Open_Year FROM museum"
    assert nations("", sql) == []
    assert nations("What are the opening year and staff number of each museum?", sql)


# --- ungrouped_column and keys ------------------------------------------------------------------------------


def test_a_column_beside_a_group_that_repeats_in_the_data_is_flagged(nations):
    [detail] = nations("", "SELECT Name, COUNT(*) FROM country GROUP BY Continent", UNGROUPED_COLUMN)
    assert "`country.name`" in detail


@pytest.mark.parametrize(
    "sql",
    [
        # a UNIQUE column grouped: one owner per group, known from the schema
        "SELECT T1.name, COUNT(*) FROM owner AS T1 JOIN dog AS T2 ON T1.owner_id = T2.owner_id GROUP BY T1.email",
        # the primary key reached through the join's equality, then the owner's key through the dog's owner_id
        "SELECT T1.name, T2.name FROM dog AS T2 JOIN owner AS T1 ON T1.owner_id = T2.owner_id GROUP BY T2.dog_id "
        "HAVING COUNT(*) >= 1",
    ],
)
def test_a_grouped_key_determines_the_columns_of_its_table_without_asking_the_data(nations, sql):
    assert nations("", sql) == []
    assert nations.sent == []  # the schema said it: no probe


def test_a_grouped_column_each_of_whose_values_the_data_holds_once_determines_its_row(nations):
    """``name`` is not declared UNIQUE, but no name repeats: one owner per group on this database (one probe)."""
    sql = "SELECT T1.city, COUNT(*) FROM owner AS T1 JOIN dog AS T2 ON T1.owner_id = T2.owner_id GROUP BY T1.name"
    assert nations("", sql) == []
    assert len(nations.sent) == 1 and "HAVING COUNT(*) > 1" in nations.sent[0]
    # city repeats (Paris twice): grouped by it, an owner's name is any of two
    [detail] = nations("", "SELECT T1.name, COUNT(*) FROM owner AS T1 GROUP BY T1.city", UNGROUPED_COLUMN)
    assert "`owner.name`" in detail


def test_a_unique_key_is_read_from_duckdb_too(tmp_path):
    path = tmp_path / "owners.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE owner (owner_id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT)")
    conn.execute("INSERT INTO owner VALUES (1, 'a@x', 'Ann'), (2, 'b@x', 'Ann')")
    conn.close()
    url = f"duckdb:///{path}"
    with ReadOnlySQL() as database:
        counting = Counting(database)
        check = SuspectCheck(counting)
        assert check.query("SELECT name, COUNT(*) FROM owner GROUP BY email", url, "duckdb") == []
        assert counting.sent == []
        [(kind, _)] = check.query("SELECT email, COUNT(*) FROM owner GROUP BY name", url, "duckdb")
        assert kind == UNGROUPED_COLUMN


# --- in a run -------------------------------------------------------------------------------------------------


def test_the_question_kinds_are_graded_as_usual_and_shown_in_every_output(tmp_path, monkeypatch):
    """A run of the reference candidate: each new kind is in the JSON by name, beside a verdict it leaves alone,
    and in the Markdown, HTML and JUnit outputs; the question's own words (untrusted) are escaped."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    build(tmp_path / "n.sqlite")
    questions = [
        {
            "id": "rep",
            "question": "How many countries are republics <b>?",
            "shape": "scalar",
            "sql": "SELECT COUNT(*) FROM country WHERE GovernmentForm = 'Republic'",
        },
        {
            "id": "cols",
            "question": "What are the opening year and staff number of each museum?",
            "sql": "SELECT Num_of_Staff, Open_Year FROM museum",
        },
    ]
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    args = ["--suite", "sql", "--corpus", "mine.yaml", "--db-url", f"sqlite:///{tmp_path / 'n.sqlite'}"]
    args += ["--candidate", "reference", "--baseline-dir", "bl", "--json", "r.json", "--markdown", "r.md"]
    assert run_main([*args, "--html", "r.html", "--junit", "r.xml"]) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"rep": "pass", "cols": "pass"}
    assert [(s["question_id"], s["kind"]) for s in data["suspect_references"]] == [
        ("rep", NARROW_LITERAL),
        ("cols", OUTPUT_COLUMNS),
    ]
    md = (tmp_path / "r.md").read_text()
    assert "| **rep** | pass | narrow\\_literal |" in md and "| **cols** | pass | output\\_columns |" in md
    assert "suspect_reference.2" in (tmp_path / "r.xml").read_text()
    html = (tmp_path / "r.html").read_text()
    assert "narrow_literal" in html and "output_columns" in html and "<b>?" not in html
