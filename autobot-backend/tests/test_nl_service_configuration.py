"""NLDatabaseService's caches, configuration and compatible names: the schema read once per URL, the local
database and the generator chosen from the environment, the guard's names importable from the service, every
error kind documented."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

import services.nl_database_service as nl
import services.readonly.guard as sql_guard
from services.generation.llm import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, GeneratorConfigError, OpenAIChatGenerator
from services.nl_database_service import (
    DEFAULT_LOCAL_DB,
    ERROR_KINDS,
    LOCAL_DB_ENV,
    ErrorKind,
    NLDatabaseService,
    default_generator,
)
from tests.nl_service_helpers import ask, build_shop, sql

# --- caches, configuration, compatibility ---------------------------------------------------


def test_schema_context_is_cached_per_url(service_for, shop, tmp_path):
    other = tmp_path / "other.db"
    other_url = build_shop(other, extra_table="returns")
    service = service_for(sql("SELECT 1"))
    ask(service)
    # A table added behind the service's back is not seen: the local schema was read once.
    engine = sa.create_engine(f"sqlite:///{shop}")
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE added_later (id INTEGER)")
    finally:
        engine.dispose()
    ask(service)
    ask(service, db_url=other_url, db_id="other")
    local_first, local_second, other_schema = (schema for _, schema in service.generator.calls)
    assert local_second is local_first
    assert local_first.table("added_later") is None
    assert other_schema.table("returns") is not None
    assert service.executor() is service.executor(f"sqlite:///{shop}")
    service.forget()
    assert service.schema().table("added_later") is not None


def test_executor_is_shared_with_callers(service_for):
    service = service_for(sql("SELECT 1"))
    result = service.executor().execute("SELECT count(*) FROM orders")
    assert result.rows == [(5,)]


def test_local_database_defaults(monkeypatch):
    monkeypatch.delenv(LOCAL_DB_ENV, raising=False)
    assert NLDatabaseService(sql("SELECT 1")).local_db_url == f"sqlite:///{DEFAULT_LOCAL_DB}"
    assert DEFAULT_LOCAL_DB.parent.parent == Path(nl.__file__).resolve().parent.parent
    monkeypatch.setenv(LOCAL_DB_ENV, "sqlite:///elsewhere.db")
    assert NLDatabaseService(sql("SELECT 1")).local_db_url == "sqlite:///elsewhere.db"
    assert NLDatabaseService(sql("SELECT 1"), local_db_url="sqlite:///x.db").local_db_url == "sqlite:///x.db"


@pytest.fixture
def llm_env(monkeypatch):
    for name in (BASE_URL_ENV, MODEL_ENV, API_KEY_ENV):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_default_generator_is_the_endpoint_when_configured(llm_env):
    llm_env.setenv(BASE_URL_ENV, "http://localhost:11434/v1")
    llm_env.setenv(MODEL_ENV, "llama3")
    generator = default_generator()
    assert isinstance(generator, OpenAIChatGenerator)
    assert (generator.name, generator.model) == ("openai-chat", "llama3")


def test_default_generator_is_embedded_when_nothing_is_configured(llm_env):
    embedded = pytest.importorskip("services.embedded")
    generator = default_generator()
    assert isinstance(generator, embedded.EmbeddedGenerator)
    assert generator.name == "embedded-v5"
    assert NLDatabaseService(local_db_url="sqlite:///x.db").generator_name == "embedded-v5"


@pytest.mark.parametrize(
    ("present", "missing"), [(BASE_URL_ENV, MODEL_ENV), (MODEL_ENV, BASE_URL_ENV)], ids=["only_base_url", "only_model"]
)
def test_half_a_configuration_is_a_clear_error(llm_env, present, missing):
    llm_env.setenv(present, "http://localhost:11434/v1")
    with pytest.raises(GeneratorConfigError, match=f"{present} is set but {missing} is not"):
        default_generator()
    with pytest.raises(GeneratorConfigError, match=missing):
        NLDatabaseService(local_db_url="sqlite:///x.db")


@pytest.mark.parametrize(
    "name",
    ["_SAFE_SQL_PREFIXES", "_DANGEROUS_KEYWORDS", "_validate_readonly_sql", "validate_readonly_sql", "GuardVerdict"],
)
def test_guard_names_are_importable_from_the_service(name):
    assert getattr(nl, name) is getattr(sql_guard, name)


def test_compat_guard_check_through_the_service_module():
    assert nl._validate_readonly_sql("SELECT REPLACE(name, 'a', 'b') FROM customers") is True
    assert nl._validate_readonly_sql("SELECT 1; DROP TABLE orders") is False


def test_every_error_kind_is_documented():
    assert set(ERROR_KINDS) == set(ErrorKind)
    assert {k.value for k in ErrorKind} == {
        "bad_request",
        "config",
        "db_unreachable",
        "generator_unavailable",
        "generator_error",
        "guard_blocked",
        "database",
        "timeout",
        "row_cap",
        "refused",
        "internal",
    }
