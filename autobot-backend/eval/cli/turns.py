"""``python -m eval.run --suite turns``: judge captured turns that have no reference.

``--turns FILE`` scores every turn of a captured-turns file; ``--rejudge REPORT`` scores again the
turns an earlier run's JSON report holds and reports the drift; ``--labels FILE`` measures the
judge against people; this module's parser holds the turns suite's options only. Exit codes as
everywhere (:mod:`eval.core.exit_codes`): 0 judged and fine; 1 judged and, with
``--fail-on-regression``, a check failed (turns moved down against the stored scores, or the bands'
kappa against the labels below the target); 2 could not judge (bad input, no judge configured,
nothing scored, an interrupted run, a check that cannot be evaluated, or a crash).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.cli import options
from eval.core import interrupt
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
from eval.core.output import confine, print_error, print_report, resolve_input, write_text
from eval.core.runner import Limits

if TYPE_CHECKING:  # the judge's modules load SQLAlchemy and sqlglot: imported where run, so --help stays light
    from eval.turns.calibration import Label
    from eval.turns.drift import StoredReport
    from eval.turns.format import Turn
    from eval.turns.judge import Judge
    from eval.turns.report import TurnsReport

DEFAULT_CONCURRENCY = 4


def build_parser() -> argparse.ArgumentParser:
    p = options.suite_parser("turns", "Judge captured turns that have no reference: the turns suite.")
    p.add_argument("--turns", type=Path, metavar="FILE", help="the captured turns to judge (JSON Lines)")
    p.add_argument(
        "--rejudge",
        type=Path,
        metavar="REPORT",
        help="score again the turns of an earlier --suite turns JSON report, and report the drift against its scores",
    )
    p.add_argument(
        "--labels",
        type=Path,
        metavar="FILE",
        help='human labels (JSON Lines {"turn_id", "score": 0-100, "band"}): Spearman\'s rho and Cohen\'s kappa',
    )
    options.add_reports(p)
    options.add_fail_on_regression(
        p,
        "gated mode: exit 1 when turns moved down against the stored scores (--rejudge) or the bands' kappa "
        "against the labels is below the target (--labels); 2 when the gate cannot be judged",
    )
    options.add_timeout(p, "turn")
    options.add_run_limits(p, items="turns", concurrency_default=str(DEFAULT_CONCURRENCY))
    return p


def _validate(args: argparse.Namespace) -> float:
    """The command line checked before the judge is asked anything; returns the timeout."""
    if (args.turns is None) == (args.rejudge is None):
        raise UsageError(
            "--suite turns judges one source: --turns FILE (captured turns) or --rejudge REPORT (the JSON of an "
            "earlier --suite turns run), not both and not neither"
        )
    if args.fail_on_regression and args.rejudge is None and args.labels is None:
        raise UsageError(
            "--fail-on-regression on --suite turns needs something to regress against: --rejudge REPORT (stored "
            "scores) or --labels FILE (human labels)"
        )
    options.check_run_limits(args)
    timeout = options.timeout_s(args.timeout)
    for path in (args.json, args.markdown):
        if path:
            confine(path)
    return timeout


def _source(path: Path, kind: str, turns: int) -> dict[str, Any]:
    return {"path": str(path), "kind": kind, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "turns": turns}


def gate_checks(calibration: dict[str, Any], moved: dict[str, Any] | None) -> dict[str, Any] | None:
    """The checks ``--fail-on-regression`` enforces; None when there is nothing to check against."""
    checks: list[dict[str, Any]] = []
    if moved is not None:
        down = moved["moved_down"]
        checks.append(
            {
                "name": "drift",
                "ok": not down,
                "detail": f"{len(down)} turn(s) moved down against the stored scores (a lower band, or more than "
                f"{moved['tolerance']:g} points lower)" + (": " + ", ".join(down[:20]) if down else ""),
            }
        )
    if calibration.get("status") == "calibrated":
        kappa = calibration.get("kappa")
        checks.append(
            {
                "name": "calibration",
                "ok": calibration.get("meets_target"),
                "detail": f"Cohen's kappa of the bands against the labels {kappa} "
                f"(target at least {calibration['target_kappa']}, {calibration['pairs']} turns)",
            }
        )
    elif "labels" in calibration:
        checks.append({"name": "calibration", "ok": None, "detail": "no labelled turn was scored"})
    if not checks:
        return None
    if any(c["ok"] is False for c in checks):
        status = "failed"
    elif any(c["ok"] is None for c in checks):
        status = "indeterminate"
    else:
        status = "passed"
    return {"status": status, "checks": checks}


def run_turns(args: argparse.Namespace) -> int:
    from eval.turns.calibration import load_labels
    from eval.turns.drift import load_stored
    from eval.turns.format import load_turns
    from eval.turns.judge import Judge

    timeout = _validate(args)
    judge = Judge.from_env()
    stored = None
    if args.rejudge is not None:
        path = resolve_input(args.rejudge)
        stored = load_stored(path)
        turns = [s.turn for s in stored.turns]
        source = _source(path, "stored report", len(turns))
    else:
        path = resolve_input(args.turns)
        turns = load_turns(path)
        source = _source(path, "captured turns", len(turns))
    labels_path = resolve_input(args.labels) if args.labels is not None else None
    labels = load_labels(labels_path) if labels_path is not None else None
    with interrupt.held():  # a signal cancels the judgements in flight; the report is then written whole
        return _judge_and_report(args, judge, turns, source, stored, labels, labels_path, timeout)


def _judge_and_report(
    args: argparse.Namespace,
    judge: Judge,
    turns: list[Turn],
    source: dict[str, Any],
    stored: StoredReport | None,
    labels: dict[str, Label] | None,
    labels_path: Path | None,
    timeout: float,
) -> int:
    from eval.turns.calibration import calibrate, uncalibrated
    from eval.turns.drift import drift
    from eval.turns.markdown import to_markdown
    from eval.turns.report import TurnsReport, to_json
    from eval.turns.scoring import JudgeProgress, judge_all

    judgements, interrupted = judge_all(
        turns,
        judge,
        timeout_s=timeout,
        concurrency=args.concurrency or DEFAULT_CONCURRENCY,
        limits=Limits(stop_after_unavailable=args.stop_after_unavailable or None, run_budget_s=args.max_run_seconds),
        progress=JudgeProgress(),
    )
    calibration = calibrate(judgements, labels, str(labels_path)) if labels is not None else uncalibrated()
    moved = drift(stored, judgements, judge.identity()) if stored is not None else None
    gate = gate_checks(calibration, moved)
    if gate is not None:
        gate["enforced"] = bool(args.fail_on_regression)
    partial = interrupted or interrupt.requested()
    report = TurnsReport(source, judge.describe(), judgements, calibration, moved, gate, partial=partial)
    report.warnings = _warnings(report)
    text = to_markdown(report)
    print_report(text)
    if args.markdown:
        write_text(args.markdown, text + "\n")
    if args.json:
        write_text(args.json, json.dumps(to_json(report), indent=2, default=str) + "\n")
    code = exit_code(report, bool(args.fail_on_regression))
    if interrupt.requested() and not partial:
        print_error(f"interrupted by {interrupt.received()} as the complete report was written")
        return EXIT_CANNOT_JUDGE
    return code


def _warnings(report: TurnsReport) -> list[str]:
    out = []
    if report.partial:
        out.append(f"PARTIAL: the run was stopped by {interrupt.received()}; turns not judged are unmeasured.")
    unmeasured = report.summary["unmeasured"]
    if unmeasured:
        out.append(f"{unmeasured} turn(s) unmeasured: the judge could not score them (reasons below); never a score.")
    if report.drift and not report.drift["same_judge"]:
        out.append(
            "The stored scores are another judge's (model, rubric or prompt): the drift compares them turn by "
            "turn and never pools them."
        )
    return out


def exit_code(report: TurnsReport, gated: bool) -> int:
    if report.partial:
        print_error(f"interrupted by {interrupt.received()}: the report so far is written (marked partial)")
        return EXIT_CANNOT_JUDGE
    if report.summary["scored"] == 0:
        print_error("no turn could be judged; see the reasons in the report")
        return EXIT_CANNOT_JUDGE
    if not gated:
        return EXIT_OK
    gate = report.gate or {}
    if gate.get("status") == "failed":
        return EXIT_REGRESSED
    if gate.get("status") == "indeterminate":
        print_error(
            "the gate cannot be evaluated: " + "; ".join(c["detail"] for c in gate["checks"] if c["ok"] is None)
        )
        return EXIT_CANNOT_JUDGE
    if report.summary["unmeasured"]:
        print_error("gated run with unmeasured turns: the gate cannot vouch for what the judge did not score")
        return EXIT_CANNOT_JUDGE
    return EXIT_OK
