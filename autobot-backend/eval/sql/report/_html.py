"""The HTML report: one self-contained page for people (``--html PATH``).

Built from the run model alone (its figures, never worked out again here) and rendered by
:mod:`eval.core.html` (Jinja2, everything escaped, no network).
"""

from __future__ import annotations

from typing import Any

from eval.core.charts import Bar, stacked_bar
from eval.core.classification import Classification
from eval.core.html import render
from eval.sql.model.outcome import ANSWERABLE_VERDICTS, SQLOutcome
from eval.sql.model.run import SQLRun

_REFUSE_PARTS = (
    ("declined", "v-declined"),
    ("answered", "v-answered"),
    ("error", "v-error"),
    ("unmeasured", "v-unmeasured"),
)


def _answer_row(name: str, c: dict[str, int]) -> dict[str, Any]:
    parts = [(v.value, c.get(v.value, 0), f"v-{v.value}") for v in ANSWERABLE_VERDICTS]
    return {"name": name, "cases": c["cases"], "parts": parts, "bar": stacked_bar(parts, c["cases"])}


def _refuse_row(name: str, c: dict[str, int]) -> dict[str, Any]:
    declined, answered, unmeasured = c.get("correct_refusals", 0), c.get("answered", 0), c.get("unmeasured", 0)
    counts = {"declined": declined, "answered": answered, "unmeasured": unmeasured}
    counts["error"] = c["cases"] - declined - answered - unmeasured  # errors the guard did not cause
    parts = [(label, counts[label], css) for label, css in _REFUSE_PARTS]
    return {"name": name, "cases": c["cases"], "parts": parts, "bar": stacked_bar(parts, c["cases"])}


def _excerpt(o: SQLOutcome) -> dict[str, Any] | None:
    e = o.excerpt
    if e is None:
        return None
    return {
        "rotation": e.rotation,
        "sides": [  # the candidate first, as in the SQL above it and in every other output
            ("candidate", e.actual_columns, e.actual, e.actual_row),
            ("reference", e.expected_columns, e.expected, e.expected_row),
        ],
        "column": e.column,
    }


def _card(o: SQLOutcome) -> dict[str, Any]:
    return {
        "id": o.question_id,
        "verdict": o.verdict.value,
        "stratum": o.stratum,
        "reason": o.reason,
        "question": o.question,
        "detail": o.detail,
        "sql": o.sql,
        "reference_sql": o.reference_sql,
        "shown_excerpt": _excerpt(o),
    }


def _bar_of(grid: dict[str, int], total: int, must_refuse: bool) -> Bar:
    """A number is what an answerable question wants (right or wrong: the verdicts say which) and what a
    must-refuse one must not give, so the colours follow the arm."""
    parts = [
        ("returned a number", grid["returned_number"], "v-answered" if must_refuse else "v-number"),
        ("declined", grid["declined"], "v-declined" if must_refuse else "v-refused"),
        ("error", grid["error"], "v-error"),
        ("unmeasured", grid["unmeasured"], "v-unmeasured"),
    ]
    return stacked_bar(parts, total)


def _was(report: SQLRun, o: SQLOutcome) -> str | None:
    c = report.classified(o)
    return None if c is None else c.baseline_verdict


def context(report: SQLRun) -> dict[str, Any]:
    """What the template shows: the run model's figures and the baseline classification."""
    s = report.summary
    strata = report.strata
    answer_rows = [_answer_row(k, c) for k, c in strata.items() if "correct_refusals" not in c]
    refuse_rows = [_refuse_row(k, c) for k, c in strata.items() if "correct_refusals" in c]
    failing = [_card(o) for o in report.failing]
    regressions = [
        {
            "id": o.question_id,
            "was": _was(report, o),
            "now": o.verdict.value,
            "reason": o.reason,
        }
        for o in report.by_classification(Classification.REGRESSION)
    ]
    grid = report.two_by_two
    return {
        "report": report,
        "summary": s,
        "run": report.run,
        "grid": grid,
        "grid_bars": {
            "answerable": _bar_of(grid["answerable"], s["answerable"], must_refuse=False),
            "must_refuse": _bar_of(grid["must_refuse"], s["must_refuse"], must_refuse=True),
        },
        "answer_rows": answer_rows,
        "refuse_rows": refuse_rows,
        "regressions": regressions,
        "failing": failing,
        "verdicts": sorted({q["verdict"] for q in failing}),
        "strata_names": sorted({q["stratum"] for q in failing}),
        "gate": report.gate_view,
    }


def to_html(report: SQLRun) -> str:
    """The whole page as one string (write it with :func:`eval.core.output.write_text`)."""
    return render("sql_report.html.j2", **context(report))
