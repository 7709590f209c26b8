"""The embedded generator on the blind development set: questions written by someone who never saw it.

``tests/data/embedded_blind/`` holds five schemas' questions in two splits. The ``tune`` split was
tuned on from the start. The ``holdout`` split was measured as totals only, three times (before round
one: 23/97 right, 23/25 declined, 7/7 controls declined; after it: 46/97, 21/25, 0/7; at the end of
round two: 52/97, 22/25, 0/7), and is now burned: it has been read and tuned on like the tune split,
so both are development data here, pinned by ratchet floors, and neither says anything about
questions the generator has not seen (``tests/test_embedded_blind2.py`` and the corpus do that).

Grading is by execution, as the suite grades: the generator sees the schema context of seed 0;
its SQL and the reference SQL run on seeds 0, 1 and 2 of the schema, and a question passes only
when the rows match on every seed (``eval.sql.compare.compare_results`` at two decimals, rows by
position, column count checked). Every database is built once per module, in memory.

Three figures per schema and split, each pinned by a floor (a ratchet, raised as the generator
gains): answerable questions passed, must-refuse questions declined, controls (answerable questions
dressed like a refusal trigger) declined.

Run ``python -m tests.test_embedded_blind`` for both splits' per-question failures
(``--split tune`` or ``--split holdout`` for one).
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
from tests.data.embedded_blind.blindset import HERE as BLIND_DIR
from tests.data.embedded_blind.blindset import SCHEMAS, Question, load_file
from tests.data.embedded_blind.check import BUILDERS

SEEDS = (0, 1, 2)
BACKEND = Path(__file__).resolve().parents[1]
GENERATOR_FILES = sorted(p for p in (BACKEND / "services" / "embedded").rglob("*.py")) + [
    BACKEND / "services" / "embedded_generator.py"]
PHRASE_WORDS = 6


@dataclass(frozen=True)
class Outcome:
    question: Question
    verdict: str
    """``pass``, ``wrong``, ``error`` or ``refused`` (answerable); ``refused`` or ``answered`` (must refuse)."""
    detail: str
    sql: str | None


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


def is_control(q: Question) -> bool:
    return q.stratum.startswith("control")


def load_split(split: str, schemas: Iterable[str] = SCHEMAS) -> list[Question]:
    return [q for schema in schemas for q in load_file(BLIND_DIR / f"{schema}_{split}.yaml")]


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
    controls = [o for o in answerable if is_control(o.question)]
    return Figures(len(answerable), sum(o.verdict == "pass" for o in answerable), len(refuse),
                   sum(o.verdict == "refused" for o in refuse), len(controls),
                   sum(o.verdict == "refused" for o in controls))


# Ratchets: (split, schema) -> (answerable passed >=, must-refuse declined >=, controls declined <=).
# Round three started from tune 123/169, 29/29, 0/10 and (burned) holdout 52/97, 22/25, 0/7.
FLOORS = {
    ("tune", "retail"): (43, 6, 0),
    ("tune", "retail_24m"): (34, 5, 0),
    ("tune", "library"): (22, 6, 0),
    ("tune", "clinic"): (24, 6, 0),
    ("tune", "saas"): (28, 6, 0),
    ("holdout", "retail"): (24, 6, 0),
    ("holdout", "retail_24m"): (20, 6, 0),
    ("holdout", "library"): (12, 4, 0),
    ("holdout", "clinic"): (16, 5, 0),
    ("holdout", "saas"): (12, 4, 0),
}
SPLITS = ("tune", "holdout")


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[Outcome]]:
    return {split: grade_split(split) for split in SPLITS}


def _failures(outcomes: list[Outcome], schema: str) -> str:
    return "\n".join(f"  {o.question.id} {o.verdict}: {o.detail}" for o in outcomes
                     if o.question.schema == schema and o.verdict not in ("pass", "refused")
                     or (o.question.schema == schema and o.question.answerable and o.verdict == "refused"))


@pytest.mark.parametrize("split,schema", sorted(FLOORS), ids=lambda v: str(v))
def test_each_split_holds_its_floors(outcomes, split, schema):
    f = figures(outcomes[split], schema)
    passed, declined, controls_declined = FLOORS[(split, schema)]
    assert f.answerable > 0 and f.must_refuse > 0 and f.controls > 0
    detail = _failures(outcomes[split], schema)
    assert f.passed >= passed, f"{f.line(schema)}; floor {passed}\n{detail}"
    assert f.declined >= declined, f"{f.line(schema)}; floor {declined}\n{detail}"
    assert f.controls_declined <= controls_declined, f"{f.line(schema)}; ceiling {controls_declined}"


def test_every_reference_passes_its_own_grading():
    """The grader can pass: each reference, graded as if generated, matches itself on every seed."""
    bad = []
    for q in load_split("tune") + load_split("holdout"):
        if q.answerable:
            ctx, engines = database(q.schema)
            for engine in engines:
                rows, ncols = _run(engine, q.sql)
                if not compare_results(rows, rows, shape=q.shape, ordered=q.ordered, decimals=2,
                                       expected_ncols=ncols, actual_ncols=ncols).match:
                    bad.append(q.id)
    assert bad == []


def test_the_grader_fails_a_wrong_answer():
    q = next(q for q in load_split("tune", ["retail"]) if q.answerable and q.shape == "scalar")
    wrong = Question(**{**q.__dict__, "sql": "SELECT -12345.67"})

    class Fixed(EmbeddedGenerator):
        def explain(self, question, schema):
            return q.sql

    assert grade(wrong, Fixed()).verdict == "wrong"
    assert grade(q, Fixed()).verdict == "pass"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _shingles(text: str) -> set[str]:
    w = _words(text)
    return {" ".join(w[i:i + PHRASE_WORDS]) for i in range(len(w) - PHRASE_WORDS + 1)}


@pytest.mark.parametrize("split", SPLITS)
def test_no_blind_phrase_is_in_the_generator(split):
    """No six-word run of any blind question is in the generator's code."""
    code = " ".join(_words("\n".join(p.read_text(encoding="utf-8") for p in GENERATOR_FILES)))
    hits = sorted({(q.id, s) for q in load_split(split) for s in _shingles(q.question) if s in code})
    assert hits == []


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
    args = sys.argv[1:]
    chosen_splits = [args[args.index("--split") + 1]] if "--split" in args else list(SPLITS)
    chosen = [a for a in args if a in SCHEMAS] or SCHEMAS
    for split in chosen_splits:
        print(f"== {split}")
        print(report(grade_split(split, chosen), per_question=True))
