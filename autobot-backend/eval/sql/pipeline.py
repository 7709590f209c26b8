"""One SQL run, in the order that is the contract: build, self-check, ask, grade.

The oracle is proven (self-check) before any candidate is called; every question is asked
through ``NLDatabaseService`` on the first rotation; every answer is graded on every rotation.
What a run's numbers decide (baselines, the gate, the records) is the caller's: this module
returns the :class:`~eval.sql.render.SQLRun` and nothing else.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eval.core.errors import HarnessError, UsageError
from eval.core.runner import Limits, Progress
from eval.sql.corpus.answers import RecordedAnswers
from eval.sql.corpus.db_dir import database_targets
from eval.sql.corpus.order_words import unstated_orders
from eval.sql.corpus.questions import Corpus, Question
from eval.sql.engines.setup import FixtureHost, engine_name, fixture_host
from eval.sql.fixtures.seeded import Fixture
from eval.sql.grading.asking import OnAnswer, Sample, ask_all, combine
from eval.sql.grading.candidates import (
    ServiceCandidate,
    reference_answers,
)
from eval.sql.grading.costs import cost_summary, repeat_summary
from eval.sql.grading.grade import Grader
from eval.sql.grading.identity import cohort, fingerprint
from eval.sql.model.defaults import DEFAULT_ENGINE, DEFAULT_SEED
from eval.sql.model.outcome import NO_ANSWER, ORACLE, SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import RunSetup
from eval.sql.oracle.selfcheck import SNAPSHOT_DIR, OracleDefect, is_builtin, run_self_check
from eval.sql.rows import ColumnOrder
from services.generation.protocol import Generation, SQLGenerator
from services.nl_database_service import NLDatabaseService
from services.redaction import redact_url

STATEMENT_TIMEOUT_S = 10.0


class OracleBroken(HarnessError):
    """The built-in corpus failed its self-check: no candidate was called."""

    def __init__(self, defects: Sequence[OracleDefect]):
        self.defects = list(defects)
        lines = "\n".join(f"  {d.question_id}: {d.kind}: {d.detail}" for d in self.defects)
        super().__init__(f"the built-in corpus failed its self-check; no candidate was called:\n{lines}")


@dataclass(frozen=True)
class RunSpec:
    """Everything a run needs, validated by the command line before anything is built."""

    candidate: str
    """``reference``, ``embedded``, ``llm`` or ``recorded``."""
    generator: SQLGenerator
    """What the service holds (for ``reference``/``recorded`` only a name: answers go by id)."""
    corpus: Corpus
    fixtures: Mapping[str, Fixture]
    """Fixture name -> fixture, for the questions' ``fixture`` names."""
    builtin: bool
    """The built-in corpus on the built-in fixtures: a broken oracle stops the run."""
    db_url: str | None = None
    """A user's own database instead of the fixtures (one database, no rotations)."""
    rotations: int = 3
    seed: int = DEFAULT_SEED
    timeout_s: float = 120.0
    """Per question, for the candidate's answer and its grading."""
    answers: RecordedAnswers | None = None
    concurrency: int = 1
    repeats: int = 1
    limits: Limits = field(default_factory=Limits)
    statement_timeout_s: float = STATEMENT_TIMEOUT_S
    prices: tuple[float, float] | None = None
    db_dir: Path | None = None
    """Where ``database:`` questions find their databases: ``<db_dir>/NAME/NAME.sqlite``."""
    on_answer: OnAnswer | None = None
    """Sees every answer with its grade (the run's captured turns); None: nothing is kept."""
    engine: str = DEFAULT_ENGINE
    """Where the fixtures are built and graded (:data:`eval.sql.engines.ENGINES`); not with ``db_url``."""
    fixture_url: str | None = None
    """PostgreSQL: the database the fixtures are built in (None: a throwaway server)."""
    column_order: ColumnOrder | None = None
    """``--column-order``: every question graded under it, whatever the corpus says (None: each its own).
    Part of the set-up, so part of the cohort."""


def graded_corpus(spec: RunSpec) -> Corpus:
    """The corpus as this run grades it: with ``--column-order`` applied to every question."""
    return spec.corpus.with_column_order(spec.column_order) if spec.column_order else spec.corpus


def run_suite(spec: RunSpec, progress: Progress | None = None) -> SQLRun:
    """Build the databases, self-check the oracle, ask every question, grade every answer."""
    corpus = graded_corpus(spec)
    questions = (
        [dataclasses.replace(q, fixture=None, database=None) for q in corpus.questions]
        if spec.db_url
        else list(corpus.questions)
    )
    with (
        tempfile.TemporaryDirectory(prefix="sql-eval-") as tmp,
        fixture_host(spec.engine, Path(tmp), spec.fixture_url) as host,
        NLDatabaseService(spec.generator, timeout_s=spec.statement_timeout_s) as service,
    ):
        targets = _targets(spec, questions, host)
        _check_reachable(service, targets)
        first_url = next(iter(targets.values()))[0]
        engine, dialect = engine_name(first_url), service.dialect(first_url)
        if spec.db_url:  # a corpus of the user's own is written for their database: not transpiled
            questions = [q if is_builtin(q) else q.written_for(dialect) for q in questions]
        databases = {key or "": [fingerprint(service, url) for url in urls] for key, urls in targets.items()}
        check = run_self_check(
            service,
            dataclasses.replace(corpus, questions=tuple(questions)),
            targets,
            lint_rotations=spec.db_url is None,
            snapshot_dir=SNAPSHOT_DIR if spec.builtin and spec.seed == DEFAULT_SEED else None,
        )
        if spec.builtin and not check.ok:
            raise OracleBroken(check.defects)
        defects = {d.question_id: d for d in check.defects}
        recorded = _recorded(spec, questions, dialect)
        grader = Grader(service, targets, check.reference, check.ties)
        asked = [q for q in questions if q.id not in defects and (recorded is None or q.id in recorded)]
        samples = [Sample(q, k) for q in asked for k in range(spec.repeats)]
        graded, interrupted = ask_all(
            samples,
            ServiceCandidate(service, {k: urls[0] for k, urls in targets.items()}, recorded),
            grader,
            timeout_s=spec.timeout_s,
            concurrency=spec.concurrency,
            limits=spec.limits,
            progress=progress,
            on_answer=spec.on_answer,
        )
        by_question: dict[str, list[SQLOutcome]] = {}
        for sample, outcome in zip(samples, graded):
            by_question.setdefault(sample.question.id, []).append(outcome)
        outcomes = _all_questions(grader, questions, combine(by_question), defects)
    extra = sorted(set(spec.answers.answers) - {q.id for q in questions}) if spec.answers else []
    fixtures = _fixture_keys(targets)
    run: RunSetup = {
        "engine": engine,
        "rotations": spec.rotations if fixtures else 1,
        "seed": spec.seed if fixtures else None,
        "fixtures": fixtures,
        **({"db_dir": spec.db_dir.name} if spec.db_dir is not None else {}),
        "db_url": redact_url(spec.db_url) if spec.db_url else None,
        "databases": databases,
        "concurrency": spec.concurrency,
        "repeats": spec.repeats,
        **({"column_order": spec.column_order} if spec.column_order else {}),
    }
    warnings = _warnings(spec.candidate, outcomes, extra) + unstated_orders(corpus.questions)
    if interrupted:
        warnings.insert(
            0,
            "PARTIAL: the run was interrupted (Ctrl-C); questions not answered are unmeasured, and "
            "these figures describe only what was answered.",
        )
    return SQLRun(
        outcomes=outcomes,
        candidate_path=spec.candidate,
        model=spec.generator.model,
        corpus={
            "digest": corpus.digest,
            "size": corpus.size,
            "files": [{"path": f.path, "sha256": f.sha256, "questions": f.questions} for f in corpus.files],
        },
        run=run,
        oracle_defects=[{"question_id": d.question_id, "kind": d.kind, "detail": d.detail} for d in check.defects],
        warnings=warnings,
        cohort=cohort(
            corpus=corpus,
            fixtures=spec.fixtures,
            databases=databases,
            seed=run["seed"],
            rotations=run["rotations"],
            engine=engine,
            candidate=spec.candidate,
            generator=spec.generator,
            repeats=spec.repeats,
        ),
        costs=cost_summary(graded, spec.prices, spec.repeats),  # every ask, before the repeats are combined
        repeats=repeat_summary(outcomes, spec.repeats),
        partial=interrupted,
    )


def _targets(spec: RunSpec, questions: list[Question], host: FixtureHost) -> dict[str | None, list[str]]:
    if spec.db_url:
        return {None: [spec.db_url]}
    names = sorted({q.fixture for q in questions if q.fixture})
    unknown = [f for f in names if f not in spec.fixtures]
    if unknown:
        raise UsageError(f"unknown fixture(s) {', '.join(unknown)}; fixtures: {', '.join(spec.fixtures)}")
    databases = database_targets(questions, spec.db_dir)  # checked before anything is built
    built: dict[str | None, list[str]] = {
        f: host.build_rotations(spec.fixtures[f], spec.seed, spec.rotations) for f in names
    }
    return built | databases


def _fixture_keys(targets: Mapping[str | None, Sequence[str]]) -> list[str]:
    return sorted(k for k in targets if k and not k.startswith("db:"))


def _check_reachable(service: NLDatabaseService, targets: Mapping[str | None, Sequence[str]]) -> None:
    """Every database opens and has tables: on an empty one every answer is an error and every
    must-refuse question a 'correct' refusal, a headline about nothing."""
    for urls in targets.values():
        for url in urls:
            probe = service.run_readonly("SELECT 1", url)
            if not probe.ok:
                raise UsageError(f"cannot reach database {redact_url(url)}: {probe.reason}")
            if not service.structure(url):
                raise UsageError(
                    f"the database {redact_url(url)} has no tables: nothing can be asked of it; check the URL "
                    "or the file (a 0-byte .sqlite file is an empty database)"
                )


def _recorded(spec: RunSpec, questions: list[Question], dialect: str) -> Mapping[str, Generation] | None:
    """Answers looked up by id (reference, recorded), or None when the service's generator answers."""
    if spec.candidate == "reference":
        return reference_answers(questions, dialect)
    return spec.answers.answers if spec.answers is not None else None


def _all_questions(
    grader: Grader, questions: list[Question], graded: list[SQLOutcome], defects: Mapping[str, OracleDefect]
) -> list[SQLOutcome]:
    """Every question in corpus order: its graded outcome, or why it was not asked."""
    by_id = {o.question_id: o for o in graded}
    outcomes = []
    for q in questions:
        if q.id in defects:
            d = defects[q.id]
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, ORACLE, f"{d.kind}: {d.detail}"))
        elif q.id not in by_id:
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, NO_ANSWER, "the answers file has no line for it"))
        else:
            outcomes.append(by_id[q.id])
    return outcomes


def _warnings(candidate: str, outcomes: list[SQLOutcome], extra_answer_ids: list[str]) -> list[str]:
    warnings = []
    if candidate == "reference":
        warnings.append(
            "Reference candidate: answers with the corpus's own SQL. This is the self-check run; "
            "it measures the harness, not any NL-to-SQL system."
        )
    answerable = [o for o in outcomes if o.expect == "answer" and o.measured]
    if answerable and all(o.verdict is Verdict.REFUSED for o in answerable):
        warnings.append(
            f"The {candidate} candidate declined every answerable question: its pass rate is "
            "zero by refusal, not by wrong answers."
        )
    if extra_answer_ids:
        warnings.append(
            f"{len(extra_answer_ids)} recorded answer(s) name ids not in the corpus and were ignored: "
            + ", ".join(extra_answer_ids[:10])
            + (" ..." if len(extra_answer_ids) > 10 else "")
        )
    return warnings
