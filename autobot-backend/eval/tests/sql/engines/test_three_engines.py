"""The same corpus on SQLite, PostgreSQL and DuckDB: ``--engine``, references in every dialect, and
the oracle agreeing with itself across engines.

PostgreSQL is the tests' own throwaway server (``postgres``: the fixtures go into a database of it
through ``--fixture-url``); DuckDB is a file of the test's. ``make test`` runs the cross-engine
self-check of the built-in corpus here.
"""

from __future__ import annotations

import json
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa

from eval.cli import selfcheck as selfcheck_cli
from eval.run import main
from eval.sql.corpus.dialects import TranspileError
from eval.sql.corpus.questions import load_corpus
from eval.sql.engines import pg_server
from eval.sql.gate.baseline import BaselineError, baseline_path, load_baseline
from eval.sql.model import codec
from eval.sql.model.outcome import summary
from eval.sql.oracle.crossengine import print_result, run_cross_engine

RETAIL = "FROM orders o JOIN order_items oi ON oi.order_id = o.order_id WHERE o.status = 'completed'"
QUARTER = "strftime('%Y', o.order_date) || '-Q' || ((CAST(strftime('%m', o.order_date) AS INTEGER) + 2) / 3)"

# Questions of our own over the retail fixture: revenue with cents, a quarter label built by integer
# division (DuckDB's / divides exactly), and a day count only SQLite spells julianday (overridden).
SMALL = f"""\
version: 1
fixture: retail
questions:
  - id: e-revenue
    question: What was the total revenue?
    shape: scalar
    sql: SELECT SUM(oi.quantity * oi.unit_price) {RETAIL}
  - id: e-quarters
    question: How many orders per quarter? Label quarters like 2024-Q4.
    ordered: true
    sql: SELECT {QUARTER} AS quarter, COUNT(*) FROM orders o GROUP BY quarter ORDER BY quarter
  - id: e-channels
    question: How many orders were placed in each channel?
    sql: SELECT channel, COUNT(*) FROM orders GROUP BY channel
  - id: e-days
    question: On average, how many days did shipping take?
    shape: scalar
    sql: SELECT AVG(julianday(shipped_date) - julianday(order_date)) FROM orders WHERE shipped_date IS NOT NULL
    sql_postgresql: SELECT AVG(shipped_date - order_date) FROM orders WHERE shipped_date IS NOT NULL
    sql_duckdb: SELECT AVG(shipped_date - order_date) FROM orders WHERE shipped_date IS NOT NULL
"""


@pytest.fixture(scope="module")
def pg_url(postgres) -> str:
    """A database of the tests' server the harness may create schemas in (``--fixture-url``)."""
    return postgres.create_database("engines").owner_url


def _eval_schemas(url: str) -> list[str]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(sa.text("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, 'eval_')"))
            return list(found.scalars())
    finally:
        engine.dispose()


def _corpus(tmp_path: Path, text: str = SMALL) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, dict]:
    monkeypatch.chdir(tmp_path)
    code = main(["--suite", "sql", "--json", "out.json", *args])
    out = tmp_path / "out.json"
    return code, (json.loads(out.read_text()) if out.exists() else {})


# --- the built-in corpus agrees with itself on every engine ---------------------------------


@pytest.mark.slow
def test_cross_engine_self_check_of_the_built_in_corpus_finds_no_disagreement(pg_url, capsys):
    code = selfcheck_cli.main(["--engines", "sqlite,postgresql,duckdb", "--fixture-url", pg_url])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.strip().splitlines()[-1] == (
        "self-check: 108 reference queries on 3 rotation(s) of retail, retail_24m on sqlite, postgresql, duckdb: "
        "ok (0 disagreements)"
    )
    assert _eval_schemas(pg_url) == []  # the PostgreSQL fixtures were dropped afterwards


# --- what a disagreement and an engine's own defect look like --------------------------------


def test_engines_that_disagree_are_named_with_the_first_difference(tmp_path, capsys):
    wrong = SMALL.replace(
        f"    sql: SELECT SUM(oi.quantity * oi.unit_price) {RETAIL}\n",
        f"    sql: SELECT SUM(oi.quantity * oi.unit_price) {RETAIL}\n"
        f"    sql_duckdb: SELECT SUM(oi.quantity * oi.unit_price) + 0.01 {RETAIL}\n",
    ).replace("    sql_duckdb: SELECT AVG(shipped_date - order_date) FROM orders WHERE shipped_date IS NOT NULL\n", "")
    corpus = load_corpus([_corpus(tmp_path, wrong)])
    result = run_cross_engine(corpus, ["sqlite", "duckdb"], rotations=2, snapshot_dir=None)
    # e-quarters agrees: its transpiled reference keeps SQLite's integer division on DuckDB.
    [found] = result.disagreements
    assert (found.question_id, found.engines, found.rotation) == ("e-revenue", ("sqlite", "duckdb"), 0)
    sqlite_value, duckdb_value = (result.checks[e].reference["e-revenue"][0].rows[0][0] for e in found.engines)
    assert duckdb_value == round(Decimal(sqlite_value), 2) + Decimal("0.01")  # SQLite sums money as floats
    assert found.reason == "value"
    # one value against one: "expected X, got Y", each at the question's 2 decimals (463186.1999999952 reads 463186.2)
    shown = f"{float(sqlite_value):.2f}".rstrip("0")
    assert found.detail == f"expected {shown}, got {duckdb_value}"
    # julianday without a DuckDB override fails there: DuckDB's own self-check defect, not a disagreement.
    [(engine, defect)] = result.defects
    assert (engine, defect.question_id, defect.kind) == ("duckdb", "e-days", "oracle: reference failed to run")
    assert "julianday" in defect.detail.lower()
    assert print_result(corpus, result, 2) == 2
    out = capsys.readouterr().out
    assert f"e-revenue: engines disagree: e-revenue: sqlite vs duckdb, rotation 1: value: expected {shown}, got" in out
    assert "[duckdb] e-days: oracle: reference failed to run" in out
    assert out.strip().endswith("on sqlite, duckdb: 1 defect(s), 1 disagreement(s)")


# --- --engine on the command line ------------------------------------------------------------


def test_duckdb_run_grades_there_and_keeps_its_own_baseline_and_record(tmp_path, monkeypatch, capsys):
    corpus = _corpus(tmp_path)
    base = ["--candidate", "reference", "--corpus", str(corpus), "--rotations", "2", "--baseline-dir", "baselines"]
    code, lite = _run(tmp_path, monkeypatch, *base, "--record-baseline")
    assert code == 0 and lite["run"]["engine"] == "sqlite"
    code, duck = _run(tmp_path, monkeypatch, *base, "--engine", "duckdb", "--record-baseline")
    assert code == 0, capsys.readouterr().err
    assert duck["run"]["engine"] == "duckdb" and duck["summary"]["pass"] == 4
    assert (
        duck["cohort"]["keys"]["engine"] == "duckdb" and duck["cohort"]["fingerprint"] != lite["cohort"]["fingerprint"]
    )
    assert sorted(p.name for p in (tmp_path / "baselines").iterdir()) == [
        "reference--reference--duckdb.json",
        "reference--reference.json",
    ]
    capsys.readouterr()
    code, gated = _run(
        tmp_path, monkeypatch, *base, "--engine", "duckdb", "--fail-on-regression", "--record-accuracy", "acc.md"
    )
    report = capsys.readouterr().out
    assert code == 0 and gated["baseline"]["path"].endswith("reference--reference--duckdb.json")
    assert "· engine duckdb ·" in report
    record = (tmp_path / "acc.md").read_text()
    assert "| reference | reference | duckdb | 2 |" in record


def test_postgresql_run_at_a_fixture_url_gives_the_built_in_generator_sqlites_verdicts(
    pg_url, tmp_path, monkeypatch, capsys
):
    corpus = _corpus(tmp_path)
    args = ["--corpus", str(corpus), "--rotations", "2"]
    code, lite = _run(tmp_path, monkeypatch, *args)
    assert code == 0
    code, pg = _run(tmp_path, monkeypatch, *args, "--engine", "postgresql", "--fixture-url", pg_url)
    assert code == 0, capsys.readouterr().err
    assert pg["run"]["engine"] == "postgresql"
    verdicts = {q["id"]: q["verdict"] for q in pg["questions"]}
    assert verdicts == {q["id"]: q["verdict"] for q in lite["questions"]}
    assert verdicts["e-quarters"] == "pass"
    sql = {q["id"]: q["sql"] for q in pg["questions"]}
    assert "TO_CHAR(" in sql["e-quarters"] and "STRFTIME" not in sql["e-quarters"].upper()  # PostgreSQL's dialect
    assert _eval_schemas(pg_url) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "oracle"], "unknown engine 'oracle'; choose one of sqlite, postgresql, duckdb, spark"),
        (["--engine", "duckdb", "--fixture-url", "postgresql://u@localhost/db"], "add --engine postgresql"),
        (["--fixture-url", "postgresql://u@localhost/db"], "add --engine postgresql"),
        (["--engine", "duckdb", "--db-url", "sqlite:///x.db"], "--db-url runs on your own database"),
        (["--engine", "postgresql", "--fixture-url", "sqlite:///x.db"], "not a PostgreSQL URL"),
    ],
    ids=["unknown", "fixture-url-for-duckdb", "fixture-url-without-engine", "engine-with-db-url", "not-postgres"],
)
def test_an_unusable_engine_choice_is_exit_2_before_anything_is_built(args, message, tmp_path, monkeypatch, capsys):
    code, _ = _run(tmp_path, monkeypatch, "--candidate", "reference", "--corpus", str(_corpus(tmp_path)), *args)
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_fixture_url_whose_role_cannot_create_schemas_is_exit_2(postgres, pg_url, tmp_path, monkeypatch, capsys):
    reader = pg_url.replace(postgres.OWNER, postgres.READER).replace(
        postgres.passwords[postgres.OWNER], postgres.passwords[postgres.READER]
    )
    corpus = str(_corpus(tmp_path))
    code, _ = _run(
        tmp_path, monkeypatch, "--candidate", "reference", "--corpus", corpus, "--engine", "postgresql",
        "--fixture-url", reader,
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "cannot create a schema in the PostgreSQL database" in err
    assert "--fixture-url needs a role that may create schemas there" in err
    assert postgres.passwords[postgres.READER] not in err


def test_the_engine_belongs_to_the_sql_suite(capsys):
    assert main(["--engine", "duckdb"]) == 2
    assert "--engine belongs to the SQL suite (--suite sql), not to the trajectory suite" in capsys.readouterr().err


def test_postgresql_without_a_server_install_is_exit_2_naming_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pg_server, "find_bindir", lambda: None)  # this machine, without the server package
    code, _ = _run(
        tmp_path, monkeypatch, "--candidate", "reference", "--corpus", str(_corpus(tmp_path)), "--engine", "postgresql"
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "--engine postgresql without --fixture-url starts a throwaway PostgreSQL server" in err
    assert "install postgresql" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--engines", "sqlite,oracle"], "unknown: oracle"),
        (["--engines", "sqlite,sqlite"], "name each engine once"),
        (["--engines", "duckdb", "--update-snapshot"], "--update-snapshot records SQLite's answers"),
        (["--fixture-url", "postgresql://u@localhost/db"], "add postgresql to --engines"),
    ],
    ids=["unknown", "twice", "snapshot-elsewhere", "fixture-url-without-postgresql"],
)
def test_selfcheck_engine_choices_that_cannot_work_are_exit_2(argv, message, capsys):
    assert selfcheck_cli.main(argv) == 2
    assert message in capsys.readouterr().err


# --- baselines live apart per engine --------------------------------------------------------


def test_sqlites_baseline_keeps_its_name_and_another_engines_has_its_own(tmp_path):
    assert baseline_path("embedded", "embedded-v5", tmp_path).name == "embedded--embedded-v5.json"
    assert baseline_path("embedded", "embedded-v5", tmp_path, "duckdb").name == "embedded--embedded-v5--duckdb.json"


def test_a_baseline_file_of_another_engine_is_never_loaded(tmp_path):
    record = {
        "version": 1,
        "candidate": {"path": "embedded", "model": "m"},
        "recorded_at": "2026-12-01T00:00:00Z",
        "corpus": {},
        "composition": {},
        "summary": codec.to_json(summary([])),  # a baseline's figures, of no question
        "questions": {},
        "run": {"engine": "duckdb"},
    }
    baseline_path("embedded", "m", tmp_path).write_text(json.dumps(record))  # a DuckDB run under SQLite's name
    with pytest.raises(BaselineError, match="never compared with another path's, model's or engine's baseline"):
        load_baseline("embedded", "m", tmp_path)
    assert load_baseline("embedded", "m", tmp_path, "duckdb") is None


def test_a_reference_sqlglot_cannot_carry_over_names_the_override_to_write(tmp_path):
    text = textwrap.dedent(
        """\
        version: 1
        fixture: retail
        questions:
          - id: e-bad
            question: For each order, when did the most recent earlier order ship?
            sql: SELECT order_id, LAST_VALUE(shipped_date IGNORE NULLS) OVER (ORDER BY order_id) FROM orders
        """
    )
    [q] = load_corpus([_corpus(tmp_path, text)]).questions
    assert q.reference_sql("duckdb") is not None  # DuckDB has IGNORE NULLS; PostgreSQL has not
    with pytest.raises(TranspileError) as caught:
        q.reference_sql("postgres")
    assert str(caught.value) == (
        f"{q.source}:4: e-bad: sqlglot cannot transpile the SQLite reference to postgresql (PostgreSQL does not "
        "support IGNORE NULLS.); add a 'sql_postgresql' override to the question"
    )
