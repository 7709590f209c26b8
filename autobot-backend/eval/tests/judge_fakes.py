"""A scripted judge behind a real HTTP server: it reads each turn's question from the request and answers
with the subscores a test chose for it (or a malformed reply), so runs are exact and need no model."""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

import pytest

from eval.turns.judge import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply


def evidence(request: ReceivedRequest) -> dict[str, Any]:
    """The captured turn the judge was shown."""
    return json.loads(request.json()["messages"][1]["content"].split("\n", 1)[1])


def verdict(i: int, s: int, r: int, f: int | None, band: str = "good", why: str = "cites the rows") -> dict[str, Any]:
    return {"intent": i, "sql_quality": s, "result_relevance": r, "answer_faithfulness": f, "band": band,
            "explanation": why}  # fmt: skip


class ScriptedJudge:
    """Answers by the turn's question: a dict is a reply (faithfulness nulled when the turn has no answer),
    a string is sent as it is (malformed on purpose). Unscripted questions get ``default``."""

    def __init__(self, script: dict[str, Any] | None = None, default: Any = None) -> None:
        self.script = script or {}
        self.default = default if default is not None else verdict(8, 8, 8, 8)
        self.asked: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: ReceivedRequest) -> Reply:
        shown = evidence(request)
        with self.lock:
            self.asked[shown["question"]] += 1
        planned = self.script.get(shown["question"], self.default)
        if isinstance(planned, Reply):
            return planned
        if isinstance(planned, str):
            return chat_reply(planned)
        planned = dict(planned)
        if shown["answer"] is None:
            planned["answer_faithfulness"] = None
        return chat_reply(json.dumps(planned))


def point_judge_at(monkeypatch: pytest.MonkeyPatch, server: FakeHTTPServer, model: str = "judge-model") -> None:
    monkeypatch.setenv(BASE_URL_ENV, server.url + "/v1")
    monkeypatch.setenv(MODEL_ENV, model)
    monkeypatch.setenv("NL_SQL_JUDGE_TIMEOUT_S", "10")
    monkeypatch.delenv(API_KEY_ENV, raising=False)
