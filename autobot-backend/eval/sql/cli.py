"""``python -m eval.run --suite sql``: build fixtures, self-check, ask, grade, report, gate.

The order matters and is the contract: the oracle is proven (self-check) before any candidate
is called; every question is asked through ``NLDatabaseService`` on the first rotation; every
answer is graded on every rotation; the gate and the records come last, from measured numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import ipaddress
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from eval.errors import UsageError
from eval.output import confine, write_text
from eval.runner import Progress, Replay, replay_all, timeout_from_env
from eval.sql import baseline as bl
from eval.sql import docs as record_docs
from eval.sql.answers import RecordedAnswers, load_answers
from eval.sql.candidate import SQLCandidate, recorded_candidate, reference_answers, service_candidate
from eval.sql.composition import corpus_composition
from eval.sql.corpus import Corpus, Question, load_corpus
from eval.sql.fixtures import FIXTURE_NAMES, build_rotations
from eval.sql.gate import evaluate_gate
from eval.sql.grade import Grader
from eval.sql.outcome import NO_ANSWER, SQLOutcome, Verdict
from eval.sql.report import SQLReport, to_json, to_markdown
from eval.sql.selfcheck import SNAPSHOT_DIR, OracleDefect, run_self_check
from services.nl_database_service import Answer, NLDatabaseService, redact_url
from services.recorded_generator import RecordedGenerator
from services.sql_generation import Generation, SQLGenerator

EXIT_OK, EXIT_REGRESSED, EXIT_CANNOT_JUDGE = 0, 1, 2
CANDIDATES = ("reference", "embedded", "llm", "recorded")
DEFAULT_ROTATIONS, DEFAULT_SEED = 3, 0
STATEMENT_TIMEOUT_S = 10.0


@dataclasses.dataclass
class Plan:
    """What the command line asked for, validated before anything is built."""

    candidate: str
    builtin: bool
    rotations: int
    seed: int | None
    timeout_s: float


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def _plan(args: argparse.Namespace) -> Plan:
    candidate = args.candidate or "embedded"
    if candidate not in CANDIDATES:
        raise UsageError(f"unknown SQL candidate {candidate!r}; choose one of {', '.join(CANDIDATES)}")
    if candidate == "recorded" and args.answers is None:
        raise UsageError("--candidate recorded needs --answers FILE (JSON Lines of {\"id\", \"sql\"} or "
                         "{\"id\", \"refused\": true, \"reason\"})")
    if args.answers is not None and candidate != "recorded":
        raise UsageError("--answers is only read by --candidate recorded")
    if args.force and not args.record_baseline:
        raise UsageError("--force only applies to --record-baseline")
    if args.require_real_candidate and candidate == "reference":
        raise UsageError("--require-real-candidate: the reference candidate answers with the corpus's own SQL")
    if args.db_url and (args.rotations is not None or args.seed is not None):
        raise UsageError("--db-url runs on one database: --rotations and --seed do not apply")
    rotations = DEFAULT_ROTATIONS if args.rotations is None else args.rotations
    if not 1 <= rotations <= 20:
        raise UsageError(f"--rotations must be between 1 and 20, got {rotations}")
    builtin = not args.corpus and not args.db_url
    if (args.record_accuracy or args.record_baseline or args.fail_on_regression) and not builtin:
        raise UsageError("baselines, the gate and the accuracy record are kept for the built-in corpus on the "
                         "built-in fixtures; drop --corpus/--db-url for them")
    if (args.record_baseline or args.record_accuracy) and (args.rotations is not None or args.seed is not None):
        raise UsageError("baselines and the accuracy record use the default fixtures (3 rotations from seed 0)")
    timeout = args.timeout if args.timeout is not None else timeout_from_env()
    if timeout <= 0:
        raise UsageError("--timeout must be positive")
    return Plan(candidate, builtin, 1 if args.db_url else rotations,
                None if args.db_url else (DEFAULT_SEED if args.seed is None else args.seed), timeout)


def _is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _llm_generator() -> SQLGenerator:
    base, model = os.environ.get("NL_SQL_LLM_BASE_URL"), os.environ.get("NL_SQL_LLM_MODEL")
    missing = [n for n, v in (("NL_SQL_LLM_BASE_URL", base), ("NL_SQL_LLM_MODEL", model)) if not v]
    if not missing and not os.environ.get("NL_SQL_LLM_API_KEY") and not _is_loopback(base or ""):
        missing.append("NL_SQL_LLM_API_KEY (required for a non-local endpoint)")
    if missing:
        raise UsageError(f"the llm candidate needs credentials; not set: {', '.join(missing)}. "
                         "Nothing was scored.")
    from services.llm_generator import OpenAIChatGenerator

    return OpenAIChatGenerator.from_env()


def _generator(plan: Plan, answers: RecordedAnswers | None) -> SQLGenerator:
    """The generator the service holds. Recorded and reference answers are looked up by id and
    handed to the service per question, so their generator only names the system (and declines
    anything asked of it by text)."""
    if plan.candidate == "llm":
        return _llm_generator()
    if plan.candidate == "reference":
        return RecordedGenerator({}, name="reference", model="reference")
    if answers is not None:
        return RecordedGenerator({}, name="recorded", model=answers.model or f"answers:{answers.path.name}")
    from services.embedded_generator import EmbeddedGenerator

    return EmbeddedGenerator()


def _targets(corpus: Corpus, args: argparse.Namespace, plan: Plan, workdir: Path) -> dict[str | None, list[str]]:
    if args.db_url:
        return {None: [args.db_url]}
    fixtures = sorted({q.fixture for q in corpus.questions if q.fixture})
    unknown = [f for f in fixtures if f not in FIXTURE_NAMES]
    if unknown:
        raise UsageError(f"unknown fixture(s) {', '.join(unknown)}; built-in fixtures: {', '.join(FIXTURE_NAMES)}")
    return {f: build_rotations(f, workdir, seed=plan.seed or 0, rotations=plan.rotations) for f in fixtures}


def _check_reachable(service: NLDatabaseService, targets: Mapping[str | None, Sequence[str]]) -> None:
    for urls in targets.values():
        for url in urls:
            probe = service.run_readonly("SELECT 1", url)
            if not probe.ok:
                raise UsageError(f"cannot reach database {redact_url(url)}: {probe.reason}")


def _progress(total_label: str) -> Progress | None:
    if not sys.stderr.isatty():
        return None

    def show(i: int, n: int, r: Replay[Any, Any]) -> None:
        end = "\n" if i == n else ""
        print(f"\r{total_label} [{i}/{n}] {r.task.id[:50]:<50}", end=end, file=sys.stderr, flush=True)

    return show


def _grade_all(grader: Grader, questions: list[Question], replays: Mapping[str, Replay[Question, Answer]],
               defects: Mapping[str, OracleDefect]) -> list[SQLOutcome]:
    outcomes = []
    for q in questions:
        if q.id in defects:
            d = defects[q.id]
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, "oracle", f"{d.kind}: {d.detail}"))
        elif q.id not in replays:
            outcomes.append(grader.outcome(q, Verdict.UNMEASURED, NO_ANSWER, "the answers file has no line for it"))
        else:
            try:
                outcomes.append(grader.grade(q, replays[q.id]))
            except Exception as exc:  # one failing question never ends the run; it is unmeasured, loudly
                print(f"warning: grading {q.id} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                outcomes.append(grader.outcome(q, Verdict.UNMEASURED, "harness_error",
                                               f"{type(exc).__name__}: {exc}"))
    return outcomes


def _warnings(plan: Plan, outcomes: list[SQLOutcome], extra_answer_ids: list[str]) -> list[str]:
    warnings = []
    if plan.candidate == "reference":
        warnings.append("Reference candidate: answers with the corpus's own SQL. This is the self-check run; "
                        "it measures the harness, not any NL-to-SQL system.")
    answerable = [o for o in outcomes if o.expect == "answer" and o.measured]
    if answerable and all(o.verdict is Verdict.REFUSED for o in answerable):
        warnings.append(f"The {plan.candidate} candidate declined every answerable question: its pass rate is "
                        "zero by refusal, not by wrong answers.")
    if extra_answer_ids:
        warnings.append(f"{len(extra_answer_ids)} recorded answer(s) name ids not in the corpus and were ignored: "
                        + ", ".join(extra_answer_ids[:10]) + (" ..." if len(extra_answer_ids) > 10 else ""))
    return warnings


def run_sql(args: argparse.Namespace) -> int:
    plan = _plan(args)
    for path in (args.json, args.markdown):
        if path:
            confine(path)
    corpus = load_corpus(args.corpus or None, fixtures=None if args.db_url else FIXTURE_NAMES)
    questions = [dataclasses.replace(q, fixture=None) for q in corpus.questions] if args.db_url \
        else list(corpus.questions)
    composition = corpus_composition(corpus)
    # Inputs that can be wrong are checked before anything is built: credentials, the answers file.
    answers = load_answers(args.answers) if plan.candidate == "recorded" else None
    generator = _generator(plan, answers)
    with tempfile.TemporaryDirectory(prefix="sql-eval-") as tmp, \
            NLDatabaseService(generator, timeout_s=STATEMENT_TIMEOUT_S) as service:
        targets = _targets(corpus, args, plan, Path(tmp))
        _check_reachable(service, targets)
        engine = service.dialect(next(iter(targets.values()))[0])
        check = run_self_check(service, dataclasses.replace(corpus, questions=tuple(questions)), targets,
                               lint_rotations=not args.db_url,
                               snapshot_dir=SNAPSHOT_DIR if plan.builtin and plan.seed == DEFAULT_SEED else None)
        if plan.builtin and not check.ok:
            _err("the built-in corpus failed its self-check; no candidate was called:")
            for d in check.defects:
                print(f"  {d.question_id}: {d.kind}: {d.detail}", file=sys.stderr)
            return EXIT_CANNOT_JUDGE
        defects = {d.question_id: d for d in check.defects}
        first_urls = {k: urls[0] for k, urls in targets.items()}
        recorded: dict[str, Generation] | None = None
        if plan.candidate == "reference":
            recorded = reference_answers(questions, engine)
        elif answers is not None:
            recorded = answers.answers
        candidate: SQLCandidate = (service_candidate(service, first_urls) if recorded is None
                                   else recorded_candidate(service, first_urls, recorded))
        asked = [q for q in questions if q.id not in defects and (recorded is None or q.id in recorded)]
        done = asyncio.run(replay_all(asked, candidate, Answer, timeout_s=plan.timeout_s, progress=_progress("sql")))
        replays = {r.task.id: r for r in done}
        grader = Grader(service, targets, check.reference)
        outcomes = _grade_all(grader, questions, replays, defects)
    extra = sorted(set(answers.answers) - {q.id for q in questions}) if answers else []
    report = SQLReport(
        outcomes=outcomes, candidate_path=plan.candidate, model=generator.model,
        corpus={"digest": corpus.digest, "size": corpus.size,
                "files": [{"path": f.path, "sha256": f.sha256, "questions": f.questions} for f in corpus.files]},
        run={"engine": engine, "rotations": plan.rotations, "seed": plan.seed,
             "fixtures": sorted(k for k in targets if k) if not args.db_url else [],
             "db_url": redact_url(args.db_url) if args.db_url else None},
        oracle_defects=[{"question_id": d.question_id, "kind": d.kind, "detail": d.detail} for d in check.defects],
        warnings=_warnings(plan, outcomes, extra),
    )
    return _finish(report, args, plan, corpus, composition)


def _baseline_for(report: SQLReport, plan: Plan, baseline_dir: Path) -> tuple[bl.Baseline | None, str | None, bool]:
    """The baseline this run is compared with, or why there is none (and whether that is a defect)."""
    if not plan.builtin:
        return None, "a user's own corpus or database has no baseline", False
    try:
        baseline = bl.load_baseline(report.candidate_path, report.model, baseline_dir)
    except bl.BaselineError as exc:
        return None, str(exc), True
    if baseline is None:
        others = bl.other_baselines(report.candidate_path, report.model, baseline_dir)
        return None, (f"no baseline for {report.candidate_path}/{report.model}"
                      + (f"; baselines exist for {', '.join(b.label for b in others)}: a run is never compared "
                         "with another model's baseline" if others else "")
                      + "; record one deliberately with --record-baseline"), False
    differs = [f"{k} {report.run.get(k)!r} vs baseline {baseline.run.get(k)!r}" for k in ("engine", "rotations", "seed")
               if report.run.get(k) != baseline.run.get(k)]
    if differs:
        return None, "this run's set-up differs from the baseline's: " + ", ".join(differs), False
    return baseline, None, False


def _finish(report: SQLReport, args: argparse.Namespace, plan: Plan, corpus: Corpus, composition) -> int:
    baseline_dir = args.baseline_dir or bl.BASELINE_DIR
    baseline, why_not, unusable = _baseline_for(report, plan, baseline_dir)
    report.gated = bool(args.fail_on_regression)
    if baseline is None:
        report.gate_note = why_not
    else:
        report.baseline = {"path": bl.display_path(baseline.source),
                           "recorded_at": baseline.recorded_at, "model": baseline.model}
        report.classify(baseline.questions)
        report.gate = evaluate_gate(report.summary, {q.id for q in corpus.questions}, composition, corpus.size,
                                    baseline)
    text = to_markdown(report)
    print(text)
    if args.markdown:
        write_text(args.markdown, text + "\n")
    if args.json:
        write_text(args.json, json.dumps(to_json(report), indent=2, default=str) + "\n")
    s = report.summary
    if s["answerable"] + s["must_refuse"] - s["unmeasured"] - s["must_refuse_unmeasured"] == 0:
        _err("no question could be measured; see the reasons in the report")
        return EXIT_CANNOT_JUDGE
    if args.record_baseline:
        failing = report.gate is not None and report.gate.status != "passed"
        if (failing or unusable) and not args.force:
            what = (f"this run {report.gate.status} the gate against the existing baseline "
                    f"({', '.join(c.name for c in report.gate.checks if c.ok is not True)})" if failing else why_not)
            _err(f"not recording: {what}; re-run with --force to replace it deliberately")
            return EXIT_CANNOT_JUDGE
        path = bl.write_baseline(report, composition, baseline_dir)
        print(f"baseline recorded: {bl.display_path(path)}", file=sys.stderr)
    if args.record_accuracy:
        row = record_docs.append_record(report, record_docs.ACCURACY_PAGE)
        record_docs.append_strata(report, row, record_docs.ACCURACY_PAGE)
        print(f"accuracy record: appended {row['date']} {row['candidate']}/{row['model']} ({row['status']})",
              file=sys.stderr)
    if not args.fail_on_regression:
        return EXIT_OK
    if report.gate is None:
        _err(f"cannot gate: {why_not}")
        return EXIT_CANNOT_JUDGE
    if report.gate.status == "failed":
        _err("gate failed: " + "; ".join(f"{c.name}: {c.detail}" for c in report.gate.failed))
        return EXIT_REGRESSED
    if report.gate.status == "indeterminate":
        _err("gate indeterminate: " + "; ".join(f"{c.name}: {c.detail}" for c in report.gate.checks if c.ok is None))
        return EXIT_CANNOT_JUDGE
    return EXIT_OK
