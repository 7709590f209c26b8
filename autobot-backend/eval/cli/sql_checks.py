"""The SQL suite's command line checked before anything is built: each flag's values and how they combine,
the paths a user gave read from where they stand, the defaults that depend on the candidate."""

from __future__ import annotations

import argparse
from pathlib import Path

import sqlalchemy as sa

from eval.cli import options
from eval.core.errors import UsageError
from eval.core.jsonl import json_file
from eval.core.output import confine, print_error, print_warning, resolve_input, shown_path
from eval.sql.corpus.answers import RecordedAnswers
from eval.sql.corpus.corpus_types import Corpus
from eval.sql.counterexample.budget import Budget
from eval.sql.gate import baseline as bl
from eval.sql.model.defaults import (
    CANDIDATES,
    DEFAULT_ROTATIONS,
    DETERMINISTIC_CANDIDATES,
)
from eval.sql.model.serialise import ReportFormatError, from_json
from eval.sql.records import docs
from eval.sql.records.trend_file import existing_points, trend_path
from eval.sql.shards.share import ShardSpec, durations_of, parse_shard
from services.readonly import limits


def counterexample_budget(args: argparse.Namespace) -> Budget | None:
    """``--counterexamples BUDGET`` read (None: no search), and ``--gate-refuted`` only with it."""
    if args.gate_refuted and args.counterexamples is None:
        raise UsageError("--gate-refuted counts the passes the counterexample search refutes: add --counterexamples")
    if args.counterexamples is None:
        return None
    try:
        return Budget.parse(args.counterexamples)
    except ValueError as exc:
        raise UsageError(f"--counterexamples {exc}") from None


def concurrency(args: argparse.Namespace, candidate: str) -> int:
    """``--concurrency``, else 4 for a model (it waits on the network) and 1 where more cannot help."""
    if args.concurrency is not None:
        return int(args.concurrency)
    return 4 if candidate == "llm" else 1


# Complexity (radon E or F), kept as one function: one check per combination of flags, each with its own usage error
# and what to do.
def validate(args: argparse.Namespace) -> tuple[str, bool, int, float]:
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
    check_records(args, builtin)
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
    if args.row_cap is not None and args.row_cap < 1:
        raise UsageError(f"--row-cap must be a whole number of rows >= 1, got {args.row_cap}")
    try:
        limits.sql_bytes(), limits.result_bytes(), limits.row_cap()
    except ValueError as exc:
        raise UsageError(f"{exc}; nothing was run") from None
    return candidate, builtin, rotations, timeout


def check_records(args: argparse.Namespace, builtin: bool) -> None:
    """How the record flags (:func:`eval.cli.sql_options.add_records`) combine, for a run and a merge alike."""
    if args.force and not args.record_baseline:
        raise UsageError("--force only applies to --record-baseline")
    if args.reason is not None and not args.force:
        raise UsageError("--reason goes with --record-baseline --force: it says why a failing run is accepted")
    if args.record_accuracy is True and not builtin:
        raise UsageError(
            "docs/eval/sql-accuracy.md records the built-in corpus on the built-in fixtures; for your own corpus "
            "or database give your record's path: --record-accuracy PATH"
        )


def baseline_dir(args: argparse.Namespace, builtin: bool) -> Path | None:
    """Where this run's baselines live: the built-in ones, ``--baseline-dir``, or beside the corpus."""
    if args.baseline_dir is not None:
        return Path(args.baseline_dir)
    if builtin:
        return bl.BASELINE_DIR
    if not args.corpus:
        return None  # the built-in corpus on a user's database: say where with --baseline-dir
    folders = {Path(p).resolve().parent for p in args.corpus}
    return next(iter(folders)) / "baselines" if len(folders) == 1 else None


def confine_records(args: argparse.Namespace, baseline_dir: Path | None) -> None:
    """The folders and files a run records into, confined before anything is built, as the reports are
    (:func:`eval.core.output.confine`): a ``--baseline-dir`` a baseline is written to, and the page of
    ``--record-accuracy PATH`` with the trend file beside it, stay under the directory reports may go to;
    the built-in baselines and record, and the baselines beside a corpus, stay in the folder they belong
    in (a symbolic link there cannot send the write elsewhere). A baseline folder only read from, to gate
    against, is not confined: reading it writes nothing. A trend file beside the page that holds anything
    but trend lines (an unrelated ``.jsonl``) is refused here, before the run."""
    if args.record_baseline and baseline_dir is not None:
        if args.baseline_dir is not None:
            confine(baseline_dir, flag="--baseline-dir", directory=True)
        else:
            confine(baseline_dir, flag="the baselines folder", root=baseline_dir.parent, directory=True)
    if args.record_accuracy is True:
        page = docs.ACCURACY_PAGE
        confine(page, flag="--record-accuracy", root=page.parent)
        existing_points(confine(trend_path(page), flag="--record-accuracy's trend file", root=page.parent))
    elif args.record_accuracy:
        page = confine(args.record_accuracy, flag="--record-accuracy")
        existing_points(confine(trend_path(page), flag="--record-accuracy's trend file"))


def recorded_model(args: argparse.Namespace, answers: RecordedAnswers) -> str:
    """The system under test's name: ``--model`` or the file's ``model``. Never the file's name: a renamed
    file of one system is the same system, and two systems' files of one name are not."""
    if args.model is not None and answers.model is not None and args.model != answers.model:
        raise UsageError(
            f"{answers.path}: the answers name model {answers.model!r}, but --model says "
            f"{args.model!r}; one answers file grades one system: drop --model or fix the file"
        )
    model = args.model or answers.model
    if not model:
        raise UsageError(
            f"{answers.path}: which system wrote these answers? Name it with --model NAME (e.g. --model "
            f'my-sql-model-v3), or give every line a "model" key; the name is what the gate compares '
            f"runs by, so use the same one each time this system is graded. Nothing was run"
        )
    return model


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


def shard(args: argparse.Namespace) -> ShardSpec | None:
    """``--shard K/N`` (with ``--shard-durations``), checked: a shard grades a share and records nothing, so the
    flags that gate, record or judge the whole run belong to the merge (``python -m eval.merge``)."""
    if args.shard is None:
        if args.shard_durations is not None:
            raise UsageError("--shard-durations goes with --shard K/N")
        return None
    index, count = parse_shard(args.shard)
    for flag, given in (
        ("--fail-on-regression", args.fail_on_regression),
        ("--record-baseline", args.record_baseline),
        ("--record-accuracy", args.record_accuracy),
        ("--judge", args.judge),
    ):
        if given:
            raise UsageError(
                f"--shard {args.shard} with {flag}: a shard is one share of a run and is neither gated, recorded nor "
                f"judged; run the shards with --json, then python -m eval.merge SHARD.json... {flag}"
            )
    if args.shard_durations is None:
        return ShardSpec(index, count)
    path = args.shard_durations
    try:  # read as every JSON file a user names is: bounded in size and depth
        data = json_file(
            path,
            UsageError,
            missing="no such file; give the --json report of an earlier run",
            unreadable="cannot read it as a JSON report",
        )
        earlier = from_json(data, str(path))
    except (UsageError, ReportFormatError) as exc:  # each names the file and what is wrong with it
        raise UsageError(f"--shard-durations {exc}") from None
    return ShardSpec(index, count, durations_of(earlier))


def resolve_paths(args: argparse.Namespace) -> None:
    """Paths on the command line are the user's: relative to where they ran the command."""
    args.corpus = [resolve_input(p) for p in args.corpus] if args.corpus else args.corpus
    args.answers = resolve_input(args.answers) if args.answers is not None else None
    args.baseline_dir = resolve_input(args.baseline_dir) if args.baseline_dir is not None else None
    args.db_url = resolve_sqlite_url(args.db_url) if args.db_url else args.db_url
    args.db_dir = resolve_input(args.db_dir) if args.db_dir is not None else None
    args.shard_durations = resolve_input(args.shard_durations) if args.shard_durations is not None else None


def say_missing_answers(corpus: Corpus, answers: RecordedAnswers, *, gated: bool) -> None:
    """The first line on stderr, before the run: the questions the answers file has no line for. Each will be
    ``unmeasured`` (never a pass, never a correct refusal, in no rate), and a gated run cannot pass with one (exit
    2), whatever the baseline said of it; an ungated run says it as a warning."""
    missing = [q.id for q in corpus.questions if not q.draft and q.id not in answers.answers]
    if not missing:
        return
    ids = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
    what = f"no answer recorded in {shown_path(answers.path)} for {len(missing)} question(s): {ids}"
    if gated:
        print_error(f"{what}; unmeasured, so the gate cannot pass (exit 2): add a line for each")
    else:
        print_warning(f"{what}; unmeasured (in no rate): add a line for each")
