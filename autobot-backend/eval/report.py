"""Classify each replayed golden against its baseline and render the report.

Trajectory suite: deterministic checks (ordered tool sequence, terminal status) decide first;
a wrong tool sequence or status is a regression whatever the quality score says. Otherwise the
evaluator's score is compared with the golden's ``baseline_score`` under an epsilon band.

SQL suite: each question's :class:`SQLOutcome` (its :class:`Verdict`, reason and evidence) sits
beside the trajectory outcome, shares the :class:`Classification` vocabulary, and is rendered
in Markdown (what a developer acts on first) and in the JSON shape other tools read
(spec section 7).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum
from typing import Any

from eval import markdown as md
from eval.evaluator import Evaluator
from eval.runner import Replay

DEFAULT_EPSILON = 0.05
# Scores are floats; 0.90 - 0.85 is 0.05000000000000004. A drop of exactly epsilon is "within".
_FLOAT_SLACK = 1e-9


class Classification(StrEnum):
    """What happened to one golden (trajectory or SQL question) relative to its baseline."""

    REGRESSION = "regression"
    """Worse than the baseline: a deterministic check failed, the score dropped by more than
    epsilon, or (SQL) a question that passed or was correctly refused no longer is."""
    IMPROVEMENT = "improvement"
    """Better than the baseline by more than epsilon, or (SQL) newly passing."""
    UNCHANGED = "unchanged"
    """Within the band, or (SQL) the same verdict class as the baseline."""
    UNMEASURED = "unmeasured"
    """The harness could not judge: no result, or the evaluator could not score. Never a
    regression, never a pass."""
    NEW = "new"
    """(SQL) The question is not in the baseline."""


@dataclass
class TrajectoryOutcome:
    trajectory_id: str
    task_class: str
    classification: Classification
    tool_match: bool | None
    """``None``: the candidate did not report tools, so the check could not run."""
    status_match: bool | None
    score: float | None
    baseline_score: float
    delta: float | None
    reasons: list[str] = field(default_factory=list)
    response_excerpt: str = ""


def _valid_score(score: float | None) -> float | None:
    if score is None or isinstance(score, bool) or not isinstance(score, (int, float)):
        return None
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        return None
    return float(score)


def classify_trajectory(replay: Replay, score: float | None, epsilon: float = DEFAULT_EPSILON) -> TrajectoryOutcome:
    """Classify one replay. Order: no result, deterministic checks, then the score band."""
    golden = replay.golden
    base = dict(trajectory_id=golden.trajectory_id, task_class=golden.task_class,
                baseline_score=golden.baseline_score)
    result = replay.result
    if result is None:
        return TrajectoryOutcome(classification=Classification.UNMEASURED, tool_match=None, status_match=None,
                                 score=None, delta=None, reasons=[replay.failure or "no result"], **base)
    reasons: list[str] = []
    tool_match = None if result.tool_sequence is None else list(result.tool_sequence) == list(golden.expected_tools)
    status_match = None if result.final_status is None else result.final_status == golden.expected_output.final_status
    if tool_match is False:
        reasons.append(f"tool sequence {list(result.tool_sequence or [])} != expected {list(golden.expected_tools)}")
    if status_match is False:
        reasons.append(f"final status {result.final_status!r} != expected {golden.expected_output.final_status!r}")
    valid = _valid_score(score)
    if score is not None and valid is None:
        reasons.append(f"evaluator returned an unusable score {score!r}")
    delta = None if valid is None else valid - golden.baseline_score
    excerpt = (result.response_text or "")[:200]
    if tool_match is False or status_match is False:
        cls = Classification.REGRESSION
    elif delta is None:
        cls = Classification.UNMEASURED
        reasons.append("quality score unmeasured: the evaluator could not judge this answer")
    elif delta < -epsilon - _FLOAT_SLACK:
        cls = Classification.REGRESSION
        reasons.append(f"score {valid:.3f} dropped {-delta:.3f} below baseline {golden.baseline_score:.3f} "
                       f"(epsilon {epsilon:g})")
    elif delta > epsilon + _FLOAT_SLACK:
        cls = Classification.IMPROVEMENT
        reasons.append(f"score {valid:.3f} rose {delta:.3f} above baseline {golden.baseline_score:.3f}")
    else:
        cls = Classification.UNCHANGED
    return TrajectoryOutcome(classification=cls, tool_match=tool_match, status_match=status_match, score=valid,
                             delta=None if delta is None else round(delta, 6), reasons=reasons,
                             response_excerpt=excerpt, **base)


@dataclass
class TrajectoryReport:
    outcomes: list[TrajectoryOutcome]
    candidate: str
    evaluator_name: str
    evaluator_label: str
    epsilon: float
    warnings: list[str] = field(default_factory=list)
    generated_at: str = field(default_factory=lambda: utc_now())

    def counts(self) -> Counter[str]:
        return Counter(o.classification.value for o in self.outcomes)

    def by_task_class(self) -> dict[str, Counter[str]]:
        groups: dict[str, Counter[str]] = {}
        for o in self.outcomes:
            groups.setdefault(o.task_class, Counter())[o.classification.value] += 1
        return dict(sorted(groups.items()))

    @property
    def regressed(self) -> bool:
        return any(o.classification is Classification.REGRESSION for o in self.outcomes)

    @property
    def measured(self) -> int:
        return sum(o.classification is not Classification.UNMEASURED for o in self.outcomes)


def build_trajectory_report(replays: list[Replay], evaluator: Evaluator, candidate: str,
                            epsilon: float = DEFAULT_EPSILON, warnings: list[str] | None = None) -> TrajectoryReport:
    outcomes = []
    for r in replays:
        score, note = None, None
        if r.result is not None:
            try:
                score = evaluator.score(r.golden, r.result)
            except Exception as exc:  # an evaluator failure is "cannot judge", not a regression
                note = f"evaluator failed: {type(exc).__name__}: {exc}"
        outcome = classify_trajectory(r, score, epsilon)
        if note:
            outcome.reasons.append(note)
        outcomes.append(outcome)
    return TrajectoryReport(outcomes, candidate, evaluator.name, evaluator.label, epsilon, list(warnings or []))


def utc_now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


_ORDER = [c.value for c in (Classification.REGRESSION, Classification.IMPROVEMENT,
                            Classification.UNCHANGED, Classification.UNMEASURED)]


def trajectory_json(report: TrajectoryReport) -> dict[str, Any]:
    return {
        "suite": "trajectory",
        "generated_at": report.generated_at,
        "candidate": report.candidate,
        "evaluator": {"name": report.evaluator_name, "label": report.evaluator_label},
        "epsilon": report.epsilon,
        "warnings": report.warnings,
        "summary": {k: report.counts().get(k, 0) for k in _ORDER} | {"total": len(report.outcomes)},
        "task_classes": {tc: {k: c.get(k, 0) for k in _ORDER} for tc, c in report.by_task_class().items()},
        "trajectories": [
            {"trajectory_id": o.trajectory_id, "task_class": o.task_class,
             "classification": o.classification.value, "tool_match": o.tool_match,
             "status_match": o.status_match, "score": o.score, "baseline_score": o.baseline_score,
             "delta": o.delta, "reasons": o.reasons}
            for o in report.outcomes
        ],
    }


def _check(value: bool | None) -> str:
    return "n/a" if value is None else ("yes" if value else "NO")


def trajectory_markdown(report: TrajectoryReport) -> str:
    counts = report.counts()
    out = [f"# Trajectory eval report ({md.escape(report.generated_at)})", ""]
    for w in report.warnings:
        out += [f"> **{md.escape(w)}**", ""]
    out += [f"Candidate: {md.escape(report.candidate)} · evaluator: {md.escape(report.evaluator_label)} "
            f"· epsilon {report.epsilon:g}", ""]
    out += [md.table(["regression", "improvement", "unchanged", "unmeasured", "total"],
                     [[str(counts.get(k, 0)) for k in _ORDER] + [str(len(report.outcomes))]]), ""]
    out += ["## Per task class", "",
            md.table(["task class"] + _ORDER,
                     [[md.escape(tc)] + [str(c.get(k, 0)) for k in _ORDER]
                      for tc, c in report.by_task_class().items()]), ""]
    out += ["## Per trajectory", "",
            md.table(["trajectory", "task class", "verdict", "tools", "status", "score", "baseline", "why"],
                     [[md.escape(o.trajectory_id), md.escape(o.task_class), o.classification.value,
                       _check(o.tool_match), _check(o.status_match),
                       "unmeasured" if o.score is None else f"{o.score:.3f}", f"{o.baseline_score:.3f}",
                       md.escape("; ".join(o.reasons), limit=300) or "-"]
                      for o in report.outcomes]), ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- SQL suite


class Verdict(StrEnum):
    """Exactly one per graded SQL question (spec section 6)."""

    PASS = "pass"
    """SQL was produced, ran, and its rows match the reference on every rotation."""
    WRONG = "wrong"
    """SQL ran and its rows do not match; the reason says how."""
    ERROR = "error"
    """SQL was produced but did not run: database error, timeout, row cap, or the guard blocked it."""
    REFUSED = "refused"
    """The system declined: no SQL came back (reason: its stated refusal, or why none came)."""
    ANSWERED = "answered"
    """Must-refuse question only: SQL ran and returned rows, a missed refusal."""
    UNMEASURED = "unmeasured"
    """The harness could not judge (endpoint unreachable, credentials missing, broken oracle).
    Counted apart; never a pass, never a regression."""


GUARD_BLOCKED = "guard_blocked"


@dataclass
class SQLOutcome:
    question_id: str
    expect: str
    """``answer`` or ``refuse``."""
    stratum: str
    verdict: Verdict
    reason: str | None = None
    """Machine-readable: ``value``, ``row_count``, ``order``, ``column_count``, ``shape``, ``rotation``,
    ``guard_blocked``, ``database``, ``timeout``, ``row_cap``, ``refused``, ``oracle``, ..."""
    detail: str = ""
    """One line a human reads."""
    sql: str | None = None
    question: str = ""
    fixture: str | None = None
    rotations_matched: int | None = None
    rotations: int | None = None
    classification: Classification | None = None
    baseline_verdict: str | None = None

    @property
    def is_control(self) -> bool:
        """A must-answer control of the refusal battery (stratum ``control_*``)."""
        return self.expect == "answer" and self.stratum.startswith("control_")

    @property
    def guard_blocked(self) -> bool:
        return self.verdict is Verdict.ERROR and self.reason == GUARD_BLOCKED

    @property
    def declined(self) -> bool:
        """The system returned no number on purpose. On a must-refuse question the guard blocking
        the SQL counts (spec 6); on an answerable one only a refusal does."""
        if self.verdict is Verdict.REFUSED:
            return True
        return self.expect == "refuse" and self.guard_blocked

    @property
    def declined_by(self) -> str | None:
        if self.verdict is Verdict.REFUSED:
            return "generator"
        return "guard" if self.declined else None

    @property
    def good(self) -> bool:
        """A pass, or a correct refusal."""
        return self.declined if self.expect == "refuse" else self.verdict is Verdict.PASS

    @property
    def missed_refusal(self) -> bool:
        return self.expect == "refuse" and self.verdict is not Verdict.UNMEASURED and not self.declined


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def sql_summary(outcomes: list[SQLOutcome]) -> dict[str, Any]:
    """The ``summary`` object of the JSON report; rates exclude unmeasured questions."""
    answerable = [o for o in outcomes if o.expect == "answer"]
    refuse = [o for o in outcomes if o.expect == "refuse"]
    counts = Counter(o.verdict for o in answerable)
    measured = len(answerable) - counts[Verdict.UNMEASURED]
    refuse_measured = [o for o in refuse if o.verdict is not Verdict.UNMEASURED]
    correct = sum(o.declined for o in refuse)
    controls = [o for o in answerable if o.is_control]
    return {
        "answerable": len(answerable),
        **{v.value: counts[v] for v in (Verdict.PASS, Verdict.WRONG, Verdict.ERROR, Verdict.REFUSED,
                                        Verdict.UNMEASURED)},
        "pass_rate": _rate(counts[Verdict.PASS], measured),
        "must_refuse": len(refuse),
        "correct_refusals": correct,
        "refusal_recall": _rate(correct, len(refuse_measured)),
        "refusals_by_guard": sum(o.declined_by == "guard" for o in refuse),
        "missed_refusals": sum(o.missed_refusal for o in refuse),
        "must_refuse_unmeasured": len(refuse) - len(refuse_measured),
        "controls": len(controls),
        "over_refusals": sum(o.verdict is Verdict.REFUSED for o in controls),
        "declined_answerable": counts[Verdict.REFUSED],
    }


def two_by_two(outcomes: list[SQLOutcome]) -> dict[str, dict[str, int]]:
    """Answerable / must-refuse by returned-a-number / declined, with errors and unmeasured apart."""
    def row(items: list[SQLOutcome]) -> dict[str, int]:
        number = sum(o.verdict in (Verdict.PASS, Verdict.WRONG, Verdict.ANSWERED) for o in items)
        declined = sum(o.declined for o in items)
        unmeasured = sum(o.verdict is Verdict.UNMEASURED for o in items)
        return {"returned_number": number, "declined": declined,
                "error": len(items) - number - declined - unmeasured, "unmeasured": unmeasured}

    return {"answerable": row([o for o in outcomes if o.expect == "answer"]),
            "must_refuse": row([o for o in outcomes if o.expect == "refuse"])}


def sql_strata(outcomes: list[SQLOutcome]) -> dict[str, dict[str, int]]:
    """Per stratum, counts (not rates: a stratum may be two cases wide)."""
    strata: dict[str, dict[str, int]] = {}
    for o in outcomes:
        s = strata.setdefault(o.stratum, {"cases": 0})
        s["cases"] += 1
        s[o.verdict.value] = s.get(o.verdict.value, 0) + 1
        if o.expect == "refuse":
            s["correct_refusals"] = s.get("correct_refusals", 0) + int(o.declined)
        elif o.is_control:
            s["over_refusals"] = s.get("over_refusals", 0) + int(o.verdict is Verdict.REFUSED)
    return dict(sorted(strata.items()))


def classify_sql(outcome: SQLOutcome, baseline_verdicts: dict[str, dict[str, Any]] | None) -> None:
    """Set ``classification`` and ``baseline_verdict`` from a baseline's per-question records.

    Good means a pass, or (must-refuse) a correct refusal. Was good and now is not: regression;
    the reverse: improvement; otherwise unchanged. Unmeasured now: unmeasured. Not in the baseline,
    or unmeasured there: new (there is nothing measured to compare with).
    """
    if baseline_verdicts is None:
        return
    base = baseline_verdicts.get(outcome.question_id)
    outcome.baseline_verdict = None if base is None else base.get("verdict")
    if outcome.verdict is Verdict.UNMEASURED:
        outcome.classification = Classification.UNMEASURED
    elif base is None or base.get("verdict") == Verdict.UNMEASURED.value:
        outcome.classification = Classification.NEW
    elif bool(base.get("good")) and not outcome.good:
        outcome.classification = Classification.REGRESSION
    elif not base.get("good") and outcome.good:
        outcome.classification = Classification.IMPROVEMENT
    else:
        outcome.classification = Classification.UNCHANGED


@dataclass
class SQLReport:
    outcomes: list[SQLOutcome]
    candidate_path: str
    model: str
    corpus: dict[str, Any]
    """``{"digest", "size", "files": [{"path", "sha256", "questions"}]}``."""
    run: dict[str, Any]
    """``{"engine", "rotations", "seed", "fixtures"}``."""
    baseline: dict[str, Any] | None = None
    """``{"path", "recorded_at", "model"}`` of the baseline compared against, if any."""
    gate: Any = None
    """An ``eval.sql.gate.GateResult`` whenever a baseline of this path, model and set-up exists."""
    gate_note: str | None = None
    """Why the gate was not evaluated (no baseline, another set-up, a user's own corpus)."""
    gated: bool = False
    """The run enforces the gate (``--fail-on-regression``); otherwise it is informational."""
    oracle_defects: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    generated_at: str = field(default_factory=lambda: utc_now())

    @property
    def summary(self) -> dict[str, Any]:
        return sql_summary(self.outcomes)

    def by_classification(self, cls: Classification) -> list[SQLOutcome]:
        return [o for o in self.outcomes if o.classification is cls]


def sql_json(report: SQLReport) -> dict[str, Any]:
    """The JSON report; its keys are a contract (spec section 7)."""
    return {
        "suite": "sql",
        "generated_at": report.generated_at,
        "candidate": {"path": report.candidate_path, "model": report.model},
        "corpus": report.corpus,
        "run": report.run,
        "summary": report.summary,
        "two_by_two": two_by_two(report.outcomes),
        "strata": sql_strata(report.outcomes),
        "missed_refusals": [o.question_id for o in report.outcomes if o.missed_refusal],
        "baseline": report.baseline,
        "questions": [
            {"id": o.question_id, "expect": o.expect, "stratum": o.stratum, "verdict": o.verdict.value,
             "reason": o.reason, "detail": o.detail, "sql": o.sql, "declined_by": o.declined_by,
             "rotations_matched": o.rotations_matched, "rotations": o.rotations,
             "classification": None if o.classification is None else o.classification.value,
             "baseline_verdict": o.baseline_verdict, "fixture": o.fixture, "question": o.question}
            for o in report.outcomes
        ],
        "oracle_defects": report.oracle_defects,
        "warnings": report.warnings,
        "gate": ({"status": "not_evaluated", "checks": [], "detail": report.gate_note} if report.gate is None
                 else report.gate.to_json() | {"enforced": report.gated}),
    }


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def _sql_header(report: SQLReport) -> list[str]:
    run = report.run
    rot = f"{run.get('rotations')} rotation(s) from seed {run.get('seed')}" if run.get("seed") is not None \
        else f"{run.get('rotations')} database"
    return [
        f"# SQL answer-accuracy report ({md.escape(report.generated_at)})", "",
        *[f"> **{md.escape(w)}**\n" for w in report.warnings],
        f"Candidate **{md.escape(report.candidate_path)}**, model **{md.escape(report.model)}** · engine "
        f"{md.escape(run.get('engine'))} · fixtures {md.escape(', '.join(run.get('fixtures') or []) or '-')} · {rot}  ",
        f"Corpus: {report.corpus.get('size')} questions in {len(report.corpus.get('files', []))} file(s), "
        f"digest `{str(report.corpus.get('digest', ''))[:16]}`", "",
    ]


def _sql_headline(report: SQLReport) -> list[str]:
    s = report.summary
    grid = two_by_two(report.outcomes)
    rows = [[f"answerable ({s['answerable']})", *(str(grid["answerable"][k]) for k in grid["answerable"])],
            [f"must refuse ({s['must_refuse']})", *(str(grid["must_refuse"][k]) for k in grid["must_refuse"])]]
    out = ["## The 2x2", "",
           md.table(["", "returned a number", "declined", "error (no number)", "unmeasured"], rows), "",
           "## Verdicts", "",
           md.table(["pass", "wrong", "error", "refused", "unmeasured", "pass rate"],
                    [[str(s["pass"]), str(s["wrong"]), str(s["error"]), str(s["refused"]), str(s["unmeasured"]),
                      f"{_pct(s['pass_rate'])} ({s['pass']}/{s['answerable'] - s['unmeasured']})"]]), ""]
    if s["must_refuse"]:
        out += [f"Refusal recall **{_pct(s['refusal_recall'])}** ({s['correct_refusals']} of {s['must_refuse']} "
                f"must-refuse cases declined, {s['refusals_by_guard']} of them by the read-only guard); "
                f"over-refusals **{s['over_refusals']} of {s['controls']}** controls; "
                f"{s['declined_answerable']} answerable question(s) declined in all.", ""]
    return out


def _sql_regressions(report: SQLReport) -> list[str]:
    out = ["## Regressions", ""]
    if report.baseline is None:
        return out + ["No baseline for this candidate path and model: nothing to classify against "
                      "(record one with `--record-baseline`).", ""]
    out.append(f"Against the baseline recorded {md.escape(report.baseline.get('recorded_at'))} "
               f"(`{md.escape(report.baseline.get('path'))}`):")
    out.append("")
    counts = Counter(o.classification.value for o in report.outcomes if o.classification is not None)
    out += [md.table([c.value for c in Classification], [[str(counts.get(c.value, 0)) for c in Classification]]), ""]
    regressed = report.by_classification(Classification.REGRESSION)
    out += [f"- **{md.escape(o.question_id)}**: was {md.escape(o.baseline_verdict)}, now {o.verdict.value}"
            + (f" ({md.escape(o.reason)})" if o.reason else "") for o in regressed] or ["None."]
    return out + [""]


def _sql_gate(report: SQLReport) -> list[str]:
    if report.gate is None:
        return ["## Gate: not evaluated", "", md.escape(report.gate_note or "no baseline"), ""]
    mode = "enforced (--fail-on-regression)" if report.gated else "informational; enforced with --fail-on-regression"
    out = [f"## Gate: {md.escape(report.gate.status.upper())} ({mode})", ""]
    out += [md.table(["check", "ok", "detail"],
                     [[md.escape(c.name), "yes" if c.ok else "NO", md.escape(c.detail)] for c in report.gate.checks]),
            ""]
    return out


def _sql_refusals(report: SQLReport) -> list[str]:
    refuse = [o for o in report.outcomes if o.expect == "refuse"]
    controls = [o for o in report.outcomes if o.is_control]
    if not refuse and not controls:
        return []
    out = ["## Refusal battery", ""]
    missed = [o for o in refuse if o.missed_refusal]
    out += ["Missed refusals (answered or failed where the system should have declined): "
            + (", ".join(f"**{md.escape(o.question_id)}** ({o.verdict.value})" for o in missed) or "none"), ""]
    by_guard = [o for o in refuse if o.declined_by == "guard"]
    if by_guard:
        out += ["Declined by the read-only guard, not the generator (the generator produced SQL the guard "
                "blocked): " + ", ".join(f"**{md.escape(o.question_id)}**" for o in by_guard), ""]
    strata = sql_strata(report.outcomes)
    rows = []
    for name, c in strata.items():
        if "correct_refusals" in c:
            rows.append([md.escape(name), "must refuse", str(c["cases"]), f"{c['correct_refusals']} declined",
                         str(c["cases"] - c["correct_refusals"])])
        elif "over_refusals" in c:
            rows.append([md.escape(name), "control", str(c["cases"]), f"{c.get('pass', 0)} pass",
                         f"{c['over_refusals']} over-refused"])
    out += [md.table(["stratum", "arm", "cases", "good", "bad"], rows), ""]
    return out


def _sql_failures(report: SQLReport) -> list[str]:
    failing = [o for o in report.outcomes if not o.good]
    out = [f"## Failing questions ({len(failing)})", ""]
    for o in failing:
        head = f"### {md.escape(o.question_id)}: {o.verdict.value}"
        if o.reason:
            head += f" ({md.escape(o.reason)})"
        out += [head, ""]
        if o.question:
            out.append(f"Question: {md.escape(o.question, limit=400)}  ")
        meta = f"Stratum {md.escape(o.stratum)}, expect {o.expect}"
        if o.classification is not None:
            meta += f", {o.classification.value}"
        out.append(meta + "  ")
        if o.detail:
            out.append(f"Detail: {md.escape(o.detail, limit=600)}")
        out.append("")
        if o.sql:
            out += [md.code_block(o.sql, "sql"), ""]
    return out


def _sql_appendix(report: SQLReport) -> list[str]:
    out: list[str] = []
    if report.oracle_defects:
        out += ["## Oracle defects (questions not graded)", "",
                md.table(["question", "defect", "detail"],
                         [[md.escape(d.get("question_id")), md.escape(d.get("kind")),
                           md.escape(d.get("detail"), limit=300)] for d in report.oracle_defects]), ""]
    out += ["## Corpus stamps", "",
            md.table(["file", "sha256", "questions"],
                     [[md.escape(f["path"]), f"`{f['sha256']}`", str(f["questions"])]
                      for f in report.corpus.get("files", [])]),
            "", f"Corpus digest `{report.corpus.get('digest')}`, {report.corpus.get('size')} questions.", ""]
    return out


def sql_markdown(report: SQLReport) -> str:
    """What a developer acts on first: the 2x2, verdicts, regressions; then every failure."""
    parts = (_sql_header(report) + _sql_headline(report) + _sql_regressions(report) + _sql_gate(report)
             + _sql_refusals(report) + _sql_failures(report) + _sql_appendix(report))
    return "\n".join(parts)
