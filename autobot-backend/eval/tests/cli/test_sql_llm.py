"""``python -m eval.run --suite sql --candidate llm``: missing or bad configuration is exit 2 naming the setting,
and the model's SQL graded against a real OpenAI-compatible server on localhost (unreachable, hanging)."""

from __future__ import annotations

import json

import pytest

from eval.tests.cli._helpers import _user_corpus, sql


def test_llm_without_credentials_scores_nothing(work, capsys):
    assert sql("--candidate", "llm") == 2
    captured = capsys.readouterr()
    assert "NL_SQL_LLM_BASE_URL" in captured.err and "Nothing was scored" in captured.err
    assert "# SQL answer-accuracy report" not in captured.out


def test_llm_non_local_endpoint_needs_a_key(work, capsys, monkeypatch):
    monkeypatch.setenv("NL_SQL_LLM_BASE_URL", "https://api.example.com/v1")
    monkeypatch.setenv("NL_SQL_LLM_MODEL", "some-model")
    assert sql("--candidate", "llm") == 2
    assert "NL_SQL_LLM_API_KEY" in capsys.readouterr().err


# -- the llm path, against a real OpenAI-compatible server on localhost ------------------------------


def _llm_env(monkeypatch, url: str, model: str = "fake-model", timeout_s: float = 20) -> None:
    monkeypatch.setenv("NL_SQL_LLM_BASE_URL", url)
    monkeypatch.setenv("NL_SQL_LLM_MODEL", model)
    monkeypatch.setenv("NL_SQL_LLM_TIMEOUT_S", str(timeout_s))


LLM_CORPUS = [
    {
        "id": "l1",
        "question": "How many customers do we have?",
        "fixture": "retail",
        "shape": "scalar",
        "sql": "SELECT COUNT(*) FROM customers",
    },
    {
        "id": "l2",
        "question": "How many orders do we have?",
        "fixture": "retail",
        "shape": "scalar",
        "sql": "SELECT COUNT(*) FROM orders",
    },
]


def test_llm_path_grades_the_models_sql(work, monkeypatch):
    from tests.http_fakes import FakeHTTPServer, chat_reply

    corpus = _user_corpus(work / "mine.yaml", LLM_CORPUS)
    with FakeHTTPServer(chat_reply("```sql\nSELECT COUNT(*) FROM customers\n```")) as server:
        _llm_env(monkeypatch, server.url + "/v1")
        assert sql("--candidate", "llm", "--corpus", str(corpus), "--json", "l.json") == 0
        assert len(server.requests) == 2 and server.requests[0].json()["model"] == "fake-model"
    data = json.loads((work / "l.json").read_text())
    assert data["candidate"] == {"path": "llm", "model": "fake-model"}
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"l1": "pass", "l2": "wrong"}


def test_llm_endpoint_unreachable_is_unmeasured_and_exit_2(work, monkeypatch, capsys):
    from tests.http_fakes import refused_port

    corpus = _user_corpus(work / "mine.yaml", LLM_CORPUS)
    with refused_port() as port:
        _llm_env(monkeypatch, f"http://127.0.0.1:{port}/v1")
        assert sql("--candidate", "llm", "--corpus", str(corpus), "--json", "l.json") == 2
    data = json.loads((work / "l.json").read_text())
    assert {q["verdict"] for q in data["questions"]} == {"unmeasured"}
    assert "no question could be measured" in capsys.readouterr().err


def test_per_question_timeout_makes_a_hanging_model_unmeasured(work, monkeypatch):
    from tests.http_fakes import FakeHTTPServer, Reply

    corpus = _user_corpus(work / "mine.yaml", LLM_CORPUS[:1])
    with FakeHTTPServer(Reply(hang=True)) as server:
        # The harness gives up after 0.5 s; the model client's own 3 s limit then frees its thread.
        _llm_env(monkeypatch, server.url + "/v1", timeout_s=3)
        assert sql("--candidate", "llm", "--corpus", str(corpus), "--timeout", "0.5", "--json", "t.json") == 2
    [q] = json.loads((work / "t.json").read_text())["questions"]
    assert q["verdict"] == "unmeasured" and "timeout" in q["detail"]


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"NL_SQL_LLM_BASE_URL": "ftp://host/v1"}, "is not an http(s) URL"),
        ({"NL_SQL_LLM_BASE_URL": "http://127.0.0.1:99999/v1"}, "has a port outside 1..65535"),
        ({"NL_SQL_LLM_BASE_URL": "127.0.0.1:8080/v1"}, "is not an http(s) URL"),
        ({"NL_SQL_LLM_BASE_URL": "http://127.0.0.1:8080/v1", "NL_SQL_LLM_TIMEOUT_S": "0"}, "NL_SQL_LLM_TIMEOUT_S"),
    ],
)
def test_a_bad_llm_setting_is_a_configuration_error_not_a_bug(work, monkeypatch, capsys, env, named):
    monkeypatch.setenv("NL_SQL_LLM_MODEL", "m")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert sql("--candidate", "llm") == 2
    err = capsys.readouterr().err
    assert "the llm candidate's configuration" in err and named in err
    assert "internal error" not in err and "Traceback" not in err
