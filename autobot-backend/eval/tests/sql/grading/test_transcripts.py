"""Transcripts (issue 26 point 3): for a model candidate, the JSON keeps per question and per ask the
messages sent, the raw reply, the SQL taken from it, latency and tokens; the HTML shows them; secrets
never appear in them; ``--no-transcripts`` leaves them out and every report says so; a huge reply is
clipped; a recorded or built-in candidate has none, and says why.

Against a real OpenAI-compatible server on 127.0.0.1 that copies the request's ``Authorization`` header
and the key into its reply, as a careless proxy or a model echoing its prompt would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.run import main
from eval.sql.model.serialise import from_json
from eval.sql.model.transcript import REPLY_KEPT
from eval.tests import small_run as sr
from eval.tests.run.test_model_runs import PICKED, question_of, work  # noqa: F401  (the fixture)
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply

KEY = "sk-test-transcript-0123456789abcdef"
BY_TEXT = {q.question: q for q in PICKED}


class EchoingEndpoint:
    """Answers each question with its reference (refuses a must-refuse one), and puts the request's
    ``Authorization`` header and the key itself in the reply."""

    def __init__(self, huge: str | None = None) -> None:
        self.huge = huge
        self.headers: list[str] = []

    def __call__(self, request: ReceivedRequest) -> Reply:
        q = BY_TEXT[question_of(request)]
        self.headers.append(request.headers.get("authorization", ""))
        echo = f"(auth was {request.headers.get('authorization')}; key {KEY})"
        if q.id == self.huge:
            return chat_reply(f"```sql\n{q.sql}\n```\n" + "x" * 50_000, usage=(120, 7))
        if q.expect == "refuse":
            return chat_reply(f"REFUSE: not in this database {echo}", usage=(120, 7))
        return chat_reply(f"Here it is {echo}\n```sql\n{q.sql}\n```", usage=(120, 7))


def llm_run(monkeypatch, server: FakeHTTPServer, *args: str) -> int:
    monkeypatch.setenv("NL_SQL_LLM_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("NL_SQL_LLM_MODEL", "fake-model")
    monkeypatch.setenv("NL_SQL_LLM_API_KEY", KEY)
    monkeypatch.setenv("NL_SQL_LLM_TEMPERATURE", "0.5")
    return main(["--suite", "sql", "--candidate", "llm", "--corpus", "mine.yaml", *args])


def test_a_model_run_keeps_every_ask_with_its_secrets_masked(work, monkeypatch):  # noqa: F811
    endpoint = EchoingEndpoint()
    reports = ["--json", "r.json", "--html", "r.html", "--markdown", "r.md", "--junit", "r.xml"]
    with FakeHTTPServer(handler=endpoint) as server:
        assert llm_run(monkeypatch, server, "--repeats", "2", *reports) == 0
    assert endpoint.headers and set(endpoint.headers) == {f"Bearer {KEY}"}, "the key went in the header"
    for name in ("r.json", "r.html", "r.md", "r.xml"):
        assert KEY not in Path(name).read_text(), f"{name} shows the API key"
    data = json.loads(Path("r.json").read_text())
    assert data["transcripts"] == {"kept": True, "why": None}
    for q in data["questions"]:
        asked = BY_TEXT[q["question"]]
        assert len(q["transcripts"]) == 2, "one transcript per ask"
        for t in q["transcripts"]:
            assert [m["role"] for m in t["messages"]] == ["system", "user"]
            assert t["messages"][1]["content"].endswith(f"Question: {asked.question}")
            assert "REFUSE: <reason>" in t["messages"][0]["content"], "the rules as sent"
            assert "Bearer ***" in t["reply"] and "key ***" in t["reply"], "the echoed key is masked"
            assert (t["prompt_tokens"], t["completion_tokens"]) == (120, 7) and t["latency_ms"] > 0
            if asked.expect == "answer":
                assert t["sql"] == asked.sql.strip().rstrip(";") and t["refusal"] is None
            else:
                assert t["sql"] is None and t["refusal"].startswith("not in this database")
    run = from_json(data)  # the model reads them back, and the page shows them
    assert run.outcomes[0].transcripts[0].messages[0][0] == "system"
    page = Path("r.html").read_text()
    assert page.count('<details class="transcripts">') == len(data["questions"])
    assert "transcripts of 2 asks" in page and "Bearer ***" in page
    assert 'ask 2 · <span class="badge v-pass">pass</span>' in page, "each ask with its own verdict"
    assert "Transcripts: kept per question and ask" in Path("r.md").read_text()


def test_no_transcripts_leaves_them_out_and_the_reports_say_so(work, monkeypatch):  # noqa: F811
    with FakeHTTPServer(handler=EchoingEndpoint()) as server:
        assert (
            llm_run(
                monkeypatch, server, "--no-transcripts", "--json", "r.json", "--html", "r.html", "--markdown", "r.md"
            )
            == 0
        )
    data = json.loads(Path("r.json").read_text())
    assert data["transcripts"]["kept"] is False and "--no-transcripts" in data["transcripts"]["why"]
    assert all(q["transcripts"] == [] for q in data["questions"])
    page, markdown = Path("r.html").read_text(), Path("r.md").read_text()
    assert 'id="transcripts-note">Transcripts: none (left out with --no-transcripts' in page
    assert '<details class="transcripts">' not in page and "No transcript:" not in page
    assert "Transcripts: none (left out with --no-transcripts, for a report meant to be published)." in markdown


def test_a_huge_reply_is_clipped_and_its_length_kept(work, monkeypatch):  # noqa: F811
    huge = next(q for q in PICKED if q.expect == "answer")
    with FakeHTTPServer(handler=EchoingEndpoint(huge=huge.id)) as server:
        assert llm_run(monkeypatch, server, "--json", "r.json", "--html", "r.html") == 0
    data = json.loads(Path("r.json").read_text())
    (t,) = next(q for q in data["questions"] if q["id"] == huge.id)["transcripts"]
    whole = len(f"```sql\n{huge.sql}\n```\n") + 50_000
    assert t["reply_chars"] == whole and t["reply"].startswith(f"```sql\n{huge.sql}")
    assert len(t["reply"]) < REPLY_KEPT + 100 and t["reply"].endswith(f"[clipped: {whole:,} characters in all]")
    assert t["sql"] == huge.sql.strip().rstrip(";"), "the SQL was taken from the whole reply"
    assert f"clipped to {REPLY_KEPT:,} of {whole:,} characters" in Path("r.html").read_text()


@pytest.mark.parametrize("candidate", ["recorded", "embedded"])
def test_a_candidate_that_is_not_a_model_has_no_transcript_and_says_why(tmp_path, monkeypatch, candidate):
    monkeypatch.chdir(tmp_path)
    sr.write_corpus(tmp_path / "mine.yaml")
    sr.write_answers(tmp_path / "a.jsonl")
    extra = ["--answers", "a.jsonl"] if candidate == "recorded" else []
    args = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", candidate, *extra]
    assert main([*args, "--json", "r.json", "--html", "r.html"]) in (0, 1)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["transcripts"]["kept"] is False
    assert ("written beforehand" if candidate == "recorded" else "not a model") in data["transcripts"]["why"]
    assert all(q["transcripts"] == [] for q in data["questions"])
    page = (tmp_path / "r.html").read_text()
    assert "Transcripts: none (" in page and '<details class="transcripts">' not in page
