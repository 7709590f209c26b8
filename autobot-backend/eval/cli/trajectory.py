"""``python -m eval.run`` (``--suite trajectory``, the default): replay goldens against a candidate
and report drift; its parser holds the trajectory suite's options only."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from eval.cli import options
from eval.core import interrupt
from eval.core.classification import Classification
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
from eval.core.output import confine, print_error, print_report, resolve_input, write_text
from eval.core.runner import Progress, Replay
from eval.trajectory import candidates as cand
from eval.trajectory.contract import replay
from eval.trajectory.evaluator import DEFAULT_EVALUATOR
from eval.trajectory.report import (
    DEFAULT_EPSILON,
    TrajectoryReport,
    build_trajectory_report,
    trajectory_json,
    trajectory_markdown,
)
from eval.trajectory.store import GOLDEN_DIR, load_goldens

CANDIDATES = ("auto", "recorded", "echo")


def build_parser() -> argparse.ArgumentParser:
    p = options.suite_parser(
        "trajectory", "Replay goldens against a candidate and report drift: the trajectory suite (the default)."
    )
    options.add_candidate(
        p, f"{'|'.join(CANDIDATES)} (default auto: recorded runs if any exist, else the self-consistency echo)"
    )
    options.add_reports(p)
    options.add_fail_on_regression(
        p,
        "gated mode: exit 1 when a golden regressed against its baseline (a deterministic check failed, or the "
        "score dropped by more than --epsilon); 2 when the gate cannot be judged (a golden unmeasured, or the "
        "echo, which measures nothing)",
    )
    options.add_timeout(p, "golden")
    p.add_argument(
        "--epsilon",
        type=float,
        default=DEFAULT_EPSILON,
        help=f"score band: a drop of more than this is a regression (default {DEFAULT_EPSILON})",
    )
    p.add_argument(
        "--recorded-dir",
        type=Path,
        default=cand.RECORDED_DIR,
        help="directory of recorded runs, <trajectory_id>.json (default eval/recorded)",
    )
    p.add_argument("--golden-dir", type=Path, default=GOLDEN_DIR, help=argparse.SUPPRESS)
    p.add_argument(
        "--evaluator",
        choices=("lexical", "judge"),
        default=None,
        help="the quality score: lexical (default: the offline lexical-overlap heuristic) or judge (the model "
        "judge of NL_SQL_JUDGE_BASE_URL / NL_SQL_JUDGE_MODEL, composite / 100)",
    )
    options.add_require_real_candidate(p, "exit 2 if the run used the self-consistency echo (it cannot fail)")
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
    if choice not in CANDIDATES:
        raise UsageError(f"unknown trajectory candidate {choice!r}; choose one of {', '.join(CANDIDATES)}")
    if args.epsilon < 0 or args.epsilon >= 1:
        raise UsageError(f"--epsilon must be in [0, 1), got {args.epsilon}")
    timeout = options.timeout_s(args.timeout)
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
    evaluator = DEFAULT_EVALUATOR
    if args.evaluator == "judge":
        from eval.turns.trajectory import JudgeEvaluator

        evaluator = JudgeEvaluator.from_env()  # before replaying: a missing judge is exit 2, not a run of unmeasured
        warnings.append(evaluator.warning)
    with interrupt.held():  # a signal stops the replay, which returns what it has
        replays = replay(goldens, candidate, timeout, _progress_printer(sys.stderr.isatty()))
    stopped = interrupt.requested()
    if stopped:
        warnings.insert(0, f"PARTIAL: the run was stopped by {interrupt.received()}; goldens not replayed: unmeasured")
    report = build_trajectory_report(replays, evaluator, name, args.epsilon, warnings, echo=choice == "echo")
    with interrupt.held():  # written whole
        text = trajectory_markdown(report)
        print_report(text)
        if args.markdown:
            write_text(args.markdown, text + "\n")
        if args.json:
            write_text(args.json, json.dumps(trajectory_json(report), indent=2) + "\n")
    if interrupt.requested():
        what = "the report so far is written (marked partial)" if stopped else "as the complete report was written"
        print_error(f"interrupted by {interrupt.received()}: {what}")
        return EXIT_CANNOT_JUDGE
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
