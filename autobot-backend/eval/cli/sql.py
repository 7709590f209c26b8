"""``python -m eval.run --suite sql``: the command line around one run and what its numbers decide.

The run itself (build, self-check, ask, grade) is :func:`eval.sql.pipeline.run_suite`. This
module's parser holds the SQL suite's options only (:func:`build_parser`); the command line is
checked before anything is built (:mod:`eval.cli.sql_checks`); afterwards this module classifies the
run against its baseline, evaluates the gate, writes the reports and records, and picks the exit code.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from eval.cli import options, sql_options, sql_run_options
from eval.cli.sql_formats import REPORT_FILES
from eval.core.errors import UsageError
from eval.sql.model.defaults import CANDIDATES, DEFAULT_CANDIDATE, DEFAULT_SEED

if TYPE_CHECKING:  # the run's modules load SQLAlchemy and sqlglot: imported in run_sql, so --help stays light
    from eval.sql.fixtures.seeded import Fixture
    from services.generation.protocol import SQLGenerator


def build_parser() -> argparse.ArgumentParser:
    p = options.suite_parser("sql", "Grade NL-to-SQL answers on execution, not on SQL text: the SQL suite.")
    options.add_candidate(p, f"{'|'.join(CANDIDATES)} (default {DEFAULT_CANDIDATE})")
    options.add_reports(p)
    options.add_fail_on_regression(
        p,
        "gated mode, against the baseline: exit 1 when any question the baseline passed is not a pass now, "
        "any must-refuse case it declined is answered now, or an aggregate check fails (pass rate, corpus size, "
        "missing questions, composition, refusal recall, over-refusals); 2 when the gate cannot be judged "
        "(no baseline, unmeasured questions)",
    )
    options.add_timeout(p, "question")
    options.add_require_real_candidate(
        p, "refuse the reference candidate, which answers with the corpus's own SQL (it cannot fail)"
    )
    sql_run_options.add_graded(p)
    sql_options.add_records(p)
    sql_run_options.add_shards(p)
    sql_run_options.add_model_runs(p)
    sql_run_options.add_report_detail(sql_options.add_report_files(p))
    sql_run_options.add_turns(p)
    return p


def fixtures_of(args: argparse.Namespace) -> dict[str, Fixture]:
    from eval.sql.fixtures.seeded import FIXTURES, fixtures_from_module

    return {**FIXTURES, **(fixtures_from_module(args.fixtures) if args.fixtures else {})}


def _llm_generator(sample_values: bool) -> SQLGenerator:
    # The HTTP client is loaded only for this candidate.
    from services.generation.chat_terms import on_this_machine
    from services.generation.llm import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, GeneratorConfigError, OpenAIChatGenerator

    def unset(names: list[str]) -> UsageError:
        return UsageError(f"the llm candidate needs credentials; not set: {', '.join(names)}. Nothing was scored.")

    base = os.environ.get(BASE_URL_ENV)
    missing = [name for name in (BASE_URL_ENV, MODEL_ENV) if not os.environ.get(name)]
    if missing:
        raise unset(missing)
    try:
        generator = OpenAIChatGenerator.from_env(sample_values=sample_values)  # a bad setting is the user's: exit 2
    except GeneratorConfigError as exc:
        raise UsageError(f"the llm candidate's configuration: {exc}. Nothing was scored.") from None
    if not os.environ.get(API_KEY_ENV) and not on_this_machine(base or ""):
        raise unset([f"{API_KEY_ENV} (required for a non-local endpoint)"])
    return generator


def _generator(candidate: str, recorded_model: str | None = None, *, sample_values: bool = True) -> SQLGenerator:
    """The generator the service holds. Recorded and reference answers are looked up by id and
    handed to the service per question, so their generator only names the system (asked by text, it
    has no answer: unmeasured); ``recorded_model`` is that name for recorded answers. ``sample_values``: a model
    may be sent values sampled from the database (the built-in generator reads them on the machine)."""
    if candidate == "llm":
        return _llm_generator(sample_values)
    from eval.sql.grading.candidates import AnswersById

    if candidate == "reference":
        return AnswersById("reference", "reference")
    if recorded_model is not None:
        return AnswersById("recorded", recorded_model)
    from services.embedded import EmbeddedGenerator

    return EmbeddedGenerator()


def run_sql(args: argparse.Namespace) -> int:
    from eval.cli import sql_checks as checks
    from eval.cli.sql_publish import finish
    from eval.core import ci_output as ci_out
    from eval.core import crash
    from eval.core.exit_codes import EXIT_CANNOT_JUDGE
    from eval.core.output import confine, print_error
    from eval.core.progress import ProgressLine
    from eval.core.runner import Limits
    from eval.sql.corpus.answers import load_answers
    from eval.sql.corpus.questions import load_corpus
    from eval.sql.engines.setup import chosen_engine
    from eval.sql.grading.costs import prices_from_env
    from eval.sql.pipeline import OracleBroken, RunSpec, run_suite

    crash.count_logs(None if args.verbose else crash.SHOWN_PER_KIND)
    checks.resolve_paths(args)
    candidate, builtin, rotations, timeout = checks.validate(args)
    shard = checks.shard(args)
    for path in (args.json, args.markdown, *(getattr(args, f.flag) for f in REPORT_FILES)):
        if path:
            confine(path)
    if args.github_summary:
        ci_out.step_summary_path()  # unset: a usage error now, not after the run
    baseline_dir = checks.baseline_dir(args, builtin)
    if baseline_dir is None and (args.record_baseline or args.fail_on_regression):
        raise UsageError(
            "the corpus files are in more than one folder, or the built-in corpus runs on your own "
            "database: say where its baselines live with --baseline-dir DIR"
        )
    checks.confine_records(args, baseline_dir)
    fixtures = {} if args.db_url else fixtures_of(args)
    corpus = load_corpus(args.corpus or None, fixtures=None if args.db_url else tuple(fixtures))
    if args.db_dir is not None and not any(q.database for q in corpus.questions):
        raise UsageError("--db-dir is given, but no question of the corpus names a database ('database: NAME')")
    # Inputs that can be wrong are checked before anything is built: credentials, the answers file.
    answers = load_answers(args.answers) if candidate == "recorded" else None
    model = checks.recorded_model(args, answers) if answers is not None else None
    if answers is not None:
        checks.say_missing_answers(corpus, answers, gated=bool(args.fail_on_regression))
    turns = None
    if args.export_turns or args.judge:  # the answers as captured turns: only when asked for
        from eval.turns.sql_turns import SQLTurns

        turns = SQLTurns.from_options(
            args.export_turns,
            args.judge,
            repeats=args.repeats,
            concurrency=args.concurrency,
            timeout_s=timeout,
            stop_after_unavailable=args.stop_after_unavailable,
        )
    engine = chosen_engine(args.engine, args.fixture_url, args.db_url)
    spec = RunSpec(
        candidate=candidate,
        generator=_generator(
            candidate, model, sample_values=not args.no_sample_values and corpus.sample_values is not False
        ),
        corpus=corpus,
        fixtures=fixtures,
        builtin=builtin,
        db_url=args.db_url,
        rotations=rotations,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        timeout_s=timeout,
        answers=answers,
        concurrency=checks.concurrency(args, candidate),
        repeats=args.repeats,
        limits=Limits(stop_after_unavailable=args.stop_after_unavailable or None, run_budget_s=args.max_run_seconds),
        statement_timeout_s=args.statement_timeout,
        prices=prices_from_env(),
        db_dir=args.db_dir,
        on_answer=None if turns is None else turns.record,
        engine=engine,
        fixture_url=args.fixture_url,
        column_order=args.column_order,
        transcripts=not args.no_transcripts,
        exact_match=args.exact_match,
        row_cap=args.row_cap,
        shard=shard,
        counterexamples=checks.counterexample_budget(args),
    )
    progress = ProgressLine("sql")
    try:
        report = run_suite(spec, progress)
    except OracleBroken as exc:
        print_error(str(exc))
        return EXIT_CANNOT_JUDGE
    finally:
        progress.close()
    return finish(report, args, builtin, corpus, baseline_dir, turns)
