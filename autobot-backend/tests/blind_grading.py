"""Grading the embedded generator on a blind question set, by execution, as the suite grades.

Shared by ``tests/test_embedded_blind.py`` and ``tests/test_embedded_blind2.py``. The generator sees
the schema context of seed 0; its SQL and the reference SQL run on seeds 0, 1 and 2 of the schema,
and a question passes only when the rows match on every seed (``eval.sql.compare.compare_results``
at two decimals, rows by position, column count checked). Every database is built once, in memory.
Three figures per schema and split: answerable questions passed, must-refuse questions declined,
controls (answerable questions dressed like a refusal trigger) declined.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from eval.sql.compare import compare_results
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import SchemaContext, inspect_schema

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
    question: Any
    """A blind-set question (``tests.data.embedded_blind.blindset.Question``)."""
    verdict: str
    """``pass``, ``wrong``, ``error`` or ``refused`` (answerable); ``refused`` or ``answered`` (must refuse)."""
    detail: str
    sql: str | None

    @property
    def bad(self) -> bool:
        return (self.verdict != "pass") if self.question.answerable else (self.verdict != "refused")


def run_sql(engine: sa.Engine, sql: str) -> tuple[list[tuple], int]:
    with engine.connect() as conn:
        result = conn.exec_driver_sql(sql)
        return [tuple(r) for r in result.fetchall()], len(result.keys())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _shingles(text: str) -> set[str]:
    w = _words(text)
    return {" ".join(w[i:i + PHRASE_WORDS]) for i in range(len(w) - PHRASE_WORDS + 1)}


@dataclass
class BlindSet:
    """One blind set: where its files are, how to read one, how to build each schema on a seed."""

    directory: Path
    load_file: Callable[[Path], list[Any]]
    builders: Mapping[str, Callable[[sa.Engine, int], None]]
    schemas: Sequence[str]
    _databases: dict[str, tuple[SchemaContext, tuple[sa.Engine, ...]]] = field(default_factory=dict, repr=False)

    def load_split(self, split: str, schemas: Iterable[str] | None = None) -> list[Any]:
        return [q for schema in (schemas or self.schemas) for q in self.load_file(self.directory / f"{schema}_{split}.yaml")]

    def database(self, schema: str) -> tuple[SchemaContext, tuple[sa.Engine, ...]]:
        """The schema on every seed, built once; the context the generator sees is seed 0's."""
        if schema not in self._databases:
            engines = []
            for seed in SEEDS:
                engine = sa.create_engine("sqlite://")
                self.builders[schema](engine, seed)
                engines.append(engine)
            self._databases[schema] = (inspect_schema(engines[0]), tuple(engines))
        return self._databases[schema]

    def grade(self, q: Any, generator: EmbeddedGenerator) -> Outcome:
        ctx, engines = self.database(q.schema)
        outcome = generator.explain(q.question, ctx)
        if isinstance(outcome, Refusal):
            return Outcome(q, "refused", f"{outcome.kind}: {outcome.reason}", None)
        if not q.answerable:
            return Outcome(q, "answered", "a must-refuse question was answered", outcome)
        for seed, engine in zip(SEEDS, engines):
            try:
                got, got_cols = run_sql(engine, outcome)
            except sa.exc.DBAPIError as e:
                return Outcome(q, "error", f"seed {seed}: {e.orig}", outcome)
            want, want_cols = run_sql(engine, q.sql)
            result = compare_results(want, got, shape=q.shape, ordered=q.ordered, decimals=2,
                                     expected_ncols=want_cols, actual_ncols=got_cols)
            if not result.match:
                return Outcome(q, "wrong", f"seed {seed}: {result.detail}", outcome)
        return Outcome(q, "pass", "", outcome)

    def grade_split(self, split: str, schemas: Iterable[str] | None = None) -> list[Outcome]:
        generator = EmbeddedGenerator()
        return [self.grade(q, generator) for q in self.load_split(split, schemas)]

    def leaks(self, split: str) -> list[tuple[str, str]]:
        """(id, phrase) for every six-word run of a question of ``split`` found in the generator's code."""
        code = " ".join(_words("\n".join(p.read_text(encoding="utf-8") for p in GENERATOR_FILES)))
        return sorted({(q.id, s) for q in self.load_split(split) for s in _shingles(q.question) if s in code})


def figures(outcomes: Iterable[Outcome], schema: str | None = None) -> Figures:
    chosen = [o for o in outcomes if schema is None or o.question.schema == schema]
    answerable = [o for o in chosen if o.question.answerable]
    refuse = [o for o in chosen if not o.question.answerable]
    controls = [o for o in answerable if o.question.stratum.startswith("control")]
    return Figures(len(answerable), sum(o.verdict == "pass" for o in answerable), len(refuse),
                   sum(o.verdict == "refused" for o in refuse), len(controls),
                   sum(o.verdict == "refused" for o in controls))


def failures(outcomes: Iterable[Outcome], schema: str) -> str:
    return "\n".join(f"  {o.question.id} {o.verdict}: {o.detail}" for o in outcomes
                     if o.question.schema == schema and o.bad)


def assert_floors(outcomes: list[Outcome], schema: str, floor: tuple[int, int, int], show_failures: bool) -> None:
    """One schema's figures hold ``floor`` (passed >=, declined >=, controls declined <=).

    A set that may be read lists its failing questions in the message; a holdout's message is totals only.
    """
    f = figures(outcomes, schema)
    passed, declined, controls_declined = floor
    assert f.answerable > 0 and f.must_refuse > 0 and f.controls > 0, f.line(schema)
    detail = "\n" + failures(outcomes, schema) if show_failures else ""
    assert f.passed >= passed, f"{f.line(schema)}; floor {passed}{detail}"
    assert f.declined >= declined, f"{f.line(schema)}; floor {declined}{detail}"
    assert f.controls_declined <= controls_declined, f"{f.line(schema)}; ceiling {controls_declined}"


class FixedSQL:
    """A stand-in generator that answers every question with one given SQL (to test the grader itself)."""

    def __init__(self, sql: str):
        self.sql = sql

    def explain(self, question: str, schema: SchemaContext) -> str:
        return self.sql


def report(outcomes: list[Outcome], schemas: Sequence[str], per_question: bool) -> str:
    lines = [figures(outcomes, schema).line(schema) for schema in schemas]
    lines.append(figures(outcomes).line("all"))
    if per_question:
        for o in outcomes:
            if o.bad:
                lines += [f"\n{o.question.id} [{o.question.stratum}] {o.verdict}: {o.detail}",
                          f"   Q: {o.question.question}", f"   SQL: {o.sql}"]
    return "\n".join(lines)
