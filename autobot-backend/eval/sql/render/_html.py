"""The HTML report: one self-contained page for people (``--html PATH``).

Built from the run model alone (its figures, never worked out again here) and rendered by
:mod:`eval.core.html` (Jinja2, everything escaped, no network).
"""

from __future__ import annotations

from typing import Any

from eval.core import figures as fig
from eval.core.charts import Bar, stacked_bar
from eval.core.html import render
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.render import _diagnosis as diagnosis
from eval.sql.render import _facts as facts
from eval.sql.render import _html_questions as whole
from eval.sql.render import _refuted as refuted
from eval.sql.render import _suspect as suspect

_BREAKDOWN_IDS = {"stratum": "answer-strata", "database": "databases", "difficulty": "difficulties"}
_REFUSE_CSS = {"declined": "v-declined", "answered": "v-answered", "error": "v-error", "unmeasured": "v-unmeasured"}


def _answer_row(name: str, c: dict[str, int]) -> dict[str, Any]:
    parts = [(v, c[v], f"v-{v}") for v in facts.ANSWERABLE_COLUMNS]
    return {"name": name, "cases": c["cases"], "parts": parts, "bar": stacked_bar(parts, c["cases"])}


def _refuse_row(name: str, c: dict[str, int]) -> dict[str, Any]:
    parts = [(k, c[k], _REFUSE_CSS[k]) for k in facts.REFUSAL_COLUMNS]
    return {"name": name, "cases": c["cases"], "parts": parts, "bar": stacked_bar(parts, c["cases"])}


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
    """What the template shows: the run model's figures (never worked out here) and their sentences."""
    s = report.summary
    failing = [whole.card(report, o) for o in report.failing]
    regressions = [
        {"id": o.question_id, "was": _was(report, o), "now": o.verdict.value, "reason": o.reason}
        for o in report.regressions
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
        "verdict_columns": facts.ANSWERABLE_COLUMNS,
        "breakdowns": [
            {
                "id": _BREAKDOWN_IDS[key],
                "key": key,
                "column": column,
                "title": title,
                "rows": [_answer_row(k, c) for k, c in counts.items()],
            }
            for key, column, title, counts in facts.breakdowns(report)
        ],
        "refuse_rows": [_refuse_row(k, c) for k, c in report.refusal_strata.items()],
        "control_rows": report.control_strata,
        "missed_refusals": report.missed_refusals,
        "declined_by_guard": report.declined_by_guard,
        "regressions": regressions,
        "failing": failing,
        "verdicts": sorted({q["verdict"] for q in failing}),
        "strata_names": sorted({q["stratum"] for q in failing}),
        "gate": report.gate_view,
        "gate_line": facts.gate(report),
        "check_status": facts.check_status,
        "pass_rate_label": f"{fig.of(s['pass'], s['measured'])} measured{facts.not_gradeable(report)}; {fig.WILSON}",
        "notices": facts.notices(report),
        "recall_label": f"{fig.of(s['correct_refusals'], s['must_refuse_measured'])} measured declined; {fig.WILSON}",
        "interval_notes": facts.interval_notes(report),
        "repeats_line": facts.repeats(report),
        "cost_lines": facts.cost_lines(report),
        "judge_line": facts.judge(report),
        "bootstrap": fig.BOOTSTRAP,
        "transcripts_line": facts.transcripts(report),
        **whole.context(report),
        "why_table": diagnosis.table(report),
        "suspects": suspect.html_context(report),
        "refuted": refuted.html_context(report),
        "lint_line": facts.lint_line(report),
        "lint_rows": _lint_rows(report),
    }


def _lint_rows(report: SQLRun) -> list[dict[str, str]]:
    """Every lint of the corpus, then every oracle defect (whose place in the files a run does not keep), one row
    each: the list the line after the headline counts."""
    rows = [{"id": x.question_id, "kind": x.kind, "where": x.where, "detail": x.detail} for x in report.lints]
    rows += [
        {
            "id": str(d.get("question_id")),
            "kind": str(d.get("kind")),
            "where": "",
            "detail": str(d.get("detail") or ""),
        }
        for d in report.oracle_defects
    ]
    return rows


def to_html(report: SQLRun) -> str:
    """The whole page as one string (write it with :func:`eval.core.output.write_text`)."""
    return render("sql_report.html.j2", **context(report))
