"""The read-only guard over the vendored corpus (``tests/data/sql_guard_corpus/``): every valid SQLite read
allowed but the listed policy exemptions, a verdict for every payload in every dialect, and nothing the guard
allows changes the executor's folder. The decision table is ``test_guard.py``."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.guard import GUARD_CODES, validate_readonly_sql
from tests.readonly.test_executor import directory_state, write_shop_database

CORPUS = Path(__file__).parents[1] / "data" / "sql_guard_corpus"


# --- the vendored corpus ----------------------------------------------------------------------


def _records(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines() if line.strip()]


LEGIT = _records("legit.jsonl")
PAYLOADS = _records("payloads.jsonl")

# Reads from other projects' corpora that are valid SQLite but that this project rejects on purpose.
POLICY_EXEMPT = {
    "L0020": "EXPLAIN of a write (dbhub allows it; spec 12 allows EXPLAIN of a read only)",
    "L0032": "openquery() is on the side-effect deny-list (SQL Server remote query; harmless only in SQLite)",
}

_SEMANTIC_ERRORS = (
    "no such table",
    "no such column",
    "no such function",
    "no such module",
    "no such index",
    "unknown database",
)


def _valid_sqlite(sql: str) -> bool:
    """SQLite parses it: it runs on an empty scratch database, or fails only on a missing object."""
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(sql).fetchmany(1)
    except sqlite3.Error as e:
        return str(e).startswith(_SEMANTIC_ERRORS)
    finally:
        scratch.close()
    return True


VALID_LEGIT = [r for r in LEGIT if _valid_sqlite(r["sql"])]


def test_corpus_is_vendored_with_provenance():
    assert len(LEGIT) >= 80 and len(PAYLOADS) >= 1500
    assert len(VALID_LEGIT) >= 70, "the validity filter must not empty the property"
    provenance = (CORPUS / "PROVENANCE.md").read_text()
    assert "section 12" in provenance


def test_policy_exemptions_are_real_and_still_rejected():
    ids = {r["id"]: r for r in VALID_LEGIT}
    for rid in POLICY_EXEMPT:
        assert rid in ids, f"{rid} is not a valid-SQLite read in legit.jsonl; drop the exemption"
        assert not validate_readonly_sql(ids[rid]["sql"]).allowed, f"{rid} is allowed now; drop the exemption"


@pytest.mark.parametrize(
    "record",
    [r for r in VALID_LEGIT if r["id"] not in POLICY_EXEMPT],
    ids=[r["id"] for r in VALID_LEGIT if r["id"] not in POLICY_EXEMPT],
)
def test_valid_sqlite_reads_in_the_corpus_are_allowed(record):
    verdict = validate_readonly_sql(record["sql"])
    assert verdict.allowed, f"{record['id']} ({record['source']}): {verdict.reason}"


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "tsql"])
def test_guard_is_total_over_the_corpus(dialect):
    # Fragments, prose, binary-ish payloads: always a verdict, never an exception.
    for record in PAYLOADS + LEGIT:
        verdict = validate_readonly_sql(record["sql"], dialect)
        assert verdict.code in GUARD_CODES, record["id"]
        assert verdict.allowed == (verdict.code == "ok"), record["id"]
        assert verdict.reason, record["id"]


def test_every_statement_the_guard_allows_is_harmless_on_the_executor(tmp_path, monkeypatch):
    db_dir = tmp_path / "db"
    db_dir.mkdir()
    db = write_shop_database(db_dir / "shop.db")
    monkeypatch.chdir(db_dir)  # a relative path in a statement would land next to the database
    allowed = [r for r in PAYLOADS + LEGIT if validate_readonly_sql(r["sql"]).allowed]
    assert len(allowed) >= 100
    before = directory_state(db_dir)
    changed = []
    with ReadOnlyExecutor(f"sqlite:///{db}", row_cap=1000, timeout_s=0.25) as ex:
        for record in allowed:
            with contextlib.suppress(ExecutionError):  # failing is harmless; changing the directory is not
                ex.execute(record["sql"])
            if directory_state(db_dir) != before:
                changed.append(record["id"])
                before = directory_state(db_dir)
    assert changed == []
