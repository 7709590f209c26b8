"""Command line: ``python -m eval.run`` (run from ``autobot-backend/``).

Exit codes are a taxonomy, and CI relies on it: :mod:`eval.exit_codes` (0 examined and fine,
1 examined and regressed, 2 could not examine or judge). In the trajectory suite the echo candidate
under ``--require-real-candidate`` is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import Any

try:  # an import failure is a crash: exit 2, never the interpreter's 1
    from eval import candidates as cand
    from eval.errors import HarnessError, UsageError
    from eval.evaluator import DEFAULT_EVALUATOR
    from eval.exit_codes import EPILOG, EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
    from eval.output import confine, resolve_input, write_text
    from eval.report import (
        DEFAULT_EPSILON,
        Classification,
        TrajectoryReport,
        build_trajectory_report,
        trajectory_json,
        trajectory_markdown,
    )
    from eval.runner import Progress, Replay, replay, timeout_from_env
    from eval.store import GOLDEN_DIR, load_goldens
except Exception:  # pragma: no cover - exercised by a broken install only
    traceback.print_exc()
    print("error: the harness failed to import; run `make eval` to (re)install it", file=sys.stderr)
    sys.exit(2)

TRAJECTORY_CANDIDATES = ("auto", "recorded", "echo")
SQL_CANDIDATES = ("reference", "embedded", "llm", "recorded")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.run",
        description="Replay goldens against a candidate and report drift (trajectory suite), "
        "or grade NL-to-SQL answers on execution (SQL suite).",
        epilog=EPILOG,
    )
    p.add_argument(
        "--suite",
        choices=("trajectory", "sql", "turns"),
        default="trajectory",
        help="which suite to run (default: trajectory); turns: judge captured turns that have no reference",
    )
    p.add_argument(
        "--candidate",
        default=None,
        help=f"trajectory: {'|'.join(TRAJECTORY_CANDIDATES)} (default auto: recorded runs if any "
        f"exist, else the echo); sql: {'|'.join(SQL_CANDIDATES)} (default embedded)",
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        help="also write the JSON report here (inside the directory you ran the command from, or EVAL_OUTPUT_DIR)",
    )
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown report here (same confinement)")
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="gated mode, against the baseline: exit 1 when any question the baseline passed is not a pass now, "
        "any must-refuse case it declined is answered now, or an aggregate check fails (pass rate, corpus size, "
        "missing questions, composition, refusal recall, over-refusals); 2 when the gate cannot be judged "
        "(no baseline, unmeasured questions)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="per-golden/per-question timeout in seconds (default: EVAL_REPLAY_TIMEOUT_S or 120)",
    )
    t = p.add_argument_group("trajectory suite")
    t.add_argument(
        "--epsilon",
        type=float,
        default=DEFAULT_EPSILON,
        help=f"score band: a drop of more than this is a regression (default {DEFAULT_EPSILON})",
    )
    t.add_argument(
        "--recorded-dir",
        type=Path,
        default=cand.RECORDED_DIR,
        help="directory of recorded runs, <trajectory_id>.json (default eval/recorded)",
    )
    t.add_argument("--golden-dir", type=Path, default=GOLDEN_DIR, help=argparse.SUPPRESS)
    t.add_argument(
        "--evaluator",
        choices=("lexical", "judge"),
        default=None,
        help="the quality score: lexical (default: the offline lexical-overlap heuristic) or judge (the model "
        "judge of NL_SQL_JUDGE_BASE_URL / NL_SQL_JUDGE_MODEL, composite / 100)",
    )
    t.add_argument(
        "--require-real-candidate",
        action="store_true",
        help="exit 2 if the run used the self-consistency echo (it cannot fail)",
    )
    s = p.add_argument_group("SQL suite")
    s.add_argument(
        "--answers", type=Path, metavar="FILE", help="recorded answers (JSON Lines) for --candidate recorded"
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
        "--engine",
        metavar="NAME",
        help="build the fixtures on this engine and grade there: sqlite (default), postgresql, duckdb",
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
    s.add_argument("--rotations", type=int, default=None, metavar="N", help="fixture rotations (default 3)")
    s.add_argument("--seed", type=int, default=None, metavar="S", help="first fixture seed (default 0)")
    s.add_argument("--record-baseline", action="store_true", help="record this run as the candidate's baseline")
    s.add_argument(
        "--force",
        action="store_true",
        help="with --record-baseline: record a run that fails the gate against the existing baseline, "
        "or that left questions unmeasured",
    )
    s.add_argument(
        "--reason",
        metavar="TEXT",
        help="with --record-baseline --force: why the regressions are accepted (written into the baseline)",
    )
    s.add_argument(
        "--model",
        metavar="NAME",
        help="name the system whose recorded answers are graded (--candidate recorded); the answers "
        "file's own model field must agree",
    )
    s.add_argument(
        "--baseline-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where baselines live (default: eval/golden/sql/baselines for the built-in corpus, "
        "<corpus folder>/baselines for your own)",
    )
    m = p.add_argument_group("SQL suite: model runs")
    m.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="N",
        help="questions in flight at once (default 4 for --candidate llm, 1 otherwise); the report is the "
        "same for every N",
    )
    m.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="K",
        help="ask each question K times (a model's run-to-run variance: pass@K, pass^K, flaky questions; "
        "the headline is the majority verdict); refused for deterministic candidates",
    )
    m.add_argument(
        "--stop-after-unavailable",
        type=int,
        default=5,
        metavar="N",
        help="after N unavailable answers in a row (a dead endpoint) ask no more: the rest is unmeasured "
        "at once (default 5; 0 never stops)",
    )
    m.add_argument(
        "--max-run-seconds",
        type=float,
        default=None,
        metavar="S",
        help="the whole run's time budget; past it, what is not answered is unmeasured",
    )
    m.add_argument(
        "--statement-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="time limit of one SQL statement on the database (default 10)",
    )
    s.add_argument(
        "--record-accuracy",
        nargs="?",
        const=True,
        default=None,
        metavar="PATH",
        help="append this run's dated figures to docs/eval/sql-accuracy.md (the built-in corpus), or to your own "
        "record at PATH (created when missing)",
    )
    r = p.add_argument_group("SQL suite: reports for people and CI")
    r.add_argument("--html", metavar="PATH", help="also write one self-contained HTML report (no network needed)")
    r.add_argument("--junit", metavar="PATH", help="also write JUnit XML: one testcase per question")
    r.add_argument(
        "--github-summary",
        action="store_true",
        help="append the summary to $GITHUB_STEP_SUMMARY; under GITHUB_ACTIONS=true also print an ::error "
        "annotation per regression and safety failure",
    )
    s.add_argument(
        "--allow-off-suite",
        action="store_true",
        help="with --record-accuracy: keep a run of another suite (corpus, fixtures, seed, rotations) than the "
        "record's, in the record's off-suite table",
    )
    s.add_argument(
        "--export-turns",
        metavar="PATH",
        help="also write every answer of the run as a captured turn (JSON Lines; same confinement as --json)",
    )
    s.add_argument(
        "--judge",
        action="store_true",
        help="also judge every answer as a captured turn (NL_SQL_JUDGE_*) and report the judge's agreement with "
        "the execution verdicts, per stratum",
    )
    j = p.add_argument_group("turns suite (judging without a reference)")
    j.add_argument("--turns", type=Path, metavar="FILE", help="the captured turns to judge (JSON Lines)")
    j.add_argument(
        "--rejudge",
        type=Path,
        metavar="REPORT",
        help="score again the turns of an earlier --suite turns JSON report, and report the drift against its scores",
    )
    j.add_argument(
        "--labels",
        type=Path,
        metavar="FILE",
        help='human labels (JSON Lines {"turn_id", "score": 0-100, "band"}): Spearman\'s rho and Cohen\'s kappa',
    )
    return p


def _progress_printer(enabled: bool) -> Progress | None:
    if not enabled:
        return None

    def show(i: int, n: int, r: Replay[Any, Any]) -> None:
        end = "\n" if i == n else ""
        print(f"\r[{i}/{n}] {r.task.trajectory_id[:60]:<60}", end=end, file=sys.stderr, flush=True)

    return show


def run_trajectory(args: argparse.Namespace) -> int:
    choice = args.candidate or "auto"
    if choice not in TRAJECTORY_CANDIDATES:
        raise UsageError(f"unknown trajectory candidate {choice!r}; choose one of {', '.join(TRAJECTORY_CANDIDATES)}")
    sql_only = (
        "answers",
        "corpus",
        "db_url",
        "rotations",
        "seed",
        "fixtures",
        "baseline_dir",
        "model",
        "reason",
        "record_accuracy",
        "concurrency",
        "max_run_seconds",
        "db_dir",
        "column_order",
        "html",
        "junit",
        "export_turns",
        "engine",
        "fixture_url",
    )
    for flag in sql_only:
        if getattr(args, flag) not in (None, []):
            raise UsageError(f"--{flag.replace('_', '-')} belongs to the SQL suite; add --suite sql")
    if args.github_summary:
        raise UsageError("--github-summary belongs to the SQL suite; add --suite sql")
    if args.judge:
        raise UsageError(
            "--judge belongs to the SQL suite (add --suite sql); the trajectory suite takes --evaluator judge"
        )
    for flag in ("turns", "rejudge", "labels"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag} belongs to the turns suite; add --suite turns")
    if args.epsilon < 0 or args.epsilon >= 1:
        raise UsageError(f"--epsilon must be in [0, 1), got {args.epsilon}")
    for path in (args.json, args.markdown):
        if path:
            confine(path)  # fail before running, not after
    args.golden_dir, args.recorded_dir = resolve_input(args.golden_dir), resolve_input(args.recorded_dir)
    goldens = load_goldens(args.golden_dir)
    warnings: list[str] = []
    if choice == "auto":
        choice = "recorded" if cand.has_recordings(args.recorded_dir) else "echo"
    if choice == "echo":
        candidate, name = cand.echo_candidate(), "self-consistency-echo"
        warnings.append(cand.ECHO_WARNING)
        print(f"WARNING: {cand.ECHO_WARNING}", file=sys.stderr)
    else:
        candidate, name = cand.recorded_candidate(args.recorded_dir), f"recorded ({args.recorded_dir})"
    timeout = args.timeout if args.timeout is not None else timeout_from_env()
    evaluator = DEFAULT_EVALUATOR
    if args.evaluator == "judge":
        from eval.turns.trajectory import JudgeEvaluator

        evaluator = JudgeEvaluator.from_env()  # before replaying: a missing judge is exit 2, not a run of unmeasured
        warnings.append(evaluator.warning)
    replays = replay(goldens, candidate, timeout, _progress_printer(sys.stderr.isatty()))
    report = build_trajectory_report(replays, evaluator, name, args.epsilon, warnings, echo=choice == "echo")
    text = trajectory_markdown(report)
    print(text)
    if args.markdown:
        write_text(args.markdown, text + "\n")
    if args.json:
        write_text(args.json, json.dumps(trajectory_json(report), indent=2) + "\n")
    return trajectory_exit_code(
        report, args.fail_on_regression, args.require_real_candidate and choice == "echo", echo=choice == "echo"
    )


def trajectory_exit_code(report: TrajectoryReport, gated: bool, echo_refused: bool, *, echo: bool = False) -> int:
    if echo_refused:
        print(
            "error: --require-real-candidate: the run used the self-consistency echo, which measures "
            "nothing; record runs into eval/recorded/ or pass --recorded-dir",
            file=sys.stderr,
        )
        return EXIT_CANNOT_JUDGE
    if echo and not gated:
        return EXIT_OK  # it measured nothing and says so loudly (UNMEASURED); --require-real-candidate makes it 2
    if report.measured == 0:
        print("error: no golden could be measured; see the reasons in the report", file=sys.stderr)
        return EXIT_CANNOT_JUDGE
    if gated and report.regressed:
        return EXIT_REGRESSED
    if gated and any(o.classification is Classification.UNMEASURED for o in report.outcomes):
        print(
            "error: gated run with unmeasured goldens: the gate cannot vouch for what it did not see", file=sys.stderr
        )
        return EXIT_CANNOT_JUDGE
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors are 2, --help is 0
        return int(exc.code or 0)
    try:
        if args.suite == "sql":
            from eval.cli.sql import run_sql

            return run_sql(args)
        if args.suite == "turns":
            from eval.cli.turns import run_turns

            return run_turns(args)
        return run_trajectory(args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CANNOT_JUDGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_CANNOT_JUDGE
    except Exception:  # a crash is "could not examine", never "regressed"
        traceback.print_exc()
        print("error: internal error (a bug in the harness); the run could not be judged", file=sys.stderr)
        return EXIT_CANNOT_JUDGE


if __name__ == "__main__":
    sys.exit(main())
