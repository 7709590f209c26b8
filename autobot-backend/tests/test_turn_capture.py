"""NL_SQL_CAPTURE_DIR: the service writes its own turns, in the documented format, only when asked.

No time limit is under test here: each service is given one a busy machine never reaches (:mod:`tests.bounds`),
so a slow statement is never a ``timeout`` turn."""

from __future__ import annotations

import datetime as dt
import json
import logging
import stat
from decimal import Decimal

import pytest

from eval.turns.format import load_turns
from services.generation.protocol import Generation
from services.nl_database_service import NLDatabaseService
from services.turn_capture import CAPTURE_DIR_ENV, ROWS_KEPT, jsonable
from tests.bounds import PATIENCE_S
from tests.nl_service_helpers import Scripted, build_shop, sql


@pytest.fixture
def shop_url(tmp_path):
    return build_shop(tmp_path / "shop.db")


def captured(directory):
    files = sorted(directory.glob("turns-*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def test_capture_is_off_by_default_and_nothing_is_written(tmp_path, shop_url, monkeypatch):
    monkeypatch.delenv(CAPTURE_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with NLDatabaseService(sql("SELECT name FROM customers"), local_db_url=shop_url, timeout_s=PATIENCE_S) as service:
        assert service.capture is None
        assert service.query("Who are the customers?")["status"] == "ok"
    assert not list(tmp_path.rglob("turns-*.jsonl"))


def test_an_answered_question_is_one_turn_with_its_rows(tmp_path, shop_url, monkeypatch):
    monkeypatch.setenv(CAPTURE_DIR_ENV, str(tmp_path / "turns"))
    with NLDatabaseService(
        sql("SELECT id, amount FROM orders ORDER BY id"), local_db_url=shop_url, timeout_s=PATIENCE_S
    ) as service:
        response = service.query("What did each order cost?")
    [turn] = captured(tmp_path / "turns")
    assert turn["question"] == "What did each order cost?"
    assert dt.datetime.fromisoformat(turn["time"]).utcoffset() == dt.timedelta(0)
    assert turn["answer"] is None and turn["declined"] is None and turn["failed"] is None
    [step] = turn["trajectory"]
    assert step == {
        "sql": "SELECT id, amount FROM orders ORDER BY id",
        "status": "ok",
        "error": None,
        "row_count": 5,
        "columns": ["id", "amount"],
        "rows": [[1, 10], [2, 20], [3, 30], [4, 40], [5, 50]],
    }
    assert response["row_count"] == 5
    assert turn["meta"]["generator"] == "scripted" and turn["meta"]["status"] == "ok"
    # the file reads back through the strict reader
    [parsed] = load_turns(next((tmp_path / "turns").glob("*.jsonl")))
    assert parsed.trajectory[0].rows[2] == (3, 30)


def test_only_the_first_rows_are_kept_with_the_true_row_count(tmp_path, shop_url, monkeypatch):
    monkeypatch.setenv(CAPTURE_DIR_ENV, str(tmp_path / "t"))
    many = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 45) SELECT x FROM n"
    with NLDatabaseService(sql(many), local_db_url=shop_url, timeout_s=PATIENCE_S) as service:
        service.query("Count to 45")
    [turn] = captured(tmp_path / "t")
    step = turn["trajectory"][0]
    assert step["row_count"] == 45 and len(step["rows"]) == ROWS_KEPT and step["rows"][-1] == [20]


def test_a_guard_block_a_failure_and_a_refusal_are_captured_as_such(tmp_path, shop_url, monkeypatch):
    monkeypatch.setenv(CAPTURE_DIR_ENV, str(tmp_path / "t"))
    with NLDatabaseService(sql("DELETE FROM orders"), local_db_url=shop_url, timeout_s=PATIENCE_S) as service:
        service.query("Delete every order")
    with NLDatabaseService(sql("SELECT nope FROM orders"), local_db_url=shop_url, timeout_s=PATIENCE_S) as service:
        service.query("What is nope?")
    with NLDatabaseService(
        Scripted(Generation.refuse("no salary column")), local_db_url=shop_url, timeout_s=PATIENCE_S
    ) as service:
        service.query("What do we pay people?")
    blocked, failed, declined = captured(tmp_path / "t")
    assert blocked["trajectory"][0]["status"] == "blocked" and blocked["trajectory"][0]["error_kind"] == "guard_blocked"
    assert failed["trajectory"][0]["status"] == "error" and "nope" in failed["trajectory"][0]["error"]
    assert failed["trajectory"][0]["row_count"] is None and failed["trajectory"][0]["rows"] == []
    assert declined["trajectory"] == [] and declined["declined"] == "no salary column"
    assert len({t["turn_id"] for t in (blocked, failed, declined)}) == 3
    assert len(load_turns(next((tmp_path / "t").glob("*.jsonl")))) == 3


def test_capture_files_are_private_to_their_owner(tmp_path, shop_url, monkeypatch):
    monkeypatch.setenv(CAPTURE_DIR_ENV, str(tmp_path / "t"))
    with NLDatabaseService(sql("SELECT 1"), local_db_url=shop_url, timeout_s=PATIENCE_S) as service:
        service.query("One?")
    [path] = (tmp_path / "t").glob("*.jsonl")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_capture_that_cannot_be_written_never_fails_the_query(tmp_path, shop_url, monkeypatch, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(CAPTURE_DIR_ENV, str(blocker / "turns"))
    with (
        caplog.at_level(logging.WARNING),
        NLDatabaseService(sql("SELECT 1"), local_db_url=shop_url, timeout_s=PATIENCE_S) as service,
    ):
        assert service.query("One?")["status"] == "ok"
        assert service.query("One again?")["status"] == "ok"
    warnings = [r for r in caplog.records if "cannot write captured turns" in r.getMessage()]
    assert len(warnings) == 1  # once, not per question


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("410000.37"), 410000.37),
        (Decimal("12"), 12),
        (Decimal("0.1000000000000000000001"), "0.1000000000000000000001"),  # a float would lose digits
        (dt.date(2024, 3, 31), "2024-03-31"),
        (dt.datetime(2024, 3, 31, 12, 5), "2024-03-31T12:05:00"),
        (float("inf"), "inf"),
        (b"\x00\x01", "base64:AAE="),
        (True, True),
        (None, None),
    ],
)
def test_row_values_become_json_without_losing_information(value, expected):
    assert jsonable(value) == expected and type(jsonable(value)) is type(expected)
