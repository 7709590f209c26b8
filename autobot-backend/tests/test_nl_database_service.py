"""NLDatabaseService end to end: a real SQLite file, a scripted generator at the edge, no mocks.

What a question comes back as: rows, a refusal, or an error of its kind (the guard, the database, an unusable
database, a generator that cannot answer, the service's own crash). What it records is
``test_nl_service_audit.py``; its caches, configuration and compatible names ``test_nl_service_configuration.py``.
"""

from __future__ import annotations

import logging

import pytest
import sqlalchemy as sa

import services.readonly.guard as sql_guard
from services.generation.llm import API_KEY_ENV, BASE_URL_ENV, OpenAIChatGenerator
from services.generation.protocol import Generation, GeneratorUnavailable
from services.generation.recorded import RecordedGenerator
from services.nl_database_service import LOCAL_DB_ENV, MAX_QUESTION_CHARS, ErrorKind, NLDatabaseService
from tests.http_fakes import FakeHTTPServer, chat_reply, json_reply, refused_port
from tests.nl_service_helpers import API_KEY, PASSWORD, RUNAWAY, Scripted, ask, build_shop, digest, sql

# --- outcomes -------------------------------------------------------------------------------


def test_ok_returns_rows_columns_and_names(service_for):
    service = service_for(sql("SELECT name, country FROM customers ORDER BY id"))
    response = ask(service, "  Who are the customers?  ", user_id="u-7")
    assert response["status"] == "ok"
    assert (response["reason"], response["error_kind"]) == (None, None)
    assert "error" not in response
    assert response["sql"] == "SELECT name, country FROM customers ORDER BY id"
    assert response["columns"] == ["name", "country"]
    assert response["rows"] == [["Ada", "Canada"], ["Bo", "France"], ["Cy", "Canada"]]
    assert response["results"][1] == {"name": "Bo", "country": "France"}
    assert response["row_count"] == 3
    assert (response["generator"], response["model"]) == ("scripted", "scripted-model")
    assert (response["db_id"], response["user_id"]) == ("local", "u-7")
    assert response["question"] == "  Who are the customers?  "
    assert response["elapsed_ms"] >= 0
    assert service.generator.calls[0][0] == "Who are the customers?"


def test_rows_keep_duplicate_column_names(service_for):
    response = ask(service_for(sql("SELECT 1 AS x, 2 AS x")))
    assert response["columns"] == ["x", "x"]
    assert response["rows"] == [[1, 2]]
    assert response["results"] == [{"x": 2}]  # dicts cannot hold both: that is why rows exist


def test_refusal_is_reported_with_the_generators_reason(service_for):
    response = ask(service_for(Scripted(Generation.refuse("the schema holds no salaries"))))
    assert response["status"] == "refused"
    assert response["reason"] == "the schema holds no salaries"
    assert response["error_kind"] == "refused"
    assert response["sql"] is None
    assert (response["rows"], response["row_count"]) == ([], 0)
    assert "error" not in response


def test_guard_blocks_a_write_and_the_database_is_unchanged(service_for, shop):
    before = digest(shop)
    response = ask(service_for(sql("SELECT 1; DROP TABLE customers")))
    assert response["status"] == "error"
    assert response["error_kind"] == "guard_blocked"
    assert response["reason"] and response["error"] == response["reason"]
    assert response["sql"] == "SELECT 1; DROP TABLE customers"
    assert response["rows"] == []
    assert digest(shop) == before
    engine = sa.create_engine(f"sqlite:///{shop}")
    try:
        assert "customers" in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_guard_reason_is_the_guards_own(service_for):
    statement = "DELETE FROM orders"
    response = ask(service_for(sql(statement)))
    assert response["error_kind"] == "guard_blocked"
    assert response["reason"] == sql_guard.validate_readonly_sql(statement, "sqlite").reason


def test_bad_column_is_a_database_error(service_for):
    response = ask(service_for(sql("SELECT no_such_column FROM customers")))
    assert (response["status"], response["error_kind"]) == ("error", "database")
    assert "no_such_column" in response["reason"]


def test_runaway_query_is_a_timeout(service_for):
    response = ask(service_for(sql(RUNAWAY), timeout_s=0.3))
    assert (response["status"], response["error_kind"]) == ("error", "timeout")
    assert response["reason"]


def test_too_many_rows_is_a_row_cap_error(service_for):
    service = service_for(sql("SELECT id FROM orders"), row_cap=2)
    response = ask(service)
    assert (response["status"], response["error_kind"]) == ("error", "row_cap")
    assert response["rows"] == []  # never a silently truncated answer


BAD_QUESTIONS = [
    ("empty", ""),
    ("whitespace", " \n\t "),
    ("none", None),
    ("number", 42),
    ("bytes", b"how many orders?"),
    ("too_long", "how many orders? " * (MAX_QUESTION_CHARS // 10)),
]


@pytest.mark.parametrize("question", [c[1] for c in BAD_QUESTIONS], ids=[c[0] for c in BAD_QUESTIONS])
def test_bad_question_is_a_bad_request(service_for, question):
    service = service_for(sql("SELECT 1"))
    response = ask(service, question)
    assert (response["status"], response["error_kind"]) == ("error", "bad_request")
    assert response["reason"]
    assert service.generator.calls == []


@pytest.mark.parametrize("db_url", ["", "   ", 42], ids=["empty", "blank", "not_a_string"])
def test_bad_db_url_value_is_a_bad_request(service_for, db_url):
    response = ask(service_for(sql("SELECT 1")), db_url=db_url)
    assert (response["status"], response["error_kind"]) == ("error", "bad_request")
    assert "db_url" in response["reason"]


# --- databases that cannot be used ----------------------------------------------------------

BAD_URLS = [
    ("unknown_driver", f"nosuchdb://admin:{PASSWORD}@db.example.com/sales", {"config"}, "db.example.com"),
    ("not_a_url", f"this is not a url:{PASSWORD}", {"config"}, "SQLAlchemy URL"),
    ("driver_not_installed", f"postgresql+nosuchdriver://admin:{PASSWORD}@127.0.0.1:1/sales", {"config"}, "127.0.0.1"),
    (
        "server_down",
        f"postgresql://admin:{PASSWORD}@127.0.0.1:{{refused}}/sales",  # {refused}: a port that refuses
        {"config", "db_unreachable"},
        None,
    ),
]


@pytest.mark.parametrize(("url", "kinds", "named"), [c[1:] for c in BAD_URLS], ids=[c[0] for c in BAD_URLS])
def test_unusable_url_is_an_error_without_the_password(service_for, url, kinds, named):
    service = service_for(sql("SELECT 1"))
    with refused_port() as port:
        response = ask(service, db_url=url.replace("{refused}", str(port)), db_id="sales")
    assert response["status"] == "error"
    assert response["error_kind"] in kinds
    assert "'sales'" in response["reason"]
    assert named is None or named in response["reason"]
    assert PASSWORD not in response["reason"]
    assert PASSWORD not in str(service.history[-1])
    assert service.generator.calls == []


def test_missing_sqlite_file_is_unreachable_and_not_created(service_for, tmp_path):
    missing = tmp_path / "nowhere" / "missing.db"
    response = ask(service_for(sql("SELECT 1")), db_url=f"sqlite:///{missing}")
    assert (response["status"], response["error_kind"]) == ("error", "db_unreachable")
    assert "missing.db" in response["reason"]
    assert not missing.exists()


def test_missing_local_database_says_how_to_configure_it(monkeypatch, tmp_path):
    monkeypatch.setenv(LOCAL_DB_ENV, f"sqlite:///{tmp_path / 'local.db'}")
    with NLDatabaseService(sql("SELECT 1")) as service:
        response = ask(service)
    assert response["error_kind"] == "db_unreachable"
    assert LOCAL_DB_ENV in response["reason"]
    assert not (tmp_path / "local.db").exists()


def test_unreachable_database_is_retried_on_the_next_query(service_for, tmp_path):
    later = tmp_path / "later.db"
    service = service_for(sql("SELECT count(*) AS n FROM customers"))
    assert ask(service, db_url=f"sqlite:///{later}")["error_kind"] == "db_unreachable"
    build_shop(later)
    assert ask(service, db_url=f"sqlite:///{later}")["rows"] == [[3]]


# --- generators that cannot answer ----------------------------------------------------------


def test_unavailable_generator_is_reported(service_for):
    response = ask(service_for(Scripted(GeneratorUnavailable("endpoint down: check NL_SQL_LLM_BASE_URL"))))
    assert (response["status"], response["error_kind"]) == ("error", "generator_unavailable")
    assert "endpoint down: check NL_SQL_LLM_BASE_URL" in response["reason"]


@pytest.mark.parametrize(
    ("outcome", "fragment"),
    [
        (RuntimeError("model exploded"), "RuntimeError: model exploded"),
        (KeyError("choices"), "KeyError"),
        ("SELECT 1", "returned a str, not a Generation"),
    ],
    ids=["runtime_error", "key_error", "wrong_return_type"],
)
def test_broken_generator_is_an_error_not_an_exception(service_for, outcome, fragment):
    # A crash is the generator's own failure (no SQL came back), not "could not be asked".
    response = ask(service_for(Scripted(outcome)))
    assert (response["status"], response["error_kind"]) == ("error", "generator_error")
    assert fragment in response["reason"]


def test_unreachable_model_end_to_end(service_for):
    with refused_port() as port:
        response = ask(service_for(OpenAIChatGenerator(f"http://127.0.0.1:{port}/v1", "m", timeout_s=2)))
    assert (response["status"], response["error_kind"]) == ("error", "generator_unavailable")
    assert "connection refused" in response["reason"] and BASE_URL_ENV in response["reason"]
    assert (response["generator"], response["model"]) == ("openai-chat", "m")


def test_rejected_api_key_is_not_echoed(service_for, caplog):
    caplog.set_level(logging.INFO, logger="autobot.nl_sql.audit")
    echo = json_reply({"error": {"message": f"Incorrect API key provided: {API_KEY}"}}, status=401)
    with FakeHTTPServer(echo) as server:
        service = service_for(OpenAIChatGenerator(server.url + "/v1", "m", api_key=API_KEY))
        response = ask(service)
    assert response["error_kind"] == "generator_unavailable"
    assert API_KEY_ENV in response["reason"]
    assert API_KEY not in response["reason"] and API_KEY not in str(service.history[-1])
    assert all(API_KEY not in r.getMessage() for r in caplog.records)


def test_model_over_http_end_to_end(service_for):
    reply = (
        "Here is the query:\n```sql\nSELECT country, count(*) AS n FROM customers GROUP BY country "
        "ORDER BY country\n```"
    )
    with FakeHTTPServer(chat_reply(reply)) as server:
        service = service_for(OpenAIChatGenerator(server.url + "/v1", "m"))
        response = ask(service, "How many customers per country?")
        prompt = "\n".join(m["content"] for m in server.requests[0].json()["messages"])
    assert response["status"] == "ok"
    assert response["rows"] == [["Canada", 2], ["France", 1]]
    assert "order total in EUR, taxes included" in prompt  # the live schema reached the model


class _BrokenGeneration(Generation):
    """A Generation whose state cannot be read: a bug in the service's own path, not in the SQL."""

    @property
    def refused(self) -> bool:
        raise RuntimeError("state lost")


def test_a_crash_in_the_service_is_internal_not_a_database_error(service_for, caplog):
    service = service_for(RecordedGenerator({"Who are the customers?": _BrokenGeneration(sql="SELECT 1")}))
    with caplog.at_level(logging.ERROR, logger="services.nl_database_service"):
        response = ask(service)
    assert (response["status"], response["error_kind"]) == ("error", "internal")
    assert "RuntimeError: state lost" in response["reason"]
    assert service.history[-1].error_kind == "internal"
    assert any(r.exc_info for r in caplog.records)  # logged with its traceback


def test_run_readonly_is_the_guard_then_the_executor_with_typed_outcomes(service_for):
    service = service_for(sql("SELECT 1"))
    ok = service.run_readonly("SELECT name FROM customers ORDER BY id")
    assert ok.ok and ok.columns == ("name",) and [tuple(r) for r in ok.rows] == [("Ada",), ("Bo",), ("Cy",)]
    blocked = service.run_readonly("DELETE FROM customers")
    assert (blocked.error_kind, blocked.rows) == (ErrorKind.GUARD_BLOCKED, ())
    failed = service.run_readonly("SELECT nope FROM customers")
    assert failed.error_kind is ErrorKind.DATABASE and "nope" in failed.reason
    gone = service.run_readonly("SELECT 1", db_url="sqlite:///does/not/exist.db")
    assert gone.error_kind is ErrorKind.DB_UNREACHABLE
    assert len(service.history) == 0  # no question was asked


def test_a_crash_inside_run_readonly_is_internal(service_for, monkeypatch):
    service = service_for(sql("SELECT 1"))
    executor = service.executor()

    def explode(sql: str) -> None:
        raise RuntimeError("driver bug")

    monkeypatch.setattr(executor, "execute", explode)  # nothing real crashes on demand
    outcome = service.run_readonly("SELECT 1")
    assert outcome.error_kind is ErrorKind.INTERNAL and "driver bug" in outcome.reason


def test_a_recorded_generation_takes_the_path_a_generated_one_would(service_for):
    generator = sql("SELECT 'never asked'")
    service = service_for(generator)
    answer = service.answer("anything", generation=Generation(sql="DELETE FROM orders"))
    assert (answer.status, answer.error_kind, answer.generation_ms) == ("error", ErrorKind.GUARD_BLOCKED, None)
    answer = service.answer("anything", generation=Generation(sql="SELECT count(*) FROM orders"))
    assert answer.status == "ok" and answer.rows == [(5,)] and answer.execution.elapsed_ms > 0
    assert generator.calls == [] and [r.sql for r in service.history] == [
        "DELETE FROM orders",
        "SELECT count(*) FROM orders",
    ]
