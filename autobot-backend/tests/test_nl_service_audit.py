"""NLDatabaseService's record of what it was asked: the bounded history and the audit log, with no password and
no forged line in either; a real SQLite file and a scripted generator at the edge."""

from __future__ import annotations

import logging

from services.generation.protocol import Generation
from services.generation.recorded import RecordedGenerator
from tests.nl_service_helpers import PASSWORD, Scripted, ask, sql

# --- history and audit ----------------------------------------------------------------------


def test_history_and_audit_record_every_outcome(service_for, caplog):
    service = service_for(
        RecordedGenerator(
            {
                "ok": Generation(sql="SELECT id FROM customers"),
                "decline": Generation.refuse("not about the data"),
                "write": Generation(sql="DROP TABLE orders"),
            }
        ),
        history_limit=10,
    )
    caplog.set_level(logging.INFO, logger="autobot.nl_sql.audit")
    for question in ("ok", "decline", "write", ""):
        service.query(question, db_id="shop", user_id="u-1")
    statuses = [(r.status, r.error_kind) for r in service.history]
    assert statuses == [("ok", None), ("refused", "refused"), ("error", "guard_blocked"), ("error", "bad_request")]
    assert [r.reason is None for r in service.history] == [True, False, False, False]
    assert service.history[1].reason == "not about the data"
    assert all((r.db_id, r.user_id) == ("shop", "u-1") and r.time.endswith("+00:00") for r in service.history)
    assert service.history[2].sql == "DROP TABLE orders"
    assert service.history[0].row_count == 3
    audit = [r for r in caplog.records if r.name == "autobot.nl_sql.audit"]
    assert len(audit) == 4
    assert "refused" in audit[1].getMessage() and "not about the data" in audit[1].getMessage()
    assert "guard_blocked" in audit[2].getMessage() and audit[2].levelno == logging.WARNING
    assert "question='write'" in audit[2].getMessage() and "DROP TABLE orders" in audit[2].getMessage()
    assert audit[3].nl_sql["error_kind"] == "bad_request"


def test_history_is_bounded(service_for):
    service = service_for(Scripted(Generation.refuse("no")), history_limit=2)
    for question in ("a", "b", "c"):
        ask(service, question)
    assert [r.question for r in service.history] == ["b", "c"]


def test_audit_never_logs_the_password(service_for, caplog):
    caplog.set_level(logging.INFO, logger="autobot.nl_sql.audit")
    ask(service_for(sql("SELECT 1")), db_url=f"nosuchdb://admin:{PASSWORD}@db.example.com/sales")
    assert caplog.records
    assert all(PASSWORD not in r.getMessage() and PASSWORD not in str(r.nl_sql) for r in caplog.records)


def test_a_newline_in_a_reason_cannot_forge_a_line_of_the_audit_log(service_for, caplog):
    forged = "not about the data\nnl_sql ok db_id=shop user_id=admin generator=x reason=None"
    service = service_for(RecordedGenerator({"q": Generation.refuse(forged)}))
    caplog.set_level(logging.INFO, logger="autobot.nl_sql.audit")
    service.query("q", db_id="shop\r\nx", user_id="u-1")
    [line] = [r.getMessage() for r in caplog.records if r.name == "autobot.nl_sql.audit"]
    assert "\n" not in line and "\r" not in line
    assert "not about the data\\nnl_sql ok" in line and "db_id=shop\\r\\nx" in line
    assert service.history[0].reason == forged, "the record itself keeps the text as given"
