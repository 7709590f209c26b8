"""The ``sql_candidate``: ask ``NLDatabaseService`` each question, as a ``CandidateRunner``.

A SQL question travels through the harness as a golden of the existing store type: its inputs
carry the question, its id, what is expected (answer or refuse) and the fixture; its task class
is its stratum. Every candidate path goes through the same service call on the fixture's first
rotation, and differs only in the generator the service holds:

* ``reference``: a recorded generator holding each question's reference SQL (the self-check run);
* ``embedded``: the built-in offline generator;
* ``llm``: the OpenAI-compatible chat generator;
* ``recorded``: a recorded generator holding the answers of ``--answers FILE``.

Service errors that say nothing about the candidate (generator unreachable, database unreachable,
configuration) become :class:`CandidateUnavailable`, so the harness records the question as
unmeasured; every other outcome is carried in the ``CandidateResult`` for the grader.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from eval.errors import UsageError
from eval.runner import CandidateResult, CandidateRunner, CandidateUnavailable
from eval.sql.corpus import Question
from eval.store import ExpectedOutput, GoldenTrajectory
from services.nl_database_service import NLDatabaseService
from services.recorded_generator import RecordedGenerator
from services.sql_generation import Generation

# Service error kinds that are the harness's problem, not the candidate's.
UNMEASURED_ERROR_KINDS = frozenset({"generator_unavailable", "db_unreachable", "config", "bad_request"})
SERVICE_TOOL = "nl_database_query"


def question_golden(q: Question) -> GoldenTrajectory:
    """The golden a SQL question travels as."""
    return GoldenTrajectory(
        trajectory_id=q.id,
        task_class=q.stratum,
        inputs={"question": q.question, "question_id": q.id, "expect": q.expect, "fixture": q.fixture},
        expected_tools=(SERVICE_TOOL,),
        baseline_score=1.0,
        expected_output=ExpectedOutput(final_status="refused" if q.expect == "refuse" else "ok",
                                       output_text_excerpt=""),
        source=q.source,
    )


def recorded_generator_for(questions: list[Question], answers: Mapping[str, Generation], *,
                           name: str, model: str) -> RecordedGenerator:
    """A generator answering each question's text with the answer recorded for its id."""
    by_text: dict[str, Generation] = {}
    for q in questions:
        if q.id not in answers:
            continue
        key = q.question.strip()
        if key in by_text and by_text[key] != answers[q.id]:
            raise UsageError(f"{q.source}: question {q.id} has the same text as another question with a different "
                             "recorded answer; give each question distinct text")
        by_text[key] = answers[q.id]
    return RecordedGenerator(by_text, name=name, model=model)


def reference_answers(questions: list[Question], dialect: str) -> dict[str, Generation]:
    return {q.id: Generation(sql=q.reference_sql(dialect)) for q in questions
            if q.expect == "answer" and q.reference_sql(dialect)}


def result_from_response(response: dict) -> CandidateResult:
    """Map one service response onto the harness's result type."""
    status, kind = response.get("status"), response.get("error_kind")
    common = dict(model=response.get("model"), tool_sequence=[SERVICE_TOOL], reason=response.get("reason"),
                  metadata={"generator": response.get("generator"), "error_kind": kind,
                            "elapsed_ms": response.get("elapsed_ms")})
    if status == "ok":
        return CandidateResult(response_text=f"{response.get('row_count')} row(s)", sql=response.get("sql"),
                               final_status="ok", **common)
    if status == "refused":
        return CandidateResult(refused=True, final_status="refused", **common)
    if status != "error" or kind in UNMEASURED_ERROR_KINDS:
        raise CandidateUnavailable(f"{kind or status}: {response.get('reason') or response.get('error')}")
    if response.get("sql"):
        return CandidateResult(sql=response.get("sql"), final_status="error", **common)
    # The generator itself failed: no SQL came back, which is the product's failure (spec 6: refused).
    common["reason"] = f"no SQL came back ({kind or 'error'}): {response.get('reason') or response.get('error')}"
    return CandidateResult(refused=True, final_status="error", **common)


def sql_candidate(service: NLDatabaseService, urls: Mapping[str | None, str]) -> CandidateRunner:
    """A runner asking ``service`` each question against its fixture's first rotation.

    Args:
        service: the service, holding the generator of the candidate path.
        urls: fixture name (``None`` for a ``--db-url`` run) -> URL of the first rotation.
    """

    async def run(golden: GoldenTrajectory) -> CandidateResult:
        fixture = golden.inputs.get("fixture")
        if fixture not in urls:
            raise CandidateUnavailable(f"no database for fixture {fixture!r}")
        response = await asyncio.to_thread(service.query, golden.inputs["question"], db_url=urls[fixture],
                                           db_id=fixture or "user-db", user_id="eval")
        return result_from_response(response)

    return run
