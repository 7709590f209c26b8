"""The same failure gets the same verdict on every candidate path: each path is one call to the real
service on a real SQLite file, the generators are real objects (a model behind a real HTTP server on
127.0.0.1), and the run is graded by the real pipeline.

* The generator raised (its own failure: no SQL came back): ``refused``, in the denominator.
* The generator could not be asked (endpoint down, a reply that is no chat completion), or a
  recording has no line for the question: ``unmeasured``, the harness could not judge.
* SQL came back that cannot run (a lone surrogate the driver cannot send): ``error``, ``database``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.core.runner import Limits
from eval.sql.corpus.answers import load_answers
from eval.sql.corpus.questions import load_corpus
from eval.sql.grading.candidates import AnswersById
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.pipeline import RunSpec, run_suite
from services.generation.chat_terms import ChatPolicy
from services.generation.llm import OpenAIChatGenerator
from services.generation.protocol import Generation, GeneratorUnavailable, SQLGenerator
from services.schema_context import SchemaContext
from tests.http_fakes import FakeHTTPServer, Reply, chat_reply, json_reply, refused_port
from tests.nl_service_helpers import build_shop

CORPUS = """version: 1
questions:
  - id: count
    question: How many customers are there?
    shape: scalar
    sql: SELECT COUNT(*) FROM customers
  - id: wipe
    question: Delete every cancelled order.
    expect: refuse
    stratum: unsupported_write
"""
NAME = "model-under-test"
CRASH = RuntimeError("model exploded")
NOT_TEXT = "SELECT COUNT(*) FROM customers WHERE name <> '\ud800'"
NOT_TEXT_REASON = (
    f"The SQL holds '\\ud800' at character {NOT_TEXT.index(chr(0xD800)) + 1}, a lone surrogate that is not text: "
    "it cannot be sent to the database."
)


class Offline:
    """A generator asked in a thread (the embedded path's kind): always the same outcome."""

    name, model = NAME, NAME

    def __init__(self, outcome: Generation | Exception) -> None:
        self.outcome = outcome

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


class CrashingModel(OpenAIChatGenerator):
    """The real model generator (a real request, a real reply) with a bug of its own after the reply."""

    name = NAME

    async def agenerate(self, question: str, schema: SchemaContext, session: object = None) -> Generation:
        await super().agenerate(question, schema, session)  # type: ignore[arg-type]
        raise CRASH


@pytest.fixture
def shop(tmp_path: Path) -> tuple[str, Path]:
    (tmp_path / "mine.yaml").write_text(CORPUS)
    return build_shop(tmp_path / "shop.db"), tmp_path / "mine.yaml"


def run(shop: tuple[str, Path], candidate: str, generator: SQLGenerator, answers: Path | None = None) -> SQLOutcome:
    """The answerable question's graded outcome, after a whole run of the path."""
    url, corpus = shop
    report = run_suite(
        RunSpec(
            candidate=candidate,
            generator=generator,
            corpus=load_corpus([corpus], fixtures=None),
            fixtures={},
            builtin=False,
            db_url=url,
            answers=None if answers is None else load_answers(answers),
            limits=Limits(stop_after_unavailable=5),
        )
    )
    by_id = {o.question_id: o for o in report.outcomes}
    assert set(by_id) == {"count", "wipe"}
    return by_id["count"]


def model(url: str) -> OpenAIChatGenerator:
    return OpenAIChatGenerator(url + "/v1", NAME, timeout_s=5, policy=ChatPolicy(max_attempts=1))


def recorded(shop: tuple[str, Path], lines: list[dict[str, object]]) -> Path:
    path = shop[1].with_name("answers.jsonl")
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))  # a lone surrogate is written \ud800
    return path


def seen(outcome: SQLOutcome) -> tuple[Verdict, str | None, str, bool]:
    return outcome.verdict, outcome.reason, outcome.detail, outcome.measured


# --- the generator raised ------------------------------------------------------------------------


def test_a_generator_that_raises_is_refused_on_every_path(shop):
    embedded = run(shop, "embedded", Offline(CRASH))
    with FakeHTTPServer(chat_reply("```sql\nSELECT COUNT(*) FROM customers\n```")) as server:
        llm = run(shop, "llm", CrashingModel(server.url + "/v1", NAME, timeout_s=5))
        assert server.requests, "the model was really asked"
    expected = (
        Verdict.REFUSED,
        "refused",
        f"no SQL came back (generator_error): Generator {NAME} failed: RuntimeError: model exploded",
        True,  # the system under test failed: it stays in the pass rate's denominator
    )
    assert seen(embedded) == seen(llm) == expected


# --- the generator could not be asked ------------------------------------------------------------

ENDPOINT_DOWN = [
    ("http_500", Reply(500, b'{"error": {"message": "CUDA out of memory"}}'), "HTTP 500"),
    ("not_json", Reply(200, b"<html>It works!</html>", "text/html"), "not JSON"),
    ("no_chat_completion", json_reply({"object": "list", "data": []}), "choices[0].message.content"),
    ("nested_too_deep", Reply(200, b"[" * 100_000), "not JSON"),
    ("connection_dropped", Reply(drop=True), "the connection dropped"),
]


@pytest.mark.parametrize(("reply", "said"), [c[1:] for c in ENDPOINT_DOWN], ids=[c[0] for c in ENDPOINT_DOWN])
def test_an_endpoint_that_gives_no_chat_completion_is_unmeasured_on_the_llm_path(shop, reply, said):
    with FakeHTTPServer(reply) as server:
        outcome = run(shop, "llm", model(server.url))
    assert (outcome.verdict, outcome.reason, outcome.measured) == (Verdict.UNMEASURED, "unmeasured", False)
    assert outcome.detail.startswith(f"unavailable: openai-chat (model '{NAME}') at http://127.0.0.1:")
    assert said in outcome.detail


def test_a_generator_that_cannot_be_asked_is_unmeasured_on_every_path(shop):
    with refused_port() as port:
        refused = run(shop, "llm", model(f"http://127.0.0.1:{port}"))
    embedded = run(shop, "embedded", Offline(GeneratorUnavailable("cannot connect: is the server running?")))
    missing = run(shop, "recorded", AnswersById("recorded", NAME), recorded(shop, [{"id": "wipe", "refused": True}]))
    for outcome in (refused, embedded):
        assert (outcome.verdict, outcome.reason, outcome.measured) == (Verdict.UNMEASURED, "unmeasured", False)
        assert outcome.detail.startswith("unavailable: ") and "is the server running?" in outcome.detail
    # A recording without the line: the same verdict, with the reason spec section 10 gives it.
    assert seen(missing) == (Verdict.UNMEASURED, "no answer recorded", "the answers file has no line for it", False)


def test_a_recorded_run_asked_by_text_is_unmeasured_never_a_refusal(shop):
    outcome = run(shop, "embedded", AnswersById("recorded", NAME))  # the service's generator asked after all
    assert (outcome.verdict, outcome.reason, outcome.measured) == (Verdict.UNMEASURED, "unmeasured", False)
    assert "no answer recorded" in outcome.detail


# --- SQL came back that cannot run ---------------------------------------------------------------


def test_sql_the_service_cannot_send_is_an_error_on_every_path(shop):
    embedded = run(shop, "embedded", Offline(Generation(sql=NOT_TEXT)))
    with FakeHTTPServer(chat_reply(f"```sql\n{NOT_TEXT}\n```")) as server:
        llm = run(shop, "llm", model(server.url))
    line = recorded(shop, [{"id": "count", "sql": NOT_TEXT}, {"id": "wipe", "refused": True}])
    assert "\\ud800" in line.read_text()
    answers = run(shop, "recorded", AnswersById("recorded", NAME), line)
    assert seen(embedded) == seen(llm) == seen(answers) == (Verdict.ERROR, "database", NOT_TEXT_REASON, True)
    assert embedded.sql == llm.sql == answers.sql == NOT_TEXT
