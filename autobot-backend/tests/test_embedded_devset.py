"""The embedded generator's own development set, graded by execution.

Questions live in ``tests/data/embedded_dev/*.yaml`` (three schemas, a tuning split and a
held-out split written once before the generator and never tuned against). Each generated
query is run and its rows compared with the reference query's rows through the suite's
comparison policy (``eval.sql.compare``). The floors below are a ratchet: set just under what the
generator achieves, so a change that loses questions fails here; raise them when it gains.

Run ``python -m tests.test_embedded_devset`` for the per-schema, per-split figures.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from eval.sql.compare import compare_results
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import SchemaContext, inspect_schema
from services.sql_guard import validate_readonly_sql
from tests.test_embedded_schemas import BUILDERS, write_db

DEV_DIR = Path(__file__).parent / "data" / "embedded_dev"
_KEYS = {"id", "question", "expect", "stratum", "shape", "ordered", "sql"}


@dataclass(frozen=True)
class DevQuestion:
    id: str
    question: str
    schema: str
    split: str
    stratum: str
    expect: str = "answer"
    shape: str = "rows"
    ordered: bool = False
    sql: str | None = None

    @property
    def control(self) -> bool:
        return self.stratum.startswith("control")


@dataclass(frozen=True)
class Outcome:
    question: DevQuestion
    verdict: str
    """``pass``, ``wrong``, ``error``, ``refused`` (answerable) or ``refused``/``answered`` (must refuse)."""
    detail: str
    sql: str | None


def load_devset(directory: Path = DEV_DIR) -> list[DevQuestion]:
    out: list[DevQuestion] = []
    for path in sorted(directory.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for raw in doc["questions"]:
            unknown = set(raw) - _KEYS
            if unknown:
                raise ValueError(f"{path.name}: question {raw.get('id')!r} has unknown keys {sorted(unknown)}")
            out.append(DevQuestion(schema=doc["schema"], split=doc["split"], **raw))
    return out


@lru_cache(maxsize=1)
def databases(root: str) -> dict[str, tuple[str, SchemaContext]]:
    """Build every dev schema once into ``root``: name -> (sqlite path, schema context)."""
    out = {}
    for name in BUILDERS:
        path = Path(root) / f"{name}.db"
        url = write_db(path, name) if not path.exists() else f"sqlite:///{path}"
        engine = sa.create_engine(url)
        out[name] = (str(path), inspect_schema(engine))
        engine.dispose()
    return out


def grade(q: DevQuestion, generator: EmbeddedGenerator, ctx: SchemaContext, conn: sqlite3.Connection) -> Outcome:
    outcome = generator.explain(q.question, ctx)
    if isinstance(outcome, Refusal):
        return Outcome(q, "refused", outcome.reason, None)
    if q.expect == "refuse":
        return Outcome(q, "answered", "a must-refuse question was answered", outcome)
    try:
        cur = conn.execute(outcome)
        got = cur.fetchall()
        got_cols = len(cur.description or ())
    except sqlite3.Error as e:
        return Outcome(q, "error", str(e), outcome)
    cur = conn.execute(q.sql)
    want = cur.fetchall()
    result = compare_results(want, got, shape=q.shape, ordered=q.ordered, decimals=2,
                             expected_ncols=len(cur.description), actual_ncols=got_cols)
    return Outcome(q, "pass" if result.match else "wrong", result.detail, outcome)


def grade_all(root: Path) -> list[Outcome]:
    dbs = databases(str(root))
    generator = EmbeddedGenerator()
    conns = {name: sqlite3.connect(path) for name, (path, _ctx) in dbs.items()}
    try:
        return [grade(q, generator, dbs[q.schema][1], conns[q.schema]) for q in load_devset()]
    finally:
        for c in conns.values():
            c.close()


@dataclass(frozen=True)
class Figures:
    answerable: int
    passed: int
    must_refuse: int
    refused: int
    controls: int
    controls_declined: int


def figures(outcomes: list[Outcome], schema: str | None = None, split: str | None = None) -> Figures:
    chosen = [o for o in outcomes if (schema is None or o.question.schema == schema)
              and (split is None or o.question.split == split)]
    answerable = [o for o in chosen if o.question.expect == "answer"]
    refuse = [o for o in chosen if o.question.expect == "refuse"]
    controls = [o for o in answerable if o.question.control]
    return Figures(len(answerable), sum(o.verdict == "pass" for o in answerable), len(refuse),
                   sum(o.verdict == "refused" for o in refuse), len(controls),
                   sum(o.verdict == "refused" for o in controls))


# Ratchet floors: (schema, split) -> minimum answerable questions right.
PASS_FLOORS = {
    ("retail", "tune"): 225, ("retail", "holdout"): 75,
    ("library", "tune"): 48, ("library", "holdout"): 26,
    ("clinic", "tune"): 40, ("clinic", "holdout"): 25,
}
REFUSAL_RECALL_FLOOR = 0.90
CONTROLS_DECLINED_MAX = 0.15


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> list[Outcome]:
    return grade_all(tmp_path_factory.mktemp("embedded_dev"))


def test_devset_is_well_formed():
    qs = load_devset()
    ids = Counter(q.id for q in qs)
    assert [i for i, n in ids.items() if n > 1] == []
    assert all(q.sql for q in qs if q.expect == "answer")
    assert not any(q.sql for q in qs if q.expect == "refuse")
    assert {q.schema for q in qs} == set(BUILDERS)
    assert {q.split for q in qs} == {"tune", "holdout"}


def test_reference_queries_run_and_return_rows(tmp_path_factory):
    dbs = databases(str(tmp_path_factory.mktemp("embedded_refs")))
    empty = []
    for q in load_devset():
        if q.expect == "answer":
            with sqlite3.connect(dbs[q.schema][0]) as conn:
                rows = conn.execute(q.sql).fetchall()
            if not rows or rows == [(None,)]:
                empty.append(q.id)
    assert empty == []


@pytest.mark.parametrize("schema,split", sorted(PASS_FLOORS), ids=lambda v: str(v))
def test_answer_accuracy_holds_its_floor(outcomes, schema, split):
    f = figures(outcomes, schema, split)
    failing = [f"{o.question.id}: {o.verdict} ({o.detail})" for o in outcomes
               if o.question.schema == schema and o.question.split == split
               and o.question.expect == "answer" and o.verdict != "pass"]
    assert f.passed >= PASS_FLOORS[(schema, split)], "\n".join(failing)


@pytest.mark.parametrize("split", ["tune", "holdout"])
def test_must_refuse_questions_are_declined(outcomes, split):
    f = figures(outcomes, split=split)
    missed = [o.question.id for o in outcomes if o.question.split == split and o.question.expect == "refuse"
              and o.verdict != "refused"]
    assert f.refused / f.must_refuse >= REFUSAL_RECALL_FLOOR, missed


@pytest.mark.parametrize("split", ["tune", "holdout"])
def test_controls_are_rarely_declined(outcomes, split):
    f = figures(outcomes, split=split)
    assert f.controls > 0
    assert f.controls_declined / f.controls <= CONTROLS_DECLINED_MAX


# The retail questions again, on the suite's own retail fixture (its comments are worded differently).
FIXTURE_FLOORS = {"tune": 290, "holdout": 108}


@pytest.fixture(scope="module")
def fixture_outcomes(tmp_path_factory) -> list[Outcome]:
    from eval.sql.fixtures import write

    url = write(tmp_path_factory.mktemp("retail_24m") / "retail_24m.db", "retail_24m", 0)
    engine = sa.create_engine(url)
    ctx = inspect_schema(engine)
    engine.dispose()
    generator = EmbeddedGenerator()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        return [grade(q, generator, ctx, conn) for q in load_devset() if q.schema == "retail"]


@pytest.mark.parametrize("split", sorted(FIXTURE_FLOORS))
def test_retail_questions_hold_on_the_suite_fixture(fixture_outcomes, split):
    f = figures(fixture_outcomes, split=split)
    failing = [f"{o.question.id}: {o.verdict} ({o.detail})" for o in fixture_outcomes if o.question.split == split
               and o.verdict not in ("pass", "refused") or (o.question.split == split and o.question.expect == "answer"
                                                            and o.verdict == "refused")]
    assert f.passed + f.refused >= FIXTURE_FLOORS[split], "\n".join(failing)


def test_every_generated_query_passes_the_read_only_guard(outcomes):
    blocked = [(o.question.id, validate_readonly_sql(o.sql).reason) for o in outcomes
               if o.sql is not None and not validate_readonly_sql(o.sql).allowed]
    assert blocked == []


def test_no_generated_query_fails_to_run(outcomes):
    assert [(o.question.id, o.detail) for o in outcomes if o.verdict == "error"] == []


def report(outcomes: list[Outcome]) -> str:
    lines = ["schema   split    answered right   must-refuse declined   controls declined"]
    for schema in sorted(BUILDERS):
        for split in ("tune", "holdout"):
            f = figures(outcomes, schema, split)
            lines.append(f"{schema:<8} {split:<8} {f.passed:>4}/{f.answerable:<4} {f.passed / f.answerable:6.0%}"
                         f"      {f.refused:>3}/{f.must_refuse:<3}              {f.controls_declined}/{f.controls}")
    for split in ("tune", "holdout"):
        f = figures(outcomes, split=split)
        lines.append(f"{'all':<8} {split:<8} {f.passed:>4}/{f.answerable:<4} {f.passed / f.answerable:6.0%}"
                     f"      {f.refused:>3}/{f.must_refuse:<3}              {f.controls_declined}/{f.controls}")
    return "\n".join(lines)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(report(grade_all(Path(tmp))))
