"""The grader's one mapping from service error kinds to verdicts, and the first rotation's rows reused."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from eval.core.runner import Replay
from eval.sql.corpus.questions import Question
from eval.sql.grading.grade import KIND_VERDICTS, Grader
from eval.sql.model.outcome import Verdict
from services.generation.protocol import Generation
from services.generation.recorded import RecordedGenerator
from services.nl_database_service import Answer, NLDatabaseService
from services.readonly.execute import ErrorKind, Execution


def test_every_service_error_kind_means_one_thing_to_the_eval():
    assert set(KIND_VERDICTS) == set(ErrorKind)


def test_a_crash_in_the_service_is_never_a_verdict_on_the_candidate():
    assert KIND_VERDICTS[ErrorKind.INTERNAL] is Verdict.UNMEASURED
    assert KIND_VERDICTS[ErrorKind.DATABASE] is Verdict.ERROR


@pytest.fixture
def shop(tmp_path: Path) -> list[str]:
    """Two rotations of a one-table database: the same schema, different rows."""
    urls = []
    for seed in (1, 2):
        path = tmp_path / f"shop{seed}.db"
        engine = sa.create_engine(f"sqlite:///{path}")
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
            conn.exec_driver_sql(f"INSERT INTO t VALUES ({seed}), ({seed * 10})")
        engine.dispose()
        urls.append(f"sqlite:///{path}")
    return urls


def _grade(service: NLDatabaseService, urls: list[str], q: Question, answer: Answer) -> object:
    reference = [service.run_readonly(q.sql or "", u) for u in urls]
    grader = Grader(service, {None: urls}, {q.id: reference})
    return grader.grade(q, Replay(q, answer))


def test_answer_graded_on_every_rotation_with_the_first_rotations_rows_reused(shop):
    q = Question(id="q1", question="sum of x", sql="SELECT SUM(x) FROM t", shape="scalar")
    with NLDatabaseService(RecordedGenerator({}), timeout_s=5) as service:
        right = service.answer(q.question, shop[0], generation=Generation(sql="SELECT SUM(x) FROM t"))
        assert _grade(service, shop, q, right).verdict is Verdict.PASS
        hardcoded = service.answer(q.question, shop[0], generation=Generation(sql="SELECT 11"))
        outcome = _grade(service, shop, q, hardcoded)
        assert (outcome.verdict, outcome.reason, outcome.rotations_matched) == (Verdict.WRONG, "rotation", 1)
        # the service's own rows are the first rotation's: nothing runs there again
        forged = Answer(**{**right.__dict__, "execution": Execution("SELECT SUM(x) FROM t", ("s",), [(99,)], 1.0)})
        assert _grade(service, shop, q, forged).verdict is Verdict.WRONG


@pytest.mark.parametrize(
    "kind, verdict, reason",
    [
        (ErrorKind.INTERNAL, Verdict.UNMEASURED, "unmeasured"),
        (ErrorKind.GENERATOR_UNAVAILABLE, Verdict.UNMEASURED, "unmeasured"),
        (ErrorKind.GENERATOR_ERROR, Verdict.REFUSED, "refused"),
        (ErrorKind.TIMEOUT, Verdict.ERROR, "timeout"),
        (ErrorKind.GUARD_BLOCKED, Verdict.ERROR, "guard_blocked"),
    ],
)
def test_a_failed_answer_is_graded_by_its_kind(shop, kind, verdict, reason):
    q = Question(id="q1", question="sum of x", sql="SELECT SUM(x) FROM t", shape="scalar")
    failed = Answer(
        question=q.question,
        db_id="d",
        user_id=None,
        status="error",
        error_kind=kind,
        reason="why",
        sql="SELECT 1",
        generator="g",
        model="m",
        received="t",
        elapsed_ms=1.0,
    )
    with NLDatabaseService(RecordedGenerator({}), timeout_s=5) as service:
        outcome = _grade(service, shop, q, failed)
    assert (outcome.verdict, outcome.reason) == (verdict, reason)
