"""What a SQL run's numbers decide: the baseline it is compared with, the gate, a re-recorded
baseline, the dated record, and the exit code (0 examined and fine; 1 examined and regressed; 2
could not examine or could not judge).

A baseline is re-recorded only on purpose, and accepting a regression is visible: a run that fails
the gate against the existing baseline (or leaves questions unmeasured) is not recorded unless
``--force``, and a forced re-record over regressions needs ``--reason``, which goes into the
baseline with every accepted flip, where review sees it.

A run is judged only against a baseline of its own cohort (``eval.sql.grading.identity``): another column-order
policy, rotations, seed, engine, comparison policy, generator, prompt, temperature or repeats is another
measurement, which the gate cannot judge (exit 2, the differing keys named), not a regression. The corpus
and the fixtures may have changed (:data:`CONTENT_KEYS`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.classification import Classification
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
from eval.core.output import print_error, print_warning
from eval.sql.corpus.questions import Corpus
from eval.sql.gate import baseline as bl
from eval.sql.gate.checks import evaluate_gate, unmeasured_ids
from eval.sql.model.cohort import cohort_differences
from eval.sql.model.defaults import DEFAULT_ENGINE
from eval.sql.model.gate import GateCheck
from eval.sql.model.lints import DRAFT
from eval.sql.model.outcome import ORACLE
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import BaselineRef


@dataclass(frozen=True)
class Found:
    """The baseline a run is compared with, or why there is none."""

    baseline: bl.Baseline | None
    why_not: str | None = None
    unusable: bool = False
    """A baseline file exists but cannot be used (another model's, malformed): not a missing one."""
    off_suite: str | None = None
    """With ``--allow-off-suite``: the baseline is of another cohort, and this says in what."""


CONTENT_KEYS = ("corpus", "fixtures")
"""Cohort keys the gate does not refuse on. A changed corpus or fixture is the content of the measurement,
not how it is taken: the gate compares the questions by id (never fewer, none missing) and warns that
they changed; the data itself is checked by the databases' fingerprints. A fixture's version is the
digest of its builder's code, which includes product code (``services/schema_context.py``): refusing on it
would refuse the very pull requests the gate exists to judge."""


def _cohort(report: SQLRun) -> dict[str, Any]:
    return dict(report.cohort.keys) if report.cohort else {}


def find_baseline(report: SQLRun, baseline_dir: Path | None, *, allow_off_suite: bool = False) -> Found:
    """The baseline of this run's candidate path, model and engine, if it is of this run's cohort (or, with
    ``allow_off_suite``, of another, said so); else why not."""
    if baseline_dir is None:
        return Found(None, "no baseline folder for this corpus (pass --baseline-dir DIR)")
    engine = bl.report_engine(report)
    try:
        baseline = bl.load_baseline(report.candidate_path, report.model, baseline_dir, engine)
        others = bl.other_baselines(report.candidate_path, report.model, baseline_dir, engine) if not baseline else []
    except bl.BaselineError as exc:
        return Found(None, str(exc), unusable=True)
    except OSError as exc:  # the folder cannot be read: the run's reports are still written, the gate says why
        return Found(
            None, f"{baseline_dir}: cannot read the baselines ({exc.strerror or exc}); check the folder", unusable=True
        )
    if baseline is None:
        also = (
            f"; baselines exist for {', '.join(b.label for b in others)}: a run is never compared with another "
            "model's or engine's baseline"
            if others
            else ""
        )
        on = "" if engine == DEFAULT_ENGINE else f" on {engine}"
        return Found(
            None,
            f"no baseline for {report.candidate_path}/{report.model}{on}{also}; record one "
            "deliberately with --record-baseline",
        )
    differs = cohort_differences(baseline.keys, _cohort(report), skip=CONTENT_KEYS)
    if differs and allow_off_suite:
        return Found(
            baseline,
            off_suite="DIFFERENT COHORTS (--allow-off-suite): this run is gated against a baseline of another "
            "cohort (baseline vs this run: " + "; ".join(map(str, differs)) + "); its verdicts mix the system "
            "with this change of set-up.",
        )
    if differs:
        why = (
            "the baseline predates the keys marked unknown: re-record it deliberately with --record-baseline"
            if any(d.unknown for d in differs)
            else "a baseline is one set-up's measurement: run with its set-up, or record one for this set-up "
            "deliberately with --record-baseline"
        )
        return Found(
            None,
            "this run is of another cohort than its baseline (baseline vs this run: "
            + "; ".join(map(str, differs))
            + f"); {why}",
        )
    return Found(baseline)


def database_changes(report: SQLRun, baseline: bl.Baseline) -> list[str]:
    """What changed in the databases since the baseline was recorded (schema, or the data of a file)."""
    now, then = report.run.databases, baseline.run.databases
    changes = []
    for name in sorted(set(now) & set(then)):
        for i, (a, b) in enumerate(zip(then[name], now[name]), 1):
            where = f"{name or 'the database'}" + (f" rotation {i}" if len(now[name]) > 1 else "")
            if a.schema != b.schema:
                changes.append(f"{where}: the schema changed")
            elif a.sha256 and b.sha256 and a.sha256 != b.sha256:
                changes.append(f"{where}: the data changed (the file's SHA-256 differs)")
    return changes


def classify_and_gate(
    report: SQLRun, corpus: Corpus, composition: dict[str, int], found: Found, gated: bool, count_refuted: bool = False
) -> None:
    report.gated = gated
    if found.baseline is None:
        report.gate_note = found.why_not
        return
    baseline = found.baseline
    if found.off_suite:
        report.warnings.append(found.off_suite)
    report.baseline = BaselineRef(
        path=bl.display_path(baseline.source),
        recorded_at=baseline.recorded_at,
        model=baseline.model,
        corpus_digest=baseline.corpus.digest,
    )
    report.classify(baseline.questions)
    report.gate = evaluate_gate(
        report.outcomes,
        report.summary,
        {q.id for q in corpus.questions},
        composition,
        corpus.size,
        baseline,
        corpus.gate,
        count_refuted=count_refuted,
    )
    content = cohort_differences(baseline.keys, _cohort(report), only=CONTENT_KEYS)
    if any(d.key == "corpus" for d in content):
        report.warnings.append(
            "The corpus changed since the baseline was recorded (another digest): the gate "
            "compares the questions by id."
        )
    fixtures = [str(d) for d in content if d.top == "fixtures"]
    if fixtures:
        report.warnings.append(
            "The fixtures changed since the baseline was recorded (baseline vs this run: "
            + "; ".join(fixtures)
            + "): the gate compares the questions by id."
        )
    changes = database_changes(report, baseline)
    if changes:
        report.warnings.append("The database changed since the baseline was recorded: " + "; ".join(changes))


def _accepted(report: SQLRun, reason: str | None, failing: list[GateCheck]) -> bl.Accepted:
    """What a forced re-record accepts: the failing checks and every regression against the baseline it replaces."""
    flips = [
        bl.Flip(o.question_id, c.baseline_verdict, o.verdict.value, o.reason)
        for o in report.outcomes
        if (c := o.classified) and c.classification is Classification.REGRESSION
    ]
    return bl.Accepted(
        reason=reason,
        recorded_at=report.generated_at,
        replaces=report.baseline.path if report.baseline else None,
        checks=[bl.AcceptedCheck(c.name, c.detail) for c in failing],
        flips=flips,
    )


def record_baseline(
    report: SQLRun,
    corpus: Corpus,
    composition: dict[str, int],
    found: Found,
    baseline_dir: Path,
    force: bool,
    reason: str | None,
) -> int | None:
    """Re-record the baseline when the run may be; an exit code when it may not, else None. A baseline the run
    would already fail against (an absolute floor the corpus opts in to) is recorded, and said so with the key
    to change."""
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
        print_error(
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
    note = f" ({len(accepted.flips)} regression(s) accepted: {reason})" if accepted else ""
    print(f"baseline recorded: {bl.display_path(path)}{note}", file=sys.stderr)
    for warning in failing_from_the_start(report, corpus, composition, bl.read_baseline(path)):
        print_warning(warning)
    return None


BOUNDED = {"pass_rate_floor": ("pass_rate", "min"), "refusal_recall": ("refusal_recall", "min")}
BOUNDED["over_refusals"] = ("over_refusals", "max")


def failing_from_the_start(
    report: SQLRun, corpus: Corpus, composition: dict[str, int], recorded: bl.Baseline
) -> list[str]:
    """What the next gated run with these very answers would fail, each with how to change it: the gate of the
    run against the baseline it just recorded (relative floors never fail there; a corpus's absolute bound can)."""
    gate = evaluate_gate(
        report.outcomes,
        report.summary,
        {q.id for q in corpus.questions},
        composition,
        corpus.size,
        recorded,
        corpus.gate,
    )
    out = []
    for c in gate.failed:
        check, key = BOUNDED.get(c.name, (None, None))
        if check is not None and f"{check}.{key}" in corpus.gate.set_keys:
            how = (
                f"change or remove gate.{check}.{key} in {corpus.gate.source} (without it the floor is the "
                "baseline's less the tolerance)"
            )
        else:
            how = "see the gate's checks in the methodology"
        out.append(
            f"this baseline already fails {c.name} ({c.detail}): the next gated run fails with these very "
            f"answers; {how}, or improve the system and record again"
        )
    return out


def _names(checks: list[GateCheck]) -> str:
    return ", ".join(c.name for c in checks)


def exit_code(report: SQLRun, gated: bool, why_not: str | None) -> int:
    """The run's exit code, said on stderr: what could not be measured first (its true cause, by id), then
    what failed. Without the gate the run still names what it could not measure."""
    s = report.summary
    if s.answerable + s.must_refuse - s.unmeasured - s.must_refuse_unmeasured == 0:
        print_error("no question could be measured; see the reasons in the report")
        return EXIT_CANNOT_JUDGE
    if not gated:
        unseen = [o for o in report.outcomes if not o.measured and o.reason not in (ORACLE, DRAFT)]
        if unseen:
            print_warning(
                f"{len(unseen)} question(s) unmeasured{unmeasured_ids(unseen)}: in no rate, and a gated run "
                "cannot pass with them"
            )
        return EXIT_OK
    if report.gate is None:
        print_error(f"cannot gate: {why_not}")
        return EXIT_CANNOT_JUDGE
    open_ = "; ".join(f"{c.name}: {c.detail}" for c in report.gate.not_evaluable)
    if report.gate.status == "failed":
        failed = "; ".join(f"{c.name}: {c.detail}" for c in report.gate.failed)
        print_error(f"gate failed: {failed}" + (f"; and not evaluable: {open_}" if open_ else ""))
        return EXIT_REGRESSED
    if report.gate.status == "indeterminate":
        print_error(f"gate indeterminate: {open_}")
        return EXIT_CANNOT_JUDGE
    return EXIT_OK
