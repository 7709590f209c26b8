"""The judge against a real OpenAI-compatible server on 127.0.0.1: the schema-constrained request and its
fallback, strict validation, the one retry (seen in the server's request count), and unmeasured turns."""

from __future__ import annotations

import json

import pytest

from eval.turns.format import parse_turn
from eval.turns.judge import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, Judge, JudgeConfigError, validate_reply
from eval.turns.prompt import SYSTEM_PROMPT
from eval.turns.rubric import RUBRIC_VERSION
from tests.http_fakes import FakeHTTPServer, Reply, chat_reply, json_reply, refused_port

WITH_ANSWER = parse_turn(
    {
        "turn_id": "t-1",
        "time": "2026-12-01T10:00:00Z",
        "question": "How many orders were returned?",
        "trajectory": [
            {"sql": "SELECT COUNT(*) FROM orders WHERE status = 'returned'", "status": "ok", "row_count": 1,
             "columns": ["n"], "rows": [[97]]},
        ],
        "answer": "97 orders were returned.",
    }
)  # fmt: skip
NO_ANSWER = parse_turn(WITH_ANSWER.to_json() | {"answer": None})


def reply(**over):
    base = {"intent": 9, "sql_quality": 8, "result_relevance": 9, "answer_faithfulness": 10, "band": "good",
            "explanation": "COUNT(*) with status = 'returned'; the answer's 97 matches the one row."}  # fmt: skip
    return json.dumps(base | over)


def judge_at(server, model="judge-model"):
    return Judge(server.url + "/v1", model, timeout_s=5)


def test_a_valid_reply_is_scored_with_its_arithmetic_and_the_request_is_schema_constrained():
    with FakeHTTPServer(chat_reply(reply())) as server:
        j = judge_at(server).judge(WITH_ANSWER)
        [request] = server.requests
    assert j.scored and j.attempts == 1 and j.output_mode == "json_schema"
    # 0.3*9 + 0.25*8 + 0.25*9 + 0.2*10 = 8.95 -> 89.5
    assert float(j.arithmetic.composite) == 89.5 and j.arithmetic.band == "good" and j.arithmetic.band_agrees
    body = request.json()
    assert body["model"] == "judge-model" and body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "97 orders were returned." in body["messages"][1]["content"] and "t-1" not in body["messages"][1]["content"]
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"]
    assert schema["additionalProperties"] is False and schema["properties"]["intent"]["maximum"] == 10
    assert schema["properties"]["answer_faithfulness"]["type"] == "integer"


def test_without_answer_text_faithfulness_must_be_null_and_the_weights_renormalise():
    with FakeHTTPServer(chat_reply(reply(answer_faithfulness=None))) as server:
        j = judge_at(server).judge(NO_ANSWER)
        schema = server.requests[0].json()["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["answer_faithfulness"] == {"type": "null"}
    # 0.375*9 + 0.3125*8 + 0.3125*9 = 3.375 + 2.5 + 2.8125 = 8.6875 -> 86.875
    assert float(j.arithmetic.composite) == 86.875


def test_an_endpoint_that_rejects_the_schema_is_asked_without_it_and_not_asked_with_it_again():
    rejected = json_reply({"error": {"message": "response_format json_schema is not supported"}}, status=400)
    with FakeHTTPServer(rejected, chat_reply(reply()), chat_reply(reply(band="partial"))) as server:
        judge = judge_at(server)
        first, second = judge.judge(WITH_ANSWER), judge.judge(WITH_ANSWER)
        asked = [("response_format" in r.json()) for r in server.requests]
    assert asked == [True, False, False]
    assert first.scored and first.output_mode == "prompt" and second.output_mode == "prompt"
    assert judge.describe()["output_mode"] == "prompt" and "not supported" in judge.describe()["schema_note"]


INVALID = [
    ("not json at all", "not a JSON object"),
    ("[1, 2, 3]", "JSON list, not an object"),
    (reply(intent=11), "intent is 11, outside 0..10"),
    (reply(sql_quality=-1), "sql_quality is -1, outside 0..10"),
    (reply(intent=7.0), "intent must be an integer"),
    (reply(intent="7"), "intent must be an integer"),
    (reply(intent=True), "intent must be an integer"),
    (reply(result_relevance=None), "result_relevance must be an integer"),
    (json.dumps({k: v for k, v in json.loads(reply()).items() if k != "band"}), "missing band"),
    (reply(confidence=0.9), "unexpected confidence"),
    (reply(band="excellent"), "band must be one of good, partial, poor"),
    (reply(answer_faithfulness=None), "answer_faithfulness must be an integer"),  # the turn has an answer
    (reply(explanation="  "), "explanation must be non-empty text"),
    (reply(explanation="x" * 1201), "explanation is 1201 characters"),
]


@pytest.mark.parametrize(("content", "message"), INVALID)
def test_an_invalid_reply_is_retried_once_then_unmeasured_never_a_score(content, message):
    with FakeHTTPServer(chat_reply(content)) as server:
        j = judge_at(server).judge(WITH_ANSWER)
        assert len(server.requests) == 2  # the first reply and exactly one retry
    assert not j.scored and j.arithmetic is None and j.reply is None
    assert j.reason.startswith("the judge's reply was invalid twice") and message in j.reason
    assert j.attempts == 2 and len(j.invalid_replies) == 2


def test_faithfulness_given_for_a_turn_without_answer_text_is_invalid():
    with FakeHTTPServer(chat_reply(reply(answer_faithfulness=6))) as server:
        j = judge_at(server).judge(NO_ANSWER)
    assert not j.scored and "answer_faithfulness must be null: the turn has no answer text" in j.reason


def test_one_invalid_reply_then_a_valid_one_is_scored_and_the_retry_says_what_was_wrong():
    with FakeHTTPServer(chat_reply(reply(intent=12)), chat_reply(reply(intent=6))) as server:
        j = judge_at(server).judge(WITH_ANSWER)
        retry = server.requests[1].json()["messages"]
    assert j.scored and j.attempts == 2 and j.reply.intent == 6
    assert j.invalid_replies == ("intent is 12, outside 0..10",)
    assert retry[2] == {"role": "assistant", "content": reply(intent=12)}
    assert "intent is 12, outside 0..10" in retry[3]["content"]


def test_a_fenced_reply_and_a_thinking_block_are_read_but_prose_around_json_is_not():
    assert validate_reply("<think>hmm</think>\n```json\n" + reply() + "\n```", WITH_ANSWER).intent == 9
    with pytest.raises(ValueError, match="not a JSON object"):
        validate_reply("Here you go: " + reply(), WITH_ANSWER)


def test_a_reply_cut_off_while_thinking_holds_no_judgement():
    """An unclosed ``<think>`` runs to the end, as the generator reads it: nothing after it is a judgement."""
    with pytest.raises(ValueError):
        validate_reply("<think>maybe " + reply(), WITH_ANSWER)


def test_an_endpoint_that_fails_leaves_the_turn_unmeasured_without_a_validation_retry():
    with FakeHTTPServer(Reply(500, b"boom", "text/plain")) as server:
        j = judge_at(server).judge(WITH_ANSWER)
        assert len(server.requests) == 1  # 500 is not retried, and an unavailable judge is not a bad reply
    assert not j.scored and j.unavailable and j.reason.startswith("judge unavailable:") and "HTTP 500" in j.reason


def test_an_unreachable_endpoint_is_unmeasured():
    with refused_port() as port:
        j = Judge(f"http://127.0.0.1:{port}/v1", "m", timeout_s=2).judge(WITH_ANSWER)
    assert not j.scored and j.unavailable and f"check {BASE_URL_ENV}" in j.reason


# -- configuration ------------------------------------------------------------------------------------------


def test_the_judge_is_configured_from_the_environment_and_names_what_is_missing():
    with pytest.raises(JudgeConfigError, match=f"{BASE_URL_ENV}, {MODEL_ENV}"):
        Judge.from_env({})
    with pytest.raises(JudgeConfigError, match=f"not set: {MODEL_ENV}"):
        Judge.from_env({BASE_URL_ENV: "http://localhost:11434/v1"})
    with pytest.raises(JudgeConfigError, match=f"{API_KEY_ENV} \\(required for an endpoint not on this machine\\)"):
        Judge.from_env({BASE_URL_ENV: "https://api.example.com/v1", MODEL_ENV: "m"})
    with pytest.raises(JudgeConfigError, match="NL_SQL_JUDGE_TIMEOUT_S='soon'"):
        Judge.from_env({BASE_URL_ENV: "http://localhost/v1", MODEL_ENV: "m", "NL_SQL_JUDGE_TIMEOUT_S": "soon"})
    judge = Judge.from_env({BASE_URL_ENV: "http://localhost:11434/v1", MODEL_ENV: " m "})
    assert judge.identity()["model"] == "m" and judge.identity()["rubric_version"] == RUBRIC_VERSION


def test_the_api_key_goes_in_a_header_and_never_into_what_is_shown():
    key = "sk-judge-0123456789"
    with FakeHTTPServer(chat_reply(reply())) as server:
        judge = Judge.from_env({BASE_URL_ENV: server.url + "/v1?api-key=url-secret", MODEL_ENV: "m", API_KEY_ENV: key})
        judge.judge(WITH_ANSWER)
        assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    shown = json.dumps(judge.describe())
    assert key not in shown and "url-secret" not in shown and "api-key=***" in shown
