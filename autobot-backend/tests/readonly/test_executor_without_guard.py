"""The second line of defence: with the guard switched off, the executor still cannot write.

Every must-reject statement of the guard table goes straight to ``ReadOnlyExecutor.execute``
on a copy of a small shop database and of the ``retail`` fixture (seed 0); the database file must
stay byte-for-byte the same and no other file may appear (``ATTACH`` of a new path and ``VACUUM
INTO`` create files even on a read-only SQLite connection unless the executor stops them). A control
run of the same statements on an ordinary writable connection shows the test is not vacuous: most
of them do real damage there.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from eval.sql.fixtures.seeded import write as write_fixture
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from tests.readonly.test_executor import directory_state, write_shop_database
from tests.readonly.test_guard import REJECTED, Case

CASES: tuple[Case, ...] = tuple(c for c in REJECTED if c.sql.strip())

# Must-reject statements that the control run has to show destroying or creating something.
MUST_BE_DESTRUCTIVE = {
    "insert",
    "update",
    "delete",
    "replace-into",
    "upsert",
    "create-table",
    "create-index",
    "create-trigger",
    "drop-table",
    "drop-after-empty-comment",
    "drop-index",
    "alter-add-column",
    "alter-rename",
    "attach",
    "vacuum-into",
    "analyze",
    "pragma-set-user-version",
    "pragma-set-journal-mode",
    "select-then-drop",
    "select-newlines-delete",
    "sqlite-backslash-trick",
    "sqlite-nested-comment-trick",
    "comment-hides-newline",
    "string-semicolon-then-drop",
    "string-looks-like-comment",
    "pragma-then-drop",
    "explain-then-drop",
}


# Statements written against the small shop's columns; on the retail fixture they fail to run.
SHOP_SPECIFIC = {"create-index", "drop-index", "insert", "replace-into", "update", "upsert"}


@pytest.fixture(scope="module", params=["shop", "retail"])
def template(request, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp(f"template-{request.param}") / "shop.db"
    if request.param == "retail":
        write_fixture(path, "retail", 0)
    else:
        write_shop_database(path)
    return path


def _order_count(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM orders").fetchone()[0]
    finally:
        conn.close()


def _fresh_copy(template: Path, parent: Path) -> Path:
    directory = parent / "db"
    directory.mkdir()
    return Path(shutil.copy(template, directory / "shop.db"))


def _writable_control(case: Case, template: Path, parent: Path) -> tuple[bool, bool]:
    """(valid SQLite, changed something) for ``case`` on an ordinary writable connection."""
    db = _fresh_copy(template, parent)
    before = directory_state(db.parent)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(db.parent)
        conn = sqlite3.connect(db, isolation_level=None)
        try:
            conn.executescript(case.sql)
            valid = True
        except sqlite3.Error as e:
            valid = (
                "syntax error" not in str(e) and "incomplete input" not in str(e) and "unrecognized token" not in str(e)
            )
        finally:
            conn.close()
    return valid, directory_state(db.parent) != before


@pytest.fixture(scope="module")
def controls(template, tmp_path_factory) -> dict[str, tuple[bool, bool]]:
    return {c.id: _writable_control(c, template, tmp_path_factory.mktemp(c.id)) for c in CASES}


def test_control_run_shows_the_statements_are_dangerous(controls, template):
    destructive = {cid for cid, (_valid, changed) in controls.items() if changed}
    expected = MUST_BE_DESTRUCTIVE - (SHOP_SPECIFIC if "retail" in template.parent.name else set())
    assert expected <= destructive, sorted(expected - destructive)
    valid = {cid for cid, (ok, _changed) in controls.items() if ok}
    assert len(valid) >= 60


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rejected_statement_cannot_change_the_database(case, template, tmp_path, monkeypatch, controls):
    db = _fresh_copy(template, tmp_path)
    monkeypatch.chdir(db.parent)  # relative paths in ATTACH / VACUUM INTO land next to the database
    before = directory_state(db.parent)
    with ReadOnlyExecutor(f"sqlite:///{db}", timeout_s=1.0) as ex:
        try:
            ex.execute(case.sql)
            outcome = "ran"
        except ExecutionError as e:
            outcome = e.kind
    assert directory_state(db.parent) == before
    if controls[case.id][1]:
        assert outcome == "database", "a statement that writes elsewhere must fail here, not silently succeed"


def test_nothing_outside_the_database_directory_is_created(template, tmp_path):
    db = _fresh_copy(template, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    before = directory_state(db.parent)
    with ReadOnlyExecutor(f"sqlite:///{db}") as ex:
        for sql in (
            f"ATTACH DATABASE '{outside / 'evil.db'}' AS evil",
            f"ATTACH DATABASE 'file:{outside / 'evil2.db'}?mode=rwc' AS evil",
            f"VACUUM INTO '{outside / 'copy.db'}'",
        ):
            with pytest.raises(ExecutionError) as err:
                ex.execute(sql)
            assert err.value.kind == "database"
    assert list(outside.iterdir()) == []
    assert directory_state(db.parent) == before


def test_one_executor_survives_every_rejected_statement_in_sequence(template, tmp_path, monkeypatch):
    # Session state must not leak: had 'PRAGMA query_only = OFF' or 'BEGIN' worked, a later write could.
    db = _fresh_copy(template, tmp_path)
    monkeypatch.chdir(db.parent)
    before = directory_state(db.parent)
    orders = _order_count(db)
    with ReadOnlyExecutor(f"sqlite:///{db}", timeout_s=1.0) as ex:
        for case in CASES + CASES:
            with contextlib.suppress(ExecutionError):
                ex.execute(case.sql)
        assert ex.execute("SELECT count(*) FROM orders").rows == [(orders,)]
        assert ex.execute("PRAGMA query_only").rows == [(1,)]
    assert directory_state(db.parent) == before
