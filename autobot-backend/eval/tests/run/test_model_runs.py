"""The model path at full speed, against a real OpenAI-compatible server on 127.0.0.1: concurrency,
retries, repeats, cost and time, a dead endpoint, an interrupted run, and the run's identity."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

from eval.run import main
from eval.sql.corpus.questions import load_corpus
from tests.bounds import PATIENCE_S
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply

BACKEND = Path(__file__).resolve().parents[3]
BUILTIN = load_corpus()
# A small corpus of the built-in fixtures: answerable questions of both fixtures and a few must-refuse cases.
PICKED = [q for q in BUILTIN.questions if q.expect == "answer"][:14:2] + [
    q for q in BUILTIN.questions if q.expect == "refuse"
][:4]


def question_of(request: ReceivedRequest) -> str:
    return re.search(r"Question: (.*)$", request.json()["messages"][-1]["content"], re.S).group(1).strip()


class Endpoint:
    """Answers each question with its reference SQL (or refuses a must-refuse one), optionally slowly,
    wrongly for some, and counting how many requests were in flight at once."""

    def __init__(
        self,
        wrong: set[str] = frozenset(),
        delay_s: float = 0.0,
        usage=(100, 10),
        flaky: set[str] = frozenset(),
        first_limited: bool = False,
    ):
        self.by_text = {q.question: q for q in PICKED}
        self.wrong, self.delay_s, self.usage, self.flaky, self.first_limited = (
            wrong,
            delay_s,
            usage,
            flaky,
            first_limited,
        )
        self.asked: Counter[str] = Counter()
        self.in_flight = self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, request: ReceivedRequest) -> Reply:
        q = self.by_text[question_of(request)]
        with self.lock:
            self.asked[q.id] += 1
            n = self.asked[q.id]
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            time.sleep(self.delay_s)
            if self.first_limited and n == 1:
                return Reply(429, b"slow down", "text/plain", headers=(("Retry-After", "0"),))
            if q.expect == "refuse":
                return chat_reply("REFUSE: not in this database", usage=self.usage)
            right = q.id not in self.wrong and not (q.id in self.flaky and n > 1)
            return chat_reply(f"```sql\n{q.sql if right else 'SELECT 424242'}\n```", usage=self.usage)
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in (
        "EVAL_OUTPUT_DIR",
        "EVAL_CALLER_DIR",
        "NL_SQL_LLM_API_KEY",
        "NL_SQL_LLM_PRICE_IN",
        "NL_SQL_LLM_PRICE_OUT",
    ):
        monkeypatch.delenv(var, raising=False)
    questions = [
        {
            k: v
            for k, v in {
                "id": q.id,
                "question": q.question,
                "expect": q.expect,
                "stratum": q.stratum,
                "fixture": q.fixture,
                "shape": None if q.expect == "refuse" else q.shape,
                "ordered": q.ordered if q.expect == "answer" else None,
                "decimals": q.decimals if q.expect == "answer" else None,
                "sql": q.sql,
            }.items()
            if v is not None
        }
        for q in PICKED
    ]
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}))
    return tmp_path


def llm(monkeypatch, server: FakeHTTPServer, **env: str) -> None:
    monkeypatch.setenv("NL_SQL_LLM_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("NL_SQL_LLM_MODEL", "fake-model")
    monkeypatch.setenv("NL_SQL_LLM_TIMEOUT_S", "10")
    for k, v in env.items():
        monkeypatch.setenv(k, v)


def run(*args: str) -> int:
    return main(["--suite", "sql", "--candidate", "llm", "--corpus", "mine.yaml", *args])


def graded(path: str) -> list[tuple]:
    data = json.loads(Path(path).read_text())
    return [(q["id"], q["verdict"], q["reason"], q["sql"]) for q in data["questions"]]


def test_the_report_is_the_same_for_every_concurrency(work, monkeypatch):
    endpoint = Endpoint(wrong={PICKED[1].id, PICKED[4].id}, delay_s=0.1)
    with FakeHTTPServer(handler=endpoint) as server:
        llm(monkeypatch, server)
        assert run("--concurrency", "1", "--json", "one.json") == 0
        assert endpoint.peak == 1
        endpoint.peak = 0
        assert run("--concurrency", "8", "--json", "eight.json") == 0
        assert endpoint.peak > 1  # requests really overlapped
    assert graded("one.json") == graded("eight.json")
    one, eight = (json.loads(Path(p).read_text()) for p in ("one.json", "eight.json"))
    assert one["summary"] == eight["summary"] and one["summary"]["wrong"] == 2
    assert (
        one["cohort"]["fingerprint"] == eight["cohort"]["fingerprint"]
    )  # concurrency does not change what is measured


def test_rate_limited_questions_are_retried_and_measured(work, monkeypatch):
    endpoint = Endpoint(first_limited=True)
    with FakeHTTPServer(handler=endpoint) as server:
        llm(monkeypatch, server)
        assert run("--json", "r.json") == 0
    data = json.loads(Path("r.json").read_text())
    assert data["summary"]["unmeasured"] == data["summary"]["must_refuse_unmeasured"] == 0
    assert set(endpoint.asked.values()) == {2}  # every question: a 429, then the answer


def test_repeats_give_the_majority_pass_at_k_pass_hat_k_and_the_flaky_questions(work, monkeypatch):
    flaky, wrong = PICKED[0].id, PICKED[2].id
    endpoint = Endpoint(wrong={wrong}, flaky={flaky})  # flaky: right the first time only
    with FakeHTTPServer(handler=endpoint) as server:
        llm(monkeypatch, server, NL_SQL_LLM_TEMPERATURE="0.7")
        assert run("--repeats", "3", "--json", "k.json") == 0
    data = json.loads(Path("k.json").read_text())
    answerable = [q for q in PICKED if q.expect == "answer"]
    assert set(endpoint.asked.values()) == {3}
    by_id = {q["id"]: q for q in data["questions"]}
    # Which of the three asks arrives first is the scheduler's business; one of them is right.
    assert sorted(by_id[flaky]["samples"]) == ["pass", "wrong", "wrong"] and by_id[flaky]["verdict"] == "wrong"
    r = data["repeats"]
    assert r["k"] == 3 and r["flaky"] == [flaky]
    assert r["pass_at_3"] == round((len(answerable) - 1) / len(answerable), 4)
    assert r["pass_hat_3"] == round((len(answerable) - 2) / len(answerable), 4)
    assert r["majority_pass_rate"] == data["summary"]["pass_rate"] and r["questions"] == len(answerable)
    assert data["cohort"]["keys"]["temperature"] == 0.7 and data["cohort"]["keys"]["repeats"] == 3
    # Latency and tokens count the same asks: all three of every question, and say so.
    costs, asks = data["costs"], 3 * len(PICKED)
    assert costs["model_latency_ms"]["asks"] == costs["tokens_asks"] == costs["asks"] == asks
    assert (costs["asks_per_question"], costs["model_latency_ms"]["questions"]) == (3, len(PICKED))
    assert (costs["prompt_tokens"], costs["completion_tokens"]) == (100 * asks, 10 * asks)
    per_question = by_id[PICKED[1].id]["cost"]
    assert per_question["prompt_tokens"] == 300, "a question's tokens: the total of its three asks"


def test_repeats_are_refused_for_a_deterministic_candidate(work, capsys):
    assert main(["--suite", "sql", "--corpus", "mine.yaml", "--repeats", "3"]) == 2
    assert "deterministic" in capsys.readouterr().err


def test_tokens_latency_and_cost_per_question_and_per_run(work, monkeypatch):
    endpoint = Endpoint(delay_s=0.05, usage=(1000, 50))
    with FakeHTTPServer(handler=endpoint) as server:
        llm(monkeypatch, server, NL_SQL_LLM_PRICE_IN="2.5", NL_SQL_LLM_PRICE_OUT="10")
        assert run("--json", "c.json") == 0
    data = json.loads(Path("c.json").read_text())
    n = len(PICKED)
    costs = data["costs"]
    assert (costs["prompt_tokens"], costs["completion_tokens"]) == (1000 * n, 50 * n)
    assert costs["cost"] == pytest.approx(1000 * n / 1e6 * 2.5 + 50 * n / 1e6 * 10)
    assert costs["model_latency_ms"]["p50"] >= 50 and costs["model_latency_ms"]["questions"] == n
    q = next(q for q in data["questions"] if q["verdict"] == "pass")
    assert q["cost"]["prompt_tokens"] == 1000 and q["cost"]["model_ms"] >= 50
    assert q["cost"]["candidate_ms"] > 0 and q["cost"]["reference_ms"] > 0
    assert costs["efficiency"]["n"] == data["summary"]["pass"]


def test_a_dead_endpoint_stops_the_run_early(work, monkeypatch):
    with FakeHTTPServer(Reply(503, b"down", "text/plain")) as server:
        llm(monkeypatch, server, NL_SQL_LLM_MAX_ATTEMPTS="1")
        assert run("--concurrency", "1", "--stop-after-unavailable", "3", "--json", "d.json") == 2
        assert len(server.requests) == 3  # stopped after the third: the rest was never asked
    questions = json.loads(Path("d.json").read_text())["questions"]
    assert {q["verdict"] for q in questions} == {"unmeasured"}
    assert sum("unavailable for 3 questions in a row" in q["detail"] for q in questions) == len(PICKED) - 3


def test_the_run_budget_leaves_the_rest_unmeasured(work, monkeypatch):
    endpoint = Endpoint(delay_s=0.5)
    with FakeHTTPServer(handler=endpoint) as server:
        llm(monkeypatch, server)
        assert run("--concurrency", "1", "--max-run-seconds", "1.2", "--json", "b.json") in (0, 2)
    questions = json.loads(Path("b.json").read_text())["questions"]
    spent = [q for q in questions if "time budget" in (q["detail"] or "")]
    assert spent and all(q["verdict"] == "unmeasured" for q in spent) and len(endpoint.asked) < len(PICKED)


def test_an_interrupt_writes_the_report_so_far_marked_partial_and_exits_2(work):
    endpoint = Endpoint(delay_s=0.4)
    with FakeHTTPServer(handler=endpoint) as server:
        env = {
            **os.environ,
            "NL_SQL_LLM_BASE_URL": server.url + "/v1",
            "NL_SQL_LLM_MODEL": "fake-model",
            "PYTHONPATH": str(BACKEND),
        }
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "eval.run",
                "--suite",
                "sql",
                "--candidate",
                "llm",
                "--corpus",
                "mine.yaml",
                "--concurrency",
                "1",
                "--json",
                "p.json",
            ],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not endpoint.asked and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=PATIENCE_S)[1]  # a guard against a hang; the report shows it stopped
    assert proc.returncode == 2, err
    data = json.loads((work / "p.json").read_text())
    assert data["partial"] is True
    assert any(q["verdict"] != "unmeasured" for q in data["questions"])
    assert any("interrupted" in (q["detail"] or "") for q in data["questions"])


def test_a_trickling_model_cannot_hang_the_run(work, monkeypatch):
    slow = chat_reply("SELECT 1", trickle_s=0.5)  # headers at once, then a byte every half second
    with FakeHTTPServer(slow) as server:
        llm(monkeypatch, server, NL_SQL_LLM_TIMEOUT_S="1", NL_SQL_LLM_MAX_ATTEMPTS="1")
        assert run("--concurrency", "4", "--stop-after-unavailable", "0", "--json", "t.json") == 2
    questions = json.loads(Path("t.json").read_text())["questions"]
    asked = [q for q in questions if q["reason"] != "oracle"]
    assert asked and all(q["verdict"] == "unmeasured" for q in asked)
    assert all("no answer within 1 s" in q["detail"] for q in asked)


def test_credentials_in_the_endpoint_url_never_show(work, monkeypatch, capsys, caplog):
    endpoint = Endpoint(wrong={PICKED[0].id})
    with FakeHTTPServer(handler=endpoint) as server:
        base = server.url.replace("http://", "http://bob:pa55word@") + "/v1?api-key=sk-t0ken&region=eu"
        llm(monkeypatch, server, NL_SQL_LLM_BASE_URL=base)
        caplog.set_level("DEBUG")
        assert run("--json", "s.json", "--markdown", "s.md") in (0, 1)
        assert endpoint.asked, "the endpoint was reached through the URL with credentials"
        assert server.requests[0].path.startswith("/v1/chat/completions?api-key=sk-t0ken")
    out, err = capsys.readouterr()
    shown = "\n".join([out, err, caplog.text, Path("s.json").read_text(), Path("s.md").read_text()])
    assert "pa55word" not in shown and "sk-t0ken" not in shown
    assert "bob:***@127.0.0.1" in Path("s.json").read_text()
