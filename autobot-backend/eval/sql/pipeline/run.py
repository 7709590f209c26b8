"""One SQL run, in the order that is the contract: build, self-check, ask, grade.

The oracle is proven (self-check) before any candidate is called; every question is asked
through ``NLDatabaseService`` on the first rotation; every answer is graded on every rotation.
What a run's numbers decide (baselines, the gate, the records) is the caller's: this module
returns the :class:`~eval.sql.render.SQLRun` and nothing else.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from eval.core import forked, interrupt
from eval.core.forked import Spread
from eval.core.output import shown_url
from eval.core.runner import INTERRUPTED, Progress
from eval.sql.corpus.lints import DRAFT_DETAIL
from eval.sql.corpus.questions import Corpus, Question
from eval.sql.engines.setup import FixtureHost, engine_name, fixture_host
from eval.sql.grading.asking import Sample, ask_all, combine
from eval.sql.grading.candidates import (
    ServiceCandidate,
    reference_answers,
)
from eval.sql.grading.costs import cost_summary, repeat_summary
from eval.sql.grading.exact_match import run_mode, spider_schemas, wants_exact_match, with_exact_match
from eval.sql.grading.grade import Grader
from eval.sql.grading.identity import cohort, fingerprint
from eval.sql.grading.interruption import StoppableDatabase, partial_warning
from eval.sql.grading.refuting import search_passes
from eval.sql.grading.spread import ask_spread, spreadable
from eval.sql.grading.transcripts import note as transcript_note
from eval.sql.grading.transcripts import run_secrets
from eval.sql.grading.warnings import run_warnings
from eval.sql.model.defaults import DEFAULT_SEED
from eval.sql.model.lints import DRAFT
from eval.sql.model.outcome import NO_ANSWER, ORACLE, SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import CorpusStamps, DatabaseStamp, RunSetup, SkippedStamp
from eval.sql.model.shard import Shard, ShardAsk, ids_digest
from eval.sql.oracle.findings import corpus_findings
from eval.sql.oracle.kept import KeptChecks
from eval.sql.oracle.selfcheck import SNAPSHOT_DIR, OracleDefect, SelfCheckResult, is_builtin, run_self_check
from eval.sql.oracle.sharing import keep_references, parse_references
from eval.sql.pipeline.databases import build_targets, check_reachable, fixture_keys, make_searcher, privilege_warnings
from eval.sql.pipeline.spec import ExactSetUp, OracleBroken, RunSpec, graded_corpus, run_row_cap
from eval.sql.shards.share import ShardSpec, share
from eval.sql.shards.stamp import engine_version, shard_setup
from services.generation.protocol import Generation
from services.nl_database_service import NLDatabaseService
from services.readonly.result_cache import ResultCache
from services.redaction import redact_url


@dataclass
class _SoFar:
    """What a run has learned, phase by phase: all a run stopped by a signal has to report."""

    questions: list[Question]
    """The questions this run grades: the corpus's, or a shard's share of them."""
    everything: list[Question]
    """The corpus's questions: the databases, the lints and the stamps are the whole run's, sharded or not."""
    engine: str
    grader: Grader
    """Gives each question its outcome; the one that grades once the references are known."""
    databases: dict[str, list[DatabaseStamp]] = field(default_factory=dict)
    targets: dict[str | None, list[str]] = field(default_factory=dict)
    check: SelfCheckResult = field(default_factory=SelfCheckResult)
    samples: list[Sample] = field(default_factory=list)
    graded: list[SQLOutcome] = field(default_factory=list)
    asked: bool = False
    """Every sample was put to the candidate (or was stopped by a signal while it was)."""
    exact: ExactSetUp | None = None
    """What EM needs, read while the service is open; None when no question asks for EM."""
    privileged: list[str] = field(default_factory=list)
    """Warnings about database roles that can do more than read (printed when found)."""
    engine_version: str | None = None
    """What the database reports as its version; asked only by a shard, whose merge compares it."""
    interrupted: bool = False


def run_suite(spec: RunSpec, progress: Progress | None = None) -> SQLRun:
    """Build the databases, self-check the oracle, ask every question, grade every answer.

    A signal (Ctrl-C, SIGTERM: :mod:`eval.core.interrupt`) in any of these phases ends the run there:
    what it made is taken down (the temporary folder, the throwaway server or the schemas, each removal
    whole), and the run so far comes back marked partial, every question not graded ``unmeasured``.
    """
    corpus = graded_corpus(spec)
    row_cap = run_row_cap(spec)
    # The service holds the largest cap any question may use; the grader holds each question to its own.
    # The run's databases do not change while it lasts: identical SQL on one database runs once.
    service = NLDatabaseService(
        spec.generator,
        timeout_s=spec.statement_timeout_s,
        row_cap=max([row_cap, *(q.row_cap for q in corpus.questions if q.row_cap)]),
        results=ResultCache(),
    )
    everything = (
        [dataclasses.replace(q, fixture=None, database=None) for q in corpus.questions]
        if spec.db_url
        else list(corpus.questions)
    )
    so_far = _SoFar(
        questions=_share_of(everything, spec.shard),
        everything=everything,
        engine="unknown" if spec.db_url else spec.engine,  # a URL of the user's is read once it is reached
        grader=Grader(StoppableDatabase(service), {}, {}, row_cap=row_cap),
    )
    try:
        with (
            interrupt.cleanup_held(tempfile.TemporaryDirectory(prefix="sql-eval-")) as tmp,
            interrupt.cleanup_held(fixture_host(spec.engine, Path(tmp), spec.fixture_url)) as host,
            interrupt.cleanup_held(service),
        ):
            _build_and_ask(spec, corpus, service, host, so_far, progress, Path(tmp))
    except KeyboardInterrupt:  # a signal before or after the asking (ask_all returns what was answered)
        so_far.interrupted = True
    except Exception:
        if not interrupt.requested():
            raise
        so_far.interrupted = True  # a step failed because the run was being stopped: not a crash
    interrupted = so_far.interrupted or interrupt.requested()
    questions, check, targets = so_far.questions, so_far.check, so_far.targets
    databases, engine = so_far.databases, so_far.engine
    by_question: dict[str, list[SQLOutcome]] = {}
    for sample, outcome in zip(so_far.samples, so_far.graded):
        by_question.setdefault(sample.question.id, []).append(outcome)
    defects = {d.question_id: d for d in check.defects}
    not_asked = (
        (NO_ANSWER, "the answers file has no line for it")
        if so_far.asked
        else ("unmeasured", f"interrupted: the run was stopped by {interrupt.received()} {_phase(so_far)}")
    )
    outcomes = _all_questions(so_far.grader, questions, combine(by_question), defects, not_asked)
    if so_far.exact is not None:  # parsing only, no database: forked for as many EM questions as are left
        em = so_far.exact
        processes = (
            (lambda left: Spread(forked.processes(sum(o.question_id in em.schemas for o in left))))
            if not interrupted
            else None
        )
        outcomes = with_exact_match(outcomes, em.giver(), processes)
    graded = so_far.graded
    extra = sorted(set(spec.answers.answers) - {q.id for q in so_far.everything}) if spec.answers else []
    fixtures = fixture_keys(targets) if targets else sorted({q.fixture for q in so_far.everything if q.fixture})
    rotations, seed = (spec.rotations, spec.seed) if fixtures else (1, None)
    run = RunSetup(
        engine=engine,
        rotations=rotations,
        seed=seed,
        fixtures=fixtures,
        db_dir=spec.db_dir.name if spec.db_dir is not None else None,
        db_url=shown_url(redact_url(spec.db_url)) if spec.db_url else None,
        databases=databases,
        concurrency=spec.concurrency,
        repeats=spec.repeats,
        column_order=spec.column_order or None,
        counterexamples=spec.counterexamples.label if spec.counterexamples else None,
    )
    # what python -m eval.sql.check lists, from the same place; a shard's lints are its questions' in the corpus
    found = corpus_findings(questions, check, corpus=so_far.everything)
    warnings = so_far.privileged + run_warnings(spec.candidate, outcomes, extra)
    stamps = CorpusStamps(
        digest=corpus.digest,
        size=corpus.size,
        files=list(corpus.files),
        skipped=[SkippedStamp(s.id, s.database, s.reason) for s in corpus.skipped],
    )
    if interrupted:
        warnings.insert(0, partial_warning(_phase(so_far)))
    return SQLRun(
        outcomes=outcomes,
        candidate_path=spec.candidate,
        model=spec.generator.model,
        corpus=stamps,
        run=run,
        oracle_defects=list(found.defects),
        warnings=warnings,
        cohort=cohort(
            corpus=corpus,
            fixtures=spec.fixtures,
            databases=databases,
            seed=seed,
            rotations=rotations,
            engine=engine,
            candidate=spec.candidate,
            generator=spec.generator,
            repeats=spec.repeats,
            row_cap=row_cap,
            counterexamples=spec.counterexamples.label if spec.counterexamples else None,
        ),
        costs=cost_summary(graded, spec.prices, spec.repeats),  # every ask, before the repeats are combined
        repeats=repeat_summary(outcomes, spec.repeats),
        partial=interrupted,
        transcripts=transcript_note(spec.candidate, spec.transcripts),
        suspect_references=list(found.suspects),
        lints=found.lints,
        shard=_shard_stamp(spec, so_far, questions, graded, extra),
    )


def _share_of(questions: list[Question], shard: ShardSpec | None) -> list[Question]:
    """The questions a run grades: all of them, or a shard's share, in corpus order."""
    if shard is None:
        return questions
    mine = share([q.id for q in questions], shard)
    return [q for q in questions if q.id in mine]


def _shard_stamp(
    spec: RunSpec, so_far: _SoFar, questions: list[Question], graded: list[SQLOutcome], extra: list[str]
) -> Shard | None:
    """What a shard's report says of itself (None: not a shard), for the merge to check and pool."""
    if spec.shard is None:
        return None
    settings = {
        "engine_version": so_far.engine_version,
        "timeout_s": spec.timeout_s,
        "statement_timeout_s": spec.statement_timeout_s,
        "row_cap": run_row_cap(spec),
        "stop_after_unavailable": spec.limits.stop_after_unavailable,
        "max_run_seconds": spec.limits.run_budget_s,
        "exact_match": spec.exact_match,
        "prices": list(spec.prices) if spec.prices else None,
    }
    return Shard(
        index=spec.shard.index,
        count=spec.shard.count,
        questions=len(questions),
        ids=ids_digest(q.id for q in questions),
        assignment=spec.shard.assignment,
        setup=shard_setup(**settings),
        privileged=list(so_far.privileged),
        extra_answers=extra,
        asks=[ShardAsk(o.question_id, o.verdict, o.cost) for o in graded] if spec.repeats > 1 else [],
    )


# Complexity (radon E or F), kept as one function: the run's one ordered sequence (fixtures, self-check, asking,
# grading), each step kept or skipped by a flag; split, the order the steps depend on would be spread over several
# functions.
def _build_and_ask(
    spec: RunSpec,
    corpus: Corpus,
    service: NLDatabaseService,
    host: FixtureHost,
    so_far: _SoFar,
    progress: Progress | None,
    workdir: Path,
) -> None:
    """The run's phases, each recording in ``so_far`` what it learned, so a signal keeps what came before."""
    database = so_far.grader.database
    questions = so_far.questions
    so_far.targets = targets = build_targets(spec, so_far.everything, host)  # a shard builds what the whole run builds
    check_reachable(service, targets)
    so_far.privileged = privilege_warnings(service, targets)
    first_url = next(iter(targets.values()))[0]
    so_far.engine, dialect = engine_name(first_url), service.dialect(first_url)
    if spec.shard is not None:
        so_far.engine_version = engine_version(service, first_url)
    if spec.db_url:  # a corpus of the user's own is written for their database: not transpiled
        so_far.questions = questions = [q if is_builtin(q) else q.written_for(dialect) for q in questions]
    so_far.databases = {key or "": [fingerprint(service, url) for url in urls] for key, urls in targets.items()}
    sqlite_only = all(url.startswith("sqlite") for urls in targets.values() for url in urls)
    answerable = [q for q in questions if q.expect == "answer"]
    recorded = _recorded(spec, questions, dialect)
    candidate = ServiceCandidate(service, {k: urls[0] for k, urls in targets.items()}, recorded)
    checking = Spread(
        forked.processes(len(answerable)) if sqlite_only else 1, service.sql.after_fork, candidate.prepare
    )
    if checking.workers > 1:
        parse_references(answerable, dialect)  # once, here: every child and the composition share the trees
    check = run_self_check(
        database,
        dataclasses.replace(corpus, questions=tuple(questions)),
        targets,
        lint_rotations=spec.db_url is None,
        snapshot_dir=SNAPSHOT_DIR if spec.builtin and spec.seed == DEFAULT_SEED else None,
        spread=checking,
        kept=KeptChecks(),  # the import's, an earlier run's: suspect findings are not looked for again
    )
    interrupt.raise_if_requested()  # a self-check cut short says nothing about the oracle
    if spec.builtin and not check.ok:
        raise OracleBroken(check.defects)
    so_far.check = check
    defects = {d.question_id for d in check.defects}
    so_far.grader = grader = Grader(
        database, targets, check.reference, check.ties, check.also, check.also_ties, row_cap=so_far.grader.row_cap
    )
    asked = [q for q in questions if q.id not in defects and not q.draft and (recorded is None or q.id in recorded)]
    samples = [Sample(q, k) for q in asked for k in range(spec.repeats)]
    urls = [url for urls in targets.values() for url in urls]
    spreading = spreadable(spec.candidate, urls, spec.limits, spec.on_answer) and service.capture is None
    asking = Spread(forked.processes(len(samples)) if spreading else 1, service.sql.after_fork)
    exact = [q for q in questions if q.expect == "answer" and wants_exact_match(q.exact_match, spec.exact_match)]
    em = None
    if exact:
        asked_ids = {q.id for q in asked}
        known = recorded or {}
        em = ExactSetUp(
            dialect,
            spider_schemas(service, {q.id: targets[q.target][0] for q in exact}),
            run_mode(spec.exact_match, (q.exact_match for q in exact)),
            {q.id: known[q.id].sql for q in exact if q.id not in asked_ids and q.id in known},
        )
    keep_references(service, asked, targets, check)  # a candidate that is its reference's SQL is not run again
    if asking.workers > 1:
        # each answer's EM where it was graded, its parse kept there; the rest (oracle defects, drafts) after
        given = em.giver() if em else None
        graded, so_far.interrupted = ask_spread(samples, candidate, grader, asking, progress=progress, after=given)
    else:
        graded, so_far.interrupted = ask_all(
            samples,
            candidate,
            grader,
            timeout_s=spec.timeout_s,
            concurrency=spec.concurrency,
            limits=spec.limits,
            progress=progress,
            on_answer=spec.on_answer,
            secrets=frozenset(run_secrets(spec.generator)) if spec.transcripts and spec.candidate == "llm" else None,
            grading=Spread(
                forked.processes(len(samples), default_auto=False) if sqlite_only else 1, service.sql.after_fork
            ),
        )
    if spec.counterexamples is not None and not so_far.interrupted:
        searcher = make_searcher(spec, host, first_url, workdir, grader.row_cap)
        try:
            passes = sum(o.verdict is Verdict.PASS for o in graded)
            searching = Spread(forked.processes(passes) if sqlite_only else 1, service.sql.after_fork)
            graded = search_passes(grader, searcher, [s.question for s in samples], graded, spread=searching)
        finally:
            searcher.close()
    if so_far.interrupted:  # a run cut short gives no EM, not even to what it graded
        graded = [dataclasses.replace(o, exact=None) for o in graded]
    so_far.samples, so_far.graded, so_far.asked = samples, graded, True
    so_far.exact = em if not so_far.interrupted else None


def _phase(so_far: _SoFar) -> str:
    """Where in the run the signal came, as the partial report says it."""
    if not so_far.asked:
        return "before any question was asked (while the databases were built or the oracle checked itself)"
    if any(o.detail == INTERRUPTED for o in so_far.graded):
        return "while the questions were asked"
    return "after every question was graded"


def _recorded(spec: RunSpec, questions: list[Question], dialect: str) -> Mapping[str, Generation] | None:
    """Answers looked up by id (reference, recorded), or None when the service's generator answers."""
    if spec.candidate == "reference":
        return reference_answers(questions, dialect)
    return spec.answers.answers if spec.answers is not None else None


def _all_questions(
    grader: Grader,
    questions: list[Question],
    graded: list[SQLOutcome],
    defects: Mapping[str, OracleDefect],
    not_asked: tuple[str, str],
) -> list[SQLOutcome]:
    """Every question in corpus order: its graded outcome, or why it was not asked (``not_asked``, reason and
    detail: no recorded answer, or the signal that stopped the run before asking)."""
    by_id = {o.question_id: o for o in graded}
    outcomes = []
    for q in questions:
        if q.id in defects:
            d = defects[q.id]
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, ORACLE, f"{d.kind}: {d.detail}"))
        elif q.draft:
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, DRAFT, DRAFT_DETAIL))
        elif q.id not in by_id:
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, *not_asked))
        else:
            outcomes.append(by_id[q.id])
    return outcomes
