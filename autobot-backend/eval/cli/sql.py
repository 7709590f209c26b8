"""``python -m eval.run --suite sql``: the command line around one run and what its numbers decide.

The run itself (build, self-check, ask, grade) is :func:`eval.sql.pipeline.run_suite`. This
module's parser holds the SQL suite's options only (:func:`build_parser`); the command line is
checked before anything is built (:mod:`eval.cli.sql_checks`); afterwards this module classifies the
run against its baseline, evaluates the gate, writes the reports and records, and picks the exit code.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from eval.cli import options, sql_options
from eval.cli.sql_formats import REPORT_FILES
from eval.core.errors import UsageError
from eval.sql.model.defaults import (
    CANDIDATES,
    DEFAULT_CANDIDATE,
    DEFAULT_COUNTEREXAMPLES,
    DEFAULT_ENGINE,
    DEFAULT_SEED,
    ENGINES,
)
from eval.sql.model.exact import MODES, OFFICIAL

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
    s = p.add_argument_group("what is graded, and where")
    s.add_argument(
        "--answers", type=Path, metavar="FILE", help="recorded answers (JSON Lines) for --candidate recorded"
    )
    s.add_argument(
        "--model",
        metavar="NAME",
        help="name the system whose recorded answers are graded (--candidate recorded); the answers "
        "file's own model field must agree",
    )
    s.add_argument(
        "--corpus",
        type=Path,
        action="extend",
        nargs="+",
        metavar="FILE",
        help="grade these corpus files instead of the built-in corpus (one or more; repeatable)",
    )
    s.add_argument("--db-url", metavar="URL", help="run against this database instead of the fixtures (no rotations)")
    s.add_argument(
        "--db-dir",
        type=Path,
        metavar="DIR",
        help="where questions with a 'database: NAME' key find it: DIR/NAME/NAME.sqlite (Spider's database/, "
        "BIRD's dev_databases/)",
    )
    s.add_argument(
        "--column-order",
        choices=("positional", "any"),
        default=None,
        help="positional: columns compared by position (the default); any: the reference's columns in another "
        "order pass (the Spider convention); overrides the corpus's column_order",
    )
    s.add_argument(
        "--exact-match",
        nargs="?",
        const=OFFICIAL,
        choices=MODES,
        metavar="MODE",
        help="also give every answer Spider's exact-set-match against its reference (a second figure, by "
        "difficulty, beside execution accuracy; never in the pass rate or a verdict), its figures in MODE: "
        "official (the default: as Spider's script counts it, a query its parser cannot read is no match and "
        "every question counts) or extended (the project's reading: sqlglot reads the SQL, measured answers "
        "only); both are computed, and every output says how many answers they score differently; a corpus "
        "written by bench_import spider asks for it itself (exact_match: official)",
    )
    s.add_argument(
        "--engine",
        metavar="NAME",
        help=f"build the fixtures on this engine and grade there: {', '.join(ENGINES)} (default {DEFAULT_ENGINE})",
    )
    s.add_argument(
        "--fixture-url",
        metavar="URL",
        help="with --engine postgresql: build the fixtures in this database (its role must be allowed to create "
        "schemas there; they are dropped afterwards); default: a throwaway server of the run's own",
    )
    s.add_argument(
        "--fixtures",
        metavar="MODULE",
        help="also use the seeded fixtures a Python module defines in its FIXTURES mapping (e.g. tests.schemas)",
    )
    s.add_argument(
        "--counterexamples",
        nargs="?",
        const=DEFAULT_COUNTEREXAMPLES,
        default=None,
        metavar="BUDGET",
        help="search every pass for a database, data the fixture could hold, on which the answer would be wrong: "
        f"BUDGET neighbours of the graded database per pass (default {DEFAULT_COUNTEREXAMPLES}), or seconds per pass "
        "(e.g. 2s); a refuted pass keeps its verdict and is flagged, with the database shrunk to a few rows and a "
        "runnable script, in every report; part of the cohort",
    )
    s.add_argument("--rotations", type=int, default=None, metavar="N", help="fixture rotations (default 3)")
    s.add_argument("--seed", type=int, default=None, metavar="S", help="first fixture seed (default 0)")
    sql_options.add_records(p)
    d = p.add_argument_group("a run split across machines (python -m eval.merge joins the shards)")
    d.add_argument(
        "--shard",
        metavar="K/N",
        help="grade only shard K of N: every N-th question of the id-sorted corpus from the K-th (or a balanced "
        "share with --shard-durations); the report says it is a shard and nothing is gated or recorded",
    )
    d.add_argument(
        "--shard-durations",
        type=Path,
        metavar="REPORT",
        help="with --shard: share the questions out by their times in this earlier JSON report (the longest first, "
        "each to the shard with the least time so far) instead of round-robin; every shard must be given the same",
    )
    m = p.add_argument_group("model runs")
    options.add_run_limits(m, items="questions", concurrency_default="4 for --candidate llm, 1 otherwise")
    m.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="K",
        help="ask each question K times (a model's run-to-run variance: pass@K, pass^K, flaky questions; "
        "the headline is the majority verdict); refused for deterministic candidates",
    )
    m.add_argument(
        "--statement-timeout",
        type=options.seconds,
        default=10.0,
        metavar="S",
        help="time limit of one SQL statement on the database (default 10)",
    )
    m.add_argument(
        "--row-cap",
        type=int,
        default=None,
        metavar="N",
        help="most rows a model's answer may return, for questions without their own row_cap (default: "
        "NL_SQL_ROW_CAP, else 10000); references are bounded by the byte budget (NL_SQL_MAX_RESULT_BYTES) alone",
    )
    r = sql_options.add_report_files(p)
    r.add_argument(
        "--no-transcripts",
        action="store_true",
        help="leave out the model's transcripts (messages sent, raw reply, per question and ask) from every "
        "report, e.g. one to be published; the reports say they were left out",
    )
    j = p.add_argument_group("the answers as captured turns")
    j.add_argument(
        "--export-turns",
        metavar="PATH",
        help="also write every answer of the run as a captured turn (JSON Lines; same confinement as --json)",
    )
    j.add_argument(
        "--judge",
        action="store_true",
        help="also judge every answer as a captured turn (NL_SQL_JUDGE_*) and report the judge's agreement with "
        "the execution verdicts, per stratum",
    )
    return p


def fixtures_of(args: argparse.Namespace) -> dict[str, Fixture]:
    from eval.sql.fixtures.seeded import FIXTURES, fixtures_from_module

    return {**FIXTURES, **(fixtures_from_module(args.fixtures) if args.fixtures else {})}


def _llm_generator() -> SQLGenerator:
    # The HTTP client is loaded only for this candidate.
    from services.generation.llm import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, GeneratorConfigError, OpenAIChatGenerator
    from services.generation.openai_chat import on_this_machine

    def unset(names: list[str]) -> UsageError:
        return UsageError(f"the llm candidate needs credentials; not set: {', '.join(names)}. Nothing was scored.")

    base = os.environ.get(BASE_URL_ENV)
    missing = [name for name in (BASE_URL_ENV, MODEL_ENV) if not os.environ.get(name)]
    if missing:
        raise unset(missing)
    try:
        generator = OpenAIChatGenerator.from_env()  # a bad setting is the user's to fix, not a bug: exit 2
    except GeneratorConfigError as exc:
        raise UsageError(f"the llm candidate's configuration: {exc}. Nothing was scored.") from None
    if not os.environ.get(API_KEY_ENV) and not on_this_machine(base or ""):
        raise unset([f"{API_KEY_ENV} (required for a non-local endpoint)"])
    return generator


def _generator(candidate: str, recorded_model: str | None = None) -> SQLGenerator:
    """The generator the service holds. Recorded and reference answers are looked up by id and
    handed to the service per question, so their generator only names the system (asked by text, it
    has no answer: unmeasured); ``recorded_model`` is that name for recorded answers."""
    if candidate == "llm":
        return _llm_generator()
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
    from eval.core.exit_codes import EXIT_CANNOT_JUDGE
    from eval.core.output import confine, print_error
    from eval.core.progress import ProgressLine
    from eval.core.runner import Limits
    from eval.sql.corpus.answers import load_answers
    from eval.sql.corpus.questions import load_corpus
    from eval.sql.engines.setup import chosen_engine
    from eval.sql.grading.costs import prices_from_env
    from eval.sql.pipeline import OracleBroken, RunSpec, run_suite

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
        generator=_generator(candidate, model),
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
