"""The JSON report; its keys are a contract (spec section 7)."""

from __future__ import annotations

import dataclasses
from typing import Any

from eval.sql.model.outcome import breakdown, strata, two_by_two
from eval.sql.report._model import SQLReport


def to_json(report: SQLReport) -> dict[str, Any]:
    def classified(qid: str) -> tuple[str | None, str | None]:
        c = report.classes.get(qid)
        return (None, None) if c is None else (c.classification.value, c.baseline_verdict)

    questions = []
    for o in report.outcomes:
        classification, baseline_verdict = classified(o.question_id)
        questions.append(
            {
                "id": o.question_id,
                "expect": o.expect,
                "stratum": o.stratum,
                "verdict": o.verdict.value,
                "reason": o.reason,
                "detail": o.detail,
                "sql": o.sql,
                "declined_by": o.declined_by,
                "rotations_matched": o.rotations_matched,
                "rotations": o.rotations,
                "classification": classification,
                "baseline_verdict": baseline_verdict,
                "fixture": o.fixture,
                "database": o.database,
                "difficulty": o.difficulty,
                "question": o.question,
                "cost": None if o.cost is None else dataclasses.asdict(o.cost),
                "samples": [v.value for v in o.samples] if o.samples else None,
                "reference_sql": o.reference_sql,
                "excerpt": None if o.excerpt is None else dataclasses.asdict(o.excerpt),
            }
        )
    return {
        "suite": "sql",
        "generated_at": report.generated_at,
        "partial": report.partial,
        "candidate": {"path": report.candidate_path, "model": report.model},
        "cohort": report.cohort,
        "corpus": report.corpus,
        "run": report.run,
        "summary": report.summary,
        "two_by_two": two_by_two(report.outcomes),
        "strata": strata(report.outcomes),
        "databases": breakdown(report.outcomes, "database"),
        "difficulties": breakdown(report.outcomes, "difficulty"),
        "missed_refusals": [o.question_id for o in report.outcomes if o.missed_refusal],
        "baseline": report.baseline,
        "questions": questions,
        "costs": report.costs,
        "repeats": report.repeats,
        "oracle_defects": report.oracle_defects,
        "warnings": report.warnings,
        "judge": report.judge,
        "gate": (
            {"status": "not_evaluated", "checks": [], "detail": report.gate_note}
            if report.gate is None
            else report.gate.to_json() | {"enforced": report.gated}
        ),
    }
