"""OpenAIChatGenerator against a real HTTP server on localhost (tests/http_fakes.py)."""

from __future__ import annotations

import pytest

from services.generation.llm import (
    API_KEY_ENV,
    BASE_URL_ENV,
    MODEL_ENV,
    NO_SQL_REASON,
    SAMPLE_VALUES_ENV,
    TIMEOUT_ENV,
    GeneratorConfigError,
    OpenAIChatGenerator,
    parse_reply,
)
from services.generation.protocol import GeneratorUnavailable, SQLGenerator
from services.schema_context import ColumnInfo, ForeignKey, SchemaContext, TableInfo
from tests.http_fakes import FakeHTTPServer, Reply, chat_reply, json_reply, refused_port

SCHEMA = SchemaContext(
    "sqlite",
    (
        TableInfo(
            "customers",
            (
                ColumnInfo("id", "INTEGER", False, True),
                ColumnInfo(
                    "country",
                    "VARCHAR(40)",
                    True,
                    False,
                    comment="billing country",
                    values=("Canada", "France"),
                    values_complete=True,
                ),
            ),
        ),
        TableInfo(
            "orders",
            (
                ColumnInfo("id", "INTEGER", False, True),
                ColumnInfo("customer_id", "INTEGER", False, False),
                ColumnInfo("amount", "NUMERIC(10, 2)", False, False, comment="order total in EUR, taxes included"),
            ),
            (ForeignKey(("customer_id",), "customers", ("id",)),),
        ),
    ),
)
QUESTION = "How many orders are there?"
SECRET_KEY = "sk-test-9f8e7d6c5b4a"


def generator(server: FakeHTTPServer, **kwargs) -> OpenAIChatGenerator:
    return OpenAIChatGenerator(server.url + "/v1", "test-model", **kwargs)


# --- parsing a reply ------------------------------------------------------------------------

PARSED_SQL = [
    ("plain", "SELECT count(*) FROM orders", "SELECT count(*) FROM orders"),
    ("trailing_semicolon", "SELECT count(*) FROM orders;\n", "SELECT count(*) FROM orders"),
    ("prose_before", "Sure! Here is the query:\nSELECT count(*) FROM orders", "SELECT count(*) FROM orders"),
    ("prose_before_same_line", "The answer is SELECT count(*) FROM orders", "SELECT count(*) FROM orders"),
    ("lowercase_at_line_start", "Query:\nselect count(*) from orders", "select count(*) from orders"),
    ("with_cte", "WITH t AS (SELECT 1 AS x)\nSELECT x FROM t", "WITH t AS (SELECT 1 AS x)\nSELECT x FROM t"),
    ("prose_after_blank_line", "SELECT 1\n\nThis counts the rows.", "SELECT 1"),
    # "with" and "select" in prose are words, not SQL; a line starting with SELECT wins.
    (
        "prose_words_ignored",
        "Answer with a count; we select orders:\nSELECT count(*) FROM orders",
        "SELECT count(*) FROM orders",
    ),
    (
        "sql_fence_with_prose",
        "Here it is:\n```sql\nSELECT id\nFROM orders;\n```\nIt lists ids.",
        "SELECT id\nFROM orders",
    ),
    ("bare_fence", "```\nSELECT 2\n```", "SELECT 2"),
    ("sql_fence_preferred", "```text\nnot sql\n```\n```SQL\nSELECT 3\n```", "SELECT 3"),
    ("fence_beats_unfenced", "SELECT 'draft'\n```sql\nSELECT 4\n```", "SELECT 4"),
    ("unterminated_fence", "```sql\nSELECT 5", "SELECT 5"),
    ("think_block_ignored", "<think>maybe SELECT wrong FROM x</think>\nSELECT 6", "SELECT 6"),
]


@pytest.mark.parametrize(("reply", "expected"), [c[1:] for c in PARSED_SQL], ids=[c[0] for c in PARSED_SQL])
def test_parse_reply_extracts_sql(reply, expected):
    generation = parse_reply(reply)
    assert generation.sql == expected
    assert generation.raw == reply


PARSED_REFUSALS = [
    ("protocol", "REFUSE: the schema has no salary column", "the schema has no salary column"),
    ("after_prose", "I cannot do that.\nREFUSE: asks to delete data", "asks to delete data"),
    ("markdown_bold", "**REFUSE:** not about the data", "not about the data"),
    ("lowercase", "refuse: too ambiguous", "too ambiguous"),
    ("no_reason", "REFUSE:", "the model refused without giving a reason"),
    # Refusing and showing SQL is contradictory; declining is the safe reading.
    ("refusal_beats_sql", "REFUSE: no such table\n```sql\nSELECT * FROM salaries\n```", "no such table"),
    ("no_sql", "I am not sure what you mean.", NO_SQL_REASON),
    ("empty", "", NO_SQL_REASON),
    ("empty_fence", "```sql\n```", NO_SQL_REASON),
]


@pytest.mark.parametrize(("reply", "reason"), [c[1:] for c in PARSED_REFUSALS], ids=[c[0] for c in PARSED_REFUSALS])
def test_parse_reply_refuses(reply, reason):
    generation = parse_reply(reply)
    assert generation.refused
    assert generation.refusal == reason
    assert generation.raw == reply


# --- talking to a server --------------------------------------------------------------------


def test_is_an_sql_generator():
    gen = OpenAIChatGenerator("http://localhost:11434/v1", "llama3")
    assert isinstance(gen, SQLGenerator)
    assert (gen.name, gen.model) == ("openai-chat", "llama3")


def test_unfenced_reply_and_the_request_sent():
    with FakeHTTPServer(chat_reply("SELECT count(*) FROM orders")) as server:
        generation = generator(server).generate(QUESTION, SCHEMA)
        (request,) = server.requests
    assert generation.sql == "SELECT count(*) FROM orders"
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    body = request.json()
    assert body["model"] == "test-model"
    assert body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "authorization" not in request.headers


def test_api_key_is_sent_as_bearer():
    with FakeHTTPServer(chat_reply("SELECT 1")) as server:
        generator(server, api_key=SECRET_KEY).generate(QUESTION, SCHEMA)
        (request,) = server.requests
    assert request.headers["authorization"] == f"Bearer {SECRET_KEY}"


def test_prompt_states_dialect_schema_comments_rules_and_refusal_protocol():
    with FakeHTTPServer(chat_reply("SELECT 1")) as server:
        generator(server).generate(QUESTION, SCHEMA)
        prompt = "\n".join(m["content"] for m in server.requests[0].json()["messages"])
    assert "sqlite" in prompt
    assert "TABLE orders" in prompt
    assert "order total in EUR, taxes included" in prompt
    assert "'Canada'" in prompt
    assert "REFUSE: <reason>" in prompt
    assert "read-only" in prompt
    assert QUESTION in prompt


def test_full_endpoint_url_is_used_as_is():
    with FakeHTTPServer(chat_reply("SELECT 1")) as server:
        OpenAIChatGenerator(server.url + "/v1/chat/completions/", "m").generate(QUESTION, SCHEMA)
        assert server.requests[0].path == "/v1/chat/completions"


@pytest.mark.parametrize(
    ("content", "sql", "refusal"),
    [
        ("Here you go.\n```sql\nSELECT id FROM orders\n```\nThat lists every order.", "SELECT id FROM orders", None),
        ("REFUSE: the schema holds no employee salaries", None, "the schema holds no employee salaries"),
        ("Hello! How can I help you today?", None, NO_SQL_REASON),
    ],
    ids=["fenced_with_prose", "refusal", "no_sql"],
)
def test_reply_over_http(content, sql, refusal):
    with FakeHTTPServer(chat_reply(content)) as server:
        generation = generator(server).generate(QUESTION, SCHEMA)
    assert (generation.sql, generation.refusal, generation.raw) == (sql, refusal, content)


UNAVAILABLE = [
    ("http_500", Reply(500, b"internal error", "text/plain"), ["HTTP 500", "server failed", "internal error"]),
    (
        "http_401",
        json_reply({"error": {"message": f"Incorrect API key provided: {SECRET_KEY}"}}, 401),
        ["HTTP 401", API_KEY_ENV],
    ),
    ("http_403", Reply(403, b"", "text/plain"), ["HTTP 403", API_KEY_ENV]),
    (
        "http_404",
        json_reply({"error": {"message": "model 'test-model' not found"}}, 404),
        ["HTTP 404", BASE_URL_ENV, MODEL_ENV, "model 'test-model' not found"],
    ),
    ("http_429", Reply(429, b"slow down", "text/plain"), ["HTTP 429", "rate limited"]),
    ("not_json", Reply(200, b"<html>It works!</html>", "text/html"), ["not JSON", "<html>", BASE_URL_ENV]),
    ("json_nested_too_deep", Reply(200, b"[" * 100_000), ["not JSON", "[[[", BASE_URL_ENV]),
    ("json_without_choices", json_reply({"object": "list", "data": []}), ["choices[0].message.content"]),
    ("empty_choices", json_reply({"choices": []}), ["choices[0].message.content"]),
    ("null_content", chat_reply(None), ["choices[0].message.content"]),
    (
        "error_object_with_200",
        json_reply({"error": {"message": "model is loading"}}),
        ["choices[0].message.content", "model is loading"],
    ),
    ("json_not_an_object", json_reply(["SELECT 1"]), ["choices[0].message.content"]),
]


@pytest.mark.parametrize(("reply", "fragments"), [c[1:] for c in UNAVAILABLE], ids=[c[0] for c in UNAVAILABLE])
def test_endpoint_problems_are_unavailable_with_advice(reply, fragments):
    with FakeHTTPServer(reply) as server, pytest.raises(GeneratorUnavailable) as caught:
        generator(server, api_key=SECRET_KEY).generate(QUESTION, SCHEMA)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message
    assert "test-model" in message
    assert SECRET_KEY not in message


def test_hanging_server_hits_the_timeout():
    # The server never answers until the test ends; only the client's own timeout can end the call
    # (if the server hung up first the message would be about a failed connection instead).
    with FakeHTTPServer(Reply(hang=True)) as server:
        with pytest.raises(GeneratorUnavailable, match=f"no answer within 0.5 s.*{TIMEOUT_ENV}"):
            generator(server, timeout_s=0.5).generate(QUESTION, SCHEMA)
        assert len(server.requests) == 1


def test_unreachable_port_is_unavailable():
    with refused_port() as port:
        gen = OpenAIChatGenerator(f"http://127.0.0.1:{port}/v1", "test-model", api_key=SECRET_KEY, timeout_s=2)
        with pytest.raises(GeneratorUnavailable, match=f"connection refused.*{BASE_URL_ENV}") as caught:
            gen.generate(QUESTION, SCHEMA)
    assert SECRET_KEY not in str(caught.value)


# --- configuration --------------------------------------------------------------------------


def test_from_env_reads_every_variable():
    gen = OpenAIChatGenerator.from_env(
        {
            BASE_URL_ENV: " http://localhost:8000/v1 ",
            MODEL_ENV: "qwen2.5-coder",
            API_KEY_ENV: SECRET_KEY,
            TIMEOUT_ENV: "12.5",
        }
    )
    assert (gen.base_url, gen.model, gen.api_key, gen.timeout_s) == (
        "http://localhost:8000/v1",
        "qwen2.5-coder",
        SECRET_KEY,
        12.5,
    )
    assert gen.endpoint == "http://localhost:8000/v1/chat/completions"
    assert SECRET_KEY not in repr(gen)


def test_from_env_defaults():
    gen = OpenAIChatGenerator.from_env(
        {BASE_URL_ENV: "http://localhost:11434/v1", MODEL_ENV: "llama3", API_KEY_ENV: ""}
    )
    assert gen.api_key is None
    assert gen.timeout_s == 60.0


BAD_CONFIG = [
    ("no_base_url", {MODEL_ENV: "m"}, BASE_URL_ENV),
    ("blank_base_url", {BASE_URL_ENV: "  ", MODEL_ENV: "m"}, BASE_URL_ENV),
    ("no_model", {BASE_URL_ENV: "http://localhost:11434/v1"}, MODEL_ENV),
    ("not_http", {BASE_URL_ENV: "file:///etc/passwd", MODEL_ENV: "m"}, BASE_URL_ENV),
    ("no_host", {BASE_URL_ENV: "localhost:11434", MODEL_ENV: "m"}, BASE_URL_ENV),
    ("timeout_not_a_number", {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", TIMEOUT_ENV: "soon"}, TIMEOUT_ENV),
    ("timeout_zero", {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", TIMEOUT_ENV: "0"}, TIMEOUT_ENV),
    ("timeout_nan", {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", TIMEOUT_ENV: "nan"}, TIMEOUT_ENV),
    ("timeout_infinite", {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", TIMEOUT_ENV: "inf"}, TIMEOUT_ENV),
    ("port_out_of_range", {BASE_URL_ENV: "http://h:65536/v1", MODEL_ENV: "m"}, BASE_URL_ENV),
    ("does_not_parse", {BASE_URL_ENV: "http://[::1/v1", MODEL_ENV: "m"}, BASE_URL_ENV),
    ("key_too_short", {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", API_KEY_ENV: "sk-1234"}, API_KEY_ENV),
    ("key_with_a_newline", {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", API_KEY_ENV: "sk-1234\n5678"}, API_KEY_ENV),
    (
        "sample_values_maybe",
        {BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", SAMPLE_VALUES_ENV: "maybe"},
        SAMPLE_VALUES_ENV,
    ),
]


@pytest.mark.parametrize(("raw", "sent"), [("0", False), ("false", False), ("OFF", False), ("1", True), ("yes", True)])
def test_sample_values_is_a_switch_and_the_flag_can_only_turn_it_off(raw, sent):
    env = {BASE_URL_ENV: "http://localhost:11434/v1", MODEL_ENV: "m", SAMPLE_VALUES_ENV: raw}
    assert OpenAIChatGenerator.from_env(env).sample_values is sent
    assert OpenAIChatGenerator.from_env(env, sample_values=False).sample_values is False


@pytest.mark.parametrize(("env", "variable"), [c[1:] for c in BAD_CONFIG], ids=[c[0] for c in BAD_CONFIG])
def test_bad_configuration_is_a_clear_error(env, variable):
    with pytest.raises(GeneratorConfigError, match=variable):
        OpenAIChatGenerator.from_env(env)


def test_a_refused_setting_is_never_repeated():
    with pytest.raises(GeneratorConfigError) as caught:
        OpenAIChatGenerator.from_env({BASE_URL_ENV: "sk-live-4f9a2b@h:8080/v1", MODEL_ENV: "m"})
    assert "sk-live-4f9a2b" not in str(caught.value) and "h:8080" not in str(caught.value)
    with pytest.raises(GeneratorConfigError) as caught:
        OpenAIChatGenerator.from_env({BASE_URL_ENV: "http://h/v1", MODEL_ENV: "m", API_KEY_ENV: "sk-7 x"})
    assert "sk-7" not in str(caught.value) and "is 6 character(s) long, shorter than the 8" in str(caught.value)


def test_config_error_is_a_value_error():
    assert issubclass(GeneratorConfigError, ValueError)


def test_local_server_bypasses_an_http_proxy_from_the_environment(monkeypatch):
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    with refused_port() as dead_proxy, FakeHTTPServer(chat_reply("SELECT 1")) as server:
        for name in ("http_proxy", "HTTP_PROXY"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{dead_proxy}")
        assert generator(server).generate(QUESTION, SCHEMA).sql == "SELECT 1"
