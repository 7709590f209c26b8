"""What a SQL run's numbers decide: the baseline it is compared with, the gate, a re-recorded
baseline, the dated record, and the exit code (0 examined and fine; 1 examined and regressed; 2
could not examine or could not judge).

A baseline is re-recorded only on purpose, and accepting a regression is visible: a run that fails
the gate against the existing baseline (or leaves questions unmeasured) is not recorded unless
``--force``, and a forced re-record over regressions needs ``--reason``, which goes into the
baseline with every accepted flip, where review sees it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval import trend
from eval.errors import UsageError
from eval.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
from eval.report import Classification
from eval.sql import baseline as bl
from eval.sql import fixture_cache, record
from eval.sql.corpus import Corpus, load_corpus
from eval.sql.fixtures import DEFAULT_ROTATIONS, FIXTURES
from eval.sql.gate import GateCheck, evaluate_gate
from eval.sql.outcome import ORACLE
from eval.sql.pipeline import DEFAULT_SEED
from eval.sql.report import SQLReport


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


@dataclass(frozen=True)
class Found:
    """The baseline a run is compared with, or why there is none."""

    baseline: bl.Baseline | None
    why_not: str | None = None
    unusable: bool = False
    """A baseline file exists but cannot be used (another model's, malformed): not a missing one."""


def find_baseline(report: SQLReport, baseline_dir: Path | None) -> Found:
    if baseline_dir is None:
        return Found(None, "no baseline folder for this corpus (pass --baseline-dir DIR)")
    engine = bl.report_engine(report)
    try:
        baseline = bl.load_baseline(report.candidate_path, report.model, baseline_dir, engine)
    except bl.BaselineError as exc:
        return Found(None, str(exc), unusable=True)
    if baseline is None:
        others = bl.other_baselines(report.candidate_path, report.model, baseline_dir, engine)
        also = (
            f"; baselines exist for {', '.join(b.label for b in others)}: a run is never compared with another "
            "model's or engine's baseline"
            if others
            else ""
        )
        on = "" if engine == bl.DEFAULT_ENGINE else f" on {engine}"
        return Found(
            None,
            f"no baseline for {report.candidate_path}/{report.model}{on}{also}; record one "
            "deliberately with --record-baseline",
        )
    differs = [
        f"{k} {report.run.get(k)!r} vs baseline {baseline.run.get(k)!r}"
        for k in ("engine", "rotations", "seed", "column_order")
        if report.run.get(k) != baseline.run.get(k)
    ]
    if differs:
        return Found(None, "this run's set-up differs from the baseline's: " + ", ".join(differs))
    return Found(baseline)


def database_changes(report: SQLReport, baseline: bl.Baseline) -> list[str]:
    """What changed in the databases since the baseline was recorded (schema, or the data of a file)."""
    now, then = report.run.get("databases") or {}, baseline.run.get("databases") or {}
    changes = []
    for name in sorted(set(now) & set(then)):
        for i, (a, b) in enumerate(zip(then[name], now[name]), 1):
            where = f"{name or 'the database'}" + (f" rotation {i}" if len(now[name]) > 1 else "")
            if a.get("schema") != b.get("schema"):
                changes.append(f"{where}: the schema changed")
            elif a.get("sha256") and b.get("sha256") and a["sha256"] != b["sha256"]:
                changes.append(f"{where}: the data changed (the file's SHA-256 differs)")
    return changes


def classify_and_gate(
    report: SQLReport, corpus: Corpus, composition: dict[str, int], found: Found, gated: bool
) -> None:
    report.gated = gated
    if found.baseline is None:
        report.gate_note = found.why_not
        return
    baseline = found.baseline
    report.baseline = {
        "path": bl.display_path(baseline.source),
        "recorded_at": baseline.recorded_at,
        "model": baseline.model,
        "corpus_digest": baseline.corpus.get("digest"),
    }
    report.classify(baseline.questions)
    report.gate = evaluate_gate(
        report.outcomes, report.summary, {q.id for q in corpus.questions}, composition, corpus.size, baseline
    )
    if baseline.corpus.get("digest") != report.corpus.get("digest"):
        report.warnings.append(
            "The corpus changed since the baseline was recorded (another digest): the gate "
            "compares the questions by id."
        )
    changes = database_changes(report, baseline)
    if changes:
        report.warnings.append("The database changed since the baseline was recorded: " + "; ".join(changes))


def _accepted(report: SQLReport, reason: str | None, failing: list[GateCheck]) -> dict[str, Any]:
    """What a forced re-record accepts: the failing checks and every regression against the baseline it replaces."""
    flips = [
        {"id": o.question_id, "was": c.baseline_verdict, "now": o.verdict.value, "reason": o.reason}
        for o in report.outcomes
        if (c := report.classified(o)) and c.classification is Classification.REGRESSION
    ]
    return {
        "reason": reason,
        "recorded_at": report.generated_at,
        "replaces": (report.baseline or {}).get("path"),
        "checks": [{"name": c.name, "detail": c.detail} for c in failing],
        "flips": flips,
    }


def record_baseline(
    report: SQLReport, composition: dict[str, int], found: Found, baseline_dir: Path, force: bool, reason: str | None
) -> int | None:
    """Re-record the baseline when the run may be; an exit code when it may not, else None."""
    gate = report.gate
    failing = [c for c in gate.checks if c.ok is not True] if gate is not None else []
    hard = [c for c in failing if c.name != "measured"]
    unmeasured = [o.question_id for o in report.outcomes if not o.measured and o.reason != ORACLE]
    problems = []
    if hard:
        problems.append(f"this run fails the gate against the existing baseline ({_names(hard)})")
    if found.unusable:
        problems.append(found.why_not or "the existing baseline cannot be used")
    if unmeasured:
        problems.append(
            f"{len(unmeasured)} question(s) unmeasured ({', '.join(unmeasured[:10])}"
            f"{' ...' if len(unmeasured) > 10 else ''}): a baseline of what was not seen"
        )
    if problems and not force:
        _err(
            "not recording: "
            + "; ".join(problems)
            + ". Re-run with --force to record it deliberately"
            + (" (and --reason TEXT to say why the regressions are accepted)" if hard else "")
        )
        return EXIT_CANNOT_JUDGE
    accepted = None
    if hard:
        if not (reason and reason.strip()):
            raise UsageError(
                "--force over a failing gate needs --reason TEXT: it is written into the baseline with "
                "every accepted flip, where review sees it"
            )
        accepted = _accepted(report, reason.strip(), hard)
    path = bl.write_baseline(report, composition, baseline_dir, accepted)
    note = f" ({len(accepted['flips'])} regression(s) accepted: {reason})" if accepted else ""
    print(f"baseline recorded: {bl.display_path(path)}{note}", file=sys.stderr)
    return None


def _names(checks: list[GateCheck]) -> str:
    return ", ".join(c.name for c in checks)


def builtin_suite(report: SQLReport) -> dict[str, Any]:
    """The suite the built-in record keeps: the built-in corpus on the default built-in fixtures."""
    corpus = load_corpus()
    names = sorted({q.fixture for q in corpus.questions if q.fixture})
    measured = (report.cohort or {}).get("keys", {}).get("fixtures", {})
    fixtures = {
        n: {
            "generator": fixture_cache.source_digest(FIXTURES[n].sources)[:16],
            "schema": measured.get(n, {}).get("schema"),
        }
        for n in names
    }
    return {"corpus": corpus.digest, "fixtures": fixtures, "seed": DEFAULT_SEED, "rotations": DEFAULT_ROTATIONS}


def record_accuracy(report: SQLReport, page: Path, *, builtin: bool, allow_off_suite: bool) -> None:
    record.ensure_page(page)
    row = record.append_record(
        report, page, suite=builtin_suite(report) if builtin else None, allow_off_suite=allow_off_suite
    )
    if "differs in" not in row:
        record.append_strata(report, row, page)
    commit, dirty = trend.git_commit()
    trend.append_line(trend.trend_path(page), trend.trend_line(report.summary, row, commit=commit, dirty=dirty))
    print(
        f"accuracy record: appended {row['date']} {row['candidate']}/{row['model']} ({row['status']}) to "
        f"{bl.display_path(page)} and {bl.display_path(trend.trend_path(page))}",
        file=sys.stderr,
    )


def exit_code(report: SQLReport, gated: bool, why_not: str | None) -> int:
    s = report.summary
    if s["answerable"] + s["must_refuse"] - s["unmeasured"] - s["must_refuse_unmeasured"] == 0:
        _err("no question could be measured; see the reasons in the report")
        return EXIT_CANNOT_JUDGE
    if not gated:
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
