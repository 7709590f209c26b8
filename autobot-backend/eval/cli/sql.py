"""``python -m eval.run --suite sql``: the command line around one run and what its numbers decide.

The run itself (build, self-check, ask, grade) is :func:`eval.sql.pipeline.run_suite`. This
module's parser holds the SQL suite's options only (:func:`build_parser`); it validates the
command line before anything is built, and afterwards classifies the run against its baseline,
evaluates the gate, writes the reports and records, and picks the exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import sqlalchemy as sa
from rich.console import Console

from eval.cli import options
from eval.cli.sql_options import REPORT_FILES
from eval.core import ci_output as ci_out
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE
from eval.core.output import confine, resolve_input, write_text
from eval.core.progress import ProgressLine
from eval.core.runner import Limits
from eval.sql.corpus.answers import RecordedAnswers, load_answers
from eval.sql.corpus.composition import corpus_composition
from eval.sql.corpus.questions import Corpus, load_corpus
from eval.sql.engines.setup import chosen_engine
from eval.sql.fixtures.seeded import FIXTURES, Fixture, fixtures_from_module
from eval.sql.gate import baseline as bl
from eval.sql.gate import decisions as decide
from eval.sql.grading.candidates import AnswersById
from eval.sql.grading.costs import prices_from_env
from eval.sql.model.defaults import (
    CANDIDATES,
    DEFAULT_ROTATIONS,
    DEFAULT_SEED,
    DETERMINISTIC_CANDIDATES,
)
from eval.sql.model.run import SQLRun
from eval.sql.pipeline import OracleBroken, RunSpec, run_suite
from eval.sql.records import docs, recording
from eval.sql.render import (
    ci_annotations,
    render_terminal,
    summary_markdown,
    to_json,
    to_markdown,
)
from eval.turns.sql_turns import SQLTurns
from services.generation.protocol import SQLGenerator
from services.readonly import limits


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def _fixtures(args: argparse.Namespace) -> dict[str, Fixture]:
    return {**FIXTURES, **(fixtures_from_module(args.fixtures) if args.fixtures else {})}


def _concurrency(args: argparse.Namespace, candidate: str) -> int:
    """``--concurrency``, else 4 for a model (it waits on the network) and 1 where more cannot help."""
    if args.concurrency is not None:
        return int(args.concurrency)
    return 4 if candidate == "llm" else 1


def _validate(args: argparse.Namespace) -> tuple[str, bool, int, float]:
    """The candidate, whether this is the built-in corpus on the built-in fixtures, rotations, timeout."""
    candidate = args.candidate or "embedded"
    if candidate not in CANDIDATES:
        raise UsageError(f"unknown SQL candidate {candidate!r}; choose one of {', '.join(CANDIDATES)}")
    if candidate == "recorded" and args.answers is None:
        raise UsageError(
            '--candidate recorded needs --answers FILE (JSON Lines of {"id", "sql"} or '
            '{"id", "refused": true, "reason"})'
        )
    if args.answers is not None and candidate != "recorded":
        raise UsageError("--answers is only read by --candidate recorded")
    if args.force and not args.record_baseline:
        raise UsageError("--force only applies to --record-baseline")
    if args.reason is not None and not args.force:
        raise UsageError("--reason goes with --record-baseline --force: it says why a failing run is accepted")
    if args.model is not None and candidate != "recorded":
        raise UsageError(
            "--model names the system whose recorded answers are graded; it goes with --candidate "
            "recorded (other candidates name their own model)"
        )
    if args.require_real_candidate and candidate == "reference":
        raise UsageError("--require-real-candidate: the reference candidate answers with the corpus's own SQL")
    if args.db_url and (args.rotations is not None or args.seed is not None or args.fixtures):
        raise UsageError("--db-url runs on one database: --rotations, --seed and --fixtures do not apply")
    if args.db_url and args.db_dir is not None:
        raise UsageError("--db-url runs every question on one database; --db-dir is for questions that name theirs")
    rotations = DEFAULT_ROTATIONS if args.rotations is None else args.rotations
    if not 1 <= rotations <= 20:
        raise UsageError(f"--rotations must be between 1 and 20, got {rotations}")
    builtin = not args.corpus and not args.db_url
    if args.record_accuracy is True and not builtin:
        raise UsageError(
            "docs/eval/sql-accuracy.md records the built-in corpus on the built-in fixtures; for your own corpus "
            "or database give your record's path: --record-accuracy PATH"
        )
    if builtin and args.record_baseline and (args.rotations is not None or args.seed is not None):
        raise UsageError("the built-in corpus's baselines use the default fixtures (3 rotations from seed 0)")
    if builtin and (args.record_baseline or args.record_accuracy) and args.column_order == "any":
        raise UsageError("the built-in corpus's baselines and accuracy record grade columns by position")
    timeout = options.timeout_s(args.timeout)
    options.check_run_limits(args)
    if not 1 <= args.repeats <= 20:
        raise UsageError(f"--repeats must be between 1 and 20, got {args.repeats}")
    if args.repeats > 1 and candidate in DETERMINISTIC_CANDIDATES:
        raise UsageError(
            f"--repeats {args.repeats}: the {candidate} candidate is deterministic, so asking again "
            "gives the same answer; repeats measure a model's run-to-run variance (--candidate llm)"
        )
    if not args.statement_timeout > 0:
        raise UsageError(f"--statement-timeout must be a positive number of seconds, got {args.statement_timeout}")
    try:
        limits.sql_bytes(), limits.result_bytes()
    except ValueError as exc:
        raise UsageError(f"{exc}; nothing was run") from None
    return candidate, builtin, rotations, timeout


def _baseline_dir(args: argparse.Namespace, builtin: bool) -> Path | None:
    """Where this run's baselines live: the built-in ones, ``--baseline-dir``, or beside the corpus."""
    if args.baseline_dir is not None:
        return Path(args.baseline_dir)
    if builtin:
        return bl.BASELINE_DIR
    if not args.corpus:
        return None  # the built-in corpus on a user's database: say where with --baseline-dir
    folders = {Path(p).resolve().parent for p in args.corpus}
    return next(iter(folders)) / "baselines" if len(folders) == 1 else None


def _llm_generator() -> SQLGenerator:
    # The HTTP client is loaded only for this candidate.
    from services.generation.llm import OpenAIChatGenerator
    from services.generation.openai_chat import on_this_machine

    base, model = os.environ.get("NL_SQL_LLM_BASE_URL"), os.environ.get("NL_SQL_LLM_MODEL")
    missing = [n for n, v in (("NL_SQL_LLM_BASE_URL", base), ("NL_SQL_LLM_MODEL", model)) if not v]
    if not missing and not os.environ.get("NL_SQL_LLM_API_KEY") and not on_this_machine(base or ""):
        missing.append("NL_SQL_LLM_API_KEY (required for a non-local endpoint)")
    if missing:
        raise UsageError(f"the llm candidate needs credentials; not set: {', '.join(missing)}. Nothing was scored.")
    return OpenAIChatGenerator.from_env()


def _recorded_model(args: argparse.Namespace, answers: RecordedAnswers) -> str:
    """The system under test's name: ``--model``, the file's ``model``, or (neither) the file's name."""
    if args.model is not None and answers.model is not None and args.model != answers.model:
        raise UsageError(
            f"{answers.path}: the answers name model {answers.model!r}, but --model says "
            f"{args.model!r}; one answers file grades one system: drop --model or fix the file"
        )
    return args.model or answers.model or f"answers:{answers.path.name}"


def _generator(candidate: str, answers: RecordedAnswers | None, model: str | None = None) -> SQLGenerator:
    """The generator the service holds. Recorded and reference answers are looked up by id and
    handed to the service per question, so their generator only names the system (asked by text, it
    has no answer: unmeasured)."""
    if candidate == "llm":
        return _llm_generator()
    if candidate == "reference":
        return AnswersById("reference", "reference")
    if answers is not None:
        return AnswersById("recorded", model or answers.model or f"answers:{answers.path.name}")
    from services.embedded import EmbeddedGenerator

    return EmbeddedGenerator()


def resolve_sqlite_url(url: str) -> str:
    """A SQLite URL whose file path is relative, made relative to where the user stands."""
    try:
        parsed = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError, TypeError):
        return url  # not echoed: the executor reports it without the text
    database = parsed.database or ""
    if (
        parsed.get_backend_name() != "sqlite"
        or not database
        or database == ":memory:"
        or database.startswith("file:")
        or Path(database).is_absolute()
    ):
        return url
    return parsed.set(database=str(resolve_input(database))).render_as_string(hide_password=False)


def _resolve_paths(args: argparse.Namespace) -> None:
    """Paths on the command line are the user's: relative to where they ran the command."""
    args.corpus = [resolve_input(p) for p in args.corpus] if args.corpus else args.corpus
    args.answers = resolve_input(args.answers) if args.answers is not None else None
    args.baseline_dir = resolve_input(args.baseline_dir) if args.baseline_dir is not None else None
    args.db_url = resolve_sqlite_url(args.db_url) if args.db_url else args.db_url
    args.db_dir = resolve_input(args.db_dir) if args.db_dir is not None else None


def run_sql(args: argparse.Namespace) -> int:
    _resolve_paths(args)
    candidate, builtin, rotations, timeout = _validate(args)
    for path in (args.json, args.markdown, *(getattr(args, f.flag) for f in REPORT_FILES)):
        if path:
            confine(path)
    if args.github_summary:
        ci_out.step_summary_path()  # unset: a usage error now, not after the run
    baseline_dir = _baseline_dir(args, builtin)
    if baseline_dir is None and (args.record_baseline or args.fail_on_regression):
        raise UsageError(
            "the corpus files are in more than one folder, or the built-in corpus runs on your own "
            "database: say where its baselines live with --baseline-dir DIR"
        )
    fixtures = {} if args.db_url else _fixtures(args)
    corpus = load_corpus(args.corpus or None, fixtures=None if args.db_url else tuple(fixtures))
    if args.db_dir is not None and not any(q.database for q in corpus.questions):
        raise UsageError("--db-dir is given, but no question of the corpus names a database ('database: NAME')")
    # Inputs that can be wrong are checked before anything is built: credentials, the answers file.
    answers = load_answers(args.answers) if candidate == "recorded" else None
    model = _recorded_model(args, answers) if answers is not None else None
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
        generator=_generator(candidate, answers, model),
        corpus=corpus,
        fixtures=fixtures,
        builtin=builtin,
        db_url=args.db_url,
        rotations=rotations,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        timeout_s=timeout,
        answers=answers,
        concurrency=_concurrency(args, candidate),
        repeats=args.repeats,
        limits=Limits(stop_after_unavailable=args.stop_after_unavailable or None, run_budget_s=args.max_run_seconds),
        statement_timeout_s=args.statement_timeout,
        prices=prices_from_env(),
        db_dir=args.db_dir,
        on_answer=None if turns is None else turns.record,
        engine=engine,
        fixture_url=args.fixture_url,
        column_order=args.column_order,
    )
    progress = ProgressLine("sql")
    try:
        report = run_suite(spec, progress)
    except OracleBroken as exc:
        _err(str(exc))
        return EXIT_CANNOT_JUDGE
    finally:
        progress.close()
    return _finish(report, args, builtin, corpus, baseline_dir, turns)


def _finish(
    report: SQLRun,
    args: argparse.Namespace,
    builtin: bool,
    corpus: Corpus,
    baseline_dir: Path | None,
    turns: SQLTurns | None = None,
) -> int:
    composition = corpus_composition(corpus)
    found = decide.find_baseline(report, baseline_dir, allow_off_suite=args.allow_off_suite)
    decide.classify_and_gate(report, corpus, composition, found, bool(args.fail_on_regression))
    if turns is not None:
        turns.finish(report)
    text = to_markdown(report)
    written = {}
    if args.markdown:
        written["markdown"] = write_text(args.markdown, text + "\n")
    if args.json:
        written["json"] = write_text(args.json, json.dumps(to_json(report), indent=2, default=str) + "\n")
    for f in REPORT_FILES:
        if getattr(args, f.flag):
            written[f.flag] = write_text(getattr(args, f.flag), f.render(report))
    if sys.stdout.isatty():
        full = next((str(written[k]) for k in ("html", "markdown", "json") if k in written), None)
        render_terminal(report, Console(), full)
    else:
        print(text)
    if args.github_summary:
        ci_out.append_step_summary(summary_markdown(report))
        if ci_out.in_github_actions():
            for line in ci_annotations(report):
                print(line)
    if report.partial:
        _err("interrupted: the report so far is written (marked partial); nothing was recorded")
        return EXIT_CANNOT_JUDGE
    if args.record_baseline:
        assert baseline_dir is not None  # checked before the run
        refused = decide.record_baseline(report, composition, found, baseline_dir, args.force, args.reason)
        if refused is not None:
            return refused
    if args.record_accuracy:
        page = docs.ACCURACY_PAGE if args.record_accuracy is True else resolve_input(args.record_accuracy)
        recording.record_accuracy(
            report, page, builtin=args.record_accuracy is True, allow_off_suite=args.allow_off_suite
        )
    code = decide.exit_code(report, bool(args.fail_on_regression), found.why_not)
    return max(code, turns.exit_code) if turns is not None else code
