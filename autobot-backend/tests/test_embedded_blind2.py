"""The embedded generator on the second blind set: questions written by someone who never saw it.

``tests/data/embedded_blind2/`` holds four schemas' questions (the two retail fixtures, plus an
airline and a university schema of its own) in two splits. The ``tune`` split may be read and
tuned on. The ``holdout`` split is never read by the generator's developer: it is graded here as
totals only (no question, id or per-question verdict is ever printed for it), at most three times
per round, and its floors were set once, from the first measurement.

Grading is the first blind set's (:mod:`tests.test_embedded_blind`): the generator sees seed 0's
schema context, its SQL and the reference run on seeds 0, 1 and 2, rows compared by position at two
decimals with the column count checked. Three figures per schema and split: answerable questions
passed, must-refuse questions declined, controls declined.

Run ``python -m tests.test_embedded_blind2`` for the tune split's per-question failures, and
``python -m tests.test_embedded_blind2 --holdout`` for the holdout totals (totals only).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest
import sqlalchemy as sa

from eval.sql.compare import compare_results
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import SchemaContext, inspect_schema
from tests.data.embedded_blind2.blindset2 import HERE as BLIND2_DIR
from tests.data.embedded_blind2.blindset2 import SCHEMAS, Question, load_file
from tests.data.embedded_blind2.check import BUILDERS

SEEDS = (0, 1, 2)
BACKEND = Path(__file__).resolve().parents[1]
GENERATOR_FILES = sorted(p for p in (BACKEND / "services" / "embedded").rglob("*.py")) + [
    BACKEND / "services" / "embedded_generator.py"]
PHRASE_WORDS = 6


@dataclass(frozen=True)
class Figures:
    answerable: int
    passed: int
    must_refuse: int
    declined: int
    controls: int
    controls_declined: int

    def line(self, label: str) -> str:
        return (f"{label:<12} answered right {self.passed:>3}/{self.answerable:<3}  must-refuse declined "
                f"{self.declined:>2}/{self.must_refuse:<2}  controls declined {self.controls_declined}/{self.controls}")


@dataclass(frozen=True)
class Outcome:
    question: Question
    verdict: str
    """``pass``, ``wrong``, ``error`` or ``refused`` (answerable); ``refused`` or ``answered`` (must refuse)."""
    detail: str
    sql: str | None


def load_split(split: str, schemas: Iterable[str] = SCHEMAS) -> list[Question]:
    return [q for schema in schemas for q in load_file(BLIND2_DIR / f"{schema}_{split}.yaml")]


@lru_cache(maxsize=None)
def database(schema: str) -> tuple[SchemaContext, tuple[sa.Engine, ...]]:
    """The schema on every seed, in memory, built once; the context the generator sees is seed 0's."""
    engines = []
    for seed in SEEDS:
        engine = sa.create_engine("sqlite://")
        BUILDERS[schema](engine, seed)
        engines.append(engine)
    return inspect_schema(engines[0]), tuple(engines)


def _run(engine: sa.Engine, sql: str) -> tuple[list[tuple], int]:
    with engine.connect() as conn:
        result = conn.exec_driver_sql(sql)
        return [tuple(r) for r in result.fetchall()], len(result.keys())


def grade(q: Question, generator: EmbeddedGenerator) -> Outcome:
    ctx, engines = database(q.schema)
    outcome = generator.explain(q.question, ctx)
    if isinstance(outcome, Refusal):
        return Outcome(q, "refused", f"{outcome.kind}: {outcome.reason}", None)
    if not q.answerable:
        return Outcome(q, "answered", "a must-refuse question was answered", outcome)
    for seed, engine in zip(SEEDS, engines):
        try:
            got, got_cols = _run(engine, outcome)
        except sa.exc.DBAPIError as e:
            return Outcome(q, "error", f"seed {seed}: {e.orig}", outcome)
        want, want_cols = _run(engine, q.sql)
        result = compare_results(want, got, shape=q.shape, ordered=q.ordered, decimals=2,
                                 expected_ncols=want_cols, actual_ncols=got_cols)
        if not result.match:
            return Outcome(q, "wrong", f"seed {seed}: {result.detail}", outcome)
    return Outcome(q, "pass", "", outcome)


def grade_split(split: str, schemas: Iterable[str] = SCHEMAS) -> list[Outcome]:
    generator = EmbeddedGenerator()
    return [grade(q, generator) for q in load_split(split, schemas)]


def figures(outcomes: Iterable[Outcome], schema: str | None = None) -> Figures:
    chosen = [o for o in outcomes if schema is None or o.question.schema == schema]
    answerable = [o for o in chosen if o.question.answerable]
    refuse = [o for o in chosen if not o.question.answerable]
    controls = [o for o in answerable if o.question.stratum.startswith("control")]
    return Figures(len(answerable), sum(o.verdict == "pass" for o in answerable), len(refuse),
                   sum(o.verdict == "refused" for o in refuse), len(controls),
                   sum(o.verdict == "refused" for o in controls))


# Ratchet: schema -> (answerable passed >=, must-refuse declined >=, controls declined <=). The tune split
# at the start of round three (embedded-v2 as recorded): 45/126 right, 18/22 declined, 1/7 controls declined.
TUNE_FLOORS = {
    "retail": (36, 6, 0),
    "retail_24m": (31, 6, 0),
    "airline": (16, 5, 0),
    "university": (13, 5, 0),
}
# Set once, from the first holdout measurement (totals only, at commit 65d715e: 39/81 right, 14/17 declined,
# 2/7 controls declined); never tuned against. Round three measured it three times in all: that one, the same
# totals again at 075fd13 after refusal fixes found with probes of its own, and this test passing there.
HOLDOUT_FLOORS: dict[str, tuple[int, int, int]] = {
    "retail": (14, 3, 0),
    "retail_24m": (14, 3, 0),
    "airline": (5, 3, 1),
    "university": (6, 5, 1),
}


@pytest.fixture(scope="module")
def tune() -> list[Outcome]:
    return grade_split("tune")


@pytest.fixture(scope="module")
def holdout() -> list[Outcome]:
    return grade_split("holdout")


def _failures(outcomes: list[Outcome], schema: str) -> str:
    return "\n".join(f"  {o.question.id} {o.verdict}: {o.detail}" for o in outcomes if o.question.schema == schema
                     and ((o.verdict != "pass") if o.question.answerable else (o.verdict != "refused")))


@pytest.mark.parametrize("schema", SCHEMAS)
def test_tune_split_holds_its_floors(tune, schema):
    f = figures(tune, schema)
    passed, declined, controls_declined = TUNE_FLOORS[schema]
    assert f.answerable > 0 and f.must_refuse > 0 and f.controls > 0
    assert f.passed >= passed, f"{f.line(schema)}; floor {passed}\n{_failures(tune, schema)}"
    assert f.declined >= declined, f"{f.line(schema)}; floor {declined}\n{_failures(tune, schema)}"
    assert f.controls_declined <= controls_declined, f"{f.line(schema)}; ceiling {controls_declined}"


@pytest.mark.parametrize("schema", SCHEMAS)
def test_holdout_split_holds_its_floors(holdout, schema):
    """Totals only: a failure here names no question."""
    f = figures(holdout, schema)
    assert f.answerable > 0 and f.must_refuse > 0
    assert schema in HOLDOUT_FLOORS, f"no floor yet: {f.line(schema)}"
    passed, declined, controls_declined = HOLDOUT_FLOORS[schema]
    assert f.passed >= passed, f"{f.line(schema)}; floor {passed}"
    assert f.declined >= declined, f"{f.line(schema)}; floor {declined}"
    assert f.controls_declined <= controls_declined, f"{f.line(schema)}; ceiling {controls_declined}"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _shingles(text: str) -> set[str]:
    w = _words(text)
    return {" ".join(w[i:i + PHRASE_WORDS]) for i in range(len(w) - PHRASE_WORDS + 1)}


def _leaks(split: str) -> list[tuple[str, str]]:
    code = " ".join(_words("\n".join(p.read_text(encoding="utf-8") for p in GENERATOR_FILES)))
    return sorted({(q.id, s) for q in load_split(split) for s in _shingles(q.question) if s in code})


def test_no_tune_phrase_is_in_the_generator():
    assert _leaks("tune") == []


def test_no_holdout_phrase_is_in_the_generator():
    """Counted, not shown."""
    found = len(_leaks("holdout"))
    assert found == 0, f"{found} six-word phrase(s) of holdout questions appear in the generator"


def test_the_grader_fails_a_wrong_answer_and_passes_the_reference():
    q = next(q for q in load_split("tune", ["retail"]) if q.answerable and q.shape == "scalar")

    class Fixed(EmbeddedGenerator):
        def __init__(self, sql: str):
            self.sql = sql

        def explain(self, question, schema):
            return self.sql

    assert grade(q, Fixed("SELECT -12345.67")).verdict == "wrong"
    assert grade(q, Fixed(q.sql)).verdict == "pass"


def report(outcomes: list[Outcome], per_question: bool) -> str:
    lines = [figures(outcomes, schema).line(schema) for schema in SCHEMAS]
    lines.append(figures(outcomes).line("all"))
    if per_question:
        for o in outcomes:
            if (o.verdict != "pass") if o.question.answerable else (o.verdict != "refused"):
                lines += [f"\n{o.question.id} [{o.question.stratum}] {o.verdict}: {o.detail}",
                          f"   Q: {o.question.question}", f"   SQL: {o.sql}"]
    return "\n".join(lines)


if __name__ == "__main__":
    if "--holdout" in sys.argv[1:]:
        print(report(grade_split("holdout"), per_question=False))
    else:
        chosen = [a for a in sys.argv[1:] if a in SCHEMAS] or SCHEMAS
        print(report(grade_split("tune", chosen), per_question=True))
